/**
 * What a breakpoint holder reads off a message to match it, and the little correlation it needs
 * to match a response by the request it answers. Runs where the bytes are (the proxy thread, a
 * stdio wrapper), and only while a breakpoint rule exists. Pure: no Node APIs.
 */
import type { Direction, JsonRpcId, MessageKind } from '../../../core/model/events.js';
import { messageName } from '../../../core/parse/mcp-fields.js';
import { exceedsDepth } from '../../../core/parse/json-depth.js';
import type { WireSessionKey } from '../../../core/rules/breakpoint-types.js';

export interface Peeked {
  kind: MessageKind;
  id?: JsonRpcId;
  method?: string;
  /** Tool/prompt/resource name (params.name or params.uri) of a request or notification. */
  name?: string;
}

/** The JSON-RPC messages in a text (an object or a batch), or undefined when it is not JSON-RPC. */
export function peekMessages(text: string): { batch: boolean; messages: Peeked[] } | undefined {
  if (exceedsDepth(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const batch = Array.isArray(value);
  const list = batch ? (value as unknown[]) : [value];
  const messages: Peeked[] = [];
  for (const m of list) {
    if (!m || typeof m !== 'object') return undefined;
    const o = m as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
    const id = typeof o.id === 'string' || typeof o.id === 'number' || o.id === null ? (o.id as JsonRpcId) : undefined;
    if (typeof o.method === 'string') {
      const name = messageName(o.method, o.params);
      messages.push({
        kind: id === undefined ? 'notification' : 'request',
        ...(id !== undefined ? { id } : {}),
        method: o.method,
        ...(name !== undefined ? { name } : {}),
      });
    } else if ('result' in o || 'error' in o)
      messages.push({ kind: 'error' in o && o.error !== undefined ? 'error' : 'response', ...(id !== undefined ? { id } : {}) });
    else return undefined;
  }
  return messages.length ? { batch, messages } : undefined;
}

/** The string a wire session key is booked under (`''`: no session known). */
export function bookKey(wire: WireSessionKey): string {
  return wire.mcpSessionId !== undefined
    ? `m:${wire.mcpSessionId}`
    : wire.endpoint !== undefined
      ? `e:${wire.endpoint}`
      : wire.process !== undefined
        ? `p:${wire.process}`
        : '';
}

const MAX_BOOKED = 10_000;

/**
 * Requests in flight, per session key and requesting side, so that a response can be matched by
 * the method and name of the request it answers. Bounded: past MAX_BOOKED entries the oldest go.
 */
export class CallBook {
  private readonly calls = new Map<string, { method?: string; name?: string }>();

  private static key(session: string, dir: Direction, id: JsonRpcId): string {
    return `${dir}|${session}|${typeof id}:${String(id)}`;
  }

  /** Books the requests among `messages` sent in direction `dir`. */
  book(session: string, dir: Direction, messages: readonly Peeked[]): void {
    for (const m of messages) {
      if (m.kind !== 'request' || m.id === undefined || m.id === null) continue;
      if (this.calls.size >= MAX_BOOKED) this.calls.delete(this.calls.keys().next().value!);
      this.calls.set(CallBook.key(session, dir, m.id), { method: m.method, name: m.name });
    }
  }

  /** The request a response (travelling in `dir`) answers: it was sent the other way. Forgotten once answered. */
  answer(session: string, dir: Direction, id: JsonRpcId | undefined, keep = false): { method?: string; name?: string } | undefined {
    if (id === undefined || id === null) return undefined;
    const key = CallBook.key(session, dir === 'c2s' ? 's2c' : 'c2s', id);
    const found = this.calls.get(key);
    if (found && !keep) this.calls.delete(key);
    return found;
  }
}
