import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Correlator, type CorrelateInput, type Correlation } from '../../../proxy/core/correlate/correlator.js';
import type { Direction, JsonRpcId, MessageKind } from '../../../proxy/core/model/events.js';

/** Feeds messages with consecutive seqs starting at 1, like the store does. */
class Feed {
  readonly c = new Correlator();
  seq = 0;
  observe(m: Partial<CorrelateInput> & { dir: Direction; kind: MessageKind }): Correlation & { seq: number } {
    this.seq += 1;
    const out = this.c.observe(this.seq, { sessionId: 'S', ts: this.seq * 10, ...m });
    return { ...out, seq: this.seq };
  }
  req(dir: Direction, id: JsonRpcId | undefined, method = 'tools/call', extra: Partial<CorrelateInput> = {}) {
    return this.observe({ dir, kind: 'request', id, method, ...extra });
  }
  res(dir: Direction, id: JsonRpcId | undefined, extra: Partial<CorrelateInput> = {}) {
    return this.observe({ dir, kind: 'response', id, ...extra });
  }
  err(dir: Direction, id: JsonRpcId | undefined, extra: Partial<CorrelateInput> = {}) {
    return this.observe({ dir, kind: 'error', id, ...extra });
  }
  note(dir: Direction, method: string, params?: unknown, extra: Partial<CorrelateInput> = {}) {
    return this.observe({ dir, kind: 'notification', method, params, ...extra });
  }
}

const codes = (c: Correlation) => c.issues.map((h) => h.code);

describe('Correlator: one id on two exchanges', () => {
  it('a response on the exchange that carried its request pairs with that request, whichever came last with the id', () => {
    // Two clients of one name in a session of a server that assigns no session id: both count from 0, on their own POSTs.
    const f = new Feed();
    const a = f.req('c2s', 0, 'tools/list', { exchangeId: 'xa' });
    const b = f.req('c2s', 0, 'prompts/list', { exchangeId: 'xb' });
    expect(codes(b)).toContain('duplicate-id');
    expect(f.c.pendingCount('S')).toBe(2);
    expect(f.res('s2c', 0, { exchangeId: 'xa' })).toMatchObject({ pair: a.seq, requestMethod: 'tools/list', issues: [] });
    expect(f.res('s2c', 0, { exchangeId: 'xb' })).toMatchObject({ pair: b.seq, requestMethod: 'prompts/list', issues: [] });
    expect(f.c.pendingCount('S')).toBe(0);
  });

  it('an answer on another exchange (a legacy GET stream, stdio) still pairs by id with the latest request', () => {
    const f = new Feed();
    f.req('c2s', 3, 'tools/list', { exchangeId: 'p1' });
    const later = f.req('c2s', 4, 'tools/call', { exchangeId: 'p2' });
    expect(f.res('s2c', 4, { exchangeId: 'get' })).toMatchObject({ pair: later.seq, requestMethod: 'tools/call' });
    const noExchange = f.req('c2s', 5, 'ping');
    expect(f.res('s2c', 5)).toMatchObject({ pair: noExchange.seq });
  });

  it('the same id again on the same exchange replaces the first (one pending, as before)', () => {
    const f = new Feed();
    f.req('c2s', 9, 'tools/list', { exchangeId: 'x' });
    const second = f.req('c2s', 9, 'tools/call', { exchangeId: 'x' });
    expect(f.c.pendingCount('S')).toBe(1);
    expect(f.res('s2c', 9, { exchangeId: 'x' })).toMatchObject({ pair: second.seq });
  });
});

