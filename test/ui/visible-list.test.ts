/**
 * The visible list (ui/src/state/visible-list.ts), through the store's visibleRows/visibleIndex:
 * memoized per version and filters, recomputed from the first changed row, narrowed as a search grows.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TimelineStore } from '../../ui/src/state/store';
import { syntheticEvents } from '../../bench/ui-synthetic';
import { EMPTY_FILTERS } from '../../ui/src/state/types';
import type { McpscopeEvent } from '../../proxy/core/model/events';
import { scenario } from './fixtures';

const loaded = (events: readonly McpscopeEvent[] = scenario().events) => {
  const store = new TimelineStore();
  store.ingest(events);
  return store;
};

describe('visible list', () => {
  it('visibleRows is memoized on version and filter contents', () => {
    const { events, seq } = scenario();
    const store = new TimelineStore();
    const cut = events.findIndex((e) => e.seq === seq.hang);
    store.ingest(events.slice(0, cut));
    const a = store.visibleRows(EMPTY_FILTERS);
    expect(store.visibleRows(EMPTY_FILTERS)).toBe(a);
    expect(store.visibleRows({ ...EMPTY_FILTERS })).toBe(a);
    const f = { ...EMPTY_FILTERS, method: 'tools/' };
    const b = store.visibleRows(f);
    expect(b).not.toBe(a);
    expect(store.visibleRows({ ...f })).toBe(b);
    // An event that changes no row (a log line) keeps the same lists.
    store.ingest([{ type: 'log', seq: 10_000, ts: 1, source: 'mcpscope', text: 'x' }]);
    expect(store.visibleRows(f)).toBe(b);
    // A new row makes new lists (appended after the unchanged prefix).
    store.ingest(events.slice(cut).map((e) => ({ ...e, seq: e.seq + 10_000 })) as McpscopeEvent[]);
    const b2 = store.visibleRows(f);
    expect(b2).not.toBe(b);
    expect(b2.slice(0, b.length)).toEqual(b);
    expect(b2.map((r) => r.key)).toContain(`c${seq.hang + 10_000}`);
    expect(store.visibleRows(EMPTY_FILTERS)).not.toBe(a);
  });

  it('recomputes only the changed part of a list, with the same result as from scratch', () => {
    const events = syntheticEvents(3_000, { seed: 11, sessions: 2 });
    const filters = [
      EMPTY_FILTERS,
      { ...EMPTY_FILTERS, errorsOnly: true },
      { ...EMPTY_FILTERS, session: 's2', method: 'tools/' },
      { ...EMPTY_FILTERS, text: 'alpha' },
      { ...EMPTY_FILTERS, kind: 'notification' as const },
    ];
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: events.length - 1 }), { minLength: 1, maxLength: 6 }), (cuts) => {
        const live = new TimelineStore();
        let from = 0;
        for (const p of [...new Set(cuts)].sort((a, b) => a - b).concat(events.length)) {
          live.ingest(events.slice(from, p));
          from = p;
          for (const f of filters) live.visibleRows(f);
        }
        const fresh = loaded(events);
        for (const f of filters) expect(live.visibleRows(f).map((r) => r.key)).toEqual(fresh.visibleRows(f).map((r) => r.key));
      }),
      { numRuns: 25 },
    );
  });

  it('narrows a search as more text is typed, with the same result as from scratch', () => {
    const store = loaded(syntheticEvents(3_000, { seed: 5 }));
    const steps = ['a', 'al', 'alp', 'alpha', 'alpha b', 'alpha br'];
    for (const text of steps) {
      const got = store.visibleRows({ ...EMPTY_FILTERS, text }).map((r) => r.key);
      const fresh = loaded(syntheticEvents(3_000, { seed: 5 }));
      expect(got).toEqual(fresh.visibleRows({ ...EMPTY_FILTERS, text }).map((r) => r.key));
    }
  });

  it('narrows by session: terms only when they name the same sessions (session:s1 then session:s12 is no narrowing)', () => {
    const events = syntheticEvents(3_000, { seed: 7, sessions: 12 });
    const store = loaded(events);
    const fresh = loaded(events);
    const steps = ['session:s1', 'session:s12', 'session:s12 a', 'session:s12 al', 'session:s1 al', 'session:s1 session:s12 al'];
    for (const text of steps) {
      const got = store.visibleRows({ ...EMPTY_FILTERS, text }).map((r) => r.key);
      expect(got.length).toBeGreaterThan(0);
      expect(got).toEqual(fresh.visibleRows({ ...EMPTY_FILTERS, text: `${text} ` }).map((r) => r.key));
    }
  });

  it('visibleIndex finds a row in the visible list', () => {
    const { events, seq } = scenario();
    const store = loaded(events);
    const rows = store.visibleRows(EMPTY_FILTERS);
    const key = `c${seq.sampling}`;
    expect(store.visibleIndex(EMPTY_FILTERS, key)).toBe(rows.findIndex((r) => r.key === key));
    expect(store.visibleIndex(EMPTY_FILTERS, 'c-nope')).toBe(-1);
  });

  it('re-evaluates a filtered row when it changes in place', () => {
    const { events, seq } = scenario();
    const store = new TimelineStore();
    const cut = events.findIndex((e) => e.seq === seq.crashError);
    store.ingest(events.slice(0, cut));
    const f = { ...EMPTY_FILTERS, errorsOnly: true };
    expect(store.visibleRows(f).map((r) => r.key)).not.toContain(`c${seq.crash}`);
    store.ingest(events.slice(cut));
    expect(store.visibleRows(f).map((r) => r.key)).toContain(`c${seq.crash}`);
  });
});
