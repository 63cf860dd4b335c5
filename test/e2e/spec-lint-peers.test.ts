/**
 * The spec linter's "no false positives" acceptance (issue 19): full sessions of real, official
 * peers through mcpscope, on real loopback sockets, and the `spec-violation` problems the live
 * linter (proxy/lint/) stored for them. Every peer here is compliant unless a test says otherwise:
 * each expected violation is listed with the spec section the peer breaks and why it is the peer's.
 *
 * - SDK v1 (`@modelcontextprotocol/sdk`): McpServer + Client over Streamable HTTP, stateful (SSE
 *   answers), stateless (`sessionIdGenerator: undefined`, a server per request) and JSON response
 *   mode (`enableJsonResponse: true`): tools with input/output schemas, prompts, resources,
 *   templates, subscriptions, completion, logging, progress, cancellation, sampling, elicitation,
 *   roots, list_changed notifications, ping, DELETE.
 * - server-everything over stdio through the stdio wrapper (in-process), the same SDK client session.
 * - @modelcontextprotocol/server-everything (streamableHttp) driven by the SDK client through
 *   each of its documented tools, prompts and resources, tasks included.
 * - The MCP Inspector CLI against server-everything through the proxy.
 * - SDK v2 (`@modelcontextprotocol/server` / `client` 2.4.0): 2026-07-28 (stateless, per-request
 *   `_meta`, input_required, subscriptions/listen) when the client pins it or negotiates it
 *   (`versionNegotiation`), and the client's default (2025-11-25 initialize, answered by the
 *   handler's stateless legacy serving).
 *
 * No peer here breaks a rule the linter has. Two controls (a call whose arguments break the
 * tool's inputSchema, on 2025-11-25 and on 2026-07-28) show the linter is live in this setup.
 * Found here and fixed (proxy/core/lint/session-lint.ts): two clients of one name against a server that
 * assigns no Mcp-Session-Id — several Inspector CLI runs at once — interleave in mcpscope's grouped
 * session, and the rules that depend on whose request came first reported them (lifecycle, cursors).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListResourcesRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  SubscribeRequestSchema,
  ToolListChangedNotificationSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  McpServer as V2McpServer,
  ResourceTemplate as V2ResourceTemplate,
  acceptedContent,
  completable as v2Completable,
  createMcpHandler,
  inputRequired,
} from '@modelcontextprotocol/server';
import { Client as V2Client, StreamableHTTPClientTransport as V2StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startMcpscope, type Mcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';
import type { ProblemEvent } from '../../proxy/core/model/events.js';
import { firstText } from '../support/mcp-results.js';
import { everythingEntry, runInspectorCli, startEverythingServer, type InspectorCliArgs, type RunningPeer } from '../support/peers.js';
import { runStdioWrapper } from '../../proxy/app/stdio/stdio-wrapper.js';

const TOKEN = 'spec-lint-peers-token-0123456789abcdef';

// ------------------------------------------------------------------------------------ helpers

interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
}
function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A spec violation as the test reads it: the rule, where, and the message that broke it. */
interface Found {
  rule: string;
  specRef: string;
  /** `c2s tools/call` — the direction and method of the message (a response: its request's method). */
  message: string;
  path?: string;
  text: string;
}

async function violations(scope: McpscopeCore, sessionIds?: readonly string[]): Promise<Found[]> {
  await scope.settle();
  const found: Found[] = [];
  for (const e of scope.store.snapshot()) {
    // A linter that threw on a message stops linting its session (and says so in a log): that must never happen here.
    if (e.type === 'log' && e.source === 'mcpscope') expect(e.text).not.toMatch(/spec linter failed/);
    if (e.type !== 'problem' || e.code !== 'spec-violation') continue;
    const p = e as ProblemEvent;
    if (sessionIds && (p.sessionId === undefined || !sessionIds.includes(p.sessionId))) continue;
    const m = p.message === undefined ? undefined : scope.store.message(p.message);
    const method = m?.method ?? (m?.pair !== undefined ? scope.store.message(m.pair)?.method : undefined);
    found.push({
      rule: p.rule ?? '?',
      specRef: p.specRef ?? '?',
      message: `${m?.dir ?? '?'} ${m?.kind ?? '?'} ${method ?? '?'}`,
      ...(p.path !== undefined ? { path: p.path } : {}),
      text: p.text,
    });
  }
  return found;
}

