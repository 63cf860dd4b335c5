/**
 * The recorder driven without sockets: scripted WireRecord sequences (as the proxy's capture
 * hook would push them, chunked at awkward places) → events in an EventStore.
 */
import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { CaptureQueue } from '../../../proxy/wire/capture/capture-queue.js';
import {
  TARGET,
  ORIGIN,
  PROXY_TOKEN,
  enc,
  json,
  setup,
  messages,
  problems,
  sseEvents,
  logs,
  sessionOf,
  exchangeOf,
  codes,
  sse,
  violations,
} from '../../support/recorder-harness.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: { sampling: {}, elicitation: {} },
    clientInfo: { name: 'test-client', version: '1.0.0', title: 'Test Client' },
  },
};
const INIT_RESULT = {
  jsonrpc: '2.0',
  id: 0,
  result: {
    protocolVersion: '2025-06-18',
    capabilities: { tools: { listChanged: true } },
    serverInfo: { name: 'test-server', version: '2.0.0', title: 'Test Server', extra: 'dropped' },
    instructions: 'Use the echo tool.',
  },
};

describe('Recorder: Streamable HTTP session', () => {
  function streamableSession() {
    const { store, w, feed, committed } = setup();
    const sid = 'f3b1c2d4-sess';
    const sh = { ...JSON_HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };

    // 1. initialize: the session id is assigned on the response.
    const x1 = w.xid();
    const initBody = json(INIT);
    feed([
      ...w.send(
        x1,
        'POST',
        '/mcp',
        { ...JSON_HEADERS, authorization: 'Bearer sk-live-secret-abc', 'x-mcpscope-token': PROXY_TOKEN },
        initBody,
        [1, 13, 14, 60],
      ),
      ...w.reply(x1, 200, { 'content-type': 'application/json; charset=utf-8', 'mcp-session-id': sid }, json(INIT_RESULT), [2, 40]),
    ]);
    // 2. notifications/initialized → 202
    const x2 = w.xid();
    feed([...w.send(x2, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', method: 'notifications/initialized' })), ...w.reply(x2, 202, {})]);

    // 3. tools/call answered on an SSE stream carrying progress and a sampling request (server id 0).
    const x3 = w.xid();
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'héllo' }, _meta: { progressToken: 'pt-1' } },
    };
    feed([
      ...w.send(x3, 'POST', '/mcp', sh, json(call), [5, 31]),
      w.head(x3, 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }),
    ]);
    const stream1 =
      sse(
        'id: ev1\nevent: message\ndata: ' +
          json({
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: 'pt-1', progress: 1, total: 4, message: 'quarter' },
          }),
      ) +
      sse('id: ev2\ndata: ' + json({ jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: { messages: [], maxTokens: 10 } }));
    // awkward cuts: inside "data:", right after the first blank-line LF, inside the JSON
    feed(w.chunks(x3, stream1, [3, 11, 30, stream1.indexOf('\n\n') + 1, stream1.length - 5]));

    // 4. while the stream is open the client POSTs its sampling reply (client response id 0) → 202
    const x4 = w.xid();
    const samplingReply = { jsonrpc: '2.0', id: 0, result: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' } };
    feed([...w.send(x4, 'POST', '/mcp', sh, json(samplingReply), [7]), ...w.reply(x4, 202, {})]);

    // 5. the final response ends the stream
    const final = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'héllo' }] } };
    const stream2 = sse('id: ev3\ndata: ' + json(final));
    const e = enc(stream2);
    feed([...w.chunks(x3, e, [e.indexOf(0xc3) + 1]), w.end(x3)]); // split inside "é"

    // 6. GET standalone stream: keep-alive comment, priming event, a list_changed notification
    const x5 = w.xid();
    feed([
      ...w.send(x5, 'GET', '/mcp', { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' }),
      w.head(x5, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(
        x5,
        ': keepalive\n\nid: p1\nretry: 1500\ndata:\n\n' +
          sse('data: ' + json({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })),
        [1, 12, 13],
      ),
    ]);

    // 7. DELETE closes the session (the GET stream then ends)
    const x6 = w.xid();
    feed([...w.send(x6, 'DELETE', '/mcp', { 'mcp-session-id': sid }), ...w.reply(x6, 200, {}), w.end(x5)]);
    return { store, committed, sid, ids: { x1, x2, x3, x4, x5, x6 }, initBody };
  }

  it('records the session with peer infos, versions, capabilities, counts and the DELETE close', () => {
    const { store, sid } = streamableSession();
    expect(store.sessions.size).toBe(1);
    expect(sessionOf(store)).toEqual({
      id: 's1',
      transport: 'streamable-http',
      target: TARGET,
      mcpSessionId: sid,
      protocolVersion: '2025-06-18',
      clientInfo: { name: 'test-client', version: '1.0.0', title: 'Test Client' },
      serverInfo: { name: 'test-server', version: '2.0.0', title: 'Test Server' },
      clientCapabilities: { sampling: {}, elicitation: {} },
      serverCapabilities: { tools: { listChanged: true } },
      instructions: 'Use the echo tool.',
      startedAt: 1010,
      endedAt: expect.any(Number),
      status: 'closed',
      closeReason: 'deleted',
      // init req/res, initialized, tools/call, progress, sampling req, sampling reply, final, list_changed
      counts: { messages: 9, requests: 3, pending: 0, errors: 0, exchanges: 6 },
    });
    expect(problems(store)).toEqual([]);
  });

  it('emits every message in wire order with direction, kind and carrier', () => {
    const { store, ids } = streamableSession();
    expect(messages(store).map((m) => [m.exchangeId, m.dir, m.kind, m.method, m.carrier, m.id])).toEqual([
      [ids.x1, 'c2s', 'request', 'initialize', 'post-body', 0],
      [ids.x1, 's2c', 'response', 'initialize', 'post-json', 0],
      [ids.x2, 'c2s', 'notification', 'notifications/initialized', 'post-body', undefined],
      [ids.x3, 'c2s', 'request', 'tools/call', 'post-body', 1],
      [ids.x3, 's2c', 'notification', 'notifications/progress', 'post-sse', undefined],
      [ids.x3, 's2c', 'request', 'sampling/createMessage', 'post-sse', 0],
      [ids.x4, 'c2s', 'response', 'sampling/createMessage', 'post-body', 0],
      [ids.x3, 's2c', 'response', 'tools/call', 'post-sse', 1],
      [ids.x5, 's2c', 'notification', 'notifications/tools/list_changed', 'get-sse', undefined],
    ]);
    expect(messages(store).every((m) => m.sessionId === 's1')).toBe(true);
  });

  it("pairs responses, progress and the client's sampling reply (id 0 → the server's request 0, not the client's)", () => {
    const { store } = streamableSession();
    const [initReq, initRes, , call, progress, sampling, reply, final] = messages(store);
    expect(initRes.pair).toBe(initReq.seq);
    // A JSON answer is complete at response-end: request-end → head, 3 chunks, end (+10 ms each)
    expect(initRes.latencyMs).toBe(50);
    expect(call.progressToken).toBe('pt-1');
    expect(call.name).toBe('echo');
    expect(progress).toMatchObject({
      pair: call.seq,
      parent: call.seq,
      progressToken: 'pt-1',
      progress: { progress: 1, total: 4, message: 'quarter' },
    });
    expect(sampling).toMatchObject({ parent: call.seq, id: 0 });
    expect(sampling.pair).toBeUndefined();
    // Both sides used id 0: the client's reply pairs with the server's sampling request.
    expect(reply.pair).toBe(sampling.seq);
    expect(reply.pair).not.toBe(initReq.seq);
    expect(reply.parent).toBe(call.seq);
    expect(reply.latencyMs).toBe(reply.ts - sampling.ts);
    expect(final).toMatchObject({ pair: call.seq, name: 'echo', latencyMs: final.ts - call.ts });
    expect(final.parent).toBeUndefined();
    expect(final.jsonrpc).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'héllo' }] } });
  });

  it('keeps raw text, sizes and SSE locations of the frames', () => {
    const { store, initBody } = streamableSession();
    const [initReq, , , , progress, sampling, , final] = messages(store);
    expect(initReq.raw).toBe(initBody);
    expect(initReq.size).toBe(initBody.length);
    expect(initReq.location).toEqual({ offset: 0, length: initBody.length });
    expect(progress.location).toMatchObject({ offset: 0, eventId: 'ev1', eventType: 'message' });
    expect(sampling.location).toMatchObject({ offset: progress.location!.length, eventId: 'ev2' });
    expect(sampling.location!.eventType).toBeUndefined();
    expect(final.location).toMatchObject({ eventId: 'ev3' });
    // "é" is two bytes: size counts bytes
    expect(final.size).toBe(enc(json({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'héllo' }] } })).length);
  });

  it('records the exchanges: statuses, carriers, types, byte counts, hints and redacted headers', () => {
    const { store, ids, initBody } = streamableSession();
    const x1 = exchangeOf(store, ids.x1);
    expect(x1).toMatchObject({
      sessionId: 's1',
      method: 'POST',
      url: '/mcp',
      upstreamUrl: 'http://upstream.test/mcp',
      status: 200,
      carrier: 'post-json',
      requestType: 'application/json',
      responseType: 'application/json',
      requestBytes: initBody.length,
      responseBytes: json(INIT_RESULT).length,
    });
    expect(x1.requestHeaders.authorization).toBe('Bearer [redacted]');
    expect(x1.requestHeaders['x-mcpscope-token']).toBe('[redacted]');
    expect(JSON.stringify(store.snapshot())).not.toContain('sk-live-secret-abc');
    expect(JSON.stringify(store.snapshot())).not.toContain(PROXY_TOKEN);
    expect(x1.responseHeaders?.['mcp-session-id']).toBe('f3b1c2d4-sess');
    expect(codes(x1.hints)).toContain('session-assigned');
    expect(codes(x1.hints)).toContain('json-response');
    expect(x1.endedAt).toBeGreaterThan(x1.respondedAt!);

    const x2 = exchangeOf(store, ids.x2);
    expect(x2).toMatchObject({ sessionId: 's1', status: 202, requestBytes: 54, responseBytes: 0 });
    expect(x2.carrier).toBeUndefined();
    expect(x2.responsePreview).toBeUndefined();
    expect(codes(x2.hints)).toContain('accepted-202');

    expect(exchangeOf(store, ids.x3)).toMatchObject({ carrier: 'post-sse', responseType: 'text/event-stream', status: 200 });
    expect(codes(exchangeOf(store, ids.x3).hints)).toContain('sse-response');
    expect(codes(exchangeOf(store, ids.x4).hints)).toContain('accepted-202');
    const x5 = exchangeOf(store, ids.x5);
    expect(x5).toMatchObject({ method: 'GET', carrier: 'get-sse', sessionId: 's1' });
    expect(codes(x5.hints)).toContain('standalone-stream');
    expect(codes(exchangeOf(store, ids.x6).hints)).toEqual(expect.arrayContaining(['session-delete', 'session-ended']));
    expect([...store.exchanges.values()].every((x) => x.endedAt !== undefined)).toBe(true);
  });

  it('records non-message SSE blocks: keep-alive comment and priming event', () => {
    const { store, ids } = streamableSession();
    expect(sseEvents(store).map((e) => [e.exchangeId, e.what, e.eventId, e.retry, e.comment])).toEqual([
      [ids.x5, 'comment', undefined, undefined, ' keepalive'],
      [ids.x5, 'priming', 'p1', 1500, undefined],
    ]);
    expect(sseEvents(store)[0]).toMatchObject({
      sessionId: 's1',
      raw: ': keepalive\n\n',
      location: { offset: 0, length: 13 },
      hints: [expect.objectContaining({ code: 'keepalive' })],
    });
  });

  it('commits once per handle() call, and the snapshot holds only the latest session/exchange upserts', () => {
    const { store, committed } = streamableSession();
    expect(committed.length).toBe(8); // one batch per feed() call above
    const snap = store.snapshot();
    expect(snap.filter((e) => e.type === 'session')).toHaveLength(1);
    expect(snap.filter((e) => e.type === 'exchange')).toHaveLength(6);
    const seqs = snap.map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  });
});

