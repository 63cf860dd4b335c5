/**
 * Secret redaction, applied before anything reaches the store (and so the feed, the UI and every
 * export, and the `--record` file). Pure functions. The original bytes are still forwarded
 * untouched; only the copy that mcpscope keeps is redacted. docs/security.md lists what goes.
 *
 * One mechanism for every sink: `Redactor.text` for any free text (redact-text.ts: JSON pairs in
 * cut-off JSON, forms, queries, flags, header lines, URL userinfo, known token formats via
 * secretlint in redact-tokens.ts), `json` for parsed values (credential keys by name, any case;
 * every string value through `text`), `headers`, `url`. The vocabulary is in redact-vocab.ts.
 */
import type { HeaderMap } from '../../wire/capture/wire-records.js';
import { GRANT_KEYS, isSecretFlag, isSecretHeader, isSecretKey, isSecretQueryName, JWK_PRIVATE, keepsScheme } from './redact-vocab.js';
import { decodeSafe, redactFreeText } from './redact-text.js';
import { REDACTED } from './redact-tokens.js';
import { mayBeJson } from '../record-helpers.js';

export { REDACTED };

export interface Redactor {
  headers(headers: HeaderMap): Record<string, string | string[]>;
  url(url: string): string;
  /** Returns the same object when nothing had to change (cheap common case). */
  json<T>(value: T): T;
  /** Credentials in free text (and known secrets such as the proxy token, always). */
  text(text: string): string;
  /**
   * The exact text of a JSON value that `json` returned unchanged: every string in it and every
   * credential key were checked already, so only the known secrets (the proxy token, which may
   * also sit in a key) are replaced. Cheaper than `text` on a whole frame.
   */
  exact(text: string): string;
  readonly enabled: boolean;
}

function authScheme(value: string): string {
  const space = value.indexOf(' ');
  return space > 0 ? `${value.slice(0, space)} ${REDACTED}` : REDACTED;
}

export function createRedactor(options: { showSecrets?: boolean; extraSecrets?: string[] } = {}): Redactor {
  const enabled = !options.showSecrets;
  const secrets = (options.extraSecrets ?? []).filter((s) => s.length >= 8);

  function exact(t: string): string {
    let out = t;
    for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out;
  }

  function text(t: string): string {
    const out = exact(t);
    return enabled ? redactFreeText(out) : out;
  }

  function url(u: string): string {
    // mcpscope's own token is hidden even with --show-secrets: it guards mcpscope, not the traffic.
    if (!enabled) return text(u);
    const q = u.indexOf('?');
    const h = u.indexOf('#', q < 0 ? 0 : q);
    if (q < 0) return text(u);
    const end = h < 0 ? u.length : h;
    const params = u.slice(q + 1, end).split('&');
    let changed = false;
    const next = params.map((p) => {
      const eq = p.indexOf('=');
      if (eq >= 0 && isSecretQueryName(decodeSafe(p.slice(0, eq))) && p.slice(eq + 1) !== REDACTED) {
        changed = true;
        return `${p.slice(0, eq)}=${REDACTED}`;
      }
      return p;
    });
    return text(changed ? `${u.slice(0, q)}?${next.join('&')}${u.slice(end)}` : u);
  }

  function headers(h: HeaderMap): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const name in h) {
      const value = h[name];
      if (value === undefined || !Object.prototype.hasOwnProperty.call(h, name)) continue;
      const lower = name.toLowerCase();
      if (enabled && isSecretHeader(lower)) {
        out[lower] = Array.isArray(value) ? value.map(() => REDACTED) : keepsScheme(lower) ? authScheme(value) : REDACTED;
      } else if (enabled && (lower === 'location' || lower === 'referer' || lower === 'content-location')) {
        out[lower] = Array.isArray(value) ? value.map(url) : url(value);
      } else {
        out[lower] = Array.isArray(value) ? value.map(text) : text(value);
      }
    }
    return out;
  }

  function json<T>(value: T): T {
    if (!enabled && secrets.length === 0) return value;
    return redactTree(value, enabled, text) as T;
  }

  return { headers, url, json, text, exact, enabled };
}

/** One open container of the walk. */
interface Frame {
  src: Record<string, unknown> | unknown[];
  keys: string[] | undefined;
  i: number;
  copy: Record<string, unknown> | unknown[] | undefined;
  parent: Frame | undefined;
  key: string | number;
}

/**
 * The redaction walk: iterative (an explicit stack), so a tree of any depth is covered in full
 * (no recursion limit, no stack overflow). Copy-on-write: containers that did not change are
 * returned as they are, so an untouched message is the same object.
 */