/** The sessions of a client, by its clientInfo name. */
function sessionsOf(scope: McpscopeCore, clientName: string) {
  return [...scope.store.sessions.values()].filter((s) => s.clientInfo?.name === clientName);
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------- SDK v1: the server side

type V1Mode = 'stateful' | 'stateless' | 'json';

/** What the v1 server lets the test wait for (events, never time). */
interface V1Hooks {
  /** The `wait` tool is running. */
  waitStarted: Deferred;
  /** A notifications/cancelled reached the server. */
  cancelSeen: Deferred;
  /** The `wait` tool may return (stateless: the cancellation went to another server instance). */
  release: Deferred;
  /** The HTTP response of the `wait` call is over. */
  waitClosed: Deferred;
  /** Per Mcp-Session-Id: its standalone GET stream is open (so unrelated server messages reach the client). */
  getStream(sessionId: string | undefined): Promise<void>;
}

/**
 * An official-SDK McpServer with everything a session can use: tools (`add` with an outputSchema,
 * `report` with progress and logging, `ask` making every server→client request, `announce` sending
 * every unsolicited notification, `wait` until cancelled), a prompt with a completable argument,
 * resources (text, blob, a template with list and completion) and subscriptions.
 */
function v1McpServer(mode: V1Mode, hooks: V1Hooks): McpServer {
  const mcp = new McpServer(
    { name: `lint-peer-v1-${mode}`, version: '1.0.0' },
    { capabilities: { logging: {}, resources: { subscribe: true, listChanged: true } } },
  );
  // JSON response mode has no stream for a request's related messages: server requests go on the GET stream.
  const related = (requestId: string | number) => (mode === 'json' ? {} : { relatedRequestId: requestId });

  mcp.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  mcp.registerTool(
    'divide',
    { inputSchema: { a: z.number(), b: z.number() }, outputSchema: { quotient: z.number() } },
    async ({ a, b }) => {
      // A tool error: isError, and no structuredContent (the outputSchema binds successful results only).
      if (b === 0) return { isError: true, content: [{ type: 'text', text: 'cannot divide by zero' }] };
      return { content: [{ type: 'text', text: String(a / b) }], structuredContent: { quotient: a / b } };
    },
  );
  mcp.registerTool('report', { inputSchema: { steps: z.number().int().min(1) } }, async ({ steps }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: steps, message: `step ${i} of ${steps}` },
        });
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'report', data: `step ${i}` } });
    }
    return { content: [{ type: 'text', text: `reported ${steps}` }] };
  });
  mcp.registerTool('ask', { description: 'Asks the client for roots, a sample and a form.' }, async (extra) => {
    if (mode === 'json') await hooks.getStream(extra.sessionId);
    await mcp.server.request({ method: 'ping' }, z.object({}).passthrough(), related(extra.requestId));
    const roots = await mcp.server.listRoots(undefined, related(extra.requestId));
    const sampled = await mcp.server.createMessage(
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'Say hello.' } }],
        systemPrompt: 'You are a test.',
        maxTokens: 16,
        modelPreferences: { hints: [{ name: 'test' }], speedPriority: 1 },
      },
      related(extra.requestId),
    );
    const form = await mcp.server.elicitInput(
      {
        message: 'Who are you?',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', title: 'Name', minLength: 1 },
            age: { type: 'integer', minimum: 0 },
            admin: { type: 'boolean', default: false },
            colour: { type: 'string', enum: ['red', 'green'] },
          },
          required: ['name'],
        },
      },
      related(extra.requestId),
    );
    // The same question again: this time the user declines (a result with no content).
    const declined = await mcp.server.elicitInput(
      { message: 'Again?', requestedSchema: { type: 'object', properties: { again: { type: 'boolean' } } } },
      related(extra.requestId),
    );
    const text = sampled.content.type === 'text' ? sampled.content.text : '?';
    return {
      content: [
        {
          type: 'text',
          text: `roots=${roots.roots.length} sampled=${text} form=${form.action}:${JSON.stringify(form.content)} then ${declined.action}`,
        },
      ],
    };
  });
  const hidden = mcp.registerTool('hidden', { description: 'Enabled by announce.' }, async () => ({ content: [] }));
  hidden.disable();
  mcp.registerTool('announce', { description: 'Sends every unsolicited server notification.' }, async (extra) => {
    await hooks.getStream(extra.sessionId);
    await mcp.server.sendLoggingMessage({ level: 'warning', logger: 'announce', data: { unsolicited: true } }, extra.sessionId);
    hidden.enable(); // → notifications/tools/list_changed
    mcp.sendPromptListChanged();
    mcp.sendResourceListChanged();
    await mcp.server.sendResourceUpdated({ uri: 'doc://readme' });
    return { content: [{ type: 'text', text: 'announced' }] };
  });
  mcp.registerTool('wait', { description: 'Runs until cancelled.' }, async (extra) => {
    hooks.waitStarted.resolve();
    const aborted = new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([aborted, hooks.release.promise]);
    return { content: [{ type: 'text', text: 'done waiting' }] };
  });

  mcp.registerPrompt(
    'greet',
    {
      description: 'Greets someone.',
      argsSchema: { name: completable(z.string(), (value) => ['Ada', 'Alan', 'Grace'].filter((n) => n.startsWith(value))) },
    },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] }),
  );

  mcp.registerResource('readme', 'doc://readme', { mimeType: 'text/markdown' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/markdown', text: '# Readme' }],
  }));
  mcp.registerResource('logo', 'doc://logo', { mimeType: 'image/png' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64') }],
  }));
  mcp.registerResource(
    'item',
    new ResourceTemplate('doc://items/{id}', {
      list: async () => ({ resources: [1, 2].map((id) => ({ uri: `doc://items/${id}`, name: `item ${id}` })) }),
      complete: { id: (value) => ['1', '2', '10'].filter((id) => id.startsWith(value)) },
    }),
    { description: 'An item.' },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `item ${String(id)}` }] }),
  );
  // McpServer never pages; this server's resources/list is the low-level Server's handler instead, two to a page, so
  // that the client walks nextCursor (the cursor is opaque: here, the offset).
  const listed = [
    { uri: 'doc://readme', name: 'readme', mimeType: 'text/markdown' },
    { uri: 'doc://logo', name: 'logo', mimeType: 'image/png' },
    { uri: 'doc://items/1', name: 'item 1' },
    { uri: 'doc://items/2', name: 'item 2' },
  ];
  mcp.server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const offset = request.params?.cursor === undefined ? 0 : Number(Buffer.from(request.params.cursor, 'base64url').toString('utf8'));
    const next = offset + 2;
    return {
      resources: listed.slice(offset, next),
      ...(next < listed.length ? { nextCursor: Buffer.from(String(next)).toString('base64url') } : {}),
    };
  });
  mcp.server.setRequestHandler(SubscribeRequestSchema, async () => ({}));
  mcp.server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}));
  return mcp;
}

