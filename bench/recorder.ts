/**
 * The recorder's own cost, without sockets: typical Streamable HTTP tools/call exchanges (the
 * headers and bodies an SDK client and server send) fed to the Recorder in batches as the proxy
 * thread hands them over, with a feed consumer attached (serialization included).
 *   tsx bench/recorder.ts [--exchanges N] [--batch K]     JSON tools/call exchanges
 *   tsx bench/recorder.ts --sse [--events N]                one tools/call streaming N progress notifications
 *   … --lint off|warn|strict                                  the spec linter (default warn, as the CLI's)
 *   … --output pattern|format|guarded                         echo also has an outputSchema, and its results a
 *                                                             structuredContent checked against it: with a pattern
 *                                                             (RE2), a date-time format (both bounded schemas,
 *                                                             checked without the time guard) or a duration format
 *                                                             (checked under the guard, docs/spec-lint.md)
 * Prints µs of CPU per exchange (or per SSE event). For profiling the recorder; not part of `npm run bench`.
 * The session is a compliant one (initialize, notifications/initialized, tools/list with echo's
 * inputSchema), so with the linter on every call's arguments are checked and nothing is reported.
 */
import { Recorder } from '../proxy/recorder/recorder.js';
import { createRedactor } from '../proxy/recorder/redact/redact.js';
import { EventStore } from '../proxy/recorder/store/event-store.js';
import { FeedHub } from '../proxy/app/serve/feed.js';
import type { WireRecord } from '../proxy/wire/capture/wire-records.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const EXCHANGES = arg('exchanges', 50_000);
const BATCH = arg('batch', 10);

const store = new EventStore({ maxEvents: arg('max-events', 500_000) });
const lintArg = process.argv[process.argv.indexOf('--lint') + 1];
const lint = process.argv.includes('--lint') ? (lintArg as 'off' | 'warn' | 'strict') : 'warn';
const recorder = new Recorder({ store, redactor: createRedactor({}), lint });
let sentBytes = 0;
const socket = {
  OPEN: 1,
  CLOSED: 3,
  readyState: 1,
  bufferedAmount: 0,
  on() {},
  once() {},
  close() {},
  terminate() {},
  send: (s: string) => void (sentBytes += s.length),
};
const hub = new FeedHub(store, { version: 'bench', showSecrets: false, flushMs: 25 });
hub.add(socket as never);

const session = '795126c6-b7d9-4900-9b09-45c85fe0fc06';
const enc = (s: string) => Buffer.from(s, 'utf8');
let clock = 1_000;
const ts = () => (clock += 0.05);
const outputArg = process.argv.includes('--output') ? process.argv[process.argv.indexOf('--output') + 1] : undefined;
const output =
  outputArg === 'pattern'
    ? { type: 'object', properties: { text: { type: 'string', pattern: '^hello [0-9]+$' }, at: { type: 'string' } }, required: ['text'] }
    : outputArg === 'format' || outputArg === 'guarded'
      ? {
          type: 'object',
          properties: { text: { type: 'string' }, at: { type: 'string', format: outputArg === 'guarded' ? 'duration' : 'date-time' } },
          required: ['text'],
        }
      : undefined;
function exchange(i: number, xid: string): WireRecord[] {
  const body = enc(
    JSON.stringify({ method: 'tools/call', params: { name: 'echo', arguments: { text: `hello ${i}` } }, jsonrpc: '2.0', id: i + 2 }),
  );
  const at = outputArg === 'guarded' ? 'P1DT2H' : '2026-12-01T10:00:00Z';
  const structured = output ? { structuredContent: { text: `hello ${i}`, at } } : {};
  const reply = enc(
    JSON.stringify({ result: { content: [{ type: 'text', text: `hello ${i}` }], ...structured }, jsonrpc: '2.0', id: i + 2 }),
  );
  const requestHeaders = {
    host: '127.0.0.1:41119',
    connection: 'keep-alive',
    'mcp-session-id': session,
    'mcp-protocol-version': '2025-11-25',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'accept-language': '*',
    'sec-fetch-mode': 'cors',
    'user-agent': 'node',
    'accept-encoding': 'gzip, deflate',
    'content-length': String(body.length),
  };
  const responseHeaders = {
    'content-type': 'application/json',
    'mcp-session-id': session,
    'content-length': String(reply.length),
    date: 'Sun, 22 Nov 2026 08:45:07 GMT',
    connection: 'keep-alive',
    'keep-alive': 'timeout=5',
  };
  return [
    {
      t: 'request',
      xid,
      ts: ts(),
      method: 'POST',
      url: '/mcp',
      upstreamUrl: 'http://127.0.0.1:37089/mcp',
      headers: requestHeaders,
      proxyOrigin: 'http://127.0.0.1:41119',
      target: 'http://127.0.0.1:37089/mcp',
    },
    { t: 'request-chunk', xid, ts: ts(), chunk: body },
    { t: 'request-end', xid, ts: ts() },
    { t: 'response', xid, ts: ts(), status: 200, headers: responseHeaders },
    { t: 'response-chunk', xid, ts: ts(), chunk: reply },
    { t: 'response-end', xid, ts: ts() },
  ];
}
// The session's initialize first, so that the calls belong to a known session.
const init = enc(
  JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  }),
);
const initReply = enc(
  JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'up', version: '1' } },
  }),
);
const violationCount = () => store.snapshot().filter((e) => e.type === 'problem' && e.code === 'spec-violation').length;

