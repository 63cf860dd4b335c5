import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { TimelineStore } from '../../ui/src/state/store';
import { syntheticEvents } from '../../bench/ui-synthetic';
import { EMPTY_FILTERS, type CallRow, type HttpRow, type NotificationRow, type Row } from '../../ui/src/state/types';
import type { ExchangeInfo, McpscopeEvent, ProblemEvent } from '../../proxy/core/model/events';
import { EventBuilder, scenario } from './fixtures';
import demoCapture from './demo-capture.json';

const loaded = (events: readonly McpscopeEvent[] = scenario().events) => {
  const store = new TimelineStore();
  store.ingest(events);
  return store;
};

const call = (store: TimelineStore, seq: number): CallRow => {
  const row = store.row(`c${seq}`);
  expect(row?.type).toBe('call');
  return row as CallRow;
};

/** A comparable picture of the derived state. */
function picture(store: TimelineStore) {
  return store.visibleRows(EMPTY_FILTERS).map((r) => {
    const base = `${r.key}@${store.depthOf(r)}`;
    if (r.type !== 'call') return base;
    return `${base}:${r.status}:${r.response?.seq ?? '-'}:${r.progress.map((p) => p.seq).join(',')}:${r.cancel?.seq ?? '-'}:${r.children.join(',')}`;
  });
}

