/**
 * Server-side search over the recorded messages (`GET /api/search`, and `mcpscope mcp`'s
 * `search_messages` tool), so that a consumer — a coding agent above all — never has to pull the
 * whole store to find one call.
 *
 * Pure: reads an EventStore, changes nothing. Each hit is compact (no payload, a one-line summary
 * and a short preview of the already redacted message). Free text is matched literally and without
 * case against the method, the name and the message's JSON text: no pattern syntax at all.
 */
import type { Direction, McpscopeEvent, MessageEvent, MessageKind, ProblemEvent } from '../../core/model/events.js';
import { eventSession, type EventStore } from './event-store.js';
import { clip, plural } from '../../core/annotate/hint-text.js';
import { firstAfterSeq } from './call-view.js';
import { callState, cancelledFirst, httpRefusal, refusalText, type HttpRefusal } from '../../core/model/call-state.js';
import { formatMs } from '../../core/model/units.js';
import { McpscopeError } from '../../core/model/errors.js';
import { boundedJsonText } from '../../core/parse/json-depth.js';

export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 200;
/** Longest free-text query accepted. */
export const SEARCH_MAX_TEXT = 500;
/** Characters of a message's JSON text searched by free text (a larger payload is searched in its first part). */
const SEARCH_TEXT_SPAN = 256 * 1024;
const PREVIEW_CHARS = 160;

export interface SearchQuery {
  /** Free text, literal, case-insensitive: method, name, or anywhere in the message's (redacted) JSON. */
  text?: string;
  /** mcpscope's session id (`s1`). */
  session?: string;
  /** Exact JSON-RPC method (a response matches by the method of its request). */
  method?: string;
  /** Exact tool, prompt or resource name (`params.name` / `uri`; a response: its request's). */
  tool?: string;
  dir?: Direction;
  /**
   * Only failures: JSON-RPC errors, tool results with isError, messages with error hints or spec
   * violations, requests left unanswered by a failed HTTP request, and `problem` events.
   */
  errorsOnly?: boolean;
  /** Only responses and errors that took at least this long. */
  minLatencyMs?: number;
  /** Only events with seq > since. */
  since?: number;
  /** Only events with seq < before (paging back through newest-first results). */
  before?: number;
  /** `newest` first (default) or `oldest` first. */
  order?: 'newest' | 'oldest';
  /** Hits returned (default 20, at most 200). */
  limit?: number;
}

export interface SearchHit {
  seq: number;
  ts: number;
  session?: string;
  exchange?: string;
  dir?: Direction;
  /** A message's kind, or `problem` for a problem event (errorsOnly). */
  kind: MessageKind | 'problem';
  method?: string;
  name?: string;
  id?: string | number | null;
  /** Response/error/progress/cancellation: seq of the request. */
  pair?: number;
  /** A server→client request riding a POST's stream: seq of that POST's request. */
  parent?: number;
  latencyMs?: number;
  error?: { code: number; message: string };
  isError?: boolean;
  /** A request left without a JSON-RPC answer because its HTTP request was refused (core/model/call-state.ts): the status, or `failed` (no response at all). */
  httpStatus?: number | 'failed';
  /** Spec violations found in this message (rule ids). */
  violations?: string[];
  /** One line for a person or an agent. */
  summary: string;
  /** The start of the params / result / error JSON (redacted), at most 160 characters. */
  preview?: string;
}

export interface SearchResult {
  hits: SearchHit[];
  /** More events matched than `limit`: page on with `before` (newest first) or `since` (oldest first). */
  more: boolean;
  /** The query as applied (limit capped, defaults filled in). */
  query: SearchQuery & { limit: number; order: 'newest' | 'oldest' };
  /** The store's last seq when the search ran (`since` for the next poll). */
  lastSeq: number;
}

const DIRS = new Set(['c2s', 's2c']);

