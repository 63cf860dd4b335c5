/**
 * The form events take on the WebSocket feed, both ways: `toFeed` on the server (proxy/serve/
 * feed.ts), `fromFeed` in every consumer (the UI's feed client). Pure; shared by proxy and UI.
 *
 * - A message larger than FEED_ELIDE_BYTES travels as a stub (`elided: true`, its `jsonrpc`
 *   reduced to id and method, no `raw`); the UI loads it in full when it is shown.
 * - A message whose `raw` text is kept travels without `jsonrpc`: the recorder keeps `raw` only
 *   for a frame holding one message that redaction left unchanged, so `jsonrpc` is
 *   `JSON.parse(raw)`. Sending both doubled a message's bytes on the feed and its serialization
 *   cost on mcpscope's main thread. `fromFeed` gives it back, parsed when first read.
 * - An event that cannot be serialized (a cycle, a BigInt, nesting deeper than JSON.stringify's
 *   stack) travels as `unserializableStub`: a message keeps its row (elided, with a hint saying
 *   why), any other event becomes a `log` event with its seq saying so.
 */
import type { McpscopeEvent, MessageEvent } from './events.js';

/** Messages larger than this travel on the feed as stubs; the UI loads them in full on demand. */
export const FEED_ELIDE_BYTES = 256 * 1024;

/** The form of an event on the feed. */
export function toFeed(e: McpscopeEvent, limit = FEED_ELIDE_BYTES): McpscopeEvent {
  if (e.type !== 'message') return e;
  if (e.size > limit) {
    const full = e.jsonrpc as { id?: unknown; method?: unknown } | null;
    const stub: Record<string, unknown> = { jsonrpc: '2.0' };
    if (full && typeof full === 'object') {
      if ('id' in full) stub.id = full.id;
      if (typeof full.method === 'string') stub.method = full.method;
    }
    stub['…'] = `${e.size} bytes: open this message to load it in full`;
    const { raw: _raw, ...rest } = e;
    return { ...rest, jsonrpc: stub, elided: true };
  }
  if (e.raw === undefined) return e;
  const { jsonrpc: _jsonrpc, ...rest } = e;
  return rest as McpscopeEvent;
}

/**
 * A small stand-in for an event that could not be serialized for the feed (`reason`: the error's
 * message). Built only from the event's own scalar fields, so it always serializes.
 */
export function unserializableStub(e: McpscopeEvent, reason: string): McpscopeEvent {
  const note = `mcpscope could not serialize this ${String(e.type)} event for the UI feed (${reason.slice(0, 200)}), so only this note was sent.`;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  if (e.type === 'message') {
    const stub: Record<string, unknown> = { jsonrpc: '2.0', '…': note };
    if (typeof e.id === 'string' || typeof e.id === 'number' || e.id === null) stub.id = e.id;
    const method = str(e.method);
    if (method !== undefined) stub.method = method;
    const out: Record<string, unknown> = {
      type: 'message',
      seq: e.seq,
      ts: e.ts,
      sessionId: String(e.sessionId),
      dir: e.dir,
      kind: e.kind,
      carrier: e.carrier,
      jsonrpc: stub,
      size: typeof e.size === 'number' ? e.size : 0,
      elided: true,
    };
    if (str(e.exchangeId) !== undefined) out.exchangeId = e.exchangeId;
    if (stub.id !== undefined) out.id = stub.id;
    if (method !== undefined) out.method = method;
    out.hints = [{ level: 'warn', code: 'feed-unserializable', text: note }];
    return out as unknown as McpscopeEvent;
  }
  const sessionId = str((e as { sessionId?: unknown }).sessionId);
  return {
    type: 'log',
    seq: e.seq,
    ts: e.ts,
    source: 'mcpscope',
    text: `Event ${e.seq}: ${note}`,
    ...(sessionId !== undefined ? { sessionId } : {}),
  };
}

/** An event as the store had it: a message sent without `jsonrpc` gets it back, parsed from `raw` on first read (in place). */
export function fromFeed<E extends McpscopeEvent>(e: E): E {
  if (e.type !== 'message') return e;
  const m = e as MessageEvent;
  if (typeof m.raw !== 'string' || Object.prototype.hasOwnProperty.call(m, 'jsonrpc')) return e;
  const settle = (value: unknown) => Object.defineProperty(m, 'jsonrpc', { value, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(m, 'jsonrpc', {
    enumerable: true,
    configurable: true,
    get(): unknown {
      let value: unknown = null;
      try {
        value = JSON.parse(m.raw as string);
      } catch {
        /* raw is always one JSON-RPC message; null rather than a throw in the middle of a render */
      }
      settle(value);
      return value;
    },
    set: settle,
  });
  return e;
}
