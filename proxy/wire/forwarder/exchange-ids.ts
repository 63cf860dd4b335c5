import type { HeaderMap, WireRecord } from '../capture/wire-records.js';
import { now } from '../capture/clock.js';

/** Exchange ids: process-wide (thread-wide), so that several proxy ports can share one store. */
let exchangeCounter = 0;
let exchangePrefix = 'x';

/** A fresh exchange id. */
export function nextExchangeId(): string {
  exchangeCounter += 1;
  return `${exchangePrefix}${exchangeCounter}`;
}

/** Ids from here on start with `prefix` (a restarted proxy thread must not reuse its predecessor's). */
export function setExchangeIdPrefix(prefix: string): void {
  exchangePrefix = prefix;
}

/**
 * Opens the exchange of a request mcpscope answers itself without forwarding (a refusal: a guard,
 * a loop, a head it will not forward): a fresh id and the request's record, nothing sent upstream
 * (`upstreamUrl` empty). The caller records the answer under the returned id.
 */
export function captureUnforwardedRequest(
  capture: (record: WireRecord) => void,
  request: { method: string; url: string; headers: HeaderMap },
  where: { proxyOrigin: string; target: string; targetName?: string },
): { xid: string; ts: number } {
  const xid = nextExchangeId();
  const ts = now();
  capture({ t: 'request', xid, ts, method: request.method, url: request.url, upstreamUrl: '', headers: request.headers, ...where });
  return { xid, ts };
}
