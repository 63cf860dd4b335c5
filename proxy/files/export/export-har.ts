/**
 * Store → HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), for Chrome DevTools, HTTP
 * Toolkit and every other HAR viewer: one entry per HTTP exchange through the proxy.
 *
 * - request.url is the upstream URL the proxy forwarded to, and the `Host` header the one the
 *   upstream received with it: its authority (the reverse proxy sets Host to the upstream's,
 *   docs/transparency.md), so that a tool replaying the entry sends a Host that matches its url.
 *   The client's own Host, when it was another, is kept in `_mcpscope.clientHost` (and read back
 *   by the import). postData.text is the client's JSON-RPC frame (or a redacted preview of a body
 *   that carried none, e.g. an OAuth form).
 * - A JSON response's content.text is the server's frame. An SSE response's content.text is the
 *   event stream reassembled from the recorded blocks, and its dispatched events are listed in
 *   `_eventSourceMessages` ({ time: epoch seconds, type, id, data }), the convention that sits
 *   beside `_webSocketMessages`.
 * - Unknown sizes and timings are -1, as the spec asks. `_mcpscope` names the session/exchange.
 *
 * Redacted again on export; the proxy token never appears.
 */
import { STATUS_CODES } from 'node:http';
import type {
  ExchangeInfo,
  McpscopeEvent,
  MessageEvent,
  ModelCallLink,
  ModelTurnInfo,
  ProblemEvent,
  SseFrameEvent,
} from '../../core/model/events.js';
import type { Redactor } from '../../recorder/redact/redact.js';
import { firstHeader } from '../../wire/capture/wire-records.js';
import type { EventStore } from '../../recorder/store/event-store.js';
import { UnknownSessionError } from '../../core/model/errors.js';
import {
  byteLength,
  compact,
  exportRedactor,
  frameText,
  groupFrames,
  mcpscopeVersion,
  ms,
  redactLooseText,
  redactPreview,
  redactSseRaw,
  scrub,
  sessionEventsOf,
  type ExportRedactionOptions,
} from './export-common.js';
import { harModelTurn, type HarModelTurn } from './export-model-turn.js';
import type { Creator, Entry, Header, Log, Page, Param, PostDataCommon, QueryString, Request, Response, Timings } from 'har-format';

// HAR 1.2 as @types/har-format has it, with mcpscope's `_…` custom fields (the spec allows them)
// and narrower types where mcpscope writes less than the format allows.

/**
 * `postData`: the text, and for a form also its params, as Chrome DevTools writes them
 * (har-format's PostData has one or the other, after the spec's note; importers read `text`).
 */
export type HarPostData = PostDataCommon & { text: string; params?: Param[] };

export interface HarEventSourceMessage {
  /** Epoch seconds (fractional) when the event arrived. */
  time: number;
  /** The SSE event type (`message` when the block set none). */
  type: string;
  /** The SSE event id ('' when the block set none). */
  id: string;
  data: string;
}

export interface HarEntry extends Omit<Entry, 'request' | 'response'> {
  request: Omit<Request, 'postData'> & { postData?: HarPostData };
  /** `_error`: why the exchange failed (no response, a broken stream). */
  response: Response & { _error?: string };
  /** Every phase given: -1 where not observed, as the spec asks. */
  timings: Required<Omit<Timings, 'comment'>>;
  _resourceType: 'fetch' | 'eventsource';
  _eventSourceMessages?: HarEventSourceMessage[];
  /** A model API exchange (docs/agent-view.md): its model turn, summed up. */
  _mcpscopeModelTurn?: HarModelTurn;
  /** An MCP `tools/call` that carried out a tool call a model turn chose: that turn and call. */
  _mcpscopeModelCall?: ModelCallLink;
  _mcpscope: {
    session?: string;
    exchange: string;
    carrier?: string;
    /** The `Host` the client sent, when the upstream received another (reverse mode: the proxy's address). */
    clientHost?: string;
    aborted?: string;
    error?: string;
    /** The spec violations of this exchange's messages (docs/spec-lint.md). */
    violations?: HarViolation[];
  };
}

