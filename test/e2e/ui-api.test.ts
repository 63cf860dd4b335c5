/**
 * The UI port and the proxy port as a browser, a script or a slow dashboard sees them, over real
 * sockets: the per-launch token on every route (and the WebSocket upgrade), the Host/Origin guards
 * against DNS rebinding, the shape of the session API on real SDK traffic, the WebSocket feed
 * (hello, snapshot, live batches, `since`), a consumer too slow to keep up (dropped, never buffered
 * without bound, never slowing the proxy), the proxy's own errors and header/query transparency,
 * and secret redaction everywhere mcpscope shows traffic.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { startMcpscope, type Mcpscope, type McpscopeOptions } from '../../proxy/app/mcpscope.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { EVENT_SCHEMA_VERSION } from '../../proxy/core/model/events.js';
import type { ExchangeInfo, FeedMessage, McpscopeEvent, MessageEvent, ProblemEvent, SessionInfo } from '../../proxy/core/model/events.js';
import { fromFeed } from '../../proxy/core/model/feed-form.js';
import { deferred, once, startScriptedUpstream, type Handler, type ScriptedUpstream } from '../support/scripted-upstream.js';

// ---------------------------------------------------------------------------------------------
// Resources, closed after every test
// ---------------------------------------------------------------------------------------------

const TOKEN = 'ui-api-test-token-0123456789abcdef';
/** Same length as TOKEN, last character differs. */
const WRONG_SAME_LENGTH = `${TOKEN.slice(0, -1)}0`;
const WRONG_LONGER = `${TOKEN}0`;
const WRONG_SHORT = 'abc';

const cleanups: (() => Promise<void> | void)[] = [];
/** Registers `close` to run after the test (last registered, first closed). */
function track<T>(value: T, close: (v: T) => Promise<void> | void): T {
  cleanups.push(() => close(value));
  return value;
}
afterEach(async () => {
  const errors: unknown[] = [];
  for (const c of cleanups.splice(0).reverse()) {
    try {
      await c();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length > 0) throw errors[0];
});

async function upstreamWith(routes: Record<string, Handler>): Promise<ScriptedUpstream> {
  return track(await startScriptedUpstream(routes), (u) => u.close());
}

async function scopeFor(target: string, options: Partial<McpscopeOptions> = {}): Promise<Mcpscope> {
  return track(await startMcpscope({ target, port: 0, uiPort: 0, token: TOKEN, ...options }), (s) => s.close());
}

/** An upstream that answers every JSON-RPC request POSTed to /mcp with `{ echoed: params }`. */
function jsonRpcEcho(extraHeaders: Record<string, string | string[]> = {}): Handler {
  return (_req, res, body) => {
    const msg = JSON.parse(body.toString('utf8')) as { id?: string | number; params?: unknown };
    if (msg.id === undefined) return void res.writeHead(202).end();
    const out = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { echoed: msg.params ?? null } });
    res.writeHead(200, { 'content-type': 'application/json', ...extraHeaders });
    res.end(out);
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers (node:http, so Host and every other header are under the test's control)
// ---------------------------------------------------------------------------------------------

interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
  text: string;
}

function readAll(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

function http(
  url: string,
  options: { method?: string; headers?: Record<string, string | string[]>; body?: string | Buffer } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      readAll(res).then(
        (body) =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body, text: body.toString('utf8') }),
        reject,
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function postJson(url: string, message: unknown, headers: Record<string, string | string[]> = {}): Promise<HttpResult> {
  return http(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  });
}

/** A WebSocket upgrade done by hand: 101, or the refusal's status and body. */
function upgrade(origin: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, {
      agent: false,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (res: IncomingMessage, socket: Socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '' });
    });
    req.on('response', (res) => {
      readAll(res).then((b) => resolve({ status: res.statusCode ?? 0, body: b.toString('utf8') }), reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The content type without parameters (`application/json; charset=utf-8` → `application/json`). */
const mediaType = (res: HttpResult) =>
  String(res.headers['content-type'] ?? '')
    .split(';')[0]
    .trim();

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

// ---------------------------------------------------------------------------------------------
// Feed client
// ---------------------------------------------------------------------------------------------

class FeedClient {
  private parsed: FeedMessage[] = [];
  /** Every frame's text exactly as received. */
  readonly raw: string[] = [];
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: WebSocket.RawData) => {
      this.raw.push(data.toString());
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /**
   * The messages, parsed when first asked for: receiving stays cheap, so a consumer in this
   * (busy) test process keeps reading its socket while the test generates load.
   */
  get messages(): FeedMessage[] {
    for (let i = this.parsed.length; i < this.raw.length; i++) {
      const m = JSON.parse(this.raw[i]) as FeedMessage;
      // As the UI does: a message sent as its raw text gets its parsed form back.
      if (m.type === 'snapshot' || m.type === 'events') m.events.forEach(fromFeed);
      this.parsed.push(m);
    }
    return this.parsed;
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<FeedClient> {
    const ws = new WebSocket(url, { headers });
    const client = new FeedClient(ws);
    track(client, (c) => c.close());
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`WebSocket upgrade refused: ${res.statusCode}`)));
    });
    return client;
  }

  /** Resolves with the first message (from index `from`) for which `predicate` holds. */
  until<M extends FeedMessage>(predicate: (m: FeedMessage) => m is M, what: string, from?: number, ms?: number): Promise<M>;
  until(predicate: (m: FeedMessage) => boolean, what: string, from?: number, ms?: number): Promise<FeedMessage>;
  until(predicate: (m: FeedMessage) => boolean, what: string, from = 0, ms = 15_000): Promise<FeedMessage> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.messages.slice(from).find(predicate);
        if (found) {
          clearTimeout(timer);
          resolve(found);
          return true;
        }
        return false;
      };
      const timer = setTimeout(
        () => reject(new Error(`feed: timed out waiting for ${what} (${this.messages.length} messages so far)`)),
        ms,
      );
      const wait = () => {
        if (!check()) this.waiters.push(wait);
      };
      wait();
    });
  }

  /** Events received live (`events` messages), in order. */
  liveEvents(): McpscopeEvent[] {
    return this.messages.flatMap((m) => (m.type === 'events' ? m.events : []));
  }

  snapshotEvents(): McpscopeEvent[] {
    return this.messages.flatMap((m) => (m.type === 'snapshot' ? m.events : []));
  }

  get socket(): Socket {
    return (this.ws as unknown as { _socket: Socket })._socket;
  }

  close(): void {
    this.ws.terminate();
  }
}

const isType =
  <T extends FeedMessage['type']>(type: T) =>
  (m: FeedMessage): m is Extract<FeedMessage, { type: T }> =>
    m.type === type;

function wsUrl(scope: Mcpscope, query = `token=${TOKEN}`): string {
  return `ws://127.0.0.1:${scope.ui!.port}/ws?${query}`;
}

/** Resolves once `n` exchanges have ended: nothing more will be recorded for them. */
const exchangesEnded = (scope: Mcpscope, n: number) =>
  scope.waitFor((s) => [...s.exchanges.values()].filter((x) => x.endedAt !== undefined).length === n || undefined);

const messagesIn = (events: McpscopeEvent[]) => events.filter((e): e is MessageEvent => e.type === 'message');

// =============================================================================================
// 1. Token
// =============================================================================================