describe('Correlator: request ↔ response', () => {
  it('pairs a response with its request, with latency, method and name', () => {
    const f = new Feed();
    const rq = f.req('c2s', 7, 'tools/call', { name: 'echo', ts: 1000 });
    expect(rq).toEqual({ seq: 1, issues: [] });
    expect(f.c.pendingCount('S')).toBe(1);
    const rs = f.res('s2c', 7, { ts: 1042.5 });
    expect(rs).toEqual({ seq: 2, pair: 1, latencyMs: 42.5, requestMethod: 'tools/call', name: 'echo', issues: [] });
    expect(f.c.pendingCount('S')).toBe(0);
  });

  it('an error response pairs like a result and closes the request', () => {
    const f = new Feed();
    f.req('c2s', 'a', 'resources/read', { name: 'file:///x' });
    const e = f.err('s2c', 'a');
    expect(e.pair).toBe(1);
    expect(e.requestMethod).toBe('resources/read');
    expect(e.name).toBe('file:///x');
    expect(codes(e)).toEqual([]);
    expect(f.c.pendingCount('S')).toBe(0);
  });

  it('latency never goes negative (clock skew between records)', () => {
    const f = new Feed();
    f.req('c2s', 1, 'ping', { ts: 500 });
    expect(f.res('s2c', 1, { ts: 499 }).latencyMs).toBe(0);
  });

  it('1 and "1" are different ids', () => {
    const f = new Feed();
    f.req('c2s', 1, 'tools/list'); // seq 1
    f.req('c2s', '1', 'prompts/list'); // seq 2
    expect(codes(f.observe({ dir: 'c2s', kind: 'notification', method: 'notifications/x' }))).toEqual([]);
    expect(f.c.pendingCount('S')).toBe(2);
    const a = f.res('s2c', '1');
    expect(a.pair).toBe(2);
    expect(a.requestMethod).toBe('prompts/list');
    const b = f.res('s2c', 1);
    expect(b.pair).toBe(1);
    expect(b.requestMethod).toBe('tools/list');
    expect(f.c.pendingCount('S')).toBe(0);
  });

  it('a string id never pairs with the number of the same spelling', () => {
    const f = new Feed();
    f.req('c2s', 5);
    const r = f.res('s2c', '5');
    expect(r.pair).toBeUndefined();
    expect(codes(r)).toEqual(['unknown-id']);
    expect(r.issues[0].level).toBe('error');
    expect(r.issues[0].text).toContain('"5"');
    expect(r.issues[0].text).toContain('client request');
    expect(f.c.pendingCount('S')).toBe(1);
  });

  it('client→server and server→client id spaces are separate: both sides use id 0 at once', () => {
    const f = new Feed();
    const c0 = f.req('c2s', 0, 'tools/call'); // 1
    const s0 = f.req('s2c', 0, 'sampling/createMessage'); // 2
    expect(codes(c0)).toEqual([]);
    expect(codes(s0)).toEqual([]); // not a duplicate: other side
    expect(f.c.pendingCount('S')).toBe(2);
    // The client answers the server's request 0 first.
    const cr = f.res('c2s', 0);
    expect(cr.pair).toBe(2);
    expect(cr.requestMethod).toBe('sampling/createMessage');
    // Then the server answers the client's request 0.
    const sr = f.res('s2c', 0);
    expect(sr.pair).toBe(1);
    expect(sr.requestMethod).toBe('tools/call');
    expect(f.c.pendingCount('S')).toBe(0);
  });

  it('a response to an unknown id is flagged and pairs with nothing', () => {
    const f = new Feed();
    const r = f.res('c2s', 99);
    expect(r.pair).toBeUndefined();
    expect(r.latencyMs).toBeUndefined();
    expect(codes(r)).toEqual(['unknown-id']);
    expect(r.issues[0].text).toContain('no server request');
    expect(f.c.pendingCount('S')).toBe(0);
  });

  it('a second response to the same request is a duplicate-response (pending not decremented twice)', () => {
    const f = new Feed();
    f.req('c2s', 3);
    f.req('c2s', 4);
    expect(codes(f.res('s2c', 3))).toEqual([]);
    expect(f.c.pendingCount('S')).toBe(1);
    const dup = f.res('s2c', 3);
    expect(dup.pair).toBe(1);
    expect(codes(dup)).toEqual(['duplicate-response']);
    expect(dup.issues[0].level).toBe('error');
    expect(f.c.pendingCount('S')).toBe(1);
  });

  it('an error with id null is flagged error-without-id and not paired', () => {
    const f = new Feed();
    f.req('c2s', 1);
    const e = f.err('s2c', null);
    expect(e.pair).toBeUndefined();
    expect(codes(e)).toEqual(['error-without-id']);
    expect(e.issues[0].level).toBe('warn');
    expect(f.c.pendingCount('S')).toBe(1);
  });

  it('a result with id null or without id is not paired (the classifier flags it already)', () => {
    const f = new Feed();
    f.req('c2s', 1);
    expect(f.res('s2c', null)).toEqual({ seq: 2, issues: [] });
    expect(f.res('s2c', undefined)).toEqual({ seq: 3, issues: [] });
    expect(f.c.pendingCount('S')).toBe(1);
  });

  it('a duplicate in-flight id is flagged, counted once, and the newest request owns the id', () => {
    const f = new Feed();
    f.req('c2s', 1, 'tools/list');
    const d = f.req('c2s', 1, 'tools/call');
    expect(codes(d)).toEqual(['duplicate-id']);
    expect(d.issues[0].level).toBe('error');
    expect(d.issues[0].text).toContain('#1');
    expect(d.issues[0].text).toContain('tools/list');
    expect(f.c.pendingCount('S')).toBe(1);
    const r = f.res('s2c', 1);
    expect(r.pair).toBe(2);
    expect(r.requestMethod).toBe('tools/call');
    expect(f.c.pendingCount('S')).toBe(0);
  });

  it('reusing an id after its response is not a duplicate', () => {
    const f = new Feed();
    f.req('c2s', 1);
    f.res('s2c', 1);
    const again = f.req('c2s', 1, 'ping');
    expect(codes(again)).toEqual([]);
    expect(f.c.pendingCount('S')).toBe(1);
    expect(f.res('s2c', 1)).toMatchObject({ pair: 3, requestMethod: 'ping', issues: [] });
  });

  it('sessions are separate: the same id in two sessions pairs within each', () => {
    const c = new Correlator();
    c.observe(1, { sessionId: 'A', dir: 'c2s', kind: 'request', id: 1, method: 'a', ts: 0 });
    c.observe(2, { sessionId: 'B', dir: 'c2s', kind: 'request', id: 1, method: 'b', ts: 0 });
    expect(c.observe(3, { sessionId: 'B', dir: 's2c', kind: 'response', id: 1, ts: 5 })).toMatchObject({ pair: 2, requestMethod: 'b' });
    expect(c.observe(4, { sessionId: 'A', dir: 's2c', kind: 'response', id: 1, ts: 5 })).toMatchObject({ pair: 1, requestMethod: 'a' });
    expect(c.observe(5, { sessionId: 'C', dir: 's2c', kind: 'response', id: 1, ts: 5 }).issues.map((h) => h.code)).toEqual(['unknown-id']);
  });
});