/** har-format's Har, but for `postData` (HarPostData), so not declared as extending it. */
export interface Har {
  log: Omit<Log, 'entries'> & {
    version: '1.2';
    creator: Creator & { name: 'mcpscope' };
    pages: Page[];
    entries: HarEntry[];
  };
}

export interface ExportHarOptions extends ExportRedactionOptions {
  /** creator.version; default mcpscope's package version. */
  version?: string;
}

const SSE_CARRIERS = new Set(['post-sse', 'get-sse', 'legacy-sse']);

/** A HAR of one session (`sessionId`), or of every exchange in the store (undefined). */
export function exportHar(store: EventStore, sessionId?: string, options: ExportHarOptions = {}): Har {
  if (sessionId !== undefined && !store.sessions.has(sessionId)) throw new UnknownSessionError(sessionId);
  const r = exportRedactor(options);
  const events = sessionId === undefined ? store.snapshot() : sessionEventsOf(store, sessionId);

  const exchanges: ExchangeInfo[] = [];
  const byExchange = new Map<string, McpscopeEvent[]>();
  const turns = new Map<string, ModelTurnInfo>();
  for (const e of events) {
    if (e.type === 'exchange') {
      exchanges.push(e.exchange);
      continue;
    }
    if (e.type === 'model-turn') {
      turns.set(e.turn.exchangeId, e.turn);
      continue;
    }
    const xid = 'exchangeId' in e ? e.exchangeId : undefined;
    if (xid === undefined) continue;
    let list = byExchange.get(xid);
    if (!list) byExchange.set(xid, (list = []));
    list.push(e);
  }
  exchanges.sort((a, b) => a.startedAt - b.startedAt || idNumber(a.id) - idNumber(b.id));

  const har: Har = {
    log: {
      version: '1.2',
      creator: { name: 'mcpscope', version: options.version ?? mcpscopeVersion() },
      pages: [],
      entries: exchanges.map((x) => withModelTurn(harEntry(x, byExchange.get(x.id) ?? [], r), turns.get(x.id), r)),
      comment: 'Recorded by mcpscope. Secrets are redacted; SSE responses are reassembled from the recorded events.',
    },
  };
  return scrub(har, r);
}

