/**
 * proxy/recorder/store/search.ts: server-side search over a store recorded through the real Recorder
 * (the scripted capture, a session with a spec violation, and generated traffic).
 */
import { describe, expect, it } from 'vitest';
import { recordScriptedCapture, SCRIPTED_TOKEN } from '../../support/scripted-session.js';
import { recordViolatingSession, VIOLATION_RULE } from '../../support/violating-session.js';
import { json, setup } from '../../support/recorder-harness.js';
import { callView } from '../../../proxy/recorder/store/call-view.js';
import { parseSearchQuery, searchMessages, SEARCH_MAX_LIMIT, summarizeMessage } from '../../../proxy/recorder/store/search.js';
import { McpscopeError } from '../../../proxy/core/model/errors.js';

const seqs = (r: { hits: { seq: number }[] }) => r.hits.map((h) => h.seq);

/** `n` pings, each answered, in one session. */
function pings(n: number) {
  const h = setup();
  for (let i = 0; i < n; i++) {
    const x = h.w.xid();
    h.feed([
      ...h.w.send(x, 'POST', '/mcp', { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: i, method: 'ping' })),
      ...h.w.reply(x, 200, { 'content-type': 'application/json', 'mcp-session-id': 'sid-1' }, json({ jsonrpc: '2.0', id: i, result: {} })),
    ]);
  }
  return h.store;
}