describe('Correlator: progress', () => {
  it('progress pairs with the request that carried the token; the request reports its token', () => {
    const f = new Feed();
    const rq = f.req('c2s', 1, 'tools/call', { params: { name: 'slow', _meta: { progressToken: 'tok' } } });
    expect(rq.progressToken).toBe('tok');
    const p = f.note('s2c', 'notifications/progress', { progressToken: 'tok', progress: 1, total: 2 });
    expect(p).toEqual({ seq: 2, pair: 1, progressToken: 'tok', issues: [] });
    // Progress does not close the request.
    expect(f.c.pendingCount('S')).toBe(1);
  });

  it('tokens are typed: 5 and "5" are different tokens', () => {
    const f = new Feed();
    f.req('c2s', 1, 'a', { params: { _meta: { progressToken: 5 } } });
    f.req('c2s', 2, 'b', { params: { _meta: { progressToken: '5' } } });
    expect(f.note('s2c', 'notifications/progress', { progressToken: '5', progress: 1 }).pair).toBe(2);
    expect(f.note('s2c', 'notifications/progress', { progressToken: 5, progress: 1 }).pair).toBe(1);
  });

  it('tokens are per direction: server progress goes to the client request, client progress to the server request', () => {
    const f = new Feed();
    f.req('c2s', 1, 'tools/call', { params: { _meta: { progressToken: 0 } } }); // 1
    f.req('s2c', 1, 'sampling/createMessage', { params: { _meta: { progressToken: 0 } } }); // 2
    expect(f.note('s2c', 'notifications/progress', { progressToken: 0, progress: 1 }).pair).toBe(1);
    expect(f.note('c2s', 'notifications/progress', { progressToken: 0, progress: 1 }).pair).toBe(2);
  });

  it('a token only the same side carried is unknown to progress flowing the same way', () => {
    const f = new Feed();
    f.req('c2s', 1, 'tools/call', { params: { _meta: { progressToken: 'x' } } });
    const p = f.note('c2s', 'notifications/progress', { progressToken: 'x', progress: 1 });
    expect(p.pair).toBeUndefined();
    expect(codes(p)).toEqual(['unknown-progress-token']);
  });

  it('progress after the response still pairs (task-augmented requests)', () => {
    const f = new Feed();
    f.req('c2s', 1, 'tools/call', { params: { _meta: { progressToken: 't' } } });
    f.res('s2c', 1);
    expect(f.note('s2c', 'notifications/progress', { progressToken: 't', progress: 2 })).toMatchObject({ pair: 1, issues: [] });
  });

  it('progress with an unknown token warns; a missing or non-scalar token is ignored', () => {
    const f = new Feed();
    const p = f.note('s2c', 'notifications/progress', { progressToken: 'nope', progress: 1 });
    expect(codes(p)).toEqual(['unknown-progress-token']);
    expect(p.issues[0].level).toBe('warn');
    expect(p.progressToken).toBe('nope');
    expect(f.note('s2c', 'notifications/progress', { progress: 1 })).toEqual({ seq: 2, issues: [] });
    expect(f.note('s2c', 'notifications/progress', { progressToken: { a: 1 }, progress: 1 })).toEqual({ seq: 3, issues: [] });
    expect(f.note('s2c', 'notifications/progress', undefined)).toEqual({ seq: 4, issues: [] });
  });

  it('a request without _meta.progressToken reports none', () => {
    const f = new Feed();
    expect(f.req('c2s', 1, 'x', { params: { progressToken: 'top-level-does-not-count' } }).progressToken).toBeUndefined();
    expect(f.note('s2c', 'notifications/progress', { progressToken: 'top-level-does-not-count', progress: 1 }).pair).toBeUndefined();
  });
});

