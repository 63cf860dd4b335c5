/**
 * Fixtures end to end (issue 4, items 4–6): capture a session against real servers through
 * mcpscope → export the fixture → replay it as a mock server (HTTP and stdio) → the official SDK
 * client gets identical results; verify the fixture against the live server (passes) and against
 * a changed server (fails with a readable diff); a sampling round trip through the replay.
 * The CLI parts run the built CLI (`npm run build` first; `npm test` does).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type CreateMessageRequest,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { Fixture } from '../../proxy/core/model/fixture-format.js';
import { startMockServer, type MockServer } from '../../proxy/files/replay/replay-server.js';
import { verifyFixture } from '../../proxy/files/replay/verify.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { everythingEntry, startEverythingServer, type RunningPeer } from '../support/peers.js';
import { BIN, ROOT, fixtureOf, runCli, startReplayCli } from '../support/fixture-cli.js';

const LONG_STEPS = 4;

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

// ---------------------------------------------------------------------------------------------
// The scenario, run against the live server (through the proxy) and against replays
// ---------------------------------------------------------------------------------------------

interface ScenarioResult {
  server: unknown;
  capabilities: unknown;
  instructions: unknown;
  tools: unknown;
  echo: unknown;
  sum: unknown;
  long: unknown;
  progress: Progress[];
  prompts: unknown;
  resources: unknown;
}

/** `shiftIds`: two pings first, so this client's request ids (and progress tokens) differ from the recording's. */
async function scenario(transport: Transport, options: { shiftIds?: boolean } = {}): Promise<ScenarioResult> {
  const client = new Client({ name: 'mcpscope-roundtrip', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  try {
    if (options.shiftIds) {
      await client.ping();
      await client.ping();
    }
    const tools = await client.listTools();
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'through the looking glass' } });
    const sum = await client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } });
    const progress: Progress[] = [];
    const long = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.4, steps: LONG_STEPS } },
      undefined,
      {
        onprogress: (p) => progress.push(p),
      },
    );
    const prompts = await client.listPrompts();
    const resources = await client.listResources();
    return {
      server: client.getServerVersion(),
      capabilities: client.getServerCapabilities(),
      instructions: client.getInstructions(),
      tools,
      echo,
      sum,
      long,
      progress,
      prompts,
      resources,
    };
  } finally {
    if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
    await client.close();
  }
}