/** One JSON-answered POST (a notification's answer: 202, no body). */
function post(xid: string, body: Buffer, reply: Buffer | undefined, headers: Record<string, string>): WireRecord[] {
  const base = {
    method: 'POST',
    url: '/mcp',
    upstreamUrl: 'http://127.0.0.1:37089/mcp',
    proxyOrigin: 'http://127.0.0.1:41119',
    target: 'http://127.0.0.1:37089/mcp',
  };
  return [
    {
      t: 'request',
      xid,
      ts: ts(),
      ...base,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    },
    { t: 'request-chunk', xid, ts: ts(), chunk: body },
    { t: 'request-end', xid, ts: ts() },
    {
      t: 'response',
      xid,
      ts: ts(),
      status: reply ? 200 : 202,
      headers: reply ? { 'content-type': 'application/json', 'mcp-session-id': session } : {},
    },
    ...(reply ? [{ t: 'response-chunk' as const, xid, ts: ts(), chunk: reply }] : []),
    { t: 'response-end', xid, ts: ts() },
  ];
}
const inSession = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
const tools = {
  tools: [
    {
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      ...(output ? { outputSchema: output } : {}),
    },
    { name: 'stream', inputSchema: { type: 'object', properties: { n: { type: 'number' }, rate: { type: 'number' } } } },
  ],
};
recorder.handle([
  ...post('i0', init, initReply, {}),
  ...post('i1', enc(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })), undefined, inSession),
  ...post(
    'i2',
    enc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })),
    enc(JSON.stringify({ jsonrpc: '2.0', id: 1, result: tools })),
    inSession,
  ),
]);

if (process.argv.includes('--sse')) {
  // One tools/call answered by an SSE stream of progress notifications, as the SDK server writes
  // them, a few events per chunk, the chunks handed over in batches of 64 (5 ms at 13k events/s).
  const EVENTS = arg('events', 100_000);
  const xid = 'sse1';
  const call = enc(
    JSON.stringify({
      method: 'tools/call',
      params: { name: 'stream', arguments: { n: EVENTS, rate: 0 }, _meta: { progressToken: 7 } },
      jsonrpc: '2.0',
      id: 1e9,
    }),
  );
  recorder.handle([
    {
      t: 'request',
      xid,
      ts: ts(),
      method: 'POST',
      url: '/mcp',
      upstreamUrl: 'http://127.0.0.1:37089/mcp',
      headers: { 'content-type': 'application/json', ...inSession, 'content-length': String(call.length) },
      proxyOrigin: 'http://127.0.0.1:41119',
      target: 'http://127.0.0.1:37089/mcp',
    },
    { t: 'request-chunk', xid, ts: ts(), chunk: call },
    { t: 'request-end', xid, ts: ts() },
    {
      t: 'response',
      xid,
      ts: ts(),
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'mcp-session-id': session, 'cache-control': 'no-cache', connection: 'keep-alive' },
    },
  ]);
  const chunks: WireRecord[] = [];
  for (let i = 0; i < EVENTS; i += 3) {
    let text = '';
    for (let j = i; j < Math.min(EVENTS, i + 3); j++)
      text += `event: message\ndata: ${JSON.stringify({ method: 'notifications/progress', params: { progressToken: 7, progress: j + 1, total: EVENTS, message: String(1_700_000_000_000 + j) }, jsonrpc: '2.0' })}\n\n`;
    chunks.push({ t: 'response-chunk', xid, ts: ts(), chunk: enc(text) });
  }
  const warmAt = Math.floor(chunks.length / 5);
  const feedChunks = async (from: number, to: number) => {
    for (let i = from; i < to; i += 64) {
      recorder.handle(chunks.slice(i, Math.min(to, i + 64)));
      if ((i / 64) % 8 === 0) await new Promise((r) => setImmediate(r));
    }
  };
  await feedChunks(0, warmAt);
  const c0 = process.cpuUsage();
  await feedChunks(warmAt, chunks.length);
  await new Promise((r) => setTimeout(r, 30));
  const c = process.cpuUsage(c0);
  const n = EVENTS - warmAt * 3;
  console.log(
    `${n} SSE progress events: ${((c.user + c.system) / n).toFixed(1)} µs CPU per event, feed ${(sentBytes / EVENTS).toFixed(0)} bytes per event, ${store.size} events kept, ${violationCount()} spec violations (linter ${lint})`,
  );
  await hub.close();
  process.exit(0);
}

// Records as the proxy thread hands them over: every BATCH exchanges' records in one handle();
// half of each batch's exchanges end in the next one (a 5 ms batch cuts exchanges in two).
const all: WireRecord[][] = [];
for (let i = 0; i < EXCHANGES; i++) all.push(exchange(i, `x${i}`));
const run = async (from: number, to: number) => {
  for (let i = from; i < to; i += BATCH) {
    const batch: WireRecord[] = [];
    for (let j = i; j < Math.min(to, i + BATCH); j++) batch.push(...all[j]!.slice(0, 3));
    for (let j = Math.max(from, i - BATCH); j < i; j++) batch.push(...all[j]!.slice(3));
    recorder.handle(batch);
    if ((i / BATCH) % 25 === 0) await new Promise((r) => setImmediate(r)); // let the feed flush
  }
};
const warm = Math.floor(EXCHANGES / 5);
await run(0, warm);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await run(warm, EXCHANGES);
await new Promise((r) => setTimeout(r, 30)); // the feed's last flush
const cpu = process.cpuUsage(cpu0);
const n = EXCHANGES - warm;
console.log(
  `${n} exchanges in batches of ${BATCH}: ${((cpu.user + cpu.system) / n).toFixed(1)} µs CPU per exchange (${(((performance.now() - t0 - 30) / n) * 1000).toFixed(1)} µs wall), feed ${(sentBytes / EXCHANGES).toFixed(0)} bytes per exchange, ${store.size} events kept, ${violationCount()} spec violations (linter ${lint})`,
);
await hub.close();