describe('Recorder: session lifecycle edge cases', () => {
  it('a 404 to a request with a session id closes the session as expired; the re-initialize starts a new one', () => {
    const { store, w, feed } = setup();
    const x1 = w.xid();
    feed([
      ...w.send(x1, 'POST', '/mcp', JSON_HEADERS, json(INIT)),
      ...w.reply(x1, 200, { 'content-type': 'application/json', 'mcp-session-id': 'old' }, json(INIT_RESULT)),
    ]);
    const x2 = w.xid();
    feed([
      ...w.send(x2, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'old' }, json({ jsonrpc: '2.0', id: 1, method: 'tools/list' })),
      ...w.reply(
        x2,
        404,
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }),
      ),
    ]);
    expect(sessionOf(store)).toMatchObject({ status: 'closed', closeReason: 'expired', counts: { pending: 0 } });
    expect(codes(exchangeOf(store, x2).hints)).toContain('session-expired');
    const err = messages(store).at(-1)!;
    expect(err).toMatchObject({ kind: 'error', id: null, error: { code: -32001, message: 'Session not found' } });
    expect(codes(err.hints)).toContain('error-without-id');
    // the client starts over
    const x3 = w.xid();
    feed([
      ...w.send(x3, 'POST', '/mcp', JSON_HEADERS, json(INIT)),
      ...w.reply(x3, 200, { 'content-type': 'application/json', 'mcp-session-id': 'new' }, json(INIT_RESULT)),
    ]);
    expect(sessionOf(store, 's2')).toMatchObject({ status: 'open', mcpSessionId: 'new' });
    expect(exchangeOf(store, x3).sessionId).toBe('s2');
  });

  it('a session closed as expired by a 404 to its GET is reopened when the server serves it again, and still linted', () => {
    const { store, w, feed } = setup();
    const sh = { ...JSON_HEADERS, 'mcp-session-id': 'sid-9' };
    const x1 = w.xid();
    feed([
      ...w.send(x1, 'POST', '/mcp', JSON_HEADERS, json(INIT)),
      ...w.reply(x1, 200, { 'content-type': 'application/json', 'mcp-session-id': 'sid-9' }, json(INIT_RESULT)),
    ]);
    const add = { name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] } };
    const x2 = w.xid();
    feed([
      ...w.send(x2, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 1, method: 'tools/list' })),
      ...w.reply(x2, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 1, result: { tools: [add] } })),
    ]);
    // a server with no GET route answers the client's GET stream with 404 (it should be 405)
    const x3 = w.xid();
    feed([
      ...w.send(x3, 'GET', '/mcp', { accept: 'text/event-stream', 'mcp-session-id': 'sid-9' }),
      ...w.reply(x3, 404, { 'content-type': 'text/plain' }, 'Cannot GET /mcp'),
    ]);
    expect(sessionOf(store)).toMatchObject({ status: 'closed', closeReason: 'expired' });
    // …and goes on serving the session
    const x4 = w.xid();
    feed([
      ...w.send(
        x4,
        'POST',
        '/mcp',
        sh,
        json({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 'one' } } }),
      ),
      ...w.reply(x4, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 2, result: { content: [] } })),
    ]);
    const session = sessionOf(store);
    expect(session.status).toBe('open');
    expect(session.closeReason).toBeUndefined();
    expect(session.endedAt).toBeUndefined();
    expect(logs(store).map((l) => (l as { text: string }).text)).toContainEqual(expect.stringContaining('mcpscope reopened it'));
    const [call, answer] = messages(store).slice(-2);
    expect(answer.pair).toBe(call.seq);
    // the linter still knows the tools the session listed before the 404
    expect(violations(store).map((p) => p.rule)).toContain('tools/arguments-schema');
    // a session closed by its client's DELETE stays closed whatever follows
    const x5 = w.xid();
    feed([...w.send(x5, 'DELETE', '/mcp', { 'mcp-session-id': 'sid-9' }), ...w.reply(x5, 200, {})]);
    const x6 = w.xid();
    feed([
      ...w.send(x6, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 3, method: 'ping' })),
      ...w.reply(x6, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 3, result: {} })),
    ]);
    expect(sessionOf(store)).toMatchObject({ status: 'closed', closeReason: 'deleted' });
  });

  it('a late answer to a request sent before the 404 does not reopen the expired session', () => {
    const { store, w, feed } = setup();
    const sh = { ...JSON_HEADERS, 'mcp-session-id': 'sid-8' };
    const x1 = w.xid();
    feed([
      ...w.send(x1, 'POST', '/mcp', JSON_HEADERS, json(INIT)),
      ...w.reply(x1, 200, { 'content-type': 'application/json', 'mcp-session-id': 'sid-8' }, json(INIT_RESULT)),
    ]);
    const x2 = w.xid();
    feed(w.send(x2, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } })));
    const x3 = w.xid();
    feed([
      ...w.send(x3, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 2, method: 'ping' })),
      ...w.reply(
        x3,
        404,
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }),
      ),
    ]);
    expect(sessionOf(store)).toMatchObject({ status: 'closed', closeReason: 'expired' });
    feed(w.reply(x2, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 1, result: { content: [] } })));
    expect(sessionOf(store)).toMatchObject({ status: 'closed', closeReason: 'expired' });
    const answer = messages(store).at(-1)!;
    expect(answer.pair).toBe(messages(store).find((m) => m.method === 'tools/call')!.seq);
  });

  it('a reopened session keeps what was in flight at the 404: progress on a call’s stream still pairs', () => {
    const { store, w, feed } = setup();
    const sh = { ...JSON_HEADERS, 'mcp-session-id': 'sid-7' };
    const x1 = w.xid();
    feed([
      ...w.send(x1, 'POST', '/mcp', JSON_HEADERS, json(INIT)),
      ...w.reply(x1, 200, { 'content-type': 'application/json', 'mcp-session-id': 'sid-7' }, json(INIT_RESULT)),
    ]);
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', _meta: { progressToken: 'tok' } } };
    const x2 = w.xid();
    feed([...w.send(x2, 'POST', '/mcp', sh, json(call)), w.head(x2, 200, { 'content-type': 'text/event-stream' })]);
    const x3 = w.xid();
    feed([
      ...w.send(x3, 'GET', '/mcp', { accept: 'text/event-stream', 'mcp-session-id': 'sid-7' }),
      ...w.reply(x3, 404, { 'content-type': 'text/plain' }, 'Cannot GET /mcp'),
    ]);
    const x4 = w.xid();
    feed([
      ...w.send(x4, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 2, method: 'ping' })),
      ...w.reply(x4, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 2, result: {} })),
    ]);
    expect(sessionOf(store).status).toBe('open');
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 1, total: 2 } };
    feed([
      ...w.chunks(x2, sse(`data: ${json(progress)}`)),
      ...w.chunks(x2, sse(`data: ${json({ jsonrpc: '2.0', id: 1, result: { content: [] } })}`)),
      w.end(x2),
    ]);
    const callSeq = messages(store).find((m) => m.method === 'tools/call')!.seq;
    const [p, answer] = messages(store).slice(-2);
    expect(p.pair).toBe(callSeq);
    expect(codes(p.hints)).not.toContain('unknown-progress-token');
    expect(answer.pair).toBe(callSeq);
    expect(sessionOf(store).counts.pending).toBe(0);
  });

  it('a session id seen first mid-session opens a joined-mid-session session', () => {
    const { store, w, feed } = setup();
    const x1 = w.xid();
    feed([
      ...w.send(x1, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'known-later' }, json({ jsonrpc: '2.0', id: 5, method: 'ping' })),
      ...w.reply(x1, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 5, result: {} })),
    ]);
    expect(sessionOf(store)).toMatchObject({
      mcpSessionId: 'known-later',
      status: 'open',
      counts: { messages: 2, requests: 1, pending: 0 },
    });
    expect(logs(store).map((l) => (l as { text: string }).text)).toEqual([expect.stringContaining('after it had started')]);
    expect(messages(store)[1].pair).toBe(messages(store)[0].seq);
  });

  it('an initialize answered with an error status closes its session as initialize-rejected', () => {
    const { store, w, feed } = setup();
    const x1 = w.xid();
    feed([
      ...w.send(x1, 'POST', '/mcp', JSON_HEADERS, json(INIT)),
      ...w.reply(
        x1,
        400,
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', id: 0, error: { code: -32602, message: 'Unsupported protocol version' } }),
      ),
    ]);
    expect(sessionOf(store)).toMatchObject({ status: 'closed', closeReason: 'initialize-rejected', counts: { errors: 1 } });
    const err = messages(store)[1];
    // The server's own error status still pairs the error its body carries.
    expect(err).toMatchObject({ kind: 'error', pair: messages(store)[0].seq });
    expect(codes(err.hints)).not.toContain('unknown-id');
    expect(err.error).toMatchObject({ code: -32602, message: 'Unsupported protocol version' });
    expect((err.jsonrpc as { error: { code: unknown } }).error.code).toBe(-32602); // not redacted
  });

  it('duplicate in-flight ids and unknown response ids are flagged and counted as errors', () => {
    const { store, w, feed } = setup();
    const sh = { ...JSON_HEADERS, 'mcp-session-id': 'S' };
    const x1 = w.xid();
    const x2 = w.xid();
    feed([
      ...w.send(x1, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 7, method: 'tools/list' })),
      ...w.send(x2, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 7, method: 'prompts/list' })),
      ...w.reply(x1, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 8, result: {} })),
    ]);
    const [, dup, unknown] = messages(store);
    expect(codes(dup.hints)).toContain('duplicate-id');
    expect(codes(unknown.hints)).toContain('unknown-id');
    expect(unknown.pair).toBeUndefined();
    // Each POST waits for its own answer: both requests are pending.
    expect(sessionOf(store).counts).toMatchObject({ messages: 3, requests: 2, pending: 2, errors: 2 });
  });
});