describe('TimelineStore: rows', () => {
  it('folds a response into its call and keeps calls in request order despite out-of-order completion', () => {
    const { events, seq } = scenario();
    const store = loaded(events);
    const slow = call(store, seq.slowTask);
    const add = call(store, seq.add);
    expect(add.status).toBe('ok');
    expect(add.response?.seq).toBe(seq.addResult);
    expect(add.latencyMs).toBe(4);
    expect(slow.status).toBe('ok');
    expect(slow.response?.seq).toBe(seq.slowTaskResult);
    expect(slow.latencyMs).toBe(store.message(seq.slowTaskResult)!.ts - store.message(seq.slowTask)!.ts);
    // add finished first, but rows stay in wire order of the requests.
    expect(add.response!.seq).toBeLessThan(slow.response!.seq);
    const keys = store.visibleRows(EMPTY_FILTERS).map((r) => r.key);
    expect(keys.indexOf(`c${seq.slowTask}`)).toBeLessThan(keys.indexOf(`c${seq.add}`));
    // Responses never get rows of their own.
    expect(store.row(`o${seq.addResult}`)).toBeUndefined();
    expect(store.row(`n${seq.addResult}`)).toBeUndefined();
  });

  it('puts all four progress notifications inside their call, in order, without rows', () => {
    const { events, seq } = scenario();
    const store = loaded(events);
    const slow = call(store, seq.slowTask);
    expect(slow.progress.map((p) => p.seq)).toEqual(seq.progress);
    expect(slow.progress.map((p) => p.progress?.progress)).toEqual([1, 2, 3, 4]);
    for (const s of seq.progress) {
      expect(store.row(`n${s}`)).toBeUndefined();
      expect(store.rowOfMessage(s)?.key).toBe(slow.key);
    }
  });

  it('nests a server→client request and a log line under the call whose stream carried them', () => {
    const { events, seq } = scenario();
    const store = loaded(events);
    const slow = call(store, seq.slowTask);
    const sampling = call(store, seq.sampling);
    expect(sampling.dir).toBe('s2c');
    expect(sampling.parentKey).toBe(slow.key);
    expect(sampling.status).toBe('ok');
    expect(sampling.response?.seq).toBe(seq.samplingAnswer);
    expect(sampling.latencyMs).toBe(30);
    const log = store.row(`n${seq.slowLog}`) as NotificationRow;
    expect(log.parentKey).toBe(slow.key);
    expect(slow.children).toEqual([log.key, sampling.key]);
    expect(store.childrenOf(slow)).toEqual([log, sampling]);
    expect(store.depthOf(sampling)).toBe(1);
    expect(store.depthOf(slow)).toBe(0);
    // Flattened: the parent, then its children right after it.
    const keys = store.visibleRows(EMPTY_FILTERS).map((r) => r.key);
    const at = keys.indexOf(slow.key);
    expect(keys.slice(at, at + 3)).toEqual([slow.key, log.key, sampling.key]);
    // Children are not top-level rows.
    expect(store.topLevelRows().map((r) => r.key)).not.toContain(sampling.key);
    // The client's answer folds into the sampling call, not into the parent.
    expect(store.rowOfMessage(seq.samplingAnswer)?.key).toBe(sampling.key);
  });

  it('links a cancellation to the call it cancels', () => {
    const { events, seq } = scenario();
    const store = loaded(events);
    const job = call(store, seq.longJob);
    expect(job.status).toBe('cancelled');
    expect(job.cancel?.seq).toBe(seq.cancel);
    expect(job.response).toBeUndefined();
    expect(store.row(`n${seq.cancel}`)).toBeUndefined();
    expect(store.rowOfMessage(seq.cancel)?.key).toBe(job.key);
  });

  it('does not mark an answered call cancelled, and keeps a cancelled call cancelled when a late answer comes', () => {
    const b = new EventBuilder();
    b.session('s1');
    const r1 = b.message({
      exchangeId: 'x1',
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      id: 1,
      method: 'tools/call',
      jsonrpc: { jsonrpc: '2.0', id: 1, method: 'tools/call' },
    });
    b.message({
      exchangeId: 'x1',
      dir: 's2c',
      kind: 'response',
      carrier: 'post-json',
      id: 1,
      pair: r1.seq,
      latencyMs: 3,
      jsonrpc: { jsonrpc: '2.0', id: 1, result: {} },
    });
    b.message({
      exchangeId: 'x2',
      dir: 'c2s',
      kind: 'notification',
      carrier: 'post-body',
      method: 'notifications/cancelled',
      pair: r1.seq,
      jsonrpc: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
    });
    const r2 = b.message({
      exchangeId: 'x3',
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      id: 2,
      method: 'tools/call',
      jsonrpc: { jsonrpc: '2.0', id: 2, method: 'tools/call' },
    });
    b.message({
      exchangeId: 'x4',
      dir: 'c2s',
      kind: 'notification',
      carrier: 'post-body',
      method: 'notifications/cancelled',
      pair: r2.seq,
      jsonrpc: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } },
    });
    b.message({
      exchangeId: 'x3',
      dir: 's2c',
      kind: 'response',
      carrier: 'post-json',
      id: 2,
      pair: r2.seq,
      latencyMs: 9,
      jsonrpc: { jsonrpc: '2.0', id: 2, result: {} },
    });
    const store = loaded(b.events);
    expect(call(store, r1.seq).status).toBe('ok');
    expect(call(store, r1.seq).cancel).toBeDefined();
    expect(call(store, r2.seq).status).toBe('cancelled');
    expect(call(store, r2.seq).response).toBeDefined();
    expect(call(store, r2.seq).latencyMs).toBe(9);
  });

  it('shows a response without a known request, and a second answer, as orphans', () => {
    const { events, seq } = scenario();
    const b = new EventBuilder(1000, Date.now());
    const dup = b.message({
      exchangeId: 'x5',
      dir: 's2c',
      kind: 'response',
      carrier: 'post-json',
      id: 2,
      pair: seq.add,
      jsonrpc: { jsonrpc: '2.0', id: 2, result: {} },
    });
    const store = loaded([...events, ...b.events]);
    const orphan = store.row(`o${seq.orphan}`);
    expect(orphan?.type).toBe('orphan');
    expect(orphan && orphan.type === 'orphan' && orphan.message.seq).toBe(seq.orphan);
    expect(store.row(`o${dup.seq}`)?.type).toBe('orphan');
    expect(call(store, seq.add).response?.seq).toBe(seq.addResult);
  });

  it('gives tool errors, JSON-RPC errors, pending calls and problems their own status', () => {
    const { events, seq } = scenario();
    const store = loaded(events);
    expect(call(store, seq.flaky).status).toBe('tool-error');
    expect(call(store, seq.crash).status).toBe('error');
    expect(call(store, seq.crash).latencyMs).toBe(2);
    expect(call(store, seq.hang).status).toBe('pending');
    expect(call(store, seq.hang).latencyMs).toBeUndefined();
    const p = store.row(`p${seq.problem}`);
    expect(p?.type).toBe('problem');
    expect(p?.sessionId).toBe('s1');
    expect(store.problemsOf('x14').map((e) => e.seq)).toEqual([seq.problem]);
    expect(store.problems).toHaveLength(1);
  });

  it('makes plain notifications rows of their own', () => {
    const { events, seq } = scenario();
    const store = loaded(events);
    const n = store.row(`n${seq.initialized}`) as NotificationRow;
    expect(n.type).toBe('notification');
    expect(n.parentKey).toBeUndefined();
    expect(store.row(`n${seq.listChanged}`)?.type).toBe('notification');
  });

  it('keeps a replayed message for the stream table but gives it no row', () => {
    const { events, seq } = scenario();
    const store = loaded(events);
    expect(store.message(seq.replay)?.replayOf).toBe(seq.listChanged);
    expect(store.row(`n${seq.replay}`)).toBeUndefined();
    expect(store.streamOf('x13').map((e) => e.messageSeq)).toEqual([seq.replay]);
    expect(store.rowOfMessage(seq.replay)?.key).toBe(`n${seq.listChanged}`);
    expect(store.messagesOfExchange('x13').map((m) => m.seq)).toEqual([seq.replay]);
  });

  it('keeps the latest session and exchange upserts, logs and modifications', () => {
    const { events } = scenario();
    const store = loaded(events);
    expect(store.sessions.get('s1')?.serverInfo?.name).toBe('fixture-server');
    expect(store.sessions.get('s2')?.transport).toBe('legacy-sse');
    expect(store.exchanges.get('x1')?.endedAt).toBeDefined();
    expect(store.modificationsOf('x20').map((m) => m.what)).toEqual(['endpoint-rewrite']);
    expect(store.logs.map((l) => l.text)).toEqual(['Session s2 was first seen mid-way.']);
    expect(store.sessionList().map((s) => s.id)).toEqual(['s1', 's2']);
  });

  it('keeps the event objects as given (no copies) and mutates rows in place', () => {
    const { events, seq } = scenario();
    const store = new TimelineStore();
    const cut = events.findIndex((e) => e.seq === seq.addResult);
    store.ingest(events.slice(0, cut));
    const add = call(store, seq.add);
    const rev = add.rev!;
    expect(add.status).toBe('pending');
    store.ingest(events.slice(cut));
    expect(store.row(add.key)).toBe(add);
    expect(add.status).toBe('ok');
    expect(add.rev).toBeGreaterThan(rev);
    const original = events.find((e) => e.seq === seq.addResult);
    expect(store.message(seq.addResult)).toBe(original);
    expect(add.response).toBe(original);
  });
});

