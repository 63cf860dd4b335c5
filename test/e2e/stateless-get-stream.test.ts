/**
 * A stateless Streamable HTTP server (the official SDK's `StreamableHTTPServerTransport` with
 * `sessionIdGenerator: undefined`: no Mcp-Session-Id anywhere) answers the client's standalone
 * `GET /mcp` with `200 text/event-stream`, as the MCP Inspector CLI and the SDK client see it. That
 * stream is Streamable HTTP's, not the legacy HTTP+SSE transport's: through mcpscope it must join
 * the stateless session (carrier get-sse), not open a second session of transport legacy-sse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';

let http: Server;
let url: string;
let scope: Mcpscope;

beforeAll(async () => {
  // The SDK's stateless pattern: a fresh server and transport per request, GET included (the
  // transport answers GET with a stream, as the Inspector CLI saw).
  http = createServer((req, res) => {
    void (async () => {
      const mcp = new McpServer({ name: 'stateless-sdk', version: '1.0.0' });
      mcp.registerTool('ping_tool', { description: 'answers pong' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void mcp.close());
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
    })();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  scope = await startMcpscope({ target: url, port: 0, uiPort: false });
});

afterAll(async () => {
  await scope?.close();
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
});

describe("a stateless SDK server's GET stream", () => {
  it('joins the stateless session as its standalone stream (get-sse), with no legacy-sse session', async () => {
    const client = new Client({ name: 'stateless-get', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
    await client.connect(transport);
    const get = await scope.waitFor((store) => [...store.exchanges.values()].find((x) => x.method === 'GET' && x.status !== undefined));
    expect(get.status).toBe(200);
    expect(get.requestHeaders['mcp-protocol-version']).toBeDefined();
    expect(get.responseHeaders?.['mcp-session-id']).toBeUndefined();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ping_tool']);
    await client.close();
    await scope.waitFor((store) => store.exchanges.get(get.id)?.endedAt !== undefined);
    await scope.settle();

    const sessions = [...scope.store.sessions.values()];
    expect(sessions.map((s) => s.transport)).toEqual(['streamable-http']);
    const [session] = sessions;
    expect(session).toMatchObject({ clientInfo: { name: 'stateless-get' }, status: 'open', grouping: expect.any(String) });
    expect(session.mcpSessionId).toBeUndefined();
    const stream = scope.store.exchanges.get(get.id)!;
    expect(stream).toMatchObject({ sessionId: session.id, carrier: 'get-sse', aborted: 'client' });
    expect(stream.hints.map((h) => h.code)).toContain('standalone-stream');
    expect(session.counts.exchanges).toBe([...scope.store.exchanges.values()].length);
  });
});

describe('a GET event stream without a session id, by what the wire says', () => {
  let upstream: ScriptedUpstream;
  let scripted: Mcpscope;
  beforeAll(async () => {
    const initResult = { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'scripted', version: '1' } };
    upstream = await startScriptedUpstream({
      'POST /mcp': (_req, res, body) => {
        const m = JSON.parse(body.toString('utf8')) as { id?: number; method: string };
        if (m.id === undefined) return void res.writeHead(202).end();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: m.method === 'initialize' ? initResult : {} }));
      },
      // What the Inspector CLI gets from a stateless server: a stream, no session id, no endpoint event.
      'GET /mcp': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(': open\n\n');
        setTimeout(() => res.end(), 50);
      },
      // The legacy transport's stream: its first event names the endpoint.
      'GET /sse': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: endpoint\ndata: /messages?sessionId=abc\n\n');
        setTimeout(() => res.end(), 50);
      },
    });
    scripted = await startMcpscope({ target: `${upstream.origin}/mcp`, port: 0, uiPort: false });
  });
  afterAll(async () => {
    await scripted?.close();
    await upstream?.close();
  });

  const post = (body: unknown) =>
    fetch(`${scripted.proxy.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify(body),
    });
  const getStream = async (path: string, headers: Record<string, string>) => {
    const res = await fetch(`${scripted.proxy.origin}${path}`, { headers: { accept: 'text/event-stream', ...headers } });
    await res.text();
  };

  it('GET /mcp with MCP-Protocol-Version is Streamable HTTP; GET /sse whose first event names the endpoint is legacy', async () => {
    await (
      await post({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'inspector-like', version: '1' } },
      })
    ).text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
    await getStream('/mcp', { 'mcp-protocol-version': '2025-11-25' });
    // Without the header too: it goes to the endpoint the stateless POSTs went to.
    await getStream('/mcp', {});
    await getStream('/sse', {});
    const settled = await scripted.waitFor((store) =>
      [...store.exchanges.values()].filter((x) => x.method === 'GET' && x.endedAt !== undefined).length === 3 ? store : undefined,
    );
    const sessions = [...settled.sessions.values()];
    expect(sessions.map((s) => s.transport)).toEqual(['streamable-http', 'legacy-sse']);
    const gets = [...settled.exchanges.values()].filter((x) => x.method === 'GET');
    expect(gets.map((x) => [x.url, x.sessionId, x.carrier])).toEqual([
      ['/mcp', sessions[0].id, 'get-sse'],
      ['/mcp', sessions[0].id, 'get-sse'],
      ['/sse', sessions[1].id, 'legacy-sse'],
    ]);
    expect(sessions[0].status).toBe('open');
    expect(sessions[1]).toMatchObject({ endpoint: '/messages?sessionId=abc', status: 'closed' });
  });
});
