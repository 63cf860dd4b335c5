/**
 * The recorder on 2026-07-28 stateless traffic (no Mcp-Session-Id, one POST per request,
 * input_required retry chains, subscriptions/listen, cancellation by closing the stream, the
 * mirrored Mcp-* headers) and on 2025-11-25 tasks, driven by scripted WireRecords.
 */
import { describe, expect, it } from 'vitest';
import type { HeaderMap } from '../../../proxy/wire/capture/wire-records.js';
import { json, setup, messages, sessionOf, exchangeOf, codes, sse } from '../../support/recorder-harness.js';

const V = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientInfo': { name: 'stateless-client', version: '3.1.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};
const H = (method: string, name?: string): HeaderMap => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': V,
  'mcp-method': method,
  ...(name !== undefined ? { 'mcp-name': name } : {}),
});
const JSON_RES = { 'content-type': 'application/json' };

/** One stateless POST answered with one JSON body (a new exchange, as on a new connection). */
function post(ctx: ReturnType<typeof setup>, body: unknown, answer: unknown | undefined, headers: HeaderMap): string {
  const x = ctx.w.xid();
  const recs = ctx.w.send(x, 'POST', '/mcp', headers, json(body));
  ctx.feed(answer === undefined ? recs : [...recs, ...ctx.w.reply(x, 200, JSON_RES, json(answer))]);
  return x;
}

describe('Recorder: 2026-07-28 input_required retry chain, stateless', () => {
  function chain() {
    const ctx = setup();
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: META, name: 'deploy', arguments: { env: 'prod' } } };
    const ir = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'input_required',
        inputRequests: {
          login: {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: 'GitHub user?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
            },
          },
        },
        requestState: 'opaque-state-1',
      },
    };
    const retry = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: {
        _meta: META,
        name: 'deploy',
        arguments: { env: 'prod' },
        inputResponses: { login: { action: 'accept', content: { name: 'octocat' } } },
        requestState: 'opaque-state-1',
      },
    };
    const done = { jsonrpc: '2.0', id: 2, result: { resultType: 'complete', content: [{ type: 'text', text: 'deployed' }] } };
    // An unrelated stateless request of the same client in between, on its own POST.
    const list = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: META } };
    const listed = { jsonrpc: '2.0', id: 7, result: { resultType: 'complete', tools: [] } };
    const xs = [
      post(ctx, call, ir, H('tools/call', 'deploy')),
      post(ctx, list, listed, H('tools/list')),
      post(ctx, retry, done, H('tools/call', 'deploy')),
    ];
    return { ...ctx, xs };
  }

  it('puts every POST into one session grouped by client identity, learning version and client from _meta', () => {
    const { store, xs } = chain();
    expect([...store.sessions.keys()]).toEqual(['s1']);
    const s = sessionOf(store);
    expect(s.mcpSessionId).toBeUndefined();
    expect(s.grouping).toBe('client:stateless-client@3.1.0');
    expect(s.protocolVersion).toBe(V);
    expect(s.clientInfo).toEqual({ name: 'stateless-client', version: '3.1.0' });
    expect(s.counts.exchanges).toBe(3);
    expect(s.counts.pending).toBe(0);
    for (const x of xs) expect(exchangeOf(store, x).sessionId).toBe('s1');
  });

  it('links the retry to the first attempt and ends the chain on the final response', () => {
    const { store } = chain();
    const ms = messages(store);
    const [first, interim, , , retry, final] = ms;
    expect(first.kind).toBe('request');
    expect(first.chain).toBeUndefined();
    expect(interim).toMatchObject({ kind: 'response', pair: first.seq, chain: { root: first.seq, attempt: 1, step: 'input-required' } });
    expect(codes(interim.hints)).toContain('input-required');
    expect(retry).toMatchObject({ kind: 'request', id: 2, chain: { root: first.seq, prev: first.seq, attempt: 2 } });
    expect(codes(retry.hints)).toEqual(expect.arrayContaining(['input-retry', 'retry-of']));
    expect(final).toMatchObject({
      kind: 'response',
      pair: retry.seq,
      name: 'deploy',
      chain: { root: first.seq, prev: first.seq, attempt: 2, step: 'final' },
    });
    // The unrelated call is no part of it.
    expect(ms.filter((m) => m.method === 'tools/list').every((m) => m.chain === undefined)).toBe(true);
  });

  it('flags Mcp-Method / Mcp-Name headers that disagree with the body, and accepts base64-encoded names', () => {
    const ctx = setup();
    const body = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { _meta: META, name } });
    const ok = (id: number) => ({ jsonrpc: '2.0', id, result: { resultType: 'complete', content: [] } });
    const good = post(ctx, body(1, 'héllo'), ok(1), H('tools/call', `=?base64?${Buffer.from('héllo').toString('base64')}?=`));
    const badName = post(ctx, body(2, 'deploy'), ok(2), H('tools/call', 'destroy'));
    const badMethod = post(ctx, body(3, 'deploy'), ok(3), H('tools/list', 'deploy'));
    const missing = post(ctx, body(4, 'deploy'), ok(4), {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V,
    });
    const badVersion = post(ctx, body(5, 'deploy'), ok(5), { ...H('tools/call', 'deploy'), 'mcp-protocol-version': '2025-11-25' });
    expect(codes(exchangeOf(ctx.store, good).hints)).not.toContain('header-mismatch');
    expect(exchangeOf(ctx.store, badName).hints.find((h) => h.code === 'header-mismatch')?.text).toContain('Mcp-Name');
    expect(exchangeOf(ctx.store, badMethod).hints.find((h) => h.code === 'header-mismatch')?.text).toContain('Mcp-Method');
    expect(codes(exchangeOf(ctx.store, missing).hints)).toEqual(expect.arrayContaining(['missing-mcp-method', 'missing-mcp-name']));
    expect(exchangeOf(ctx.store, badVersion).hints.find((h) => h.code === 'header-mismatch')?.text).toContain('MCP-Protocol-Version');
  });
});

