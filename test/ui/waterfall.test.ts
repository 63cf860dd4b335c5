/**
 * The waterfall's layout (ui/src/state/waterfall.ts): the time axis spans what is shown (a closed
 * session ends at its last event, however much later the store's clock is), and POST streams
 * that follow one another share a row, like a browser's network waterfall, while concurrent ones
 * stack and the GET / legacy SSE streams keep their own rows.
 */
import { describe, expect, it } from 'vitest';
import { TimelineStore } from '../../ui/src/state/store';
import { fitView, laneTitle, packWaterfall, waterfallAxis, type PackedLane } from '../../ui/src/state/waterfall';
import type { Waterfall } from '../../ui/src/state/types';
import type { McpscopeEvent, MessageEvent } from '../../proxy/core/model/events';
import { EventBuilder, T0, scenario } from './fixtures';
import demoCapture from './demo-capture.json';

const MIN = 60_000;

/** A tools/call on a POST stream of its own; `end` answers it and closes the stream. */
function begin(b: EventBuilder, xid: string, sid: string, id: number, name: string) {
  let x = b.exchange(xid, sid, { status: 200, carrier: 'post-sse', responseType: 'text/event-stream' });
  const request = b.message({
    sessionId: sid,
    exchangeId: xid,
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    id,
    method: 'tools/call',
    name,
    jsonrpc: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } },
  });
  return {
    request,
    end(afterMs: number): MessageEvent {
      const response = b.message({
        sessionId: sid,
        exchangeId: xid,
        dir: 's2c',
        kind: 'response',
        carrier: 'post-sse',
        id,
        method: 'tools/call',
        name,
        pair: request.seq,
        after: afterMs,
        jsonrpc: { jsonrpc: '2.0', id, result: { content: [] } },
      });
      x = b.update(x, { endedAt: b.ts });
      return response;
    },
  };
}

/** `names` called one after another, `gapMs` apart, each taking `takesMs`. */
function sequential(b: EventBuilder, sid: string, names: string[], takesMs: number, gapMs: number, firstX = 1): void {
  names.forEach((name, i) => {
    begin(b, `${sid}x${firstX + i}`, sid, firstX + i, name).end(takesMs);
    b.wait(gapMs);
  });
}

const load = (events: readonly McpscopeEvent[]) => {
  const store = new TimelineStore();
  store.ingest(events);
  return store;
};

/** Bars' row index by bar key. */
function rowOf(lanes: PackedLane[]): Map<string, number> {
  const out = new Map<string, number>();
  lanes.forEach((l, i) => l.bars.forEach(({ bar }) => out.set(bar.key, i)));
  return out;
}

/** Streams of a row never overlap in time (a stream runs from its start, or its first call, to its end, or its last call's end). */
function expectNoOverlap(wf: Waterfall, lanes: PackedLane[]): void {
  for (const l of lanes) {
    const spans = l.streams.map((s) => {
      const bars = wf.bars.filter((b) => b.lane === s.key);
      const from = Math.min(s.start, ...bars.map((b) => b.start));
      const to = Math.max(s.end ?? Infinity, ...bars.map((b) => b.end ?? Infinity));
      return [from, to] as const;
    });
    for (let i = 1; i < spans.length; i++) expect(spans[i][0]).toBeGreaterThanOrEqual(spans[i - 1][1]);
  }
}