describe('Recorder: legacy HTTP+SSE', () => {
  it('matches POSTs to the endpoint the GET stream announced; answers arrive on the GET stream', () => {
    const { store, w, feed } = setup();
    const g = w.xid();
    feed([
      ...w.send(g, 'GET', '/sse', { accept: 'text/event-stream' }),
      w.head(g, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(g, 'event: endpoint\r\ndata: /message?sessionId=abc-123\r\n\r\n', [7, 22]),
    ]);
    const session = sessionOf(store);
    expect(session).toMatchObject({ transport: 'legacy-sse', endpoint: '/message?sessionId=abc-123', status: 'open' });
    expect(sseEvents(store)).toEqual([
      expect.objectContaining({ what: 'endpoint', data: '/message?sessionId=abc-123', exchangeId: g, sessionId: 's1' }),
    ]);
    expect(codes(exchangeOf(store, g).hints)).toContain('legacy-sse-stream');

    const p1 = w.xid();
    feed([
      ...w.send(p1, 'POST', '/message?sessionId=abc-123', { 'content-type': 'application/json' }, json(INIT)),
      ...w.reply(p1, 202, { 'content-type': 'text/plain' }, 'Accepted'),
    ]);
    expect(exchangeOf(store, p1)).toMatchObject({ sessionId: 's1', status: 202, responsePreview: 'Accepted' });
    expect(codes(exchangeOf(store, p1).hints)).toContain('accepted-202-legacy');

    feed(
      w.chunks(
        g,
        'event: message\r\ndata: ' +
          json({ ...INIT_RESULT, result: { ...INIT_RESULT.result, protocolVersion: '2024-11-05' } }) +
          '\r\n\r\n',
        [30],
      ),
    );
    const p2 = w.xid();
    feed([
      ...w.send(
        p2,
        'POST',
        '/message?sessionId=abc-123',
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      ),
      ...w.reply(p2, 202, {}, 'Accepted'),
    ]);
    feed(w.chunks(g, ': ping\r\n\r\nevent: message\r\ndata: ' + json({ jsonrpc: '2.0', id: 1, result: { tools: [] } }) + '\r\n\r\n'));
    // a POST to another endpoint does not join
    const other = w.xid();
    feed([
      ...w.send(
        other,
        'POST',
        '/message?sessionId=zzz',
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      ),
      ...w.reply(other, 404, {}),
    ]);
    feed([w.end(g)]);

    const msgs = messages(store).filter((m) => m.sessionId === 's1');
    expect(msgs.map((m) => [m.dir, m.kind, m.carrier, m.method])).toEqual([
      ['c2s', 'request', 'post-body', 'initialize'],
      ['s2c', 'response', 'legacy-sse', 'initialize'],
      ['c2s', 'request', 'post-body', 'tools/list'],
      ['s2c', 'response', 'legacy-sse', 'tools/list'],
    ]);
    expect(msgs[1].pair).toBe(msgs[0].seq);
    expect(msgs[3].pair).toBe(msgs[2].seq);
    expect(msgs[3].location).toMatchObject({ eventType: 'message' });
    // the legacy session is not a home for id-less POSTs, nor "stateless"
    expect(exchangeOf(store, other).sessionId).toBe('s2');
    expect(sessionOf(store, 's2').grouping).toBe('requests without Mcp-Session-Id');
    expect(sessionOf(store).grouping).toBeUndefined();
    expect(sessionOf(store)).toMatchObject({
      status: 'closed',
      closeReason: 'stream-closed',
      protocolVersion: '2024-11-05',
      clientInfo: { name: 'test-client', version: '1.0.0', title: 'Test Client' },
      serverInfo: { name: 'test-server', version: '2.0.0', title: 'Test Server' },
      counts: { messages: 4, requests: 2, pending: 0, errors: 0, exchanges: 3 },
    });
    expect(sseEvents(store).map((e) => e.what)).toEqual(['endpoint', 'comment']);
  });

  it('an absolute endpoint URL maps by its path and query', () => {
    const { store, w, feed } = setup();
    const g = w.xid();
    feed([
      ...w.send(g, 'GET', '/sse', { accept: 'text/event-stream' }),
      w.head(g, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(g, 'event: endpoint\ndata: http://upstream.test/sse/message?sessionId=9f\n\n'),
    ]);
    expect(sessionOf(store).endpoint).toBe('/sse/message?sessionId=9f');
    const p = w.xid();
    feed([
      ...w.send(
        p,
        'POST',
        '/sse/message?sessionId=9f',
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      ),
      ...w.reply(p, 202, {}),
    ]);
    expect(exchangeOf(store, p).sessionId).toBe('s1');
    // a relative endpoint resolves against the stream URL
    const g2 = w.xid();
    feed([
      ...w.send(g2, 'GET', '/mcp/sse', { accept: 'text/event-stream' }),
      w.head(g2, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(g2, 'event: endpoint\ndata: messages?id=2\n\n'),
    ]);
    expect(sessionOf(store, 's2').endpoint).toBe('/mcp/messages?id=2');
  });

  it('an SSE event of a type MCP does not define is recorded as "other", not parsed', () => {
    const { store, w, feed } = setup();
    const g = w.xid();
    feed([
      ...w.send(g, 'GET', '/sse', { accept: 'text/event-stream' }),
      w.head(g, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(g, 'event: heartbeat\ndata: {"t":1}\n\n'),
    ]);
    expect(sseEvents(store)).toEqual([
      expect.objectContaining({
        what: 'other',
        eventType: 'heartbeat',
        data: '{"t":1}',
        hints: [expect.objectContaining({ code: 'custom-event' })],
      }),
    ]);
    expect(messages(store)).toEqual([]);
    expect(problems(store)).toEqual([]);
  });

  it('a legacy stream broken by the upstream closes the session as stream-broken', () => {
    const { store, w, feed } = setup();
    const g = w.xid();
    feed([
      ...w.send(g, 'GET', '/sse', { accept: 'text/event-stream' }),
      w.head(g, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(g, 'event: endpoint\ndata: /messages/?session_id=ab\n\n'),
    ]);
    feed([{ t: 'abort', xid: g, ts: w.ts(), side: 'upstream', reason: 'socket hang up' }]);
    expect(sessionOf(store)).toMatchObject({ status: 'closed', closeReason: 'stream-broken' });
    expect(exchangeOf(store, g)).toMatchObject({ aborted: 'upstream', error: 'socket hang up' });
  });
});

describe('Recorder: batches', () => {
  it('splits a batch POST and a batch JSON answer into members with positions, pairs and a batch warning', () => {
    const { store, w, feed } = setup();
    const sh = { ...JSON_HEADERS, 'mcp-session-id': 'B' };
    const x = w.xid();
    const body = json([
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
      { jsonrpc: '2.0', id: '1', method: 'prompts/list' },
    ]);
    feed([
      ...w.send(x, 'POST', '/mcp', sh, body, [17]),
      ...w.reply(
        x,
        200,
        { 'content-type': 'application/json' },
        json([
          { jsonrpc: '2.0', id: '1', result: { prompts: [] } },
          { jsonrpc: '2.0', id: 1, result: { tools: [] } },
        ]),
      ),
    ]);
    const m = messages(store);
    expect(m.map((e) => [e.dir, e.kind, e.id, e.batch])).toEqual([
      ['c2s', 'request', 1, { index: 0, size: 3 }],
      ['c2s', 'notification', undefined, { index: 1, size: 3 }],
      ['c2s', 'request', '1', { index: 2, size: 3 }],
      ['s2c', 'response', '1', { index: 0, size: 2 }],
      ['s2c', 'response', 1, { index: 1, size: 2 }],
    ]);
    expect(m[3]).toMatchObject({ pair: m[2].seq, method: 'prompts/list', carrier: 'post-json' });
    expect(m[4]).toMatchObject({ pair: m[0].seq, method: 'tools/list' });
    expect(codes(m[0].hints)).toContain('batch-deprecated');
    expect(codes(m[1].hints)).not.toContain('batch-deprecated');
    expect(m.every((e) => e.raw === undefined)).toBe(true);
    expect(m[0].size).toBe(json({ jsonrpc: '2.0', id: 1, method: 'tools/list' }).length);
    // a batch POST with two requests has no single stream parent
    expect(sessionOf(store).counts).toMatchObject({ messages: 5, requests: 2, pending: 0 });
  });

  it('a batch in one SSE event with an event id: members pair normally; a replay of that event is de-duplicated', () => {
    const { store, w, feed } = setup();
    const sh = { ...JSON_HEADERS, 'mcp-session-id': 'B' };
    const x = w.xid();
    const batch = json([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    feed([
      ...w.send(
        x,
        'POST',
        '/mcp',
        sh,
        json([
          { jsonrpc: '2.0', id: 1, method: 'a' },
          { jsonrpc: '2.0', id: 2, method: 'b' },
        ]),
      ),
      w.head(x, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(x, sse('id: e1\ndata: ' + batch)),
      { t: 'abort', xid: x, ts: w.ts(), side: 'client', reason: 'client went away' },
    ]);
    const r = w.xid();
    feed([
      ...w.send(r, 'GET', '/mcp', { accept: 'text/event-stream', 'mcp-session-id': 'B', 'last-event-id': 'e0' }),
      w.head(r, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(r, sse('id: e1\ndata: ' + batch)),
    ]);
    const m = messages(store);
    expect(m.map((e) => [e.kind, e.id, e.pair, e.replayOf])).toEqual([
      ['request', 1, undefined, undefined],
      ['request', 2, undefined, undefined],
      ['response', 1, m[0].seq, undefined],
      ['response', 2, m[1].seq, undefined],
      ['response', 1, undefined, m[2].seq],
      ['response', 2, undefined, m[3].seq],
    ]);
    expect(sessionOf(store).counts).toMatchObject({ messages: 4, pending: 0, errors: 0 });
  });
});

describe('Recorder: resumption', () => {
  it('a GET with Last-Event-ID resumes the POST stream; replayed events get replayOf and are not counted again', () => {
    const { store, w, feed } = setup();
    const sh = { ...JSON_HEADERS, 'mcp-session-id': 'R' };
    const x = w.xid();
    const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow' } };
    const sampling = {
      jsonrpc: '2.0',
      id: 0,
      method: 'elicitation/create',
      params: { message: 'ok?', requestedSchema: { type: 'object', properties: {} } },
    };
    feed([
      ...w.send(x, 'POST', '/mcp', sh, json(call)),
      w.head(x, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(x, sse('id: ev-1\nretry: 500\ndata:') + sse('id: ev-2\ndata: ' + json(sampling))),
      { t: 'abort', xid: x, ts: w.ts(), side: 'client', reason: 'network change' },
    ]);
    expect(exchangeOf(store, x)).toMatchObject({ aborted: 'client', error: 'network change' });
    expect(codes(exchangeOf(store, x).hints)).toContain('client-closed');

    const g = w.xid();
    feed([
      ...w.send(g, 'GET', '/mcp', { accept: 'text/event-stream', 'mcp-session-id': 'R', 'last-event-id': 'ev-1' }),
      w.head(g, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(
        g,
        sse('id: ev-2\ndata: ' + json(sampling)) + sse('id: ev-3\ndata: ' + json({ jsonrpc: '2.0', id: 3, result: { content: [] } })),
      ),
      w.end(g),
    ]);
    const ex = exchangeOf(store, g);
    expect(ex).toMatchObject({ resumes: x, lastEventId: 'ev-1', carrier: 'get-sse', sessionId: 's1' });
    expect(codes(ex.hints)).toEqual(expect.arrayContaining(['resume-stream', 'resumed']));
    const m = messages(store);
    expect(m.map((e) => [e.exchangeId, e.kind, e.method, e.replayOf])).toEqual([
      [x, 'request', 'tools/call', undefined],
      [x, 'request', 'elicitation/create', undefined],
      [g, 'request', 'elicitation/create', m[1].seq],
      [g, 'response', 'tools/call', undefined],
    ]);
    expect(codes(m[2].hints)).toEqual(['replayed']);
    expect(m[1].parent).toBe(m[0].seq);
    expect(m[3]).toMatchObject({ pair: m[0].seq, carrier: 'get-sse' });
    // the elicitation is still pending: the replay did not add a second pending request
    expect(sessionOf(store).counts).toMatchObject({ messages: 3, requests: 2, pending: 1 });
    expect(sseEvents(store).map((e) => [e.what, e.eventId, e.retry])).toEqual([['priming', 'ev-1', 500]]);
  });
});

describe('Recorder: stateless traffic', () => {
  it('POSTs without session ids are grouped into one session; named 2026 clients get their own group', () => {
    const { store, w, feed } = setup();
    for (const id of [1, 2]) {
      const x = w.xid();
      feed([
        ...w.send(x, 'POST', '/mcp', JSON_HEADERS, json({ jsonrpc: '2.0', id, method: 'tools/list' })),
        ...w.reply(x, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id, result: { tools: [] } })),
      ]);
    }
    const named = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '3' } } },
    });
    const x3 = w.xid();
    feed([
      ...w.send(x3, 'POST', '/mcp', JSON_HEADERS, json(named(1))),
      ...w.reply(x3, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 1, result: {} })),
    ]);
    expect(store.sessions.size).toBe(2);
    expect(sessionOf(store, 's1')).toMatchObject({
      grouping: 'requests without Mcp-Session-Id',
      status: 'open',
      counts: { messages: 4, requests: 2, pending: 0, exchanges: 2 },
    });
    expect(sessionOf(store, 's2')).toMatchObject({ grouping: 'client:agent@3', counts: { messages: 2, requests: 1 } });
    const s1 = messages(store).filter((m) => m.sessionId === 's1');
    expect(s1.map((m) => [m.kind, m.id, m.exchangeId])).toEqual([
      ['request', 1, 'x1'],
      ['response', 1, 'x1'],
      ['request', 2, 'x2'],
      ['response', 2, 'x2'],
    ]);
    expect(s1[1].pair).toBe(s1[0].seq);
    expect(s1[3].pair).toBe(s1[2].seq);
    expect(logs(store)).toHaveLength(2);
  });

  it('an initialize the server gives no session id makes a stateless session that later id-less requests join', () => {
    const { store, w, feed } = setup();
    const x1 = w.xid();
    feed([
      ...w.send(x1, 'POST', '/mcp', JSON_HEADERS, json(INIT)),
      ...w.reply(x1, 200, { 'content-type': 'application/json' }, json(INIT_RESULT)),
    ]);
    const x2 = w.xid();
    feed([
      ...w.send(x2, 'POST', '/mcp', JSON_HEADERS, json({ jsonrpc: '2.0', id: 1, method: 'tools/list' })),
      ...w.reply(x2, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 1, result: {} })),
    ]);
    expect(store.sessions.size).toBe(1);
    expect(sessionOf(store)).toMatchObject({
      grouping: 'no Mcp-Session-Id (stateless server)',
      clientInfo: { name: 'test-client' },
      counts: { messages: 4, exchanges: 2 },
    });
    expect(sessionOf(store).mcpSessionId).toBeUndefined();
  });
});