describe('Recorder: 2026-07-28 subscriptions/listen and cancellation by closing the stream', () => {
  function listen(ctx: ReturnType<typeof setup>) {
    const x = ctx.w.xid();
    const req = {
      jsonrpc: '2.0',
      id: 'L1',
      method: 'subscriptions/listen',
      params: { _meta: META, notifications: { toolsListChanged: true } },
    };
    ctx.feed([
      ...ctx.w.send(x, 'POST', '/mcp', H('subscriptions/listen'), json(req)),
      ctx.w.head(x, 200, { 'content-type': 'text/event-stream' }),
    ]);
    ctx.feed(
      ctx.w.chunks(
        x,
        sse(
          'data: ' +
            json({
              jsonrpc: '2.0',
              method: 'notifications/subscriptions/acknowledged',
              params: { notifications: { toolsListChanged: true } },
            }),
        ) +
          sse(
            'data: ' +
              json({
                jsonrpc: '2.0',
                method: 'notifications/tools/list_changed',
                params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'L1' } },
              }),
          ),
      ),
    );
    return x;
  }

  it("parents the stream's notifications under the listen request and records the client ending it", () => {
    const ctx = setup();
    const x = listen(ctx);
    const ms = messages(ctx.store);
    const req = ms[0];
    expect(req.method).toBe('subscriptions/listen');
    expect(codes(req.hints)).toContain('subscriptions-listen');
    expect(ms.slice(1).map((m) => [m.method, m.parent, m.carrier])).toEqual([
      ['notifications/subscriptions/acknowledged', req.seq, 'post-sse'],
      ['notifications/tools/list_changed', req.seq, 'post-sse'],
    ]);
    expect(exchangeOf(ctx.store, x).listen).toBe(req.seq);
    expect(sessionOf(ctx.store).counts.pending).toBe(1);
    ctx.feed([{ t: 'abort', xid: x, ts: ctx.w.ts(), side: 'client', reason: 'client went away' }]);
    const ex = exchangeOf(ctx.store, x);
    expect(ex.listenEnded).toBe('client');
    expect(ex.endedAt).toBeDefined();
    expect(codes(ex.hints)).toContain('listen-ended');
    expect(codes(ex.hints)).not.toContain('stream-close-cancels');
    expect(sessionOf(ctx.store).counts.pending).toBe(0);
  });

  it('records a server ending the listen stream', () => {
    const ctx = setup();
    const x = listen(ctx);
    ctx.feed([ctx.w.end(x)]);
    const ex = exchangeOf(ctx.store, x);
    expect(ex.listenEnded).toBe('server');
    expect(ex.hints.find((h) => h.code === 'listen-ended')?.text).toContain('server ended');
    expect(sessionOf(ctx.store).counts.pending).toBe(0);
  });

  it("a 2026-07-28 client closing a pending request's stream cancels that request", () => {
    const ctx = setup();
    const x = ctx.w.xid();
    const call = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { _meta: META, name: 'slow' } };
    ctx.feed([
      ...ctx.w.send(x, 'POST', '/mcp', H('tools/call', 'slow'), json(call)),
      ctx.w.head(x, 200, { 'content-type': 'text/event-stream' }),
    ]);
    expect(sessionOf(ctx.store).counts.pending).toBe(1);
    ctx.feed([{ t: 'abort', xid: x, ts: ctx.w.ts(), side: 'client', reason: 'client went away' }]);
    const ex = exchangeOf(ctx.store, x);
    const req = messages(ctx.store)[0];
    expect(ex.cancels).toEqual([req.seq]);
    expect(ex.hints.find((h) => h.code === 'stream-close-cancels')?.text).toContain('cancels the request');
    expect(sessionOf(ctx.store).counts.pending).toBe(0);
  });

  it('an earlier-version client closing the stream does not cancel (a disconnect is not a cancellation there)', () => {
    const ctx = setup();
    const x = ctx.w.xid();
    const call = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'slow' } };
    ctx.feed([
      ...ctx.w.send(x, 'POST', '/mcp', { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' }, json(call)),
      ctx.w.head(x, 200, { 'content-type': 'text/event-stream' }),
      { t: 'abort', xid: x, ts: ctx.w.ts(), side: 'client', reason: 'client went away' },
    ]);
    const ex = exchangeOf(ctx.store, x);
    expect(ex.cancels).toBeUndefined();
    expect(codes(ex.hints)).not.toContain('stream-close-cancels');
    expect(sessionOf(ctx.store).counts.pending).toBe(1);
  });

  it('a request answered before the client closed is not cancelled', () => {
    const ctx = setup();
    const x = ctx.w.xid();
    const call = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { _meta: META, name: 'quick' } };
    ctx.feed([
      ...ctx.w.send(x, 'POST', '/mcp', H('tools/call', 'quick'), json(call)),
      ctx.w.head(x, 200, { 'content-type': 'text/event-stream' }),
      ...ctx.w.chunks(x, sse('data: ' + json({ jsonrpc: '2.0', id: 9, result: { resultType: 'complete', content: [] } }))),
      { t: 'abort', xid: x, ts: ctx.w.ts(), side: 'client', reason: 'client went away' },
    ]);
    expect(exchangeOf(ctx.store, x).cancels).toBeUndefined();
  });
});

