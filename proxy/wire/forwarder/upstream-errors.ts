/**
 * How an upstream failed, in plain words, and what mcpscope answers in its place: a JSON-RPC
 * error naming the request's id when the first bytes of the body let it, so that an SDK client
 * fails the one call instead of waiting for an answer that will never come.
 */
import type { WireRecord } from '../capture/wire-records.js';
import { now } from '../capture/clock.js';

/** TLS verification failures of the upstream's certificate (Node/OpenSSL codes). */
const TLS_TRUST_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export function isTlsTrustCode(code: string): boolean {
  return TLS_TRUST_CODES.has(code);
}

const WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused — is the server running on that port?',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'the upstream reset the connection',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'host unreachable',
  EPROTO: 'the TLS handshake with the upstream failed (is it really an HTTPS server?)',
  UND_ERR_SOCKET: 'the upstream closed the connection',
  UND_ERR_CONNECT_TIMEOUT: 'connecting to the upstream timed out',
  UND_ERR_HEADERS_TIMEOUT: 'the upstream sent no response headers in time',
  UND_ERR_ABORTED: 'the request was aborted',
  ERR_TLS_CERT_ALTNAME_INVALID: "the upstream's TLS certificate is not valid for this host name",
  CERT_HAS_EXPIRED: "the upstream's TLS certificate has expired",
  CERT_NOT_YET_VALID: "the upstream's TLS certificate is not valid yet",
};

/** A failure code (`describeUpstreamError`'s, or the `x-mcpscope-error` header of mcpscope's own answer) in a few plain words. */
export function causeOfCode(code: string): string {
  return (
    WORDS[code] ??
    (TLS_TRUST_CODES.has(code) ? `the upstream's TLS certificate is not trusted (${code})` : code === 'UNKNOWN' ? 'no response' : code)
  );
}

export function describeUpstreamError(err: unknown): { code: string; cause: string } {
  let e = err as { code?: unknown; name?: string; message?: string; cause?: unknown } | undefined;
  const isKnownCode = (c: unknown) => typeof c === 'string' && (/^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(c) || TLS_TRUST_CODES.has(c));
  // An error may wrap the socket's; the useful code is on a cause.
  while (e && !isKnownCode(e.code) && e.cause) e = e.cause as typeof e;
  const code = isKnownCode(e?.code) ? (e!.code as string) : e?.name === 'AbortError' ? 'UND_ERR_ABORTED' : 'UNKNOWN';
  let cause = WORDS[code] ?? e?.message ?? String(err);
  if (TLS_TRUST_CODES.has(code)) {
    if (!WORDS[code]) cause = `the upstream's TLS certificate is not trusted (${code}: ${e?.message ?? ''})`;
    cause +=
      '. mcpscope verifies every upstream as a client would and never skips that check: if the server uses a private CA, give it to mcpscope with --upstream-ca <file.pem> or NODE_EXTRA_CA_CERTS=<file.pem>';
  }
  return { code, cause };
}

/** The JSON-RPC id of the first message in the first bytes of a request body, if there is one. */
export function jsonRpcIdFrom(head: Buffer[]): string | number | null {
  try {
    const parsed = JSON.parse(Buffer.concat(head).toString('utf8')) as unknown;
    const first = Array.isArray(parsed) ? parsed[0] : parsed;
    if (first && typeof first === 'object' && 'id' in first) {
      const id = (first as { id: unknown }).id;
      if (typeof id === 'string' || typeof id === 'number') return id;
    }
  } catch {
    /* not JSON, or cut short: no id to echo */
  }
  return null;
}

/** The record of a response the upstream broke off in the middle (a stream error after its head). */
export function upstreamBrokeOff(xid: string, err: Error): WireRecord {
  return {
    t: 'abort',
    xid,
    ts: now(),
    side: 'upstream',
    reason: `the upstream broke off the response (${describeUpstreamError(err).cause})`,
  };
}
