/**
 * POST /api/sessions/:id/send on real sockets: official-SDK peers through mcpscope's proxy, the
 * request sent from the UI port going through the proxy like the client's (captured, marked
 * `sentBy`, paired, progress linked), with the client's headers (Mcp-Session-Id, a bearer token),
 * while the client goes on undisturbed. Reverse mode (SSE and JSON answers, a bearer-protected
 * stateless server, a 2026-07-28 scripted server, legacy HTTP+SSE) and forward mode over TLS.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { startMcpscope, type McpscopeCore, type McpscopeOptions } from '../../proxy/app/mcpscope.js';
import type { MessageEvent } from '../../proxy/core/model/events.js';
import { makeTestCa, startSdkServer, viaProxy, type SdkServer } from '../support/tls-peers.js';
import { startScriptedUpstream } from '../support/scripted-upstream.js';
import { startEverythingServer } from '../support/peers.js';

const TOKEN = 'session-send-test-token-0123456789';
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function scopeFor(options: McpscopeOptions): Promise<McpscopeCore> {
  const scope = await startMcpscope({ port: 0, uiPort: 0, token: TOKEN, ...options });
  cleanups.push(() => scope.close());
  return scope;
}

async function sdkServer(options: { json?: boolean } = {}): Promise<SdkServer> {
  const server = await startSdkServer(options);
  cleanups.push(() => server.close());
  return server;
}

async function connect(url: string, init: { fetch?: typeof fetch; headers?: Record<string, string> } = {}) {
  const client = new Client({ name: 'send-e2e', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      ...(init.fetch ? { fetch: init.fetch } : {}),
      ...(init.headers ? { requestInit: { headers: init.headers } } : {}),
    }),
  );
  cleanups.push(() => client.close());
  return client;
}

async function api(
  scope: McpscopeCore,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  const res = await fetch(`${scope.ui!.origin}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // an export: not JSON
  }
  return { status: res.status, body: parsed, text };
}

const send = (scope: McpscopeCore, sessionId: string, body: unknown) => api(scope, `/api/sessions/${sessionId}/send`, body);
const mcpSession = (scope: McpscopeCore) => [...scope.store.sessions.values()].find((s) => s.transport !== 'http')!;
const textOf = (response: unknown) => (response as { result: { content: { text: string }[] } }).result.content[0]!.text;
/** The text of a tool result the SDK client got. */
const callText = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;
const messagesOf = (scope: McpscopeCore, exchangeId: string): MessageEvent[] =>
  scope.store.messages(mcpSession(scope).id).filter((m) => m.exchangeId === exchangeId);

/** A send through the reverse proxy into an SDK session: answer, marking, pairing, progress; the client goes on. */
async function resendScenario(json: boolean) {
  const server = await sdkServer({ json });
  const scope = await scopeFor({ target: server.url });
  const client = await connect(scope.proxy!.url);
  expect(callText(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }))).toBe('3');
  await scope.settle();
  const session = mcpSession(scope);

  const sent = await send(scope, session.id, {
    message: {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms: 1 }, _meta: { progressToken: 'p-send' } },
    },
  });
  expect(sent.status).toBe(200);
  expect(textOf(sent.body.response)).toBe('slept 1');
  expect(sent.body.id).toMatch(/^mcpscope-\d+$/); // the client's id 2 was replaced
  const exchange = scope.store.exchanges.get(sent.body.exchangeId as string)!;
  expect(exchange.sentBy).toBe('send');
  expect(exchange.hints.map((h) => h.code)).toContain('sent-by-mcpscope');
  expect(exchange.carrier).toBe(json ? 'post-json' : 'post-sse');
  const msgs = messagesOf(scope, exchange.id);
  const request = msgs.find((m) => m.dir === 'c2s')!;
  expect(request).toMatchObject({ kind: 'request', sentBy: 'mcpscope', id: sent.body.id, name: 'slow' });
  const response = msgs.find((m) => m.dir === 's2c' && m.kind === 'response')!;
  expect(response.pair).toBe(request.seq);
  expect(response.sentBy).toBeUndefined();
  // Progress rides on the POST's SSE stream (a JSON answer has no room for it).
  if (!json) expect(msgs.find((m) => m.method === 'notifications/progress')!.pair).toBe(request.seq);

  // The client goes on: its ids never met mcpscope's.
  expect(callText(await client.callTool({ name: 'echo', arguments: { message: 'after' } }))).toBe('echo: after');
  await scope.settle();
  const errors = scope.store.messages(session.id).flatMap((m) => m.hints.filter((h) => h.level === 'error'));
  expect(errors).toEqual([]);
  return { scope, session, server };
}

