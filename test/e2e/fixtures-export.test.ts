/**
 * Exports and imports over real sockets:
 * - a session captured against @modelcontextprotocol/server-everything through mcpscope with the
 *   official SDK client, exported from the UI port as a fixture (validated against
 *   docs/fixture.schema.json), HAR 1.2 (with `_eventSourceMessages`) and NDJSON;
 * - no export (nor the --record file) holds the proxy token or a credential the recorder redacts;
 * - `mcpscope --record FILE` (the built CLI) killed with SIGKILL mid-session leaves a file holding
 *   every event the feed had delivered, which `mcpscope open FILE` serves;
 * - POST /api/import loads a capture into a running mcpscope.
 * The CLI tests need `npm run build` (npm test runs it first).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { Fixture } from '../../proxy/core/model/fixture-format.js';
import type { Har } from '../../proxy/files/export/export-har.js';
import { sessionEventsOf } from '../../proxy/files/export/export-common.js';
import { exportFileName } from '../../proxy/app/serve/fixture-routes.js';
import { importCapture, readCapture } from '../../proxy/files/import/import-capture.js';
import { exportFixture } from '../../proxy/files/export/export-fixture.js';
import type { McpscopeEvent, MessageEvent, SessionInfo } from '../../proxy/core/model/events.js';
import { collectFeed } from '../support/feed.js';
import { fixtureErrors } from '../support/fixture-schema.js';
import { harErrors } from '../support/har-schema.js';
import { startEverythingServer, type RunningPeer } from '../support/peers.js';
import { startScriptedUpstream, type Handler } from '../support/scripted-upstream.js';
import { recordScriptedCapture } from '../support/scripted-session.js';

const TOKEN = 'fixtures-e2e-token-0123456789';
const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const LONG_STEPS = 3;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
function tmpDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcpscope-fixtures-e2e-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function api(origin: string, path: string, init: RequestInit & { token?: string | null } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.token !== null) headers.set('authorization', `Bearer ${init.token ?? TOKEN}`);
  return fetch(`${origin}${path}`, { ...init, headers });
}

/** The SDK client scenario of the acceptance test: initialize, tools/list, echo, a long-running call with progress. */
async function scenario(url: string, options: { terminate: boolean }): Promise<{ progress: Progress[]; close: () => Promise<void> }> {
  const client = new Client({ name: 'fixtures-e2e', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name)).toContain('trigger-long-running-operation');
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'fixture me' } });
  expect(JSON.stringify(echo)).toContain('fixture me');
  const progress: Progress[] = [];
  await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: LONG_STEPS } }, undefined, {
    onprogress: (p) => progress.push(p),
  });
  expect(progress).toHaveLength(LONG_STEPS);
  const close = async () => {
    await client.close().catch(() => undefined);
  };
  if (options.terminate) {
    await transport.terminateSession();
    await close();
  }
  return { progress, close };
}

// ------------------------------------------------------------------------------------------------