describe('waterfall axis', () => {
  /** s1: three calls over 11 s, then closed (DELETE); s2 goes on 13 minutes later. */
  function closedThenLater() {
    const b = new EventBuilder();
    b.session('s1');
    sequential(b, 's1', ['tools/list', 'add'], 1_000, 4_000);
    sequential(b, 's1', ['slow_task'], 1_000, 0, 3);
    b.exchange('s1del', 's1', { method: 'DELETE', status: 200, endedAt: b.ts + 2 });
    b.wait(2);
    const closedAt = b.ts;
    b.session('s1', { status: 'closed', endedAt: closedAt, closeReason: 'deleted' });
    b.wait(13 * MIN);
    b.session('s2');
    sequential(b, 's2', ['add'], 10, 10, 50);
    return { events: b.events, closedAt, clock: b.events[b.events.length - 1].ts };
  }

  it('ends a closed session at its last event, not at the store clock minutes later', () => {
    const { events, closedAt, clock } = closedThenLater();
    const store = load(events);
    expect(store.lastTs).toBe(clock);
    const wf = store.waterfall('s1');
    const lastBarEnd = Math.max(...wf.bars.map((b) => b.end!));
    // The data's own end: the last call's answer (the store's clock is 13 minutes later).
    expect(wf.end).toBe(lastBarEnd);
    const axis = waterfallAxis(wf, store.sessions, store.lastTs, clock + 5 * MIN);
    expect(axis.closed).toBe(true);
    // First event → last event (the DELETE that closed it), ≈ 11 s; neither the clock nor now.
    expect(axis.start).toBe(T0);
    expect(axis.end).toBe(closedAt);
    expect(axis.end - axis.start).toBeGreaterThan(10_000);
    expect(axis.end - axis.start).toBeLessThan(12_000);
    // Every bar sits within the axis, and the last one ends near its right edge.
    expect((lastBarEnd - axis.start) / (axis.end - axis.start)).toBeGreaterThan(0.99);
  });

  it('lets an open session run on to the latest event seen, and to now while live', () => {
    const { events, clock } = closedThenLater();
    const b = new EventBuilder(events.length + 1, clock);
    b.wait(3_000);
    b.log('something else happened');
    const store = load([...events, ...b.events]);
    const wf = store.waterfall('s2');
    expect(wf.end).toBeLessThan(store.lastTs);
    expect(waterfallAxis(wf, store.sessions, store.lastTs).end).toBe(store.lastTs);
    expect(waterfallAxis(wf, store.sessions, store.lastTs, store.lastTs + 2_000)).toMatchObject({
      end: store.lastTs + 2_000,
      closed: false,
    });
    // All sessions: one is open, so the same.
    expect(waterfallAxis(store.waterfall(''), store.sessions, store.lastTs).closed).toBe(false);
  });

  it('draws a call left pending in a closed session up to the session end, not to now', () => {
    const b = new EventBuilder();
    b.session('s1');
    sequential(b, 's1', ['add'], 5, 100);
    begin(b, 's1x9', 's1', 9, 'hang');
    b.wait(500);
    b.session('s1', { status: 'closed', endedAt: b.ts, closeReason: 'deleted' });
    const closedAt = b.ts;
    b.wait(30 * MIN);
    b.log('later');
    const store = load(b.events);
    const wf = store.waterfall('s1');
    expect(wf.bars.some((bar) => bar.end === undefined)).toBe(true);
    const axis = waterfallAxis(wf, store.sessions, store.lastTs, Date.now());
    expect(axis).toMatchObject({ start: T0, end: closedAt, closed: true });
  });

  it('is never empty', () => {
    const store = load([]);
    const axis = waterfallAxis(store.waterfall(''), store.sessions, 0);
    expect(axis.end).toBeGreaterThan(axis.start);
  });
});

