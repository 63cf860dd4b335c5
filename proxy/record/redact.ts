/**
 * Secret redaction, applied before anything reaches the store (and so the feed, the UI and every
 * export). Pure functions. The original bytes are still forwarded untouched; only the copy that
 * mcpscope keeps is redacted.
 */
import type { HeaderMap } from '../capture/wire-records.js';

export const REDACTED = '[redacted]';

const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'dpop',
  'x-api-key',
  'api-key',
  'x-auth-token',
  'x-mcpscope-token',
]);

/**
 * JSON object keys whose values are credentials (OAuth token-endpoint fields and common API keys).
 * Not `code` on its own: in JSON it is far more often a tool argument (code to run) than an OAuth
 * code, which travels in query strings and form bodies (redacted there, see SECRET_QUERY) — see isOAuthCode.
 */
const SECRET_KEYS = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'code_verifier',
  'client_secret',
  'client_assertion',
  // token exchange (RFC 8693), device grant (RFC 8628), client registration management (RFC 7592)
  'subject_token',
  'actor_token',
  'device_code',
  'registration_access_token',
  'password',
  'api_key',
  'apiKey',
  'authorization',
]);

/**
 * Keys that are credentials only inside an OAuth token request (beside `grant_type`): `code` (see
 * isOAuthCode) and `assertion` (the JWT of the jwt-bearer grant, RFC 7523, and of cross-app
 * access), both common words in tool arguments.
 */
const GRANT_KEYS = new Set(['code', 'assertion']);

/** Private members of a JWK (RFC 7518 §6): a JWKS should never hold them, and if one does they must not be kept. */
const JWK_PRIVATE = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth']);

/** Query parameters that carry credentials. */
const SECRET_QUERY = new Set([
  'code',
  'state',
  'access_token',
  'refresh_token',
  'token',
  'id_token',
  'client_secret',
  'api_key',
  // token-endpoint form fields (the same redactor reads form bodies)
  'code_verifier',
  'client_assertion',
  'assertion',
  'subject_token',
  'actor_token',
  'device_code',
  'password',
]);

/** `?code=…` / `&state=…` (any SECRET_QUERY name) inside free text; the value runs to the next delimiter. */
const QUERY_SECRET_IN_TEXT = new RegExp(`([?&])(${[...SECRET_QUERY].join('|')})=(?!\\[redacted\\])[^&#\\s"'<>\\\\]+`, 'g');

export interface Redactor {
  headers(headers: HeaderMap): Record<string, string | string[]>;
  url(url: string): string;
  /** Returns the same object when nothing had to change (cheap common case). */
  json<T>(value: T): T;
  /** Replaces every occurrence of known secrets (e.g. the proxy token) in free text. */
  text(text: string): string;
  readonly enabled: boolean;
}

function authScheme(value: string): string {
  const space = value.indexOf(' ');
  return space > 0 ? `${value.slice(0, space)} ${REDACTED}` : REDACTED;
}