/** Parses and checks query-string parameters (all strings) into a SearchQuery; throws McpscopeError BAD_QUERY in plain words. */
export function parseSearchQuery(params: Record<string, unknown>): SearchQuery {
  const q: SearchQuery = {};
  const str = (name: string): string | undefined => {
    const v = params[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw new McpscopeError('BAD_QUERY', `${name} must be given once, as text.`);
    return v;
  };
  const num = (name: string, min: number): number | undefined => {
    const v = str(name);
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min)
      throw new McpscopeError('BAD_QUERY', `${name} must be a number of at least ${min}, not ${JSON.stringify(v)}.`);
    return n;
  };
  const known = new Set([
    'text',
    'session',
    'method',
    'tool',
    'dir',
    'errorsOnly',
    'minLatencyMs',
    'since',
    'before',
    'order',
    'limit',
    'token',
  ]);
  for (const key of Object.keys(params)) {
    if (!known.has(key))
      throw new McpscopeError(
        'BAD_QUERY',
        `Unknown search parameter ${JSON.stringify(key)}: use text, session, method, tool, dir, errorsOnly, minLatencyMs, since, before, order, limit.`,
      );
  }
  const text = str('text');
  if (text !== undefined && text !== '') {
    if (text.length > SEARCH_MAX_TEXT) throw new McpscopeError('BAD_QUERY', `text is at most ${SEARCH_MAX_TEXT} characters.`);
    q.text = text;
  }
  for (const name of ['session', 'method', 'tool'] as const) {
    const v = str(name);
    if (v !== undefined && v !== '') q[name] = v;
  }
  const dir = str('dir');
  if (dir !== undefined && dir !== '') {
    if (!DIRS.has(dir))
      throw new McpscopeError('BAD_QUERY', `dir must be c2s (client→server) or s2c (server→client), not ${JSON.stringify(dir)}.`);
    q.dir = dir as Direction;
  }
  const errorsOnly = str('errorsOnly');
  if (errorsOnly !== undefined && errorsOnly !== '') {
    if (errorsOnly !== 'true' && errorsOnly !== 'false' && errorsOnly !== '1' && errorsOnly !== '0')
      throw new McpscopeError('BAD_QUERY', `errorsOnly must be true or false, not ${JSON.stringify(errorsOnly)}.`);
    q.errorsOnly = errorsOnly === 'true' || errorsOnly === '1';
  }
  q.minLatencyMs = num('minLatencyMs', 0);
  q.since = num('since', 0);
  q.before = num('before', 0);
  const limit = num('limit', 1);
  if (limit !== undefined) q.limit = limit;
  const order = str('order');
  if (order !== undefined && order !== '') {
    if (order !== 'newest' && order !== 'oldest')
      throw new McpscopeError('BAD_QUERY', `order must be newest or oldest, not ${JSON.stringify(order)}.`);
    q.order = order;
  }
  for (const k of Object.keys(q) as (keyof SearchQuery)[]) if (q[k] === undefined) delete q[k];
  return q;
}

/** The message's JSON text as kept (redacted), for free-text matching and previews. */
function jsonText(m: MessageEvent): string {
  if (m.raw !== undefined) return m.raw.length > SEARCH_TEXT_SPAN ? m.raw.slice(0, SEARCH_TEXT_SPAN) : m.raw;
  // Native JSON.stringify: several times faster than a bounded walk on the small messages most are
  // (a search reads every one); the kept messages are bounded by --max-body already.
  try {
    const t = JSON.stringify(m.jsonrpc) ?? '';
    return t.length > SEARCH_TEXT_SPAN ? t.slice(0, SEARCH_TEXT_SPAN) : t;
  } catch {
    return '';
  }
}

function previewOf(m: MessageEvent): string | undefined {
  const j = m.jsonrpc as { params?: unknown; result?: unknown; error?: unknown } | null;
  if (!j || typeof j !== 'object') return undefined;
  const part = 'error' in j ? j.error : 'result' in j ? j.result : j.params;
  if (part === undefined) return undefined;
  return clip(boundedJsonText(part, PREVIEW_CHARS * 2).text, PREVIEW_CHARS);
}

