/**
 * The forward proxy and HTTPS, on real sockets: an official-SDK server over `node:https` with a
 * leaf from a test CA of its own (not mcpscope's), reached through CONNECT.
 * - decrypted (mcpscope's CA, the test CA given as --upstream-ca): same results as directly,
 *   every frame recorded, no byte rewritten; SSE streams event by event; disconnects propagate;
 * - the upstream's certificate not trusted by mcpscope: a 502 naming it, recorded;
 * - mcpscope's certificate not trusted by the client: recorded, naming the CA file;
 * - blind tunnels: a host outside --intercept, a client offering only h2, a WebSocket upgrade.
 */
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { connect as http2Connect, createSecureServer, type Http2SecureServer } from 'node:http2';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { channel } from 'node:diagnostics_channel';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { startMcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';
import type { ExchangeInfo } from '../../proxy/core/model/events.js';
import type { EventStore } from '../../proxy/recorder/store/event-store.js';
import { firstText } from '../support/mcp-results.js';
import {
  connectThrough,
  direct,
  makeTestCa,
  nextEvent,
  startSdkServer,
  viaProxy,
  type ClientFetch,
  type ClosedEarly,
  type SdkServer,
  type TestCa,
} from '../support/tls-peers.js';

let testCa: TestCa;
let server: SdkServer;
/** Decrypts every host; trusts the test CA upstream. */
let scope: McpscopeCore;

let tunnelsOpened = 0;
const onProxyConnected = () => void (tunnelsOpened += 1);

beforeAll(async () => {
  channel('undici:proxy:connected').subscribe(onProxyConnected);
  testCa = await makeTestCa();
  server = await startSdkServer({ tls: testCa.leaf });
  scope = await startMcpscope({ forward: { port: 0, upstreamCa: [testCa.ca.certPem] }, uiPort: 0 });
});

afterAll(async () => {
  channel('undici:proxy:connected').unsubscribe(onProxyConnected);
  await scope?.close();
  await server?.close();
  testCa?.remove();
});

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const connects = (store: EventStore): ExchangeInfo[] => [...store.exchanges.values()].filter((x) => x.method === 'CONNECT');
const modifications = (s: McpscopeCore) => s.store.snapshot().filter((e) => e.type === 'modification');
/** What the recorder says about a tunnel relayed blind (the request record's `tunnel` reason, as a hint). */
const tunnelNote = (x: ExchangeInfo) => x.hints.find((h) => h.code === 'tunnel')?.text ?? '';

async function connectSdk(name: string, via: ClientFetch, url = server.url) {
  const client = new Client({ name, version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: via.fetch });
  await client.connect(transport);
  return { client, transport };
}

async function tlsScenario(name: string, via: ClientFetch) {
  const { client, transport } = await connectSdk(name, via);
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'über TLS' } });
    const progress: number[] = [];
    const waiting = client.callTool({ name: 'progress-then-wait', arguments: {} }, undefined, {
      onprogress: (p) => {
        progress.push(p.progress);
        server.release();
      },
    });
    const waited = await waiting;
    const ping = await client.ping();
    return { server: client.getServerVersion(), tools, add, echo, waited, progress, ping };
  } finally {
    await transport.terminateSession();
    await client.close();
  }
}

describe('HTTPS decrypted with mcpscope’s CA', () => {
  it('gives the SDK client the same results as a direct connection, records every frame, rewrites nothing', async () => {
    const plain = direct(testCa.ca.certPem);
    const directResult = await tlsScenario('tls-direct', plain).finally(() => plain.close());
    expect(firstText(directResult.add)).toBe('5');
    expect(directResult.progress).toEqual([1]);
    const via = viaProxy(scope.forwardProxy!.origin, { ca: scope.ca!.certPem });
    const before = tunnelsOpened;
    const proxied = await tlsScenario('tls-proxied', via).finally(() => via.close());
    expect(proxied).toEqual(directResult);
    expect(tunnelsOpened).toBeGreaterThan(before);

    const session = await scope.waitFor((s) =>
      [...s.sessions.values()].find((x) => x.clientInfo?.name === 'tls-proxied' && x.status === 'closed'),
    );
    expect(session.target).toBe(server.origin);
    expect(session.serverInfo).toEqual({ name: 'tls-peer', version: '1.2.3' });
    const own = [...scope.store.exchanges.values()].filter((x) => x.sessionId === session.id);
    expect(own.length).toBeGreaterThan(4);
    for (const x of own) expect(x.upstreamUrl).toBe(`https://localhost:${server.port}/mcp`);
    const messages = scope.store.messages(session.id);
    const requests = messages.filter((m) => m.kind === 'request' && m.dir === 'c2s');
    expect(requests.map((m) => m.name ?? m.method)).toEqual(['initialize', 'tools/list', 'add', 'echo', 'progress-then-wait', 'ping']);
    for (const r of requests)
      expect(
        messages.filter((m) => m.kind === 'response' && m.pair === r.seq),
        `${r.method} answered`,
      ).toHaveLength(1);
    const waitReq = requests.find((r) => r.name === 'progress-then-wait')!;
    const progress = messages.filter((m) => m.method === 'notifications/progress');
    expect(progress).toHaveLength(1);
    expect(progress[0].pair).toBe(waitReq.seq);
    expect(modifications(scope)).toEqual([]);
    // Decrypted: no blind CONNECT exchange for it.
    expect(connects(scope.store)).toEqual([]);
  });
});

