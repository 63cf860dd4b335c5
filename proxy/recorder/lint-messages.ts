/**
 * The recorder's side of live spec linting: after a message is stored, the linter
 * (proxy/core/lint/linter.ts) checks it against its method's schema and the session's state, and each
 * rule it breaks becomes a `problem` event with `code: "spec-violation"`, right after the message
 * and linked to it (`message`: its seq); what it could not check (a `lint/…` note) becomes one with
 * `code: "lint-not-checked"`, at warn level and not counted as a violation. Main thread only; with `--lint off` there is no Linter
 * and this is never called.
 */
import type { Hint, MessageEvent, SessionInfo } from '../core/model/events.js';
import type { HeaderMap } from '../core/model/headers.js';
import type { Linter, LintMode } from '../core/lint/linter.js';
import { stripUndefined } from './record-helpers.js';
import type { RecorderContext } from './recorder-context.js';

export interface LintInput {
  /** The message as stored (seq, kind, method, pair…). */
  stored: MessageEvent;
  /** The message as parsed, unredacted: checked, never kept. */
  value: unknown;
  /** For a response or error: its request's method (the correlator's). */
  requestMethod?: string;
  /** The correlator's hints on it (their codes say which progress tokens and cancellations it could not place). */
  correlatorHints: readonly Hint[];
  /** HTTP: the headers of the POST that carried this client message (its first message only). */
  requestHeaders?: HeaderMap;
  /** HTTP: the POST carried an Mcp-Session-Id that the server, which assigns none, never gave out. */
  unassignedSessionId?: boolean;
}

/** The problem code of a linter note (what it could not check: a schema too large or too slow, a pattern RE2 cannot run). */
export const LINT_NOT_CHECKED = 'lint-not-checked';

/** Lints one stored message and stores what it broke. Never throws into the recorder. */
export function lintMessage(ctx: RecorderContext, linter: Linter, mode: LintMode, session: SessionInfo, input: LintInput): void {
  const m = input.stored;
  let found;
  try {
    found = linter.observe(session, {
      seq: m.seq,
      ts: m.ts,
      dir: m.dir,
      kind: m.kind,
      method: m.kind === 'request' || m.kind === 'notification' ? m.method : undefined,
      id: m.id,
      value: input.value,
      requestMethod: input.requestMethod,
      pair: m.pair,
      correlatorCodes: input.correlatorHints.map((h) => h.code),
      requestHeaders: input.requestHeaders,
      unassignedSessionId: input.unassignedSessionId,
    });
  } catch (err) {
    // A linter bug must not cost the recording: said once per session, then quiet.
    if (!linter.failed(session.id)) {
      ctx.store.append({
        type: 'log',
        ts: m.ts,
        sessionId: session.id,
        source: 'mcpscope',
        text: `mcpscope's spec linter failed on message #${m.seq} (${(err as Error).message}); this session's later messages are not linted.`,
      });
    }
    return;
  }
  if (found.length === 0) return;
  const level = mode === 'strict' ? 'error' : 'warn';
  let violations = 0;
  for (const v of found) {
    if (!v.note) violations += 1;
    ctx.store.append(
      stripUndefined({
        type: 'problem' as const,
        ts: m.ts,
        sessionId: session.id,
        exchangeId: m.exchangeId,
        // A note says what mcpscope could not check: never the peer's fault, whatever the mode.
        level: v.note ? 'warn' : level,
        code: v.note ? LINT_NOT_CHECKED : 'spec-violation',
        // Texts name methods, tools and header values the peer sent: redacted like any free text.
        text: ctx.redactor.text(v.text),
        rule: v.rule,
        specRef: v.specRef,
        message: m.seq,
        path: v.path,
        expected: v.expected === undefined ? undefined : ctx.redactor.text(v.expected),
      }),
    );
  }
  if (violations === 0) return;
  const c = session.counts;
  c.violations = (c.violations ?? 0) + violations;
  // Strict: the message is an error (counted once, and not again if it already was one: countMessage's rule).
  if (level === 'error' && !(m.kind === 'error' || m.isError || m.hints.some((h) => h.level === 'error'))) c.errors += 1;
  ctx.markSession(session);
}