interface V1Server {
  url: string;
  hooks: V1Hooks;
  close(): Promise<void>;
}

/** The v1 server on a loopback port: one transport per session, or (stateless) a server and transport per request. */
async function startV1Server(mode: V1Mode): Promise<V1Server> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const getStreams = new Map<string, Deferred>();
  const streamOf = (sid: string) => {
    let d = getStreams.get(sid);
    if (!d) getStreams.set(sid, (d = deferred()));
    return d;
  };
  const hooks: V1Hooks = {
    waitStarted: deferred(),
    cancelSeen: deferred(),
    release: deferred(),
    waitClosed: deferred(),
    getStream: (sid) => (sid === undefined ? Promise.resolve() : streamOf(sid).promise),
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const rpc = body as { method?: string; params?: { name?: string } } | undefined;
    if (rpc?.method === 'notifications/cancelled') res.on('close', () => hooks.cancelSeen.resolve());
    if (rpc?.method === 'tools/call' && rpc.params?.name === 'wait') res.on('close', () => hooks.waitClosed.resolve());
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'GET' && typeof sid === 'string') {
      // The standalone stream is registered with the transport before its head is written.
      const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
      (res as { writeHead: unknown }).writeHead = (...a: unknown[]) => {
        const r = writeHead(...a);
        if (res.statusCode === 200) streamOf(sid).resolve();
        return r;
      };
    }
    if (mode === 'stateless') {
      const mcp = v1McpServer(mode, hooks);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void mcp.close());
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (!transport) {
      if (typeof sid === 'string') return void res.writeHead(404).end();
      const mcp = v1McpServer(mode, hooks);
      const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        enableJsonResponse: mode === 'json',
        onsessioninitialized: (id) => void transports.set(id, t),
        onsessionclosed: (id) => void transports.delete(id),
      });
      await mcp.connect(t);
      transport = t;
    }
    await transport.handleRequest(req, res, body);
  };
  const server = createServer((req, res) => void handle(req, res));
  const url = await listen(server);
  return {
    url,
    hooks,
    async close() {
      hooks.release.resolve();
      for (const t of transports.values()) await t.close().catch(() => undefined);
      await closeServer(server);
    },
  };
}

// ------------------------------------------------------------------- SDK v1: the client side

/** An official-SDK client that declares sampling, elicitation and roots and answers them. */
function v1Client(name: string) {
  const client = new Client(
    { name, version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } },
  );
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///tmp/lint-peers', name: 'work' }] }));
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    model: 'test-model',
    stopReason: 'endTurn',
    content: { type: 'text', text: 'hello' },
  }));
  client.setRequestHandler(ElicitRequestSchema, async (request) =>
    request.params.message === 'Again?' ? { action: 'decline' } : { action: 'accept', content: { name: 'Ada', age: 36, colour: 'green' } },
  );
  return client;
}

/** Resolves on the first notification of each kind the client gets. */
function notificationWaiters(client: Client) {
  const w = {
    log: deferred(),
    tools: deferred(),
    prompts: deferred(),
    resources: deferred(),
    updated: deferred(),
  };
  client.setNotificationHandler(LoggingMessageNotificationSchema, () => w.log.resolve());
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => w.tools.resolve());
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => w.prompts.resolve());
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => w.resources.resolve());
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => w.updated.resolve());
  return w;
}

/** A whole session of the v1 client against the v1 server (through `url`). */
async function v1Session(url: string, mode: V1Mode, hooks: V1Hooks, clientName: string): Promise<void> {
  const client = v1Client(clientName);
  const heard = notificationWaiters(client);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  if (mode === 'stateless') expect(transport.sessionId).toBeUndefined();
  else expect(transport.sessionId).toEqual(expect.any(String));

  await client.ping();
  await client.setLoggingLevel('debug');
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name).sort()).toEqual(['add', 'announce', 'ask', 'divide', 'report', 'wait']);
  const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  expect(add.structuredContent).toEqual({ sum: 5 });
  expect((await client.callTool({ name: 'divide', arguments: { a: 1, b: 0 } })).isError).toBe(true);
  let progress = 0;
  const report = await client.callTool({ name: 'report', arguments: { steps: 3 } }, undefined, { onprogress: () => (progress += 1) });
  expect(firstText(report)).toBe('reported 3');
  // JSON response mode drops a request's related notifications (no stream to carry them).
  expect(progress).toBe(mode === 'json' ? 0 : 3);

  expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
  const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  expect(prompt.messages).toHaveLength(1);
  const names = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } });
  expect(names.completion.values).toEqual(['Ada', 'Alan']);

  const uris: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listResources(cursor === undefined ? undefined : { cursor });
    uris.push(...page.resources.map((r) => r.uri));
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== undefined);
  expect([pages, uris]).toEqual([2, ['doc://readme', 'doc://logo', 'doc://items/1', 'doc://items/2']]);
  const templates = await client.listResourceTemplates();
  expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(['doc://items/{id}']);
  for (const uri of ['doc://readme', 'doc://logo', 'doc://items/2']) expect((await client.readResource({ uri })).contents).toHaveLength(1);
  const ids = await client.complete({
    ref: { type: 'ref/resource', uri: 'doc://items/{id}' },
    argument: { name: 'id', value: '1' },
  });
  expect(ids.completion.values).toEqual(['1', '10']);
  await client.subscribeResource({ uri: 'doc://readme' });

  if (mode !== 'stateless') {
    // Server→client requests and unsolicited notifications need a session (stateless: each request meets a new server).
    const asked = await client.callTool({ name: 'ask', arguments: {} });
    expect(firstText(asked)).toBe('roots=1 sampled=hello form=accept:{"name":"Ada","age":36,"colour":"green"} then decline');
    await client.callTool({ name: 'announce', arguments: {} });
    await Promise.all([heard.log.promise, heard.tools.promise, heard.prompts.promise, heard.resources.promise, heard.updated.promise]);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('hidden');
    await client.sendRootsListChanged();
  }
  await client.unsubscribeResource({ uri: 'doc://readme' });

  // Cancellation of a call in flight.
  const controller = new AbortController();
  const waiting = client.callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal });
  await hooks.waitStarted.promise;
  controller.abort('the user gave up');
  await expect(waiting).rejects.toThrow();
  await hooks.cancelSeen.promise;
  if (mode === 'stateless') {
    // The cancellation reached another server instance: this one answers when released, and the client ignores it.
    hooks.release.resolve();
    await hooks.waitClosed.promise;
  }

  await client.ping();
  await transport.terminateSession(); // DELETE (stateless: none to end)
  await client.close();
}

