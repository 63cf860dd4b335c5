/**
 * Formatting helpers shared by the components: durations, sizes, clock times, one-line row
 * titles, and "copy as cURL". Pure functions, browser-safe.
 */
import type { ExchangeInfo } from '../../../proxy/core/model/events.js';
import { boundedJsonText, jsonValueDepth } from '../../../proxy/core/parse/json-depth.js';
import type { Row } from './types.js';

// Durations, sizes and clock times are shared with the annotated log (proxy/files/export/text-log.ts): one set of words for both.
export { formatBytes, formatClock, formatMs } from '../../../proxy/core/model/units.js';

/** Cuts `text` to at most `max` characters, ending in "…" when it was cut. */
export function truncate(text: string, max: number): string {
  if (max <= 0) return '';
  if (text.length <= max) return text;
  if (max === 1) return '…';
  // Do not split a surrogate pair.
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * Nesting the UI draws as a tree or indents (JsonView, jsonPretty); a value nested deeper is shown
 * as compact text there. JSON.stringify and React's recursion both fail a few thousand levels down,
 * and a peer's message can nest that deep.
 */
export const MAX_TREE_DEPTH = 64;

const bigintAsText = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

/**
 * Compact JSON of a value, at most `limit` characters (cut ones end in "…"); never throws. Any
 * depth: a value too deep for JSON.stringify's recursion is written without recursion
 * (boundedJsonText). A cycle (never in a value parsed from JSON) gives a note, not a throw.
 */
export function jsonText(value: unknown, limit = Infinity): string {
  if (value === undefined) return '';
  let text: string;
  try {
    text = JSON.stringify(value, bigintAsText) ?? String(value);
  } catch (err) {
    if (!(err instanceof RangeError)) return '[a value JSON cannot write]';
    return truncate(boundedJsonText(value, limit + 1).text, limit);
  }
  return truncate(text, limit);
}

/** Two-space indented JSON; never throws (cycles, BigInt → a plain string); compact past MAX_TREE_DEPTH levels. */
export function jsonPretty(value: unknown): string {
  if (value === undefined) return '';
  if (jsonValueDepth(value, MAX_TREE_DEPTH) > MAX_TREE_DEPTH) return jsonText(value);
  try {
    return JSON.stringify(value, bigintAsText, 2) ?? String(value);
  } catch {
    return jsonText(value);
  }
}

/** A short one-line rendering of a value: strings as-is, the rest as compact JSON. */
export function gist(value: unknown, max = 120): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return truncate(value.replace(/\s+/g, ' '), max);
  return jsonText(value, max);
}

function paramsOf(jsonrpc: unknown): Record<string, unknown> | undefined {
  if (jsonrpc === null || typeof jsonrpc !== 'object') return undefined;
  const p = (jsonrpc as { params?: unknown }).params;
  return p !== null && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : undefined;
}

function idText(id: unknown): string {
  return id === undefined ? '' : jsonText(id, 80);
}

/** What a notification is about, in one line (method included). */
function notificationTitle(method: string, jsonrpc: unknown, name?: string): string {
  const p = paramsOf(jsonrpc);
  switch (method) {
    case 'notifications/message': {
      const level = typeof p?.level === 'string' ? p.level : 'log';
      const logger = typeof p?.logger === 'string' ? ` [${p.logger}]` : '';
      return `${method} ${level}${logger}: ${gist(p?.data, 100)}`;
    }
    case 'notifications/progress': {
      const progress = p?.progress;
      const total = p?.total;
      const message = typeof p?.message === 'string' ? ` ${truncate(p.message, 80)}` : '';
      return `${method} ${String(progress ?? '?')}${total !== undefined ? `/${String(total)}` : ''}${message}`;
    }
    case 'notifications/cancelled': {
      const reason = typeof p?.reason === 'string' ? ` (${truncate(p.reason, 80)})` : '';
      return `${method} request ${idText(p?.requestId)}${name ? ` ${name}` : ''}${reason}`;
    }
    case 'notifications/resources/updated':
      return `${method} ${typeof p?.uri === 'string' ? p.uri : ''}`.trimEnd();
    default:
      return name ? `${method} ${name}` : method;
  }
}

