/**
 * Which hosts the forward proxy decrypts (`--intercept <pattern>`, repeatable; none given: every
 * host). A pattern is a host name or IP address, `*` standing for any run of characters
 * (`*.example.com`, `mcp-*.internal`), optionally with `:port`; case is ignored, and IPv6
 * literals may be written with or without brackets. Hosts that match no pattern are tunnelled
 * blind: their bytes pass, and only the tunnel (host, bytes, duration) is recorded.
 */

import { compileGlob, globMatches, type Glob } from '../../core/model/glob.js';

export interface InterceptRule {
  pattern: string;
  /** Matched in linear time (proxy/core/model/glob.ts): the host comes from the client's CONNECT or SNI. */
  host: Glob;
  port?: number;
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Parses `--intercept` values; throws a plain-words error for a malformed one. */
export function parseInterceptPatterns(patterns: string[] | undefined): InterceptRule[] {
  return (patterns ?? []).map((pattern) => {
    const p = pattern.trim().toLowerCase();
    // A host never holds / ? # @ or brackets: `example.com/mcp` or `user@host` would silently match nothing.
    const m = /^(\[[^\]]+\]|[^:\s/?#@[\]]+|[0-9a-f:]+)(?::(\d{1,5}))?$/.exec(p.includes('::') && !p.startsWith('[') ? `[${p}]` : p);
    if (!m || m[1] === '')
      throw new Error(
        `--intercept ${JSON.stringify(pattern)} is not a host pattern (a host name or address, * for any characters, optionally :port — e.g. *.example.com or localhost:8443)`,
      );
    const port = m[2] !== undefined ? Number(m[2]) : undefined;
    if (port !== undefined && (port < 1 || port > 65535))
      throw new Error(`--intercept ${JSON.stringify(pattern)}: port ${port} is out of range`);
    const host = unbracket(m[1]);
    return { pattern, host: compileGlob(host), port };
  });
}

/** True when `host` (a name or address, brackets allowed) and `port` are to be decrypted. */
export function intercepts(rules: InterceptRule[], host: string, port: number): boolean {
  if (rules.length === 0) return true;
  const h = unbracket(host.toLowerCase());
  return rules.some((r) => (r.port === undefined || r.port === port) && globMatches(r.host, h));
}