describe('exports of a session captured against server-everything', () => {
  let peer: RunningPeer;
  let scope: Mcpscope;
  let session: SessionInfo;

  beforeAll(async () => {
    peer = await startEverythingServer('streamableHttp');
    scope = await startMcpscope({ target: peer.url, port: 0, uiPort: 0, token: TOKEN });
    await scenario(scope.proxy.url, { terminate: true });
    session = await scope.waitFor((s) =>
      [...s.sessions.values()].find((x) => x.clientInfo?.name === 'fixtures-e2e' && x.status === 'closed'),
    );
  });
  afterAll(async () => {
    await scope?.close();
    await peer?.close();
  });

  it('fixture: a download that validates against the schema, with every message in wire order and its links', async () => {
    const res = await api(scope.ui!.origin, `/api/sessions/${session.id}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const disposition = res.headers.get('content-disposition');
    expect(disposition).toMatch(/^attachment; filename="mcpscope-s\d+-\d{8}-\d{6}\.json"$/);
    expect(disposition).toBe(`attachment; filename="${exportFileName(session.id, session.startedAt, 'fixture')}"`);
    const fixture = (await res.json()) as Fixture;
    expect(fixtureErrors(fixture)).toBeUndefined();
    expect(fixture.session).toMatchObject({
      transport: 'streamable-http',
      target: peer.url,
      closeReason: 'deleted',
      clientInfo: { name: 'fixtures-e2e' },
    });
    expect(fixture.session.serverInfo?.name).toBeTruthy();

    // Every message of the session, in wire order, with the links the correlator found.
    const stored = scope.store.messages(session.id);
    expect(fixture.messages.map((m) => [m.seq, m.dir, m.kind, m.method, m.pair, m.parent, m.exchange])).toEqual(
      stored.map((m) => [m.seq, m.dir, m.kind, m.method, m.pair, m.parent, m.exchangeId]),
    );
    expect(fixture.messages.map((m) => m.message)).toEqual(stored.map((m) => m.jsonrpc));
    const requests = fixture.messages.filter((m) => m.dir === 'c2s' && m.kind === 'request');
    expect(requests.map((m) => m.method)).toEqual(['initialize', 'tools/list', 'tools/call', 'tools/call']);
    for (const r of requests)
      expect(fixture.messages.filter((m) => m.pair === r.seq && (m.kind === 'response' || m.kind === 'error'))).toHaveLength(1);
    const long = requests.find((m) => m.name === 'trigger-long-running-operation')!;
    const progress = fixture.messages.filter((m) => m.method === 'notifications/progress');
    expect(progress).toHaveLength(LONG_STEPS);
    for (const p of progress) expect([p.pair, p.carrier, p.exchange]).toEqual([long.seq, 'post-sse', long.exchange]);
    // Exchanges: each message's exchange is listed; they are in start order.
    const ids = new Set(fixture.exchanges.map((x) => x.id));
    for (const m of fixture.messages) expect(ids.has(m.exchange!)).toBe(true);
    const starts = fixture.exchanges.map((x) => x.t);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(fixture.exchanges.some((x) => x.method === 'DELETE' && x.status === 200)).toBe(true);
  });

  it('HAR: valid HAR 1.2 with an entry per exchange and _eventSourceMessages on the SSE responses', async () => {
    const res = await api(scope.ui!.origin, `/api/sessions/${session.id}/export?format=har`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${exportFileName(session.id, session.startedAt, 'har')}"`);
    const har = (await res.json()) as Har;
    expect(harErrors(har)).toBeUndefined();
    expect(har.log.version).toBe('1.2');
    const exchanges = [...scope.store.exchanges.values()].filter((x) => x.sessionId === session.id);
    expect(har.log.entries).toHaveLength(exchanges.length);
    for (const e of har.log.entries) expect(e.request.url.startsWith(peer.url.replace(/\/mcp$/, ''))).toBe(true);

    const sse = har.log.entries.filter((e) => e.response.content.mimeType.startsWith('text/event-stream'));
    expect(sse.length).toBeGreaterThan(0);
    for (const e of sse) expect(Array.isArray(e._eventSourceMessages)).toBe(true);
    const long = har.log.entries.find((e) => e.request.postData?.text.includes('trigger-long-running-operation'))!;
    expect(long._eventSourceMessages).toBeDefined();
    const events = long._eventSourceMessages!.map((m) => JSON.parse(m.data) as { method?: string; result?: unknown });
    expect(events.filter((m) => m.method === 'notifications/progress')).toHaveLength(LONG_STEPS);
    expect(events.at(-1)?.result).toBeDefined();
    for (const m of long._eventSourceMessages!) {
      expect(m.type).toBe('message');
      expect(m.time).toBeGreaterThanOrEqual(Date.parse(long.startedDateTime) / 1000);
    }
    // Every SSE message on the wire of that exchange is listed.
    const onStream = scope.store.messages(session.id).filter((m) => m.exchangeId === long._mcpscope.exchange && m.dir === 's2c');
    expect(long._eventSourceMessages!.map((m) => JSON.parse(m.data))).toEqual(onStream.map((m) => m.jsonrpc));
    // POST bodies are the client's frames.
    const init = har.log.entries[0];
    expect(JSON.parse(init.request.postData!.text)).toMatchObject({ method: 'initialize' });
  });

  it('NDJSON: one valid event per line, as many as the store has (per session and for everything)', async () => {
    const res = await api(scope.ui!.origin, `/api/sessions/${session.id}/export?format=ndjson`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/filename="mcpscope-s\d+-\d{8}-\d{6}\.ndjson"$/);
    const text = await res.text();
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    for (const line of lines) expect(readCapture(line).events).toHaveLength(1); // each line alone is a valid event
    expect(lines).toHaveLength(sessionEventsOf(scope.store, session.id).length);

    const all = await api(scope.ui!.origin, '/api/export?format=ndjson');
    expect(all.status).toBe(200);
    const allEvents = importCapture(await all.text());
    expect(allEvents).toHaveLength(scope.store.snapshot().length);
    expect(allEvents.map((e) => e.seq)).toEqual(scope.store.snapshot().map((e) => e.seq));
  });

  it('refuses an unknown format (400), an unknown session (404) and a missing token (401)', async () => {
    const bad = await api(scope.ui!.origin, `/api/sessions/${session.id}/export?format=xml`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(
      /Unknown export format "xml": use format=fixture, format=har, format=ndjson/,
    );
    const missing = await api(scope.ui!.origin, '/api/sessions/s999/export?format=har');
    expect(missing.status).toBe(404);
    const noToken = await api(scope.ui!.origin, `/api/sessions/${session.id}/export`, { token: null });
    expect(noToken.status).toBe(401);
    const allFixture = await api(scope.ui!.origin, '/api/export?format=fixture');
    expect(allFixture.status).toBe(400);
  });
});

// ------------------------------------------------------------------------------------------------

describe('HAR through the reverse proxy: the Host the upstream received', () => {
  it("lists the upstream's Host (its url's authority), keeps the client's in _mcpscope.clientHost, and imports back to the client's", async () => {
    const upstream = await startScriptedUpstream({
      'POST /mcp': (_req, res, body) => {
        const msg = JSON.parse(body.toString()) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} }));
      },
    });
    cleanups.push(() => upstream.close());
    const scope = await startMcpscope({ target: `${upstream.origin}/mcp`, port: 0, uiPort: 0, token: TOKEN });
    cleanups.push(() => scope.close());
    const r = await fetch(scope.proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(r.status).toBe(200);
    await r.text();
    await scope.waitFor((s) => [...s.exchanges.values()].find((x) => x.endedAt !== undefined));

    const res = await api(scope.ui!.origin, '/api/export?format=har');
    expect(res.status).toBe(200);
    const text = await res.text();
    const [entry] = (JSON.parse(text) as Har).log.entries;
    const hosts = entry.request.headers.filter((h) => h.name.toLowerCase() === 'host').map((h) => h.value);
    // What the upstream really got, what the entry says, and the entry's url: one authority.
    expect(upstream.seen[0].headers.host).toBe(new URL(upstream.origin).host);
    expect(hosts).toEqual([upstream.seen[0].headers.host]);
    expect(new URL(entry.request.url).host).toBe(hosts[0]);
    // What the client sent (the proxy's address) is not lost.
    const proxyHost = new URL(scope.proxy.url).host;
    expect(hosts[0]).not.toBe(proxyHost);
    expect(entry._mcpscope.clientHost).toBe(proxyHost);
    // Read back, the exchange holds the client's Host, as the live one does.
    const live = [...scope.store.exchanges.values()][0];
    expect(live.requestHeaders.host).toBe(proxyHost);
    const imported = importCapture(text).filter((e) => e.type === 'exchange');
    expect(imported.at(-1)).toMatchObject({ exchange: { requestHeaders: { host: proxyHost } } });
  });
});