describe('TimelineStore: plain HTTP exchanges', () => {
  const T = 1_700_000_000_000;
  const bucket: McpscopeEvent = {
    type: 'session',
    seq: 1,
    ts: T,
    session: {
      id: 's9',
      transport: 'http',
      target: 'http://as.test',
      grouping: 'HTTP traffic to http://as.test',
      startedAt: T,
      status: 'open',
      counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 2 },
    },
  };
  const upsert = (seq: number, x: Partial<ExchangeInfo> & { id: string }): McpscopeEvent => ({
    type: 'exchange',
    seq,
    ts: T + seq,
    exchange: {
      sessionId: 's9',
      method: 'POST',
      url: '/token',
      requestHeaders: {},
      startedAt: T + 1,
      requestBytes: 40,
      responseBytes: 0,
      plain: true,
      hints: [],
      ...x,
    },
  });
  const tokenHint = {
    level: 'info' as const,
    code: 'oauth-token-request',
    text: 'Token request (grant_type=refresh_token: a refresh token is traded for a new access token).',
  };
  const events: McpscopeEvent[] = [
    bucket,
    upsert(2, { id: 'x1', hints: [tokenHint] }),
    // An MCP exchange: no row of its own (its messages make the rows).
    {
      type: 'exchange',
      seq: 3,
      ts: T + 3,
      exchange: {
        id: 'x2',
        method: 'GET',
        url: '/mcp',
        requestHeaders: {},
        startedAt: T + 3,
        requestBytes: 0,
        responseBytes: 0,
        hints: [],
      },
    },
    upsert(4, {
      id: 'x3',
      method: 'GET',
      url: '/.well-known/oauth-authorization-server',
      hints: [{ level: 'info', code: 'oauth-server-metadata', text: 'Authorization-server metadata (RFC 8414).' }],
    }),
    upsert(5, {
      id: 'x1',
      status: 400,
      respondedAt: T + 5,
      endedAt: T + 6,
      responseBytes: 60,
      responsePreview: '{"error":"invalid_grant"}',
      hints: [tokenHint, { level: 'warn', code: 'oauth-token-error', text: 'Token request refused with invalid_grant.' }],
    }),
    upsert(6, {
      id: 'x3',
      method: 'GET',
      url: '/.well-known/oauth-authorization-server',
      status: 502,
      error: 'connect ECONNREFUSED',
      endedAt: T + 7,
      hints: [],
    }),
  ];

  it('gives each plain exchange one row, refreshed in place by its later upserts', () => {
    const store = new TimelineStore();
    store.ingest(events.slice(0, 3));
    const row = store.row('hx1') as HttpRow;
    expect(row).toMatchObject({ type: 'http', seq: 2, sessionId: 's9', dir: 'c2s' });
    expect(row.exchange.status).toBeUndefined();
    const rev = row.rev!;
    store.ingest(events.slice(3));
    expect(store.row('hx1')).toBe(row);
    expect(row.exchange).toMatchObject({ status: 400, responsePreview: '{"error":"invalid_grant"}' });
    expect(row.rev).toBeGreaterThan(rev);
    expect(store.row('hx2')).toBeUndefined();
    expect(store.visibleRows(EMPTY_FILTERS).map((r) => r.key)).toEqual(['hx1', 'hx3']);
    expect(store.sessionList().map((s) => [s.id, s.transport])).toEqual([['s9', 'http']]);
  });

  it('filters them: by session and text; only a failed one is an error; never by JSON-RPC kind or method', () => {
    const store = loaded(events);
    const keys = (f: Partial<typeof EMPTY_FILTERS>) => store.visibleRows({ ...EMPTY_FILTERS, ...f }).map((r) => r.key);
    expect(keys({ session: 's9' })).toEqual(['hx1', 'hx3']);
    expect(keys({ session: 's1' })).toEqual([]);
    expect(keys({ errorsOnly: true })).toEqual(['hx3']);
    expect(keys({ text: 'invalid_grant' })).toEqual(['hx1']);
    expect(keys({ text: 'well-known' })).toEqual(['hx3']);
    expect(keys({ dir: 'c2s' })).toEqual(['hx1', 'hx3']);
    expect(keys({ dir: 's2c' })).toEqual([]);
    expect(keys({ kind: 'request' })).toEqual([]);
    expect(keys({ method: 'token' })).toEqual([]);
  });

  it('builds the same rows however the events are batched or ordered', () => {
    const expected = loaded(events)
      .visibleRows(EMPTY_FILTERS)
      .map((r) => `${r.key}:${(r as HttpRow).exchange.status}`);
    for (let cut = 0; cut <= events.length; cut++) {
      const store = new TimelineStore();
      store.ingest(events.slice(cut));
      store.ingest(events.slice(0, cut));
      expect(store.visibleRows(EMPTY_FILTERS).map((r) => `${r.key}:${(r as HttpRow).exchange.status}`)).toEqual(expected);
    }
  });
});