describe.each(['stateful', 'stateless', 'json'] as const)('SDK v1 McpServer + Client, Streamable HTTP (%s)', (mode) => {
  let server: V1Server;
  let scope: Mcpscope;
  beforeAll(async () => {
    server = await startV1Server(mode);
    scope = await startMcpscope({ target: server.url, port: 0, uiPort: 0, token: TOKEN });
  });
  afterAll(async () => {
    await scope?.close();
    await server?.close();
  });

  it('a full session has no spec violations', async () => {
    const name = `lint-v1-${mode}`;
    await v1Session(scope.proxy.url, mode, server.hooks, name);
    await scope.settle();
    const sessions = sessionsOf(scope, name);
    expect(sessions).toHaveLength(1);
    expect(sessions[0].protocolVersion).toBe('2025-11-25');
    expect(scope.store.messages(sessions[0].id).length).toBeGreaterThan(30);
    expect(await violations(scope)).toEqual([]);
  });

  it('control: the linter is live here (arguments that break the inputSchema are reported)', async () => {
    const name = `lint-v1-${mode}-control`;
    const client = v1Client(name);
    const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
    await client.connect(transport);
    await client.listTools();
    const r = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } });
    expect(r.isError).toBe(true); // the SDK server validated them too
    await transport.terminateSession();
    await client.close();
    await scope.settle();
    const ids = sessionsOf(scope, name).map((s) => s.id);
    expect(ids).toHaveLength(1);
    expect((await violations(scope, ids)).map((v) => [v.rule, v.specRef, v.message, v.path])).toEqual([
      ['tools/arguments-schema', '2025-11-25 server/tools#calling-tools', 'c2s request tools/call', '/params/arguments/a'],
    ]);
  });
});

describe('SDK v1 stateless server, two clients of one name at once', () => {
  let server: V1Server;
  let scope: Mcpscope;
  beforeAll(async () => {
    server = await startV1Server('stateless');
    scope = await startMcpscope({ target: server.url, port: 0, uiPort: 0, token: TOKEN });
  });
  afterAll(async () => {
    await scope?.close();
    await server?.close();
  });

  // Without an Mcp-Session-Id, mcpscope groups a stateless server's requests by client: an initialize starts a
  // session, and later requests of that client name join the newest one. Two processes of one client (two Inspector
  // CLI runs, two agents) interleave: one's requests land in the session the other's initialize just opened, before
  // that one said notifications/initialized, and with a cursor that session never issued. Neither client broke
  // anything: the linter must not say lifecycle/request-before-initialized or pagination/cursor-not-issued there.
  it('each client is compliant: no spec violations from traffic interleaved across the grouped sessions', async () => {
    const name = 'lint-v1-stateless-pair';
    const a = v1Client(name);
    await a.connect(new StreamableHTTPClientTransport(new URL(scope.proxy.url)));
    const first = await a.listResources();
    expect(first.nextCursor).toEqual(expect.any(String));

    // B's initialize goes through; its notifications/initialized waits until A has made its requests.
    const initializing = deferred();
    const release = deferred();
    const gated = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      if (typeof init?.body === 'string' && init.body.includes('"notifications/initialized"')) {
        initializing.resolve();
        await release.promise;
      }
      return fetch(url, init);
    };
    const b = v1Client(name);
    const bConnected = b.connect(new StreamableHTTPClientTransport(new URL(scope.proxy.url), { fetch: gated }));
    await initializing.promise;
    expect((await a.listResources({ cursor: first.nextCursor })).resources).toHaveLength(2);
    expect((await a.listTools()).tools.length).toBeGreaterThan(0);
    release.resolve();
    await bConnected;
    await b.listTools();
    await a.close();
    await b.close();

    await scope.settle();
    const sessions = sessionsOf(scope, name);
    expect(sessions).toHaveLength(2);
    expect(sessions.every((x) => x.grouping !== undefined && x.mcpSessionId === undefined)).toBe(true);
    const ids = sessions.map((x) => x.id);
    expect(await violations(scope, ids)).toEqual([]);
  });

  it('the Inspector CLI, several runs at once (where this was found): no spec violations', async () => {
    const url = scope.proxy.url;
    const runs: InspectorCliArgs[] = [
      { url, transport: 'http', method: 'tools/list' },
      { url, transport: 'http', method: 'tools/call', toolName: 'add', toolArgs: { a: '1', b: '2' } },
      { url, transport: 'http', method: 'resources/list' },
      { url, transport: 'http', method: 'prompts/get', extraArgs: ['--prompt-name', 'greet', '--prompt-args', 'name=Ada'] },
    ];
    for (const r of await Promise.all(runs.map((a) => runInspectorCli(a)))) expect(r.code, r.stderr).toBe(0);
    await scope.settle();
    const inspector = [...scope.store.sessions.values()].filter(
      (x) => x.clientInfo !== undefined && !x.clientInfo.name.startsWith('lint-'),
    );
    expect(inspector.length).toBeGreaterThan(0);
    expect(
      await violations(
        scope,
        inspector.map((x) => x.id),
      ),
    ).toEqual([]);
  });
});