describe('Recorder: problems', () => {
  it('malformed JSON in a POST becomes an invalid-json problem, and recording goes on', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    const bad = '{"jsonrpc":"2.0","id":1,"method":"tools/list",}';
    feed([
      ...w.send(x, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'M' }, bad, [10]),
      ...w.reply(
        x,
        400,
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
      ),
    ]);
    const [p] = problems(store);
    expect(p).toMatchObject({
      type: 'problem',
      level: 'error',
      code: 'invalid-json',
      sessionId: 's1',
      exchangeId: x,
      raw: bad,
      location: { offset: 0, length: bad.length },
    });
    expect(p.text).toContain('Invalid JSON at position 46');
    const m = messages(store);
    expect(m).toHaveLength(1);
    expect(m[0]).toMatchObject({ kind: 'error', error: { code: -32700, message: 'Parse error' } });
    expect(sessionOf(store).counts).toMatchObject({ messages: 1, errors: 2 });
    // the recorder still works
    const y = w.xid();
    feed([
      ...w.send(
        y,
        'POST',
        '/mcp',
        { ...JSON_HEADERS, 'mcp-session-id': 'M' },
        json({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      ),
      ...w.reply(y, 202, {}),
    ]);
    expect(messages(store)).toHaveLength(2);
  });

  it('a form POST (an OAuth token request) is plain HTTP: a redacted preview in the http bucket of its origin, no message, no problem', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    const form =
      'grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk&client_id=c1&client_secret=s3cr3t&redirect_uri=http%3A%2F%2Flocalhost%2Fcb';
    feed([...w.send(x, 'POST', '/token', { 'content-type': 'application/x-www-form-urlencoded' }, form, [40])]);
    const ex = exchangeOf(store, x);
    expect(ex.requestType).toBe('application/x-www-form-urlencoded');
    expect(ex.requestPreview).toBe(
      'grant_type=authorization_code&code=[redacted]&code_verifier=[redacted]&client_id=c1&client_secret=[redacted]&redirect_uri=http%3A%2F%2Flocalhost%2Fcb',
    );
    expect(ex).toMatchObject({ plain: true, sessionId: 's1' });
    expect(sessionOf(store)).toMatchObject({
      transport: 'http',
      target: 'http://upstream.test',
      grouping: 'HTTP traffic to http://upstream.test',
      counts: { messages: 0, errors: 0, exchanges: 1 },
    });
    expect(messages(store)).toEqual([]);
    expect(problems(store)).toEqual([]);
  });

  it('a JSON body that is not JSON-RPC (an OAuth token response) is plain HTTP: a redacted preview, no problem', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    feed([
      ...w.send(
        x,
        'POST',
        '/token',
        { 'content-type': 'application/x-www-form-urlencoded' },
        'grant_type=refresh_token&refresh_token=old-rt',
      ),
      ...w.reply(
        x,
        200,
        { 'content-type': 'application/json;charset=UTF-8' },
        json({ access_token: 'at-SECRET', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt-SECRET' }),
      ),
    ]);
    expect(problems(store)).toEqual([]);
    expect(exchangeOf(store, x).responsePreview).toBe(
      '{"access_token":"[redacted]","token_type":"Bearer","expires_in":3600,"refresh_token":"[redacted]"}',
    );
    expect(exchangeOf(store, x).requestPreview).toBe('grant_type=refresh_token&refresh_token=[redacted]');
    expect(JSON.stringify(store.snapshot())).not.toMatch(/SECRET|old-rt/);
  });

  it('an upstream-error record ends the exchange with an upstream-unreachable problem', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    feed([
      ...w.send(x, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'U' }, json({ jsonrpc: '2.0', id: 1, method: 'ping' })),
      { t: 'upstream-error', xid: x, ts: w.ts(), code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:9', status: 502 },
    ]);
    expect(exchangeOf(store, x)).toMatchObject({ status: 502, error: 'connect ECONNREFUSED 127.0.0.1:9', endedAt: expect.any(Number) });
    expect(problems(store)).toEqual([
      expect.objectContaining({ code: 'upstream-unreachable', level: 'error', sessionId: 's1', exchangeId: x }),
    ]);
    expect(problems(store)[0].text).toContain('502');
    // the exchange is finished: later records for it are ignored
    feed([w.end(x)]);
    expect(problems(store)).toHaveLength(1);
  });

  it('an upstream-error with code FORBIDDEN is a forbidden problem', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    feed([
      w.request(x, 'POST', '/mcp', { origin: 'http://evil.example' }),
      { t: 'upstream-error', xid: x, ts: w.ts(), code: 'FORBIDDEN', message: 'Origin http://evil.example is not allowed', status: 403 },
    ]);
    expect(problems(store)).toEqual([
      expect.objectContaining({ code: 'forbidden', text: 'Refused by mcpscope: Origin http://evil.example is not allowed' }),
    ]);
  });

  it('an upstream abort mid-SSE-event gives truncated-stream and upstream-reset problems', () => {
    const { store, w, feed } = setup();
    const sh = { ...JSON_HEADERS, 'mcp-session-id': 'A' };
    const x = w.xid();
    const partial = 'data: {"jsonrpc":"2.0","method":"notif';
    feed([
      ...w.send(x, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } })),
      w.head(x, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(
        x,
        sse('data: ' + json({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'a' } })) + partial,
        [20],
      ),
      { t: 'abort', xid: x, ts: w.ts(), side: 'upstream', reason: 'upstream reset the connection' },
    ]);
    expect(messages(store).map((m) => m.method)).toEqual(['tools/call', 'notifications/message']);
    const ps = problems(store);
    expect(ps.map((p) => [p.code, p.level])).toEqual([
      ['truncated-stream', 'warn'],
      ['upstream-reset', 'error'],
    ]);
    const first =
      json({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'a' } }).length + 'data: '.length + 2;
    expect(ps[0]).toMatchObject({ raw: partial, location: { offset: first, length: partial.length } });
    expect(ps[1].text).toContain('upstream reset the connection');
    expect(exchangeOf(store, x)).toMatchObject({ aborted: 'upstream', error: 'upstream reset the connection' });
    expect(sessionOf(store).counts).toMatchObject({ pending: 1, errors: 2 });
  });

  it('a response body larger than maxBodyBytes is a too-large problem with its real size', () => {
    const { store, w, feed } = setup({ maxBodyBytes: 64 });
    const x = w.xid();
    const big = json({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(200) } });
    feed([
      ...w.send(x, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'L' }, json({ jsonrpc: '2.0', id: 1, method: 'ping' })),
      ...w.reply(x, 200, { 'content-type': 'application/json' }, big, [30, 100]),
    ]);
    const [p] = problems(store);
    expect(p).toMatchObject({ code: 'too-large', level: 'warn', raw: big.slice(0, 64) });
    expect(p.text).toContain(`of ${big.length} bytes`);
    expect(exchangeOf(store, x)).toMatchObject({ truncated: true, responseBytes: big.length });
  });

  it('a gzip-encoded JSON answer is decoded for recording', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    const z = gzipSync(Buffer.from(json({ jsonrpc: '2.0', id: 1, result: { ok: true } })));
    feed([
      ...w.send(x, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'Z' }, json({ jsonrpc: '2.0', id: 1, method: 'ping' })),
      ...w.reply(x, 200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, z, [3]),
    ]);
    expect(messages(store)[1]).toMatchObject({
      kind: 'response',
      pair: messages(store)[0].seq,
      jsonrpc: { jsonrpc: '2.0', id: 1, result: { ok: true } },
    });
    expect(exchangeOf(store, x).responseBytes).toBe(z.length);
  });

  it('records for unknown exchanges are ignored; a modification record becomes a modification event', () => {
    const { store, w, feed } = setup();
    feed([w.end('nope'), { t: 'overflow', xid: 'nope', ts: 1, droppedBytes: 5 }]);
    expect(store.size).toBe(0);
    const g = w.xid();
    feed([
      ...w.send(g, 'GET', '/sse', { accept: 'text/event-stream' }),
      {
        t: 'modification',
        xid: g,
        ts: w.ts(),
        what: 'endpoint-rewrite',
        before: 'http://upstream.test/message?sessionId=1',
        after: `${ORIGIN}/message?sessionId=1&t=${PROXY_TOKEN}`,
        text: 'rewritten',
      },
    ]);
    const mod = store.snapshot().find((e) => e.type === 'modification');
    expect(mod).toMatchObject({
      exchangeId: g,
      what: 'endpoint-rewrite',
      before: 'http://upstream.test/message?sessionId=1',
      after: `${ORIGIN}/message?sessionId=1&t=[redacted]`,
      text: 'rewritten',
    });
  });
});