describe('TimelineStore: robustness', () => {
  it('never throws on events for unknown sessions or exchanges, and on junk', () => {
    const store = new TimelineStore();
    const b = new EventBuilder();
    b.message({
      sessionId: 'nope',
      exchangeId: 'x404',
      dir: 's2c',
      kind: 'response',
      carrier: 'post-sse',
      id: 1,
      pair: 12345,
      jsonrpc: {},
    });
    b.message({
      sessionId: 'nope',
      dir: 's2c',
      kind: 'notification',
      carrier: 'stdio',
      method: 'notifications/progress',
      pair: 999,
      parent: 998,
      jsonrpc: {},
    });
    b.sse('x405', 'comment');
    b.problem({ code: 'upstream-unreachable', text: 'down' });
    b.modification('x406', 'endpoint-rewrite', 'a', 'b', 'c');
    expect(() => store.ingest(b.events)).not.toThrow();
    expect(() =>
      store.ingest([{ type: 'future-type', seq: 100, ts: 1 } as unknown as McpscopeEvent, null as unknown as McpscopeEvent]),
    ).not.toThrow();
    expect(store.stats.rows).toBe(3);
    expect(() => store.waterfall('')).not.toThrow();
    expect(() => store.streamOf('x405')).not.toThrow();
  });

  it('ignores duplicates', () => {
    const { events } = scenario();
    const store = loaded(events);
    const before = picture(store);
    const version = store.version;
    store.ingest(events);
    store.ingest(events.slice(3, 9));
    expect(store.version).toBe(version);
    expect(picture(store)).toEqual(before);
    expect(store.stats.events).toBe(events.length);
  });

  it('builds the same timeline however the events are split into batches', () => {
    const { events } = scenario();
    const expected = picture(loaded(events));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: events.length }), { maxLength: 8 }), (cuts) => {
        const store = new TimelineStore();
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        let from = 0;
        for (const p of [...points, events.length]) {
          store.ingest(events.slice(from, p));
          from = p;
        }
        expect(picture(store)).toEqual(expected);
      }),
    );
  });

  it('builds the same timeline when batches arrive out of order (a gap filled later)', () => {
    const { events } = scenario();
    const expected = picture(loaded(events));
    fc.assert(
      fc.property(
        fc.shuffledSubarray(
          events.map((_, i) => i),
          { minLength: 0, maxLength: events.length },
        ),
        fc.boolean(),
        (firstIdx, shuffleBatch) => {
          const first = new Set(firstIdx);
          const early = events.filter((_, i) => first.has(i));
          const late = events.filter((_, i) => !first.has(i));
          const store = new TimelineStore();
          store.ingest(early);
          store.ingest(shuffleBatch ? [...late].reverse() : late);
          expect(picture(store)).toEqual(expected);
          expect(store.stats.events).toBe(events.length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('never throws for arbitrary subsets in arbitrary order', () => {
    const { events } = scenario();
    fc.assert(
      fc.property(fc.shuffledSubarray(events), (subset) => {
        const store = new TimelineStore();
        store.ingest(subset);
        store.visibleRows({ ...EMPTY_FILTERS, text: 'a', errorsOnly: true });
        store.waterfall('');
        for (const x of ['x3', 'x4', 'x20']) store.streamOf(x);
        return store.stats.events === subset.length;
      }),
      { numRuns: 200 },
    );
  });

  it('clear() forgets everything and notifies', () => {
    const store = loaded();
    const fn = vi.fn();
    store.subscribe(fn);
    const v = store.version;
    store.clear();
    expect(fn).toHaveBeenCalledTimes(1);
    expect(store.version).toBe(v + 1);
    expect(store.stats).toEqual({ rows: 0, messages: 0, events: 0, dropped: 0, refetched: 0 });
    expect(store.visibleRows(EMPTY_FILTERS)).toEqual([]);
    expect(store.sessions.size).toBe(0);
    expect(store.exchanges.size).toBe(0);
    expect(store.lastSeq).toBe(0);
    // And works again afterwards.
    store.ingest(scenario().events);
    expect(store.sessions.size).toBe(2);
  });
});

describe('TimelineStore: subscription and memoization', () => {
  it('bumps the version and notifies once per ingested batch; unsubscribe stops it', () => {
    const store = new TimelineStore();
    const fn = vi.fn();
    const off = store.subscribe(fn);
    const { events } = scenario();
    store.ingest(events.slice(0, 10));
    store.ingest(events.slice(10));
    expect(fn).toHaveBeenCalledTimes(2);
    expect(store.version).toBe(2);
    store.ingest([]);
    expect(fn).toHaveBeenCalledTimes(2);
    off();
    store.noteDropped(3);
    expect(fn).toHaveBeenCalledTimes(2);
    expect(store.stats.dropped).toBe(3);
    expect(store.version).toBe(3);
  });

  it('a quiet ingest bumps the version but calls subscribers only at the next notify()', () => {
    const store = new TimelineStore();
    const fn = vi.fn();
    store.subscribe(fn);
    const { events } = scenario();
    expect(store.notifyPending).toBe(false);
    store.ingest(events.slice(0, 10), { notify: false });
    store.ingest(events.slice(10, 20), { notify: false });
    expect(fn).not.toHaveBeenCalled();
    expect(store.version).toBe(2);
    expect(store.notifyPending).toBe(true);
    // The data is there for anyone who reads it (a render for another reason sees it).
    expect(store.stats.events).toBe(20);
    expect(store.visibleRows(EMPTY_FILTERS).map((r) => r.key)).toEqual(
      loaded(events.slice(0, 20))
        .visibleRows(EMPTY_FILTERS)
        .map((r) => r.key),
    );
    store.notify();
    expect(fn).toHaveBeenCalledTimes(1);
    expect(store.notifyPending).toBe(false);
    store.notify();
    expect(fn).toHaveBeenCalledTimes(1);
    // A quiet change followed by a normal one: one call covers both.
    store.ingest(events.slice(20, 30), { notify: false });
    store.ingest(events.slice(30));
    expect(fn).toHaveBeenCalledTimes(2);
    expect(store.notifyPending).toBe(false);
  });

  it('a failing listener does not stop the others', () => {
    const store = new TimelineStore();
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const ok = vi.fn();
    store.subscribe(() => {
      throw new Error('boom');
    });
    store.subscribe(ok);
    store.ingest(scenario().events);
    expect(ok).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });
});

describe('TimelineStore: waterfall', () => {
  it('draws one lane per stream and places each call on the stream that carried its answer', () => {
    const { events, seq } = scenario();
    const store = loaded(events);
    const wf = store.waterfall('s1');
    const lanes = new Map(wf.lanes.map((l) => [l.key, l]));
    expect(lanes.get('x4')?.carrier).toBe('post-sse');
    expect(lanes.get('x4')?.label).toMatch(/POST x4/);
    expect(lanes.get('x3')?.carrier).toBe('get-sse');
    expect(lanes.get('post-json:s1')?.label).toBe('POST JSON');
    expect(lanes.has('x20')).toBe(false); // another session
    const bars = new Map(wf.bars.map((b) => [b.key, b]));
    const slow = bars.get(`c${seq.slowTask}`)!;
    expect(slow.lane).toBe('x4');
    expect(slow.end! - slow.start).toBe(store.row(slow.key)!.type === 'call' ? (store.row(slow.key) as CallRow).latencyMs : -1);
    expect(slow.status).toBe('ok');
    expect(slow.label).toBe('tools/call slow_task');
    expect(slow.depth).toBe(0);
    expect(slow.progress).toBe(1);
    expect(bars.get(`c${seq.add}`)?.lane).toBe('post-json:s1');
    const sampling = bars.get(`c${seq.sampling}`)!;
    expect(sampling.lane).toBe('x4');
    expect(sampling.depth).toBe(1);
    // Pending: open-ended, on its request's exchange.
    const hang = bars.get(`c${seq.hang}`)!;
    expect(hang.end).toBeUndefined();
    expect(hang.status).toBe('pending');
    expect(hang.lane).toBe('x12');
    // Cancelled without an answer: ends at the cancellation.
    const job = bars.get(`c${seq.longJob}`)!;
    expect(job.status).toBe('cancelled');
    expect(job.end).toBe(store.message(seq.cancel)!.ts);
    expect(wf.start).toBeLessThanOrEqual(Math.min(...wf.bars.map((b) => b.start)));
    expect(wf.end).toBeGreaterThanOrEqual(Math.max(...wf.bars.map((b) => b.end ?? b.start)));
    for (const b of wf.bars) expect(lanes.has(b.lane)).toBe(true);
  });

  it('puts legacy SSE calls on the legacy stream lane, and covers all sessions with ""', () => {
    const { events, seq } = scenario();
    const store = loaded(events);
    const s2 = store.waterfall('s2');
    expect(s2.lanes.map((l) => [l.key, l.carrier])).toEqual([['x20', 'legacy-sse']]);
    expect(s2.bars.map((b) => [b.key, b.lane])).toEqual([[`c${seq.legacyRequest}`, 'x20']]);
    const all = store.waterfall('');
    expect(all.bars.length).toBe(store.waterfall('s1').bars.length + 1);
    expect(store.waterfall('')).toBe(all);
  });

  it('places a pending legacy call on the legacy stream', () => {
    const { events, seq } = scenario();
    const store = loaded(events.filter((e) => e.seq !== seq.legacyResponse));
    const bar = store.waterfall('s2').bars[0];
    expect(bar.end).toBeUndefined();
    expect(bar.lane).toBe('x20');
  });
});

describe('TimelineStore: a real capture of the demo', () => {
  const events = demoCapture as unknown as McpscopeEvent[];

  it('correlates everything the demo does', () => {
    const store = loaded(events);
    const rows = store.visibleRows(EMPTY_FILTERS);
    const calls = rows.filter((r): r is CallRow => r.type === 'call');
    expect(rows.filter((r) => r.type === 'orphan')).toEqual([]);
    expect(rows.filter((r) => r.type === 'problem')).toEqual([]);
    // slow_task: progress folded in; its log lines nested.
    const slow = calls.find((c) => c.request.name === 'slow_task' && c.status === 'ok')!;
    expect(slow.progress.length).toBe(4);
    expect(store.childrenOf(slow).every((r) => r.type === 'notification' && r.message.method === 'notifications/message')).toBe(true);
    // sampling and elicitation nested under ask_llm / confirm_action, answered.
    for (const method of ['sampling/createMessage', 'elicitation/create']) {
      const nested = calls.filter((c) => c.request.method === method);
      expect(nested.length).toBeGreaterThan(0);
      for (const c of nested) {
        expect(c.parentKey).toBeDefined();
        expect(c.status).toBe('ok');
        expect(store.row(c.parentKey!)?.type).toBe('call');
      }
    }
    expect(calls.some((c) => c.request.name === 'flaky' && c.status === 'tool-error')).toBe(true);
    expect(calls.some((c) => c.request.name === 'crash' && c.status === 'error')).toBe(true);
    expect(calls.some((c) => c.status === 'cancelled' && c.cancel)).toBe(true);
    // Every answered call's stream is in order.
    for (const x of store.exchanges.values()) {
      const offsets = store.streamOf(x.id).map((e) => e.offset);
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    }
    const wf = store.waterfall('');
    expect(wf.bars.length).toBe(calls.length);
    expect(wf.lanes.some((l) => l.carrier === 'get-sse')).toBe(true);
  });
});

describe('TimelineStore: scale (measurements, printed)', () => {
  it('ingests 100k synthetic frames and filters 100k rows', () => {
    const ms = (t: number) => `${(performance.now() - t).toFixed(1)} ms`;
    // A reference for the machine: 1M integer Map.set.
    let t = performance.now();
    const ref = new Map<number, number>();
    for (let i = 0; i < 1_000_000; i++) ref.set(i, i);
    const tRef = ms(t);

    const frames = syntheticEvents(100_000);
    const store = new TimelineStore();
    t = performance.now();
    store.ingest(frames);
    const tIngest = performance.now() - t;
    expect(store.stats.messages).toBe(100_000);

    // 100k rows take about 230k frames; the last 2,000 events are kept for "live" batches.
    const big = syntheticEvents(230_000, { seed: 7, sessions: 3 });
    const cut = big.length - 2_000;
    const s = new TimelineStore();
    s.ingest(big.slice(0, cut));
    const rowCount = s.stats.rows;
    expect(rowCount).toBeGreaterThanOrEqual(100_000);
    const out: string[] = [`machine reference: 1M Map.set ${tRef}`];
    out.push(
      `ingest 100k frames (${frames.length} events, ${store.stats.rows} rows): ${tIngest.toFixed(0)} ms = ${((tIngest / frames.length) * 1000).toFixed(2)} µs/event`,
    );
    t = performance.now();
    const all = s.visibleRows(EMPTY_FILTERS);
    out.push(`visibleRows full recompute, no filter, ${all.length} rows: ${ms(t)}`);
    const errors = { ...EMPTY_FILTERS, method: 'tools/', errorsOnly: true };
    t = performance.now();
    s.visibleRows(errors);
    out.push(`visibleRows full recompute, method+errors filter: ${ms(t)}`);
    t = performance.now();
    s.visibleRows({ ...EMPTY_FILTERS, session: 's2' });
    out.push(`visibleRows full recompute, session filter: ${ms(t)}`);
    t = performance.now();
    const zanz = s.visibleRows({ ...EMPTY_FILTERS, text: 'zanz' });
    out.push(`text filter, first search (builds the lower-cased text of ${s.stats.messages} messages): ${ms(t)}`);
    t = performance.now();
    const zanzibar = s.visibleRows({ ...EMPTY_FILTERS, text: 'zanzibar' });
    out.push(`text filter, typing on ("zanz" → "zanzibar", narrows ${zanz.length} rows): ${ms(t)}`);
    t = performance.now();
    s.visibleRows({ ...EMPTY_FILTERS, text: 'no such text anywhere' });
    out.push(`text filter, new search over all ${rowCount} rows: ${ms(t)}`);
    expect(zanzibar.length).toBeGreaterThan(0);
    expect(zanz.length).toBeGreaterThanOrEqual(zanzibar.length);
    t = performance.now();
    const wf = s.waterfall('');
    out.push(`waterfall(''), ${wf.bars.length} bars / ${wf.lanes.length} lanes, first: ${ms(t)}`);
    // Live: batches of 500 events, then what a frame recomputes.
    const live: number[][] = [];
    for (let j = 0; j < 4; j++) {
      const batch = big.slice(cut + j * 500, cut + (j + 1) * 500);
      let t1 = performance.now();
      s.ingest(batch);
      const a = performance.now() - t1;
      t1 = performance.now();
      s.visibleRows(EMPTY_FILTERS);
      const b = performance.now() - t1;
      t1 = performance.now();
      s.visibleRows(errors);
      const c = performance.now() - t1;
      t1 = performance.now();
      s.waterfall('');
      const d = performance.now() - t1;
      live.push([a, b, c, d]);
    }
    const med = (i: number) => {
      const sorted = live.map((r) => r[i]).sort((x, y) => x - y);
      return sorted[live.length >> 1].toFixed(1);
    };
    out.push(
      `live batch of 500 events at ${rowCount} rows (median of 4): ingest ${med(0)} ms, visibleRows ${med(1)} ms, filtered ${med(2)} ms, waterfall ${med(3)} ms`,
    );
    console.log(`[ui-state perf]\n  ${out.join('\n  ')}`);
  }, 180_000);
});

describe('TimelineStore: rows list ordering invariant', () => {
  it('every nested row comes after its parent, top-level rows by seq', () => {
    const store = loaded(syntheticEvents(5_000, { seed: 3, sessions: 2 }));
    const rows = store.visibleRows(EMPTY_FILTERS);
    const pos = new Map<string, number>(rows.map((r, i) => [r.key, i]));
    let lastTop = -Infinity;
    for (const [i, r] of rows.entries()) {
      const parentKey = (r as Row & { parentKey?: string }).parentKey;
      if (parentKey) expect(pos.get(parentKey)!).toBeLessThan(i);
      else {
        expect(r.seq).toBeGreaterThan(lastTop);
        lastTop = r.seq;
      }
    }
    expect(rows.length).toBe(store.stats.rows);
  });
});

describe('TimelineStore: stream close as cancellation (2026-07-28)', () => {
  it('marks a pending call cancelled when its exchange lists it in cancels', () => {
    const store = new TimelineStore();
    const b = new EventBuilder(1, 1_000);
    b.session('s1');
    const req = b.message({
      exchangeId: 'x1',
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      id: 7,
      method: 'tools/call',
      jsonrpc: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow' } },
    });
    store.ingest(b.events);
    const call = store.row(`c${req.seq}`) as CallRow;
    expect(call.status).toBe('pending');
    store.ingest([
      {
        type: 'exchange',
        seq: req.seq + 1,
        ts: 2_000,
        exchange: {
          id: 'x1',
          sessionId: 's1',
          method: 'POST',
          url: '/mcp',
          requestHeaders: {},
          startedAt: 1_000,
          requestBytes: 10,
          responseBytes: 0,
          aborted: 'client',
          cancels: [req.seq],
          hints: [],
        },
      },
    ]);
    expect((store.row(`c${req.seq}`) as CallRow).status).toBe('cancelled');
  });
});

describe('TimelineStore: a call refused at the HTTP layer', () => {
  const exchange = (status: number | undefined): McpscopeEvent => ({
    type: 'exchange',
    seq: 0,
    ts: 2_000,
    exchange: {
      id: 'x1',
      sessionId: 's1',
      method: 'POST',
      url: '/mcp',
      requestHeaders: {},
      startedAt: 1_000,
      requestBytes: 10,
      responseBytes: 0,
      status,
      hints: [],
    } as ExchangeInfo,
  });
  const initialize = (b: EventBuilder) =>
    b.message({
      exchangeId: 'x1',
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      id: 0,
      method: 'initialize',
      jsonrpc: { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} },
    });

  it('is an error with its HTTP status, not pending for ever (a 401 challenge before OAuth)', () => {
    const store = new TimelineStore();
    const b = new EventBuilder(1, 1_000);
    b.session('s1');
    const req = initialize(b);
    store.ingest(b.events);
    expect(call(store, req.seq).status).toBe('pending');
    store.ingest([{ ...exchange(401), seq: req.seq + 1 }]);
    expect(call(store, req.seq)).toMatchObject({ status: 'error', httpStatus: 401 });
  });

  it('also when the exchange head came before the request message, and a JSON-RPC answer still wins', () => {
    const store = new TimelineStore();
    const b = new EventBuilder(1, 1_000);
    b.session('s1');
    store.ingest([...b.events, { ...exchange(404), seq: 2 }]);
    const b2 = new EventBuilder(3, 1_500);
    const req = initialize(b2);
    store.ingest(b2.events);
    expect(call(store, req.seq)).toMatchObject({ status: 'error', httpStatus: 404 });
    const b3 = new EventBuilder(req.seq + 1, 1_600);
    b3.message({
      exchangeId: 'x1',
      dir: 's2c',
      kind: 'error',
      carrier: 'post-json',
      id: 0,
      pair: req.seq,
      jsonrpc: { jsonrpc: '2.0', id: 0, error: { code: -32001, message: 'Session not found' } },
    });
    store.ingest(b3.events);
    expect(call(store, req.seq).response?.kind).toBe('error');
    // A 2xx never refuses anything.
    const ok = new TimelineStore();
    const b4 = new EventBuilder(1, 1_000);
    b4.session('s1');
    const r4 = initialize(b4);
    ok.ingest([...b4.events, { ...exchange(202), seq: r4.seq + 1 }]);
    expect(call(ok, r4.seq).status).toBe('pending');
  });

  it('is failed with no response at all (core/model/call-state.ts), as the session counts say; a stream cut after its head is still pending', () => {
    const store = new TimelineStore();
    const b = new EventBuilder(1, 1_000);
    b.session('s1');
    const req = initialize(b);
    store.ingest(b.events);
    const cut = exchange(undefined) as Extract<McpscopeEvent, { type: 'exchange' }>;
    store.ingest([{ ...cut, seq: req.seq + 1, exchange: { ...cut.exchange, status: 200, aborted: 'upstream', error: 'reset' } }]);
    expect(call(store, req.seq).status).toBe('pending');
    store.ingest([{ ...cut, seq: req.seq + 2, exchange: { ...cut.exchange, aborted: 'upstream', error: 'connection reset' } }]);
    expect(call(store, req.seq)).toMatchObject({ status: 'error', httpStatus: 'failed' });
  });
});

describe('TimelineStore: spec violations (issue 19)', () => {
  /** The scenario with violations appended after it (as the linter records them: after their message). */
  const withViolations = (add: (b: EventBuilder, seq: ReturnType<typeof scenario>['seq']) => void) => {
    const b = new EventBuilder();
    const { seq } = scenario(b);
    add(b, seq);
    return { events: b.events, seq };
  };

  it("annotates the message a violation names: no row of its own, the message's row carries it", () => {
    const plain = loaded();
    const { events, seq } = withViolations((b, s) => {
      b.violation({ message: s.add, rule: 'tools/arguments-schema', path: '/params/arguments/a', expected: 'a number' });
    });
    const v = events[events.length - 1] as ProblemEvent;
    const store = loaded(events);
    // The same rows as without it: the violation is not a timeline row.
    expect(picture(store)).toEqual(picture(plain));
    expect(store.row(`p${v.seq}`)).toBeUndefined();
    expect(store.stats.rows).toBe(plain.stats.rows);
    expect(store.violationsOf(seq.add)).toEqual([v]);
    expect(store.violationsOf(seq.addResult)).toBeUndefined();
    expect(store.violationsOfRow(call(store, seq.add))).toEqual([v]);
    // Every other row has none.
    for (const r of store.visibleRows(EMPTY_FILTERS)) if (r.key !== `c${seq.add}`) expect(store.violationsOfRow(r)).toEqual([]);
    // It is still a problem of the store (the lint report reads those).
    expect(store.problems).toContain(v);
  });

  it("a call row gathers its response's and progress' violations too, and is touched when one arrives live", () => {
    const { events, seq } = scenario();
    const store = loaded(events);
    const slow = call(store, seq.slowTask);
    const rev = slow.rev ?? 0;
    const version = store.version;
    const b = new EventBuilder(store.lastSeq + 1, store.lastTs);
    const onResult = b.violation({ message: seq.slowTaskResult, rule: 'schema/tools-call-result', path: '/result/content' });
    const onProgress = b.violation({ message: seq.progress[1], rule: 'progress/increasing', level: 'error' });
    store.ingest(b.events);
    expect(store.version).toBeGreaterThan(version);
    expect(slow.rev).toBeGreaterThan(rev);
    expect(store.violationsOfRow(slow)).toEqual([onResult, onProgress]);
    expect(store.row(`p${onResult.seq}`)).toBeUndefined();
    expect(store.row(`p${onProgress.seq}`)).toBeUndefined();
    // A nested row's violations are its own, not its parent's.
    const b2 = new EventBuilder(store.lastSeq + 1, store.lastTs);
    const onSampling = b2.violation({ message: seq.sampling, rule: 'capabilities/sampling' });
    store.ingest(b2.events);
    expect(store.violationsOfRow(call(store, seq.sampling))).toEqual([onSampling]);
    expect(store.violationsOfRow(slow)).toEqual([onResult, onProgress]);
  });

  it('a violation naming a message the store does not hold, or none, stays a problem row', () => {
    const { events, seq } = withViolations((b) => {
      b.violation({ message: 99_999, rule: 'lifecycle/unknown' });
      b.violation({ rule: 'transport/session-id', exchangeId: 'x14', text: 'A session id the server never assigned.' });
    });
    const [unknown, none] = events.slice(-2) as ProblemEvent[];
    const store = loaded(events);
    expect(store.row(`p${unknown.seq}`)).toMatchObject({ type: 'problem', event: unknown, sessionId: 's1' });
    expect(store.row(`p${none.seq}`)).toMatchObject({ type: 'problem', event: none });
    expect(store.violationsOf(99_999)).toBeUndefined();
    for (const r of store.visibleRows(EMPTY_FILTERS)) expect(store.violationsOfRow(r)).toEqual([]);
    // Other problems are rows as before.
    expect(store.row(`p${seq.problem}`)?.type).toBe('problem');
    expect(store.problemsOf('x14')).toContain(none);
  });

  it('a violation that came before its message (a gap filled later) is linked once the message arrives', () => {
    const { events, seq } = withViolations((b, s) => {
      b.violation({ message: s.add, rule: 'tools/arguments-schema' });
    });
    const v = events[events.length - 1] as ProblemEvent;
    const store = new TimelineStore();
    store.ingest(events.filter((e) => e.seq !== seq.add));
    // Without its message it is a row of its own.
    expect(store.row(`p${v.seq}`)?.type).toBe('problem');
    store.ingest(events.filter((e) => e.seq === seq.add));
    expect(store.row(`p${v.seq}`)).toBeUndefined();
    expect(store.violationsOfRow(call(store, seq.add))).toEqual([v]);
    expect(picture(store)).toEqual(picture(loaded()));
  });

  it('forgets violations on clear', () => {
    const { events, seq } = withViolations((b, s) => {
      b.violation({ message: s.add, rule: 'tools/arguments-schema' });
    });
    const store = loaded(events);
    store.clear();
    expect(store.violationsOf(seq.add)).toBeUndefined();
    const again = new EventBuilder();
    scenario(again);
    store.ingest(again.events);
    expect(store.violationsOfRow(call(store, seq.add))).toEqual([]);
  });
});
