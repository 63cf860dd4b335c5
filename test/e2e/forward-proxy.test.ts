/**
 * The forward proxy over plain HTTP, on real sockets: @modelcontextprotocol/server-everything
 * reached through mcpscope as the client's HTTP proxy, in absolute-form (`POST http://host/mcp`)
 * and through a CONNECT tunnel carrying plain HTTP (undici's ProxyAgent with proxyTunnel
 * false/true). The SDK client's results equal a direct connection's, every frame is recorded and
 * correlated, and nothing is rewritten (zero `modification` events). Then the guards (requests
 * that are not for a proxy, loops, malformed CONNECTs) and an unreachable upstream.
 * (HTTPS, interception and tunnels: forward-proxy-tls.test.ts.)
 */
import { channel } from 'node:diagnostics_channel';
import { request as httpRequest, createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';
import type { ExchangeInfo, MessageEvent, SessionInfo } from '../../proxy/core/model/events.js';
import { startEverythingServer, type RunningPeer } from '../support/peers.js';
import { everythingScenario } from '../support/everything-scenario.js';
import { closedPort, connectThrough, rawExchange, readToEnd, viaProxy, type ClientFetch } from '../support/tls-peers.js';

/** CONNECTs undici's ProxyAgent opened (its diagnostics channel), to tell the two modes apart. */
let tunnelsOpened = 0;
const onProxyConnected = () => void (tunnelsOpened += 1);

const scenario = (url: string, clientName: string, via?: ClientFetch) =>
  everythingScenario(url, { clientName, sampling: true, fetch: via?.fetch });

async function messagesOf(scope: McpscopeCore, session: SessionInfo): Promise<MessageEvent[]> {
  const res = await fetch(`${scope.ui!.origin}/api/sessions/${session.id}/messages`, {
    headers: { authorization: `Bearer ${scope.token}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as MessageEvent[];
}

function exchanges(scope: McpscopeCore): ExchangeInfo[] {
  return [...scope.store.exchanges.values()];
}

let peer: RunningPeer;
let scope: McpscopeCore;

beforeAll(async () => {
  channel('undici:proxy:connected').subscribe(onProxyConnected);
  peer = await startEverythingServer('streamableHttp');
  scope = await startMcpscope({ forward: { port: 0 }, uiPort: 0 });
});

afterAll(async () => {
  channel('undici:proxy:connected').unsubscribe(onProxyConnected);
  await scope?.close();
  await peer?.close();
});

describe('server-everything through the forward proxy (plain HTTP)', () => {
  const modes = [
    { name: 'absolute-form', tunnel: false, client: 'fwd-absolute' },
    { name: 'CONNECT tunnel', tunnel: true, client: 'fwd-tunnel' },
  ];
  let directResult: Awaited<ReturnType<typeof scenario>>;

  beforeAll(async () => {
    directResult = await scenario(peer.url, 'fwd-direct');
    // Sanity: the scenario really exercises what it claims.
    expect(directResult.tools).toContain('trigger-sampling-request');
    expect(directResult.completionOrder).toEqual(['fast', 'long']);
    expect(directResult.progress).toEqual([1, 2, 3, 4]);
    expect(JSON.stringify(directResult.sampled)).toContain('sampled 7');
  });

  for (const mode of modes) {
    it(`${mode.name}: the SDK client gets the same results as directly`, async () => {
      const via = viaProxy(scope.forwardProxy!.origin, { tunnel: mode.tunnel });
      const before = tunnelsOpened;
      try {
        expect(await scenario(peer.url, mode.client, via)).toEqual(directResult);
      } finally {
        await via.close();
      }
      // It really went the way the mode says: CONNECTs only when tunnelling.
      if (mode.tunnel) expect(tunnelsOpened).toBeGreaterThan(before);
      else expect(tunnelsOpened).toBe(before);
    });

    it(`${mode.name}: every frame is recorded, paired and linked, nothing modified`, async () => {
      const session = await scope.waitFor(
        (s) => [...s.sessions.values()].find((x) => x.clientInfo?.name === mode.client && x.status === 'closed'),
        15_000,
      );
      const peerOrigin = new URL(peer.url).origin;
      expect(session.transport).toBe('streamable-http');
      expect(session.closeReason).toBe('deleted');
      expect(session.target).toBe(peerOrigin);
      expect(session.serverInfo?.name).toBe((directResult.server as { name: string }).name);
      const own = exchanges(scope).filter((x) => x.sessionId === session.id);
      expect(own.length).toBeGreaterThan(5);
      for (const x of own) expect(x.upstreamUrl).toBe(`${peerOrigin}/mcp`);
      expect(own.every((x) => x.url === '/mcp')).toBe(true);
      // Answered by the server, none cut off by the proxy or the upstream (a client closing its GET stream may be).
      expect(own.filter((x) => x.status === undefined || x.status >= 300 || (x.aborted !== undefined && x.aborted !== 'client'))).toEqual(
        [],
      );

      const messages = await messagesOf(scope, session);
      for (let i = 1; i < messages.length; i++) expect(messages[i].seq).toBeGreaterThan(messages[i - 1].seq);
      const requests = messages.filter((m) => m.kind === 'request' && m.dir === 'c2s');
      expect(requests.map((r) => r.method)).toEqual([
        'initialize',
        'tools/list',
        'tools/call',
        'tools/call',
        'tools/call',
        'tools/call',
        'tools/call',
        'prompts/list',
        'resources/list',
        'ping',
      ]);
      // Every response pairs with the request of its id, in its own id space (the sampling answer in the server's).
      const responses = messages.filter((m) => m.kind === 'response' || m.kind === 'error');
      expect(responses).toHaveLength(requests.length + 1);
      for (const r of responses) {
        const req = messages.find((m) => m.seq === r.pair);
        expect(req, `response #${r.seq} is paired`).toBeDefined();
        expect(req!.id).toStrictEqual(r.id);
        expect(req!.dir).not.toBe(r.dir);
      }
      // Out of order: the fast echo, sent after the long call, was answered first.
      const longReq = requests.find((r) => r.name === 'trigger-long-running-operation')!;
      const longRes = responses.find((r) => r.pair === longReq.seq)!;
      const fastReq = requests.filter((r) => r.name === 'echo')[1];
      const fastRes = responses.find((r) => r.pair === fastReq.seq)!;
      expect(fastReq.seq).toBeGreaterThan(longReq.seq);
      expect(fastRes.seq).toBeLessThan(longRes.seq);
      // Progress: every notification linked to the long call by its token, before its answer.
      const progress = messages.filter((m) => m.method === 'notifications/progress');
      expect(progress.map((p) => p.progress?.progress)).toEqual([1, 2, 3, 4]);
      expect(progress.every((p) => p.pair === longReq.seq && p.seq < longRes.seq && p.carrier === 'post-sse')).toBe(true);
      // Sampling: the server's request rode the tool call's stream; the client's answer is paired to it.
      const samplingCall = requests.find((r) => r.name === 'trigger-sampling-request')!;
      const sampling = messages.find((m) => m.method === 'sampling/createMessage' && m.kind === 'request')!;
      expect(sampling.dir).toBe('s2c');
      expect(sampling.parent).toBe(samplingCall.seq);
      const answer = messages.find((m) => m.kind === 'response' && m.pair === sampling.seq)!;
      expect(answer.dir).toBe('c2s');
      expect(JSON.stringify(answer.jsonrpc)).toContain('sampled 7');
      expect(messages.flatMap((m) => m.hints).filter((h) => h.level === 'error')).toEqual([]);
      // Forward mode changes no byte.
      expect(scope.store.snapshot().filter((e) => e.type === 'modification')).toEqual([]);
    });
  }
});

