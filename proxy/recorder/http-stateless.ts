/**
 * Sessions without an Mcp-Session-Id and the 2026-07-28 stateless revision: grouping headerless
 * requests into sessions, what a session learns from requests' `_meta`, `subscriptions/listen`
 * streams ending, and a closed response stream cancelling its requests.
 */
import type { SessionInfo } from '../core/model/events.js';
import { firstHeader } from '../wire/capture/wire-records.js';
import { clientGroupOf, groupingKeyOf } from '../core/correlate/session-registry.js';
import { metaOf, pickPeer, targetOf } from './record-helpers.js';
import { STATELESS_VERSION, versionAtLeast } from '../core/model/protocol-version.js';
import type { ExchangeState, HttpExchanges } from './http-exchanges.js';

export const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const META_CLIENT_CAPS = 'io.modelcontextprotocol/clientCapabilities';

/** The protocol version an exchange speaks: its MCP-Protocol-Version header, its body's `_meta`, or its session's. */
function versionOf(ex: ExchangeState): string | undefined {
  return firstHeader(ex.requestHeaders, 'mcp-protocol-version')?.trim() ?? ex.bodyVersion ?? ex.session?.protocolVersion;
}

/**
 * 2026-07-28: closing a request's response stream is its cancellation. Requests of this exchange
 * still pending when the client went away are marked cancelled. Earlier versions say a
 * disconnect is not a cancellation, so nothing changes for them.
 */
export function cancelByClose(http: HttpExchanges, ex: ExchangeState): void {
  const session = ex.session;
  if (!session || ex.requestSeqs.length === 0 || !versionAtLeast(versionOf(ex), STATELESS_VERSION)) return;
  const cancelled = http.ctx.correlator.cancelByClose(session.id, ex.requestSeqs);
  if (cancelled.length === 0) return;
  ex.info.cancels = cancelled;
  ex.info.hints.push({
    level: 'info',
    code: 'stream-close-cancels',
    text: `The client closed the stream before the answer: in 2026-07-28 this cancels the request (${cancelled.map((n) => `#${n}`).join(', ')}); the server must stop and send nothing more for it.`,
  });
  session.counts.pending = http.ctx.correlator.pendingCount(session.id);
  http.ctx.markSession(session);
}

/** A `subscriptions/listen` stream ended: by the client (it unsubscribes), by the server, or broken. */
export function onListenEnd(http: HttpExchanges, ex: ExchangeState, by: 'client' | 'server' | 'upstream'): void {
  if (ex.info.listenEnded !== undefined) return;
  ex.info.listenEnded = by;
  const session = ex.session;
  if (session && ex.info.listen !== undefined) {
    http.ctx.correlator.endListen(session.id, [ex.info.listen]);
    session.counts.pending = http.ctx.correlator.pendingCount(session.id);
    http.ctx.markSession(session);
  }
  const text =
    by === 'client'
      ? `The client closed the subscriptions/listen stream of #${ex.info.listen}: that ends the subscription, and no more notifications arrive on it.`
      : by === 'server'
        ? `The server ended the subscriptions/listen stream of #${ex.info.listen}; the client must listen again to keep receiving notifications.`
        : `The subscriptions/listen stream of #${ex.info.listen} broke; notifications sent meanwhile are lost, and the client must listen again.`;
  ex.info.hints.push({ level: by === 'upstream' ? 'warn' : 'info', code: 'listen-ended', text });
  http.ctx.markExchange(ex);
}

/** 2026-07-28 stateless requests carry the version and the client's identity in `_meta`: a session without initialize learns them here. */
export function noteStatelessMeta(http: HttpExchanges, session: SessionInfo, message: unknown): void {
  const meta = metaOf((message as { params?: unknown } | undefined)?.params);
  if (!meta) return;
  const version = meta[META_VERSION];
  const info = meta[META_CLIENT_INFO] as SessionInfo['clientInfo'] | undefined;
  const caps = meta[META_CLIENT_CAPS];
  let changed = false;
  if (session.protocolVersion === undefined && typeof version === 'string') {
    session.protocolVersion = version;
    changed = true;
  }
  if (session.clientInfo === undefined && info && typeof info.name === 'string') {
    session.clientInfo = pickPeer(info);
    changed = true;
  }
  if (session.clientCapabilities === undefined && typeof caps === 'object' && caps !== null && !Array.isArray(caps)) {
    session.clientCapabilities = caps as Record<string, unknown>;
    changed = true;
  }
  if (changed) http.ctx.markSession(session);
}

/**
 * The session of requests without an Mcp-Session-Id (stateless servers, 2026-07-28): the newest
 * one of the same client (`params`' `_meta`) and upstream; for a GET stream (no `params`), of the
 * same upstream.
 */
export function statelessSession(http: HttpExchanges, ex: ExchangeState, params: unknown): SessionInfo {
  const key = groupingKeyOf(params, ex.target);
  const group = clientGroupOf(params);
  const known = http.ctx.registry.headerlessFor(key) ?? (params === undefined ? http.ctx.registry.headerlessTo(ex.target) : undefined);
  if (known) return known;
  const session = http.ctx.newSession(
    'streamable-http',
    ex.target,
    ex.info.startedAt,
    { ...targetOf(ex), grouping: group === 'anonymous' ? 'requests without Mcp-Session-Id' : group },
    [
      {
        level: 'info',
        code: 'stateless',
        text: 'Requests without an Mcp-Session-Id: a stateless server, or a client that skipped initialize. mcpscope groups them here.',
      },
    ],
  );
  http.ctx.registry.markHeaderless(session, key);
  return session;
}
