/** The session lint report: rules broken, most frequent first, each with its first occurrence; only that session's violations. */
import { describe, expect, it } from 'vitest';
import { lintReport } from '../../../proxy/core/lint/lint-report.js';
import type { McpscopeEvent } from '../../../proxy/core/model/events.js';

const v = (seq: number, rule: string, extra: Partial<McpscopeEvent> = {}): McpscopeEvent =>
  ({
    type: 'problem',
    seq,
    ts: 1000 + seq,
    sessionId: 's1',
    level: 'warn',
    code: 'spec-violation',
    rule,
    specRef: `2025-06-18 ${rule}`,
    message: seq - 1,
    text: `broke ${rule} at ${seq}`,
    ...extra,
  }) as McpscopeEvent;

describe('lintReport', () => {
  it('groups by rule, counts, keeps the first occurrence, sorts by count then first seen', () => {
    const events: McpscopeEvent[] = [
      v(10, 'schema/result', { path: '/result/content', expected: 'an array' }),
      v(12, 'capability/sampling-not-declared'),
      v(14, 'capability/sampling-not-declared', { level: 'error' }),
      v(16, 'schema/result'),
      v(18, 'schema/result'),
      v(20, 'lifecycle/request-before-initialized'),
      v(22, 'schema/result', { sessionId: 's2' }),
      { type: 'problem', seq: 24, ts: 1, sessionId: 's1', level: 'error', code: 'invalid-json', text: 'not a violation' },
    ];
    const r = lintReport('s1', events, { protocolVersion: '2025-06-18' });
    expect(r.total).toBe(6);
    expect(r.protocolVersion).toBe('2025-06-18');
    expect(r.rules.map((x) => [x.rule, x.count, x.level])).toEqual([
      ['schema/result', 3, 'warn'],
      ['capability/sampling-not-declared', 2, 'error'],
      ['lifecycle/request-before-initialized', 1, 'warn'],
    ]);
    expect(r.rules[0]!.first).toEqual({
      seq: 10,
      message: 9,
      ts: 1010,
      text: 'broke schema/result at 10',
      path: '/result/content',
      expected: 'an array',
    });
  });
  it('is empty for a clean session', () => {
    expect(lintReport('s9', [v(1, 'x')])).toEqual({ sessionId: 's9', total: 0, rules: [] });
  });
});