// ------------------------------------------------------------------------------------------------

describe('no export holds the proxy token or a redacted secret', () => {
  const SECRETS = [
    'sk-live-secret-value',
    'abc123xyz',
    'ver1fier',
    'shh-secret',
    'at-live-ACCESS-token',
    'rt-live-REFRESH-token',
    'hunter2-password',
    TOKEN,
  ];

  it('fixture, HAR and NDJSON (per session and everything) and the --record file', async () => {
    const jsonRpc: Handler = (req, res, body) => {
      const msg = JSON.parse(body.toString()) as { id?: number; method?: string; params?: { arguments?: { note?: string } } };
      if (msg.id === undefined) return void res.writeHead(202).end();
      const result =
        msg.method === 'initialize'
          ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'secret-keeper', version: '1' } }
          : { content: [{ type: 'text', text: `noted: ${msg.params?.arguments?.note}` }] };
      res
        .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-secrets' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    };
    const upstream = await startScriptedUpstream({
      'POST /mcp': jsonRpc,
      'POST /token': (_req, res) =>
        void res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            access_token: 'at-live-ACCESS-token',
            refresh_token: 'rt-live-REFRESH-token',
            token_type: 'Bearer',
            expires_in: 3600,
          }),
        ),
    });
    cleanups.push(() => upstream.close());
    const recordFile = join(tmpDir(), 'secrets.ndjson');
    const scope = await startMcpscope({ target: `${upstream.origin}/mcp`, port: 0, uiPort: 0, token: TOKEN, recordFile });
    cleanups.push(() => scope.close());

    const base = scope.proxy.url.replace(/\/mcp$/, '');
    const post = (path: string, body: string, headers: Record<string, string>) =>
      fetch(`${base}${path}`, { method: 'POST', body, headers });
    const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    let r = await post(
      `/mcp?hint=${TOKEN}`,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'secret-client', version: '1' } },
      }),
      {
        ...mcpHeaders,
        authorization: 'Bearer sk-live-secret-value',
        'x-debug': TOKEN,
      },
    );
    expect(r.status).toBe(200);
    r = await post(
      '/mcp',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'login', arguments: { password: 'hunter2-password', note: `my token is ${TOKEN}` } },
      }),
      {
        ...mcpHeaders,
        authorization: 'Bearer sk-live-secret-value',
        'mcp-session-id': 'sess-secrets',
      },
    );
    expect(r.status).toBe(200);
    r = await post('/token', 'grant_type=authorization_code&code=abc123xyz&code_verifier=ver1fier&client_secret=shh-secret', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(((await r.json()) as { access_token: string }).access_token).toBe('at-live-ACCESS-token');
    // The secrets really crossed the wire (the upstream got them untouched).
    expect(upstream.seen.map((s) => s.body.toString()).join('\n')).toContain('client_secret=shh-secret');
    expect(upstream.seen[0].headers.authorization).toBe('Bearer sk-live-secret-value');

    const session = await scope.waitFor((s) =>
      [...s.sessions.values()].find((x) => x.serverInfo?.name === 'secret-keeper' && x.counts.messages === 4),
    );
    await scope.waitFor((s) => [...s.exchanges.values()].find((x) => x.url === '/token' && x.endedAt !== undefined));

    const exports: Record<string, string> = {};
    for (const format of ['fixture', 'har', 'ndjson']) {
      const res = await api(scope.ui!.origin, `/api/sessions/${session.id}/export?format=${format}`);
      expect(res.status).toBe(200);
      exports[`session ${format}`] = await res.text();
    }
    for (const format of ['har', 'ndjson']) {
      const res = await api(scope.ui!.origin, `/api/export?format=${format}`);
      expect(res.status).toBe(200);
      exports[`all ${format}`] = await res.text();
    }
    exports['record file'] = readFileSync(recordFile, 'utf8');

    for (const [name, text] of Object.entries(exports)) {
      for (const secret of SECRETS) expect(text.includes(secret), `${name} contains ${secret}`).toBe(false);
      // Not vacuous: the exports do show the traffic, with its credentials redacted.
      expect(text, name).toContain('[redacted]');
      expect(text, name).toContain('secret-client');
    }
    for (const name of ['all har', 'all ndjson', 'record file']) {
      expect(exports[name], name).toContain('/token');
      expect(exports[name], name).toMatch(/code=\[redacted\]&code_verifier=\[redacted\]&client_secret=\[redacted\]/);
    }
    expect(exports['session fixture']).toContain('Bearer [redacted]');
    expect(exports['all har']).toContain('\\"access_token\\":\\"[redacted]\\"');
  });
});

