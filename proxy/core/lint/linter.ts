/**
 * Live spec linting: what the recorder calls for each message it stored. Checks the
 * message against the schema of its method (schema-check.ts) and the session's state
 * (session-lint.ts), and returns the rules it breaks with their spec references (rules.ts).
 * Runs on the main thread, after the message event is stored; never on the proxy thread.
 */
import { checkSchema } from './schema-check.js';
import { SessionLint, type LintMessage, type LintSession } from './session-lint.js';
import { specRefOf } from './rules.js';
import type { Violation } from './violation.js';
import type { ToolSchemas } from './tool-schemas.js';

export type LintMode = 'off' | 'warn' | 'strict';
export type { LintMessage, LintSession } from './session-lint.js';

export interface LintFinding extends Violation {
  specRef: string;
}

/** Sessions whose state is kept at most (the oldest dropped first). */
export const MAX_LINT_SESSIONS = 10_000;

export interface LinterOptions {
  /** The tool-schema checker (default: the one every Linter shares, tool-schemas.ts). */
  schemas?: ToolSchemas;
}

export class Linter {
  private readonly sessions = new Map<string, SessionLint>();

  constructor(private readonly options: LinterOptions = {}) {}
  /** Sessions whose linting threw once: not linted any more (lint-messages.ts says so once). */
  private readonly broken = new Set<string>();

  observe(session: LintSession, m: LintMessage): LintFinding[] {
    if (this.broken.has(session.id)) return [];
    let state = this.sessions.get(session.id);
    if (!state) {
      state = new SessionLint(m, this.options.schemas);
      this.sessions.set(session.id, state);
      if (this.sessions.size > MAX_LINT_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    }
    const found: Violation[] = checkSchema({
      dir: m.dir,
      kind: m.kind,
      method: m.method,
      value: m.value,
      requestMethod: m.requestMethod,
      version: session.protocolVersion,
    });
    const semantic = state.observe(session, m);
    // elicitation/requested-schema says more about requestedSchema than the generic schema issue there.
    const specific = semantic.some((v) => v.rule === 'elicitation/requested-schema');
    for (const v of found) {
      if (specific && v.rule === 'schema/request' && v.path?.startsWith('/params/requestedSchema')) continue;
      semantic.push(v);
    }
    if (semantic.length === 0) return [];
    // Schema findings first, as they were found.
    const ordered = [
      ...semantic.filter((v) => v.rule.startsWith('schema/') || v.rule.startsWith('version/')),
      ...semantic.filter((v) => !v.rule.startsWith('schema/') && !v.rule.startsWith('version/')),
    ];
    return ordered.map((v) => ({ ...v, specRef: specRefOf(v.rule, session.protocolVersion, v.section) }));
  }

  /** Linting this session threw: it is linted no more. True the first time (so that it is said once). */
  failed(sessionId: string): boolean {
    this.sessions.delete(sessionId);
    if (this.broken.has(sessionId)) return true;
    this.broken.add(sessionId);
    if (this.broken.size > MAX_LINT_SESSIONS) this.broken.delete(this.broken.values().next().value as string);
    return false;
  }

  /** A session closed: its state goes. */
  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.broken.delete(sessionId);
  }
}
