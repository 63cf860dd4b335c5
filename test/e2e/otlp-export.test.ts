/**
 * OTLP export (issue 20) end to end: an official-SDK (`@modelcontextprotocol/sdk`) server and client
 * through mcpscope, spans and metrics received by a real OTLP/HTTP receiver (test/support/otlp-receiver.ts,
 * protobuf decoded with OTLP's own messages) — in both encodings, http/protobuf and http/json.
 *
 * Checked: span names, kinds and attributes per the OpenTelemetry MCP semantic conventions; the
 * nested sampling request as a child of the tool call whose stream carried it; progress as span
 * events; JSON-RPC error and `isError` status; a `params._meta.traceparent` joined, and one not
 * sampled (flags 00) not exported; the session span; the duration metrics; bodies only with `bodies`
 * (redacted). Then a collector that refuses connections, one that answers 503, one that does not
 * answer (a full queue drops, counting) and one that takes spans but answers 404 for metrics: calls
 * through the proxy go on as usual, drops are counted in /api/stats, a notice says it once per
 * signal (and once when it is back), and close() takes 2 s at most.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  isInitializeRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { MessageEvent } from '../../proxy/core/model/events.js';
import { resolveOtlpOptions, type OtlpConfig, type TelemetryStats } from '../../proxy/addons/telemetry/otlp-options.js';
import { MCP_DURATION_BUCKETS } from '../../proxy/addons/telemetry/mcp-spans.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { freePort } from '../support/free-port.js';

const TOKEN = 'otlp-export-test-token-0123456789abcdef';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';
/** A caller's trace that is not sampled (traceparent flags 00). */
const UNSAMPLED_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

// ------------------------------------------------------------------ an SDK server with the cases

interface McpTestServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

function toolServer(): Server {
  const server = new Server({ name: 'otlp-test-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: ['work', 'boom', 'flaky', 'echo'].map((name) => ({ name, inputSchema: { type: 'object' as const } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const name = req.params.name;
    if (name === 'work') {
      // Progress, then a nested sampling request, both on this call's POST stream.
      const token = req.params._meta?.progressToken;
      if (token !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } });
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 2, total: 2 } });
      }
      const sample = await extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: '2+2?' } }], maxTokens: 8 },
        },
        CreateMessageResultSchema,
      );
      const text = sample.content.type === 'text' ? sample.content.text : '?';
      return { content: [{ type: 'text', text: `the model said ${text}` }] };
    }
    if (name === 'boom') throw new McpError(ErrorCode.InvalidParams, 'boom: the input makes no sense');
    if (name === 'flaky') return { content: [{ type: 'text', text: 'the backend is down' }], isError: true };
    return { content: [{ type: 'text', text: `echo ${JSON.stringify(req.params.arguments ?? {})}` }] };
  });
  return server;
}

async function startToolServer(): Promise<McpTestServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http: HttpServer = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (!transport && req.method === 'POST' && isInitializeRequest(body)) {
        const t = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID().replace(/-/g, ''),
          onsessioninitialized: (id) => void transports.set(id, t),
        });
        t.onclose = () => t.sessionId && transports.delete(t.sessionId);
        await toolServer().connect(t);
        transport = t;
      }
      if (!transport) {
        res.writeHead(404).end();
        return;
      }
      await transport.handleRequest(req, res, body);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    async close() {
      for (const t of transports.values()) await t.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

async function connectClient(scope: Mcpscope, name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    model: 'test-model',
    content: { type: 'text', text: 'four' },
  }));
  const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
  return { client, transport };
}