function harEntry(x: ExchangeInfo, events: McpscopeEvent[], r: Redactor): HarEntry {
  const messages = events.filter((e): e is MessageEvent => e.type === 'message');
  const requestFrames = groupFrames(messages.filter((m) => m.dir === 'c2s' && m.carrier === 'post-body'));
  const responseMessages = messages.filter((m) => m.dir === 's2c');
  const problems = events.filter((e): e is ProblemEvent => e.type === 'problem');

  // ---- request
  const target = harUrl(x, r);
  const url = target.href;
  const { headers: requestHeaders, clientHost } = upstreamHost(nameValues(r.headers(x.requestHeaders)), target);
  const requestMime = firstHeader(x.requestHeaders, 'content-type') ?? x.requestType ?? '';
  let requestText: string | undefined;
  if (requestFrames.length > 0) requestText = requestFrames.map((g) => frameText(g, r)).join('\n');
  else if (x.requestPreview !== undefined) requestText = redactPreview(x.requestPreview, x.requestType, r);
  else {
    const p = problems.find((p) => p.raw !== undefined && isClientProblem(p));
    if (p) requestText = redactLooseText(p.raw!, r);
  }
  const postData =
    requestText !== undefined || x.requestBytes > 0
      ? compact({
          mimeType: requestMime,
          text: requestText ?? '',
          params: x.requestType === 'application/x-www-form-urlencoded' && requestText !== undefined ? formParams(requestText) : undefined,
        })
      : undefined;

  // ---- response
  const sse = x.responseType === 'text/event-stream' || (x.carrier !== undefined && SSE_CARRIERS.has(x.carrier));
  let responseText: string | undefined;
  let contentComment: string | undefined;
  let eventSource: HarEventSourceMessage[] | undefined;
  if (sse) {
    const stream = sseStream(events, r);
    responseText = stream.text;
    eventSource = stream.messages;
    contentComment = 'Reassembled from the recorded SSE events: field order and line endings may differ from the bytes on the wire.';
  } else {
    const frames = groupFrames(responseMessages.filter((m) => m.carrier === 'post-json'));
    if (frames.length > 0) responseText = frames.map((g) => frameText(g, r)).join('\n');
    else if (x.responsePreview !== undefined) responseText = redactPreview(x.responsePreview, x.responseType, r);
    else {
      const bad = problems.filter((p) => p.raw !== undefined && !isClientProblem(p));
      if (bad.length > 0) responseText = bad.map((p) => redactLooseText(p.raw!, r)).join('\n');
    }
  }
  const responded = x.status !== undefined && x.respondedAt !== undefined;
  const responseMime = firstHeader(x.responseHeaders, 'content-type') ?? x.responseType ?? 'x-unknown';

  // ---- timings: send is not observed separately (0); wait = head; receive = body.
  const end = x.endedAt ?? Math.max(x.respondedAt ?? x.startedAt, ...events.map((e) => e.ts));
  const wait = ms(Math.max(0, (x.respondedAt ?? end) - x.startedAt));
  const receive = responded ? ms(Math.max(0, end - x.respondedAt!)) : 0;

  const entry: HarEntry = {
    startedDateTime: isoTime(x.startedAt),
    time: ms(wait + receive),
    request: compact({
      method: x.method,
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: requestHeaders,
      queryString: queryString(url),
      postData,
      headersSize: -1,
      bodySize: x.requestBytes,
    }),
    response: compact({
      status: x.status ?? 0,
      statusText: x.status !== undefined ? (STATUS_CODES[x.status] ?? '') : '',
      httpVersion: responded ? 'HTTP/1.1' : '',
      cookies: [],
      headers: nameValues(r.headers(x.responseHeaders ?? {})),
      content: compact({
        size: responseText !== undefined ? byteLength(responseText) : responded ? x.responseBytes : 0,
        mimeType: responseMime,
        text: responseText,
        comment: contentComment,
      }),
      redirectURL: firstHeader(x.responseHeaders, 'location') ?? '',
      headersSize: -1,
      bodySize: responded ? x.responseBytes : -1,
      _error: x.error,
    }),
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait, receive },
    _resourceType: sse && x.method === 'GET' ? 'eventsource' : 'fetch',
    _mcpscope: compact({
      session: x.sessionId,
      exchange: x.id,
      carrier: x.carrier,
      clientHost,
      aborted: x.aborted,
      error: x.error,
      violations: violationsOf(problems),
    }),
  };
  if (eventSource) entry._eventSourceMessages = eventSource;
  const modelCall = messages.find((m) => m.dir === 'c2s' && m.modelCall)?.modelCall;
  if (modelCall) entry._mcpscopeModelCall = { turn: modelCall.turn, callId: modelCall.callId, name: modelCall.name };
  if (x.error !== undefined) entry.comment = x.error;
  return entry;
}

function withModelTurn(entry: HarEntry, turn: ModelTurnInfo | undefined, r: Redactor): HarEntry {
  if (turn) entry._mcpscopeModelTurn = harModelTurn(turn, r);
  return entry;
}

/** The event stream of an SSE response, reassembled in wire order, and its dispatched events. */
function sseStream(events: McpscopeEvent[], r: Redactor): { text: string; messages: HarEventSourceMessage[] } {
  // Blocks in wire order: SSE frames without a message, and messages (batch members grouped).
  type Block = { seq: number; sse?: SseFrameEvent; group?: MessageEvent[] };
  const blocks: Block[] = [];
  const streamMessages = events.filter((e): e is MessageEvent => e.type === 'message' && e.dir === 's2c' && e.carrier !== 'post-json');
  for (const g of groupFrames(streamMessages)) blocks.push({ seq: g[0].seq, group: g });
  for (const e of events) if (e.type === 'sse') blocks.push({ seq: e.seq, sse: e });
  blocks.sort((a, b) => a.seq - b.seq);

  let text = '';
  const messages: HarEventSourceMessage[] = [];
  for (const b of blocks) {
    if (b.sse) {
      const s = b.sse;
      let raw = redactSseRaw(s.raw, r);
      if (!/(\r\n|\r|\n)$/.test(raw)) raw += '\n';
      if (!/(\r\n|\r|\n)(\r\n|\r|\n)$/.test(raw)) raw += '\n';
      text += raw;
      if ((s.what === 'endpoint' || s.what === 'other') && s.data !== undefined) {
        const data = s.what === 'endpoint' ? r.url(s.data) : redactLooseText(s.data, r);
        messages.push({ time: seconds(s.ts), type: s.eventType ?? 'message', id: s.eventId ?? '', data });
      }
      continue;
    }
    const group = b.group!;
    const first = group[0];
    const data = frameText(group, r);
    const eventId = first.location?.eventId;
    const eventType = first.location?.eventType;
    let block = '';
    if (eventId !== undefined) block += `id: ${eventId}\n`;
    if (eventType !== undefined) block += `event: ${eventType}\n`;
    for (const line of data.split(/\r\n|\r|\n/)) block += `data: ${line}\n`;
    text += `${block}\n`;
    messages.push({ time: seconds(first.ts), type: eventType ?? 'message', id: eventId ?? '', data });
  }
  return { text, messages };
}