describe('Correlator: cancellation', () => {
  it('notifications/cancelled pairs with the cancelled request of the same side and clears pending', () => {
    const f = new Feed();
    f.req('c2s', 4, 'tools/call', { name: 'slow' });
    f.req('s2c', 4, 'roots/list');
    const c = f.note('c2s', 'notifications/cancelled', { requestId: 4, reason: 'user' });
    expect(c).toEqual({ seq: 3, pair: 1, name: 'slow', issues: [] });
    expect(f.c.pendingCount('S')).toBe(1);
    // the server side cancels its own request 4
    expect(f.note('s2c', 'notifications/cancelled', { requestId: 4 }).pair).toBe(2);
    expect(f.c.pendingCount('S')).toBe(0);
  });

  it('an answer after cancellation pairs, says answered-after-cancel, and does not double-decrement pending', () => {
    const f = new Feed();
    f.req('c2s', 1);
    f.req('c2s', 2);
    f.note('c2s', 'notifications/cancelled', { requestId: 1 });
    expect(f.c.pendingCount('S')).toBe(1);
    const late = f.res('s2c', 1);
    expect(late.pair).toBe(1);
    expect(codes(late)).toEqual(['answered-after-cancel']);
    expect(late.issues[0].level).toBe('info');
    expect(f.c.pendingCount('S')).toBe(1);
    // a further answer is a duplicate
    expect(codes(f.res('s2c', 1))).toEqual(['duplicate-response']);
    expect(f.c.pendingCount('S')).toBe(1);
  });

  it('cancelling twice or after the answer keeps the pair but does not change pending', () => {
    const f = new Feed();
    f.req('c2s', 1);
    f.req('c2s', 2);
    f.res('s2c', 1);
    expect(f.note('c2s', 'notifications/cancelled', { requestId: 1 }).pair).toBe(1);
    expect(f.c.pendingCount('S')).toBe(1);
    f.note('c2s', 'notifications/cancelled', { requestId: 2 });
    f.note('c2s', 'notifications/cancelled', { requestId: 2 });
    expect(f.c.pendingCount('S')).toBe(0);
  });

  it("cancelling an id the side never sent warns cancel-unknown (the other side's id does not count)", () => {
    const f = new Feed();
    f.req('s2c', 9, 'elicitation/create');
    const c = f.note('c2s', 'notifications/cancelled', { requestId: 9 });
    expect(c.pair).toBeUndefined();
    expect(codes(c)).toEqual(['cancel-unknown']);
    expect(f.c.pendingCount('S')).toBe(1);
    // typed: "9" is not 9
    expect(codes(f.note('s2c', 'notifications/cancelled', { requestId: '9' }))).toEqual(['cancel-unknown']);
    // no requestId: ignored
    expect(f.note('c2s', 'notifications/cancelled', {})).toEqual({ seq: 4, issues: [] });
  });
});

