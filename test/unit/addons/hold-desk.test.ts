/** The desk of held messages: reports, one action each, the time limit, a holder gone. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HoldDesk } from '../../../proxy/addons/breakpoints/wire/hold-desk.js';
import type { HeldReport, PausedOutcome } from '../../../proxy/core/rules/breakpoint-types.js';

afterEach(() => vi.useRealTimers());

function desk(holdMs = 1000) {
  const reports: HeldReport[] = [];
  const released: [string, PausedOutcome][] = [];
  const order: string[] = [];
  const d = new HoldDesk({
    prefix: 'h',
    holdMs,
    beforeReport: () => order.push('flush'),
    report: (r) => (reports.push(r), order.push('report')),
    released: (id, o) => released.push([id, o]),
  });
  return { d, reports, released, order };
}
const req = { xid: 'x1', dir: 'c2s' as const, carrier: 'post-body' as const, text: '{}', kind: 'request' as const, rule: 'r' };

describe('HoldDesk', () => {
  it('reports after flushing, carries out one action, says how it ended', () => {
    const { d, reports, released, order } = desk();
    const acts: string[] = [];
    const t = d.hold(req, (a) => (acts.push(a.action), 'dropped'));
    expect(t.publicId).toBe('h1');
    expect(order).toEqual(['flush', 'report']);
    expect(reports[0]!.expiresAt - reports[0]!.since).toBe(1000);
    d.act('1', { action: 'drop' });
    d.act('1', { action: 'resume' });
    expect(acts).toEqual(['drop']);
    expect(released).toEqual([['1', 'dropped']]);
  });
  it('resumes unchanged at the time limit; a holder gone is released as gone', () => {
    vi.useFakeTimers();
    const { d, released } = desk(500);
    const timedOut: boolean[] = [];
    d.hold(req, (_a, t) => (timedOut.push(t), 'timed-out'));
    const second = d.hold(req, () => 'resumed');
    second.gone();
    vi.advanceTimersByTime(499);
    expect(timedOut).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(timedOut).toEqual([true]);
    expect(released).toEqual([
      ['2', 'gone'],
      ['1', 'timed-out'],
    ]);
    expect(d.size).toBe(0);
  });
});
