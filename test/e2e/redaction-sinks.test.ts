/**
 * Issue 16, finding 4: secrets must not leak through side paths. A table of credentials, each
 * with a unique marker, is pushed through a real reverse proxy (and a second one whose target URL
 * carries userinfo) and through a stdio wrapper; then every sink is read — /api/sessions,
 * /api/events, /api/messages/:seq, /api/exchanges/:id, every export format, the WebSocket feed,
 * the `--record` NDJSON file and the wrapper's stderr — and no marker may appear in any of them.
 * Markers are checked to have gone through (the traffic around them is there), so the test cannot
 * pass by recording nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { runStdioWrapper } from '../../proxy/app/stdio/stdio-wrapper.js';
import { collectFeed } from '../support/feed.js';
import type { McpscopeEvent } from '../../proxy/core/model/events.js';

const TOKEN = 'redaction-sinks-ui-token-0123456789';
const j = (...p: string[]) => p.join(''); // token formats built at run time: this file must not look like a leak itself
const PEM = generateKeyPairSync('rsa', {
  modulusLength: 1024,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

/** Every credential kind, its unique marker. */
const M = {
  hdrApikey: 'SECRET-hdr-apikey-7f3a',
  hdrGoog: 'SECRET-hdr-goog-1b2c',
  hdrPrivateToken: 'SECRET-hdr-private-token-3d4e',
  hdrAccessToken: 'SECRET-hdr-x-access-token-5f6a',
  hdrAmz: 'SECRET-hdr-amz-security-7b8c',
  hdrOpenai: 'SECRET-hdr-openai-9d0e',
  hdrGithub: 'SECRET-hdr-github-1f2a',
  hdrAuthentication: 'SECRET-hdr-authentication-3b4c',
  hdrCustom: 'SECRET-hdr-x-acme-api-key-5d6e',
  resHdrToken: 'SECRET-reshdr-x-refresh-token-7f8a',
  qApikey: 'SECRET-q-apikey-9b0c',
  qApiKeyUpper: 'SECRET-q-API_KEY-1d2e',
  qKey: 'SECRET-q-key-3f4a',
  qSecret: 'SECRET-q-secret-5b6c',
  qSig: 'SECRET-q-sig-7d8e',
  qAmzSig: 'SECRET-q-amz-sig-9f0a',
  qSessionToken: 'SECRET-q-session-token-1b2c',
  jsonAccessToken: 'SECRET-json-accessToken-3d4e',
  jsonClientSecret: 'SECRET-json-clientSecret-5f6a',
  jsonAuthorization: 'SECRET-json-Authorization-7b8c',
  jsonToken: 'SECRET-json-token-9d0e',
  jsonSecret: 'SECRET-json-secret-1f2a',
  jsonApiKey: 'SECRET-json-apiKey-3b4c',
  jsonRefreshToken: 'SECRET-json-refreshToken-5d6e',
  jsonPrivateKey: 'SECRET-json-privateKey-7f8a',
  jsonDeep: 'SECRET-json-deep-9b0c',
  logData: 'SECRET-log-data-access-token-1d2e',
  malformed: 'SECRET-malformed-password-3f4a',
  malformedCs: 'SECRET-malformed-client-secret-5b6c',
  oversized: 'SECRET-oversized-client-secret-7d8e',
  sseBroken: 'SECRET-sse-broken-refresh-token-9f0a',
  plainAccess: 'SECRET-plain-access-token-1b2c',
  plainRefresh: 'SECRET-plain-refresh-token-3d4e',
  formSecret: 'SECRET-form-client-secret-5f6a',
  cmdApiKey: 'SECRET-cmd-api-key-7b8c',
  cmdToken: 'SECRET-cmd-token-9d0e',
  cmdPassword: 'SECRET-cmd-password-1f2a',
  cmdEnv: 'SECRET-cmd-env-API_KEY-3b4c',
  cmdDbUrl: 'SECRET-cmd-dburl-5d6e',
  stderrPassword: 'SECRET-stderr-password-7f8a',
  targetUserinfo: 'SECRET-target-userinfo-9b0c',
  github: j('ghp_', 'R3d4ct10nS1nksT3stT0k3nAbCdEfGhIjKlM'),
  aws: j('AKIA', 'R3D4CT10NS1NKS7Q'),
  slack: j('xoxb-', '918273645012-1029384756123-R3d4ct10nS1nksAbCdEfGh'),
  openai: j('sk-', 'R3d4ct10nS1nksAbCdEf', 'T3BlbkFJ', 'R3d4ct10nS1nksAbCdEf'),
  anthropic: j('sk-ant-api03-', 'R3d4ct10nS1nks'.repeat(7), 'AA'),
  npm: j('npm_', 'R3d4ct10nS1nksT3stT0k3nAbCdEfGhIjKlM'),
  google: j('AIza', 'SyR3d4ct10nS1nksT3stT0k3nAbCdEfGhIj'),
  jwt: j('eyJhbGciOiJIUzI1NiJ9', '.', 'eyJzdWIiOiJyZWRhY3Rpb24tc2lua3MifQ', '.', 'R3d4ct10nS1nksS1gn4tur3AbCdEfGhIjKlMnOp'),
  pem: PEM.split('\n')[5],
  stderrToken: j('ghp_', 'St4d3rrR3d4ct10nT0k3nAbCdEfGhIjKlMnO'),
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const sse = (...messages: string[]) => messages.map((d) => `event: message\ndata: ${d}\n\n`).join('');
const MAX_BODY = 16 * 1024;

/** The upstream: an MCP endpoint answering by method, and a plain OAuth token endpoint. */
function upstreamHandler(req: IncomingMessage, res: ServerResponse): void {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString('utf8')));
  req.on('end', () => {
    if (req.url?.startsWith('/oauth/token')) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`access_token=${M.plainAccess}&token_type=bearer&refresh_token=${M.plainRefresh}`);
      return;
    }
    const msg = JSON.parse(body) as { id?: number; method: string };
    const head = { 'mcp-session-id': 'sess-visible-1', 'x-refresh-token': M.resHdrToken };
    switch (msg.method) {
      case 'initialize':
        res.writeHead(200, { ...head, 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: msg.id,
            result: {
              protocolVersion: '2025-11-25',
              capabilities: { tools: {}, logging: {} },
              serverInfo: { name: 'sinks', version: '1' },
              instructions: `Use ${M.github} carefully`,
            },
          }),
        );
        return;
      case 'tools/call': {
        let deep: unknown = { apiKey: M.jsonDeep };
        for (let i = 0; i < 100; i++) deep = { n: deep };
        const result = {
          content: [
            {
              type: 'text',
              text: `tokens: ${M.github} ${M.aws} ${M.slack} ${M.openai} ${M.anthropic} ${M.npm} ${M.google} ${M.jwt}\n${PEM}`,
            },
          ],
          structuredContent: {
            accessToken: M.jsonAccessToken,
            clientSecret: M.jsonClientSecret,
            Authorization: `Bearer ${M.jsonAuthorization}`,
            token: M.jsonToken,
            secret: M.jsonSecret,
            apiKey: M.jsonApiKey,
            refreshToken: M.jsonRefreshToken,
            privateKey: M.jsonPrivateKey,
            deep,
            usage: { maxTokens: 4711, totalTokens: 4712 },
            nextCursor: 'VISIBLE-cursor',
            code: 'VISIBLE-code',
          },
        };
        res.writeHead(200, { ...head, 'content-type': 'text/event-stream' });
        res.end(
          sse(
            JSON.stringify({
              jsonrpc: '2.0',
              method: 'notifications/message',
              params: { level: 'info', data: { access_token: M.logData, note: 'VISIBLE-log' } },
            }),
            JSON.stringify({
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { progressToken: 'VISIBLE-progress-token', progress: 1, total: 2 },
            }),
            `{"jsonrpc":"2.0","method":"notifications/message","params":{"refresh_token":"${M.sseBroken}","level":`,
            JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }),
          ),
        );
        return;
      }
      case 'bad/json':
        res.writeHead(200, { ...head, 'content-type': 'application/json' });
        res.end(`{"jsonrpc":"2.0","id":${msg.id},"result":{"Password":"${M.malformed}","client_secret":"${M.malformedCs}",,,`);
        return;
      case 'big/json':
        res.writeHead(200, { ...head, 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { client_secret: M.oversized, pad: 'x'.repeat(MAX_BODY * 2) } }));
        return;
      default:
        res.writeHead(202).end();
    }
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** A stdio MCP server: answers initialize, prints credentials on stderr. */
const STDIO_SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
process.stderr.write('starting with password=${M.stderrPassword} and ${M.stderrToken}\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'stdio-sinks', version: '1' } } }) + '\\n');
});
rl.on('close', () => process.exit(0));
`;

describe('redaction over every sink (issue 16, finding 4)', () => {
  it('no credential marker reaches the API, the feed, any export, the record file or stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpscope-sinks-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const recordFile = join(dir, 'record.ndjson');
    const upPort = await listen(createServer(upstreamHandler));

    const m: Mcpscope = await startMcpscope({
      target: `http://127.0.0.1:${upPort}/mcp`,
      moreTargets: [{ name: 'with-userinfo', target: `http://tuser:${M.targetUserinfo}@127.0.0.1:${upPort}/mcp`, port: 0 }],
      uiPort: 0,
      token: TOKEN,
      recordFile,
      maxBodyBytes: MAX_BODY,
    });
    cleanups.push(() => m.close());
    const feed = collectFeed(m.ui!.url);
    cleanups.push(() => feed.close());

    // ---- HTTP: credential headers, query names, and every body kind
    const query = `?apikey=${M.qApikey}&API_KEY=${M.qApiKeyUpper}&key=${M.qKey}&secret=${M.qSecret}&sig=${M.qSig}&X-Amz-Signature=${M.qAmzSig}&session_token=${M.qSessionToken}`;
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      apikey: M.hdrApikey,
      'x-goog-api-key': M.hdrGoog,
      'private-token': M.hdrPrivateToken,
      'x-access-token': M.hdrAccessToken,
      'x-amz-security-token': M.hdrAmz,
      'openai-api-key': M.hdrOpenai,
      'x-github-token': M.hdrGithub,
      authentication: `Bearer ${M.hdrAuthentication}`,
      'x-acme-api-key': M.hdrCustom,
    };
    const post = async (origin: string, body: unknown, session = true) => {
      const r = await fetch(`${origin}/mcp${query}`, {
        method: 'POST',
        headers: { ...headers, ...(session ? { 'mcp-session-id': 'sess-visible-1' } : {}) },
        body: JSON.stringify(body),
      });
      return r.text();
    };
    const origin = m.proxies[0].origin;
    await post(
      origin,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sinks', version: '1' } },
      },
      false,
    );
    await post(origin, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'leak', arguments: { code: 'VISIBLE-arg-code' }, _meta: { progressToken: 'VISIBLE-progress-token' } },
    });
    await post(origin, { jsonrpc: '2.0', id: 3, method: 'bad/json' });
    await post(origin, { jsonrpc: '2.0', id: 4, method: 'big/json' });
    const token = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=authorization_code&code=VISIBLEcode&client_secret=${M.formSecret}`,
    });
    expect(await token.text()).toContain(M.plainAccess); // the wire is untouched
    // the second upstream, whose target URL carries userinfo
    await post(
      m.proxies[1].origin,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sinks-userinfo', version: '1' } },
      },
      false,
    ).catch(() => '');

    // ---- stdio: a wrapper with secrets on its command line and on the server's stderr
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let stderrText = '';
    const stderr = new Writable({ write: (c: Buffer, _e, cb) => ((stderrText += c.toString('utf8')), cb()) });
    const script = join(dir, 'server.cjs');
    writeFileSync(script, STDIO_SERVER);
    const sawAnswer = new Promise<void>((resolve) =>
      stdout.on('data', (c: Buffer) => c.toString('utf8').includes('stdio-sinks') && resolve()),
    );
    const wrapper = runStdioWrapper({
      command: process.execPath,
      args: [
        script,
        `--api-key=${M.cmdApiKey}`,
        '--token',
        M.cmdToken,
        '--password',
        M.cmdPassword,
        `API_KEY=${M.cmdEnv}`,
        `postgres://app:${M.cmdDbUrl}@db.example/x`,
      ],
      uiPort: m.ui!.port,
      token: TOKEN,
      stdin,
      stdout,
      stderr,
    });
    stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })}\n`,
    );
    await sawAnswer;
    stdin.end();
    expect(await wrapper).toBe(0);

    await m.settle();
    await m.waitFor((s) => [...s.sessions.values()].some((x) => x.transport === 'stdio' && x.status === 'closed') || undefined);
    await m.waitFor((s) => s.snapshot().some((e) => e.type === 'log' && e.source === 'stderr') || undefined);

    // ---- read every sink
    const api = async (path: string) => {
      const r = await fetch(`${m.ui!.origin}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(r.status, path).toBe(200);
      return r.text();
    };
    const sinks: Record<string, string> = {};
    sinks['/api/sessions'] = await api('/api/sessions');
    sinks['/api/events'] = await api('/api/events');
    const events = JSON.parse(sinks['/api/events']) as McpscopeEvent[];
    for (const e of events) {
      if (e.type === 'message') sinks[`/api/messages/${e.seq}`] = await api(`/api/messages/${e.seq}`);
      if (e.type === 'exchange') sinks[`/api/exchanges/${e.exchange.id}`] = await api(`/api/exchanges/${e.exchange.id}`);
    }
    const sessions = JSON.parse(sinks['/api/sessions']) as { id: string }[];
    for (const s of sessions) {
      sinks[`/api/sessions/${s.id}`] = await api(`/api/sessions/${s.id}`);
      sinks[`/api/sessions/${s.id}/events`] = await api(`/api/sessions/${s.id}/events`);
      for (const format of ['fixture', 'har', 'ndjson'])
        sinks[`export ${s.id} ${format}`] = await api(`/api/sessions/${s.id}/export?format=${format}`);
    }
    sinks['/api/export?format=har'] = await api('/api/export?format=har');
    sinks['/api/export?format=ndjson'] = await api('/api/export?format=ndjson');
    await feed.until((evs) => evs.length >= events.length);
    sinks.feed = JSON.stringify(feed.events);
    await m.close();
    sinks['--record file'] = readFileSync(recordFile, 'utf8');
    // mcpscope's own lines only: the server's stderr is relayed to the client unchanged (transparency).
    sinks['wrapper stderr'] = stderrText
      .split('\n')
      .filter((l) => l.startsWith('mcpscope:'))
      .join('\n');
    expect(sinks['wrapper stderr']).toContain('server.cjs');

    // ---- the traffic around the markers is there (the test cannot pass by recording nothing)
    const all = Object.values(sinks).join('\n');
    for (const visible of [
      'VISIBLE-log',
      'VISIBLE-progress-token',
      'VISIBLE-cursor',
      'VISIBLE-code',
      'VISIBLE-arg-code',
      '4711',
      'token_type=bearer',
      'sess-visible-1',
      'stdio-sinks',
      'server.cjs',
      'starting with password=',
    ]) {
      expect(all, visible).toContain(visible);
    }
    const codes = new Set(events.flatMap((e) => (e.type === 'problem' ? [e.code] : [])));
    expect(codes.has('too-large'), [...codes].join()).toBe(true);
    expect(events.some((e) => e.type === 'message' && e.hints.some((h) => h.code === 'log-message'))).toBe(true);
    expect(events.filter((e) => e.type === 'problem' && e.raw !== undefined).length).toBeGreaterThanOrEqual(3); // malformed, too-large, broken SSE JSON

    // ---- and no marker anywhere
    const leaks: string[] = [];
    for (const [kind, marker] of Object.entries(M))
      for (const [sink, text] of Object.entries(sinks)) if (text.includes(marker)) leaks.push(`${kind} in ${sink}`);
    expect(leaks).toEqual([]);
  }, 60_000);
});