describe('waterfall packing', () => {
  it('puts three sequential calls on one row', () => {
    const b = new EventBuilder();
    b.session('s1');
    sequential(b, 's1', ['tools/list', 'add', 'echo'], 20, 5);
    const store = load(b.events);
    const wf = store.waterfall('s1');
    expect(wf.lanes).toHaveLength(3); // three streams…
    const lanes = packWaterfall(wf);
    expect(lanes).toHaveLength(1); // …on one row
    expect(lanes[0]).toMatchObject({ kind: 'post', tracks: 1, label: 'POST (SSE) ×3' });
    expect(lanes[0].streams.map((s) => s.key)).toEqual(['s1x1', 's1x2', 's1x3']);
    expect(lanes[0].bars.map((p) => p.bar.label)).toEqual(['tools/call tools/list', 'tools/call add', 'tools/call echo']);
    // The label's tooltip names every stream and its call in full.
    expect(laneTitle(lanes[0]).split('\n')).toEqual([
      '3 POST streams, one after another:',
      'POST s1x1 (SSE) · tools/call tools/list',
      'POST s1x2 (SSE) · tools/call add',
      'POST s1x3 (SSE) · tools/call echo',
    ]);
  });

  it('puts two overlapping calls on two rows, and a later one back on the first free row', () => {
    const b = new EventBuilder();
    b.session('s1');
    const a = begin(b, 'xa', 's1', 1, 'slow_task');
    b.wait(10);
    const c = begin(b, 'xb', 's1', 2, 'add');
    c.end(20);
    a.end(500);
    b.wait(10);
    begin(b, 'xc', 's1', 3, 'echo').end(5);
    const store = load(b.events);
    const wf = store.waterfall('s1');
    const lanes = packWaterfall(wf);
    expect(lanes).toHaveLength(2);
    expect(lanes.map((l) => l.streams.map((s) => s.key))).toEqual([['xa', 'xc'], ['xb']]);
    // A row of one stream says which call it carries.
    expect(lanes[1]).toMatchObject({ label: 'POST xb (SSE)', call: 'tools/call add' });
    expectNoOverlap(wf, lanes);
  });

  it('keeps the GET stream and the legacy SSE stream on rows of their own', () => {
    const b = new EventBuilder();
    b.session('s1');
    sequential(b, 's1', ['tools/list'], 10, 5, 1);
    // A short GET stream that ended before the next POSTs: still not packed with them.
    const get = b.exchange('g1', 's1', { method: 'GET', status: 200, carrier: 'get-sse', responseType: 'text/event-stream' });
    b.message({
      sessionId: 's1',
      exchangeId: 'g1',
      dir: 's2c',
      kind: 'notification',
      carrier: 'get-sse',
      method: 'notifications/tools/list_changed',
      jsonrpc: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    });
    b.update(get, { endedAt: b.ts + 1 });
    b.wait(50);
    sequential(b, 's1', ['add', 'echo'], 10, 5, 2);
    const mine = packWaterfall(load(b.events).waterfall('s1'));
    expect(mine.map((l) => [l.kind, l.streams.map((s) => s.key)])).toEqual([
      ['post', ['s1x1', 's1x2', 's1x3']],
      ['get', ['g1']],
    ]);

    const store = load(scenario().events);
    const s1 = packWaterfall(store.waterfall('s1')).map((l) => [l.kind, l.streams.map((s) => s.key)]);
    // The scenario's GET stream keeps a row…
    expect(s1).toContainEqual(['get', ['x3']]);
    // …its JSON answers share the session's one POST JSON row, as before…
    expect(s1.filter(([kind]) => kind === 'post-json')).toEqual([['post-json', ['post-json:s1']]]);
    // …and the legacy session's stream is a row of its own.
    expect(packWaterfall(store.waterfall('s2')).map((l) => [l.kind, l.streams.map((s) => s.key)])).toEqual([['legacy', ['x20']]]);
  });

  it('packs the rows of each session apart in the all-sessions view', () => {
    const b = new EventBuilder();
    b.session('s1');
    b.session('s2');
    // Interleaved in time, never overlapping: still one row per session.
    for (let i = 0; i < 3; i++) {
      begin(b, `a${i}`, 's1', i, 'add').end(5);
      begin(b, `b${i}`, 's2', i, 'echo').end(5);
    }
    const lanes = packWaterfall(load(b.events).waterfall(''));
    expect(lanes.map((l) => [l.sessionId, l.streams.length])).toEqual([
      ['s1', 3],
      ['s2', 3],
    ]);
  });

  it('lets a stream still open hold its row', () => {
    const b = new EventBuilder();
    b.session('s1');
    begin(b, 'xa', 's1', 1, 'hang');
    b.wait(100);
    begin(b, 'xb', 's1', 2, 'add').end(5);
    const lanes = packWaterfall(load(b.events).waterfall('s1'));
    expect(lanes.map((l) => l.streams.map((s) => s.key))).toEqual([['xa'], ['xb']]);
  });

  it('packs only what the filters let through', () => {
    const b = new EventBuilder();
    b.session('s1');
    const a = begin(b, 'xa', 's1', 1, 'slow_task');
    b.wait(10);
    begin(b, 'xb', 's1', 2, 'add').end(5);
    a.end(100);
    const store = load(b.events);
    const wf = store.waterfall('s1');
    expect(packWaterfall(wf)).toHaveLength(2);
    const only = packWaterfall(wf, { visibleKeys: new Set([`c${a.request.seq}`]) });
    expect(only.map((l) => l.streams.map((s) => s.key))).toEqual([['xa']]);
    // A session filter alone (every call of the session visible) keeps its GET stream of notifications.
    const store2 = load(scenario().events);
    const s1 = store2.waterfall('s1');
    const all = new Set(s1.bars.map((bar) => bar.key));
    expect(packWaterfall(s1, { visibleKeys: all }).map((l) => l.key)).toEqual(packWaterfall(s1).map((l) => l.key));
    expect(packWaterfall(s1, { visibleKeys: new Set() }).map((l) => l.kind)).toEqual(['get']);
  });

  it('packs the demo capture into a few rows, every call once, no row overlapping itself', () => {
    const store = load(demoCapture as unknown as McpscopeEvent[]);
    for (const sid of ['', ...store.sessions.keys()]) {
      const wf = store.waterfall(sid);
      const lanes = packWaterfall(wf);
      const rows = rowOf(lanes);
      expect(rows.size).toBe(wf.bars.length);
      expect(lanes.reduce((n, l) => n + l.streams.length, 0)).toBe(wf.lanes.length);
      expectNoOverlap(wf, lanes);
      for (const l of lanes) if (l.kind !== 'post') expect(l.streams).toHaveLength(1);
    }
    const s1 = store.waterfall('s1');
    const lanes = packWaterfall(s1);
    // 56 streams, 61 calls → a handful of rows (the demo runs a few calls at once).
    expect(s1.lanes.length).toBeGreaterThan(40);
    expect(lanes.length).toBeLessThan(10);
    expect(lanes.length).toBeLessThan(s1.bars.length / 4);
  });
});