describe('searchMessages', () => {
  const { store, streamable, legacy } = recordScriptedCapture();
  const all = store.snapshot().filter((e) => e.type === 'message');

  it('lists every message newest first by default, compactly', () => {
    const r = searchMessages(store);
    expect(seqs(r)).toEqual(
      all
        .map((m) => m.seq)
        .reverse()
        .slice(0, 20),
    );
    expect(r.more).toBe(false);
    expect(r.lastSeq).toBe(store.lastSeq);
    const call = r.hits.find((h) => h.kind === 'response' && h.method === 'tools/call' && h.name === 'echo')!;
    expect(call).toMatchObject({ session: streamable, dir: 's2c', id: 3, exchange: 'x4', latencyMs: 30 });
    expect(call.summary).toBe('s2c response tools/call "echo" id=3 in 30 ms');
    // No payload in a hit, only a bounded preview.
    expect(call).not.toHaveProperty('jsonrpc');
    expect(call.preview!.length).toBeLessThanOrEqual(160);
  });

  it('orders oldest first, pages with since/before, and says when there is more', () => {
    const first = searchMessages(store, { order: 'oldest', limit: 3 });
    expect(seqs(first)).toEqual(all.slice(0, 3).map((m) => m.seq));
    expect(first.more).toBe(true);
    const next = searchMessages(store, { order: 'oldest', limit: 3, since: first.hits[2].seq });
    expect(seqs(next)).toEqual(all.slice(3, 6).map((m) => m.seq));
    const newest = searchMessages(store, { limit: 2 });
    const older = searchMessages(store, { limit: 2, before: newest.hits[1].seq });
    expect(seqs(older)).toEqual(
      all
        .map((m) => m.seq)
        .reverse()
        .slice(2, 4),
    );
  });

  it('filters by session, method, tool, direction and latency', () => {
    expect(new Set(searchMessages(store, { session: legacy }).hits.map((h) => h.session))).toEqual(new Set([legacy]));
    expect(searchMessages(store, { session: 'nope' }).hits).toEqual([]);
    const calls = searchMessages(store, { method: 'tools/call', order: 'oldest' });
    expect(calls.hits.map((h) => `${h.kind}:${h.name}`)).toEqual(['request:echo', 'response:echo', 'request:nope', 'error:nope']);
    expect(searchMessages(store, { tool: 'echo', dir: 'c2s' }).hits.map((h) => h.kind)).toEqual(['request']);
    expect(searchMessages(store, { minLatencyMs: 30 }).hits.map((h) => h.method)).toEqual(['tools/call']);
    expect(searchMessages(store, { method: 'tools/cal' }).hits).toEqual([]);
  });

  it('matches free text literally and without case, in method, name and the JSON', () => {
    expect(searchMessages(store, { text: 'ECHO' }).hits.length).toBeGreaterThanOrEqual(3);
    expect(searchMessages(store, { text: 'unknown tool' }).hits.map((h) => h.kind)).toEqual(['error']);
    expect(searchMessages(store, { text: 'createMessage' }).hits.map((h) => h.dir)).toEqual(['c2s', 's2c']);
    // Regex syntax is plain text: nothing contains these characters, and nothing throws.
    for (const text of ['.*', '(', '[a-z]+', '\\', 'a|b', '^', '$(rm -rf /)']) expect(searchMessages(store, { text }).hits).toEqual([]);
    // The proxy token was redacted before it was stored: it cannot be found.
    expect(searchMessages(store, { text: SCRIPTED_TOKEN }).hits).toEqual([]);
  });

  it('finds failures: JSON-RPC errors, isError results, spec violations, problems', () => {
    expect(searchMessages(store, { errorsOnly: true }).hits.map((h) => h.error?.code)).toEqual([-32602]);
    const v = recordViolatingSession();
    const failures = searchMessages(v.store, { errorsOnly: true, order: 'oldest' });
    expect(failures.hits.map((h) => `${h.kind}:${h.method}`)).toEqual(['request:tools/call', 'response:tools/call']);
    expect(failures.hits[0].violations).toEqual([VIOLATION_RULE]);
    expect(failures.hits[0].summary).toMatch(/1 spec violation$/);
    expect(failures.hits[1].isError).toBe(true);

    const h = setup();
    const x = h.w.xid();
    h.feed([
      ...h.w.send(x, 'POST', '/mcp', { 'content-type': 'application/json' }, '{"jsonrpc":"2.0","id":1,"method":"ping"'),
      ...h.w.reply(x, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 1, result: {} })),
    ]);
    const y = h.w.xid();
    h.feed([
      ...h.w.send(y, 'POST', '/mcp', { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 2, method: 'tools/list' })),
      ...h.w.reply(y, 503, { 'content-type': 'text/plain' }, 'down'),
    ]);
    const unanswered = searchMessages(h.store, { errorsOnly: true, method: 'tools/list' }).hits;
    expect(unanswered.map((m) => [m.kind, m.httpStatus])).toEqual([['request', 503]]);
    expect(unanswered[0].summary).toMatch(/: no JSON-RPC answer, HTTP 503$/);
    const problems = searchMessages(h.store, { errorsOnly: true });
    expect(problems.hits.map((p) => p.kind)).toContain('problem');
    expect(problems.hits.find((p) => p.kind === 'problem')!.summary).toMatch(/^problem invalid-json/);
    // A message filter leaves problems out (they have no method).
    expect(searchMessages(h.store, { errorsOnly: true, method: 'ping' }).hits.every((p) => p.kind !== 'problem')).toBe(true);
  });

  it('a request cancelled before its exchange was refused is cancelled, not failed, as its call view says (call-state.ts)', () => {
    const h = setup();
    const x = h.w.xid();
    h.feed(h.w.send(x, 'POST', '/mcp', { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 7, method: 'tools/list' })));
    const y = h.w.xid();
    h.feed([
      ...h.w.send(
        y,
        'POST',
        '/mcp',
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }),
      ),
      ...h.w.reply(y, 202, {}),
    ]);
    h.feed([h.w.head(x, 500, { 'content-type': 'text/plain' }), ...h.w.chunks(x, 'gone'), h.w.end(x)]);
    const request = [...h.store.history()].find((e) => e.type === 'message' && e.method === 'tools/list')!;
    expect(callView(h.store, String(request.seq)).status).toBe('cancelled');
    for (const order of ['newest', 'oldest'] as const) {
      const hits = searchMessages(h.store, { errorsOnly: true, order }).hits;
      expect(
        hits.filter((m) => m.method === 'tools/list'),
        order,
      ).toEqual([]);
    }
  });

  it('finds the same hits newest first (answers and violations noted on the way) as oldest first (read ahead)', () => {
    // Newest first sees a message's answer and its violations before the message; oldest first
    // reads them ahead. Both must agree, hit for hit, on every kind of failure.
    const v = recordViolatingSession();
    const h = setup();
    const x = h.w.xid();
    h.feed([
      ...h.w.send(x, 'POST', '/mcp', { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 2, method: 'tools/list' })),
      ...h.w.reply(x, 503, { 'content-type': 'text/plain' }, 'down'),
    ]);
    const y = h.w.xid();
    h.feed([
      ...h.w.send(y, 'POST', '/mcp', { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 3, method: 'ping' })),
      ...h.w.reply(y, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 3, result: {} })),
    ]);
    for (const s of [store, v.store, h.store])
      for (const q of [{}, { errorsOnly: true }, { method: 'tools/call' }, { text: 'echo' }, { errorsOnly: true, session: 's1' }]) {
        const newest = searchMessages(s, { ...q, limit: 200 }).hits;
        const oldest = searchMessages(s, { ...q, limit: 200, order: 'oldest' }).hits;
        expect(newest).toEqual([...oldest].reverse());
      }
    // The answered ping is no failure, the unanswered tools/list is (HTTP 503), in both orders.
    expect(searchMessages(h.store, { errorsOnly: true }).hits.map((m) => [m.method, m.httpStatus])).toEqual([['tools/list', 503]]);
    expect(searchMessages(v.store, { errorsOnly: true }).hits.map((m) => m.violations ?? [])).toEqual([[], [VIOLATION_RULE]]);
  });

  it('reads only the events after since: a poll costs what came since, not the whole store', () => {
    const big = pings(100);
    const history = big.history();
    const reads = { n: 0 };
    // The store's array seen through a proxy that counts the events read.
    const counting = new Proxy(history, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads.n += 1;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const spied = Object.assign(Object.create(big) as typeof big, { history: () => counting });
    const since = history[history.length - 8].seq;
    for (const order of ['newest', 'oldest'] as const) {
      for (const q of [{}, { errorsOnly: true }, { method: 'ping' }]) {
        reads.n = 0;
        const r = searchMessages(spied, { ...q, since, order, limit: 200 });
        // A binary search (a few reads) and the 7 events after `since`, once each way (twice oldest first: read ahead).
        expect(reads.n).toBeLessThan(40);
        expect(r).toEqual(searchMessages(big, { ...q, since, order, limit: 200 }));
        expect(r.hits.every((h) => h.seq > since)).toBe(true);
      }
    }
    // Nothing new: an empty answer, at once.
    reads.n = 0;
    expect(searchMessages(spied, { since: big.lastSeq }).hits).toEqual([]);
    expect(reads.n).toBeLessThan(20);
  });

  it('caps the limit', () => {
    const big = pings(120);
    const r = searchMessages(big, { limit: 1e9 });
    expect(r.query.limit).toBe(SEARCH_MAX_LIMIT);
    expect(r.hits).toHaveLength(SEARCH_MAX_LIMIT);
    expect(r.more).toBe(true);
    expect(searchMessages(big, { limit: 0 }).hits).toHaveLength(1);
    expect(searchMessages(big, { limit: 2.7 }).hits).toHaveLength(2);
  });

  it('summarizes a message in one line', () => {
    const progress = all.find((m) => m.method === 'notifications/progress')!;
    expect(summarizeMessage(progress)).toBe(
      `s2c notification notifications/progress: progress 1/2 half (inside request #${progress.parent})`,
    );
  });
});

