/**
 * The pure part of sending a message into an HTTP session (session-send.ts): which message goes
 * out (its fresh id, a stateless client's `_meta`), and with which headers (the client's latest
 * ones, less what belongs to one connection or one body, plus the 2026-07-28 mirror headers
 * recomputed for the new message). No I/O.
 */
import { checkJsonRpc } from '../../core/rules/action-checks.js';
import { SENT_BY_HEADER } from '../../core/rules/breakpoint-types.js';
import type { HeaderMap } from '../../core/model/headers.js';

/** What POST /api/sessions/:id/send accepts. */
export interface SendRequestBody {
  /** A JSON-RPC request or notification (a request's `id` may be left out: mcpscope gives one). */
  message: unknown;
  /** Keep the message's own `id` instead of a fresh `mcpscope-<n>` (it may then collide with the client's). */
  keepId?: boolean;
  /** How long to wait for the answer (ms; default 60 s, at most 10 minutes). */
  timeoutMs?: number;
}

export const DEFAULT_SEND_TIMEOUT_MS = 60_000;
export const MAX_SEND_TIMEOUT_MS = 10 * 60_000;

export interface CheckedSend {
  message: Record<string, unknown>;
  /** A request (it gets an answer), or a notification. */
  kind: 'request' | 'notification';
  keepId: boolean;
  timeoutMs: number;
}

/**
 * Checks the API's body. A message without `id` is a request unless its method is a
 * `notifications/…` one (the UI sends requests without ids: mcpscope gives them fresh ones).
 */
export function checkSendBody(body: unknown): CheckedSend | { error: string } {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return { error: 'the body is a JSON object: { "message": <a JSON-RPC request or notification> }' };
  const b = body as Record<string, unknown>;
  if (!('message' in b)) return { error: 'the body has no "message" (the JSON-RPC request or notification to send)' };
  let timeoutMs = DEFAULT_SEND_TIMEOUT_MS;
  if (b.timeoutMs !== undefined) {
    if (typeof b.timeoutMs !== 'number' || !Number.isFinite(b.timeoutMs) || b.timeoutMs < 1 || b.timeoutMs > MAX_SEND_TIMEOUT_MS)
      return { error: `timeoutMs must be a number of milliseconds from 1 to ${MAX_SEND_TIMEOUT_MS}` };
    timeoutMs = Math.floor(b.timeoutMs);
  }
  if (b.keepId !== undefined && typeof b.keepId !== 'boolean') return { error: 'keepId must be true or false' };
  const m = b.message;
  if (Array.isArray(m)) return { error: 'send one message at a time, not a batch' };
  if (m && typeof m === 'object' && typeof (m as { method?: unknown }).method !== 'string')
    return {
      error: 'only a request or a notification can be sent (a response answers a request from the server: use a breakpoint for that)',
    };
  // Checked as it will go out: with an id when it is a request (a placeholder; the real one comes later).
  const withId = m && typeof m === 'object' && !('id' in m) ? { ...(m as object), id: 0 } : m;
  const problem = checkJsonRpc(withId);
  if (problem) return { error: `not a JSON-RPC message: ${problem}` };
  const message = { ...(m as Record<string, unknown>) };
  const notification = !('id' in message) && (message.method as string).startsWith('notifications/');
  if (!notification && message.id === null) return { error: 'a request needs an id that is a string or a number, not null' };
  return { message, kind: notification ? 'notification' : 'request', keepId: b.keepId === true, timeoutMs };
}

/**
 * The message as it goes out: a request gets `id` (unless `keepId` and it has one); a stateless
 * client's `_meta` (protocol version, capabilities, info) is added where the message has none of
 * its own for that key.
 */
export function outgoingMessage(
  checked: CheckedSend,
  freshId: () => string,
  clientMeta: Record<string, unknown> | undefined,
): { message: Record<string, unknown>; id?: string | number } {
  const message = { ...checked.message };
  if (clientMeta && Object.keys(clientMeta).length > 0) {
    const params = message.params;
    if (params === undefined || (typeof params === 'object' && params !== null && !Array.isArray(params))) {
      const p = { ...((params as Record<string, unknown> | undefined) ?? {}) };
      const own = p._meta;
      const ownMeta = typeof own === 'object' && own !== null && !Array.isArray(own) ? (own as Record<string, unknown>) : {};
      p._meta = { ...clientMeta, ...ownMeta };
      message.params = p;
    }
  }
  if (checked.kind === 'notification') {
    delete message.id;
    return { message };
  }
  const keep = checked.keepId && (typeof message.id === 'string' || typeof message.id === 'number');
  const id = keep ? (message.id as string | number) : freshId();
  // `jsonrpc` first and `id` next, as clients write them.
  const { jsonrpc, id: _old, ...rest } = message;
  void _old;
  return { message: { jsonrpc, id, ...rest }, id };
}

