/**
 * DNS-rebinding and cross-site guards shared by the proxy port and the UI port (pure functions).
 *
 * A page on evil.example can make a browser talk to 127.0.0.1 by rebinding its DNS name; the
 * request then carries `Host: evil.example`. A page can also POST cross-site with an `Origin`
 * header naming itself. Both are refused unless explicitly allowed.
 */
import { timingSafeEqual, createHash } from 'node:crypto';

/**
 * The UI's token cookie (set by ui-server.ts). Host-scoped, so a browser also sends it to the proxy
 * ports and to every other port of that host: the proxies strip it from what they forward.
 */
export const TOKEN_COOKIE = 'mcpscope_token';

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return LOOPBACK_HOSTNAMES.has(h) || /^127(\.\d{1,3}){3}$/.test(h) || h.endsWith('.localhost');
}

/** Splits a Host header value into hostname and port ("[::1]:80" → ["[::1]", "80"]). */
export function splitHost(host: string): { hostname: string; port?: string } {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(host.trim());
  if (!m) return { hostname: host };
  return { hostname: m[1], port: m[2] || undefined };
}

export interface HostCheck {
  /** The port the listener is bound to. */
  port: number;
  /** Extra host names allowed (the value of --host when it is not loopback, --allow-host). */
  extraHosts?: string[];
}

/** True when the Host header names this listener by a loopback name (or an explicitly allowed one) and its port. */
export function isAllowedHost(host: string | undefined, check: HostCheck): boolean {
  if (!host) return false;
  const { hostname, port } = splitHost(host);
  if (port !== undefined && Number(port) !== check.port) return false;
  if (port === undefined && check.port !== 80) return false;
  if (isLoopbackHostname(hostname)) return true;
  return (check.extraHosts ?? []).some((h) => h.toLowerCase() === hostname.toLowerCase());
}

/** True for a missing Origin, a loopback origin (any port), or one in the allow-list. */
export function isAllowedOrigin(origin: string | undefined, allowList: string[] = []): boolean {
  if (origin === undefined || origin === '') return true;
  if (allowList.includes('*') || allowList.includes(origin)) return true;
  if (origin === 'null') return false;
  try {
    const u = new URL(origin);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
    return isLoopbackHostname(u.hostname);
  } catch {
    return false;
  }
}

/**
 * True for a missing Origin, the listener's own origin (a loopback name on its port), or one in
 * the allow-list. Stricter than `isAllowedOrigin`: the UI port serves only its own pages, so a
 * page on another local port (any dev server) cannot read the feed with the UI's cookie.
 */
export function isSameOriginOrAllowed(origin: string | undefined, port: number, allowList: string[] = []): boolean {
  if (origin === undefined || origin === '') return true;
  if (allowList.includes('*') || allowList.includes(origin)) return true;
  try {
    const u = new URL(origin);
    const p = u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port);
    return (u.protocol === 'http:' || u.protocol === 'https:') && isLoopbackHostname(u.hostname) && p === port;
  } catch {
    return false;
  }
}

/** Constant-time token comparison (hashing first makes the lengths equal). */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The origin a client reaches a listener on: a wildcard address by 127.0.0.1, an IPv6 one in brackets. */
export function listenOrigin(host: string, port: number): string {
  const originHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${originHost}:${port}`;
}
