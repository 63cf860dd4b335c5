/**
 * The credential vocabulary of redaction (docs/security.md lists it): which JSON keys, header
 * names, query/form names and command-line flags carry secrets. Pure, no I/O.
 *
 * Names are compared normalised: lowercased, with `_`, `-`, `.` and spaces removed, so
 * `access_token`, `accessToken`, `Access-Token` and `ACCESS_TOKEN` are one name (`accesstoken`).
 *
 * What is deliberately NOT a credential (tests in test/unit/redact-vocab.test.ts):
 * - MCP's own words: `progressToken`, `cursor`/`nextCursor`, `maxTokens`/`totalTokens`/any
 *   `…Tokens` count, `token_type`, `token_endpoint…` metadata, tool arguments named `code` or `key`;
 * - pagination tokens (`pageToken`, `nextPageToken`, `nextToken`, `continuationToken`);
 * - `Mcp-Session-Id`: in MCP's model a session id routes messages, it does not authenticate
 *   (servers must not use it as a credential); `--hash-session-ids` hides it when sharing.
 */

/** `access_token` → `accesstoken`. */
export function normaliseName(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]/g, '');
}

/** Whole normalised names that are credentials wherever they appear (JSON keys, query, form, flags, env, headers). */
const SECRET_NAMES = new Set([
  // OAuth 2.x (RFC 6749, 7523, 7591/7592, 8628, 8693, 9449)
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'codeverifier',
  'clientsecret',
  'clientassertion',
  'subjecttoken',
  'actortoken',
  'devicecode',
  'registrationaccesstoken',
  'dpop',
  // passwords and keys
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'apikey',
  'xapikey',
  'apitoken',
  'apisecret',
  'secret',
  'token',
  'authtoken',
  'bearertoken',
  'authorization',
  'proxyauthorization',
  'authentication',
  'cookie',
  'setcookie',
  'credential',
  'credentials',
  'privatekey',
  'secretkey',
  'secretaccesskey',
  'awssecretaccesskey',
  'sessiontoken',
  'securitytoken',
  'xamzsecuritytoken',
  'xgoogapikey',
  'privatetoken',
  'connectionstring',
  'mcpscopetoken',
]);

/** Endings that make a normalised name a credential (`githubToken`, `dbPassword`, `stripeApiKey`, `webhookSecret`). */
const SECRET_ENDINGS = [
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'apikey',
  'secretkey',
  'privatekey',
  'accesskey',
  'signingkey',
  'encryptionkey',
  'masterkey',
  'accountkey',
  'authkey',
  'credential',
  'credentials',
];

/** Names with a credential ending that are not credentials (MCP vocabulary, pagination). */
const NOT_SECRET = new Set([
  'progresstoken',
  'pagetoken',
  'nextpagetoken',
  'prevpagetoken',
  'previouspagetoken',
  'nexttoken',
  'continuationtoken',
  'resumetoken',
  'resumptiontoken',
  'cancellationtoken',
  'synctoken',
  'csrfparamtoken',
  'maxtoken',
  'hassecret',
  'issecret',
  'usesecret',
  'nosecret',
]);

/** A normalised name that holds a credential (JSON key, form field, env variable, flag). */
export function isSecretName(normalised: string): boolean {
  if (SECRET_NAMES.has(normalised)) return true;
  if (NOT_SECRET.has(normalised)) return false;
  for (const end of SECRET_ENDINGS) if (normalised.endsWith(end)) return true;
  return false;
}

const keyCache = new Map<string, boolean>();

/** A JSON object key whose string or number value is a credential (cached: message keys repeat). */
export function isSecretKey(key: string): boolean {
  let hit = keyCache.get(key);
  if (hit === undefined) {
    hit = key.length <= 80 && isSecretName(normaliseName(key));
    if (keyCache.size > 4096) keyCache.clear();
    keyCache.set(key, hit);
  }
  return hit;
}