describe('parseSearchQuery', () => {
  it('reads query-string values', () => {
    expect(
      parseSearchQuery({
        text: 'echo',
        session: 's1',
        method: 'tools/call',
        tool: 'echo',
        dir: 's2c',
        errorsOnly: 'true',
        minLatencyMs: '10',
        since: '4',
        before: '99',
        order: 'oldest',
        limit: '5',
        token: 'ignored',
      }),
    ).toEqual({
      text: 'echo',
      session: 's1',
      method: 'tools/call',
      tool: 'echo',
      dir: 's2c',
      errorsOnly: true,
      minLatencyMs: 10,
      since: 4,
      before: 99,
      order: 'oldest',
      limit: 5,
    });
    expect(parseSearchQuery({ errorsOnly: '0', text: '' })).toEqual({ errorsOnly: false });
    expect(parseSearchQuery({})).toEqual({});
  });

  it('refuses bad values in plain words', () => {
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ dir: 'up' }, /dir must be c2s/],
      [{ limit: 'ten' }, /limit must be a number of at least 1/],
      [{ limit: '0' }, /limit must be a number of at least 1/],
      [{ minLatencyMs: '-1' }, /minLatencyMs must be a number/],
      [{ since: 'NaN' }, /since must be a number/],
      [{ order: 'random' }, /order must be newest or oldest/],
      [{ errorsOnly: 'yes' }, /errorsOnly must be true or false/],
      [{ method: ['a', 'b'] }, /method must be given once/],
      [{ text: 'x'.repeat(501) }, /at most 500/],
      [{ regex: '.*' }, /Unknown search parameter "regex"/],
      [{ q: 'x' }, /Unknown search parameter "q"/],
    ];
    for (const [params, message] of bad) {
      expect(() => parseSearchQuery(params)).toThrow(McpscopeError);
      expect(() => parseSearchQuery(params)).toThrow(message);
    }
  });
});