// ------------------------------------------------------------------------ server-everything

/** A client that can do everything server-everything asks of one: sampling, form and URL elicitation, roots, tasks. */
function everythingClient(name: string) {
  const client = new Client(
    { name, version: '1.0.0' },
    {
      capabilities: {
        sampling: {},
        elicitation: { form: {}, url: {} },
        roots: { listChanged: true },
        tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
      },
      taskStore: new InMemoryTaskStore(),
    },
  );
  const sample = {
    role: 'assistant' as const,
    model: 'test-model',
    stopReason: 'endTurn',
    content: { type: 'text' as const, text: 'sampled' },
  };
  // A task-augmented request is answered with a task that completes at once (the client runs it "in the background").
  const asTask = async (extra: { taskStore?: RequestTaskStore; taskRequestedTtl?: number }, result: Record<string, unknown>) => {
    const task = await extra.taskStore!.createTask({ ttl: extra.taskRequestedTtl ?? 60_000 });
    await extra.taskStore!.storeTaskResult(task.taskId, 'completed', result);
    return { task };
  };
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => (request.params.task ? asTask(extra, sample) : sample));
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const answer =
      request.params.mode === 'url'
        ? { action: 'accept' as const }
        : {
            action: 'accept' as const,
            content: { name: 'Ada Lovelace', check: true, integer: 7, favoriteColor: 'Green', agreeToTerms: true },
          };
    return request.params.task ? asTask(extra, answer) : answer;
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///tmp/lint-peers', name: 'work' }] }));
  return client;
}

/** Calls every documented tool of server-everything with valid arguments, and its prompts and resources. */
async function everythingSession(client: Client): Promise<void> {
  const heard = notificationWaiters(client);
  const tools = (await client.listTools()).tools;
  const byName = new Map(tools.map((t) => [t.name, t]));
  // A tool called without arguments gets none at all (no `arguments` member): its inputSchema requires nothing.
  const call = async (name: string, args?: Record<string, unknown>) => {
    expect(byName.has(name), `server-everything has ${name}`).toBe(true);
    const r = await client.callTool(args === undefined ? { name } : { name, arguments: args });
    expect(r.isError, `${name}: ${JSON.stringify(r.content).slice(0, 300)}`).toBeFalsy();
    return r;
  };

  await client.setLoggingLevel('debug');
  await client.ping();
  // A task-based tool, in the background while the rest goes on: working → completed, then tasks/result.
  // Task-based tools, in the background while the rest goes on: working (→ input_required → working) → completed, then tasks/result.
  const research = (ambiguous: boolean) =>
    (async () => {
      const seen: string[] = [];
      for await (const m of client.experimental.tasks.callToolStream(
        { name: 'simulate-research-query', arguments: { topic: 'proxies', ambiguous } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      ))
        seen.push(m.type === 'error' ? `error ${m.error.message}` : m.type);
      return seen;
    })();
  const researches = Promise.all([research(false), research(true)]);

  await call('echo', { message: 'hello' });
  for (const messageType of ['error', 'success', 'debug']) await call('get-annotated-message', { messageType, includeImage: true });
  await call('get-env');
  await call('get-resource-links', { count: 4 });
  await call('get-resource-reference', { resourceType: 'Text', resourceId: 1 });
  await call('get-resource-reference', { resourceType: 'Blob', resourceId: 2 });
  const weather = await call('get-structured-content', { location: 'Chicago' });
  expect(weather.structuredContent).toBeDefined();
  await call('get-sum', { a: 19, b: 23 });
  await call('get-tiny-image');
  const data = `data:text/plain;base64,${Buffer.from('hello, gzip').toString('base64')}`;
  await call('gzip-file-as-resource', { name: 'hello.txt.gz', data, outputType: 'resource' });
  await call('gzip-file-as-resource', { name: 'link.txt.gz', data });
  expect((await client.readResource({ uri: 'demo://resource/session/link.txt.gz' })).contents).toHaveLength(1);
  let progress = 0;
  await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, {
    onprogress: () => (progress += 1),
  });
  // (Over stdio the SDK client may drop the last one: it handles the response, read in the same chunk, first.)
  expect(progress).toBeGreaterThanOrEqual(2);
  await call('get-roots-list');
  await call('trigger-sampling-request', { prompt: 'hi', maxTokens: 20 });
  await call('trigger-elicitation-request');
  await call('trigger-url-elicitation', { url: 'https://example.com/consent', message: 'Open this.' });
  // The error path: -32042 with a prerequisite URL elicitation; once it is done (in a browser), the same call again goes through.
  const errorPath = { url: 'https://example.com/other', errorPath: true };
  await expect(client.callTool({ name: 'trigger-url-elicitation', arguments: errorPath })).rejects.toThrow(/-32042|URL elicitation/i);
  await call('trigger-url-elicitation', errorPath);
  await call('trigger-sampling-request-async', { prompt: 'in the background' });
  await call('trigger-elicitation-request-async');
  // Simulated logging and resource updates send one at once: heard, then turned off again.
  await call('toggle-simulated-logging');
  await heard.log.promise;
  await call('toggle-simulated-logging');
  const resources = (await client.listResources()).resources;
  expect(resources.length).toBeGreaterThan(0);
  await client.subscribeResource({ uri: resources[0].uri });
  await call('toggle-subscriber-updates');
  await heard.updated.promise;
  await call('toggle-subscriber-updates');
  await client.unsubscribeResource({ uri: resources[0].uri });

  for (const r of resources) await client.readResource({ uri: r.uri });
  const templates = (await client.listResourceTemplates()).resourceTemplates;
  expect(templates.length).toBeGreaterThan(0);
  await client.readResource({ uri: 'demo://resource/dynamic/text/1' });
  await client.readResource({ uri: 'demo://resource/dynamic/blob/2' });
  await client.complete({ ref: { type: 'ref/resource', uri: templates[0].uriTemplate }, argument: { name: 'resourceId', value: '1' } });

  const prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
  expect(prompts).toEqual(['args-prompt', 'completable-prompt', 'resource-prompt', 'simple-prompt']);
  await client.getPrompt({ name: 'simple-prompt' });
  await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Paris', state: 'TX' } });
  await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } });
  await client.complete({
    ref: { type: 'ref/prompt', name: 'completable-prompt' },
    argument: { name: 'name', value: '' },
    context: { arguments: { department: 'Engineering' } },
  });
  await client.getPrompt({ name: 'completable-prompt', arguments: { department: 'Engineering', name: 'Alice' } });
  await client.getPrompt({ name: 'resource-prompt', arguments: { resourceType: 'Text', resourceId: '1' } });
  await client.sendRootsListChanged();

  for (const seen of await researches) expect(seen).toEqual(expect.arrayContaining(['taskCreated', 'result']));
  await client.ping();
}

