/**
 * A deterministic recorded capture for export/import tests: scripted WireRecords (as the proxy's
 * capture hook would push them, with a fixed clock) driven through the real Recorder into an
 * EventStore. Nothing depends on the time of day, ports or randomness, so exports of it can be
 * pinned by golden files.
 *
 * Session s1 (Streamable HTTP): initialize (JSON) with an Authorization header and the proxy
 * token in a header, notifications/initialized (202), a JSON-RPC batch, tools/call answered on
 * an SSE stream (priming event, progress, a sampling request the client answers by POST, the
 * result), a call that fails with -32602, the standalone GET stream (keep-alive, list_changed),
 * DELETE. Session s2 (legacy HTTP+SSE): the GET stream with its endpoint event (rewritten by the
 * proxy: a modification), a POST answered on the stream. Plus an OAuth token exchange outside
 * any session (form body with secrets, JSON token response).
 */
import type { HeaderMap, WireRecord } from '../../proxy/wire/capture/wire-records.js';
import { Recorder } from '../../proxy/recorder/recorder.js';
import { createRedactor } from '../../proxy/recorder/redact/redact.js';
import { EventStore } from '../../proxy/recorder/store/event-store.js';

export const SCRIPTED_TOKEN = 'scripted-proxy-token-0123456789';
export const SCRIPTED_SECRETS = [
  'sk-live-secret-value',
  'abc123xyz',
  'ver1fier',
  'shh-secret',
  'at-SECRET-access',
  'rt-SECRET-refresh',
  SCRIPTED_TOKEN,
];
/** 2026-01-15T09:30:00.000Z */
export const SCRIPTED_START = Date.UTC(2026, 0, 15, 9, 30, 0);
const UPSTREAM = 'http://127.0.0.1:3001';
const TARGET = `${UPSTREAM}/mcp`;
const PROXY_ORIGIN = 'http://127.0.0.1:6481';

const enc = (s: string) => new TextEncoder().encode(s);
const json = (v: unknown) => JSON.stringify(v);
const sse = (fields: string) => `${fields}\n\n`;

class Wire {
  t = SCRIPTED_START;
  private n = 0;
  xid(): string {
    this.n += 1;
    return `x${this.n}`;
  }
  ts(step = 5): number {
    this.t += step;
    return this.t;
  }
  request(xid: string, method: string, url: string, headers: HeaderMap, target = TARGET): WireRecord {
    return { t: 'request', xid, ts: this.ts(), method, url, upstreamUrl: `${UPSTREAM}${url}`, headers, proxyOrigin: PROXY_ORIGIN, target };
  }
  send(xid: string, method: string, url: string, headers: HeaderMap, body?: string, target?: string): WireRecord[] {
    const recs = [this.request(xid, method, url, headers, target)];
    if (body !== undefined) recs.push({ t: 'request-chunk', xid, ts: this.ts(1), chunk: enc(body) });
    recs.push({ t: 'request-end', xid, ts: this.ts(1) });
    return recs;
  }
  head(xid: string, status: number, headers: HeaderMap = {}): WireRecord {
    return { t: 'response', xid, ts: this.ts(), status, headers };
  }
  chunk(xid: string, body: string, step = 3): WireRecord {
    return { t: 'response-chunk', xid, ts: this.ts(step), chunk: enc(body) };
  }
  end(xid: string): WireRecord {
    return { t: 'response-end', xid, ts: this.ts(1) };
  }
  reply(xid: string, status: number, headers: HeaderMap, body = ''): WireRecord[] {
    return [this.head(xid, status, headers), ...(body ? [this.chunk(xid, body)] : []), this.end(xid)];
  }
}

export interface ScriptedCapture {
  store: EventStore;
  token: string;
  /** The Streamable HTTP session. */
  streamable: string;
  /** The legacy HTTP+SSE session. */
  legacy: string;
}

/**
 * Records the scripted capture. `showSecrets: true` records as `--show-secrets` does (credentials
 * kept in the store; only the proxy token is hidden), to test that exports redact regardless.
 * `onStore` is handed the store before anything is recorded (to subscribe to it).
 */