describe('Correlator: resumption replays', () => {
  it('a message seen again under the same SSE event id is a replay of the first sighting, not correlated again', () => {
    const f = new Feed();
    f.req('c2s', 1);
    const first = f.res('s2c', 1, { sseEventId: 'e-1' });
    expect(first.pair).toBe(1);
    expect(first.replayOf).toBeUndefined();
    const again = f.res('s2c', 1, { sseEventId: 'e-1' });
    expect(again.replayOf).toBe(2);
    expect(again.pair).toBeUndefined();
    expect(codes(again)).toEqual(['replayed']);
    expect(again.issues[0].text).toContain('#2');
    expect(f.c.pendingCount('S')).toBe(0);
  });

  it('a replayed request is not a duplicate-id and does not add to pending', () => {
    const f = new Feed();
    f.req('s2c', 0, 'sampling/createMessage', { sseEventId: '7' });
    const again = f.req('s2c', 0, 'sampling/createMessage', { sseEventId: '7' });
    expect(again.replayOf).toBe(1);
    expect(codes(again)).toEqual(['replayed']);
    expect(f.c.pendingCount('S')).toBe(1);
  });

  it('different event ids are not replays, an empty event id never de-duplicates, and sessions do not share event ids', () => {
    const f = new Feed();
    f.note('s2c', 'notifications/message', {}, { sseEventId: 'a' });
    expect(f.note('s2c', 'notifications/message', {}, { sseEventId: 'b' }).replayOf).toBeUndefined();
    f.note('s2c', 'notifications/message', {}, { sseEventId: '' });
    expect(f.note('s2c', 'notifications/message', {}, { sseEventId: '' }).replayOf).toBeUndefined();
    const other = f.c.observe(99, { sessionId: 'T', dir: 's2c', kind: 'notification', method: 'x', ts: 0, sseEventId: 'a' });
    expect(other.replayOf).toBeUndefined();
  });

  it('members of one batch under one SSE event id are not replays of each other; a replayed batch is', () => {
    const f = new Feed();
    f.req('c2s', 1);
    f.req('c2s', 2);
    const a = f.res('s2c', 1, { sseEventId: 'b1', batchIndex: 0 });
    const b = f.res('s2c', 2, { sseEventId: 'b1', batchIndex: 1 });
    expect(a).toMatchObject({ pair: 1, issues: [] });
    expect(b).toMatchObject({ pair: 2, issues: [] });
    expect(b.replayOf).toBeUndefined();
    expect(f.c.pendingCount('S')).toBe(0);
    expect(f.res('s2c', 1, { sseEventId: 'b1', batchIndex: 0 }).replayOf).toBe(a.seq);
    expect(f.res('s2c', 2, { sseEventId: 'b1', batchIndex: 1 }).replayOf).toBe(b.seq);
  });
});