describe('Recorder: 2025-11-25 tasks', () => {
  it('links tasks/get polling, the status notification and late progress to the task-creating request', () => {
    const ctx = setup();
    const sid = 'sess-tasks';
    const sh = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-11-25',
    };
    const xi = ctx.w.xid();
    ctx.feed([
      ...ctx.w.send(
        xi,
        'POST',
        '/mcp',
        { 'content-type': 'application/json' },
        json({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
        }),
      ),
      ...ctx.w.reply(
        xi,
        200,
        { ...JSON_RES, 'mcp-session-id': sid },
        json({
          jsonrpc: '2.0',
          id: 0,
          result: { protocolVersion: '2025-11-25', capabilities: { tasks: {} }, serverInfo: { name: 's', version: '1' } },
        }),
      ),
    ]);
    // GET stream for notifications that outlive the POST.
    const xg = ctx.w.xid();
    ctx.feed([ctx.w.request(xg, 'GET', '/mcp', sh), ctx.w.head(xg, 200, { 'content-type': 'text/event-stream' })]);
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'render', arguments: {}, task: { ttl: 60000 }, _meta: { progressToken: 'tok' } },
    };
    post(
      ctx,
      call,
      { jsonrpc: '2.0', id: 1, result: { task: { taskId: 'task-42', status: 'working', createdAt: '2025-11-25T10:00:00Z', ttl: 60000 } } },
      sh,
    );
    post(
      ctx,
      { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 'task-42' } },
      { jsonrpc: '2.0', id: 2, result: { taskId: 'task-42', status: 'working' } },
      sh,
    );
    ctx.feed(
      ctx.w.chunks(
        xg,
        sse(
          'data: ' + json({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 5, total: 10 } }),
        ) +
          sse(
            'data: ' + json({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId: 'task-42', status: 'completed' } }),
          ),
      ),
    );
    post(
      ctx,
      { jsonrpc: '2.0', id: 3, method: 'tasks/result', params: { taskId: 'task-42' } },
      {
        jsonrpc: '2.0',
        id: 3,
        result: { content: [{ type: 'text', text: 'done' }], _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'task-42' } } },
      },
      sh,
    );

    const ms = messages(ctx.store);
    const origin = ms.find((m) => m.kind === 'request' && m.method === 'tools/call')!;
    const link = { id: 'task-42', origin: origin.seq };
    const handle = ms.find((m) => m.kind === 'response' && m.pair === origin.seq)!;
    expect(handle.task).toEqual(link);
    expect(codes(handle.hints)).toContain('task-created');
    const linked = ms.filter((m) => m.seq > handle.seq);
    expect(linked.map((m) => [m.method, m.kind, m.task])).toEqual([
      ['tasks/get', 'request', link],
      ['tasks/get', 'response', link],
      ['notifications/progress', 'notification', link],
      ['notifications/tasks/status', 'notification', link],
      ['tasks/result', 'request', link],
      ['tasks/result', 'response', link],
    ]);
    const progress = linked.find((m) => m.method === 'notifications/progress')!;
    expect(progress.pair).toBe(origin.seq);
    expect(progress.carrier).toBe('get-sse');
  });
});