describe('the UI token', () => {
  async function scopeWithSession(): Promise<{ scope: Mcpscope; session: SessionInfo }> {
    const upstream = await upstreamWith({ 'POST /mcp': jsonRpcEcho() });
    const scope = await scopeFor(`${upstream.origin}/mcp`);
    const res = await postJson(`${scope.proxy.origin}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(200);
    const session = await scope.waitFor((s) => [...s.sessions.values()].find((x) => x.counts.messages >= 2));
    return { scope, session };
  }

  it('answers 401 on every route and the WebSocket upgrade without the right token, and never sets the cookie then', async () => {
    const { scope, session } = await scopeWithSession();
    const ui = scope.ui!.origin;
    const routes = ['/', '/api/sessions', `/api/sessions/${session.id}/messages`, '/api/events'];
    const wrong: { name: string; headers: Record<string, string>; query?: string }[] = [
      { name: 'no token', headers: {} },
      { name: 'Bearer, same length', headers: bearer(WRONG_SAME_LENGTH) },
      { name: 'Bearer, longer', headers: bearer(WRONG_LONGER) },
      { name: 'Bearer, short', headers: bearer(WRONG_SHORT) },
      { name: 'Bearer, empty', headers: { authorization: 'Bearer ' } },
      { name: 'X-Mcpscope-Token, same length', headers: { 'x-mcpscope-token': WRONG_SAME_LENGTH } },
      { name: 'X-Mcpscope-Token, short', headers: { 'x-mcpscope-token': WRONG_SHORT } },
      { name: '?token=, same length', headers: {}, query: `token=${WRONG_SAME_LENGTH}` },
      { name: '?token=, longer', headers: {}, query: `token=${WRONG_LONGER}` },
      { name: '?token= empty', headers: {}, query: 'token=' },
      { name: 'cookie, same length', headers: { cookie: `mcpscope_token=${WRONG_SAME_LENGTH}` } },
      { name: 'cookie, short', headers: { cookie: `mcpscope_token=${WRONG_SHORT}` } },
      // The right token under a name the server does not read.
      { name: 'Basic scheme', headers: { authorization: `Basic ${TOKEN}` } },
      { name: 'other cookie name', headers: { cookie: `token=${TOKEN}` } },
    ];
    for (const route of routes) {
      for (const w of wrong) {
        const url = `${ui}${route}${w.query ? `?${w.query}` : ''}`;
        const res = await http(url, { headers: w.headers });
        expect(res.status, `${route} with ${w.name}`).toBe(401);
        expect(res.headers['set-cookie'], `${route} with ${w.name}`).toBeUndefined();
        expect(res.headers['content-type']).toContain('application/json');
        expect(JSON.parse(res.text).error).toMatch(/token/);
        // Nothing of the store leaks into a refusal.
        expect(res.text).not.toContain('"transport"');
      }
    }
    for (const w of wrong) {
      const ws = await upgrade(ui, `/ws${w.query ? `?${w.query}` : ''}`, w.headers);
      expect(ws.status, `/ws with ${w.name}`).toBe(401);
      expect(JSON.parse(ws.body).error).toMatch(/token/);
    }
    expect(scope.ui!.feed.size).toBe(0);
  });

  it('gives a browser opening the UI without its token a page that says where the token is (never raw JSON), naming the real MCPSCOPE_HOME', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcpscope-token-page-'));
    const saved = process.env.MCPSCOPE_HOME;
    process.env.MCPSCOPE_HOME = home;
    try {
      const upstream = await upstreamWith({ 'POST /mcp': jsonRpcEcho() });
      const scope = await scopeFor(`${upstream.origin}/mcp`, { discoveryFile: true });
      const ui = scope.ui!.origin;
      const html = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'; // Chromium's Accept for a page load
      for (const query of ['', '?token=stale-token-from-yesterday']) {
        const res = await http(`${ui}/${query}`, { headers: { accept: html } });
        expect(res.status).toBe(401);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers['set-cookie']).toBeUndefined();
        expect(res.headers['content-security-policy']).toContain("default-src 'none'");
        expect(res.text).toContain('This mcpscope UI needs its token');
        expect(res.text).toContain(join(home, `ui-${scope.ui!.port}.json`));
        expect(res.text).not.toContain('~/.mcpscope');
        expect(res.text).not.toContain(TOKEN);
        expect(res.text.includes('not this UI’s')).toBe(query !== '');
      }
      // The API, and anything that does not ask for a page, still gets the JSON refusal.
      for (const [path, accept] of [
        ['/api/sessions', html],
        ['/', 'application/json'],
        ['/', '*/*'],
      ]) {
        const res = await http(`${ui}${path}`, { headers: { accept } });
        expect(res.status).toBe(401);
        expect(res.headers['content-type']).toContain('application/json');
      }
      // The page's form sends ?token=: with the right one, the UI opens.
      expect((await http(`${ui}/?token=${TOKEN}`, { headers: { accept: html } })).status).toBe(200);
    } finally {
      if (saved === undefined) delete process.env.MCPSCOPE_HOME;
      else process.env.MCPSCOPE_HOME = saved;
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('refuses a cookie with malformed percent-encoding with 401 (it used to answer 500, and crash mcpscope on /ws)', async () => {
    const { scope } = await scopeWithSession();
    const ui = scope.ui!.origin;
    // Any page on a loopback port can set a cookie for 127.0.0.1: it must not take mcpscope down.
    const cookie = 'mcpscope_token=%E0%A4%A';
    for (const route of ['/', '/api/sessions', '/api/events']) {
      const res = await http(`${ui}${route}`, { headers: { cookie } });
      expect(res.status, route).toBe(401);
      expect(JSON.parse(res.text).error).toMatch(/token/);
    }
    const ws = await upgrade(ui, '/ws', { cookie });
    expect(ws.status).toBe(401);
    // Still up, on both ports.
    expect((await http(`${ui}/api/sessions`, { headers: bearer(TOKEN) })).status).toBe(200);
    expect((await upgrade(ui, '/ws', bearer(TOKEN))).status).toBe(101);
    expect((await postJson(`${scope.proxy.origin}/mcp`, { jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(200);
  });

  it('accepts the token as Bearer, X-Mcpscope-Token, ?token= and the HttpOnly SameSite=Strict cookie from GET /?token=', async () => {
    const { scope, session } = await scopeWithSession();
    const ui = scope.ui!.origin;

    const visit = await http(`${ui}/?token=${encodeURIComponent(TOKEN)}`);
    expect(visit.status).toBe(200);
    expect(visit.headers['content-type']).toContain('text/html');
    const setCookie = visit.headers['set-cookie'];
    expect(setCookie).toHaveLength(1);
    const attrs = setCookie![0].split(';').map((p) => p.trim());
    expect(attrs[0]).toBe(`mcpscope_token=${encodeURIComponent(TOKEN)}`);
    expect(attrs.map((a) => a.toLowerCase())).toEqual(expect.arrayContaining(['httponly', 'samesite=strict', 'path=/']));
    const cookie = attrs[0];

    const ways: { name: string; headers: Record<string, string>; query?: string }[] = [
      { name: 'Bearer', headers: bearer(TOKEN) },
      { name: 'lower-case bearer', headers: { authorization: `bearer ${TOKEN}` } },
      { name: 'X-Mcpscope-Token', headers: { 'x-mcpscope-token': TOKEN } },
      { name: '?token=', headers: {}, query: `token=${encodeURIComponent(TOKEN)}` },
      { name: 'cookie', headers: { cookie } },
      { name: 'cookie among others', headers: { cookie: `theme=dark; ${cookie}; other=1` } },
    ];
    for (const w of ways) {
      const q = w.query ? `?${w.query}` : '';
      const page = await http(`${ui}/${q}`, { headers: w.headers });
      expect(page.status, `/ with ${w.name}`).toBe(200);
      expect(page.text).toContain('mcpscope');

      const sessions = await http(`${ui}/api/sessions${q}`, { headers: w.headers });
      expect(sessions.status, `/api/sessions with ${w.name}`).toBe(200);
      expect((JSON.parse(sessions.text) as SessionInfo[]).map((s) => s.id)).toEqual([session.id]);

      const messages = await http(`${ui}/api/sessions/${session.id}/messages${q}`, { headers: w.headers });
      expect(messages.status, `messages with ${w.name}`).toBe(200);
      expect((JSON.parse(messages.text) as MessageEvent[]).map((m) => m.kind)).toEqual(['request', 'response']);

      const events = await http(`${ui}/api/events${q}`, { headers: w.headers });
      expect(events.status, `/api/events with ${w.name}`).toBe(200);
      expect((JSON.parse(events.text) as McpscopeEvent[]).length).toBeGreaterThan(2);

      const ws = await upgrade(ui, `/ws${q}`, w.headers);
      expect(ws.status, `/ws with ${w.name}`).toBe(101);
    }
  });
});

// =============================================================================================
// 2. Host / Origin
// =============================================================================================

describe('Host and Origin guards (DNS rebinding, cross-site)', () => {
  it('refuses a foreign Host or Origin on the proxy port with a JSON-RPC 403 that never reaches the upstream', async () => {
    const upstream = await upstreamWith({ 'POST /mcp': jsonRpcEcho() });
    const scope = await scopeFor(`${upstream.origin}/mcp`);
    const url = `${scope.proxy.origin}/mcp`;
    const body = { jsonrpc: '2.0', id: 7, method: 'tools/list' };

    const cases: { headers: Record<string, string>; reason: RegExp }[] = [
      { headers: { host: 'evil.example' }, reason: /Host header "evil\.example".*DNS rebinding/ },
      { headers: { host: `evil.example:${scope.proxy.port}` }, reason: /DNS rebinding/ },
      // Loopback name, wrong port: a rebinding page reaching another local port.
      { headers: { host: `127.0.0.1:${scope.proxy.port + 1 === 65536 ? 1 : scope.proxy.port + 1}` }, reason: /DNS rebinding/ },
      { headers: { origin: 'http://evil.example' }, reason: /Origin "http:\/\/evil\.example".*cross-site/ },
      { headers: { origin: 'null' }, reason: /cross-site/ },
    ];
    for (const c of cases) {
      const res = await postJson(url, body, c.headers);
      expect(res.status, JSON.stringify(c.headers)).toBe(403);
      expect(mediaType(res)).toBe('application/json');
      const json = JSON.parse(res.text) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
      expect(json.jsonrpc).toBe('2.0');
      expect(json.error.code).toBe(-32000);
      expect(json.error.message).toMatch(c.reason);
    }
    expect(upstream.seen).toHaveLength(0);
    // Each refusal is recorded as a problem, so the user sees why the client failed.
    const forbidden = await scope.waitFor((s) => {
      const p = s.snapshot().filter((e): e is ProblemEvent => e.type === 'problem' && e.code === 'forbidden');
      return p.length === cases.length ? p : undefined;
    });
    expect(forbidden[0].text).toMatch(/DNS rebinding/);

    // A page on a loopback dev server (vite on :5173) is allowed, as is no Origin at all.
    const dev = await postJson(url, body, { origin: 'http://localhost:5173' });
    expect(dev.status).toBe(200);
    expect(JSON.parse(dev.text)).toEqual({ jsonrpc: '2.0', id: 7, result: { echoed: null } });
    expect(upstream.seen).toHaveLength(1);
    expect(upstream.seen[0].headers.origin).toBe('http://localhost:5173');
    const localhostHost = await postJson(url, body, { host: `localhost:${scope.proxy.port}` });
    expect(localhostHost.status).toBe(200);
    expect(upstream.seen).toHaveLength(2);
  });

  it('refuses a foreign Host or Origin on the UI port (API and WebSocket) even with a valid token', async () => {
    const upstream = await upstreamWith({ 'POST /mcp': jsonRpcEcho() });
    const scope = await scopeFor(`${upstream.origin}/mcp`);
    const ui = scope.ui!.origin;
    const foreign: Record<string, string>[] = [
      { host: 'evil.example' },
      { host: `evil.example:${scope.ui!.port}` },
      { origin: 'http://evil.example' },
      { origin: `http://evil.example:${scope.ui!.port}` },
    ];
    for (const h of foreign) {
      for (const route of ['/', '/api/sessions', '/api/events']) {
        const res = await http(`${ui}${route}`, { headers: { ...bearer(TOKEN), ...h } });
        expect(res.status, `${route} ${JSON.stringify(h)}`).toBe(403);
        expect(JSON.parse(res.text).error).toMatch(h.host ? /DNS rebinding/ : /cross-site/);
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      const viaQuery = await http(`${ui}/?token=${TOKEN}`, { headers: h });
      expect(viaQuery.status).toBe(403);
      expect(viaQuery.headers['set-cookie']).toBeUndefined();
      const ws = await upgrade(ui, `/ws?token=${TOKEN}`, h);
      expect(ws.status, `/ws ${JSON.stringify(h)}`).toBe(403);
      expect(JSON.parse(ws.body).error).toMatch(h.host ? /DNS rebinding/ : /cross-site/);
    }
    expect(scope.ui!.feed.size).toBe(0);

    // Pages on other local ports (any dev server) may not read the feed, even with the token
    // (WebSockets have no CORS, and the SameSite cookie is sent from any port of 127.0.0.1).
    const otherPort = { ...bearer(TOKEN), origin: 'http://localhost:5173' };
    expect((await http(`${ui}/api/sessions`, { headers: otherPort })).status).toBe(403);
    expect((await upgrade(ui, '/ws', otherPort)).status).toBe(403);
    // The UI's own pages may.
    const own = { ...bearer(TOKEN), origin: `http://localhost:${scope.ui!.port}` };
    expect((await http(`${ui}/api/sessions`, { headers: own })).status).toBe(200);
    expect((await upgrade(ui, '/ws', own)).status).toBe(101);
    const feed = await FeedClient.open(wsUrl(scope), { origin: scope.ui!.origin });
    await feed.until(isType('hello'), 'hello');
  });

  it('admits an origin (and a host) named in allowOrigins / allowHosts, and nothing else', async () => {
    const upstream = await upstreamWith({ 'POST /mcp': jsonRpcEcho() });
    const scope = await scopeFor(`${upstream.origin}/mcp`, { allowOrigins: ['https://inspector.example'], allowHosts: ['mcp.test'] });
    const body = { jsonrpc: '2.0', id: 'a', method: 'ping' };
    const ui = scope.ui!.origin;

    const allowed = await postJson(`${scope.proxy.origin}/mcp`, body, { origin: 'https://inspector.example' });
    expect(allowed.status).toBe(200);
    expect(upstream.seen.at(-1)?.headers.origin).toBe('https://inspector.example');
    expect((await http(`${ui}/api/sessions`, { headers: { ...bearer(TOKEN), origin: 'https://inspector.example' } })).status).toBe(200);
    expect((await upgrade(ui, `/ws?token=${TOKEN}`, { origin: 'https://inspector.example' })).status).toBe(101);

    const byHost = await postJson(`${scope.proxy.origin}/mcp`, body, { host: `mcp.test:${scope.proxy.port}` });
    expect(byHost.status).toBe(200);
    expect((await http(`${ui}/api/sessions`, { headers: { ...bearer(TOKEN), host: `mcp.test:${scope.ui!.port}` } })).status).toBe(200);

    const seen = upstream.seen.length;
    for (const origin of ['https://other.example', 'http://inspector.example', 'https://inspector.example.evil.example']) {
      expect((await postJson(`${scope.proxy.origin}/mcp`, body, { origin })).status, origin).toBe(403);
      expect((await http(`${ui}/api/sessions`, { headers: { ...bearer(TOKEN), origin } })).status, origin).toBe(403);
      expect((await upgrade(ui, `/ws?token=${TOKEN}`, { origin })).status, origin).toBe(403);
    }
    expect((await postJson(`${scope.proxy.origin}/mcp`, body, { host: `other.test:${scope.proxy.port}` })).status).toBe(403);
    expect(upstream.seen).toHaveLength(seen);
  });
});