describe('Recorder: capture overflow', () => {
  it('an overflow record marks the exchange truncated, reports capture-overflow, and stops parsing its body', () => {
    const { store, w, feed } = setup();
    const sh = { ...JSON_HEADERS, 'mcp-session-id': 'O' };
    const x = w.xid();
    feed([
      ...w.send(x, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } })),
      w.head(x, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(x, 'data: {"jsonrpc":"2.0","method":"no'),
      { t: 'overflow', xid: x, ts: w.ts(), droppedBytes: 1234 },
      ...w.chunks(x, sse('tifications/message"}') + sse('data: ' + json({ jsonrpc: '2.0', id: 1, result: {} }))),
      w.end(x),
    ]);
    expect(exchangeOf(store, x)).toMatchObject({ truncated: true, endedAt: expect.any(Number) });
    expect(problems(store)).toEqual([expect.objectContaining({ code: 'capture-overflow', level: 'warn', exchangeId: x, sessionId: 's1' })]);
    expect(problems(store)[0].text).toContain('1234 bytes');
    expect(messages(store).map((m) => m.method)).toEqual(['tools/call']);
  });

  it('through a CaptureQueue that overflows, the overflow reaches the recorder before the exchange ends', () => {
    const { store, w, recorder } = setup();
    const q = new CaptureQueue(recorder.handle, { maxQueuedBytes: 100 });
    const x = w.xid();
    const body = json({ jsonrpc: '2.0', id: 1, method: 'ping' });
    for (const r of [
      ...w.send(x, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'Q' }, body),
      w.head(x, 200, { 'content-type': 'application/json' }),
    ])
      q.push(r);
    for (const r of w.chunks(x, json({ jsonrpc: '2.0', id: 1, result: { text: 'y'.repeat(300) } }), [60, 120, 200])) q.push(r);
    q.push(w.end(x));
    q.flush();
    expect(problems(store).map((p) => p.code)).toEqual(['capture-overflow']);
    expect(exchangeOf(store, x).truncated).toBe(true);
    expect(messages(store).map((m) => m.kind)).toEqual(['request']);
  });
});