describe('Correlator: stream parents', () => {
  it('server→client requests and notifications on a POST stream get that POST request as parent', () => {
    const f = new Feed();
    const call = f.req('c2s', 1, 'tools/call', { exchangeId: 'x1' });
    f.c.setStreamParent('x1', call.seq);
    expect(f.c.streamParent('x1')).toBe(1);
    expect(f.c.streamParent(undefined)).toBeUndefined();
    const sReq = f.req('s2c', 0, 'sampling/createMessage', { exchangeId: 'x1' });
    expect(sReq.parent).toBe(1);
    const log = f.note('s2c', 'notifications/message', { level: 'info' }, { exchangeId: 'x1' });
    expect(log.parent).toBe(1);
    // the final response on the same stream is placed by its pair, not a parent
    const final = f.res('s2c', 1, { exchangeId: 'x1' });
    expect(final.pair).toBe(1);
    expect(final.parent).toBeUndefined();
  });

  it("the client's reply to such a request (on another exchange) inherits the parent, even after the stream is forgotten", () => {
    const f = new Feed();
    f.req('c2s', 0, 'tools/call', { exchangeId: 'post1' }); // 1
    f.c.setStreamParent('post1', 1);
    f.req('s2c', 0, 'sampling/createMessage', { exchangeId: 'post1' }); // 2
    f.c.forgetExchange('post1');
    expect(f.c.streamParent('post1')).toBeUndefined();
    const reply = f.res('c2s', 0, { exchangeId: 'post2' }); // 3
    expect(reply).toMatchObject({ pair: 2, parent: 1, requestMethod: 'sampling/createMessage', issues: [] });
    const final = f.res('s2c', 0, { exchangeId: 'post1' });
    expect(final).toMatchObject({ pair: 1, issues: [] });
    expect(final.parent).toBeUndefined();
  });

  it('client→server messages never get a stream parent; messages on an exchange without one get none', () => {
    const f = new Feed();
    f.c.setStreamParent('x', 42);
    expect(f.req('c2s', 1, 'm', { exchangeId: 'x' }).parent).toBeUndefined();
    expect(f.note('c2s', 'notifications/initialized', undefined, { exchangeId: 'x' }).parent).toBeUndefined();
    expect(f.req('s2c', 1, 'ping', { exchangeId: 'get-stream' }).parent).toBeUndefined();
    expect(f.res('c2s', 1, { exchangeId: 'y' }).parent).toBeUndefined();
  });
});