// =============================================================================================
// 3. API shape against real SDK traffic
// =============================================================================================

describe('the session API on real traffic (SDK client → proxy → demo server)', () => {
  it('lists the session with its peers and its messages in wire order, paired, with latency', async () => {
    const demo = track<DemoServer>(await startDemoServer({ port: 0 }), (d) => d.close());
    const scope = await scopeFor(demo.url);
    const client = new Client({ name: 'ui-api-test-client', version: '2.3.4' }, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
    track(client, (c) => c.close());
    await client.connect(transport);

    const sum = await client.callTool({ name: 'add', arguments: { a: 19, b: 23 } });
    expect(sum.structuredContent).toEqual({ sum: 42 });
    const progress: Progress[] = [];
    const slow = await client.callTool({ name: 'slow_task', arguments: { steps: 3, delayMs: 10 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(slow.content).toEqual([{ type: 'text', text: 'done after 3 steps' }]);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);

    const session = await scope.waitFor((s) =>
      [...s.sessions.values()].find((x) => s.messages(x.id).some((m) => m.kind === 'response' && m.name === 'slow_task')),
    );
    const headers = bearer(TOKEN);
    const ui = scope.ui!.origin;

    const list = await http(`${ui}/api/sessions`, { headers });
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toContain('application/json');
    expect(list.headers['cache-control']).toBe('no-store');
    const sessions = JSON.parse(list.text) as SessionInfo[];
    expect(Array.isArray(sessions)).toBe(true);
    expect(sessions).toHaveLength(1);
    const s = sessions[0];
    expect(s.id).toBe(session.id);
    expect(s.transport).toBe('streamable-http');
    expect(s.target).toBe(demo.url);
    expect(s.status).toBe('open');
    expect(s.mcpSessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.clientInfo).toEqual({ name: 'ui-api-test-client', version: '2.3.4' });
    expect(s.serverInfo).toEqual({ name: 'mcpscope-demo', title: 'mcpscope demo server', version: '1.0.0' });
    expect(s.protocolVersion).toBeTruthy();
    expect(s.counts.requests).toBeGreaterThanOrEqual(3);

    const one = await http(`${ui}/api/sessions/${s.id}`, { headers });
    expect(one.status).toBe(200);
    expect((JSON.parse(one.text) as SessionInfo).id).toBe(s.id);

    const res = await http(`${ui}/api/sessions/${s.id}/messages`, { headers });
    expect(res.status).toBe(200);
    const messages = JSON.parse(res.text) as MessageEvent[];
    expect(messages.length).toBeGreaterThanOrEqual(9);
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i];
      if (i > 0) expect(m.seq).toBeGreaterThan(messages[i - 1].seq);
      expect(m.type).toBe('message');
      expect(m.sessionId).toBe(s.id);
      expect(['c2s', 's2c']).toContain(m.dir);
      expect(['request', 'notification', 'response', 'error']).toContain(m.kind);
      expect((m.jsonrpc as { jsonrpc?: string }).jsonrpc).toBe('2.0');
    }
    const requests = messages.filter((m) => m.kind === 'request');
    expect(requests.map((r) => [r.dir, r.method, r.name])).toEqual([
      ['c2s', 'initialize', undefined],
      ['c2s', 'tools/call', 'add'],
      ['c2s', 'tools/call', 'slow_task'],
    ]);
    expect(messages[0].method).toBe('initialize');
    expect(messages.some((m) => m.dir === 'c2s' && m.kind === 'notification' && m.method === 'notifications/initialized')).toBe(true);

    const responses = messages.filter((m) => m.kind === 'response' || m.kind === 'error');
    expect(responses).toHaveLength(requests.length);
    for (const r of responses) {
      expect(r.dir).toBe('s2c');
      const req = messages.find((m) => m.seq === r.pair);
      expect(req, `response #${r.seq} is paired`).toBeDefined();
      expect(req!.kind).toBe('request');
      expect(req!.id).toStrictEqual(r.id);
      expect(r.seq).toBeGreaterThan(req!.seq);
      expect(typeof r.latencyMs).toBe('number');
      expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    }
    const slowReq = requests[2];
    const slowRes = responses.find((r) => r.pair === slowReq.seq)!;
    expect(slowRes.name).toBe('slow_task');
    expect(slowRes.carrier).toBe('post-sse');
    // Three steps of 10 ms: the latency covers them.
    expect(slowRes.latencyMs).toBeGreaterThanOrEqual(25);
    const addRes = responses.find((r) => r.pair === requests[1].seq)!;
    expect((addRes.jsonrpc as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({ sum: 42 });

    const progressMessages = messages.filter((m) => m.method === 'notifications/progress');
    expect(progressMessages.map((p) => p.progress?.progress)).toEqual([1, 2, 3]);
    for (const p of progressMessages) {
      expect(p.dir).toBe('s2c');
      expect(p.kind).toBe('notification');
      expect(p.pair).toBe(slowReq.seq);
      expect(p.seq).toBeGreaterThan(slowReq.seq);
      expect(p.seq).toBeLessThan(slowRes.seq);
    }

    const unknown = await http(`${ui}/api/sessions/no-such-session/messages`, { headers });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toEqual({ error: 'No session no-such-session', code: 'NO_SESSION' });
    expect((await http(`${ui}/api/sessions/no-such-session`, { headers })).status).toBe(404);
    expect((await http(`${ui}/api/sessions/no-such-session/events`, { headers })).status).toBe(404);
  });
});

// =============================================================================================
// 4. WebSocket feed
// =============================================================================================

describe('the WebSocket feed', () => {
  it('sends hello, a snapshot ending with done, then live batches while the traffic flows', async () => {
    const step = [deferred(), deferred(), deferred()];
    const upstream = await upstreamWith({
      'POST /mcp': async (_req, res, body) => {
        const msg = JSON.parse(body.toString('utf8')) as { id: number; method: string };
        if (msg.method !== 'tools/call') return jsonRpcEcho()(_req, res, body);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        // Each progress event is written only after the test saw the previous one on the feed:
        // a feed that waited for the stream to end would deadlock here.
        for (let i = 0; i < step.length; i++) {
          res.write(
            `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":${i + 1},"total":3}}\n\n`,
          );
          await step[i].promise;
        }
        res.end(`data: {"jsonrpc":"2.0","id":${msg.id},"result":{"content":[]}}\n\n`);
      },
    });
    const scope = await scopeFor(`${upstream.origin}/mcp`, { feed: { snapshotChunk: 3 } });
    const url = `${scope.proxy.origin}/mcp`;
    // Traffic before the feed connects: it comes in the snapshot.
    for (const id of [1, 2]) expect((await postJson(url, { jsonrpc: '2.0', id, method: 'tools/list' })).status).toBe(200);
    await exchangesEnded(scope, 2);
    const before = scope.store.snapshot();
    const lastSeqBefore = scope.store.lastSeq;
    expect(before.length).toBeGreaterThan(6);

    const feed = await FeedClient.open(wsUrl(scope));
    await feed.until((m) => m.type === 'snapshot' && m.done, 'end of snapshot');
    const hello = feed.messages[0];
    expect(hello).toEqual({
      type: 'hello',
      schemaVersion: EVENT_SCHEMA_VERSION,
      version: expect.any(String),
      showSecrets: false,
      instance: scope.store.instance,
      firstSeq: 1,
      lastSeq: lastSeqBefore,
    });
    const snapshots = feed.messages.slice(1);
    expect(snapshots.every((m) => m.type === 'snapshot')).toBe(true);
    // Chunks of 3 events, only the last one marked done.
    expect(snapshots.length).toBe(Math.ceil(before.length / 3));
    expect(snapshots.map((m) => (m.type === 'snapshot' ? m.done : undefined))).toEqual(snapshots.map((_, i) => i === snapshots.length - 1));
    expect(feed.snapshotEvents()).toEqual(before);

    // Live: a tools/call whose SSE stream stays open while the test watches the feed.
    const call = postJson(url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'work', _meta: { progressToken: 'p' } } });
    const request = await feed.until(
      (m) => m.type === 'events' && messagesIn(m.events).some((e) => e.id === 3 && e.kind === 'request'),
      'the live tools/call request',
    );
    expect(request.type).toBe('events');
    for (let i = 0; i < step.length; i++) {
      await feed.until(
        (m) =>
          m.type === 'events' && messagesIn(m.events).some((e) => e.method === 'notifications/progress' && e.progress?.progress === i + 1),
        `live progress ${i + 1}`,
      );
      step[i].resolve();
    }
    const done = await call;
    expect(done.status).toBe(200);
    await feed.until(
      (m) => m.type === 'events' && messagesIn(m.events).some((e) => e.kind === 'response' && e.id === 3),
      'the live response',
    );

    const live = feed.liveEvents();
    expect(live.every((e) => e.seq > lastSeqBefore)).toBe(true);
    for (let i = 1; i < live.length; i++) expect(live[i].seq).toBeGreaterThan(live[i - 1].seq);
    // Nothing from before the connection is sent twice, and nothing is lost in between: every
    // later event is sent live, except an exchange/session upsert that a later one replaced
    // before its batch went out.
    const liveSeqs = new Set(live.map((e) => e.seq));
    const after = scope.store.snapshot(lastSeqBefore);
    expect(after.filter((e) => !liveSeqs.has(e.seq))).toEqual([]);
    expect(live.filter((e) => !after.some((a) => a.seq === e.seq)).every((e) => scope.store.isSuperseded(e))).toBe(true);
    const liveMessages = messagesIn(live);
    expect(liveMessages.map((m) => [m.kind, m.method])).toEqual([
      ['request', 'tools/call'],
      ['notification', 'notifications/progress'],
      ['notification', 'notifications/progress'],
      ['notification', 'notifications/progress'],
      ['response', 'tools/call'],
    ]);
    expect(liveMessages.slice(1).every((m) => m.pair === liveMessages[0].seq)).toBe(true);
  });

  it('sends only later events with ?since=SEQ', async () => {
    const upstream = await upstreamWith({ 'POST /mcp': jsonRpcEcho() });
    const scope = await scopeFor(`${upstream.origin}/mcp`);
    const url = `${scope.proxy.origin}/mcp`;
    expect((await postJson(url, { jsonrpc: '2.0', id: 'first', method: 'tools/list' })).status).toBe(200);
    await exchangesEnded(scope, 1);
    const since = scope.store.lastSeq;
    expect((await postJson(url, { jsonrpc: '2.0', id: 'second', method: 'tools/list' })).status).toBe(200);
    await exchangesEnded(scope, 2);
    const expected = scope.store.snapshot(since);

    const feed = await FeedClient.open(wsUrl(scope, `token=${TOKEN}&since=${since}`));
    await feed.until((m) => m.type === 'snapshot' && m.done, 'end of snapshot');
    const snap = feed.snapshotEvents();
    expect(snap).toEqual(expected);
    expect(snap.length).toBeGreaterThan(0);
    expect(snap.every((e) => e.seq > since)).toBe(true);
    expect(messagesIn(snap).map((m) => m.id)).toEqual(['second', 'second']);
    // The HTTP API's `since` agrees with the feed's.
    const api = await http(`${scope.ui!.origin}/api/events?since=${since}`, { headers: bearer(TOKEN) });
    expect(JSON.parse(api.text)).toEqual(expected);

    // since beyond the end: an empty snapshot, still marked done, then live events.
    const empty = await FeedClient.open(wsUrl(scope, `token=${TOKEN}&since=${scope.store.lastSeq}`));
    const emptySnap = await empty.until(isType('snapshot'), 'snapshot');
    expect(emptySnap).toEqual({ type: 'snapshot', events: [], done: true });
    expect((await postJson(url, { jsonrpc: '2.0', id: 'third', method: 'tools/list' })).status).toBe(200);
    const live = await empty.until((m) => m.type === 'events' && messagesIn(m.events).some((e) => e.id === 'third'), 'live third');
    expect(live.type).toBe('events');
    expect(messagesIn(empty.liveEvents()).every((m) => m.id === 'third')).toBe(true);
  });
});

// =============================================================================================
// 5. Slow consumer
// =============================================================================================

describe('a feed consumer that stops reading', () => {
  it('does not stall the proxy, drops instead of buffering without bound, and says so when it reads again', async () => {
    const upstream = await upstreamWith({ 'POST /mcp': jsonRpcEcho() });
    const MAX_BUFFERED = 512 * 1024;
    const scope = await scopeFor(`${upstream.origin}/mcp`, { feed: { maxBufferedBytes: MAX_BUFFERED, flushMs: 5 } });
    const url = `${scope.proxy.origin}/mcp`;

    const slow = await FeedClient.open(wsUrl(scope));
    const hello = await slow.until(isType('hello'), 'hello');
    await slow.until((m) => m.type === 'snapshot' && m.done, 'end of snapshot');
    // A fast consumer alongside it gets every event.
    const fast = await FeedClient.open(wsUrl(scope));
    await fast.until((m) => m.type === 'snapshot' && m.done, 'end of snapshot (fast)');

    // The server side of the slow client's socket: how much the feed holds for it.
    const feedClients = () => [...(scope.ui!.feed as unknown as { clients: Set<{ ws: WebSocket }> }).clients].map((c) => c.ws);
    expect(feedClients()).toHaveLength(2);
    let peakBuffered = 0;
    let producedBytes = 0;
    const produced: McpscopeEvent[] = [];
    const unsubscribe = scope.store.subscribe((batch) => {
      produced.push(...batch);
      for (const e of batch) producedBytes += JSON.stringify(e).length;
      for (const ws of feedClients()) peakBuffered = Math.max(peakBuffered, ws.bufferedAmount);
    });
    track(unsubscribe, (u) => void u());

    slow.socket.pause();
    const CALLS = 300;
    // Few enough at once that the fast consumer, in this same process, keeps up on a loaded machine.
    const CONCURRENCY = 4;
    const payload = 'x'.repeat(24 * 1024);
    const results: HttpResult[] = [];
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < CALLS) {
          const id = next++;
          const res = await postJson(url, {
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: { name: 'echo', arguments: { text: `${id}:${payload}` } },
          });
          results[id] = res;
        }
      }),
    );
    const burstMs = Date.now() - started;
    // Every call went through and got its own answer.
    expect(results).toHaveLength(CALLS);
    results.forEach((r, id) => {
      expect(r.status).toBe(200);
      const json = JSON.parse(r.text) as { id: number; result: { echoed: { arguments: { text: string } } } };
      expect(json.id).toBe(id);
      expect(json.result.echoed.arguments.text).toBe(`${id}:${payload}`);
    });
    await exchangesEnded(scope, CALLS);
    // The paused consumer counts as stalled only once its socket went a while without reading (stallMs).
    await Promise.race([
      scope.ui!.feed.whenStalled(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('the paused consumer was never counted as stalled')), 10_000)),
    ]);
    // The fast consumer saw the whole burst.
    const lastBurstSeq = scope.store.lastSeq;
    await fast.until((m) => m.type === 'events' && m.events.some((e) => e.seq === lastBurstSeq), 'fast consumer caught up');
    expect(fast.messages.some((m) => m.type === 'dropped')).toBe(false);

    // The feed held far less than the burst for the stalled socket: it dropped the rest.
    expect(producedBytes).toBeGreaterThan(40 * MAX_BUFFERED);
    // Bounded: the limit plus at most a batch or so, whatever the burst's size.
    expect(peakBuffered, `peak buffered ${peakBuffered} of ${producedBytes} produced (burst took ${burstMs} ms)`).toBeLessThan(
      8 * MAX_BUFFERED,
    );
    expect(Math.max(...feedClients().map((ws) => ws.bufferedAmount))).toBeLessThan(8 * MAX_BUFFERED);
    expect(slow.messages.some((m) => m.type === 'dropped')).toBe(false);

    // The consumer reads again. A ping's pong comes back after everything queued before it.
    const received = slow.messages.length;
    slow.socket.resume();
    const pong = once<void>((cb) => slow.ws.once('pong', () => cb()), 'pong');
    slow.ws.ping();
    await pong;
    expect(slow.messages.length).toBeGreaterThanOrEqual(received);

    // Later traffic: the slow consumer is told what it missed, then gets the new events.
    const mark = slow.messages.length;
    expect((await postJson(url, { jsonrpc: '2.0', id: 'after', method: 'tools/list' })).status).toBe(200);
    await exchangesEnded(scope, CALLS + 1);
    const finalSeq = scope.store.lastSeq;
    await slow.until((m) => m.type === 'events' && m.events.some((e) => e.seq === finalSeq), 'events after resuming', mark);

    const dropped = slow.messages.filter(isType('dropped'));
    expect(dropped).toHaveLength(1);
    const d = dropped[0];
    expect(d.count).toBeGreaterThan(0);
    expect(d.fromSeq).toBeGreaterThan(hello.lastSeq);
    expect(d.toSeq).toBeGreaterThanOrEqual(d.fromSeq);
    expect(d.toSeq).toBeLessThanOrEqual(lastBurstSeq);
    const droppedAt = slow.messages.indexOf(d);
    const afterIdx = slow.messages.findIndex(
      (m, i) => i >= mark && m.type === 'events' && messagesIn(m.events).some((e) => e.id === 'after'),
    );
    // Told as soon as it reads again (before any later event).
    expect(droppedAt).toBeGreaterThanOrEqual(received);
    expect(droppedAt).toBeLessThan(afterIdx);
    // Nothing after the dropped message is older than the gap it reports.
    const later = slow.messages.slice(droppedAt + 1).flatMap((m) => (m.type === 'events' ? m.events : []));
    expect(later.every((e) => e.seq > d.toSeq)).toBe(true);
    // Every live event was delivered, counted as dropped, or an exchange/session upsert that a
    // later one replaced (a live batch carries only the latest); none twice.
    const live = slow.liveEvents();
    const inGap = (seq: number) => seq >= d.fromSeq && seq <= d.toSeq;
    expect(live.some((e) => inGap(e.seq))).toBe(false);
    expect(new Set(live.map((e) => e.seq)).size).toBe(live.length);
    expect(produced.map((e) => e.seq)).toEqual(Array.from({ length: finalSeq - hello.lastSeq }, (_, i) => hello.lastSeq + 1 + i));
    expect(produced.filter((e) => inGap(e.seq))).toHaveLength(d.count);
    const liveSeqs = new Set(live.map((e) => e.seq));
    const unsent = produced.filter((e) => !liveSeqs.has(e.seq) && !inGap(e.seq));
    expect(unsent.filter((e) => !scope.store.isSuperseded(e))).toEqual([]);
    expect(live.length + d.count + unsent.length).toBe(finalSeq - hello.lastSeq);
  });
});

