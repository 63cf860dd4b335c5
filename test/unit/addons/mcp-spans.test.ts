/**
 * proxy/addons/telemetry/mcp-spans.ts: stored events → span and metric descriptions. A scripted
 * Streamable HTTP session goes through the real Recorder and store (the builder is fed each
 * committed batch, as the exporter is); the edge cases are fed as events directly.
 */
import { describe, expect, it } from 'vitest';
import type { McpscopeEvent, MessageEvent, SessionInfo } from '../../../proxy/core/model/events.js';
import { createRedactor } from '../../../proxy/recorder/redact/redact.js';
import { McpSpanBuilder, parseTraceparent, type SpanOp } from '../../../proxy/addons/telemetry/mcp-spans.js';
import { PROXY_TOKEN, TARGET, json, setup, sse } from '../../support/recorder-harness.js';

type Start = Extract<SpanOp, { op: 'start' }>;
type End = Extract<SpanOp, { op: 'end' }>;
type Ev = Extract<SpanOp, { op: 'event' }>;
type Metric = Extract<SpanOp, { op: 'metric' }>;

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** A Streamable HTTP session through the real Recorder; returns every op the builder made from the committed batches. */
function scriptedSession(builder = new McpSpanBuilder()) {
  const { w, feed, committed } = setup();
  const sid = 'sess-42';
  const sh = { ...JSON_HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  const x1 = w.xid();
  feed([
    ...w.send(
      x1,
      'POST',
      '/mcp',
      JSON_HEADERS,
      json({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: { sampling: {} }, clientInfo: { name: 'agent', version: '1' } },
      }),
    ),
    ...w.reply(
      x1,
      200,
      { 'content-type': 'application/json', 'mcp-session-id': sid },
      json({
        jsonrpc: '2.0',
        id: 0,
        result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'srv', version: '2' } },
      }),
    ),
  ]);
  const x2 = w.xid();
  feed([...w.send(x2, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', method: 'notifications/initialized' })), ...w.reply(x2, 202, {})]);
  // tools/call with a traceparent, answered on an SSE stream: progress, a log line, a sampling request, the result
  const x3 = w.xid();
  feed([
    ...w.send(
      x3,
      'POST',
      '/mcp',
      sh,
      json({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search', arguments: { q: 'x' }, _meta: { progressToken: 'p', traceparent: TRACEPARENT, tracestate: 'k=v' } },
      }),
    ),
    w.head(x3, 200, { 'content-type': 'text/event-stream' }),
    ...w.chunks(
      x3,
      sse(
        `data: ${json({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 3, message: 'a third' } })}`,
      ) +
        sse(`data: ${json({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working' } })}`) +
        sse(`data: ${json({ jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } })}`),
    ),
  ]);
  const x4 = w.xid();
  feed([
    ...w.send(
      x4,
      'POST',
      '/mcp',
      sh,
      json({ jsonrpc: '2.0', id: 0, result: { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' } }),
    ),
    ...w.reply(x4, 202, {}),
  ]);
  feed([...w.chunks(x3, sse(`data: ${json({ jsonrpc: '2.0', id: 1, result: { content: [], isError: true } })}`)), w.end(x3)]);
  // a call answered with a JSON-RPC error
  const x5 = w.xid();
  feed([
    ...w.send(x5, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 2, method: 'prompts/get', params: { name: 'review' } })),
    ...w.reply(
      x5,
      200,
      { 'content-type': 'application/json' },
      json({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Unknown prompt' } }),
    ),
  ]);
  // a request never answered, then DELETE
  const x6 = w.xid();
  feed([
    ...w.send(x6, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'file:///etc/motd' } })),
    w.head(x6, 200, { 'content-type': 'text/event-stream' }),
  ]);
  const x7 = w.xid();
  feed([...w.send(x7, 'DELETE', '/mcp', { 'mcp-session-id': sid }), ...w.reply(x7, 200, {}), w.end(x6)]);
  const ops: SpanOp[] = [];
  for (const batch of committed) for (const e of batch) builder.feed(e, ops);
  return { ops, builder };
}

const starts = (ops: SpanOp[]) => ops.filter((o): o is Start => o.op === 'start');
const ends = (ops: SpanOp[]) => ops.filter((o): o is End => o.op === 'end');
const startOf = (ops: SpanOp[], name: string) => {
  const s = starts(ops).filter((o) => o.name === name);
  expect(s, name).toHaveLength(1);
  return s[0];
};
const endOf = (ops: SpanOp[], key: string) => {
  const e = ends(ops).filter((o) => o.key === key);
  expect(e, key).toHaveLength(1);
  return e[0];
};

describe('McpSpanBuilder on a recorded session', () => {
  const { ops, builder } = scriptedSession();

  it('starts a span per request named {method} {target}, kind client, and one session span', () => {
    expect(starts(ops).map((s) => [s.name, s.kind])).toEqual([
      ['mcp.session', 'internal'],
      ['initialize', 'client'],
      ['tools/call search', 'client'],
      ['sampling/createMessage', 'client'],
      ['prompts/get review', 'client'],
      ['resources/read', 'client'],
    ]);
  });

  it('gives the conventions’ attributes', () => {
    const call = startOf(ops, 'tools/call search');
    expect(call.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'search',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '1',
      'mcp.session.id': 'sess-42',
      'mcp.protocol.version': '2025-06-18',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'server.address': 'upstream.test',
      'server.port': 80,
      'mcpscope.session': 's1',
      'mcpscope.direction': 'c2s',
    });
    expect(startOf(ops, 'prompts/get review').attributes['gen_ai.prompt.name']).toBe('review');
    const read = startOf(ops, 'resources/read');
    expect(read.attributes['mcp.resource.uri']).toBe('file:///etc/motd');
    expect(read.attributes['gen_ai.tool.name']).toBeUndefined();
    // initialize: the session id came with its answer, so it is added when the span ends.
    const init = startOf(ops, 'initialize');
    expect(init.attributes['mcp.session.id']).toBeUndefined();
    expect(endOf(ops, init.key).attributes['mcp.session.id']).toBe('sess-42');
  });

  it('takes params._meta.traceparent as the remote parent, and links every request to the session span', () => {
    const call = startOf(ops, 'tools/call search');
    expect(call.parent).toEqual({
      remote: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1, traceState: 'k=v' },
    });
    expect(call.links).toEqual([{ key: 's:s1' }]);
    expect(startOf(ops, 'initialize').parent).toBeUndefined();
  });

  it('makes the server→client request a child of the call whose stream carried it', () => {
    const call = startOf(ops, 'tools/call search');
    const sampling = startOf(ops, 'sampling/createMessage');
    expect(sampling.parent).toEqual({ key: call.key });
    expect(sampling.attributes['mcpscope.direction']).toBe('s2c');
    // ended by the client's answer, before the call ends
    const order = ops.map((o) => `${o.op}:${'key' in o ? o.key : ''}`);
    expect(order.indexOf(`end:${sampling.key}`)).toBeLessThan(order.indexOf(`end:${call.key}`));
  });

  it('puts progress and the other notifications of the call’s stream on it as events', () => {
    const call = startOf(ops, 'tools/call search');
    const events = ops.filter((o): o is Ev => o.op === 'event' && o.key === call.key);
    expect(events.map((e) => [e.name, e.attributes])).toEqual([
      ['notifications/progress', { 'mcp.method.name': 'notifications/progress', 'mcpscope.progress': 1, 'mcpscope.progress.total': 3 }],
      ['notifications/message', { 'mcp.method.name': 'notifications/message' }],
    ]);
  });

  it('ends with error.type tool_error for isError, and the JSON-RPC code and message for an error', () => {
    const call = endOf(ops, startOf(ops, 'tools/call search').key);
    expect(call.attributes['error.type']).toBe('tool_error');
    expect(call.error).toEqual({});
    const prompt = endOf(ops, startOf(ops, 'prompts/get review').key);
    expect(prompt.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(prompt.error).toEqual({ message: 'Unknown prompt' });
    expect(endOf(ops, startOf(ops, 'initialize').key).error).toBeUndefined();
  });

  it('ends a request left unanswered when its session ends, then the session span', () => {
    const read = endOf(ops, startOf(ops, 'resources/read').key);
    expect(read.attributes['mcpscope.unfinished']).toBe('session-ended');
    expect(builder.unfinished).toBe(1);
    const session = endOf(ops, 's:s1');
    expect(session.attributes).toMatchObject({
      'mcp.session.id': 'sess-42',
      'mcpscope.close_reason': 'deleted',
      'mcpscope.client.name': 'agent',
      'mcpscope.server.name': 'srv',
    });
    expect(session.error).toBeUndefined();
    expect(ops.indexOf(read)).toBeLessThan(ops.indexOf(session));
    expect(builder.openSpans).toBe(0);
  });

  it('records the operation and session durations, without the session id', () => {
    const metrics = ops.filter((o): o is Metric => o.op === 'metric');
    const client = metrics.filter((m) => m.name === 'mcp.client.operation.duration');
    const server = metrics.filter((m) => m.name === 'mcp.server.operation.duration');
    // initialize, sampling, tools/call, prompts/get (the unanswered read has no duration)
    expect(client.map((m) => m.attributes['mcp.method.name'])).toEqual([
      'initialize',
      'sampling/createMessage',
      'tools/call',
      'prompts/get',
    ]);
    expect(server.map((m) => m.seconds)).toEqual(client.map((m) => m.seconds));
    expect(client.every((m) => m.attributes['mcp.session.id'] === undefined && m.seconds > 0)).toBe(true);
    expect(client[2].attributes).toMatchObject({ 'gen_ai.tool.name': 'search', 'error.type': 'tool_error' });
    expect(client[3].attributes).toMatchObject({
      'gen_ai.prompt.name': 'review',
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
    });
    expect(metrics.filter((m) => m.name === 'mcp.client.session.duration')).toHaveLength(1);
    expect(metrics.filter((m) => m.name === 'mcp.server.session.duration')).toHaveLength(1);
  });

  it('times spans with the wire timestamps', () => {
    const call = startOf(ops, 'tools/call search');
    const end = endOf(ops, call.key);
    expect(end.time).toBeGreaterThan(call.time);
    const m = ops.find((o): o is Metric => o.op === 'metric' && o.attributes['gen_ai.tool.name'] === 'search')!;
    expect(m.seconds).toBeCloseTo((end.time - call.time) / 1000, 9);
  });
});

// ------------------------------------------------------------------ events fed directly

let seq = 0;
function session(over: Partial<SessionInfo> = {}): McpscopeEvent {
  return {
    type: 'session',
    seq: ++seq,
    ts: 1000,
    session: {
      id: 's9',
      transport: 'streamable-http',
      target: TARGET,
      startedAt: 1000,
      status: 'open',
      counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 0 },
      ...over,
    },
  };
}
function msg(over: Partial<MessageEvent>): MessageEvent {
  return {
    type: 'message',
    seq: ++seq,
    ts: 1000 + seq,
    sessionId: 's9',
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    jsonrpc: {},
    size: 10,
    hints: [],
    ...over,
  };
}
function request(method: string, params: Record<string, unknown> = {}, over: Partial<MessageEvent> = {}): MessageEvent {
  return msg({
    method,
    id: seq + 1,
    name: typeof params.name === 'string' ? params.name : undefined,
    jsonrpc: { jsonrpc: '2.0', id: seq + 1, method, params },
    ...over,
  });
}
function run(events: McpscopeEvent[], builder = new McpSpanBuilder()): SpanOp[] {
  const ops: SpanOp[] = [];
  for (const e of events) builder.feed(e, ops);
  return ops;
}