describe('Correlator: pendingCount and closeSession', () => {
  it('pendingCount tracks unanswered requests per session; closeSession returns and drops them', () => {
    const c = new Correlator();
    expect(c.pendingCount('nope')).toBe(0);
    c.observe(1, { sessionId: 'A', dir: 'c2s', kind: 'request', id: 1, ts: 0 });
    c.observe(2, { sessionId: 'A', dir: 's2c', kind: 'request', id: 1, ts: 0 });
    c.observe(3, { sessionId: 'B', dir: 'c2s', kind: 'request', id: 1, ts: 0 });
    c.observe(4, { sessionId: 'A', dir: 'c2s', kind: 'notification', method: 'notifications/initialized', ts: 0 });
    expect(c.pendingCount('A')).toBe(2);
    expect(c.pendingCount('B')).toBe(1);
    expect(c.closeSession('A')).toBe(2);
    expect(c.pendingCount('A')).toBe(0);
    expect(c.closeSession('A')).toBe(0);
    expect(c.pendingCount('B')).toBe(1);
    // after closing, the old requests are gone
    const late = c.observe(5, { sessionId: 'A', dir: 's2c', kind: 'response', id: 1, ts: 0 });
    expect(late.pair).toBeUndefined();
    expect(late.issues.map((h) => h.code)).toEqual(['unknown-id']);
  });
});

describe('Correlator: a session closed while a request is in flight', () => {
  it('still pairs the answer that comes back on the request’s own exchange, and only that one', () => {
    // A GET answered 404 (the session "expired") while a tools/list POST was on its way: its answer
    // comes back on that POST, after the close.
    const c = new Correlator();
    c.observe(1, { sessionId: 'A', dir: 'c2s', kind: 'request', id: 1, method: 'tools/list', exchangeId: 'x4', ts: 0 });
    c.observe(2, { sessionId: 'A', dir: 'c2s', kind: 'request', id: 2, method: 'ping', ts: 0 });
    expect(c.closeSession('A')).toBe(2);
    const late = c.observe(3, { sessionId: 'A', dir: 's2c', kind: 'response', id: 1, exchangeId: 'x4', ts: 7 });
    expect(late).toMatchObject({ pair: 1, requestMethod: 'tools/list', latencyMs: 7 });
    expect(late.issues.map((h) => h.code)).toEqual([]);
    // Once: a second answer on that exchange is not paired with it again.
    expect(c.observe(4, { sessionId: 'A', dir: 's2c', kind: 'response', id: 1, exchangeId: 'x4', ts: 8 }).pair).toBeUndefined();
    // An answer on another exchange (or none) is not: only the exchange makes it unambiguous.
    expect(c.observe(5, { sessionId: 'A', dir: 's2c', kind: 'response', id: 2, exchangeId: 'x9', ts: 9 }).pair).toBeUndefined();
    // The session's new requests start afresh.
    c.observe(6, { sessionId: 'A', dir: 'c2s', kind: 'request', id: 1, method: 'tools/call', exchangeId: 'x5', ts: 10 });
    expect(c.observe(7, { sessionId: 'A', dir: 's2c', kind: 'response', id: 1, exchangeId: 'x5', ts: 11 })).toMatchObject({
      pair: 6,
      requestMethod: 'tools/call',
    });
  });
});