async function telemetryOf(scope: Mcpscope): Promise<TelemetryStats | undefined> {
  const res = await fetch(`${scope.ui!.origin}/api/stats`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { telemetry?: TelemetryStats }).telemetry;
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`not met within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The configuration the CLI would resolve from --otlp and these variables (fast batches for tests). */
function config(url: string, env: Record<string, string> = {}, bodies = false): OtlpConfig {
  const c = resolveOtlpOptions({ url, bodies }, { OTEL_BSP_SCHEDULE_DELAY: '20', ...env });
  if (!c) throw new Error('no OTLP configuration');
  return c;
}

let upstream: McpTestServer;
beforeAll(async () => {
  upstream = await startToolServer();
});
afterAll(async () => {
  await upstream?.close();
});

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** A receiver (`prepare` sets its mode) and an mcpscope exporting to it with `env`; the notices it says. Both closed after the test. */
async function exportingTo(env: Record<string, string> = {}, prepare?: (r: OtlpReceiver) => void) {
  const receiver = await startOtlpReceiver();
  cleanups.push(() => receiver.close());
  prepare?.(receiver);
  const notices: string[] = [];
  const scope = await startMcpscope({
    target: upstream.url,
    port: 0,
    uiPort: 0,
    token: TOKEN,
    otlp: config(receiver.url, env),
    onNotice: (line) => notices.push(line),
  });
  cleanups.push(() => scope.close());
  return { receiver, scope, notices };
}

// ------------------------------------------------------------------ started before the UI answers

// First in this file: the SDK is not loaded yet, as in a fresh process.
describe('start order', () => {
  it('has telemetry in /api/stats from the UI’s first answer (a stdio wrapper linking asks then)', async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const uiPort = await freePort();
    let starting = true;
    const first = (async () => {
      while (starting) {
        try {
          const res = await fetch(`http://127.0.0.1:${uiPort}/api/stats`, { headers: { authorization: `Bearer ${TOKEN}` } });
          if (res.ok) return (await res.json()) as { telemetry?: TelemetryStats };
        } catch {
          /* not listening yet */
        }
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return undefined;
    })();
    const scope = await startMcpscope({ uiPort, token: TOKEN, otlp: config(receiver.url) });
    cleanups.push(() => scope.close());
    const stats = await Promise.race([first, new Promise<undefined>((resolve) => setTimeout(resolve, 5_000))]);
    starting = false;
    expect(stats, 'an answer from /api/stats').toBeDefined();
    expect(stats!.telemetry?.endpoint).toBe(`${receiver.url}/v1/traces`);
  });
});

// ------------------------------------------------------------------ the spans of a session