// ------------------------------------------------------------------------------------------------

interface Launched {
  child: ChildProcess;
  stderr: () => string;
  exit: Promise<number | null>;
}

function run(args: string[]): Launched {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MCPSCOPE_TOKEN: '' } });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  child.stdout!.resume();
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, stderr: () => err, exit };
}

/** Waits until the launched command has printed every line matching `patterns` (on stderr); returns the first group of each. */
function printed(l: Launched, patterns: RegExp[], ms = 20_000): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not printed within ${ms} ms:\n${l.stderr()}`)), ms);
    const check = () => {
      const found = patterns.map((p) => p.exec(l.stderr())?.[1]);
      if (found.every((f) => f !== undefined)) {
        clearTimeout(timer);
        l.child.stderr!.off('data', check);
        resolve(found as string[]);
      }
    };
    l.child.stderr!.on('data', check);
    l.child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before printing:\n${l.stderr()}`));
    });
    check();
  });
}

/** Resolves once `predicate(file contents)` holds, re-checking on every change of the file (no polling sleeps). */
function fileUntil(path: string, predicate: (text: string) => boolean, ms = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let watcher: ReturnType<typeof watch> | undefined;
    const done = (err?: Error, text?: string) => {
      clearTimeout(timer);
      watcher?.close();
      if (err) reject(err);
      else resolve(text!);
    };
    const check = () => {
      const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
      if (predicate(text)) done(undefined, text);
    };
    const timer = setTimeout(() => done(new Error(`${path}: condition not met within ${ms} ms`)), ms);
    watcher = watch(path, () => check());
    check();
  });
}