describe('server-everything (streamableHttp)', () => {
  let peer: RunningPeer;
  beforeAll(async () => {
    peer = await startEverythingServer('streamableHttp');
  });
  afterAll(async () => {
    await peer?.close();
  });

  // Not a rule of the linter, so not asserted: server-everything's own event store (its streamableHttp mode)
  // replays every stream's events on a resumed GET stream, answers to POSTs included, which 2025-11-25
  // basic/transports#resumability-and-redelivery forbids ("MUST NOT replay messages that would have been
  // delivered on a different stream"). mcpscope marks them as replays and does not lint them twice.
  it('driven by the SDK client through every documented tool, prompt and resource: no spec violations', async () => {
    const scope = await startMcpscope({ target: peer.url, port: 0, uiPort: 0, token: TOKEN });
    try {
      const client = everythingClient('lint-everything');
      const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
      await client.connect(transport);
      await everythingSession(client);
      await transport.terminateSession();
      await client.close();
      const sessions = sessionsOf(scope, 'lint-everything');
      expect(sessions).toHaveLength(1);
      expect(sessions[0].protocolVersion).toBe('2025-11-25');
      expect(await violations(scope)).toEqual([]);
    } finally {
      await scope.close();
    }
  });

  it('the Inspector CLI, every method it has: no spec violations', async () => {
    const scope = await startMcpscope({ target: peer.url, port: 0, uiPort: 0, token: TOKEN });
    try {
      const url = scope.proxy.url;
      const runs: InspectorCliArgs[] = [
        { url, transport: 'http', method: 'tools/list' },
        { url, transport: 'http', method: 'tools/call', toolName: 'get-sum', toolArgs: { a: '40', b: '2' } },
        { url, transport: 'http', method: 'tools/call', toolName: 'get-structured-content', toolArgs: { location: '"Chicago"' } },
        { url, transport: 'http', method: 'resources/list' },
        { url, transport: 'http', method: 'resources/read', extraArgs: ['--uri', 'demo://resource/dynamic/text/1'] },
        { url, transport: 'http', method: 'resources/templates/list' },
        { url, transport: 'http', method: 'prompts/list' },
        { url, transport: 'http', method: 'prompts/get', extraArgs: ['--prompt-name', 'args-prompt', '--prompt-args', 'city=Paris'] },
        { url, transport: 'http', method: 'logging/setLevel', extraArgs: ['--log-level', 'debug'] },
      ];
      // Three at a time: each is two node processes.
      for (let i = 0; i < runs.length; i += 3) {
        for (const r of await Promise.all(runs.slice(i, i + 3).map((a) => runInspectorCli(a)))) expect(r.code, r.stderr).toBe(0);
      }
      await scope.settle();
      const sessions = [...scope.store.sessions.values()].filter((s) => s.clientInfo !== undefined);
      expect(sessions).toHaveLength(runs.length);
      expect(await violations(scope)).toEqual([]);
    } finally {
      await scope.close();
    }
  });
});

describe('server-everything over stdio, through the stdio wrapper', () => {
  it('driven by the SDK client through every documented tool, prompt and resource: no spec violations', async () => {
    const scope = await startMcpscope({ uiPort: 0, token: TOKEN });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough().resume();
    const before = new Set(process.listeners('SIGINT'));
    const wrapper = runStdioWrapper({
      command: process.execPath,
      args: [everythingEntry, 'stdio'],
      uiPort: scope.ui!.port,
      token: TOKEN,
      stdin,
      stdout,
      stderr,
    });
    // The wrapper forwards a Ctrl-C to the server (which ends on SIGINT; its tasks' timers would keep it up past stdin's end).
    const interrupt = process.listeners('SIGINT').find((l) => !before.has(l));
    try {
      const client = everythingClient('lint-everything-stdio');
      // The client's side of the pipes: it reads the server's lines (the wrapper's stdout) and writes to its stdin.
      await client.connect(new StdioServerTransport(stdout, stdin));
      await everythingSession(client);
      await client.close();
      stdin.end();
      interrupt?.('SIGINT');
      expect(await wrapper).toBe(0);
      await scope.waitFor((st) => [...st.sessions.values()].some((x) => x.transport === 'stdio' && x.status === 'closed') || undefined);
      const sessions = sessionsOf(scope, 'lint-everything-stdio');
      expect(sessions.map((x) => [x.transport, x.protocolVersion])).toEqual([['stdio', '2025-11-25']]);
      expect(await violations(scope)).toEqual([]);
    } finally {
      await scope.close();
    }
  });
});