/** One-line title of a row: "tools/call slow_task", "notifications/message info: …", "sampling/createMessage". */
export function rowTitle(row: Row): string {
  switch (row.type) {
    case 'call': {
      const method = row.request.method ?? '(no method)';
      return row.request.name ? `${method} ${row.request.name}` : method;
    }
    case 'notification': {
      const m = row.message;
      return notificationTitle(m.method ?? '(notification)', m.jsonrpc, m.name);
    }
    case 'orphan': {
      const m = row.message;
      const what = m.kind === 'error' ? `error${m.error ? ` ${m.error.code}` : ''}` : m.kind;
      if (m.kind === 'response' || m.kind === 'error') {
        const tail = m.error?.message ? `: ${truncate(m.error.message, 100)}` : '';
        return `${what} to unknown id ${idText(m.id ?? null)}${tail}`;
      }
      return `${m.method ?? m.kind}${m.name ? ` ${m.name}` : ''}`;
    }
    case 'problem':
      return `${row.event.code}: ${truncate(row.event.text, 160)}`;
    case 'http': {
      const x = row.exchange;
      return `${x.method} ${truncate(x.url, 160)}${x.status !== undefined ? ` → ${x.status}` : ''}`;
    }
    case 'log':
      return `stderr: ${truncate(row.event.text, 160)}`;
    case 'turn': {
      const t = row.turn;
      return `model turn ${t.id}: ${t.model ?? t.api}${t.stopReason ? ` → ${t.stopReason}` : t.status !== 'done' ? ` (${t.status})` : ''}`;
    }
  }
}

/** The noun for a count, in the right number: `noun(1, 'error')` → "error", `noun(3, 'error')` → "errors". */
export function noun(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/**
 * A count with its noun in the right number: `plural(1, 'error')` → "1 error",
 * `plural(3, 'error')` → "3 errors", `plural(2, 'match', 'matches')` → "2 matches".
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${noun(n, one, many)}`;
}

const SKIPPED_HEADERS = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade']);

/** Quotes a string for a POSIX shell: '…' with every ' written as '\''. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A copy-pasteable curl command that replays `exchange`'s request through the proxy at `origin`.
 * Header values mcpscope redacted stay redacted (a comment line says so); hop-by-hop headers,
 * Host and Content-Length are left to curl. SSE responses get `-N` (no buffering).
 */
export function curlFor(exchange: ExchangeInfo, body: string | undefined, origin: string): string {
  const lines: string[] = [];
  const redacted: string[] = [];
  const headerArgs: string[] = [];
  let acceptsEventStream = false;
  for (const [rawName, value] of Object.entries(exchange.requestHeaders ?? {})) {
    const name = rawName.toLowerCase();
    if (SKIPPED_HEADERS.has(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v.includes('[redacted]')) redacted.push(rawName);
      if (name === 'accept' && v.includes('text/event-stream')) acceptsEventStream = true;
      headerArgs.push(`-H ${shellQuote(`${rawName}: ${v}`)}`);
    }
  }
  if (redacted.length > 0) {
    lines.push(
      `# mcpscope redacted the value of ${[...new Set(redacted)].join(', ')}: replace [redacted] with the real value before running.`,
    );
  }
  const base = origin.replace(/\/+$/, '');
  const path = exchange.url.startsWith('/') ? exchange.url : `/${exchange.url}`;
  const method = (exchange.method || 'GET').toUpperCase();
  const sse =
    exchange.responseType === 'text/event-stream' ||
    exchange.carrier === 'post-sse' ||
    exchange.carrier === 'get-sse' ||
    exchange.carrier === 'legacy-sse' ||
    (method === 'GET' && acceptsEventStream);
  const args: string[] = ['curl'];
  if (sse) args.push('-N');
  const hasBody = body !== undefined && body !== '';
  if (method !== (hasBody ? 'POST' : 'GET')) args.push(`-X ${method}`);
  args.push(shellQuote(`${base}${path}`));
  args.push(...headerArgs);
  if (hasBody) args.push(`--data-raw ${shellQuote(body)}`);
  lines.push(args.join(' \\\n  '));
  return lines.join('\n');
}