describe('Correlator: property — random interleavings with colliding ids', () => {
  type Req = { dir: Direction; id: string | number; tag: number };

  it('every response pairs with exactly its own request', () => {
    // Ids drawn from a tiny pool so that 0 / "0" / 1 / "1" collide across directions and types;
    // each (dir, typed id) is used by at most one request at a time (ids unique while in flight).
    const idPool: (string | number)[] = [0, '0', 1, '1', 2, '2', 'a'];
    const arb = fc
      .array(fc.record({ dir: fc.constantFrom<Direction>('c2s', 's2c'), id: fc.constantFrom(...idPool) }), { minLength: 1, maxLength: 40 })
      .chain((reqs) => {
        // Deduplicate (dir, typed id): a sender never reuses an id while it is in flight.
        const seen = new Set<string>();
        const unique: Req[] = [];
        reqs.forEach((r, tag) => {
          const k = `${r.dir}|${typeof r.id}|${r.id}`;
          if (!seen.has(k)) {
            seen.add(k);
            unique.push({ ...r, tag });
          }
        });
        // Each request is followed (later) by its response: an interleaving is a shuffle of
        // 2N events constrained so that a request precedes its response.
        return fc.tuple(fc.constant(unique), fc.array(fc.nat(), { minLength: unique.length * 2, maxLength: unique.length * 2 }));
      });
    fc.assert(
      fc.property(arb, ([reqs, keys]) => {
        // Build an order: sort 2N slots by random keys, then fix so that request i comes before response i.
        const events: { type: 'req' | 'res'; r: Req }[] = [];
        reqs.forEach((r) => {
          events.push({ type: 'req', r }, { type: 'res', r });
        });
        const order = events
          .map((e, i) => ({ e, k: keys[i] * 1000 + i }))
          .sort((a, b) => a.k - b.k)
          .map((x) => x.e);
        // Stable fix-up: a response that comes before its request is moved right after it.
        const placed: typeof events = [];
        const deferred = new Map<Req, (typeof events)[number]>();
        const sent = new Set<Req>();
        for (const e of order) {
          if (e.type === 'res' && !sent.has(e.r)) {
            deferred.set(e.r, e);
            continue;
          }
          placed.push(e);
          if (e.type === 'req') {
            sent.add(e.r);
            const d = deferred.get(e.r);
            if (d) {
              placed.push(d);
              deferred.delete(e.r);
            }
          }
        }
        const c = new Correlator();
        const seqOf = new Map<Req, number>();
        let seq = 0;
        for (const e of placed) {
          seq += 1;
          if (e.type === 'req') {
            const out = c.observe(seq, { sessionId: 's', dir: e.r.dir, kind: 'request', id: e.r.id, method: `m${e.r.tag}`, ts: seq });
            expect(out.issues).toEqual([]);
            seqOf.set(e.r, seq);
          } else {
            const out = c.observe(seq, { sessionId: 's', dir: e.r.dir === 'c2s' ? 's2c' : 'c2s', kind: 'response', id: e.r.id, ts: seq });
            expect(out.issues).toEqual([]);
            expect(out.pair).toBe(seqOf.get(e.r));
            expect(out.requestMethod).toBe(`m${e.r.tag}`);
            expect(out.latencyMs).toBe(seq - seqOf.get(e.r)!);
          }
        }
        expect(c.pendingCount('s')).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it('with ids reused after completion, each response still pairs with the request in flight', () => {
    // A stream of operations per (dir, id) slot: request, then its response, possibly reused later.
    const arb = fc.array(
      fc.record({
        dir: fc.constantFrom<Direction>('c2s', 's2c'),
        id: fc.constantFrom<string | number>(0, '0', 1, '1'),
        answer: fc.boolean(),
      }),
      {
        minLength: 1,
        maxLength: 60,
      },
    );
    fc.assert(
      fc.property(arb, (ops) => {
        const c = new Correlator();
        const inFlight = new Map<string, number>();
        let seq = 0;
        for (const op of ops) {
          const k = `${op.dir}|${typeof op.id}|${op.id}`;
          seq += 1;
          const pendingSeq = inFlight.get(k);
          if (pendingSeq !== undefined && op.answer) {
            const out = c.observe(seq, { sessionId: 's', dir: op.dir === 'c2s' ? 's2c' : 'c2s', kind: 'response', id: op.id, ts: seq });
            expect(out.pair).toBe(pendingSeq);
            expect(out.issues).toEqual([]);
            inFlight.delete(k);
          } else if (pendingSeq === undefined) {
            const out = c.observe(seq, { sessionId: 's', dir: op.dir, kind: 'request', id: op.id, ts: seq });
            expect(out.issues).toEqual([]);
            inFlight.set(k, seq);
          } else {
            // a notification in between changes nothing
            c.observe(seq, { sessionId: 's', dir: op.dir, kind: 'notification', method: 'notifications/message', ts: seq });
          }
          expect(c.pendingCount('s')).toBe(inFlight.size);
        }
      }),
      { numRuns: 300 },
    );
  });
});