export function createRedactor(options: { showSecrets?: boolean; extraSecrets?: string[] } = {}): Redactor {
  const enabled = !options.showSecrets;
  const secrets = (options.extraSecrets ?? []).filter((s) => s.length >= 8);

  function text(t: string): string {
    let out = t;
    for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
    // URLs quoted in free text (a redirect page's "Redirecting to …?code=…", a log line): their credential query parameters too.
    if (enabled && (out.includes('?') || out.includes('&'))) out = out.replace(QUERY_SECRET_IN_TEXT, (_m, lead: string, name: string) => `${lead}${name}=${REDACTED}`);
    return out;
  }

  function url(u: string): string {
    // mcpscope's own token is hidden even with --show-secrets: it guards mcpscope, not the traffic.
    if (!enabled) return text(u);
    const q = u.indexOf('?');
    if (q < 0) return text(u);
    const params = u.slice(q + 1).split('&');
    let changed = false;
    const next = params.map((p) => {
      const eq = p.indexOf('=');
      const name = decodeSafe(eq >= 0 ? p.slice(0, eq) : p);
      if (eq >= 0 && SECRET_QUERY.has(name)) {
        changed = true;
        return `${p.slice(0, eq)}=${REDACTED}`;
      }
      return p;
    });
    return text(changed ? `${u.slice(0, q)}?${next.join('&')}` : u);
  }

  function headers(h: HeaderMap): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const name in h) {
      const value = h[name];
      if (value === undefined || !Object.prototype.hasOwnProperty.call(h, name)) continue;
      const lower = name.toLowerCase();
      if (enabled && SECRET_HEADERS.has(lower)) {
        out[lower] = Array.isArray(value)
          ? value.map(() => REDACTED)
          : lower === 'authorization' || lower === 'proxy-authorization'
            ? authScheme(value)
            : REDACTED;
      } else if (enabled && (lower === 'location' || lower === 'referer')) {
        out[lower] = Array.isArray(value) ? value.map(url) : url(value);
      } else {
        out[lower] = Array.isArray(value) ? value.map(text) : text(value);
      }
    }
    return out;
  }

  function json<T>(value: T): T {
    if (!enabled && secrets.length === 0) return value;
    return redactValue(value, 0) as T;
  }

  function redactValue(value: unknown, depth: number): unknown {
    if (depth > 64) return value;
    if (typeof value === 'string') return secrets.length ? text(value) : value;
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const r = redactValue(value[i], depth + 1);
        if (r !== value[i]) (copy ??= value.slice())[i] = r;
      }
      return copy ?? value;
    }
    if (value && typeof value === 'object') {
      let copy: Record<string, unknown> | undefined;
      const o = value as Record<string, unknown>;
      // for…in, not Object.entries: no pair arrays for every key of every message (own keys only).
      for (const k in o) {
        if (!Object.prototype.hasOwnProperty.call(o, k)) continue;
        const v = o[k];
        let r: unknown;
        if (enabled && ((SECRET_KEYS.has(k) && (typeof v === 'string' || typeof v === 'number')) || (k.length <= HELD_KEY_MAX && isHeldSecret(k, v, o)))) r = REDACTED;
        else r = redactValue(v, depth + 1);
        if (r !== v) (copy ??= { ...(value as Record<string, unknown>) })[k] = r;
      }
      return copy ?? value;
    }
    return value;
  }

  return { headers, url, json, text, enabled };
}

/** The longest key isHeldSecret can match: a cheap length check skips it for every longer key. */
const HELD_KEY_MAX = Math.max(...[...GRANT_KEYS, ...JWK_PRIVATE].map((k) => k.length));

/** A secret by where it sits: an OAuth `code`/`assertion` in a token request, a private member of a JWK. */
function isHeldSecret(key: string, v: unknown, holder: Record<string, unknown>): boolean {
  if (GRANT_KEYS.has(key)) return typeof v === 'string' && (key === 'code' ? isOAuthCode(holder) : 'grant_type' in holder);
  // Any value: `oth` (RSA's other primes) is an array of objects holding private members.
  return JWK_PRIVATE.has(key) && typeof holder.kty === 'string' && v !== undefined && v !== null;
}

/** An authorization `code` in a JSON token request (it sits beside grant_type / redirect_uri / code_verifier). */
function isOAuthCode(h: Record<string, unknown>): boolean {
  return 'grant_type' in h || 'redirect_uri' in h || 'code_verifier' in h;
}

/** `"access_token": "…"` and the like (any SECRET_KEYS name, quoted string value) in text that may be cut-off JSON. */
const JSON_SECRET_IN_TEXT = new RegExp(`("(?:${[...SECRET_KEYS].join('|')})"\\s*:\\s*)"(?!\\[redacted\\]")(?:[^"\\\\]|\\\\.)*"?`, 'g');

/**
 * Credential fields of JSON that could not be parsed (a preview cut at its size limit): their
 * string values are replaced by pattern. For text that parses, use `Redactor.json`.
 */
export function redactJsonFields(text: string): string {
  return text.includes('"') ? text.replace(JSON_SECRET_IN_TEXT, (_m, lead: string) => `${lead}"${REDACTED}"`) : text;
}

/** Free text that may be a JSON document (an OAuth token response, a non-JSON-RPC frame): its credential fields go too. */
export function redactLooseText(text: string, r: Redactor): string {
  if (/^\s*[[{]/.test(text)) {
    try {
      const value: unknown = JSON.parse(text);
      const redacted = r.json(value);
      if (redacted !== value) return r.text(JSON.stringify(redacted));
    } catch {
      // Not JSON, or JSON cut short (a preview at its size limit): its credential fields by pattern.
      if (r.enabled) return r.text(redactJsonFields(text));
    }
  }
  return r.text(text);
}

/** A body preview: form bodies have their credential fields redacted like a query string. */
export function redactPreview(text: string, mediaType: string | undefined, r: Redactor): string {
  if (mediaType === 'application/x-www-form-urlencoded') return r.url(`?${text}`).slice(1);
  return redactLooseText(text, r);
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
