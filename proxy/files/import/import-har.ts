/**
 * Reads a HAR file (any HAR 1.2: mcpscope's export, Chrome DevTools, HTTP Toolkit…): each entry
 * is replayed through the real Recorder as wire records (import-capture.ts).
 */
import { firstHeader, type HeaderMap, type WireRecord } from '../../wire/capture/wire-records.js';
import { SseParser } from '../../core/parse/sse-parser.js';
import { Recorder } from '../../recorder/recorder.js';
import { createRedactor } from '../../recorder/redact/redact.js';
import { EventStore } from '../../recorder/store/event-store.js';
import { mediaType } from '../../core/model/media-type.js';
import type { CaptureImport } from './import-capture-format.js';
import { ownAnswerMessage } from './import-fixture.js';

export interface HarInput {
  log: { entries: HarEntryInput[] };
}

interface HarEntryInput {
  startedDateTime?: string;
  time?: number;
  request?: {
    method?: string;
    url?: string;
    headers?: { name?: string; value?: string }[];
    postData?: { mimeType?: string; text?: string };
  };
  response?: {
    status?: number;
    headers?: { name?: string; value?: string }[];
    content?: { mimeType?: string; text?: string; encoding?: string };
    _error?: string;
  };
  timings?: Record<string, number | undefined>;
  _eventSourceMessages?: { time?: number; type?: string; eventName?: string; id?: string; eventId?: string; data?: string }[];
  /** mcpscope's export: `clientHost` is the Host the client sent when the upstream got another (export-har.ts). */
  _mcpscope?: { clientHost?: unknown };
}

/** Headers the recorded body no longer matches: HAR bodies are stored decoded, as one piece. */
const BODY_FRAMING_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding']);

export function harImport(har: HarInput): CaptureImport {
  const warnings: string[] = [];
  const records: { ts: number; entry: number; order: number; r: WireRecord }[] = [];
  const enc = new TextEncoder();
  let previousStart = 0;
  const targets = harTargets(har.log.entries);

  har.log.entries.forEach((entry, index) => {
    const n = index + 1;
    const req = entry.request;
    let url: URL;
    try {
      url = new URL(String(req?.url));
    } catch {
      warnings.push(`HAR entry ${n} has no valid request URL (${JSON.stringify(req?.url)}); skipped.`);
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      warnings.push(`HAR entry ${n} is not an HTTP request (${url.protocol}); skipped.`);
      return;
    }
    const xid = `x${n}`;
    let start = Date.parse(entry.startedDateTime ?? '');
    if (!Number.isFinite(start)) {
      warnings.push(`HAR entry ${n} has no valid startedDateTime; it is placed after the previous entry.`);
      start = previousStart;
    }
    previousStart = start;
    const t = entry.timings ?? {};
    const pos = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
    const requestEnd = start + pos(t.blocked) + pos(t.dns) + pos(t.connect) + pos(t.send);
    const head = requestEnd + pos(t.wait);
    const total =
      typeof entry.time === 'number' && Number.isFinite(entry.time) && entry.time > 0 ? start + entry.time : head + pos(t.receive);
    const end = Math.max(head, total);

    let order = 0;
    let last = start;
    const push = (ts: number, r: WireRecord) => {
      last = Math.max(last, ts);
      records.push({ ts: last, entry: index, order: order++, r: { ...r, ts: last } as WireRecord });
    };

    const requestHeaders = harHeaders(req?.headers);
    // An exchange records the headers the client sent: mcpscope's export lists the Host the upstream
    // received (its url's authority) and keeps the client's in _mcpscope.clientHost.
    const clientHost = entry._mcpscope?.clientHost;
    if (typeof clientHost === 'string' && requestHeaders.host !== undefined) requestHeaders.host = clientHost;
    push(start, {
      t: 'request',
      xid,
      ts: start,
      method: (req?.method ?? 'GET').toUpperCase(),
      url: url.pathname + url.search,
      upstreamUrl: url.href,
      headers: requestHeaders,
      proxyOrigin: url.origin,
      target: targets.get(url.origin + url.pathname) ?? url.origin,
    });
    const body = req?.postData?.text;
    if (typeof body === 'string' && body !== '') push(requestEnd, { t: 'request-chunk', xid, ts: requestEnd, chunk: enc.encode(body) });
    push(requestEnd, { t: 'request-end', xid, ts: requestEnd });

    const res = entry.response;
    const status = res?.status ?? 0;
    if (!res || status <= 0) {
      push(end, {
        t: 'abort',
        xid,
        ts: end,
        side: 'upstream',
        reason: res?._error ? `No response (${res._error})` : 'The HAR holds no response for this request',
      });
      return;
    }
    const responseHeaders = harHeaders(res.headers);
    push(head, { t: 'response', xid, ts: head, status, headers: responseHeaders });
    const content = res.content ?? {};
    let text = content.text;
    if (typeof text === 'string' && content.encoding === 'base64') text = Buffer.from(text, 'base64').toString('utf8');
    const mime = mediaType(firstHeader(responseHeaders, 'content-type') ?? content.mimeType) ?? '';
    const esm = Array.isArray(entry._eventSourceMessages) ? entry._eventSourceMessages : [];
    if (mime === 'text/event-stream') {
      for (const c of sseChunks(text, esm, head, end)) push(c.ts, { t: 'response-chunk', xid, ts: c.ts, chunk: enc.encode(c.text) });
    } else if (typeof text === 'string' && text !== '') {
      push(head, { t: 'response-chunk', xid, ts: head, chunk: enc.encode(text) });
    }
    // mcpscope's own answer to an upstream it could not reach ends as the proxy recorded it: with why.
    const unreachable = firstHeader(responseHeaders, 'x-mcpscope-error');
    if (unreachable !== undefined && status >= 500)
      push(end, {
        t: 'upstream-error',
        xid,
        ts: end,
        code: unreachable,
        message: ownAnswerMessage(text) ?? res._error ?? 'mcpscope could not get a response from the upstream',
        status,
      });
    else push(end, { t: 'response-end', xid, ts: end });
  });

  // Wire order across every exchange (per exchange the order is kept: its timestamps never go back).
  records.sort((a, b) => a.ts - b.ts || a.entry - b.entry || a.order - b.order);
  const store = new EventStore();
  const recorder = new Recorder({ store, redactor: createRedactor() });
  recorder.handle(records.map((x) => x.r));
  const events = store.snapshot();
  if (events.length === 0) warnings.push('The HAR has no HTTP entries mcpscope could read.');
  return { kind: 'har', events, warnings };
}