describe('mcpscope --record, SIGKILL, mcpscope open', () => {
  it('the NDJSON record holds every event the feed delivered before the kill, and `open` serves it', async () => {
    expect(
      existsSync(fileURLToPath(new URL('../../dist/proxy/files/export/ndjson-recorder.js', import.meta.url))),
      'run `npm run build` first',
    ).toBe(true);
    const peer = await startEverythingServer('streamableHttp');
    cleanups.push(() => peer.close());
    const file = join(tmpDir(), 'killed.ndjson');

    const app = run(['--target', peer.url, '--port', '0', '--ui-port', '0', '--token', TOKEN, '--record', file]);
    const [proxyUrl, uiUrl] = await printed(app, [/proxy\s+(http:\/\/\S+)/, /UI\s+(http:\/\/\S+)/]);
    const feed = collectFeed(uiUrl);
    cleanups.push(() => feed.close());

    // Mid-session: the client never terminates its session before the kill.
    const { close } = await scenario(proxyUrl, { terminate: false });
    cleanups.push(close);
    const isLastResponse = (e: McpscopeEvent): e is MessageEvent =>
      e.type === 'message' && e.kind === 'response' && e.name === 'trigger-long-running-operation';
    await feed.until((events) => events.some(isLastResponse));
    const last = feed.events.find(isLastResponse)!;
    await fileUntil(file, (text) =>
      text.split('\n').some((line) => line.includes(`"seq":${last.seq}`) && (JSON.parse(line) as McpscopeEvent).seq === last.seq),
    );

    const delivered = [...feed.events];
    feed.close();
    app.child.kill('SIGKILL');
    await app.exit;
    expect(app.child.signalCode).toBe('SIGKILL');

    const recorded = importCapture(readFileSync(file, 'utf8'), { onWarning: () => undefined });
    const bySeq = new Map(recorded.map((e) => [e.seq, e]));
    expect(delivered.length).toBeGreaterThan(10);
    for (const e of delivered) expect(bySeq.get(e.seq), `event ${e.seq} (${e.type})`).toEqual(e);
    const messages = recorded.filter((e): e is MessageEvent => e.type === 'message');
    expect(messages.filter((m) => m.method === 'notifications/progress')).toHaveLength(LONG_STEPS);
    const sessionId = messages[0].sessionId;

    // `mcpscope open FILE` serves it.
    const opened = run(['open', file, '--ui-port', '0', '--token', TOKEN]);
    const [openUi, summary] = await printed(opened, [/UI\s+(http:\/\/\S+)/, /^(Opened .*)$/m]);
    expect(summary).toMatch(new RegExp(`NDJSON event log\\): ${recorded.length} events, 1 session\\.`));
    const origin = new URL(openUi).origin;
    const sessions = (await (await api(origin, '/api/sessions')).json()) as SessionInfo[];
    expect(sessions.map((s) => [s.id, s.clientInfo?.name, s.status])).toEqual([[sessionId, 'fixtures-e2e', 'open']]);
    const served = (await (await api(origin, `/api/sessions/${sessionId}/messages`)).json()) as MessageEvent[];
    expect(served.map((m) => [m.dir, m.kind, m.method, m.jsonrpc])).toEqual(messages.map((m) => [m.dir, m.kind, m.method, m.jsonrpc]));
    // Links survive (remapped to the new store's seqs).
    const bySeqServed = new Map(served.map((m) => [m.seq, m]));
    for (const m of served) if (m.pair !== undefined) expect(bySeqServed.get(m.pair)?.kind).toMatch(/request/);
    // And it exports from there like a live session.
    const fixture = (await (await api(origin, `/api/sessions/${sessionId}/export`)).json()) as Fixture;
    expect(fixtureErrors(fixture)).toBeUndefined();
    expect(fixture.messages).toHaveLength(messages.length);

    opened.child.kill('SIGTERM');
    expect(await opened.exit).toBe(0);

    // A record cut in the middle of its last line still opens, with a warning.
    const cut = join(tmpDir(), 'cut.ndjson');
    const text = readFileSync(file, 'utf8');
    writeFileSync(cut, text + text.split('\n')[1].slice(0, 40));
    const again = run(['open', cut, '--ui-port', '0', '--token', TOKEN]);
    await printed(again, [/UI\s+(http:\/\/\S+)/]);
    expect(again.stderr()).toMatch(/warning: The last line \(line \d+\) is incomplete/);
    again.child.kill('SIGINT');
    expect(await again.exit).toBe(0);
  });

  it('`mcpscope open` refuses a missing or unreadable capture in plain words', async () => {
    const dir = tmpDir();
    const missing = run(['open', join(dir, 'nope.json'), '--ui-port', '0']);
    expect(await missing.exit).toBe(1);
    expect(missing.stderr()).toMatch(/There is no file ".*nope\.json"/);
    const garbage = join(dir, 'notes.txt');
    writeFileSync(garbage, 'just some notes\n');
    const bad = run(['open', garbage, '--ui-port', '0']);
    expect(await bad.exit).toBe(1);
    expect(bad.stderr()).toMatch(/notes\.txt: This is not JSON or NDJSON\. mcpscope can open a fixture/);
    const none = run(['open']);
    expect(await none.exit).toBe(2);
    expect(none.stderr()).toContain('which file?');
  });
});