function redactTree(root: unknown, enabled: boolean, text: (s: string) => string): unknown {
  if (typeof root === 'string') return text(root);
  if (!root || typeof root !== 'object') return root;
  const open = (src: Record<string, unknown> | unknown[], parent: Frame | undefined, key: string | number): Frame => ({
    src,
    keys: Array.isArray(src) ? undefined : Object.keys(src),
    i: 0,
    copy: undefined,
    parent,
    key,
  });
  const set = (f: Frame, k: string | number, v: unknown): void => {
    f.copy ??= Array.isArray(f.src) ? f.src.slice() : { ...f.src };
    (f.copy as Record<string | number, unknown>)[k] = v;
  };
  let f: Frame | undefined = open(root as Record<string, unknown>, undefined, 0);
  let result: unknown = root;
  while (f) {
    const n: number = f.keys ? f.keys.length : (f.src as unknown[]).length;
    if (f.i >= n) {
      const done: unknown = f.copy ?? f.src;
      if (f.parent) {
        if (f.copy) set(f.parent, f.key, done);
      } else result = done;
      f = f.parent;
      continue;
    }
    const k: string | number = f.keys ? f.keys[f.i] : f.i;
    f.i++;
    const holder = f.src as Record<string | number, unknown>;
    const v = holder[k];
    if (enabled && typeof k === 'string' && isSecretField(k, v, holder as Record<string, unknown>)) {
      set(f, k, REDACTED);
    } else if (typeof v === 'string') {
      const r = text(v);
      if (r !== v) set(f, k, r);
    } else if (v !== null && typeof v === 'object') {
      f = open(v as Record<string, unknown>, f, k);
    }
  }
  return result;
}

/** A key whose value is a credential: by name (any case or separator), or by where it sits (an OAuth `code`, a JWK's private members). */
function isSecretField(key: string, v: unknown, holder: Record<string, unknown>): boolean {
  if ((typeof v === 'string' || typeof v === 'number') && isSecretKey(key)) return v !== REDACTED;
  return key.length <= HELD_KEY_MAX && isHeldSecret(key, v, holder);
}

/** The longest key isHeldSecret can match: a cheap length check skips it for every longer key. */
const HELD_KEY_MAX = Math.max(...[...GRANT_KEYS, ...JWK_PRIVATE].map((k) => k.length));

/** A secret by where it sits: an OAuth `code`/`assertion` in a token request, a private member of a JWK. */
function isHeldSecret(key: string, v: unknown, holder: Record<string, unknown>): boolean {
  if (GRANT_KEYS.has(key))
    return typeof v === 'string' && v !== REDACTED && (key === 'code' ? isOAuthCode(holder) : 'grant_type' in holder);
  // Any value: `oth` (RSA's other primes) is an array of objects holding private members.
  return JWK_PRIVATE.has(key) && typeof holder.kty === 'string' && v !== undefined && v !== null && v !== REDACTED;
}

/** An authorization `code` in a JSON token request (it sits beside grant_type / redirect_uri / code_verifier). */
function isOAuthCode(h: Record<string, unknown>): boolean {
  return 'grant_type' in h || 'redirect_uri' in h || 'code_verifier' in h;
}

/** Free text that may be a JSON document (an OAuth token response, a non-JSON-RPC frame): its credential fields go too. */
export function redactLooseText(text: string, r: Redactor): string {
  if (mayBeJson(text)) {
    try {
      const value: unknown = JSON.parse(text);
      const redacted = r.json(value);
      if (redacted !== value) return r.text(JSON.stringify(redacted));
    } catch {
      // Not JSON, or JSON cut short: r.text finds its credential fields by scanning.
    }
  }
  return r.text(text);
}

/** A body preview: form bodies have their credential fields redacted like a query string; any other type as loose text (forms and JSON found there too). */
export function redactPreview(text: string, mediaType: string | undefined, r: Redactor): string {
  if (mediaType === 'application/x-www-form-urlencoded') return r.url(`?${text}`).slice(1);
  return redactLooseText(text, r);
}

/** Always-on redaction for mcpscope's own output (stderr lines, the session's target). */
const always = createRedactor();

/**
 * A URL for display or keeping (the `--target` URL in the session, on stderr, in `ui-<port>.json`):
 * userinfo password and credential query parameters redacted.
 */
export function redactUrl(url: string): string {
  return always.url(url);
}

/**
 * A command line for display (a stdio session's target, the wrapper's stderr): secret flags
 * (`--api-key=X`, `--token X`), env-style `API_KEY=X` arguments, `-H 'Authorization: …'`, URL
 * userinfo and known token formats, argument by argument.
 */
export function redactArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq < 0 && i + 1 < args.length && !args[i + 1].startsWith('-') && isSecretFlag(a)) {
      out.push(a, REDACTED);
      i++;
      continue;
    }
    if (a.startsWith('-') && eq > 0 && isSecretFlag(a.slice(0, eq))) {
      out.push(`${a.slice(0, eq)}=${REDACTED}`);
      continue;
    }
    out.push(always.text(a));
  }
  return out;
}
