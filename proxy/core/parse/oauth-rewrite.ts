/**
 * OAuth through the proxy: the pure rewriting rules (docs/transparency.md, protocol notes §5).
 *
 * An OAuth client (the TypeScript SDK's, say) that connects to `http://127.0.0.1:<proxy>/mcp`
 * refuses protected-resource metadata whose `resource` names another URL, and follows
 * `resource_metadata`, `authorization_servers` and the authorization server's endpoints wherever
 * they point. So the proxy maps the upstream's ORIGIN to its own in:
 *
 * - the `resource_metadata` parameter of `WWW-Authenticate` challenges;
 * - every string value of a metadata document (protected-resource metadata, RFC 9728; authorization
 *   server metadata, RFC 8414 / OpenID discovery) that is exactly an absolute URL on the upstream's
 *   origin (`resource`, `authorization_servers` entries, `issuer`, `*_endpoint`, `jwks_uri`, …);
 * - `Location` headers that are absolute URLs on the upstream's origin.
 *
 * Foreign origins, relative URLs, URLs embedded in longer strings and object keys are never
 * touched, and every byte of a document other than the rewritten string literals stays as it was.
 *
 * A document nested deeper than MAX_JSON_DEPTH (json-depth.ts) is no metadata any client uses:
 * it is never rewritten (`metadataTooDeep` tells the caller, which forwards it unchanged and says so).
 *
 * Pure and I/O-free; the URL mapping is passed in (see `originRewriter` in endpoint-rewriter.ts).
 */
import { exceedsDepth, jsonTextDepth, MAX_JSON_DEPTH } from './json-depth.js';

/** Maps an absolute URL to the one the client should see, or returns null to leave it unchanged. */
export type UrlMapper = (absoluteUrl: string) => string | null;

export interface ValueRewrite {
  before: string;
  after: string;
}

export type OAuthMetadataKind = 'protected-resource' | 'authorization-server';

/**
 * Which OAuth metadata document a request path (without query) names, if any:
 * `/.well-known/oauth-protected-resource[/<path>]`, `/.well-known/oauth-authorization-server[/<path>]`,
 * `/.well-known/openid-configuration[/<path>]` and `/<path>/.well-known/openid-configuration`.
 */
export function oauthMetadataKind(pathname: string): OAuthMetadataKind | null {
  if (/^\/\.well-known\/oauth-protected-resource(?:\/.*)?$/.test(pathname)) return 'protected-resource';
  if (/^\/\.well-known\/oauth-authorization-server(?:\/.*)?$/.test(pathname)) return 'authorization-server';
  if (/^\/\.well-known\/openid-configuration(?:\/.*)?$/.test(pathname)) return 'authorization-server';
  if (/^\/.+\/\.well-known\/openid-configuration$/.test(pathname)) return 'authorization-server';
  return null;
}

function isAbsoluteUrl(s: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(s)) return false;
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

function safeMap(map: UrlMapper, url: string): string | null {
  if (!isAbsoluteUrl(url)) return null;
  try {
    const after = map(url);
    return after !== null && after !== url ? after : null;
  } catch {
    return null; // a failing mapper leaves the value untouched
  }
}

/** A `Location` header value: the mapped URL when it is absolute and on the upstream's origin, else null. */
export function rewriteLocation(value: string, map: UrlMapper): string | null {
  return safeMap(map, value.trim());
}

const TCHAR = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;

/**
 * Maps the `resource_metadata` parameter(s) of a `WWW-Authenticate` value (any challenge in it,
 * quoted or token form, name case-insensitive). Text inside other quoted parameters (an
 * `error_description` that mentions resource_metadata=…) is never read as a parameter. Every
 * other byte stays as it was. Returns null when nothing changed.
 */
export function rewriteWwwAuthenticate(value: string, map: UrlMapper): string | null {
  let out = '';
  let copied = 0;
  let changed = false;
  let i = 0;
  const n = value.length;
  while (i < n) {
    const c = value[i];
    if (c === '"') {
      i = skipQuoted(value, i);
      continue;
    }
    if (!TCHAR.test(c)) {
      i++;
      continue;
    }
    const nameStart = i;
    while (i < n && TCHAR.test(value[i])) i++;
    const name = value.slice(nameStart, i);
    let j = i;
    while (j < n && (value[j] === ' ' || value[j] === '\t')) j++;
    if (value[j] !== '=' || value[j + 1] === '=') continue; // a scheme name or token68, not a parameter
    j++;
    while (j < n && (value[j] === ' ' || value[j] === '\t')) j++;
    const valueStart = j;
    let raw: string;
    let decoded: string;
    if (value[j] === '"') {
      j = skipQuoted(value, j);
      raw = value.slice(valueStart, j);
      decoded = raw.slice(1, raw.endsWith('"') && raw.length > 1 ? -1 : undefined).replace(/\\(.)/g, '$1');
    } else {
      while (j < n && value[j] !== ',' && value[j] !== ' ' && value[j] !== '\t') j++;
      raw = value.slice(valueStart, j);
      decoded = raw;
    }
    i = j;
    if (name.toLowerCase() !== 'resource_metadata') continue;
    const after = safeMap(map, decoded);
    if (after === null) continue;
    out += value.slice(copied, valueStart) + `"${after.replace(/(["\\])/g, '\\$1')}"`;
    copied = j;
    changed = true;
  }
  return changed ? out + value.slice(copied) : null;
}

/** Index just past the quoted string starting at `start` (or the end of the text if unterminated). */
function skipQuoted(s: string, start: number): number {
  let i = start + 1;
  while (i < s.length) {
    if (s[i] === '\\') i += 2;
    else if (s[i] === '"') return i + 1;
    else i++;
  }
  return s.length;
}

/** How deep a metadata document nests when that is deeper than MAX_JSON_DEPTH (then it is not rewritten), else undefined. One scan; none for a short text. */
export function metadataTooDeep(text: string): number | undefined {
  return exceedsDepth(text, MAX_JSON_DEPTH) ? jsonTextDepth(text) : undefined;
}

/** A JSON string literal (valid JSON has no `"` outside string literals). */
const JSON_STRING = /"(?:[^"\\]|\\.)*"/g;

/**
 * Maps every string VALUE of a JSON object document that is exactly an absolute URL on the
 * upstream's origin. Keys are never touched; every byte outside the rewritten literals is kept.
 * Returns null when the text is not a JSON object or nothing changed.
 */
export function rewriteMetadataJson(text: string, map: UrlMapper): { text: string; rewrites: ValueRewrite[] } | null {
  if (metadataTooDeep(text) !== undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const rewrites: ValueRewrite[] = [];
  let out = '';
  let copied = 0;
  for (const m of text.matchAll(JSON_STRING)) {
    const start = m.index;
    const end = start + m[0].length;
    let k = end;
    while (k < text.length && /\s/.test(text[k])) k++;
    if (text[k] === ':') continue; // a key
    let value: string;
    try {
      value = JSON.parse(m[0]) as string;
    } catch {
      continue;
    }
    const after = safeMap(map, value);
    if (after === null) continue;
    out += text.slice(copied, start) + JSON.stringify(after);
    copied = end;
    rewrites.push({ before: value, after });
  }
  if (rewrites.length === 0) return null;
  return { text: out + text.slice(copied), rewrites };
}