// ------------------------------------------------------------------------------- SDK v2 (2.4.0)

const V2026 = '2026-07-28';

/** Per request (createMcpHandler's factory): one McpServer, for both eras. */
function v2McpServer(): V2McpServer {
  const mcp = new V2McpServer({ name: 'lint-peer-v2', version: '2.4.0' }, { capabilities: { logging: {} } });
  mcp.registerTool(
    'add',
    { inputSchema: z.object({ a: z.number(), b: z.number() }), outputSchema: z.object({ sum: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  mcp.registerTool('report', { inputSchema: z.object({ steps: z.number().int().min(1) }) }, async ({ steps }, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (token !== undefined)
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
      await ctx.mcpReq.log('info', `step ${i}`, 'report');
    }
    return { content: [{ type: 'text', text: `reported ${steps}` }] };
  });
  mcp.registerTool('deploy', { inputSchema: z.object({ env: z.string() }) }, async ({ env }, ctx) => {
    // 2026-07-28: client input comes by input_required results (the client fulfils them and retries).
    const confirmed = acceptedContent(ctx.mcpReq.inputResponses, 'confirm');
    const sample = ctx.mcpReq.inputResponses?.sample as { content?: { text?: string } } | undefined;
    const roots = ctx.mcpReq.inputResponses?.roots as { roots?: unknown[] } | undefined;
    if (!confirmed || !sample || !roots) {
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: z.object({ confirm: z.boolean() }) }),
          sample: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Name it.' } }], maxTokens: 8 }),
          roots: inputRequired.listRoots(),
        },
        requestState: `deploy:${env}`,
      });
    }
    return {
      content: [{ type: 'text', text: `deployed ${env} as ${sample.content?.text ?? '?'} with ${roots.roots?.length ?? 0} root(s)` }],
    };
  });
  mcp.registerTool('wait', { description: 'Runs until cancelled.' }, async (ctx) => {
    v2Hooks.waitStarted.resolve();
    await new Promise<void>((resolve) => ctx.mcpReq.signal.addEventListener('abort', () => resolve(), { once: true }));
    return { content: [] };
  });
  mcp.registerPrompt(
    'greet',
    { argsSchema: z.object({ name: v2Completable(z.string(), (value) => ['Ada', 'Alan'].filter((n) => n.startsWith(value))) }) },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] }),
  );
  mcp.registerResource('readme', 'doc://readme', { mimeType: 'text/markdown' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/markdown', text: '# Readme' }],
  }));
  mcp.registerResource(
    'item',
    new V2ResourceTemplate('doc://items/{id}', {
      list: async () => ({ resources: [{ uri: 'doc://items/1', name: 'item 1' }] }),
      complete: { id: (value) => ['1', '10'].filter((id) => id.startsWith(value)) },
    }),
    {},
    async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `item ${String(id)}` }] }),
  );
  return mcp;
}

const v2Hooks = { waitStarted: deferred() };

/** createMcpHandler (a web-standard fetch handler) on node:http, as @modelcontextprotocol/node's toNodeHandler does. */
async function startV2Server(): Promise<{ url: string; notify: ReturnType<typeof createMcpHandler>['notify']; close(): Promise<void> }> {
  const handler = createMcpHandler(() => v2McpServer());
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === 'string') headers.set(k, v);
        else if (Array.isArray(v)) for (const one of v) headers.append(k, one);
      }
      const aborted = new AbortController();
      res.on('close', () => aborted.abort());
      const response = await handler.fetch(
        new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
          method: req.method,
          headers,
          body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
          signal: aborted.signal,
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) {
        const reader = response.body.getReader();
        try {
          for (let r = await reader.read(); !r.done; r = await reader.read()) res.write(r.value);
        } catch {
          // the client went away
        }
      }
      res.end();
    })();
  });
  const url = await listen(server);
  return {
    url,
    notify: handler.notify,
    async close() {
      await handler.close();
      await closeServer(server);
    },
  };
}

/** How the v2 client picks its version: pinned to 2026-07-28, `auto` (server/discover first, falling back to initialize), or its default (`legacy`: initialize). */
type V2Negotiation = 'pin' | 'auto' | 'default';

function v2Client(name: string, negotiation: V2Negotiation): V2Client {
  const client = new V2Client(
    { name, version: '2.4.0' },
    {
      capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } },
      ...(negotiation === 'pin' ? { versionNegotiation: { mode: { pin: V2026 } } } : {}),
      ...(negotiation === 'auto' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }));
  client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    model: 'test-model',
    content: { type: 'text', text: 'blue-green' },
  }));
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///tmp/lint-peers', name: 'work' }] }));
  return client;
}