describe('SSE and disconnects through a decrypted tunnel', () => {
  it('relays the POST stream event by event: the client sees the progress while the call is still held', async () => {
    const via = viaProxy(scope.forwardProxy!.origin, { ca: scope.ca!.certPem });
    const { client, transport } = await connectSdk('tls-streaming', via);
    try {
      let sawProgress!: () => void;
      const progressed = new Promise<void>((r) => (sawProgress = r));
      let answered = false;
      const call = client
        .callTool({ name: 'progress-then-wait', arguments: {} }, undefined, { onprogress: () => sawProgress() })
        .then((r) => ((answered = true), r));
      // The server answers only after release(): a proxy holding the stream back would hang here.
      await progressed;
      expect(answered).toBe(false);
      server.release();
      expect(firstText(await call)).toBe('released');
    } finally {
      await transport.terminateSession();
      await client.close();
      await via.close();
    }
  }, 10_000);

  it('relays the standalone GET stream event by event while it stays open', async () => {
    const via = viaProxy(scope.forwardProxy!.origin, { ca: scope.ca!.certPem });
    const { client, transport } = await connectSdk('tls-get-stream', via);
    const sid = transport.sessionId!;
    const getStream = server.getStreams.has(sid)
      ? Promise.resolve(sid)
      : nextEvent<string>(server.events, 'get-stream', (id) => id === sid);
    const received: LoggingMessageNotification['params'][] = [];
    let onLog: (() => void) | undefined;
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      received.push(n.params);
      onLog?.();
    });
    const next = () => new Promise<void>((r) => (onLog = r));
    try {
      await getStream;
      const mcp = server.serverOf(sid)!;
      for (const n of [1, 2]) {
        const got = next();
        await mcp.server.sendLoggingMessage({ level: 'info', data: `event ${n}` });
        await got;
        expect(received.map((p) => p.data)).toEqual(n === 1 ? ['event 1'] : ['event 1', 'event 2']);
      }
      // Recorded from the GET stream while it is still open.
      const logs = await scope.waitFor((s) => {
        const session = [...s.sessions.values()].find((x) => x.mcpSessionId === sid);
        const ms = session ? s.messages(session.id).filter((m) => m.method === 'notifications/message') : [];
        return ms.length === 2 ? ms : undefined;
      });
      expect(logs.every((m) => m.carrier === 'get-sse')).toBe(true);
      expect(scope.store.exchanges.get(logs[0].exchangeId!)?.endedAt).toBeUndefined();
    } finally {
      await transport.terminateSession();
      await client.close();
      await via.close();
    }
  }, 10_000);

  it('closes the server’s request when the client aborts a call, before and after the response head', async () => {
    const jsonServer = await startSdkServer({ tls: testCa.leaf, json: true });
    try {
      for (const target of [server, jsonServer]) {
        const via = viaProxy(scope.forwardProxy!.origin, { ca: scope.ca!.certPem });
        const { client, transport } = await connectSdk(`tls-abort-${target === server ? 'sse' : 'json'}`, via, target.url);
        try {
          const headers = {
            ...JSON_HEADERS,
            'mcp-session-id': transport.sessionId!,
            'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
          };
          const abort = new AbortController();
          const started = once(target.events, 'hang-started');
          const closed = nextEvent<ClosedEarly>(target.events, 'closed-early', (c) => c.rpcMethod === 'tools/call');
          const res = via.fetch(target.url, {
            method: 'POST',
            headers,
            body: '{"jsonrpc":"2.0","id":"hang-1","method":"tools/call","params":{"name":"hang","arguments":{}}}',
            signal: abort.signal,
          });
          if (target === server) {
            // SSE: the head arrives at once; the body is still open when the client goes away.
            const r = await res;
            expect(r.headers.get('content-type')).toMatch(/text\/event-stream/);
            await started;
            abort.abort();
            await r.text().catch(() => undefined);
          } else {
            // JSON: nothing has been answered yet when the client goes away.
            await started;
            abort.abort();
            await expect(res).rejects.toThrow();
          }
          expect(await closed).toMatchObject({ method: 'POST', rpcMethod: 'tools/call' });
          // Recorded: the exchange that carried the call, aborted by the client.
          const x = await scope.waitFor((s) => {
            const session = [...s.sessions.values()].find((e) => e.mcpSessionId === transport.sessionId);
            const call = session && s.messages(session.id).find((m) => m.kind === 'request' && m.id === 'hang-1');
            const carrier = call?.exchangeId !== undefined ? s.exchanges.get(call.exchangeId) : undefined;
            return carrier?.aborted !== undefined ? carrier : undefined;
          });
          expect(x.aborted).toBe('client');
          expect(x.upstreamUrl).toBe(target.url);
        } finally {
          await transport.terminateSession().catch(() => undefined);
          await client.close();
          await via.close();
        }
      }
    } finally {
      await jsonServer.close();
    }
  }, 10_000);
});

