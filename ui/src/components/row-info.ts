/**
 * Small pure helpers the components share: what a row is about, its status word, its one-line
 * gist, and the row a message belongs to (for correlation links).
 */
import type { ExchangeInfo, MessageEvent, Row } from '../state/types.js';
import { jsonText } from '../state/format.js';

export type RowStatus =
  | 'ok'
  | 'error'
  | 'tool-error'
  | 'cancelled'
  | 'pending'
  | 'notification'
  | 'orphan'
  | 'problem'
  | 'warn'
  | 'log'
  // A model turn whose response broke off.
  | 'cut';

/** Text shown in the status badge per status. */
export const STATUS_LABEL: Record<RowStatus, string> = {
  ok: 'ok',
  error: 'error',
  'tool-error': 'tool error',
  cancelled: 'cancelled',
  pending: 'pending',
  notification: 'notif',
  orphan: 'orphan',
  problem: 'problem',
  warn: 'warning',
  log: 'log',
  cut: 'cut',
};

/** `data-status` of a row: a call's status; `error` for an error orphan or problem. */
export function rowStatus(row: Row): RowStatus {
  switch (row.type) {
    case 'call':
      return row.status;
    case 'notification':
      return hasErrorHint(row.message) ? 'error' : 'notification';
    case 'orphan':
      return row.message.kind === 'error' ? 'error' : 'orphan';
    case 'problem':
      return row.event.level === 'error' ? 'error' : 'warn';
    case 'http':
      return httpStatus(row.exchange);
    case 'log':
      return 'log';
    case 'turn':
      return row.turn.status === 'done' ? 'ok' : row.turn.status;
  }
}

/**
 * A plain HTTP exchange's status: `pending` until its response head, `error` when it failed
 * (aborted, unreachable, 5xx), `warn` for a 4xx (a refused token request, say), else `ok`.
 */
export function httpStatus(x: ExchangeInfo): RowStatus {
  if (x.aborted !== undefined || x.error !== undefined) return 'error';
  if (x.status === undefined) return 'pending';
  if (x.status >= 500) return 'error';
  return x.status >= 400 ? 'warn' : 'ok';
}

/** A plain HTTP exchange's one-line title: method and path (without the query). */
export function httpTitle(x: ExchangeInfo): string {
  const q = x.url.indexOf('?');
  return `${x.method} ${q >= 0 ? x.url.slice(0, q) : x.url}`;
}

/** What a plain HTTP exchange is, in a line: its first hint (the kind: token request, metadata, …). */
export function httpGist(x: ExchangeInfo): string {
  const warning = x.hints.find((h) => h.level !== 'info');
  const first = x.hints[0];
  return first ? (warning && warning !== first ? `${first.text} ${warning.text}` : first.text) : 'Plain HTTP (not MCP)';
}

function hasErrorHint(m: MessageEvent): boolean {
  for (const h of m.hints) if (h.level === 'error') return true;
  return false;
}

/** The message method of a row ('' for problems and plain HTTP). */
export function rowMethod(row: Row): string {
  switch (row.type) {
    case 'call':
      return row.request.method ?? '';
    case 'notification':
    case 'orphan':
      return row.message.method ?? '';
    case 'problem':
    case 'http':
    case 'log':
    case 'turn':
      return '';
  }
}

export function rowName(row: Row): string | undefined {
  switch (row.type) {
    case 'call':
      return row.request.name;
    case 'notification':
    case 'orphan':
      return row.message.name;
    case 'problem':
    case 'http':
    case 'log':
    case 'turn':
      return undefined;
  }
}

export function rowDir(row: Row): 'c2s' | 's2c' | undefined {
  return row.type === 'problem' || row.type === 'log' ? undefined : row.dir;
}

export function rowDepth(row: Row): 0 | 1 {
  return 'parentKey' in row && row.parentKey ? 1 : 0;
}

export function rowTs(row: Row): number {
  switch (row.type) {
    case 'call':
      return row.request.ts;
    case 'notification':
    case 'orphan':
      return row.message.ts;
    case 'problem':
      return row.event.ts;
    case 'http':
      return row.exchange.startedAt;
    case 'log':
      return row.event.ts;
    case 'turn':
      return row.turn.startedAt;
  }
}