/** A whole v2 session: modern (pinned 2026-07-28: server/discover, _meta on every request, input_required, subscriptions/listen) or the client's default. */
async function v2Session(
  url: string,
  name: string,
  negotiation: V2Negotiation,
  notify: ReturnType<typeof createMcpHandler>['notify'],
): Promise<void> {
  const client = v2Client(name, negotiation);
  const pin = negotiation !== 'default'; // this server speaks 2026-07-28: auto finds it
  const toolsChanged = deferred();
  client.setNotificationHandler('notifications/tools/list_changed', () => toolsChanged.resolve());
  const transport = new V2StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  expect(client.getNegotiatedProtocolVersion()).toBe(pin ? V2026 : '2025-11-25');

  // 2026-07-28 has no ping (the SDK refuses to send it on that era).
  if (!pin) await client.ping();
  // Logging: 2025 sets a level for the session; 2026-07-28 asks for it per request, in the request's _meta.
  if (!pin) await client.setLoggingLevel('debug');
  const logLevel = pin ? { _meta: { 'io.modelcontextprotocol/logLevel': 'debug' } } : {};
  let logs = 0;
  client.setNotificationHandler('notifications/message', () => void (logs += 1));
  expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['add', 'deploy', 'report', 'wait']);
  const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  expect(add.structuredContent).toEqual({ sum: 5 });
  let progress = 0;
  const report = await client.callTool({ name: 'report', arguments: { steps: 2 }, ...logLevel }, { onprogress: () => (progress += 1) });
  expect(report.isError).toBeFalsy();
  expect([progress, logs]).toEqual([2, 2]);
  const deploy = await client.callTool({ name: 'deploy', arguments: { env: 'prod' } });
  if (pin) expect(firstText(deploy)).toBe('deployed prod as blue-green with 1 root(s)');
  // Default: 2025 per-request serving cannot ask the client anything; the tool says so in an error result.
  else expect(deploy.isError).toBe(true);

  expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
  await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  const names = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } });
  expect(names.completion.values).toEqual(['Ada', 'Alan']);
  expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['doc://readme', 'doc://items/1']);
  expect((await client.listResourceTemplates()).resourceTemplates).toHaveLength(1);
  await client.readResource({ uri: 'doc://readme' });
  await client.readResource({ uri: 'doc://items/1' });
  await client.complete({ ref: { type: 'ref/resource', uri: 'doc://items/{id}' }, argument: { name: 'id', value: '1' } });

  if (pin) {
    // subscriptions/listen: acknowledged, then a change notification on its stream, then closed (cancelled).
    const subscription = await client.listen({ toolsListChanged: true });
    notify.toolsChanged();
    await toolsChanged.promise;
    await subscription.close();
  }

  const controller = new AbortController();
  v2Hooks.waitStarted = deferred();
  const waiting = client.callTool({ name: 'wait', arguments: {} }, { signal: controller.signal });
  await v2Hooks.waitStarted.promise;
  controller.abort('the user gave up');
  await expect(waiting).rejects.toThrow();

  if (!pin) await client.ping();
  await client.close();
}

describe('SDK v2 (2.4.0) McpServer (createMcpHandler) + Client', () => {
  let server: Awaited<ReturnType<typeof startV2Server>>;
  let scope: Mcpscope;
  beforeAll(async () => {
    server = await startV2Server();
    scope = await startMcpscope({ target: server.url, port: 0, uiPort: 0, token: TOKEN });
  });
  afterAll(async () => {
    await scope?.close();
    await server?.close();
  });

  it('2026-07-28 (the client pins it): a stateless session, recorded as 2026-07-28, with no spec violations', async () => {
    await v2Session(scope.proxy.url, 'lint-v2-2026', 'pin', server.notify);
    await scope.settle();
    const sessions = sessionsOf(scope, 'lint-v2-2026');
    expect(sessions).toHaveLength(1);
    expect(sessions[0].protocolVersion).toBe(V2026);
    expect(sessions[0].mcpSessionId).toBeUndefined();
    const methods = scope.store.messages(sessions[0].id).map((m) => m.method);
    expect(methods).not.toContain('initialize');
    expect(methods).toContain('server/discover');
    expect(await violations(scope, [sessions[0].id])).toEqual([]);
  });

  it('control: the linter is live on 2026-07-28 too (arguments that break the inputSchema are reported)', async () => {
    const client = v2Client('lint-v2-control', 'pin');
    await client.connect(new V2StreamableHTTPClientTransport(new URL(scope.proxy.url)));
    await client.listTools();
    const r = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } });
    expect(r.isError).toBe(true);
    await client.close();
    await scope.settle();
    const ids = sessionsOf(scope, 'lint-v2-control').map((s) => s.id);
    expect(ids).toHaveLength(1);
    expect((await violations(scope, ids)).map((v) => [v.rule, v.specRef, v.message, v.path])).toEqual([
      ['tools/arguments-schema', `${V2026} server/tools#calling-tools`, 'c2s request tools/call', '/params/arguments/a'],
    ]);
  });

  it('2026-07-28 by negotiation (versionNegotiation auto: server/discover, then modern): no spec violations', async () => {
    await v2Session(scope.proxy.url, 'lint-v2-auto', 'auto', server.notify);
    await scope.settle();
    const sessions = sessionsOf(scope, 'lint-v2-auto');
    expect(sessions.map((x) => x.protocolVersion)).toEqual([V2026]);
    expect(await violations(scope, [sessions[0].id])).toEqual([]);
  });

  it("the client's default (2025-11-25 initialize, the handler's stateless legacy serving): no spec violations", async () => {
    await v2Session(scope.proxy.url, 'lint-v2-default', 'default', server.notify);
    await scope.settle();
    const sessions = sessionsOf(scope, 'lint-v2-default');
    expect(sessions).toHaveLength(1);
    expect(sessions[0].protocolVersion).toBe('2025-11-25');
    expect(await violations(scope, [sessions[0].id])).toEqual([]);
  });
});