describe('fixture round trip against server-everything', () => {
  let peer: RunningPeer;
  let scope: Mcpscope;
  let live: ScenarioResult;
  let fixture: Fixture;
  let dir: string;
  let fixturePath: string;
  const mocks: MockServer[] = [];

  beforeAll(async () => {
    peer = await startEverythingServer('streamableHttp');
    scope = await startMcpscope({ target: peer.url, port: 0, uiPort: false });
    live = await scenario(new StreamableHTTPClientTransport(new URL(scope.proxy.url)));
    fixture = await fixtureOf(scope, 'mcpscope-roundtrip');
    dir = mkdtempSync(join(tmpdir(), 'mcpscope-replay-'));
    fixturePath = join(dir, 'everything.fixture.json');
    writeFileSync(fixturePath, JSON.stringify(fixture, null, 2));
  });
  afterAll(async () => {
    for (const m of mocks) await m.close();
    await scope?.close();
    await peer?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the recording really exercised the scenario', () => {
    expect(live.progress.map((p) => p.progress)).toEqual([1, 2, 3, 4]);
    expect(JSON.stringify(live.echo)).toContain('Echo: through the looking glass');
    expect(JSON.stringify(live.sum)).toContain('42');
    const requests = fixture.messages.filter((m) => m.dir === 'c2s' && m.kind === 'request').map((m) => m.message.method);
    expect(requests).toEqual(['initialize', 'tools/list', 'tools/call', 'tools/call', 'tools/call', 'prompts/list', 'resources/list']);
  });

  it('gives a fresh SDK client identical results from the replay, progress notifications included', async () => {
    const log: string[] = [];
    const mock = await startMockServer(fixture, { log: (l) => log.push(l) });
    mocks.push(mock);
    const replayed = await scenario(new StreamableHTTPClientTransport(new URL(mock.url)), { shiftIds: true });
    expect(replayed).toEqual(live);
    expect(replayed.progress).toHaveLength(LONG_STEPS);
    // Every request was answered from the recording (none fell through to an error).
    expect(log.filter((l) => l.startsWith('✗'))).toEqual([]);
    expect(log.filter((l) => l.startsWith('→'))).toHaveLength(7);
  });

  it('serves several clients at once, each with its own session and counters', async () => {
    const mock = await startMockServer(fixture);
    mocks.push(mock);
    const [a, b] = await Promise.all([
      scenario(new StreamableHTTPClientTransport(new URL(mock.url))),
      scenario(new StreamableHTTPClientTransport(new URL(mock.url))),
    ]);
    expect(a).toEqual(live);
    expect(b).toEqual(live);
  });

  it('answers a request that is not in the fixture with an error naming the closest recorded one', async () => {
    const mock = await startMockServer(fixture);
    mocks.push(mock);
    const client = new Client({ name: 'mcpscope-roundtrip-miss', version: '1.0.0' }, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(mock.url));
    await client.connect(transport);
    try {
      // Same tool, different argument: -32602 naming the closest recorded call and what differs.
      const miss = await client.callTool({ name: 'echo', arguments: { message: 'down the rabbit hole' } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(miss).toBeInstanceOf(McpError);
      expect((miss as McpError).code).toBe(-32602);
      expect((miss as McpError).message).toContain('Closest recorded: tools/call echo');
      expect((miss as McpError).message).toContain('arguments.message: recorded "through the looking glass", got "down the rabbit hole"');
      // A method never recorded: -32601.
      const never = await client.listResourceTemplates().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((never as McpError).code).toBe(-32601);
      expect((never as McpError).message).toContain('resources/templates/list was never called');
      // Key order and the progress token do not matter; a repeated call gets the (last) recorded answer again.
      const again = await client.callTool({ arguments: { b: 23, a: 19 }, name: 'get-sum' });
      expect(again).toEqual(live.sum);
      expect(await client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } })).toEqual(live.sum);
      // ping is always answered.
      expect(await client.ping()).toEqual({});
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('speaks the Streamable HTTP session rules: session id required, unknown → 404, DELETE ends it', async () => {
    const mock = await startMockServer(fixture);
    mocks.push(mock);
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(mock.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toBe('text/event-stream'); // as recorded
    const sid = init.headers.get('mcp-session-id')!;
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    const text = await init.text();
    expect(text).toMatch(/^event: message\ndata: \{.*"id":1/);
    expect(text).toContain('"serverInfo":{"name":"mcp-servers/everything"');
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(400);
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': 'nope' })).status).toBe(404);
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sid })).status).toBe(202);
    const del = await fetch(mock.url, { method: 'DELETE', headers: { 'mcp-session-id': sid } });
    expect(del.status).toBe(200);
    expect((await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': sid })).status).toBe(404);
    expect((await fetch(new URL('/elsewhere', mock.url), { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('answers with JSON where the recording did, and statelessly when the recorded server used no session ids', async () => {
    const variant = structuredClone(fixture);
    for (const m of variant.messages) if (m.dir === 's2c' && (m.kind === 'response' || m.kind === 'error')) m.carrier = 'post-json';
    for (const x of variant.exchanges) {
      delete x.requestHeaders['mcp-session-id'];
      if (x.responseHeaders) delete x.responseHeaders['mcp-session-id'];
    }
    const mock = await startMockServer(variant);
    mocks.push(mock);
    const post = (body: unknown) =>
      fetch(mock.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      });
    const list = await post({ jsonrpc: '2.0', id: 'a', method: 'tools/list' });
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toBe('application/json');
    expect(list.headers.get('mcp-session-id')).toBeNull();
    expect(await list.json()).toEqual({ jsonrpc: '2.0', id: 'a', result: live.tools });
    const batch = await post([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'prompts/list' },
    ]);
    expect(await batch.json()).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: live.prompts },
    ]);
    // And a real client is just as happy with it (progress has no stream in JSON mode, so none arrives).
    const replayed = await scenario(new StreamableHTTPClientTransport(new URL(mock.url)));
    expect({ ...replayed, progress: [] }).toEqual({ ...live, progress: [] });
  });

  it('replays over stdio: the SDK StdioClientTransport spawning `mcpscope replay FIXTURE --stdio`', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'replay', fixturePath, '--stdio'],
      cwd: ROOT,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const replayed = await scenario(transport, { shiftIds: true });
    expect(replayed, stderr).toEqual(live);
    expect(stderr).toContain('serving everything.fixture.json');
  });

  it('`mcpscope replay FIXTURE --port 0` prints a URL a client can use', async () => {
    const replay = await startReplayCli([fixturePath]);
    try {
      const replayed = await scenario(new StreamableHTTPClientTransport(new URL(replay.url)));
      expect(replayed).toEqual(live);
    } finally {
      expect(await replay.stop()).toBe(0);
    }
  });

  it('`mcpscope verify` against the live server passes (exit 0)', async () => {
    const r = await runCli(['verify', fixturePath, '--target', peer.url]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('OK: every response matches the recording.');
    expect(r.stdout).toContain('✓ tools/call trigger-long-running-operation');
    expect(r.code).toBe(0);
  });

  it('`mcpscope verify` also speaks legacy HTTP+SSE (--transport sse) and stdio (`-- <command>`)', async () => {
    const ssePeer = await startEverythingServer('sse');
    try {
      const sse = await runCli(['verify', fixturePath, '--target', ssePeer.url, '--transport', 'sse', '--json']);
      expect(sse.code, sse.stdout).toBe(0);
      expect(JSON.parse(sse.stdout)).toMatchObject({ ok: true, transport: 'sse', differences: [] });
    } finally {
      await ssePeer.close();
    }
    const stdio = await runCli(['verify', fixturePath, '--', process.execPath, everythingEntry, 'stdio']);
    expect(stdio.stdout).toContain('OK: every response matches the recording.');
    expect(stdio.code).toBe(0);
  });

  it('`mcpscope verify` against the replay of its own fixture passes too, and exits 2 when nothing listens', async () => {
    const mock = await startMockServer(fixture);
    mocks.push(mock);
    const report = await verifyFixture(fixture, { target: mock.url });
    expect(report.differences).toEqual([]);
    expect(report.calls.map((c) => c.status)).toEqual(['same', 'same', 'same', 'same', 'same', 'same', 'same']);

    const free = createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const port = (free.address() as AddressInfo).port;
    await new Promise<void>((r) => free.close(() => r()));
    const r = await runCli(['verify', fixturePath, '--target', `http://127.0.0.1:${port}/mcp`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot connect to');
    const usage = await runCli(['verify', fixturePath]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--target <url> (or `-- <command>` for a stdio server) is required');
  });
});

// ---------------------------------------------------------------------------------------------
// Verify against a changed server
// ---------------------------------------------------------------------------------------------

/** A small SDK server in two versions; v2 changes echo's schema, add's text, and swaps a tool. */
function createToyServer(version: 1 | 2): McpServer {
  const server = new McpServer({ name: 'toy', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'echo',
    { description: 'Echoes the message', inputSchema: { message: version === 1 ? z.string() : z.number() } },
    async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${String(message)}` }] }),
  );
  server.registerTool('add', { description: 'Adds', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: version === 1 ? `${a} + ${b} = ${a + b}` : `The sum is ${a + b}` }],
  }));
  if (version === 1)
    server.registerTool('legacy', { description: 'Going away' }, async () => ({ content: [{ type: 'text', text: 'old' }] }));
  else server.registerTool('shiny', { description: 'New in v2' }, async () => ({ content: [{ type: 'text', text: 'new' }] }));
  return server;
}

async function startToyServer(version: 1 | 2): Promise<{ url: string; close(): Promise<void> }> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const sid = req.headers['mcp-session-id'] as string | undefined;
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      if (sid) {
        res.writeHead(404).end();
        return;
      }
      const t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, t),
      });
      await createToyServer(version).connect(t);
      transport = t;
    }
    await transport.handleRequest(req, res);
  };
  const server = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      for (const t of transports.values()) await t.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('verify against a changed server', () => {
  let v1: Awaited<ReturnType<typeof startToyServer>>;
  let v2: Awaited<ReturnType<typeof startToyServer>>;
  let scope: Mcpscope;
  let dir: string;
  let fixturePath: string;

  beforeAll(async () => {
    v1 = await startToyServer(1);
    v2 = await startToyServer(2);
    scope = await startMcpscope({ target: v1.url, port: 0, uiPort: false });
    const client = new Client({ name: 'toy-recording', version: '1.0.0' }, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
    await client.connect(transport);
    await client.listTools();
    await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    await client.callTool({ name: 'add', arguments: { a: 19, b: 23 } });
    await transport.terminateSession();
    await client.close();
    const fixture = await fixtureOf(scope, 'toy-recording');
    dir = mkdtempSync(join(tmpdir(), 'mcpscope-verify-'));
    fixturePath = join(dir, 'toy.fixture.json');
    writeFileSync(fixturePath, JSON.stringify(fixture));
  });
  afterAll(async () => {
    await scope?.close();
    await v1?.close();
    await v2?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes against the unchanged server', async () => {
    const r = await runCli(['verify', fixturePath, '--target', v1.url]);
    expect(r.stdout).toContain('OK');
    expect(r.code).toBe(0);
  });

  it('fails against the changed server with a readable, path-level diff (exit 1)', async () => {
    const r = await runCli(['verify', fixturePath, '--target', v2.url]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const out = r.stdout;
    expect(out).toContain('✓ initialize');
    expect(out).toContain('✗ tools/list');
    expect(out).toContain('tools/list › tools[name=echo].inputSchema.properties.message.type: "string" → "number"');
    expect(out).toMatch(/tools\/list › tools\[name=legacy\]: removed \(was \{"name":"legacy"/);
    expect(out).toMatch(/tools\/list › tools\[name=shiny\]: added \{"name":"shiny"/);
    expect(out).toContain('tools/call add › content[0].text: "19 + 23 = 42" → "The sum is 42"');
    // echo with a string now fails validation: reported as a change of the call's outcome.
    expect(out).toMatch(/✗ tools\/call echo\n\s+tools\/call echo › /);
    expect(out).toMatch(/FAIL: \d+ differences in 3 of 4 calls\./);
  });

  it('--json gives the same verdict as data', async () => {
    const r = await runCli(['verify', fixturePath, '--target', v2.url, '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as {
      ok: boolean;
      differences: { call: string; kind: string; path: string; recorded: unknown; live: unknown }[];
    };
    expect(report.ok).toBe(false);
    expect(report.differences).toContainEqual(
      expect.objectContaining({
        call: 'tools/list',
        kind: 'changed',
        path: 'tools[name=echo].inputSchema.properties.message.type',
        recorded: 'string',
        live: 'number',
      }),
    );
    expect(report.differences).toContainEqual(expect.objectContaining({ call: 'tools/list', kind: 'added', path: 'tools[name=shiny]' }));
  });
});

// ---------------------------------------------------------------------------------------------
// Sampling through the replay
// ---------------------------------------------------------------------------------------------

describe('sampling round trip (demo server ask_llm)', () => {
  let demo: DemoServer;
  let scope: Mcpscope;
  let fixture: Fixture;
  let recordedResult: unknown;
  let recordedSampling: CreateMessageRequest['params'] | undefined;

  beforeAll(async () => {
    demo = await startDemoServer({ port: 0 });
    scope = await startMcpscope({ target: demo.url, port: 0, uiPort: false });
    const client = new Client({ name: 'sampling-recording', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      recordedSampling = request.params;
      return { role: 'assistant', model: 'recorded-llm', content: { type: 'text', text: 'forty-two' } };
    });
    const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
    await client.connect(transport);
    recordedResult = await client.callTool({ name: 'ask_llm', arguments: { question: 'What is six times seven?' } });
    await transport.terminateSession();
    await client.close();
    fixture = await fixtureOf(scope, 'sampling-recording');
  });
  afterAll(async () => {
    await scope?.close();
    await demo?.close();
  });

  it('re-sends the recorded sampling request and waits for the new client’s answer before responding', async () => {
    expect(JSON.stringify(recordedResult)).toContain('recorded-llm says: forty-two');
    const mock = await startMockServer(fixture);
    // A second mcpscope in front of the mock shows the replay's wire order.
    const watch = await startMcpscope({ target: mock.url, port: 0, uiPort: false });
    try {
      const client = new Client({ name: 'sampling-replay', version: '1.0.0' }, { capabilities: { sampling: {} } });
      const gate = deferred();
      const asked = deferred();
      const seen: CreateMessageRequest['params'][] = [];
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        seen.push(request.params);
        asked.resolve();
        await gate.promise;
        return { role: 'assistant', model: 'replay-llm', content: { type: 'text', text: 'six by nine' } };
      });
      const transport = new StreamableHTTPClientTransport(new URL(watch.proxy.url));
      await client.connect(transport);
      let settled = false;
      const call = client
        .callTool({ name: 'ask_llm', arguments: { question: 'What is six times seven?' } })
        .finally(() => (settled = true));
      // The sampling request reached the client…
      await asked.promise;
      expect(seen).toHaveLength(1);
      expect(settled).toBe(false);
      // …and only once the client answers does the recorded response follow.
      gate.resolve();
      const result = await call;
      expect(result).toEqual(recordedResult);
      expect(seen[0]).toEqual(recordedSampling);
      await transport.terminateSession();
      await client.close();

      const ms = await watch.waitFor((s) => {
        const all = [...s.sessions.keys()].flatMap((id) => s.messages(id));
        return all.some((m) => m.kind === 'response' && m.name === 'ask_llm') ? all : undefined;
      });
      const callReq = ms.find((m) => m.kind === 'request' && m.name === 'ask_llm')!;
      const sampling = ms.find((m) => m.method === 'sampling/createMessage' && m.kind === 'request')!;
      const reply = ms.find((m) => m.dir === 'c2s' && m.kind === 'response' && m.pair === sampling.seq)!;
      const response = ms.find((m) => m.kind === 'response' && m.pair === callReq.seq)!;
      expect(sampling.parent).toBe(callReq.seq); // on the tool call's own POST stream
      expect(reply).toBeDefined(); // the reply's id is the one the mock gave its request
      expect(sampling.seq).toBeLessThan(reply.seq);
      expect(reply.seq).toBeLessThan(response.seq);
    } finally {
      await watch.close();
      await mock.close();
    }
  });

  it('sends recorded standalone-stream notifications (tools/list_changed) on the client’s GET stream after the call that caused them', async () => {
    // Record: wait until the client's GET stream is up, so the server's list_changed has somewhere to go.
    const client = new Client({ name: 'list-changed-recording', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
    await client.connect(transport);
    await scope.waitFor((s) =>
      [...s.exchanges.values()].find(
        (x) =>
          x.method === 'GET' &&
          x.status === 200 &&
          x.sessionId !== undefined &&
          s.sessions.get(x.sessionId)?.clientInfo?.name === 'list-changed-recording',
      ),
    );
    const recordedChange = deferred();
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => recordedChange.resolve());
    await client.callTool({ name: 'toggle_bonus_tool', arguments: {} });
    await recordedChange.promise;
    await transport.terminateSession();
    await client.close();
    const recorded = await fixtureOf(scope, 'list-changed-recording');
    expect(recorded.messages.find((m) => m.message.method === 'notifications/tools/list_changed')?.carrier).toBe('get-sse');

    const mock = await startMockServer(recorded);
    try {
      const replayClient = new Client({ name: 'list-changed-replay', version: '1.0.0' });
      const changed = deferred();
      replayClient.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.resolve());
      const replayTransport = new StreamableHTTPClientTransport(new URL(mock.url));
      await replayClient.connect(replayTransport);
      // (The mock sends it after the call's response; the client may still see it first — another stream.)
      const result = await replayClient.callTool({ name: 'toggle_bonus_tool', arguments: {} });
      expect(JSON.stringify(result)).toContain('lucky_number is now enabled');
      await changed.promise;
      await replayTransport.terminateSession();
      await replayClient.close();
    } finally {
      await mock.close();
    }
  });

  it('verify answers the live server’s sampling request with the recorded reply and passes', async () => {
    const report = await verifyFixture(fixture, { target: demo.url });
    expect(report.differences).toEqual([]);
    expect(report.calls.map((c) => c.call)).toEqual(['initialize', 'tools/call ask_llm']);
  });
});