describe('shutdown with feed clients connected', () => {
  it("closes promptly even when a feed client stopped reading (it used to wait for ws's 30 s close timeout)", async () => {
    const upstream = await upstreamWith({ 'POST /mcp': jsonRpcEcho() });
    const scope = await startMcpscope({ target: `${upstream.origin}/mcp`, port: 0, uiPort: 0, token: TOKEN });
    track(scope, (s) => s.close());
    const polite = await FeedClient.open(wsUrl(scope));
    const stuck = await FeedClient.open(wsUrl(scope));
    await polite.until((m) => m.type === 'snapshot' && m.done, 'snapshot');
    await stuck.until((m) => m.type === 'snapshot' && m.done, 'snapshot (stuck)');
    stuck.socket.pause();
    const politeClosed = once<number>((cb) => polite.ws.once('close', (code: number) => cb(code)), 'polite client closed');

    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      scope.close(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('scope.close() still pending after 10 s')), 10_000);
      }),
    ]).finally(() => clearTimeout(timer));
    expect(Date.now() - started).toBeLessThan(10_000);
    // The client that reads gets a proper goodbye.
    expect(await politeClosed).toBe(1001);
  });
});

// =============================================================================================
// 6. Errors and transparency
// =============================================================================================

/** A loopback port that was listening a moment ago and is closed now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('errors', () => {
  it('answers 502 with a JSON-RPC error carrying the request id when the upstream is down, records it, and recovers', async () => {
    const port = await closedPort();
    const target = `http://127.0.0.1:${port}/mcp`;
    let scope = await scopeFor(target);
    const res = await postJson(`${scope.proxy.origin}/mcp`, { jsonrpc: '2.0', id: 'req-42', method: 'tools/list' });
    expect(res.status).toBe(502);
    expect(mediaType(res)).toBe('application/json');
    const json = JSON.parse(res.text) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
    expect(json).toMatchObject({ jsonrpc: '2.0', id: 'req-42', error: { code: -32000 } });
    expect(Object.keys(json).sort()).toEqual(['error', 'id', 'jsonrpc']);
    expect(json.error.message).toContain(target);
    expect(json.error.message).toContain('connection refused');

    // A numeric id stays a number.
    const numeric = await postJson(`${scope.proxy.origin}/mcp`, { jsonrpc: '2.0', id: 9, method: 'ping' });
    expect(numeric.status).toBe(502);
    expect(JSON.parse(numeric.text).id).toBe(9);

    const exchange = await scope.waitFor((s) => [...s.exchanges.values()].find((x) => x.error && x.endedAt !== undefined));
    expect(exchange.status).toBe(502);
    expect(exchange.error).toContain('connection refused');
    const problem = await scope.waitFor((s) =>
      s.snapshot().find((e): e is ProblemEvent => e.type === 'problem' && e.code === 'upstream-unreachable'),
    );
    expect(problem.exchangeId).toBe(exchange.id);
    expect(problem.level).toBe('error');

    // The upstream comes back on the same port (when nothing else took it meanwhile) and the
    // same proxy serves the next request.
    const seen: string[] = [];
    const back = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push(Buffer.concat(chunks).toString('utf8'));
        void jsonRpcEcho()(req, res, Buffer.concat(chunks));
      });
    });
    const listening = await new Promise<boolean>((resolve) => {
      back.once('error', () => resolve(false));
      back.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (listening) {
      track(back, (b) => new Promise<void>((resolve) => (b.closeAllConnections(), b.close(() => resolve()))));
    } else {
      // Another process took the port in between: a fresh upstream and a fresh proxy.
      const upstream = await upstreamWith({ 'POST /mcp': jsonRpcEcho() });
      scope = await scopeFor(`${upstream.origin}/mcp`);
    }
    const ok = await postJson(`${scope.proxy.origin}/mcp`, { jsonrpc: '2.0', id: 'req-43', method: 'tools/list' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text)).toEqual({ jsonrpc: '2.0', id: 'req-43', result: { echoed: null } });
    if (listening) expect(seen).toEqual(['{"jsonrpc":"2.0","id":"req-43","method":"tools/list"}']);
    const recovered = await scope.waitFor((s) => [...s.exchanges.values()].find((x) => x.status === 200 && x.endedAt !== undefined));
    expect(recovered.error).toBeUndefined();
  });

  it('forwards a malformed JSON body byte for byte, relays the upstream answer exactly, records invalid-json, and serves the next request', async () => {
    const answer = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: upstream says so"}}';
    const upstream = await upstreamWith({
      'POST /mcp': (req, res, body) => {
        try {
          JSON.parse(body.toString('utf8'));
        } catch {
          res.writeHead(400, { 'content-type': 'application/json', 'x-parse': 'failed' });
          return void res.end(answer);
        }
        return jsonRpcEcho()(req, res, body);
      },
    });
    const scope = await scopeFor(`${upstream.origin}/mcp`);
    const malformed = '{"jsonrpc":"2.0",';
    const res = await postJson(`${scope.proxy.origin}/mcp`, malformed);
    expect(upstream.seen).toHaveLength(1);
    expect(upstream.seen[0].body.equals(Buffer.from(malformed))).toBe(true);
    expect(res.status).toBe(400);
    expect(res.headers['x-parse']).toBe('failed');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.text).toBe(answer);

    const problem = await scope.waitFor((s) =>
      s.snapshot().find((e): e is ProblemEvent => e.type === 'problem' && e.code === 'invalid-json'),
    );
    expect(problem.raw).toBe(malformed);

    const next = await postJson(`${scope.proxy.origin}/mcp`, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(next.status).toBe(200);
    expect(JSON.parse(next.text)).toEqual({ jsonrpc: '2.0', id: 2, result: { echoed: null } });
  });

  it('passes response headers through unchanged except hop-by-hop ones', async () => {
    const upstream = await upstreamWith({
      'POST /mcp': (_req, res) => {
        const body = '{"jsonrpc":"2.0","id":1,"result":{}}';
        res.setHeader('content-type', 'application/json');
        res.setHeader('x-upstream-header', 'kept as is');
        res.setHeader('set-cookie', ['a=1; Path=/; HttpOnly', 'b=2; Max-Age=60', 'c=3']);
        res.setHeader(
          'www-authenticate',
          'Bearer realm="mcp", error="invalid_token", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
        );
        res.setHeader('mcp-session-id', 'sess-0123456789');
        res.setHeader('x-multi', ['one', 'two']);
        res.setHeader('cache-control', 'no-cache, no-transform');
        // Hop-by-hop: named in Connection, and keep-alive.
        res.setHeader('connection', 'keep-alive, x-hop-private');
        res.setHeader('x-hop-private', 'for the next hop only');
        res.setHeader('keep-alive', 'timeout=5');
        res.setHeader('content-length', Buffer.byteLength(body));
        res.writeHead(401);
        res.end(body);
      },
    });
    const scope = await scopeFor(`${upstream.origin}/mcp`);
    const res = await postJson(`${scope.proxy.origin}/mcp`, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(res.status).toBe(401);
    expect(res.text).toBe('{"jsonrpc":"2.0","id":1,"result":{}}');
    expect(res.headers['x-upstream-header']).toBe('kept as is');
    expect(res.headers['set-cookie']).toEqual(['a=1; Path=/; HttpOnly', 'b=2; Max-Age=60', 'c=3']);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="mcp", error="invalid_token", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
    );
    expect(res.headers['mcp-session-id']).toBe('sess-0123456789');
    expect(res.headers['cache-control']).toBe('no-cache, no-transform');
    expect(res.headers['content-length']).toBe(String(res.body.length));
    // Repeated headers stay repeated, in order.
    const raw: [string, string][] = [];
    for (let i = 0; i < res.rawHeaders.length; i += 2) raw.push([res.rawHeaders[i].toLowerCase(), res.rawHeaders[i + 1]]);
    expect(
      raw
        .filter(([n]) => n === 'x-multi')
        .map(([, v]) => v)
        .join(', '),
    ).toBe('one, two');
    expect(raw.filter(([n]) => n === 'set-cookie')).toHaveLength(3);
    // Hop-by-hop headers are the proxy's own business.
    expect(res.headers['x-hop-private']).toBeUndefined();
    expect(res.headers['keep-alive']).not.toBe('timeout=5');
  });

  it('passes request headers and the query string through unchanged', async () => {
    const upstream = await upstreamWith({ 'POST /mcp': jsonRpcEcho() });
    const scope = await scopeFor(`${upstream.origin}/mcp`);
    const query = '?a=b%20c&x=1+2&empty=&flag&enc=%2F%3F%26&u=%C3%A9&t=%7e';
    const sent: Record<string, string> = {
      'mcp-session-id': 'session-abc-123',
      'mcp-protocol-version': '2025-06-18',
      'last-event-id': 'stream-1_42',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
      'mcp-param-foo': 'bar baz',
      authorization: 'Bearer upstream-credential',
      origin: 'http://localhost:5173',
      'x-custom': 'Mixed Case Value',
    };
    const hopByHop = {
      connection: 'keep-alive, x-hop-private',
      'x-hop-private': 'for the proxy only',
      'keep-alive': 'timeout=5',
      te: 'trailers',
      'proxy-connection': 'keep-alive',
    };
    const res = await postJson(
      `${scope.proxy.origin}/mcp${query}`,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } },
      { ...sent, ...hopByHop },
    );
    expect(res.status).toBe(200);
    expect(upstream.seen).toHaveLength(1);
    const seen = upstream.seen[0];
    expect(seen.url).toBe(`/mcp${query}`);
    for (const [name, value] of Object.entries(sent)) expect(seen.headers[name], name).toBe(value);
    expect(seen.headers.host).toBe(new URL(upstream.origin).host);
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['x-hop-private']).toBeUndefined();
    expect(seen.headers['keep-alive']).toBeUndefined();
    expect(seen.headers.te).toBeUndefined();
    expect(seen.headers['proxy-connection']).toBeUndefined();
    expect(seen.headers.accept).toBe('application/json, text/event-stream');
    expect(seen.body.toString('utf8')).toBe('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}');

    // A GET (an SSE resume) carries its query and headers as well.
    const upstream2 = await upstreamWith({
      'GET /mcp': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('id: 43\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n');
      },
    });
    const scope2 = await scopeFor(`${upstream2.origin}/mcp`);
    const get = await http(`${scope2.proxy.origin}/mcp${query}`, {
      headers: { accept: 'text/event-stream', 'last-event-id': '42', 'mcp-session-id': 'sid-1' },
    });
    expect(get.status).toBe(200);
    expect(upstream2.seen[0].url).toBe(`/mcp${query}`);
    expect(upstream2.seen[0].headers['last-event-id']).toBe('42');
    expect(upstream2.seen[0].headers['mcp-session-id']).toBe('sid-1');
  });

  it('relays an upstream 503 to a GET at once and never retries it (a client decides whether to retry, not the proxy)', async () => {
    // @fastify/reply-from retries a GET answered 503 up to ten times; a debugging proxy must not.
    const upstream = await upstreamWith({
      'GET /mcp': (_req, res) => {
        res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '0' });
        res.end('busy');
      },
    });
    const scope = await scopeFor(`${upstream.origin}/mcp`);
    const res = await http(`${scope.proxy.origin}/mcp`, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'sid-1' } });
    expect(res.status).toBe(503);
    expect(res.text).toBe('busy');
    expect(res.headers['retry-after']).toBe('0');
    expect(upstream.seen.filter((r) => r.method === 'GET')).toHaveLength(1);
    const exchange = await scope.waitFor((s) => [...s.exchanges.values()].find((x) => x.endedAt !== undefined));
    expect(exchange.status).toBe(503);
  });

  it('forwards a path with dot segments or a malformed escape as it came, and the upstream answers it (the proxy judges no path)', async () => {
    // @fastify/http-proxy answers dot segments with its own 400, and fastify a path it cannot
    // decode; a debugging proxy in front of one server must let the server see (and answer)
    // exactly what was sent.
    const upstream = await upstreamWith({
      'GET /a/../mcp': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('server saw it'),
    });
    const scope = await scopeFor(`${upstream.origin}/mcp`);
    const proxyUrl = new URL(scope.proxy.origin);
    for (const path of ['/a/../mcp', '/a/%2e%2e/mcp', '/a/..%5cmcp', '/mcp%zz']) {
      // By host, port and path: a URL string would have its dot segments resolved before sending.
      const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request({ host: proxyUrl.hostname, port: proxyUrl.port, path, agent: false }, (r) => {
          readAll(r).then((b) => resolve({ status: r.statusCode ?? 0, text: b.toString('utf8') }), reject);
        });
        req.on('error', reject);
        req.end();
      });
      expect(upstream.seen.at(-1)?.url).toBe(path);
      expect(res).toEqual(path === '/a/../mcp' ? { status: 200, text: 'server saw it' } : { status: 404, text: 'no such route' });
    }
    const ended = await scope.waitFor((s) => {
      const xs = [...s.exchanges.values()].filter((x) => x.endedAt !== undefined);
      return xs.length === 4 ? xs : undefined;
    });
    expect(ended.map((x) => x.status).sort()).toEqual([200, 404, 404, 404]);

    // A path fastify's router cannot decode still gets its body forwarded, and the Host guard.
    const raw = (path: string, headers: Record<string, string>, body?: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          { host: proxyUrl.hostname, port: proxyUrl.port, path, method: body ? 'POST' : 'GET', headers, agent: false },
          (r) => {
            r.resume();
            r.on('end', () => resolve(r.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const seenBefore = upstream.seen.length;
    expect(await raw('/mcp%zz', { 'content-type': 'application/json' }, '{"jsonrpc":"2.0","id":7,"method":"ping"}')).toBe(404);
    expect(upstream.seen.at(-1)).toMatchObject({ method: 'POST', url: '/mcp%zz' });
    expect(upstream.seen.at(-1)?.body.toString('utf8')).toBe('{"jsonrpc":"2.0","id":7,"method":"ping"}');
    expect(await raw('/mcp%zz', { host: 'evil.example' })).toBe(403);
    expect(upstream.seen.length).toBe(seenBefore + 1);
  });
});

// =============================================================================================
// 7. Redaction
// =============================================================================================

describe('secret redaction', () => {
  it('keeps credentials out of the API and the feed while the upstream gets them intact', async () => {
    const SECRET = 'sk-secret-123456';
    const COOKIE_SECRET = 'sid=abc';
    const SERVER_COOKIE = 'topsecret-cookie-value-987';
    const upstream = await upstreamWith({
      'POST /mcp': jsonRpcEcho({ 'set-cookie': [`session=${SERVER_COOKIE}; HttpOnly`], 'mcp-session-id': 'visible-session-id' }),
    });
    const scope = await scopeFor(`${upstream.origin}/mcp`);
    const live = await FeedClient.open(wsUrl(scope));
    await live.until((m) => m.type === 'snapshot' && m.done, 'snapshot');

    const res = await postJson(
      `${scope.proxy.origin}/mcp`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'redaction-test', version: '1' } },
      },
      { authorization: `Bearer ${SECRET}`, cookie: COOKIE_SECRET },
    );
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']).toEqual([`session=${SERVER_COOKIE}; HttpOnly`]);
    // The upstream got the credentials exactly as sent.
    expect(upstream.seen[0].headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(upstream.seen[0].headers.cookie).toBe(COOKIE_SECRET);

    const exchange = await scope.waitFor((s) => [...s.exchanges.values()].find((x) => x.endedAt !== undefined && x.responseHeaders));
    const session = await scope.waitFor((s) => [...s.sessions.values()].find((x) => x.counts.messages >= 2));
    await live.until(
      (m) => m.type === 'events' && m.events.some((e) => e.type === 'exchange' && e.exchange.endedAt !== undefined),
      'the finished exchange',
    );
    const late = await FeedClient.open(wsUrl(scope));
    await late.until((m) => m.type === 'snapshot' && m.done, 'snapshot (late)');

    const headers = bearer(TOKEN);
    const events = await http(`${scope.ui!.origin}/api/events`, { headers });
    const messages = await http(`${scope.ui!.origin}/api/sessions/${session.id}/messages`, { headers });
    const exchangeApi = await http(`${scope.ui!.origin}/api/exchanges/${exchange.id}`, { headers });
    const texts: [string, string][] = [
      ['/api/events', events.text],
      ['/api/sessions/:id/messages', messages.text],
      ['/api/exchanges/:id', exchangeApi.text],
      ['live feed', live.raw.join('\n')],
      ['snapshot feed', late.raw.join('\n')],
    ];
    for (const [where, text] of texts) {
      expect(text.length, where).toBeGreaterThan(0);
      expect(text, where).not.toContain(SECRET);
      expect(text, where).not.toContain('123456');
      expect(text, where).not.toContain(COOKIE_SECRET);
      expect(text, where).not.toContain(SERVER_COOKIE);
      // The UI token itself is never echoed either.
      expect(text, where).not.toContain(TOKEN);
    }
    // The headers are there, redacted: the test looked where they would be.
    const recorded = (JSON.parse(exchangeApi.text) as ExchangeInfo).requestHeaders;
    expect(recorded.authorization).toBe('Bearer [redacted]');
    expect(recorded.cookie).toBe('[redacted]');
    // One set-cookie arrives from undici as a string, several as an array: either way, redacted.
    expect([(JSON.parse(exchangeApi.text) as ExchangeInfo).responseHeaders?.['set-cookie']].flat()).toEqual(['[redacted]']);
    expect((JSON.parse(exchangeApi.text) as ExchangeInfo).responseHeaders?.['mcp-session-id']).toBe('visible-session-id');
    const feedExchanges = late.snapshotEvents().filter((e) => e.type === 'exchange');
    expect(feedExchanges.some((e) => e.type === 'exchange' && e.exchange.requestHeaders.authorization === 'Bearer [redacted]')).toBe(true);
    expect(messagesIn(JSON.parse(messages.text) as McpscopeEvent[]).map((m) => m.kind)).toEqual(['request', 'response']);
  });
});

describe('GET /api/sessions/:id/lint', () => {
  it("reports the linter's findings in the session by rule, most broken first (token required, 404 for an unknown session)", async () => {
    // An upstream that echoes: its initialize and tools/list results match neither schema; the client skips notifications/initialized.
    const up = await upstreamWith({ 'POST /mcp': jsonRpcEcho({ 'mcp-session-id': 'lint-session' }) });
    const scope = await scopeFor(`${up.origin}/mcp`);
    const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lint-api', version: '1' } };
    await postJson(`${scope.proxy.url}`, { jsonrpc: '2.0', id: 1, method: 'initialize', params: init });
    await postJson(
      `${scope.proxy.url}`,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-session-id': 'lint-session', 'mcp-protocol-version': '2025-06-18' },
    );
    await scope.settle();
    const session = [...scope.store.sessions.values()][0]!;
    const [, initResult, toolsList] = scope.store.messages(session.id);
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await http(`${scope.ui!.origin}/api/sessions/${session.id}/lint`)).status).toBe(401);
    expect((await http(`${scope.ui!.origin}/api/sessions/s999/lint`, { headers: auth })).status).toBe(404);
    const report = JSON.parse((await http(`${scope.ui!.origin}/api/sessions/${session.id}/lint`, { headers: auth })).text) as {
      total: number;
      protocolVersion: string;
      rules: { rule: string; count: number; specRef: string; first: { message: number; path?: string } }[];
    };
    expect(report).toMatchObject({ total: 3, protocolVersion: '2025-06-18' });
    expect(report.rules).toEqual([
      expect.objectContaining({
        rule: 'schema/result',
        count: 2,
        specRef: '2025-06-18 basic/lifecycle#initialization',
        first: expect.objectContaining({ message: initResult!.seq, path: '/result/protocolVersion' }),
      }),
      expect.objectContaining({
        rule: 'lifecycle/request-before-initialized',
        count: 1,
        first: expect.objectContaining({ message: toolsList!.seq }),
      }),
    ]);
    expect(session.counts.violations).toBe(3);
  });
});