describe('Recorder: redaction of message content', () => {
  it('redacts secrets inside JSON-RPC messages and drops the raw text of a redacted message', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'login', arguments: { password: 'hunter2', user: 'u' } } };
    feed([...w.send(x, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'P' }, json(call))]);
    const [m] = messages(store);
    expect(m.jsonrpc).toEqual({ ...call, params: { ...call.params, arguments: { password: '[redacted]', user: 'u' } } });
    expect(m.raw).toBeUndefined();
    expect(m.name).toBe('login');
  });

  it('a message keeps its exact frame text up to 256 KiB, not past it', () => {
    const { store, w, feed } = setup();
    const call = (text: string, id: number) =>
      json({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });
    const fits = call('x'.repeat(256 * 1024 - 200), 1);
    const over = call('x'.repeat(256 * 1024), 2);
    const [x, y] = [w.xid(), w.xid()];
    feed([...w.send(x, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'P' }, fits)]);
    feed([...w.send(y, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'P' }, over)]);
    const [a, b] = messages(store);
    expect(a.raw).toBe(fits);
    expect(b.raw).toBeUndefined();
    expect(b.jsonrpc).toEqual(JSON.parse(over));
  });

  it('with showSecrets, headers and messages are kept as they were', () => {
    const { store, w, feed } = setup({ showSecrets: true });
    const x = w.xid();
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'login', arguments: { password: 'hunter2' } } };
    feed([...w.send(x, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'P', authorization: 'Bearer abc' }, json(call))]);
    expect(exchangeOf(store, x).requestHeaders.authorization).toBe('Bearer abc');
    expect(messages(store)[0]).toMatchObject({ jsonrpc: call, raw: json(call) });
  });

  it('a malformed frame is redacted before its problem keeps the first 4 KiB: a token across that edge leaves nothing of itself', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    const token = `ghp_${'A1b2C3d4E5'.repeat(4).slice(0, 36)}`;
    // Not JSON: the preview keeps 4,096 characters, and the token starts 12 before that.
    const bad = `{"jsonrpc":"2.0","note":"${'x'.repeat(4096 - 12 - 26)} ${token}"`;
    feed([...w.send(x, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'P' }, bad)]);
    const [p] = problems(store);
    expect(p.code).toBe('invalid-json');
    expect(p.raw).not.toContain(token.slice(0, 12));
    expect(p.raw).toContain('[redacted]');
  });
});