describe('trust failures', () => {
  it('answers 502 naming the certificate problem when mcpscope does not trust the upstream, and records it', async () => {
    const untrusting = await startMcpscope({ forward: { port: 0 }, uiPort: false });
    try {
      const seen = server.seen.length;
      const via = viaProxy(untrusting.forwardProxy!.origin, { ca: untrusting.ca!.certPem });
      try {
        const res = await via.fetch(server.url, {
          method: 'POST',
          headers: JSON_HEADERS,
          body: '{"jsonrpc":"2.0","id":7,"method":"ping"}',
        });
        expect(res.status).toBe(502);
        expect(res.headers.get('x-mcpscope-error')).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
        const body = (await res.json()) as { id: unknown; error: { message: string } };
        expect(body.id).toBe(7);
        expect(body.error.message).toMatch(/TLS certificate is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
        expect(body.error.message).toMatch(/--upstream-ca/);
        // The SDK client fails at once with that text instead of waiting.
        const client = new Client({ name: 'untrusted-upstream', version: '1' });
        await expect(client.connect(new StreamableHTTPClientTransport(new URL(server.url), { fetch: via.fetch }))).rejects.toThrow(
          /UNABLE_TO_VERIFY_LEAF_SIGNATURE/,
        );
      } finally {
        await via.close();
      }
      expect(server.seen.length).toBe(seen);
      const failed = await untrusting.waitFor((s) => {
        const xs = [...s.exchanges.values()].filter((x) => x.status === 502 && x.endedAt !== undefined);
        return xs.length === 2 ? xs : undefined;
      });
      for (const x of failed) {
        expect(x.upstreamUrl).toBe(server.url);
        expect(x.error).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
      }
      const problems = untrusting.store.snapshot().filter((e) => e.type === 'problem' && e.code === 'upstream-unreachable');
      expect(problems).toHaveLength(2);
      for (const p of problems) expect(p.type === 'problem' && p.text).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    } finally {
      await untrusting.close();
    }
  });

  it('records a client refusing mcpscope’s certificate, naming the CA file to trust', async () => {
    const seen = server.seen.length;
    const refusals = (store: EventStore) => connects(store).filter((x) => x.aborted === 'client');
    const before = refusals(scope.store).length;
    // Trusting Node's roots only (then the test CA only): neither knows mcpscope's CA.
    for (const ca of [undefined, testCa.ca.certPem]) {
      const via = viaProxy(scope.forwardProxy!.origin, { ca });
      try {
        const err = await via.fetch(server.url).then(
          () => undefined,
          (e: Error & { cause?: { code?: string } }) => e,
        );
        expect(err?.cause?.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      } finally {
        await via.close();
      }
    }
    expect(server.seen.length).toBe(seen);
    const refused = await scope.waitFor((s) => {
      const xs = refusals(s);
      return xs.length === before + 2 ? xs.slice(before) : undefined;
    });
    for (const x of refused) {
      expect(x.url).toBe(`localhost:${server.port}`);
      expect(x.error).toMatch(/client refused mcpscope's certificate for localhost/);
      expect(x.error).toContain(scope.ca!.certPath);
    }
  });
});

describe('blind tunnels', () => {
  it('a blind tunnel still open when mcpscope shuts down is recorded as cut by mcpscope', async () => {
    const blind = await startMcpscope({ forward: { port: 0, intercept: ['other.example'] }, uiPort: false });
    try {
      const c = await connectThrough(blind.forwardProxy!.origin, `localhost:${server.port}`);
      expect(c.status).toBe(200);
      c.socket.on('error', () => undefined);
      // Tunnels do not hold shutdown: cut at once, mcpscope's doing (it was recorded as an ordinary end).
      await blind.shutdown({ graceMs: 60_000, reason: 'test' });
      const [x] = connects(blind.store);
      expect(x?.aborted).toBe('proxy');
      expect(x?.error).toContain('mcpscope shut down (test)');
    } finally {
      await blind.close();
    }
  });

  it('tunnels a host outside --intercept without decrypting: the client sees the server’s own certificate', async () => {
    const blind = await startMcpscope({
      forward: { port: 0, intercept: ['other.example'], upstreamCa: [testCa.ca.certPem] },
      uiPort: false,
    });
    try {
      // One request on a fresh client: one CONNECT exchange.
      const one = viaProxy(blind.forwardProxy!.origin, { ca: testCa.ca.certPem });
      const res = await one.fetch(server.url, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('tls-peer');
      await one.close();
      const [x] = await blind.waitFor(() => {
        const xs = connects(blind.store).filter((e) => e.endedAt !== undefined);
        return xs.length > 0 ? xs : undefined;
      });
      expect(connects(blind.store)).toHaveLength(1);
      expect(x.url).toBe(`localhost:${server.port}`);
      expect(x.upstreamUrl).toBe(server.origin);
      expect(x.status).toBe(200);
      expect(x.requestBytes).toBeGreaterThan(0);
      expect(x.responseBytes).toBeGreaterThan(0);
      expect(tunnelNote(x)).toMatch(/localhost matches no --intercept pattern/);

      // Through the tunnel the client shakes hands with the server itself: the certificate is the test CA's leaf.
      const c = await connectThrough(blind.forwardProxy!.origin, `localhost:${server.port}`);
      expect(c.status).toBe(200);
      const raw = tlsConnect({ socket: c.socket, servername: 'localhost', ca: testCa.ca.certPem });
      await once(raw, 'secureConnect');
      expect(raw.getPeerCertificate().issuer.CN).toBe(testCa.commonName);
      raw.end();
      await once(raw, 'close');
      await blind.waitFor((s) => connects(s).filter((e) => e.endedAt !== undefined).length === 2 || undefined);

      // A whole SDK session, the client trusting only the test CA: it works end to end.
      const via = viaProxy(blind.forwardProxy!.origin, { ca: testCa.ca.certPem });
      const before = tunnelsOpened;
      const result = await tlsScenario('blind-client', via).finally(() => via.close());
      expect(firstText(result.add)).toBe('5');
      const opened = tunnelsOpened - before;
      expect(opened).toBeGreaterThan(0);
      await blind.waitFor((s) => connects(s).filter((e) => e.endedAt !== undefined).length === opened + 2 || undefined);
      expect(
        connects(blind.store).every((e) => e.requestBytes > 0 && e.responseBytes > 0 && /no --intercept pattern/.test(tunnelNote(e))),
      ).toBe(true);
      // Nothing was read: no MCP session, no message.
      expect(blind.store.snapshot().filter((e) => e.type === 'message')).toEqual([]);
      expect([...blind.store.sessions.values()].filter((s) => s.transport !== 'http')).toEqual([]);
    } finally {
      await blind.close();
    }
  });

  it('decrypts a host that --intercept names: a client trusting only the server’s CA fails, one trusting mcpscope’s works', async () => {
    const intercepting = await startMcpscope({
      forward: { port: 0, intercept: ['other.example', 'LOCALHOST'], upstreamCa: [testCa.ca.certPem] },
      uiPort: false,
    });
    try {
      const serverOnly = viaProxy(intercepting.forwardProxy!.origin, { ca: testCa.ca.certPem });
      const err = await serverOnly.fetch(server.url).then(
        () => undefined,
        (e: Error & { cause?: { code?: string } }) => e,
      );
      await serverOnly.close();
      expect(err?.cause?.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      const via = viaProxy(intercepting.forwardProxy!.origin, { ca: intercepting.ca!.certPem });
      const result = await tlsScenario('intercepted', via).finally(() => via.close());
      expect(firstText(result.add)).toBe('5');
      const session = await intercepting.waitFor((s) =>
        [...s.sessions.values()].find((x) => x.clientInfo?.name === 'intercepted' && x.status === 'closed'),
      );
      expect(intercepting.store.messages(session.id).some((m) => m.name === 'add' && m.kind === 'response')).toBe(true);
    } finally {
      await intercepting.close();
    }
  });

  it('tunnels a client that offers only h2 (ALPN) blind: it gets the server’s real certificate', async () => {
    const h2: Http2SecureServer = createSecureServer(
      { key: testCa.leaf.keyPem, cert: testCa.leaf.certPem, allowHTTP1: false },
      (req, res) => res.end(`h2 ok ${req.url}`),
    );
    h2.listen(0, '127.0.0.1');
    await once(h2, 'listening');
    const port = (h2.address() as AddressInfo).port;
    try {
      const c = await connectThrough(scope.forwardProxy!.origin, `localhost:${port}`);
      expect(c.status).toBe(200);
      const tls = tlsConnect({ socket: c.socket, servername: 'localhost', ALPNProtocols: ['h2'], ca: testCa.ca.certPem });
      await once(tls, 'secureConnect');
      expect(tls.alpnProtocol).toBe('h2');
      expect(tls.getPeerCertificate().issuer.CN).toBe(testCa.commonName);
      const session = http2Connect(`https://localhost:${port}`, { createConnection: () => tls });
      const stream = session.request({ ':path': '/over-h2' });
      let body = '';
      stream.setEncoding('utf8');
      stream.on('data', (d: string) => (body += d));
      const [headers] = (await once(stream, 'response')) as [Record<string, unknown>];
      await once(stream, 'end');
      expect(headers[':status']).toBe(200);
      expect(body).toBe('h2 ok /over-h2');
      session.close();
      await once(session, 'close');
      const x = await scope.waitFor((s) =>
        [...s.exchanges.values()].find((e) => e.method === 'CONNECT' && e.url === `localhost:${port}` && e.endedAt !== undefined),
      );
      expect(x.status).toBe(200);
      expect(x.upstreamUrl).toBe(`https://localhost:${port}`);
      expect(x.requestBytes).toBeGreaterThan(0);
      expect(x.responseBytes).toBeGreaterThan(0);
      expect(tunnelNote(x)).toMatch(/offered only h2 \(ALPN\)/);
    } finally {
      h2.close();
    }
  });

  it('relays a WebSocket upgrade inside a decrypted tunnel blind, both ways', async () => {
    const https: HttpsServer = createHttpsServer({ key: testCa.leaf.keyPem, cert: testCa.leaf.certPem });
    const wss = new WebSocketServer({ server: https });
    wss.on('connection', (ws) => {
      ws.send('hello from the server');
      ws.on('message', (data) => ws.send(`echo: ${String(data)}`));
    });
    https.listen(0, '127.0.0.1');
    await once(https, 'listening');
    const port = (https.address() as AddressInfo).port;
    try {
      const c = await connectThrough(scope.forwardProxy!.origin, `localhost:${port}`);
      expect(c.status).toBe(200);
      const tls: TLSSocket = tlsConnect({ socket: c.socket, servername: 'localhost', ca: scope.ca!.certPem });
      await once(tls, 'secureConnect');
      // Decrypted: the client is talking to mcpscope's leaf, and the upgrade goes on from there.
      expect(tls.getPeerCertificate().issuer.CN).toMatch(/^mcpscope local CA/);
      const ws = new WebSocket(`wss://localhost:${port}/ws?x=1`, { createConnection: () => tls });
      const inbox: string[] = [];
      let wake: (() => void) | undefined;
      ws.on('message', (d) => {
        inbox.push(String(d));
        wake?.();
      });
      const nextMessage = () =>
        inbox.length > 0
          ? Promise.resolve(inbox.shift()!)
          : new Promise<string>((r) => (wake = () => ((wake = undefined), r(inbox.shift()!))));
      await once(ws, 'open');
      expect(await nextMessage()).toBe('hello from the server');
      ws.send('ping 1');
      expect(await nextMessage()).toBe('echo: ping 1');
      ws.send('ping 2');
      expect(await nextMessage()).toBe('echo: ping 2');
      ws.close();
      await once(ws, 'close');
      const x = await scope.waitFor((s) => [...s.exchanges.values()].find((e) => e.url === '/ws?x=1' && e.endedAt !== undefined));
      expect(x.method).toBe('GET');
      expect(x.upstreamUrl).toBe(`https://localhost:${port}`);
      expect(x.requestHeaders.upgrade).toBe('websocket');
      expect(x.requestBytes).toBeGreaterThan(0);
      expect(x.responseBytes).toBeGreaterThan(0);
      expect(x.aborted).toBeUndefined();
      expect(tunnelNote(x)).toMatch(/a protocol upgrade \(websocket\)/);
      expect(scope.store.snapshot().filter((e) => e.type === 'message' && e.exchangeId === x.id)).toEqual([]);
    } finally {
      wss.close();
      https.closeAllConnections();
      https.close();
    }
  });
});