/** Fresh request ids `mcpscope-<n>`, never one the session has used (`taken`). */
export class SendIds {
  private n = 0;
  next(taken: (id: string) => boolean): string {
    for (;;) {
      const id = `mcpscope-${++this.n}`;
      if (!taken(id)) return id;
    }
  }
}

/** Headers of the client's request that are not repeated: the connection's, the body's, and what is recomputed here. */
const DROPPED = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'content-length',
  'content-encoding',
  'content-type',
  'accept-encoding',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  SENT_BY_HEADER,
]);

const NAMED_METHODS = new Set(['tools/call', 'resources/read', 'prompts/get']);

/** A header value as 2026-07-28 mirrors it: as it is when printable ASCII, else `=?base64?<UTF-8 in base64>?=`. */
export function mirrorValue(v: string): string {
  if (/^[\x20-\x7e]*$/.test(v) && v.trim() === v) return v;
  const bytes = new TextEncoder().encode(v);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return `=?base64?${btoa(bin)}?=`;
}

/**
 * `Mcp-Param-<Name>` headers for a `tools/call`: each argument whose property in the tool's
 * inputSchema names a header (`"x-mcp-header": "<Name>"`), with a string, number or boolean value.
 */
export function paramHeaders(inputSchema: unknown, args: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const props = (inputSchema as { properties?: unknown } | undefined)?.properties;
  if (!props || typeof props !== 'object' || !args || typeof args !== 'object') return out;
  for (const [prop, schema] of Object.entries(props as Record<string, unknown>)) {
    const header = (schema as { 'x-mcp-header'?: unknown } | undefined)?.['x-mcp-header'];
    const v = (args as Record<string, unknown>)[prop];
    if (typeof header !== 'string' || !/^[A-Za-z0-9-]+$/.test(header)) continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
      out[`mcp-param-${header.toLowerCase()}`] = mirrorValue(String(v));
  }
  return out;
}

export interface HeaderInput {
  /** The client's latest POST's headers (unredacted). */
  client: HeaderMap;
  message: Record<string, unknown>;
  /** Recompute the 2026-07-28 mirror headers (Mcp-Method, Mcp-Name, Mcp-Param-*): the client sent them, or the session is stateless. */
  mirror: boolean;
  /** The tool's inputSchema from the session's tools/list, for Mcp-Param-* (tools/call). */
  toolSchema?: unknown;
}

/** The headers a resend goes out with: the client's end-to-end ones, JSON, and `x-mcpscope-origin: send`. */
export function sendHeaders(input: HeaderInput): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(input.client)) {
    const n = name.toLowerCase();
    if (value === undefined || DROPPED.has(n) || n.startsWith('mcp-param-')) continue;
    out[n] = value;
  }
  out['content-type'] = 'application/json';
  const accept = typeof out.accept === 'string' ? out.accept : undefined;
  if (!accept || !/application\/json/i.test(accept) || !/text\/event-stream/i.test(accept))
    out.accept = 'application/json, text/event-stream';
  if (input.mirror) {
    const method = input.message.method as string;
    out['mcp-method'] = mirrorValue(method);
    const params = input.message.params as { name?: unknown; uri?: unknown; arguments?: unknown } | undefined;
    const name = typeof params?.name === 'string' ? params.name : typeof params?.uri === 'string' ? params.uri : undefined;
    if (name !== undefined && NAMED_METHODS.has(method)) out['mcp-name'] = mirrorValue(name);
    if (method === 'tools/call') Object.assign(out, paramHeaders(input.toolSchema, params?.arguments));
    const version = (params as { _meta?: Record<string, unknown> } | undefined)?._meta?.['io.modelcontextprotocol/protocolVersion'];
    if (typeof version === 'string' && out['mcp-protocol-version'] === undefined) out['mcp-protocol-version'] = version;
  }
  out[SENT_BY_HEADER] = 'send';
  return out;
}
