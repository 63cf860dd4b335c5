/**
 * `mcpscope verify` lints the live server: every message of the verify session goes
 * through the same spec linter the recorder uses (proxy/core/lint/linter.ts), and what the server's
 * messages break is reported — a failure of the run with `--strict`, a note without. The verify
 * client is mcpscope's own (the SDK's): its side is not judged.
 */
import { Linter, type LintFinding } from '../../core/lint/linter.js';
import type { LintSession } from '../../core/lint/session-lint.js';
import type { Direction, MessageKind } from '../../core/model/events.js';

/** One rule the live server broke. */
export interface VerifyViolation extends LintFinding {
  /** The call during which the message came (`tools/call echo`), when it came during one. */
  call?: string;
  /** The server message's method, or for a response the method of the request it answers. */
  method?: string;
}

const idKey = (id: unknown): string => `${typeof id}:${String(id)}`;

function kindOf(m: Record<string, unknown>): MessageKind | undefined {
  if (typeof m.method === 'string') return m.id === undefined ? 'notification' : 'request';
  if ('error' in m) return 'error';
  if ('result' in m) return 'response';
  return undefined;
}

export class VerifyLint {
  private readonly linter = new Linter();
  private readonly session: LintSession;
  private seq = 0;
  /** Requests in flight per requesting side: id → seq and method. */
  private readonly inFlight: Record<Direction, Map<string, { seq: number; method: string }>> = { c2s: new Map(), s2c: new Map() };
  readonly violations: VerifyViolation[] = [];
  /** What the linter could not check (a schema too large or too slow, a pattern RE2 cannot run): said, never a failure. */
  readonly notes: VerifyViolation[] = [];
  /** The call in progress, for the report. */
  currentCall: string | undefined;

  constructor(transport: string) {
    this.session = { id: 'verify', transport: transport === 'http' ? 'streamable-http' : transport };
  }

  /** A message the verify client sent. */
  sent(message: unknown): void {
    this.observe('c2s', message);
  }

  /** A message the live server sent. */
  received(message: unknown): void {
    this.observe('s2c', message);
  }

  private observe(dir: Direction, message: unknown): void {
    for (const one of Array.isArray(message) ? message : [message]) {
      if (typeof one !== 'object' || one === null) continue;
      const m = one as Record<string, unknown>;
      const kind = kindOf(m);
      if (!kind) continue;
      const seq = ++this.seq;
      const method = typeof m.method === 'string' ? m.method : undefined;
      let pair: { seq: number; method: string } | undefined;
      if (kind === 'request') this.inFlight[dir].set(idKey(m.id), { seq, method: method! });
      else if (kind === 'response' || kind === 'error') {
        // An answer pairs with a request of the other side.
        const book = this.inFlight[dir === 'c2s' ? 's2c' : 'c2s'];
        pair = book.get(idKey(m.id));
        book.delete(idKey(m.id));
      }
      this.learn(dir, kind, method, m, pair?.method);
      const found = this.linter.observe(this.session, {
        seq,
        ts: Date.now(),
        dir,
        kind,
        method,
        id: m.id as never,
        value: m,
        requestMethod: pair?.method,
        pair: pair?.seq,
      });
      for (const f of found) {
        const v = { ...f, ...(this.currentCall ? { call: this.currentCall } : {}), method: method ?? pair?.method };
        // What the linter could not check is said whichever side it was; only the server is judged.
        if (f.note) this.notes.push(v);
        else if (dir === 's2c') this.violations.push(v);
      }
    }
  }

  /** The session's version and capabilities, from its initialize request and result, as the recorder learns them. */
  private learn(dir: Direction, kind: MessageKind, method: string | undefined, m: Record<string, unknown>, answers?: string): void {
    const params = m.params as { protocolVersion?: unknown; capabilities?: Record<string, unknown> } | undefined;
    const result = m.result as { protocolVersion?: unknown; capabilities?: Record<string, unknown> } | undefined;
    if (dir === 'c2s' && kind === 'request' && method === 'initialize') {
      if (typeof params?.protocolVersion === 'string') this.session.protocolVersion = params.protocolVersion;
      if (params?.capabilities) this.session.clientCapabilities = params.capabilities;
    }
    if (dir === 's2c' && kind === 'response' && answers === 'initialize') {
      if (typeof result?.protocolVersion === 'string') this.session.protocolVersion = result.protocolVersion;
      if (result?.capabilities) this.session.serverCapabilities = result.capabilities;
    }
  }
}

/** The report's lines for what the linter could not check. */
export function formatLintNotes(notes: readonly VerifyViolation[]): string[] {
  if (notes.length === 0) return [];
  const lines = [`  mcpscope could not check ${notes.length} thing${notes.length === 1 ? '' : 's'} (not a failure):`];
  for (const v of notes) {
    lines.push(`    ${v.rule}${v.call ? ` in ${v.call}` : ''}${v.path ? ` at ${v.path}` : ''}`);
    lines.push(`      ${v.text}`);
  }
  return lines;
}

/** The report's lines for the server's violations. */
export function formatViolations(violations: readonly VerifyViolation[], strict: boolean): string[] {
  if (violations.length === 0) return [];
  const lines = [
    `  The live server broke the MCP specification ${violations.length} time${violations.length === 1 ? '' : 's'}${strict ? ' (--strict: the run fails)' : ' (add --strict to fail the run on them)'}:`,
  ];
  for (const v of violations) {
    lines.push(`    ${v.rule}${v.call ? ` in ${v.call}` : ''}${v.path ? ` at ${v.path}` : ''} (${v.specRef})`);
    lines.push(`      ${v.text}`);
  }
  return lines;
}
