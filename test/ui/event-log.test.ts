/** ui/src/state/event-log.ts: the store's seq-ordered log. */
import { describe, expect, it } from 'vitest';
import { indexOfSeq, isSorted, mergeBySeq, validSeq } from '../../ui/src/state/event-log.js';
import type { McpscopeEvent } from '../../proxy/core/model/events.js';

const ev = (seq: number) => ({ type: 'log', seq, ts: seq, source: 'mcpscope', text: '' }) as unknown as McpscopeEvent;

describe('event-log', () => {
  it('isSorted: strictly increasing seqs only', () => {
    expect(isSorted([ev(1), ev(2), ev(5)])).toBe(true);
    expect(isSorted([ev(1), ev(1)])).toBe(false);
    expect(isSorted([ev(2), ev(1)])).toBe(false);
    expect(isSorted([])).toBe(true);
  });
  it('validSeq: a finite number', () => {
    expect(validSeq(ev(3))).toBe(true);
    expect(validSeq({ ...ev(1), seq: Number.NaN } as McpscopeEvent)).toBe(false);
    expect(validSeq(null)).toBe(false);
  });
  it('indexOfSeq finds by binary search, -1 when absent', () => {
    const log = [1, 3, 4, 9, 12].map(ev);
    expect(log.map((e) => indexOfSeq(log, e.seq))).toEqual([0, 1, 2, 3, 4]);
    expect(indexOfSeq(log, 5)).toBe(-1);
    expect(indexOfSeq([], 1)).toBe(-1);
  });
  it('mergeBySeq keeps seq order across both logs', () => {
    expect(mergeBySeq([1, 4, 9].map(ev), [2, 3, 10].map(ev)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 9, 10]);
    expect(mergeBySeq([], [2].map(ev)).map((e) => e.seq)).toEqual([2]);
  });
});