describe.each(['http/protobuf', 'http/json'] as const)('OTLP export over %s', (protocol) => {
  let receiver: OtlpReceiver;
  let scope: Mcpscope;
  let spans: ReceivedSpan[];
  let mcpSessionId: string;
  let protocolVersion: string | undefined;
  let stats: TelemetryStats | undefined;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    scope = await startMcpscope({
      target: upstream.url,
      port: 0,
      uiPort: 0,
      token: TOKEN,
      otlp: config(receiver.url, { OTEL_EXPORTER_OTLP_PROTOCOL: protocol }),
    });
    const { client, transport } = await connectClient(scope, `otlp-${protocol}`);
    const progress: number[] = [];
    const work = await client.callTool({ name: 'work', arguments: {} }, CallToolResultSchema, {
      onprogress: (p) => void progress.push(p.progress),
    });
    expect(JSON.stringify(work.content)).toContain('the model said four');
    expect(progress).toEqual([1, 2]);
    await expect(client.callTool({ name: 'boom', arguments: {} })).rejects.toThrow(/boom/);
    expect((await client.callTool({ name: 'flaky', arguments: {} })).isError).toBe(true);
    await client.callTool({
      name: 'echo',
      arguments: { text: 'joined' },
      _meta: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01`, tracestate: 'congo=t61rcWkgMzE' },
    });
    await client.callTool({
      name: 'echo',
      arguments: { text: 'not sampled' },
      _meta: { traceparent: `00-${UNSAMPLED_TRACE_ID}-${PARENT_SPAN}-00` },
    });
    mcpSessionId = transport.sessionId!;
    protocolVersion = transport.protocolVersion;
    await transport.terminateSession();
    await client.close();
    // The session span ends with the DELETE; everything is batched within OTEL_BSP_SCHEDULE_DELAY (20 ms).
    spans = await receiver.until((r) =>
      r.spans.some((s) => s.name === 'mcp.session') && r.spans.some((s) => s.name === 'tools/call echo') ? r.spans : undefined,
    );
    stats = await telemetryOf(scope);
  });
  afterAll(async () => {
    await scope?.close();
    await receiver?.close();
  });

  const one = (name: string): ReceivedSpan => {
    const found = spans.filter((s) => s.name === name);
    expect(found, `spans named ${name}`).toHaveLength(1);
    return found[0];
  };

  it('arrives in the chosen encoding, from service mcpscope', () => {
    expect(spans.every((s) => s.encoding === (protocol === 'http/json' ? 'json' : 'protobuf'))).toBe(true);
    expect(receiver.requests.find((r) => r.path === '/v1/traces')?.contentType).toBe(
      protocol === 'http/json' ? 'application/json' : 'application/x-protobuf',
    );
    expect(spans[0].resource['service.name']).toBe('mcpscope');
    expect(spans[0].scope).toBe('mcpscope');
  });

  it('names each request span {mcp.method.name} {target}, kind CLIENT, with the conventions’ attributes', () => {
    const names = spans.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'initialize',
        'tools/call work',
        'sampling/createMessage',
        'tools/call boom',
        'tools/call flaky',
        'tools/call echo',
      ]),
    );
    const work = one('tools/call work');
    expect(work.kind).toBe(3);
    expect(work.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'work',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.session.id': mcpSessionId,
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'server.address': '127.0.0.1',
      'server.port': upstream.port,
      'mcpscope.direction': 'c2s',
    });
    expect(typeof work.attributes['jsonrpc.request.id']).toBe('string');
    if (protocolVersion) expect(work.attributes['mcp.protocol.version']).toBe(protocolVersion);
    expect(work.status.code).toBe(0);
    expect(work.attributes['error.type']).toBeUndefined();
    // Bodies are off by default.
    expect(Object.keys(work.attributes).filter((k) => k.includes('arguments') || k.includes('body') || k.includes('result'))).toEqual([]);
    const init = one('initialize');
    expect(init.attributes['mcp.method.name']).toBe('initialize');
    // its answer told the session id and version: the span has them too
    expect(init.attributes['mcp.session.id']).toBe(mcpSessionId);
    expect(init.attributes['gen_ai.tool.name']).toBeUndefined();
  });

  it('times each span from its request to its response on the wire', () => {
    const messages = scope.store.snapshot().filter((e): e is MessageEvent => e.type === 'message');
    const req = messages.find((m) => m.kind === 'request' && m.name === 'work')!;
    const res = messages.find((m) => m.kind === 'response' && m.pair === req.seq)!;
    const work = one('tools/call work');
    const ms = (ns: bigint) => Number(ns / 1000n) / 1000;
    expect(Math.abs(ms(work.startNs) - req.ts)).toBeLessThan(1);
    expect(Math.abs(ms(work.endNs) - res.ts)).toBeLessThan(1);
    expect(work.endNs).toBeGreaterThan(work.startNs);
  });

  it('puts progress on the call as span events', () => {
    const events = one('tools/call work').events.filter((e) => e.name === 'notifications/progress');
    expect(events.map((e) => e.attributes['mcpscope.progress'])).toEqual([1, 2]);
    expect(events.map((e) => e.attributes['mcpscope.progress.total'])).toEqual([2, 2]);
  });

  it('nests the sampling request under the tool call whose stream carried it', () => {
    const work = one('tools/call work');
    const sampling = one('sampling/createMessage');
    expect(sampling.kind).toBe(3);
    expect(sampling.parentSpanId).toBe(work.spanId);
    expect(sampling.traceId).toBe(work.traceId);
    expect(sampling.attributes['mcpscope.direction']).toBe('s2c');
    expect(sampling.startNs >= work.startNs && sampling.endNs <= work.endNs).toBe(true);
  });

  it('sets error status from a JSON-RPC error and from isError', () => {
    const boom = one('tools/call boom');
    expect(boom.status.code).toBe(2);
    expect(boom.status.message).toContain('boom: the input makes no sense');
    expect(boom.attributes['error.type']).toBe(String(ErrorCode.InvalidParams));
    expect(boom.attributes['rpc.response.status_code']).toBe(String(ErrorCode.InvalidParams));
    const flaky = one('tools/call flaky');
    expect(flaky.status.code).toBe(2);
    expect(flaky.attributes['error.type']).toBe('tool_error');
    expect(flaky.attributes['rpc.response.status_code']).toBeUndefined();
  });

  it('joins the trace named by params._meta.traceparent', () => {
    const echo = one('tools/call echo');
    expect(echo.traceId).toBe(TRACE_ID);
    expect(echo.parentSpanId).toBe(PARENT_SPAN);
    expect(echo.traceState).toBe('congo=t61rcWkgMzE');
    // The others start traces of their own.
    expect(one('tools/call work').traceId).not.toBe(TRACE_ID);
    expect(one('tools/call work').parentSpanId).toBe('');
  });

  it('exports no span for a call whose traceparent is not sampled (flags 00), nor counts it as dropped', () => {
    // Batches go out in the order spans end, one at a time: it would have arrived before the session span.
    expect(spans.filter((s) => s.traceId === UNSAMPLED_TRACE_ID)).toEqual([]);
    const recorded = scope.store
      .snapshot()
      .filter(
        (e): e is MessageEvent => e.type === 'message' && e.kind === 'request' && JSON.stringify(e.jsonrpc).includes(UNSAMPLED_TRACE_ID),
      );
    expect(recorded).toHaveLength(1);
    expect(stats?.spansDropped).toBe(0);
  });

  it('exports a span per session, which every request span links to', () => {
    const session = one('mcp.session');
    expect(session.kind).toBe(1);
    expect(session.attributes).toMatchObject({
      'mcp.session.id': mcpSessionId,
      'network.transport': 'tcp',
      'mcpscope.close_reason': 'deleted',
    });
    expect(session.attributes['mcpscope.client.name']).toBe(`otlp-${protocol}`);
    expect(session.attributes['mcpscope.server.name']).toBe('otlp-test-server');
    for (const name of ['initialize', 'tools/call work', 'tools/call echo'])
      expect(one(name).links).toContainEqual({ traceId: session.traceId, spanId: session.spanId });
    expect(session.startNs <= one('initialize').startNs && session.endNs >= one('tools/call echo').endNs).toBe(true);
  });

  it('counts what was exported in /api/stats', () => {
    expect(stats).toMatchObject({ endpoint: `${receiver.url}/v1/traces`, protocol, spansDropped: 0 });
    expect(stats!.spansExported).toBeGreaterThanOrEqual(7);
  });

  it('exports the MCP duration metrics (flushed on close)', async () => {
    await scope.close();
    const metrics = await receiver.until((r) =>
      r.metrics.some((m) => m.name === 'mcp.client.operation.duration') ? r.metrics : undefined,
    );
    for (const name of [
      'mcp.client.operation.duration',
      'mcp.server.operation.duration',
      'mcp.client.session.duration',
      'mcp.server.session.duration',
    ]) {
      const m = metrics.find((x) => x.name === name);
      expect(m, name).toBeDefined();
      expect(m!.unit).toBe('s');
      expect(m!.points[0].explicitBounds).toEqual(MCP_DURATION_BUCKETS);
    }
    const op = metrics.find((m) => m.name === 'mcp.client.operation.duration')!;
    const work = op.points.find((p) => p.attributes['gen_ai.tool.name'] === 'work')!;
    expect(work.count).toBe(1);
    expect(work.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'network.transport': 'tcp', 'server.port': upstream.port });
    expect(work.attributes['mcp.session.id']).toBeUndefined();
    const boom = op.points.find((p) => p.attributes['gen_ai.tool.name'] === 'boom')!;
    expect(boom.attributes['error.type']).toBe(String(ErrorCode.InvalidParams));
    expect(scope.telemetry!.stats()).toMatchObject({ metricExportsFailed: 0 });
    expect(scope.telemetry!.stats().metricExports).toBeGreaterThanOrEqual(1);
  });
});

// ------------------------------------------------------------------ bodies, opted in

describe('--otlp-bodies', () => {
  it('puts the redacted, bounded arguments and result on the tool span (also with --show-secrets)', async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    // --show-secrets: the store keeps the credentials, so only the export's own redaction stands between them and the collector.
    const scope = await startMcpscope({
      target: upstream.url,
      port: 0,
      uiPort: 0,
      token: TOKEN,
      showSecrets: true,
      otlp: config(receiver.url, {}, true),
    });
    cleanups.push(() => scope.close());
    const { client, transport } = await connectClient(scope, 'otlp-bodies');
    cleanups.push(() => client.close());
    await client.callTool({ name: 'echo', arguments: { text: 'visible words', password: 'hunter2-very-secret', note: `token ${TOKEN}` } });
    await client.callTool({ name: 'echo', arguments: { text: 'x'.repeat(20_000) } });
    await transport.terminateSession();
    const echoes = await receiver.until((r) => {
      const e = r.spans.filter((s) => s.name === 'tools/call echo');
      return e.length === 2 ? e : undefined;
    });
    const [first, big] = echoes.sort((a, b) => (a.startNs < b.startNs ? -1 : 1));
    const args = String(first.attributes['gen_ai.tool.call.arguments']);
    expect(args).toContain('visible words');
    expect(args).not.toContain('hunter2-very-secret');
    expect(args).not.toContain(TOKEN);
    expect(String(first.attributes['gen_ai.tool.call.result'])).toContain('visible words');
    expect(String(first.attributes['gen_ai.tool.call.result'])).not.toContain('hunter2-very-secret');
    expect(String(big.attributes['gen_ai.tool.call.arguments']).length).toBeLessThan(8 * 1024 + 100);
    expect(String(big.attributes['gen_ai.tool.call.arguments'])).toMatch(/more characters cut by mcpscope\]$/);
    // initialize is not a tool call: its body under mcpscope's own attribute.
    const init = receiver.spans.find((s) => s.name === 'initialize')!;
    expect(String(init.attributes['mcpscope.request.body'])).toContain('"method":"initialize"');
    expect(String(init.attributes['mcpscope.response.body'])).toContain('otlp-test-server');
  });
});

// ------------------------------------------------------------------ a collector that is not there, or slow

describe('export never holds the traffic', () => {
  async function callMany(scope: Mcpscope, name: string, n: number): Promise<void> {
    const { client, transport } = await connectClient(scope, name);
    for (let i = 0; i < n; i++) {
      const r = await client.callTool({ name: 'echo', arguments: { i } });
      expect(JSON.stringify(r.content)).toContain(`{\\"i\\":${i}}`);
    }
    await transport.terminateSession();
    await client.close();
  }

  it('with the receiver down (connection refused): calls complete, drops are counted, a notice says so once', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const notices: string[] = [];
    const scope = await startMcpscope({
      target: upstream.url,
      port: 0,
      uiPort: 0,
      token: TOKEN,
      otlp: config(dead, { OTEL_EXPORTER_OTLP_TIMEOUT: '300' }),
      onNotice: (line) => notices.push(line),
    });
    cleanups.push(() => scope.close());
    await callMany(scope, 'refused', 10);
    const t = await until('spans counted as dropped', async () => {
      const s = await telemetryOf(scope);
      return s && s.spansDropped >= 10 ? s : undefined;
    });
    expect(t.spansExported).toBe(0);
    expect(t.lastError).toMatch(/^traces: ./);
    expect(t.endpoint).toBe(`${dead}/v1/traces`);
    const down = notices.filter((n) => n.includes('cannot send OpenTelemetry data'));
    expect(down).toHaveLength(1);
    expect(down[0]).toContain(dead);
    const started = Date.now();
    await scope.close();
    // "2 seconds at most" (docs/team-setup.md), with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(3_000);
    // The last collection, sent on close, was lost too: counted.
    expect(scope.telemetry!.stats()).toMatchObject({ metricExports: 0 });
    expect(scope.telemetry!.stats().metricExportsFailed).toBeGreaterThanOrEqual(1);
  });

  it('with the receiver answering 503, then back: a notice each way', async () => {
    const { receiver, scope, notices } = await exportingTo({ OTEL_EXPORTER_OTLP_TIMEOUT: '300' }, (r) => r.setMode('unavailable'));
    await callMany(scope, 'unavailable', 3);
    await until('the down notice', () => notices.some((n) => n.includes('cannot send OpenTelemetry data')));
    receiver.setMode('ok');
    await callMany(scope, 'back', 3);
    await until('the back notice', () => notices.some((n) => n.includes('works again')));
    expect(notices.filter((n) => n.includes('cannot send'))).toHaveLength(1);
    expect(notices.filter((n) => n.includes('works again'))).toHaveLength(1);
    const t = (await telemetryOf(scope))!;
    expect(t.spansDropped).toBeGreaterThan(0);
    expect(t.spansExported).toBeGreaterThan(0);
  });

  it('with a receiver that does not answer: calls complete at their usual pace and close() does not hang', async () => {
    const { receiver, scope } = await exportingTo({}, (r) => r.setMode('slow'));
    await callMany(scope, 'slow', 20);
    // The exporter is waiting on the receiver: nothing was accepted, nothing counted as exported.
    await receiver.until((r) => r.requests.some((q) => q.path === '/v1/traces'));
    expect((await telemetryOf(scope))!.spansExported).toBe(0);
    const started = Date.now();
    await scope.close();
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('with a receiver that does not answer and a small queue: what does not fit is dropped and counted, the calls complete', async () => {
    const { scope } = await exportingTo({ OTEL_BSP_MAX_QUEUE_SIZE: '4', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2' }, (r) => r.setMode('slow'));
    // One batch (2 spans) is held by the receiver, 4 wait in the queue: the rest of 12 calls' spans cannot.
    await callMany(scope, 'queue-full', 12);
    // At least 12 calls + initialize − 2 held − 4 queued (they are counted as the builder catches up).
    const t = await until('spans dropped', async () => {
      const s = await telemetryOf(scope);
      return s && s.spansDropped >= 12 + 1 - 2 - 4 ? s : undefined;
    });
    expect(t.spansExported).toBe(0);
    const started = Date.now();
    await scope.close();
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('with a collector that takes spans but answers 404 for metrics: one notice, for the metrics, and none flipping', async () => {
    const { receiver, scope, notices } = await exportingTo({ OTEL_METRIC_EXPORT_INTERVAL: '100' }, (r) => r.notFound.add('/v1/metrics'));
    // Rounds in which spans are taken after a metric export failed (and the other way round).
    for (let round = 0; round < 3; round++) {
      const before = scope.telemetry!.stats();
      await callMany(scope, `metrics-404-${round}`, 2);
      await until('spans taken and a metric export refused', () => {
        const now = scope.telemetry!.stats();
        return now.spansExported > before.spansExported && now.metricExportsFailed! > before.metricExportsFailed!;
      });
    }
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(`cannot send OpenTelemetry data to ${receiver.url}/v1/metrics`);
    expect(notices[0]).toContain('metric data is dropped');
    const t = (await telemetryOf(scope))!;
    expect(t).toMatchObject({ spansDropped: 0, metricExports: 0 });
    expect(t.spansExported).toBeGreaterThanOrEqual(6);
    expect(t.lastError).toBe('metrics: Not Found');
  });
});

// ------------------------------------------------------------------ the built CLI: nothing loaded without an endpoint

describe('the built CLI (dist/, npm run build)', () => {
  const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
  const PROBE = fileURLToPath(new URL('../support/module-load-probe.mjs', import.meta.url));

  interface Run {
    stderr(): string;
    loaded(): string[];
    exited: Promise<number | null>;
    child: ChildProcess;
  }

  function run(args: string[], env: Record<string, string>): Run {
    const home = mkdtempSync(join(tmpdir(), 'mcpscope-otlp-'));
    const probe = join(home, 'loaded.txt');
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_') && k !== 'MCPSCOPE_TOKEN'));
    const child = spawn(process.execPath, ['--import', PROBE, BIN, ...args], {
      env: { ...clean, MCPSCOPE_HOME: home, MCPSCOPE_LOAD_PROBE: probe, MCPSCOPE_LOAD_PROBE_MATCH: '@opentelemetry', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.stdout!.resume();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      rmSync(home, { recursive: true, force: true });
    });
    return {
      stderr: () => err,
      loaded: () => (existsSync(probe) ? readFileSync(probe, 'utf8').split('\n').filter(Boolean) : []),
      exited,
      child,
    };
  }

  async function callThrough(r: Run): Promise<void> {
    const proxyUrl = await until('the banner', () => /proxy\s+(http:\/\/\S+)\s/.exec(r.stderr())?.[1], 20_000);
    const client = new Client({ name: 'cli-otlp', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(proxyUrl));
    await client.connect(transport);
    await client.callTool({ name: 'echo', arguments: { via: 'cli' } });
    await transport.terminateSession();
    await client.close();
  }

  it('loads nothing of OpenTelemetry when no endpoint is configured', async () => {
    const r = run(['--target', upstream.url, '--port', '0', '--ui-port', '0'], {});
    await callThrough(r);
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
    expect(r.stderr()).not.toMatch(/otlp/i);
    expect(r.loaded()).toEqual([]);
  });

  it('exports from OTEL_EXPORTER_OTLP_* alone, with the headers, service name and protocol they give', async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const r = run(['--target', upstream.url, '--port', '0', '--ui-port', '0'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team=mcp-platform',
      OTEL_SERVICE_NAME: 'agent-sidecar',
      OTEL_BSP_SCHEDULE_DELAY: '20',
    });
    await callThrough(r);
    const echo = await receiver.until((x) => x.spans.find((s) => s.name === 'tools/call echo'));
    expect(echo.resource['service.name']).toBe('agent-sidecar');
    expect(echo.encoding).toBe('json');
    expect(receiver.requests.find((q) => q.path === '/v1/traces')!.headers['x-team']).toBe('mcp-platform');
    expect(r.stderr()).toContain(`otlp   ${receiver.url}/v1/traces  (http/json)`);
    expect(r.loaded().some((u) => u.includes('@opentelemetry/sdk-trace-base'))).toBe(true);
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
    // The metrics' last collection goes out on the way out.
    await receiver.until((x) => x.metrics.some((m) => m.name === 'mcp.client.operation.duration'));
  });

  it('refuses grpc in plain words', async () => {
    const r = run(['--target', upstream.url, '--port', '0', '--ui-port', '0', '--otlp', 'http://127.0.0.1:4317'], {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(await r.exited).toBe(2);
    expect(r.stderr()).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported');
    expect(r.loaded()).toEqual([]);
  });
});
