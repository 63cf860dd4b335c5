/**
 * What mcpscope needs to send a request into an HTTP session as its client would (proxy/send/):
 * the latest client POST of each session — where it went and its end-to-end headers as the client
 * sent them, unredacted (Mcp-Session-Id, MCP-Protocol-Version, Authorization, Cookie, custom
 * headers) — and the client's `_meta` identity of a 2026-07-28 stateless session.
 *
 * In memory only: never in an event, an export or an API answer; a session's entry goes when the
 * session closes (RecorderContext.closeSession). Requests mcpscope sent itself (`x-mcpscope-origin`)
 * are not kept: they are not the client's.
 *
 * Also here: how the recorder tells mcpscope's own requests from the client's (`sentBy`), and the
 * hints that say so.
 */
import type { ExchangeInfo, Hint } from '../core/model/events.js';
import { firstHeader, type HeaderMap } from '../wire/capture/wire-records.js';
import { SENT_BY_HEADER } from '../core/rules/breakpoint-types.js';

/** The latest client POST of a session, as it came over the wire (unredacted). */
export interface KeptRequest {
  /** Path and query as the client sent them. */
  url: string;
  /** The upstream URL the proxy forwarded it to (forward mode: the server's own URL). */
  upstreamUrl: string;
  /** The origin the client reached mcpscope on (forward mode: the server's origin). */
  proxyOrigin: string;
  /** The proxy route's target: a reverse proxy's `--target`, or (forward mode) the server's origin. */
  target: string;
  headers: HeaderMap;
  /** 2026-07-28 stateless: the client's `_meta` protocol version, capabilities and info from its latest request that had them. */
  meta?: Record<string, unknown>;
}

/** The `_meta` keys a 2026-07-28 stateless request carries for the client. */
export const CLIENT_META_KEYS = [
  'io.modelcontextprotocol/protocolVersion',
  'io.modelcontextprotocol/clientCapabilities',
  'io.modelcontextprotocol/clientInfo',
] as const;

/** Sessions' latest client POSTs (see the module comment). */
export class KeptRequests {
  private readonly bySession = new Map<string, KeptRequest>();

  /** The client's POST `request` joined session `sessionId`; `meta` is its first message's `_meta`, if any. */
  note(sessionId: string, request: Omit<KeptRequest, 'meta'>, meta: Record<string, unknown> | undefined): void {
    const picked: Record<string, unknown> = {};
    let any = false;
    for (const k of CLIENT_META_KEYS) {
      if (meta?.[k] !== undefined) {
        picked[k] = meta[k];
        any = true;
      }
    }
    const previous = this.bySession.get(sessionId);
    this.bySession.set(sessionId, { ...request, ...(any ? { meta: picked } : previous?.meta ? { meta: previous.meta } : {}) });
  }

  get(sessionId: string): KeptRequest | undefined {
    return this.bySession.get(sessionId);
  }

  drop(sessionId: string): void {
    this.bySession.delete(sessionId);
  }

  clear(): void {
    this.bySession.clear();
  }

  get size(): number {
    return this.bySession.size;
  }
}

/** Who sent a request, from its `x-mcpscope-origin` header: mcpscope (`send`, `respond`) or the client (undefined). */
export function sentByOf(headers: HeaderMap): ExchangeInfo['sentBy'] {
  const v = firstHeader(headers, SENT_BY_HEADER)?.trim();
  return v === 'send' || v === 'respond' ? v : undefined;
}

/** The exchange's hint: this request is mcpscope's, not the client's. */
export function sentByHint(sentBy: NonNullable<ExchangeInfo['sentBy']>): Hint {
  return {
    level: 'info',
    code: 'sent-by-mcpscope',
    text:
      sentBy === 'send'
        ? 'Sent by mcpscope (a resend or a call made from its UI), not by the client, with the client’s latest headers. The client never sees this request or its answer.'
        : 'Sent by mcpscope: the answer a user gave at a breakpoint to a request from the server, in the client’s place.',
  };
}

/** The hint on each message of such a request's body. */
export const SENT_MESSAGE_HINT: Hint = {
  level: 'info',
  code: 'sent-by-mcpscope',
  text: 'Sent by mcpscope itself (a resend, a call made from its UI, or an answer given at a breakpoint), not by the peer it stands in for.',
};