export function recordScriptedCapture(options: { showSecrets?: boolean; onStore?: (store: EventStore) => void } = {}): ScriptedCapture {
  const store = new EventStore();
  // A live subscriber (the annotated log's tests) sees every batch as the recorder commits it.
  options.onStore?.(store);
  const recorder = new Recorder({ store, redactor: createRedactor({ extraSecrets: [SCRIPTED_TOKEN], showSecrets: options.showSecrets }) });
  const feed = (records: WireRecord[]) => recorder.handle(records);
  const w = new Wire();
  const mcpSid = 'mcp-sess-7f3a';
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const sh = { ...base, 'mcp-session-id': mcpSid, 'mcp-protocol-version': '2025-06-18' };

  // initialize
  const x1 = w.xid();
  feed([
    ...w.send(
      x1,
      'POST',
      '/mcp',
      { ...base, authorization: 'Bearer sk-live-secret-value', 'x-debug-token': SCRIPTED_TOKEN, 'user-agent': 'scripted-client/1.0' },
      json({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: { sampling: {} },
          clientInfo: { name: 'scripted-client', version: '1.0.0' },
        },
      }),
    ),
    ...w.reply(
      x1,
      200,
      { 'content-type': 'application/json', 'mcp-session-id': mcpSid },
      json({
        jsonrpc: '2.0',
        id: 0,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: 'scripted-server', version: '2.0.0' },
        },
      }),
    ),
  ]);
  // notifications/initialized → 202
  const x2 = w.xid();
  feed([
    ...w.send(x2, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', method: 'notifications/initialized' })),
    ...w.reply(x2, 202, { 'content-type': 'text/plain' }, 'Accepted'),
  ]);
  // a batch: tools/list and ping, answered by a JSON batch
  const x3 = w.xid();
  feed([
    ...w.send(
      x3,
      'POST',
      '/mcp?debug=1',
      sh,
      json([
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      ]),
    ),
    ...w.reply(
      x3,
      200,
      { 'content-type': 'application/json' },
      json([
        {
          jsonrpc: '2.0',
          id: 1,
          result: { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] },
        },
        { jsonrpc: '2.0', id: 2, result: {} },
      ]),
    ),
  ]);
  // tools/call on an SSE stream: priming, progress, sampling request, (client reply), result
  const x4 = w.xid();
  feed([
    ...w.send(
      x4,
      'POST',
      '/mcp',
      sh,
      json({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: `hi ${SCRIPTED_TOKEN}` }, _meta: { progressToken: 7 } },
      }),
    ),
    w.head(x4, 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }),
    w.chunk(x4, 'id: e0\nretry: 1000\ndata:\n\n'),
    w.chunk(
      x4,
      sse(
        `id: e1\ndata: ${json({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1, total: 2, message: 'half' } })}`,
      ),
    ),
    w.chunk(
      x4,
      sse(
        `id: e2\nevent: message\ndata: ${json({ jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } })}`,
      ),
    ),
  ]);
  const x5 = w.xid();
  feed([
    ...w.send(
      x5,
      'POST',
      '/mcp',
      sh,
      json({ jsonrpc: '2.0', id: 0, result: { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' } }),
    ),
    ...w.reply(x5, 202, {}),
  ]);
  feed([
    w.chunk(
      x4,
      sse(`id: e3\ndata: ${json({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: `hi ${SCRIPTED_TOKEN}` }] } })}`),
    ),
    w.end(x4),
  ]);
  // a call with bad params → JSON-RPC error
  const x6 = w.xid();
  feed([
    ...w.send(x6, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'nope', arguments: {} } })),
    ...w.reply(
      x6,
      200,
      { 'content-type': 'application/json' },
      json({ jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'Unknown tool: nope' } }),
    ),
  ]);
  // the standalone GET stream: keep-alive, list_changed; DELETE ends the session and the stream
  const x7 = w.xid();
  feed([
    ...w.send(x7, 'GET', '/mcp', { accept: 'text/event-stream', 'mcp-session-id': mcpSid }),
    w.head(x7, 200, { 'content-type': 'text/event-stream' }),
    w.chunk(x7, ': keep-alive\n\n'),
    w.chunk(x7, sse(`data: ${json({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}`)),
  ]);
  const x8 = w.xid();
  feed([...w.send(x8, 'DELETE', '/mcp', { 'mcp-session-id': mcpSid }), ...w.reply(x8, 200, {}), w.end(x7)]);

  // OAuth token exchange (no MCP session): form body and token response full of secrets.
  const x9 = w.xid();
  feed([
    ...w.send(
      x9,
      'POST',
      '/token',
      { 'content-type': 'application/x-www-form-urlencoded' },
      'grant_type=authorization_code&code=abc123xyz&code_verifier=ver1fier&client_secret=shh-secret',
    ),
    ...w.reply(
      x9,
      200,
      { 'content-type': 'application/json' },
      json({ access_token: 'at-SECRET-access', refresh_token: 'rt-SECRET-refresh', token_type: 'Bearer', expires_in: 3600 }),
    ),
  ]);

  // Legacy HTTP+SSE session: GET /sse (endpoint event, rewritten by the proxy), a POST answered on the stream.
  const x10 = w.xid();
  const legacyTarget = `${UPSTREAM}/sse`;
  feed([
    ...w.send(x10, 'GET', '/sse', { accept: 'text/event-stream' }, undefined, legacyTarget),
    w.head(x10, 200, { 'content-type': 'text/event-stream' }),
  ]);
  feed([
    {
      t: 'modification',
      xid: x10,
      ts: w.ts(1),
      what: 'endpoint-rewrite',
      before: `${UPSTREAM}/message?sessionId=L1`,
      after: `${PROXY_ORIGIN}/message?sessionId=L1`,
      text: 'The endpoint named the upstream origin; mcpscope pointed it at the proxy.',
    },
    w.chunk(x10, sse(`event: endpoint\ndata: ${UPSTREAM}/message?sessionId=L1`)),
  ]);
  const x11 = w.xid();
  feed([
    ...w.send(
      x11,
      'POST',
      '/message?sessionId=L1',
      { 'content-type': 'application/json' },
      json({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'legacy-client', version: '0.1' } },
      }),
      legacyTarget,
    ),
    ...w.reply(x11, 202, { 'content-type': 'text/plain' }, 'Accepted'),
  ]);
  feed([
    w.chunk(
      x10,
      sse(
        `event: message\ndata: ${json({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 'legacy-server', version: '0.9' } } })}`,
      ),
    ),
    w.chunk(x10, sse('event: heartbeat\ndata: tick')),
    w.end(x10),
  ]);

  const streamable = [...store.sessions.values()].find((s) => s.transport === 'streamable-http')!.id;
  const legacy = [...store.sessions.values()].find((s) => s.transport === 'legacy-sse')!.id;
  return { store, token: SCRIPTED_TOKEN, streamable, legacy };
}