/**
 * The target each entry's URL is recorded under, as the proxy's `--target` would be: a URL that
 * spoke MCP (a JSON-RPC body or an event stream) is its own target; any other URL (OAuth,
 * metadata) gets its origin's first MCP URL, else the origin — never itself, which would make it
 * the MCP endpoint (proxy/recorder/plain-http.ts).
 */
function harTargets(entries: HarEntryInput[]): Map<string, string> {
  const mcp = new Map<string, string>();
  const byOrigin = new Map<string, string>();
  for (const entry of entries) {
    let url: URL;
    try {
      url = new URL(String(entry.request?.url));
    } catch {
      continue;
    }
    const key = url.origin + url.pathname;
    const body = entry.request?.postData?.text;
    const mime = String(entry.response?.content?.mimeType ?? '').toLowerCase();
    if ((typeof body === 'string' && body.includes('"jsonrpc"')) || mime.startsWith('text/event-stream')) {
      mcp.set(key, key);
      if (!byOrigin.has(url.origin)) byOrigin.set(url.origin, key);
    }
  }
  for (const entry of entries) {
    try {
      const url = new URL(String(entry.request?.url));
      const key = url.origin + url.pathname;
      if (!mcp.has(key)) mcp.set(key, byOrigin.get(url.origin) ?? url.origin);
    } catch {
      /* skipped later, with a warning */
    }
  }
  return mcp;
}

/**
 * The chunks of an SSE response body with their arrival times: the stream text split into its
 * blocks, each dispatched block timed by the matching `_eventSourceMessages` entry (in order);
 * blocks that dispatch nothing (comments, priming) take the time of the next timed one. Without a
 * body text, the blocks are rebuilt from `_eventSourceMessages`.
 */
function sseChunks(
  text: string | undefined,
  esm: NonNullable<HarEntryInput['_eventSourceMessages']>,
  head: number,
  end: number,
): { ts: number; text: string }[] {
  const times = esm.map((m) => (typeof m.time === 'number' && Number.isFinite(m.time) ? m.time * 1000 : undefined));
  if (typeof text !== 'string' || text === '') {
    return esm.map((m, i) => {
      let block = '';
      const id = m.id ?? m.eventId;
      const type = m.type ?? m.eventName;
      if (id) block += `id: ${id}\n`;
      if (type && type !== 'message') block += `event: ${type}\n`;
      for (const line of String(m.data ?? '').split(/\r\n|\r|\n/)) block += `data: ${line}\n`;
      return { ts: clamp(times[i], head, end), text: `${block}\n` };
    });
  }
  const parser = new SseParser();
  const frames = parser.push(new TextEncoder().encode(text));
  const tail = parser.end();
  const blocks: { text: string; data?: string }[] = frames.map((f) => ({
    text: f.raw,
    data: f.dispatch && f.data !== '' ? f.data : undefined,
  }));
  if (tail) blocks.push({ text: tail.raw });
  // Whatever text lay between blocks (extra blank lines) is not needed: the blocks carry all fields.
  // A block that dispatches an event takes the time of the next listed event with the same data
  // (lists may leave events out, e.g. ones with empty data, which EventSource does not dispatch).
  const out: { ts: number | undefined; text: string }[] = [];
  let k = 0;
  for (const b of blocks) {
    let ts: number | undefined;
    if (b.data !== undefined) {
      const j = esm.findIndex((m, i) => i >= k && String(m.data ?? '') === b.data);
      if (j >= 0) {
        ts = times[j];
        k = j + 1;
      }
    }
    out.push({ ts, text: b.text });
  }
  // Untimed blocks: the time of the next timed block, else the end.
  let next: number | undefined;
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i].ts === undefined) out[i].ts = next ?? (times.length > 0 ? end : head);
    else next = out[i].ts;
  }
  return out.map((o) => ({ ts: clamp(o.ts, head, end), text: o.text }));
}

function clamp(ts: number | undefined, lo: number, hi: number): number {
  if (ts === undefined) return lo;
  return Math.min(Math.max(ts, lo), Math.max(lo, hi));
}

function harHeaders(list: { name?: string; value?: string }[] | undefined): HeaderMap {
  const out: Record<string, string | string[]> = {};
  for (const h of list ?? []) {
    if (typeof h?.name !== 'string' || h.name.startsWith(':')) continue;
    const name = h.name.toLowerCase();
    if (BODY_FRAMING_HEADERS.has(name)) continue;
    const value = String(h.value ?? '');
    const prev = out[name];
    out[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}
