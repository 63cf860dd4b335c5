/**
 * Credentials in free text: hints, log lines, stderr, problem prefixes (malformed JSON, a frame
 * past --max-body, broken JSON inside SSE), previews, command lines. Text that may be JSON cut
 * short, a form, a query, a command line or a log line: each detector below is tolerant (no parse)
 * and case-insensitive on names, and runs only when its trigger character is present.
 *
 *   "accessToken": "…"   `\"password\":\"…\"` (JSON inside a JSON string)   an unterminated value
 *   ?key=…  &sig=…  access_token=…&…   API_KEY=…   --token X  --api-key=X
 *   Authorization: Bearer …   X-Api-Key: …   Bearer <token>   scheme://user:PASS@host
 *   and known token formats (redact-tokens.ts).
 */
import {
  GRANT_KEYS,
  isSecretFlag,
  isSecretHeader,
  isSecretKey,
  isSecretName,
  isSecretQueryName,
  JWK_PRIVATE,
  normaliseName,
} from './redact-vocab.js';
import { REDACTED, redactKnownTokens } from './redact-tokens.js';

/** The free-text redaction: every detector, then known token formats. */
export function redactFreeText(text: string): string {
  if (text.length < 8) return text;
  let out = text;
  if (out.includes('://')) out = redactUserinfo(out);
  // Every credential name of the vocabulary holds one of these words: without one, no name can match.
  if (NAME_WORDS.test(out)) {
    if (out.includes('"')) out = redactJsonPairs(out);
    if (out.includes('=')) out = redactAssignments(out);
    if (out.includes('--')) out = redactFlags(out);
    if (out.includes(':')) out = redactHeaderLines(out);
  }
  if (/bearer/i.test(out)) out = out.replace(BEARER, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  return redactKnownTokens(out);
}

/**
 * A word every name that redact-vocab.ts (or the JSON pair scan's context rules) can match holds:
 * a cheap gate before the name-based detectors (test/unit/redact-text.test.ts checks it against
 * the vocabulary's names).
 */
export const NAME_WORDS = /token|secret|pass|pw|key|auth|bearer|cookie|credential|creds|dpop|code|assertion|connection|kty|state|sig/i;

// ------------------------------------------------------------------------------ URL userinfo

const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:"'<>[\]\\]*):(?!\[redacted\]@)([^\s/?#@"'<>\\]+)@/gi;

/** `https://user:pass@host` → `https://user:[redacted]@host`. */
export function redactUserinfo(text: string): string {
  return text.includes('@') ? text.replace(USERINFO, (_m, scheme: string, user: string) => `${scheme}${user}:${REDACTED}@`) : text;
}

// ------------------------------------------------------------------------------ JSON pairs

/** A quoted key (at any escape level: `"k"`, `\"k\"`) and the colon after it. */
const JSON_KEY = /(\\*)"([^"\\\r\n]{1,80})(\\*)"[ \t\r\n]*:[ \t\r\n]*/g;

/**
 * `"key": value` pairs in text that may be JSON cut short or JSON quoted inside a string: a value
 * (string, possibly unterminated, or number) of a credential key becomes `"[redacted]"`.
 * Context-bound OAuth/JWK keys count only when the text holds their context: `code`/`assertion`
 * beside a `grant_type`, a JWK's private members beside a `kty`.
 */
export function redactJsonPairs(text: string): string {
  if (!text.includes(':')) return text;
  const grant = text.includes('grant_type') || text.includes('redirect_uri') || text.includes('code_verifier');
  const jwk = text.includes('kty');
  let out = '';
  let at = 0;
  JSON_KEY.lastIndex = 0;
  for (let m = JSON_KEY.exec(text); m; m = JSON_KEY.exec(text)) {
    const level = m[1].length;
    if (m[3].length !== level) continue;
    const key = m[2];
    if (!(isSecretKey(key) || (grant && GRANT_KEYS.has(key)) || (jwk && JWK_PRIVATE.has(key)))) continue;
    const start = JSON_KEY.lastIndex;
    const end = valueEnd(text, start, level);
    if (end < 0) continue;
    const esc = '\\'.repeat(level);
    if (text.startsWith(`${esc}"${REDACTED}${esc}"`, start)) continue;
    out += text.slice(at, start) + `${esc}"${REDACTED}${esc}"`;
    at = end;
    // In broken JSON the quote that closed this value may really open the next key
    // (`{"password":"x, "token":"SECRET"}`): the search goes on from that quote.
    JSON_KEY.lastIndex = text.charCodeAt(end - 1) === 34 /* " */ ? end - 1 : end;
  }
  return at === 0 ? text : out + text.slice(at);
}