/** One line: `c2s request tools/call "echo" id=3`, `s2c response tools/call "echo" id=3 in 12 ms: error -32602 Unknown tool`. */
export function summarizeMessage(m: MessageEvent): string {
  const parts: string[] = [m.dir, m.kind];
  if (m.method) parts.push(m.method);
  if (m.name) parts.push(JSON.stringify(clip(m.name, 80)));
  if (m.id !== undefined) parts.push(`id=${JSON.stringify(m.id)}`);
  if (m.latencyMs !== undefined) parts.push(`in ${formatMs(m.latencyMs)}`);
  let line = parts.join(' ');
  if (m.error) line += `: error ${m.error.code} ${clip(m.error.message, 120)}`;
  else if (m.isError) line += ': tool result isError';
  else if (m.progress) {
    const p = m.progress;
    line += `: progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}${p.message ? ` ${clip(p.message, 80)}` : ''}`;
  }
  if (m.parent !== undefined) line += ` (inside request #${m.parent})`;
  else if (m.pair !== undefined && m.kind === 'notification') line += ` (for request #${m.pair})`;
  if (m.sentBy) line += ' [sent by mcpscope]';
  return line;
}

function messageHit(m: MessageEvent, violations: string[] | undefined): SearchHit {
  const hit: SearchHit = {
    seq: m.seq,
    ts: m.ts,
    session: m.sessionId,
    dir: m.dir,
    kind: m.kind,
    summary: summarizeMessage(m),
  };
  if (m.exchangeId !== undefined) hit.exchange = m.exchangeId;
  if (m.method !== undefined) hit.method = m.method;
  if (m.name !== undefined) hit.name = m.name;
  if (m.id !== undefined) hit.id = m.id;
  if (m.pair !== undefined) hit.pair = m.pair;
  if (m.parent !== undefined) hit.parent = m.parent;
  if (m.latencyMs !== undefined) hit.latencyMs = m.latencyMs;
  if (m.error) hit.error = { code: m.error.code, message: m.error.message };
  if (m.isError) hit.isError = true;
  if (violations && violations.length > 0) {
    hit.violations = violations;
    hit.summary += ` — ${plural(violations.length, 'spec violation')}`;
  }
  const preview = previewOf(m);
  if (preview !== undefined) hit.preview = preview;
  return hit;
}

function problemHit(p: ProblemEvent): SearchHit {
  const hit: SearchHit = {
    seq: p.seq,
    ts: p.ts,
    kind: 'problem',
    summary: `problem ${p.code}${p.rule ? ` ${p.rule}` : ''}${p.message !== undefined ? ` in message #${p.message}` : ''}: ${clip(p.text, 200)}`,
  };
  if (p.sessionId !== undefined) hit.session = p.sessionId;
  if (p.exchangeId !== undefined) hit.exchange = p.exchangeId;
  return hit;
}

function isFailure(m: MessageEvent, violations: string[] | undefined): boolean {
  return m.kind === 'error' || m.isError === true || m.hints.some((h) => h.level === 'error') || (violations?.length ?? 0) > 0;
}

/**
 * Searches the store. Cost: one pass over the kept events after `since` (and a JSON text per
 * message when free text is given), never more than the store holds; the hits are bounded by
 * `limit`. A poll with since = the previous result's lastSeq reads only what came since.
 */