describe('POST /api/sessions/:id/send, reverse proxy', () => {
  it('stateful SDK server, SSE answers: the tool result comes back; the exchange is marked, paired, its progress linked', async () => {
    const { scope, session } = await resendScenario(false);

    // A notification: accepted, and recorded as mcpscope's.
    const note = await send(scope, session.id, { message: { jsonrpc: '2.0', method: 'notifications/roots/list_changed' } });
    expect(note.status).toBe(200);
    expect(note.body.accepted).toBe(true);
    const noted = messagesOf(scope, note.body.exchangeId as string);
    expect(noted).toMatchObject([{ dir: 'c2s', kind: 'notification', sentBy: 'mcpscope' }]);

    // What cannot be sent, in plain words.
    const unknown = await send(scope, 's999', { message: { jsonrpc: '2.0', method: 'ping' } });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'No session s999', code: 'NO_SESSION' } });
    const bad = await send(scope, session.id, { message: { jsonrpc: '2.0', id: 1, result: {} } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/request or a notification/);
    expect(bad.body.code).toBe('BAD_SEND');

    // No answer in time: 504, and the exchange is named.
    const late = await send(scope, session.id, {
      message: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'hang', arguments: {} } },
      timeoutMs: 300,
    });
    expect(late.status).toBe(504);
    expect(late.body.error).toMatch(/No answer within 300 ms/);
    expect(late.body.code).toBe('SEND_FAILED');
    expect(scope.store.exchanges.get(late.body.exchangeId as string)?.sentBy).toBe('send');
  });

  it('stateful SDK server, JSON answers', async () => {
    await resendScenario(true);
  });

  it('the server answers an HTTP error: 502 with its status; a closed session: 400', async () => {
    const { scope, session, server } = await resendScenario(true);
    // The server forgets the session: it answers 404 for its id.
    const sid = [...server.getStreams, ...[session.mcpSessionId!]][0]!;
    await server.serverOf(sid)!.close();
    const gone = await send(scope, session.id, { message: { jsonrpc: '2.0', method: 'tools/list' } });
    expect(gone.status).toBe(502);
    expect(gone.body.upstreamStatus).toBe(404);
    expect(gone.body.code).toBe('SEND_FAILED');
    expect(scope.store.sessions.get(session.id)!.status).toBe('closed'); // recorded as expired
    const closed = await send(scope, session.id, { message: { jsonrpc: '2.0', method: 'tools/list' } });
    expect(closed.status).toBe(400);
    expect(closed.body.error).toMatch(/closed/);
    expect(closed.body.code).toBe('BAD_SEND');
  });

  it("a bearer-protected server accepts the resend (the client's Authorization is reused); the token is shown nowhere", async () => {
    const SECRET = 'sk-send-e2e-bearer-0123456789abcdef';
    const seenAuth: string[] = [];
    const upstream: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
      seenAuth.push(req.headers.authorization ?? '');
      if (req.headers.authorization !== `Bearer ${SECRET}`) return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      const mcp = new McpServer({ name: 'authed', version: '1' });
      mcp.registerTool('whoami', { inputSchema: { x: z.number().optional() } }, async () => ({
        content: [{ type: 'text', text: 'authorized' }],
      }));
      const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void t.close());
      void mcp.connect(t).then(() => t.handleRequest(req, res));
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    cleanups.push(() => new Promise((r) => upstream.close(r)));
    const scope = await scopeFor({ target: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp` });
    const client = await connect(scope.proxy!.url, { headers: { authorization: `Bearer ${SECRET}` } });
    await client.listTools();
    await scope.settle();

    const sent = await send(scope, mcpSession(scope).id, {
      message: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'whoami', arguments: {} } },
    });
    expect(sent.status).toBe(200);
    expect(textOf(sent.body.response)).toBe('authorized');
    expect(seenAuth.every((a) => a === `Bearer ${SECRET}`)).toBe(true);

    expect((await api(scope, '/api/events')).text).not.toContain(SECRET);
    expect((await api(scope, `/api/sessions/${mcpSession(scope).id}/events`)).text).not.toContain(SECRET);
    for (const format of ['ndjson', 'har']) expect((await api(scope, `/api/export?format=${format}`)).text).not.toContain(SECRET);
    expect((await api(scope, `/api/sessions/${mcpSession(scope).id}/export?format=fixture`)).text).not.toContain(SECRET);
    expect(await feedSnapshot(scope)).not.toContain(SECRET);
    expect(scope.store.exchanges.get(sent.body.exchangeId as string)!.requestHeaders?.authorization).not.toContain(SECRET);
  });

  it('2026-07-28 stateless: the resend carries the recorded _meta, and Mcp-Method, Mcp-Name, Mcp-Param-* for the new message', async () => {
    const META = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'stateless-send', version: '0.1.0' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
    };
    const upstream = await startScriptedUpstream({
      'POST /mcp': (_req, res, body) => {
        const m = JSON.parse(body.toString('utf8')) as { id: string | number; method: string; params?: { name?: string } };
        const result =
          m.method === 'tools/list'
            ? {
                tools: [
                  { name: 'deploy', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } },
                ],
              }
            : { content: [{ type: 'text', text: `called ${m.params?.name}` }] };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
      },
    });
    cleanups.push(() => upstream.close());
    const scope = await scopeFor({ target: `${upstream.origin}/mcp` });
    const list = await fetch(scope.proxy!.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-method': 'tools/list',
        'mcp-protocol-version': '2026-07-28',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }),
    });
    expect(list.status).toBe(200);
    await list.text();
    await scope.settle();

    const sent = await send(scope, mcpSession(scope).id, {
      message: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'deploy', arguments: { region: 'eu-west' } } },
    });
    expect(sent.status).toBe(200);
    expect(textOf(sent.body.response)).toBe('called deploy');
    const got = upstream.seen.at(-1)!;
    expect(JSON.parse(got.body.toString('utf8')).params._meta).toEqual(META);
    expect(got.headers).toMatchObject({
      'mcp-method': 'tools/call',
      'mcp-name': 'deploy',
      'mcp-param-region': 'eu-west',
      'mcp-protocol-version': '2026-07-28',
      'x-mcpscope-origin': 'send',
    });
    // Same client identity: the same session, no header mismatch.
    const exchange = scope.store.exchanges.get(sent.body.exchangeId as string)!;
    expect(exchange.sessionId).toBe(mcpSession(scope).id);
    expect(exchange.hints.map((h) => h.code)).not.toContain('header-mismatch');
  });

  it('legacy HTTP+SSE (server-everything): the answer arrives on the GET stream', async () => {
    const peer = await startEverythingServer('sse');
    cleanups.push(() => peer.close());
    const scope = await scopeFor({ target: peer.url });
    const client = new Client({ name: 'send-legacy', version: '1' });
    await client.connect(new SSEClientTransport(new URL(scope.proxy!.url)));
    cleanups.push(() => client.close());
    await client.listTools();
    await scope.settle();
    const session = mcpSession(scope);
    expect(session.transport).toBe('legacy-sse');
    const sent = await send(scope, session.id, {
      message: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: { message: 'legacy' } } },
    });
    expect(sent.status).toBe(200);
    expect(textOf(sent.body.response)).toContain('legacy');
    const response = scope.store.messages(session.id).find((m) => m.dir === 's2c' && m.id === sent.body.id)!;
    expect(response.carrier).toBe('legacy-sse');
    expect(scope.store.exchanges.get(sent.body.exchangeId as string)!.sentBy).toBe('send');
    expect(callText(await client.callTool({ name: 'echo', arguments: { message: 'still' } }))).toContain('still');
  });

  it('--hash-session-ids: the resend still carries the real Mcp-Session-Id', async () => {
    const server = await sdkServer();
    const scope = await scopeFor({ target: server.url, hashSessionIds: true });
    const client = await connect(scope.proxy!.url);
    await client.listTools();
    await scope.settle();
    const sent = await send(scope, mcpSession(scope).id, {
      message: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'add', arguments: { a: 4, b: 5 } } },
    });
    expect(sent.status).toBe(200);
    expect(textOf(sent.body.response)).toBe('9');
  });
});

describe('POST /api/sessions/:id/send, forward proxy', () => {
  it('HTTPS through CONNECT with mcpscope’s CA: the answer comes back, recorded as mcpscope’s', async () => {
    const testCa = await makeTestCa();
    cleanups.push(() => testCa.remove());
    const server = await startSdkServer({ tls: testCa.leaf });
    cleanups.push(() => server.close());
    const scope = await scopeFor({ forward: { port: 0, upstreamCa: [testCa.ca.certPem] } });
    const via = viaProxy(scope.forwardProxy!.origin, { ca: scope.ca!.certPem });
    cleanups.push(() => via.close());
    const client = await connect(server.url, { fetch: via.fetch as typeof fetch });
    await client.listTools();
    await scope.settle();
    const session = mcpSession(scope);
    const sent = await send(scope, session.id, {
      message: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: { message: 'über TLS' } } },
    });
    expect(sent.status).toBe(200);
    expect(textOf(sent.body.response)).toBe('echo: über TLS');
    const exchange = scope.store.exchanges.get(sent.body.exchangeId as string)!;
    expect(exchange).toMatchObject({ sentBy: 'send', sessionId: session.id });
    expect(callText(await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }))).toBe('2');
  });
});

/** The feed's snapshot as text (hello and snapshot messages until `done`). */
async function feedSnapshot(scope: McpscopeCore): Promise<string> {
  const ws = new WebSocket(`${scope.ui!.origin.replace('http', 'ws')}/ws?token=${TOKEN}`);
  const parts: string[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const text = String(data);
      parts.push(text);
      if ((JSON.parse(text) as { type: string; done?: boolean }).done) resolve();
    });
    ws.on('error', reject);
  });
  ws.close();
  return parts.join('\n');
}
