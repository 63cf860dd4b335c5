/**
 * Requests answered by HTTP alone (proxy/recorder/http-refusals.ts, the rule in
 * proxy/core/model/call-state.ts): the session counts them as failed, not pending — and only them. The
 * recorder driven by scripted WireRecords.
 */
import { describe, expect, it } from 'vitest';
import { json, messages, sessionOf, setup, sse } from '../../support/recorder-harness.js';
import { callView } from '../../../proxy/recorder/store/call-view.js';
import { exportFixture } from '../../../proxy/files/export/export-fixture.js';
import { importCapture } from '../../../proxy/files/import/import-capture.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const SID = 'sess-refusals';
const SH = { ...JSON_HEADERS, 'mcp-session-id': SID, 'mcp-protocol-version': '2025-11-25' };
const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'refusals', version: '1' } },
};
const INIT_RESULT = {
  jsonrpc: '2.0',
  id: 0,
  result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } },
};
const NOT_INITIALIZED = { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Server not initialized' }, id: null };

/** A session with initialize done (s1). */
function session() {
  const ctx = setup({ lint: 'off' });
  const x = ctx.w.xid();
  ctx.feed([
    ...ctx.w.send(x, 'POST', '/mcp', JSON_HEADERS, json(INIT)),
    ...ctx.w.reply(x, 200, { 'content-type': 'application/json', 'mcp-session-id': SID }, json(INIT_RESULT)),
  ]);
  const y = ctx.w.xid();
  ctx.feed([
    ...ctx.w.send(y, 'POST', '/mcp', SH, json({ jsonrpc: '2.0', method: 'notifications/initialized' })),
    ...ctx.w.reply(y, 202, {}),
  ]);
  return ctx;
}

const call = (id: number, method = 'tools/list') => json({ jsonrpc: '2.0', id, method });

describe('Recorder: requests answered by HTTP alone', () => {
  it('counts the SDK\'s 400 "Server not initialized" (an id-null error, no answer) as failed, not pending', () => {
    const ctx = setup({ lint: 'off' });
    const x = ctx.w.xid();
    ctx.feed([...ctx.w.send(x, 'POST', '/mcp', JSON_HEADERS, call(1))]);
    expect(sessionOf(ctx.store).counts).toMatchObject({ requests: 1, pending: 1 });
    ctx.feed(ctx.w.reply(x, 400, { 'content-type': 'application/json' }, json(NOT_INITIALIZED)));
    expect(sessionOf(ctx.store).counts).toMatchObject({ requests: 1, pending: 0, failed: 1, errors: 1 });
    const req = messages(ctx.store).find((m) => m.kind === 'request')!;
    expect(callView(ctx.store, String(req.seq)).status).toBe('http-error');
  });

  it('counts a 401 without a body, a 404 for an expired session and a request that got no response at all as failed', () => {
    const ctx = session();
    const a = ctx.w.xid();
    ctx.feed([...ctx.w.send(a, 'POST', '/mcp', SH, call(1)), ...ctx.w.reply(a, 401, { 'www-authenticate': 'Bearer' })]);
    expect(sessionOf(ctx.store).counts).toMatchObject({ pending: 0, failed: 1 });
    const b = ctx.w.xid();
    ctx.feed([
      ...ctx.w.send(b, 'POST', '/mcp', SH, call(2)),
      { t: 'abort', xid: b, ts: ctx.w.ts(), side: 'upstream', reason: 'the server reset the connection' },
    ]);
    expect(sessionOf(ctx.store).counts).toMatchObject({ pending: 0, failed: 2 });
    const c = ctx.w.xid();
    ctx.feed([...ctx.w.send(c, 'POST', '/mcp', SH, call(3)), ...ctx.w.reply(c, 404, {})]);
    expect(sessionOf(ctx.store)).toMatchObject({ status: 'closed', closeReason: 'expired', counts: { pending: 0, failed: 3 } });
  });

  it('fails nothing for a 202, a JSON-RPC error in a 4xx (an answer), or a 200 stream still to carry the answer', () => {
    const ctx = session();
    const a = ctx.w.xid();
    // A 4xx whose body is a JSON-RPC error paired with the request: that error is the answer.
    ctx.feed([
      ...ctx.w.send(a, 'POST', '/mcp', SH, call(1)),
      ...ctx.w.reply(
        a,
        400,
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad' } }),
      ),
    ]);
    expect(sessionOf(ctx.store).counts).toMatchObject({ pending: 0, errors: 1 });
    expect(sessionOf(ctx.store).counts.failed).toBeUndefined();
    // A response to a server request, answered 202 Accepted.
    const b = ctx.w.xid();
    ctx.feed([...ctx.w.send(b, 'POST', '/mcp', SH, json({ jsonrpc: '2.0', id: 7, result: {} })), ...ctx.w.reply(b, 202, {})]);
    // A call whose SSE stream is open: pending until its answer comes on it.
    const c = ctx.w.xid();
    ctx.feed([...ctx.w.send(c, 'POST', '/mcp', SH, call(2, 'tools/call')), ctx.w.head(c, 200, { 'content-type': 'text/event-stream' })]);
    expect(sessionOf(ctx.store).counts).toMatchObject({ pending: 1 });
    ctx.feed([...ctx.w.chunks(c, sse('data: ' + json({ jsonrpc: '2.0', id: 2, result: { content: [] } }))), ctx.w.end(c)]);
    expect(sessionOf(ctx.store).counts).toMatchObject({ pending: 0 });
    // An earlier-version stream cut after its head may be resumed: still pending, not failed.
    const d = ctx.w.xid();
    ctx.feed([
      ...ctx.w.send(d, 'POST', '/mcp', SH, call(3, 'tools/call')),
      ctx.w.head(d, 200, { 'content-type': 'text/event-stream' }),
      { t: 'abort', xid: d, ts: ctx.w.ts(), side: 'upstream', reason: 'reset' },
    ]);
    expect(sessionOf(ctx.store).counts).toMatchObject({ pending: 1 });
    expect(sessionOf(ctx.store).counts.failed).toBeUndefined();
  });

  it('a late answer on another stream takes a failed request back out of the failed count', () => {
    const ctx = session();
    const a = ctx.w.xid();
    ctx.feed([...ctx.w.send(a, 'POST', '/mcp', SH, call(5)), ...ctx.w.reply(a, 503, { 'content-type': 'text/plain' }, 'busy')]);
    expect(sessionOf(ctx.store).counts).toMatchObject({ pending: 0, failed: 1 });
    const g = ctx.w.xid();
    ctx.feed([
      ...ctx.w.send(g, 'GET', '/mcp', { accept: 'text/event-stream', 'mcp-session-id': SID }),
      ctx.w.head(g, 200, { 'content-type': 'text/event-stream' }),
      ...ctx.w.chunks(g, sse('data: ' + json({ jsonrpc: '2.0', id: 5, result: { tools: [] } }))),
    ]);
    const live = sessionOf(ctx.store).counts;
    expect(live).toMatchObject({ pending: 0 });
    expect(live.failed).toBeUndefined();
    // Exported and imported again, the session counts the same (no `failed: 0` live, none imported).
    const [imported] = importCapture(JSON.stringify(exportFixture(ctx.store, sessionOf(ctx.store).id))).flatMap((e) =>
      e.type === 'session' ? [e.session] : [],
    );
    expect(imported.counts).toEqual(live);
    const answer = messages(ctx.store).find((m) => m.kind === 'response' && m.id === 5)!;
    expect(answer.pair).toBeDefined();
    expect(answer.hints.map((h) => h.code)).not.toContain('duplicate-response');
  });
});