export function searchMessages(store: EventStore, query: SearchQuery = {}): SearchResult {
  const limit = Math.max(1, Math.min(SEARCH_MAX_LIMIT, Math.floor(query.limit ?? SEARCH_DEFAULT_LIMIT)));
  const order = query.order ?? 'newest';
  const needle = query.text?.toLowerCase();
  const since = query.since ?? 0;
  const before = query.before ?? Infinity;

  // Every kept event, in seq order (the store's own array: no copy), read for messages of the
  // session (or all), and problems for violations (`message` = seq) and for errorsOnly.
  const session = query.session;
  if (session !== undefined && !store.sessions.has(session))
    return { hits: [], more: false, query: { ...query, limit, order }, lastSeq: store.lastSeq };
  const events = store.history();
  const violations = new Map<number, string[]>();
  // Requests answered by a JSON-RPC response or error, and cancelled (notifications/cancelled), by
  // the seq that did it: with the exchange's refusal, call-state.ts decides whether one failed.
  const answered = new Map<number, number>();
  const cancelled = new Map<number, number>();
  /** What `e` tells about the messages before it: its answer, its cancellation, its violations. */
  const note = (e: McpscopeEvent) => {
    if (e.type === 'message') {
      if (e.pair === undefined) return;
      if (e.kind === 'response' || e.kind === 'error') answered.set(e.pair, Math.min(e.seq, answered.get(e.pair) ?? e.seq));
      else if (e.method === 'notifications/cancelled') cancelled.set(e.pair, Math.min(e.seq, cancelled.get(e.pair) ?? e.seq));
    } else if (e.type === 'problem' && e.code === 'spec-violation' && e.message !== undefined) {
      const list = violations.get(e.message);
      // In seq order whichever way the walk goes.
      if (list) list[order === 'oldest' ? 'push' : 'unshift'](e.rule ?? 'spec-violation');
      else violations.set(e.message, [e.rule ?? 'spec-violation']);
    }
  };
  // Oldest first needs what comes after each message before reaching it: one pass ahead. Newest
  // first (the default) has always seen it — answers and violations come after their message — so
  // it notes them on its way and stops at `limit`. Either way the events up to `since` are never
  // read: what they note concerns messages before them, which `since` leaves out anyway.
  const start = since > 0 ? firstAfterSeq(events, since) : 0;
  if (order === 'oldest') for (let i = start; i < events.length; i++) note(events[i]);

  /** The refusal a request failed by (call-state.ts: unanswered, not cancelled first, refused by its exchange), if it did. */
  const failedBy = (request: MessageEvent): HttpRefusal | undefined => {
    const carrier = request.exchangeId !== undefined ? store.exchanges.get(request.exchangeId) : undefined;
    const refusal = httpRefusal(carrier);
    if (refusal === undefined) return undefined;
    const answer = answered.get(request.seq);
    const state = callState({
      answer: answer !== undefined ? { kind: 'response' } : undefined,
      cancelled: cancelledFirst(cancelled.get(request.seq), answer, carrier?.cancels?.includes(request.seq) === true),
      refusal,
    });
    return state === 'failed' ? refusal : undefined;
  };

  const matches = (e: McpscopeEvent): SearchHit | undefined => {
    if (e.seq <= since || e.seq >= before) return undefined;
    if (session !== undefined && eventSession(e) !== session) return undefined;
    if (e.type === 'problem') {
      // Problems are failures without a message: only an errors-only search without message filters lists them.
      if (!query.errorsOnly || e.code === 'spec-violation') return undefined;
      if (query.method !== undefined || query.tool !== undefined || query.dir !== undefined || query.minLatencyMs !== undefined)
        return undefined;
      if (needle !== undefined && !`${e.code} ${e.text} ${e.raw ?? ''}`.toLowerCase().includes(needle)) return undefined;
      return problemHit(e);
    }
    if (e.type !== 'message') return undefined;
    if (query.dir !== undefined && e.dir !== query.dir) return undefined;
    if (query.method !== undefined && e.method !== query.method) return undefined;
    if (query.tool !== undefined && e.name !== query.tool) return undefined;
    if (query.minLatencyMs !== undefined && (e.latencyMs === undefined || e.latencyMs < query.minLatencyMs)) return undefined;
    const v = violations.get(e.seq);
    const http = e.kind === 'request' ? failedBy(e) : undefined;
    if (query.errorsOnly && !isFailure(e, v) && http === undefined) return undefined;
    if (needle !== undefined) {
      const inFields = (e.method ?? '').toLowerCase().includes(needle) || (e.name ?? '').toLowerCase().includes(needle);
      if (!inFields && !jsonText(e).toLowerCase().includes(needle)) return undefined;
    }
    const hit = messageHit(e, v);
    if (http !== undefined) {
      hit.httpStatus = http;
      hit.summary += `: no JSON-RPC answer, ${refusalText(http)}`;
    }
    return hit;
  };

  const hits: SearchHit[] = [];
  let more = false;
  const step = order === 'oldest' ? 1 : -1;
  for (let i = order === 'oldest' ? start : events.length - 1; i >= start && i < events.length; i += step) {
    if (order === 'newest') note(events[i]);
    const hit = matches(events[i]);
    if (!hit) continue;
    if (hits.length === limit) {
      more = true;
      break;
    }
    hits.push(hit);
  }
  const applied = { ...query, limit, order };
  return { hits, more, query: applied, lastSeq: store.lastSeq };
}