/** A plain HTTP request straight to host:port with the given request-target and headers. */
async function plainRequest(
  port: number,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  const req = httpRequest({ host: '127.0.0.1', port, method: o.method ?? 'GET', path: o.path, headers: o.headers, agent: false });
  req.end(o.body);
  const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
  let body = '';
  for await (const c of res) body += c;
  return { status: res.statusCode ?? 0, body };
}

describe('guards', () => {
  let upstream: Server;
  let upstreamHits = 0;
  let upstreamHeaders: Record<string, unknown> = {};
  let upstreamPort = 0;
  let fwdPort = 0;
  beforeAll(async () => {
    upstream = createServer((req, res) => {
      upstreamHits += 1;
      upstreamHeaders = req.headers;
      res.end('upstream');
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    upstreamPort = (upstream.address() as AddressInfo).port;
    fwdPort = scope.forwardProxy!.port;
  });
  afterAll(async () => {
    upstream.closeAllConnections();
    await new Promise<void>((r) => upstream.close(() => r()));
  });

  it('answers an origin-form request sent straight to the forward port 400, records it, and forwards nothing', async () => {
    const res = await fetch(`${scope.forwardProxy!.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/forward proxy/);
    // Even with a Host header naming a real server, an origin-form request is not routed there.
    const hosted = await plainRequest(fwdPort, { path: '/mcp?via=host', headers: { host: `127.0.0.1:${upstreamPort}` } });
    expect(hosted.status).toBe(400);
    expect(upstreamHits).toBe(0);
    const refused = await scope.waitFor((s) => {
      const xs = [...s.exchanges.values()].filter((x) => x.status === 400 && (x.url === '/mcp' || x.url === '/mcp?via=host'));
      return xs.length === 2 ? xs : undefined;
    });
    for (const x of refused) expect(x.error).toMatch(/Refused by mcpscope.*forward proxy/);
  });

  it('answers an absolute-form request to the proxy itself 508 (a loop)', async () => {
    // An IPv6 literal too: its brackets are not part of the host name the loop check compares.
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      const res = await plainRequest(fwdPort, { path: `http://${host}:${fwdPort}/mcp`, headers: { host: `${host}:${fwdPort}` } });
      expect(res.status).toBe(508);
      expect(res.body).toMatch(/loop/);
    }
    // The same request form to a real server goes through: the 508 is about the target, not the form.
    const ok = await plainRequest(fwdPort, { path: `http://127.0.0.1:${upstreamPort}/x`, headers: { host: `127.0.0.1:${upstreamPort}` } });
    expect(ok).toEqual({ status: 200, body: 'upstream' });
    expect(upstreamHits).toBe(1);
    await scope.waitFor(
      (s) => [...s.exchanges.values()].filter((x) => x.status === 508 && /loop/.test(x.error ?? '')).length === 3 || undefined,
    );
  });

  it('does not pass Proxy-Authorization (addressed to the proxy) on to the server; Authorization goes through', async () => {
    const res = await plainRequest(fwdPort, {
      path: `http://127.0.0.1:${upstreamPort}/auth`,
      headers: {
        host: `127.0.0.1:${upstreamPort}`,
        'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
        authorization: 'Bearer for-the-server',
      },
    });
    expect(res.status).toBe(200);
    expect(upstreamHeaders.authorization).toBe('Bearer for-the-server');
    expect(upstreamHeaders['proxy-authorization']).toBeUndefined();
  });

  it('answers a CONNECT to the proxy itself 508 and a malformed CONNECT 400', async () => {
    for (const authority of [`127.0.0.1:${fwdPort}`, `localhost:${fwdPort}`]) {
      const c = await connectThrough(scope.forwardProxy!.origin, authority);
      expect(c.status).toBe(508);
      expect(await readToEnd(c.socket, c.head)).toMatch(/would loop/);
      c.socket.destroy();
    }
    const nonsense = await rawExchange(fwdPort, 'CONNECT nonsense HTTP/1.1\r\nhost: nonsense\r\n\r\n');
    expect(nonsense).toMatch(/^HTTP\/1\.1 400 /);
    const portZero = await rawExchange(fwdPort, 'CONNECT localhost:0 HTTP/1.1\r\nhost: localhost:0\r\n\r\n');
    expect(portZero).toMatch(/^HTTP\/1\.1 400 [\s\S]*host:port/);
    // Nothing of it reached the server (its hits: the loop test's and the Proxy-Authorization test's).
    expect(upstreamHits).toBe(2);
  });
});

describe('an unreachable upstream', () => {
  let port = 0;
  let blind: McpscopeCore;
  beforeAll(async () => {
    port = await closedPort();
    blind = await startMcpscope({ forward: { port: 0, intercept: ['other.example'] }, uiPort: false });
  });
  afterAll(async () => {
    await blind?.close();
  });

  for (const tunnel of [false, true]) {
    it(`${tunnel ? 'through a CONNECT tunnel (decrypted)' : 'in absolute-form'}: 502 naming the refused connection, recorded`, async () => {
      const via = viaProxy(scope.forwardProxy!.origin, { tunnel });
      try {
        const res = await via.fetch(`http://127.0.0.1:${port}/mcp?t=${tunnel}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: '{"jsonrpc":"2.0","id":7,"method":"ping"}',
        });
        expect(res.status).toBe(502);
        expect(res.headers.get('x-mcpscope-error')).toBe('ECONNREFUSED');
        const body = (await res.json()) as { id: unknown; error: { message: string } };
        expect(body.id).toBe(7);
        expect(body.error.message).toMatch(/connection refused/);
      } finally {
        await via.close();
      }
      const x = await scope.waitFor((s) => [...s.exchanges.values()].find((e) => e.url === `/mcp?t=${tunnel}` && e.endedAt !== undefined));
      expect(x.status).toBe(502);
      expect(x.upstreamUrl).toBe(`http://127.0.0.1:${port}/mcp?t=${tunnel}`);
      expect(x.error).toMatch(/connection refused/);
    });
  }

  it('a WebSocket upgrade in absolute-form: 502 naming the refused connection (not a bare hang-up), recorded', async () => {
    const proxyPort = Number(new URL(scope.forwardProxy!.origin).port);
    const text = await rawExchange(
      proxyPort,
      `GET http://127.0.0.1:${port}/ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 502 /);
    expect(text).toMatch(/could not open a tunnel to 127\.0\.0\.1:\d+: connection refused/);
    const x = await scope.waitFor((st) => [...st.exchanges.values()].find((e) => e.url === '/ws' && e.endedAt !== undefined));
    expect(x.status).toBe(502);
  });

  it('through a blind CONNECT tunnel: the CONNECT is answered 502 naming the refused connection, recorded', async () => {
    const c = await connectThrough(blind.forwardProxy!.origin, `127.0.0.1:${port}`);
    expect(c.status).toBe(502);
    expect(c.headers['x-mcpscope-error']).toBe('ECONNREFUSED');
    expect(await readToEnd(c.socket, c.head)).toMatch(/could not open a tunnel to 127\.0\.0\.1:\d+: connection refused/);
    c.socket.destroy();
    const x = await blind.waitFor((s) => [...s.exchanges.values()].find((e) => e.method === 'CONNECT' && e.endedAt !== undefined));
    expect(x.url).toBe(`127.0.0.1:${port}`);
    expect(x.status).toBe(502);
    expect(x.error).toMatch(/connection refused/);
  });
});