/** End (exclusive) of a string or number value starting at `i`, at escape level `level`; -1 when it is neither (an object, an array). */
function valueEnd(text: string, i: number, level: number): number {
  const quote = '\\'.repeat(level) + '"';
  if (text.startsWith(quote, i)) {
    for (let j = i + quote.length; j < text.length; j++) {
      const c = text.charCodeAt(j);
      // A JSON string never holds a raw line break: an unterminated value ends at one (the next line may hold the next pair).
      if (c === 10 || c === 13) return j;
      if (c !== 34 /* " */) continue;
      let b = 0;
      while (j - b - 1 >= 0 && text.charCodeAt(j - b - 1) === 92 /* \ */) b++;
      if (level === 0 ? b % 2 === 0 : b === level) return j + 1;
    }
    return text.length; // cut short: the value runs to the end
  }
  const num = /^-?\d[\d.eE+-]*/.exec(text.slice(i, i + 64));
  return num ? i + num[0].length : -1;
}

// ------------------------------------------------------------------------------ name=value

/**
 * `name=value` in a query (`?`/`&` before it: query names, `code`/`state`/`key`/`sig` included),
 * or at the start of text, a line or after a space or separator (forms, env-style `API_KEY=…`,
 * log fields `password=…`: credential names only).
 */
const ASSIGNMENT = /(^|[?&\s;,([{'"])([A-Za-z_][\w.\-[\]]{0,79})=(?!\[redacted\])([^&#\s"'<>\\,;)]+)/g;

export function redactAssignments(text: string): string {
  return text.replace(ASSIGNMENT, (m, lead: string, name: string) => {
    const secret = lead === '?' || lead === '&' ? isSecretQueryName(decodeSafe(name)) : isSecretName(normaliseName(name));
    return secret ? `${lead}${name}=${REDACTED}` : m;
  });
}

// ------------------------------------------------------------------------------ command-line flags

/** `--token X`, `--api-key 'X'`, `--password=X` (the `=` form also as an assignment above). */
const FLAG = /(^|\s)(--[A-Za-z][\w-]*)(=|[ \t]+)(?!-)(?!\[redacted\])('(?:[^']|'\\'')*'|"(?:[^"\\]|\\.)*"|[^\s'"]+)/g;

export function redactFlags(text: string): string {
  return text.replace(FLAG, (m, lead: string, flag: string, sep: string) => (isSecretFlag(flag) ? `${lead}${flag}${sep}${REDACTED}` : m));
}

// ------------------------------------------------------------------------------ header lines

/** `Authorization: Bearer …`, `X-Api-Key: …`, `password: …` in a log line or a curl `-H` argument. */
const HEADER_LINE =
  /(^|[\s'"{,;(])([A-Za-z][A-Za-z0-9_-]{1,63})[ \t]*:[ \t]*(?![\s/]|\[redacted\])(?:(Bearer|Basic|Digest|DPoP|Token|Negotiate|NTLM|ApiKey|Key)[ \t]+(?!\[redacted\]))?("(?:[^"\\\r\n]|\\.)*"|'[^'\r\n]*'|[^\s'",;]+)/gi;

export function redactHeaderLines(text: string): string {
  return text.replace(HEADER_LINE, (m, lead: string, name: string, scheme: string | undefined, value: string) => {
    // isSecretHeader covers every name isSecretName does (its last test is that one).
    if (!isSecretHeader(name.toLowerCase())) return m;
    return `${lead}${name}: ${scheme !== undefined ? `${scheme} ` : ''}${value.startsWith('"') ? `"${REDACTED}"` : REDACTED}`;
  });
}

// ------------------------------------------------------------------------------ bearer tokens

/** `Bearer <token>` anywhere (a token has a digit and 16+ characters: "Bearer authentication" stays). */
const BEARER = /\b(Bearer)[ \t]+(?=[A-Za-z0-9\-._~+/]*\d)[A-Za-z0-9\-._~+/]{16,}=*/gi;

/** `decodeURIComponent`, or the text as it is when it is not valid percent-encoding. */
export function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