describe('waterfall Fit', () => {
  it('zooms to the calls when the axis runs on past them, and stays whole when they fill it', () => {
    const b = new EventBuilder();
    b.session('s1');
    sequential(b, 's1', ['add', 'echo', 'add'], 100, 100);
    b.wait(10 * MIN);
    b.log('still open, much later');
    const store = load(b.events);
    const wf = store.waterfall('s1');
    const lanes = packWaterfall(wf);
    const axis = waterfallAxis(wf, store.sessions, store.lastTs);
    const fit = fitView(lanes, axis);
    expect(fit.zoom).toBeGreaterThan(100);
    const window = (axis.end - axis.start) / fit.zoom;
    const first = Math.min(...wf.bars.map((x) => x.start));
    const last = Math.max(...wf.bars.map((x) => x.end!));
    expect(fit.from).toBeLessThanOrEqual(first);
    expect(fit.from + window).toBeGreaterThanOrEqual(last);
    expect(window).toBeLessThan((last - first) * 1.1);

    // Closed right after its calls: the whole axis is the fit.
    const c = new EventBuilder();
    c.session('s1');
    sequential(c, 's1', ['add', 'echo'], 100, 100);
    sequential(c, 's1', ['add'], 100, 0, 3);
    c.session('s1', { status: 'closed', endedAt: c.ts, closeReason: 'deleted' });
    c.wait(10 * MIN);
    c.log('later');
    const closed = load(c.events);
    const cwf = closed.waterfall('s1');
    expect(fitView(packWaterfall(cwf), waterfallAxis(cwf, closed.sessions, closed.lastTs))).toEqual({ zoom: 1, from: cwf.start });
  });
});