/** All messages a row holds, in wire order. */
export function rowMessages(row: Row): MessageEvent[] {
  switch (row.type) {
    case 'call': {
      const list = [row.request, ...row.progress];
      if (row.cancel) list.push(row.cancel);
      if (row.response) list.push(row.response);
      return list.sort((a, b) => a.seq - b.seq);
    }
    case 'notification':
    case 'orphan':
      return [row.message];
    case 'problem':
    case 'http':
    case 'log':
    case 'turn':
      return [];
  }
}

/** Bytes on the wire of the row's messages. */
export function rowSize(row: Row): number {
  switch (row.type) {
    case 'call':
      return row.request.size + (row.response?.size ?? 0);
    case 'notification':
    case 'orphan':
      return row.message.size;
    case 'problem':
      return row.event.raw?.length ?? 0;
    case 'http':
      return row.exchange.requestBytes + row.exchange.responseBytes;
    case 'log':
      return row.event.text.length;
    case 'turn':
      return row.turn.context?.requestBytes ?? 0;
  }
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function clip(s: string, max = 160): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function shortJson(v: unknown, max = 120): string {
  if (typeof v === 'string') return clip(v, max);
  if (v === undefined) return '';
  // Bounded: stringify only small values (avoid multi-MB work per rendered row).
  try {
    const s = JSON.stringify(v, (_k, val: unknown) => (typeof val === 'string' && val.length > max ? `${val.slice(0, max)}…` : val));
    return clip(s ?? '', max);
  } catch {
    // Nested too deep for JSON.stringify.
    return clip(jsonText(v, max + 1), max);
  }
}

/** One-line gist of a notification: log level + text, "list changed", progress, cancellation… */
export function notificationGist(m: MessageEvent): { level?: string; text: string } {
  const method = m.method ?? '';
  const params = asRecord(asRecord(m.jsonrpc)?.params);
  if (method === 'notifications/message') {
    const level = typeof params?.level === 'string' ? params.level : undefined;
    const logger = typeof params?.logger === 'string' ? `[${params.logger}] ` : '';
    return { level, text: logger + shortJson(params?.data) };
  }
  if (method.endsWith('/list_changed')) return { text: `${method.slice('notifications/'.length, -'/list_changed'.length)} list changed` };
  if (method === 'notifications/progress' && m.progress) {
    const p = m.progress;
    return { text: `progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}${p.message ? ` · ${p.message}` : ''}` };
  }
  if (method === 'notifications/cancelled') {
    const reason = typeof params?.reason === 'string' ? `: ${params.reason}` : '';
    return { text: `cancels request ${jsonText(params?.requestId, 80)}${reason}` };
  }
  if (method === 'notifications/initialized') return { text: 'handshake complete' };
  if (method === 'notifications/resources/updated') return { text: `updated ${typeof params?.uri === 'string' ? params.uri : ''}` };
  const hint = m.hints.find((h) => h.level !== 'info') ?? m.hints[0];
  if (hint) return { text: hint.text };
  return { text: params ? shortJson(params) : '' };
}

/** One-line outcome of a call: error message, tool error text, first result text. */
export function callGist(row: Extract<Row, { type: 'call' }>): string {
  const res = row.response;
  if (!res) return '';
  if (res.error) return `${res.error.code} ${res.error.message}`;
  const result = asRecord(asRecord(res.jsonrpc)?.result);
  if (!result) return '';
  const content = result.content;
  if (Array.isArray(content) && content.length > 0) {
    const first = asRecord(content[0]);
    if (first && typeof first.text === 'string') return clip(first.text, 140);
    if (first && typeof first.type === 'string') return `[${first.type}]`;
  }
  for (const k of ['tools', 'prompts', 'resources', 'resourceTemplates', 'messages', 'contents']) {
    const v = result[k];
    if (Array.isArray(v)) return `${v.length} ${k}`;
  }
  if (typeof result.action === 'string') return result.action;
  if (typeof result.model === 'string') return `model ${result.model}`;
  return '';
}

/**
 * The row key a message is shown in: a request's own call row; a response, progress or
 * cancellation in the row of the request it points at; anything else its own notification or
 * orphan row. Returns candidates in order; the caller picks the first that exists.
 */
export function rowKeysForMessage(m: MessageEvent): string[] {
  const keys: string[] = [];
  if (m.kind === 'request') keys.push(`c${m.seq}`);
  if (
    m.pair !== undefined &&
    (m.kind === 'response' || m.kind === 'error' || m.method === 'notifications/progress' || m.method === 'notifications/cancelled')
  ) {
    keys.push(`c${m.pair}`);
  }
  if (m.replayOf !== undefined) keys.push(...rowKeysForMessage({ ...m, seq: m.replayOf, replayOf: undefined }));
  keys.push(`n${m.seq}`, `o${m.seq}`);
  return keys;
}

export function dirLabel(dir: 'c2s' | 's2c'): string {
  return dir === 'c2s' ? 'client → server' : 'server → client';
}

/** How a message travelled, in plain words (the recorder's carrier names are terse: `post-sse`…). */
const CARRIER_TEXT: Record<string, { short: string; long: string }> = {
  'post-body': { short: 'POST body', long: 'Sent by the client in the body of an HTTP POST.' },
  'post-json': { short: 'JSON answer', long: 'The server answered the HTTP POST with a plain JSON body.' },
  'post-sse': {
    short: 'POST event stream',
    long: 'The server answered the HTTP POST with an SSE event stream (post-sse); messages for that request travel on it.',
  },
  'get-sse': {
    short: 'GET event stream',
    long: 'The SSE event stream the client opened with an HTTP GET (get-sse): the server sends messages on it without a request.',
  },
  'legacy-sse': { short: 'legacy event stream', long: 'The event stream of the legacy HTTP+SSE transport (2024-11-05, legacy-sse).' },
  stdio: { short: 'stdio', long: "A line on the server process's stdin or stdout (stdio transport)." },
};

export function carrierText(carrier: string | undefined): { short: string; long: string } {
  if (carrier === undefined) return { short: '—', long: 'Not known yet.' };
  return CARRIER_TEXT[carrier] ?? { short: carrier, long: carrier };
}

/** Tooltip of a seq number (`#1869`). */
export function seqTitle(seq: number): string {
  return `Event #${seq}: mcpscope numbers everything it records, in the order it happened.`;
}

/** Tooltip of an exchange id (`x257`). */
export function exchangeTitle(id: string): string {
  return `HTTP exchange ${id}: mcpscope's name for one HTTP request and its response (see the HTTP tab).`;
}

/** A row's status badge's tooltip: what its state means. */
export function statusTitle(row: Row): string {
  if (row.type === 'call') {
    const err = row.response?.error;
    if (err) return `${err.code} ${err.message}${err.meaning ? `\n${err.meaning}` : ''}`;
    if (row.status === 'tool-error') return 'The tool ran and reported a failure (isError: true).';
    if (row.status === 'cancelled') return 'The request was cancelled (notifications/cancelled).';
    if (row.httpStatus === 'failed' && !row.response)
      return 'Failed: its HTTP request got no response at all (the server unreachable, the connection reset, the client gone), so no JSON-RPC answer can come. The HTTP tab of its detail shows why.';
    if (row.httpStatus !== undefined && !row.response)
      return `Failed: the server answered HTTP ${row.httpStatus} and no JSON-RPC response, so the request was refused before it reached MCP (an authorization challenge, an expired session, a server not initialized…). The HTTP tab of its detail shows why.`;
    if (row.status === 'pending') return 'Waiting for the response.';
    return 'Answered with a result.';
  }
  if (row.type === 'problem') return `${row.event.code}: ${row.event.text}`;
  if (row.type === 'log') return 'A line the server process wrote to stderr (its log output, not MCP).';
  if (row.type === 'turn') return `Model turn ${row.turn.id}: ${row.turn.status === 'done' ? 'answered' : row.turn.status}.`;
  if (row.type === 'http') {
    const x = row.exchange;
    return x.error ?? (x.status !== undefined ? `HTTP ${x.status}` : 'Waiting for the response.');
  }
  if (row.type === 'orphan')
    return row.message.error ? `${row.message.error.code} ${row.message.error.message}` : 'A message that matched no request.';
  return '';
}