/** The entry's URL: the upstream's, or (a request that reached none, or whose URL cannot be read) its path under an unroutable origin. */
function harUrl(x: ExchangeInfo, r: Redactor): { href: string; upstream: boolean } {
  const candidate = x.upstreamUrl ? r.url(x.upstreamUrl) : undefined;
  if (candidate) {
    try {
      return { href: new URL(candidate).href, upstream: true };
    } catch {
      /* fall through */
    }
  }
  return { href: new URL(r.url(x.url), 'http://upstream.invalid').href, upstream: false };
}

/**
 * The request headers as the upstream received them: `Host` is the authority of the URL the
 * request went to (the reverse proxy rewrites it so; a forward proxy's request names that
 * authority already). The client's, when it was another, is handed back for `_mcpscope.clientHost`.
 * A request with no upstream URL to read (refused by mcpscope) keeps the client's headers.
 */
function upstreamHost(headers: Header[], url: { href: string; upstream: boolean }): { headers: Header[]; clientHost?: string } {
  if (!url.upstream) return { headers };
  const authority = new URL(url.href).host;
  let clientHost: string | undefined;
  const out = headers.map((h) => {
    if (h.name.toLowerCase() !== 'host' || h.value === authority) return h;
    clientHost ??= h.value;
    return { name: h.name, value: authority };
  });
  return clientHost === undefined ? { headers } : { headers: out, clientHost };
}

function queryString(url: string): QueryString[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function formParams(text: string): Param[] {
  return [...new URLSearchParams(text)].map(([name, value]) => ({ name, value }));
}

function nameValues(headers: Record<string, string | string[]>): Header[] {
  const out: Header[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const v of value) out.push({ name, value: v });
    else out.push({ name, value });
  }
  return out;
}

/** Problems about what the client sent (the recorder words them so). */
function isClientProblem(p: ProblemEvent): boolean {
  return /^(The client sent|A client frame)/.test(p.text);
}

function isoTime(epochMs: number): string {
  const d = new Date(epochMs);
  return Number.isNaN(d.getTime()) ? new Date(0).toISOString() : d.toISOString();
}

function seconds(epochMs: number): number {
  return Math.round(epochMs * 1000) / 1_000_000;
}

function idNumber(id: string): number {
  const n = Number(/\d+$/.exec(id)?.[0]);
  return Number.isFinite(n) ? n : 0;
}

interface HarViolation {
  rule: string;
  specRef?: string;
  level: 'warn' | 'error';
  /** The seq of the message that broke it. */
  message?: number;
  path?: string;
  expected?: string;
  text: string;
}

/** An exchange's spec violations, as the linter recorded them (undefined when none). */
function violationsOf(problems: ProblemEvent[]): HarViolation[] | undefined {
  const out = problems
    .filter((p) => p.code === 'spec-violation' && p.rule !== undefined)
    .map((p) =>
      compact({ rule: p.rule!, specRef: p.specRef, level: p.level, message: p.message, path: p.path, expected: p.expected, text: p.text }),
    );
  return out.length > 0 ? out : undefined;
}