/**
 * Query parameters and form fields: every secret name, and the ones that are credentials in a URL
 * only — an OAuth `code` and `state`, an `assertion`, a Google-style `key`, signed-URL signatures
 * (`sig`, `signature`, `X-Amz-Signature`, `X-Goog-Signature`) and credentials (`X-Amz-Credential`).
 */
const QUERY_ONLY = new Set([
  'code',
  'state',
  'assertion',
  'key',
  'sig',
  'signature',
  'xamzsignature',
  'xamzcredential',
  'xgoogsignature',
  'xgoogcredential',
  'auth',
  'pass',
  'pw',
]);

export function isSecretQueryName(name: string): boolean {
  const n = normaliseName(name);
  return QUERY_ONLY.has(n) || isSecretName(n);
}

/** Command-line flags (`--api-key X`, `--token=X`, `--password X`, `--key X`, `--pass X`, `--auth X`). */
const FLAG_ONLY = new Set(['key', 'pass', 'pw', 'auth', 'bearer', 'creds', 'sig', 'signature']);

export function isSecretFlag(flag: string): boolean {
  const n = normaliseName(flag.replace(/^-+/, ''));
  return FLAG_ONLY.has(n) || isSecretName(n);
}

/**
 * Header names, lowercased. Named ones, then by shape: `*-api-key`, `*-token`, `*-secret`,
 * `*-password`, `*-credential(s)`, `*-authorization`, `*-cookie`, `x-*-key` (but not
 * `x-idempotency-key`), and every name `isSecretName` matches. Not: `Mcp-Session-Id`,
 * `Last-Event-ID`, `WWW-Authenticate` (a challenge names the realm and metadata, no credential).
 */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'authentication',
  'cookie',
  'set-cookie',
  'dpop',
  'apikey',
  'api-key',
  'x-api-key',
  'x-apikey',
  'x-auth',
  'x-auth-token',
  'x-mcpscope-token',
  'x-goog-api-key',
  'private-token',
  'x-access-token',
  'x-amz-security-token',
  'openai-api-key',
  'anthropic-api-key',
  'x-github-token',
  'x-functions-key',
  'ocp-apim-subscription-key',
  'x-csrf-token',
  'x-xsrf-token',
  'x-hub-signature',
  'x-hub-signature-256',
]);
const NOT_SECRET_HEADERS = new Set(['x-idempotency-key', 'idempotency-key', 'sec-websocket-key', 'mcp-session-id']);

const headerCache = new Map<string, boolean>();

export function isSecretHeader(lower: string): boolean {
  let hit = headerCache.get(lower);
  if (hit === undefined) {
    hit =
      SECRET_HEADERS.has(lower) ||
      (!NOT_SECRET_HEADERS.has(lower) &&
        (/(?:^|-)(?:api-?key|token|secret|password|credentials?|authorization|cookie)$/.test(lower) ||
          /^x-.+-key$/.test(lower) ||
          isSecretName(normaliseName(lower))));
    if (headerCache.size > 1024) headerCache.clear();
    headerCache.set(lower, hit);
  }
  return hit;
}

/** Headers whose value starts with an auth scheme worth keeping (`Bearer [redacted]`). */
export function keepsScheme(lower: string): boolean {
  return lower.endsWith('authorization') || lower === 'authentication';
}

/**
 * Keys that are credentials only inside an OAuth token request (beside `grant_type`): `code` (an
 * authorization code) and `assertion` (the JWT of the jwt-bearer grant, RFC 7523, and of
 * cross-app access), both common words in tool arguments.
 */
export const GRANT_KEYS: ReadonlySet<string> = new Set(['code', 'assertion']);

/** Private members of a JWK (RFC 7518 §6): a JWKS should never hold them, and if one does they must not be kept. */
export const JWK_PRIVATE: ReadonlySet<string> = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth']);

/** Every name and ending above (docs and the test that the free-text gate NAME_WORDS covers them all). */
export function vocabularyNames(): string[] {
  return [...SECRET_NAMES, ...SECRET_ENDINGS, ...QUERY_ONLY, ...FLAG_ONLY, ...SECRET_HEADERS];
}