// ------------------------------------------------------------------------------------------------

describe('POST /api/import', () => {
  it('loads a fixture, NDJSON or HAR into a running mcpscope as new sessions, and refuses anything else', async () => {
    const scope = await startMcpscope({ target: 'http://127.0.0.1:9/mcp', port: 0, uiPort: 0, token: TOKEN });
    cleanups.push(() => scope.close());
    const c = recordScriptedCapture();
    const fixture = JSON.stringify(exportFixture(c.store, c.streamable));

    const res = await api(scope.ui!.origin, '/api/import', {
      method: 'POST',
      body: fixture,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { events: number; sessions: string[]; kind: string };
    expect(body.kind).toBe('fixture');
    expect(body.events).toBe(readCapture(fixture).events.length);
    // On a live mcpscope, imported ids never take ones the recorder may hand out.
    expect(body.sessions).toEqual([expect.stringMatching(/^s1-i\d+$/)]);
    const sessions = (await (await api(scope.ui!.origin, '/api/sessions')).json()) as SessionInfo[];
    expect(sessions.map((s) => s.id)).toEqual(body.sessions);
    const messages = (await (await api(scope.ui!.origin, `/api/sessions/${body.sessions[0]}/messages`)).json()) as MessageEvent[];
    expect(messages.map((m) => m.jsonrpc)).toEqual(c.store.messages(c.streamable).map((m) => m.jsonrpc));

    // The same capture as NDJSON without a content type, then as a HAR: more sessions, no collisions.
    // (Three each: the Streamable HTTP and legacy sessions, and the http bucket of the OAuth token exchange.)
    const { exportNdjson } = await import('../../proxy/files/export/export-ndjson.js');
    const { exportHar } = await import('../../proxy/files/export/export-har.js');
    const nd = await api(scope.ui!.origin, '/api/import', { method: 'POST', body: new Blob([exportNdjson(c.store)]) });
    expect(nd.status).toBe(200);
    expect(((await nd.json()) as { sessions: string[] }).sessions).toHaveLength(3);
    const har = await api(scope.ui!.origin, '/api/import', {
      method: 'POST',
      body: JSON.stringify(exportHar(c.store)),
      headers: { 'content-type': 'text/plain' },
    });
    expect(((await har.json()) as { kind: string }).kind).toBe('har');
    expect(scope.store.sessions.size).toBe(7);

    const bad = await api(scope.ui!.origin, '/api/import', {
      method: 'POST',
      body: 'GET / HTTP/1.1',
      headers: { 'content-type': 'text/plain' },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/not JSON or NDJSON/);
    const noToken = await api(scope.ui!.origin, '/api/import', { method: 'POST', body: fixture, token: null });
    expect(noToken.status).toBe(401);
    expect(scope.store.sessions.size).toBe(7);
  });
});