describe('McpSpanBuilder, case by case', () => {
  it('reads stdio sessions as network.transport pipe, with no server address', () => {
    const ops = run([session({ transport: 'stdio', target: 'node server.js --key abc' }), request('tools/list', {}, { carrier: 'stdio' })]);
    const s = startOf(ops, 'tools/list');
    expect(s.attributes['network.transport']).toBe('pipe');
    expect(s.attributes['server.address']).toBeUndefined();
    expect(s.attributes['network.protocol.name']).toBeUndefined();
  });

  it('makes no spans for plain HTTP (the `http` bucket) nor for replayed messages', () => {
    expect(run([session({ transport: 'http', id: 's8' })])).toEqual([]);
    const ops = run([session(), request('ping', {}, { replayOf: 3 })]);
    expect(starts(ops).map((s) => s.name)).toEqual(['mcp.session']);
  });

  it('ends a cancelled request with error.type cancelled, its reason as the description', () => {
    const call = request('tools/call', { name: 'slow' });
    const ops = run([
      session(),
      call,
      msg({
        kind: 'notification',
        method: 'notifications/cancelled',
        pair: call.seq,
        jsonrpc: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.id, reason: 'user got bored' } },
      }),
      msg({ kind: 'response', pair: call.seq, dir: 's2c' }), // a late answer changes nothing
    ]);
    const end = endOf(ops, `r:${call.seq}`);
    expect(end.attributes['error.type']).toBe('cancelled');
    expect(end.error).toEqual({ message: 'user got bored' });
  });

  it('ends a cancelled request with what its session learnt meanwhile, as an answered one', () => {
    const init = request('initialize', { protocolVersion: '2025-06-18' });
    const ops = run([
      session(),
      init,
      session({ mcpSessionId: 'sess-7', protocolVersion: '2025-06-18' }),
      msg({
        kind: 'notification',
        method: 'notifications/cancelled',
        pair: init.seq,
        jsonrpc: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: init.id } },
      }),
    ]);
    const end = endOf(ops, `r:${init.seq}`);
    expect(end.attributes).toMatchObject({ 'error.type': 'cancelled', 'mcp.session.id': 'sess-7', 'mcp.protocol.version': '2025-06-18' });
    expect(end.error).toEqual({ message: 'cancelled' });
    const metrics = ops.filter((o): o is Metric => o.op === 'metric');
    expect(metrics.map((m) => m.name)).toEqual(['mcp.client.operation.duration', 'mcp.server.operation.duration']);
    expect(metrics[0].attributes).toMatchObject({
      'mcp.method.name': 'initialize',
      'error.type': 'cancelled',
      'mcp.protocol.version': '2025-06-18',
    });
    expect(metrics[0].attributes['mcp.session.id']).toBeUndefined();
  });

  it('bounds the open spans: past maxOpen the oldest is ended as unfinished and counted', () => {
    const builder = new McpSpanBuilder({ maxOpen: 3 });
    const reqs = [1, 2, 3, 4, 5].map(() => request('ping'));
    const ops = run([session(), ...reqs], builder);
    expect(builder.openSpans).toBe(3);
    expect(builder.unfinished).toBe(2);
    expect(ends(ops).map((e) => [e.key, e.attributes['mcpscope.unfinished']])).toEqual([
      [`r:${reqs[0].seq}`, 'too-many-open-spans'],
      [`r:${reqs[1].seq}`, 'too-many-open-spans'],
    ]);
  });

  it('bounds the sessions too', () => {
    const builder = new McpSpanBuilder({ maxSessions: 2 });
    const ops = run([session({ id: 'a' }), session({ id: 'b' }), session({ id: 'c' })], builder);
    expect(ends(ops).map((e) => [e.key, e.attributes['mcpscope.unfinished']])).toEqual([['s:a', 'too-many-sessions']]);
  });

  it('ends everything open when mcpscope stops', () => {
    const builder = new McpSpanBuilder();
    const ops = run([session(), request('ping')], builder);
    builder.endAll(5000, ops);
    expect(ends(ops).map((e) => [e.key, e.attributes['mcpscope.unfinished']])).toEqual([
      [`r:${seq}`, 'mcpscope-stopped'],
      ['s:s9', 'mcpscope-stopped'],
    ]);
    // no session duration for a session that did not end
    expect(ops.filter((o) => o.op === 'metric')).toEqual([]);
  });

  it('marks a session that ended with an error (expired)', () => {
    const ops = run([session(), session({ status: 'closed', closeReason: 'expired', endedAt: 4000 })]);
    const end = endOf(ops, 's:s9');
    expect(end.attributes['error.type']).toBe('expired');
    expect(end.time).toBe(4000);
    const m = ops.filter((o): o is Metric => o.op === 'metric');
    expect(m.map((x) => [x.name, x.seconds, x.attributes['error.type']])).toEqual([
      ['mcp.client.session.duration', 3, 'expired'],
      ['mcp.server.session.duration', 3, 'expired'],
    ]);
  });

  it('starts a new session span when an expired session is reopened, and spans its requests again', () => {
    const ops = run([
      session(),
      session({ status: 'closed', closeReason: 'expired', endedAt: 4000 }),
      request('ping'),
      session({ startedAt: 1000 }),
      request('tools/list'),
    ]);
    expect(starts(ops).map((s) => s.name)).toEqual(['mcp.session', 'mcp.session', 'tools/list']);
  });

  it('adds no bodies unless asked; with bodies, redacted and bounded', () => {
    const secret = {
      name: 'login',
      arguments: { user: 'ann', password: 'hunter2-secret', note: `x ${PROXY_TOKEN}`, big: 'y'.repeat(10_000) },
    };
    const plain = run([session(), request('tools/call', secret)]);
    expect(Object.keys(startOf(plain, 'tools/call login').attributes).some((k) => k.includes('arguments') || k.includes('body'))).toBe(
      false,
    );

    const redactor = createRedactor({ extraSecrets: [PROXY_TOKEN] });
    const call = request('tools/call', secret);
    const ops = run(
      [
        session(),
        call,
        msg({
          kind: 'response',
          dir: 's2c',
          pair: call.seq,
          jsonrpc: { jsonrpc: '2.0', id: call.id, result: { content: [{ type: 'text', text: 'welcome ann' }] } },
        }),
      ],
      new McpSpanBuilder({ bodies: true, redact: redactor, maxBodyChars: 2000 }),
    );
    const args = String(startOf(ops, 'tools/call login').attributes['gen_ai.tool.call.arguments']);
    expect(args).toContain('"user":"ann"');
    expect(args).not.toContain('hunter2-secret');
    expect(args).not.toContain(PROXY_TOKEN);
    expect(args.length).toBeLessThan(2100);
    expect(args).toMatch(/more characters cut by mcpscope\]$/);
    expect(endOf(ops, `r:${call.seq}`).attributes['gen_ai.tool.call.result']).toBe('{"content":[{"type":"text","text":"welcome ann"}]}');
  });

  it('ends an initialize span at its session’s next upsert, whatever comes between, in whichever slice', () => {
    const builder = new McpSpanBuilder();
    const init = request('initialize', { protocolVersion: '2025-06-18' });
    const first: SpanOp[] = [];
    for (const e of [session(), init, msg({ kind: 'response', pair: init.seq, dir: 's2c' })]) builder.feed(e, first);
    expect(ends(first)).toEqual([]);
    // the exporter drains in slices: the rest arrives with a new ops array, other messages first
    const second: SpanOp[] = [];
    const other = [
      session({ id: 's10' }),
      request('ping', {}, { sessionId: 's10' }),
      msg({ kind: 'notification', method: 'notifications/message', dir: 's2c' }),
    ];
    for (const e of other) builder.feed(e, second);
    expect(ends(second)).toEqual([]);
    builder.feed(session({ mcpSessionId: 'sid-7', protocolVersion: '2025-06-18' }), second);
    const end = endOf(second, `r:${init.seq}`);
    expect(end.attributes['mcp.session.id']).toBe('sid-7');
    expect(end.attributes['mcp.protocol.version']).toBe('2025-06-18');
  });

  it('ends a waiting initialize span when its session closes or mcpscope stops', () => {
    const builder = new McpSpanBuilder();
    const init = request('initialize');
    const ops = run(
      [session(), init, msg({ kind: 'response', pair: init.seq, dir: 's2c' }), request('ping', {}, { sessionId: 's10' })],
      builder,
    );
    builder.endAll(5000, ops);
    expect(ends(ops).map((e) => e.key)[0]).toBe(`r:${init.seq}`);
    expect(endOf(ops, `r:${init.seq}`).attributes['mcpscope.unfinished']).toBeUndefined();
  });

  it('starts a session span for a message whose session upsert it never saw', () => {
    const ops = run([request('ping', {}, { sessionId: 's77' })]);
    expect(starts(ops).map((s) => s.key)).toEqual(['s:s77', `r:${seq}`]);
  });
});

describe('parseTraceparent', () => {
  it('reads W3C traceparent (and tracestate)', () => {
    expect(parseTraceparent(TRACEPARENT)).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
    });
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00', 'a=b')?.traceState).toBe('a=b');
    // a later version may append fields
    expect(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra')?.spanId).toBe('00f067aa0ba902b7');
  });

  it.each([
    ['not a string', 42],
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['version 00 with more fields', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x'],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero span id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['upper case', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01'],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01'],
  ])('refuses %s', (_what, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});
