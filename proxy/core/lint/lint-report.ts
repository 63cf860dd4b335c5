/**
 * The one-page lint report of a session (`GET /api/sessions/:id/lint`, and the UI's): the rules
 * its traffic broke, how often, and the first time each — what a developer fixes before shipping
 * a server. Built from the store's `spec-violation` problem events (the linter's output, the one
 * source of truth). Pure: no Node APIs — the UI imports it for its report drawer.
 */
import type { McpscopeEvent, ProblemEvent } from '../model/events.js';

export interface LintRuleSummary {
  rule: string;
  specRef?: string;
  /** `error` if any occurrence was (strict mode), else `warn`. */
  level: 'warn' | 'error';
  count: number;
  /** The first occurrence: the problem's seq, the message it is about, when, and what it said. */
  first: { seq: number; message?: number; ts: number; text: string; path?: string; expected?: string };
}

export interface LintReport {
  sessionId: string;
  protocolVersion?: string;
  /** Violations in all. */
  total: number;
  /** One entry per rule broken, most frequent first (then by first occurrence). */
  rules: LintRuleSummary[];
}

export function isSpecViolation(e: McpscopeEvent): e is ProblemEvent & { rule: string } {
  return e.type === 'problem' && e.code === 'spec-violation' && typeof e.rule === 'string';
}

/**
 * A session's lint report from its events: each rule broken, how often, and its first occurrence.
 * `sessionOf` gives a violation's session when the event names only an exchange (the UI's store
 * knows exchanges' sessions).
 */
export function lintReport(
  sessionId: string,
  events: Iterable<McpscopeEvent>,
  opts: { protocolVersion?: string; sessionOf?: (p: ProblemEvent) => string | undefined } = {},
): LintReport {
  const byRule = new Map<string, LintRuleSummary>();
  let total = 0;
  for (const e of events) {
    if (!isSpecViolation(e) || (e.sessionId ?? opts.sessionOf?.(e)) !== sessionId) continue;
    total += 1;
    const seen = byRule.get(e.rule);
    if (seen) {
      seen.count += 1;
      if (e.level === 'error') seen.level = 'error';
      if (e.seq < seen.first.seq) seen.first = firstOf(e);
      continue;
    }
    byRule.set(e.rule, {
      rule: e.rule,
      ...(e.specRef !== undefined ? { specRef: e.specRef } : {}),
      level: e.level,
      count: 1,
      first: firstOf(e),
    });
  }
  const rules = [...byRule.values()].sort((a, b) => b.count - a.count || a.first.seq - b.first.seq);
  return { sessionId, ...(opts.protocolVersion !== undefined ? { protocolVersion: opts.protocolVersion } : {}), total, rules };
}

function firstOf(e: ProblemEvent & { rule: string }): LintRuleSummary['first'] {
  return {
    seq: e.seq,
    ...(e.message !== undefined ? { message: e.message } : {}),
    ts: e.ts,
    text: e.text,
    ...(e.path !== undefined ? { path: e.path } : {}),
    ...(e.expected !== undefined ? { expected: e.expected } : {}),
  };
}
