/**
 * What a proxy may and may not pass on of a message's headers (RFC 9110 §7.6.1): hop-by-hop
 * headers, and the ones the Connection header lists, belong to one connection and are dropped;
 * everything else is forwarded as it is.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { mediaType } from '../../core/model/media-type.js';

/** Hop-by-hop headers are the only ones not forwarded as they are. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

export function endToEndHeaders(
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  // Per request and per response: a plain loop, and the Connection list parsed only when present.
  const connection = headers.connection;
  const listed =
    typeof connection === 'string' && connection !== 'keep-alive' && connection !== 'close'
      ? connection
          .toLowerCase()
          .split(',')
          .map((s) => s.trim())
      : undefined;
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || (listed !== undefined && listed.includes(name))) continue;
    out[name] = value;
  }
  return out;
}

export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q >= 0 ? url.slice(0, q) : url;
}

export function isJsonType(contentType: string): boolean {
  const media = mediaType(contentType);
  return media === 'application/json' || media?.endsWith('+json') === true;
}

export function isEncoded(headers: IncomingHttpHeaders): boolean {
  const enc = String(headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  return enc !== '' && enc !== 'identity';
}

/**
 * The Cookie header without the cookies named `name` (docs/security.md: mcpscope's own UI cookie
 * is never passed on). The other cookie pairs keep their bytes and separators; the result is ''
 * when that was the only cookie, and undefined when there was none of that name (nothing to do).
 */
export function withoutCookie(header: string, name: string): string | undefined {
  if (!header.includes(name)) return undefined;
  const parts = header.split(';');
  const kept = parts.filter((p) => {
    const eq = p.indexOf('=');
    return (eq < 0 ? p : p.slice(0, eq)).trim() !== name;
  });
  if (kept.length === parts.length) return undefined;
  if (kept.length === 0) return '';
  const out = kept.join(';');
  // The first pair had no separator before it; a pair moved to the front loses its leading space.
  return kept[0] === parts[0] ? out : out.replace(/^[ \t]+/, '');
}
