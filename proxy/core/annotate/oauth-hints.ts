/**
 * Plain-language hints for plain HTTP exchanges (not MCP): OAuth discovery and metadata, client
 * registration, token and authorization requests, JWKS, client ID metadata documents, and a
 * short note for any other HTTP. See proxy/recorder/plain-http.ts for what makes an exchange plain.
 *
 * Pure and I/O-free (also bundled into the browser UI). Never throws. The bodies come in as the
 * peers sent them: hints quote only fields that are not credentials (grant_type, resource, scope,
 * issuer, endpoints, client_id, client_name, error codes), and the recorder runs the texts through
 * the redactor as well.
 */
import type { Hint } from '../model/events.js';
import { challengeHints, clip, type Headers } from './http-hints.js';
import { headerValue } from '../model/headers.js';

export interface PlainHttpInput {
  method: string;
  /** Path and query as the client sent it (redacted). */
  url: string;
  requestType?: string;
  /** Redacted. */
  requestHeaders?: Headers;
  /** A form body's fields. */
  form?: Record<string, string>;
  /** A JSON request body. */
  requestJson?: unknown;
  status?: number;
  responseType?: string;
  /** Redacted (a Location's code and state are). */
  responseHeaders?: Headers;
  /** A JSON response body, once it ended. */
  responseJson?: unknown;
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';

/** What each grant type does, in words. */
const GRANTS: Record<string, string> = {
  authorization_code: 'the authorization code and its PKCE code_verifier are traded for tokens',
  refresh_token: 'a refresh token is traded for a new access token',
  client_credentials: 'the client asks for a token for itself, no user involved',
  [JWT_BEARER]: 'a signed JWT assertion (RFC 7523; also the last step of cross-app access) is traded for an access token',
  [TOKEN_EXCHANGE]: 'token exchange (RFC 8693): the subject_token is traded for a token for another audience',
  [DEVICE_CODE]: 'device authorization grant (RFC 8628): the device polls for the tokens its user approved',
  password: "the resource owner's password grant, which OAuth 2.1 removes",
};

/** OAuth error codes (RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2, RFC 8628, RFC 8707, RFC 9449, RFC 6750) in words. */
const ERRORS: Record<string, string> = {
  invalid_request: 'a required parameter is missing or repeated, or the request is malformed',
  invalid_client:
    'client authentication failed: an unknown client_id, a wrong secret, or an authentication method the server does not accept',
  invalid_grant:
    'the code, refresh token or assertion is invalid, expired, revoked or already used, or was issued to another client or redirect_uri (or the PKCE code_verifier does not match)',
  unauthorized_client: 'this client is not allowed to use this grant or response type',
  unsupported_grant_type: 'the authorization server does not support this grant type',
  unsupported_response_type: 'the authorization server does not support this response type',
  invalid_scope: 'the requested scope is invalid, unknown, or more than was granted',
  invalid_target:
    'the authorization server refused the `resource` (RFC 8707): it does not know that resource, or will not issue tokens for it to this client',
  access_denied: 'the user or the authorization server refused',
  server_error: 'the authorization server failed',
  temporarily_unavailable: 'the authorization server is overloaded or down for maintenance',
  authorization_pending: 'the user has not approved the device yet; the device keeps polling',
  slow_down: 'the device polls too often and must add 5 seconds to its interval',
  expired_token: 'the device code expired; the flow starts over',
  invalid_dpop_proof: 'the DPoP proof (RFC 9449) is missing or invalid',
  use_dpop_nonce: 'the server wants a DPoP nonce: retry with the one in the DPoP-Nonce header',
  invalid_token: 'the token is invalid, expired or revoked',
  insufficient_scope: 'the token lacks a scope this needs',
  invalid_redirect_uri: 'a redirect URI was refused (not allowed here, or neither https nor a loopback address)',
  invalid_client_metadata: 'a client metadata field is invalid or not allowed (grant_types, token_endpoint_auth_method, scope, …)',
  invalid_software_statement: 'the software statement is invalid',
  unapproved_software_statement: 'the software statement is not approved by this authorization server',
};

/** What an OAuth error code means, in words (undefined for codes OAuth does not define). */
export function oauthErrorMeaning(code: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(ERRORS, code) ? ERRORS[code] : undefined;
}

const info = (code: string, text: string): Hint => ({ level: 'info', code, text });
const warn = (code: string, text: string): Hint => ({ level: 'warn', code, text });

function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

const q = (s: string, max = 80) => JSON.stringify(clip(s, max));

/** The kind of exchange, from the request (and, for the ones only their answer tells, the response body). */
type Kind =
  | 'resource-metadata'
  | 'server-metadata'
  | 'openid-configuration'
  | 'well-known'
  | 'registration'
  | 'token'
  | 'authorize'
  | 'revocation'
  | 'introspection'
  | 'jwks'
  | 'client-metadata-document'
  | 'other';

function kindOf(input: PlainHttpInput, path: string, query: URLSearchParams): Kind {
  const method = input.method.toUpperCase();
  if (path.includes('/.well-known/oauth-protected-resource')) return 'resource-metadata';
  if (path.includes('/.well-known/oauth-authorization-server')) return 'server-metadata';
  if (path.includes('/.well-known/openid-configuration')) return 'openid-configuration';
  const body = obj(input.requestJson);
  if (method === 'POST' && (input.form?.grant_type !== undefined || str(body?.grant_type) !== undefined)) return 'token';
  if (method === 'POST' && /\/revoke$/.test(path)) return 'revocation';
  if (method === 'POST' && /\/introspect$/.test(path)) return 'introspection';
  if (
    method === 'POST' &&
    body &&
    ['redirect_uris', 'client_name', 'grant_types', 'token_endpoint_auth_method', 'software_statement'].some((k) => k in body)
  )
    return 'registration';
  if (method === 'GET' && (query.has('response_type') || /\/authorize$/.test(path))) return 'authorize';
  const res = obj(input.responseJson);
  if (res) {
    if (Array.isArray(res.keys) && res.keys.some((k) => typeof obj(k)?.kty === 'string')) return 'jwks';
    if (str(res.resource) && Array.isArray(res.authorization_servers)) return 'resource-metadata';
    if (str(res.issuer) && (str(res.token_endpoint) || str(res.authorization_endpoint))) return 'server-metadata';
    if (/^https?:\/\//.test(str(res.client_id) ?? '') && Array.isArray(res.redirect_uris)) return 'client-metadata-document';
  }
  if (/jwks(\.json)?$/.test(path)) return 'jwks';
  if (path.includes('/.well-known/')) return 'well-known';
  return 'other';
}

/** Hints for a plain HTTP exchange. Call again as it goes (request, response head, response end). Never throws. */
export function plainHttpHints(input: PlainHttpInput): Hint[] {
  try {
    return plainHttpHintsUnsafe(input);
  } catch {
    return [];
  }
}

function plainHttpHintsUnsafe(input: PlainHttpInput): Hint[] {
  const cut = input.url.search(/[?#]/);
  const path = (cut >= 0 ? input.url.slice(0, cut) : input.url).replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  const query = new URLSearchParams(cut >= 0 && input.url[cut] === '?' ? input.url.slice(cut + 1).split('#')[0] : '');
  const kind = kindOf(input, path, query);
  const status = input.status;
  const res = obj(input.responseJson);
  const ok = status !== undefined && status >= 200 && status < 300;
  const hints: Hint[] = [];

  switch (kind) {
    case 'resource-metadata':
      hints.push(...resourceMetadata(res, ok, status));
      break;
    case 'server-metadata':
    case 'openid-configuration':
      hints.push(...serverMetadata(kind, res, ok, status));
      break;
    case 'well-known':
      hints.push(info('well-known', 'A /.well-known/ document (RFC 8615): metadata about this site, not MCP.'));
      break;
    case 'registration':
      hints.push(...registration(input, res, ok));
      break;
    case 'token':
      hints.push(...tokenRequest(input, res, ok));
      break;
    case 'authorize':
      hints.push(...authorize(input, query, status));
      break;
    case 'revocation':
      hints.push(
        info('oauth-revocation', 'Token revocation (RFC 7009): the client tells the authorization server it is done with a token.'),
      );
      break;
    case 'introspection':
      hints.push(
        info(
          'oauth-introspection',
          'Token introspection (RFC 7662): a resource server asks the authorization server whether a token is active, and for what.',
        ),
      );
      break;
    case 'jwks':
      hints.push(...jwks(res));
      break;
    case 'client-metadata-document':
      hints.push(
        info(
          'oauth-client-metadata-document',
          `Client ID metadata document: this URL is the client's client_id; the authorization server fetches it to learn the client's name${str(res?.client_name) ? ` (${q(str(res?.client_name)!, 40)})` : ''} and redirect URIs.`,
        ),
      );
      break;
    default:
      hints.push(info('plain-http', 'Plain HTTP (not MCP): recorded, not parsed as JSON-RPC.'));
  }
  if (res && typeof res.error === 'string' && kind !== 'token' && kind !== 'registration' && !(status !== undefined && status < 400)) {
    hints.push(oauthError('oauth-error', 'Refused', res));
  }
  hints.push(...statusHints(input, kind));
  return hints;
}

function resourceMetadata(res: Record<string, unknown> | undefined, ok: boolean, status: number | undefined): Hint[] {
  if (status === 404) {
    return [
      info(
        'oauth-metadata-not-found',
        'No protected-resource metadata at this URL (404): a client that built it from the MCP URL tries the root /.well-known/oauth-protected-resource next.',
      ),
    ];
  }
  if (!ok || !res) {
    return [
      info(
        'oauth-resource-metadata',
        'OAuth protected-resource metadata (RFC 9728): the client asks which authorization servers protect this resource.',
      ),
    ];
  }
  const servers = strings(res.authorization_servers);
  const resource = str(res.resource);
  const scopes = strings(res.scopes_supported);
  const out = [
    info(
      'oauth-resource-metadata',
      `OAuth protected-resource metadata (RFC 9728): names the authorization server${servers.length === 1 ? '' : 's'} ${servers.map((s) => q(s, 60)).join(', ') || '(none)'} for resource ${resource ? q(resource) : '(none given)'}${scopes.length > 0 ? `; scopes ${q(scopes.join(' '), 60)}` : ''}.`,
    ),
  ];
  if (servers.length === 0)
    out.push(
      warn('oauth-no-authorization-server', 'The metadata names no authorization_servers: an MCP client has nowhere to get a token.'),
    );
  if (!resource)
    out.push(
      warn(
        'oauth-no-resource',
        'The metadata has no resource: clients must check that it names the MCP server they connect to, and refuse it otherwise.',
      ),
    );
  return out;
}

function serverMetadata(
  kind: 'server-metadata' | 'openid-configuration',
  res: Record<string, unknown> | undefined,
  ok: boolean,
  status: number | undefined,
): Hint[] {
  const code = kind === 'server-metadata' ? 'oauth-server-metadata' : 'openid-configuration';
  const what = kind === 'server-metadata' ? 'Authorization-server metadata (RFC 8414)' : 'OpenID configuration (OpenID Connect Discovery)';
  if (status === 404) {
    return [
      info(
        'oauth-metadata-not-found',
        'No authorization-server metadata at this URL (404): clients try the other well-known forms (OAuth with the path inserted, OpenID Connect discovery) next.',
      ),
    ];
  }
  if (!ok || !res) {
    return [
      info(
        code,
        kind === 'server-metadata'
          ? `${what}: the client looks up where to authorize, get tokens and register.`
          : `${what}: the authorization server's metadata in OpenID form, which MCP clients accept in place of RFC 8414's.`,
      ),
    ];
  }
  const endpoints = [
    ['authorize at', str(res.authorization_endpoint)],
    ['tokens at', str(res.token_endpoint)],
    ['registration at', str(res.registration_endpoint)],
  ]
    .filter(([, v]) => v !== undefined)
    .map(([label, v]) => `${label} ${q(v!, 60)}`);
  const out = [
    info(
      code,
      `${what}${str(res.issuer) ? ` of issuer ${q(str(res.issuer)!, 60)}` : ''}${endpoints.length > 0 ? `: ${endpoints.join(', ')}` : ''}.`,
    ),
  ];
  if (!strings(res.code_challenge_methods_supported).includes('S256')) {
    out.push(
      warn(
        'pkce-not-advertised',
        'code_challenge_methods_supported does not list S256: MCP clients must refuse an authorization server that does not advertise PKCE.',
      ),
    );
  }
  if (!str(res.registration_endpoint) && res.client_id_metadata_document_supported !== true) {
    out.push(
      info(
        'no-client-registration',
        'Neither a registration_endpoint nor client ID metadata documents: a client needs a client_id registered beforehand.',
      ),
    );
  }
  return out;
}

function registration(input: PlainHttpInput, res: Record<string, unknown> | undefined, ok: boolean): Hint[] {
  const body = obj(input.requestJson) ?? {};
  const name = str(body.client_name);
  const grants = strings(body.grant_types);
  if (res && typeof res.error === 'string') return [oauthError('oauth-registration-error', 'Client registration refused', res)];
  if (ok && res && str(res.client_id)) {
    const secret = res.client_secret !== undefined ? ' and a client_secret (redacted here)' : '';
    return [
      info(
        'oauth-client-registration',
        `Dynamic client registration (RFC 7591): ${name ? `${q(name, 40)} is` : 'the client is'} registered as client_id ${q(str(res.client_id)!, 60)}${secret}.`,
      ),
    ];
  }
  return [
    info(
      'oauth-client-registration',
      `Dynamic client registration (RFC 7591)${name ? ` for ${q(name, 40)}` : ''}: the client registers its redirect URIs${grants.length > 0 ? ` and grant types (${grants.map((g) => clip(g, 40)).join(', ')})` : ''} and gets a client_id.`,
    ),
  ];
}

function tokenRequest(input: PlainHttpInput, res: Record<string, unknown> | undefined, ok: boolean): Hint[] {
  const json = obj(input.requestJson);
  const field = (k: string): string | undefined => input.form?.[k] ?? str(json?.[k]);
  const grant = field('grant_type') ?? '';
  const resource = field('resource');
  const scope = field('scope');
  const requested = field('requested_token_type');
  const meaning = GRANTS[grant] ?? 'an extension grant';
  const auth = headerValue(input.requestHeaders, 'authorization');
  const clientAuth = /^basic\b/i.test(auth ?? '')
    ? 'client_secret_basic'
    : field('client_assertion') !== undefined
      ? 'private_key_jwt'
      : field('client_secret') !== undefined
        ? 'client_secret_post'
        : field('client_id') !== undefined
          ? 'none (a public client)'
          : undefined;
  const parts = [
    resource ? `resource=${q(resource)} (RFC 8707 audience)` : undefined,
    scope ? `scope=${q(scope, 60)}` : undefined,
    requested
      ? `requested_token_type=${clip(requested, 60)}${requested === ID_JAG ? ' (an identity assertion for cross-app access)' : ''}`
      : undefined,
    clientAuth ? `client authentication: ${clientAuth}` : undefined,
  ].filter((p): p is string => p !== undefined);
  const out = [
    info(
      'oauth-token-request',
      `Token request (grant_type=${clip(grant, 60)}: ${meaning})${parts.length > 0 ? `, with ${parts.join(', ')}` : ''}.`,
    ),
  ];
  if (json && !input.form) {
    out.push(
      warn(
        'token-request-json',
        'The token request was sent as JSON: RFC 6749 requires application/x-www-form-urlencoded, and most authorization servers refuse JSON.',
      ),
    );
  }
  if (grant === 'authorization_code' && field('code_verifier') === undefined) {
    out.push(
      warn(
        'pkce-missing',
        'No code_verifier: this authorization code is not PKCE-protected, which MCP requires (S256) and OAuth 2.1 servers refuse.',
      ),
    );
  }
  if ((grant === 'authorization_code' || grant === 'refresh_token') && !resource) {
    out.push(
      warn(
        'resource-missing',
        'No resource parameter: MCP clients must name the MCP server (RFC 8707) so that the token is issued for it alone.',
      ),
    );
  }
  if (res && typeof res.error === 'string') out.push(oauthError('oauth-token-error', 'Token request refused', res));
  else if (ok && res && res.access_token !== undefined) {
    const extras = [
      typeof res.expires_in === 'number' ? `valid for ${res.expires_in} s` : undefined,
      res.refresh_token !== undefined ? 'a refresh token' : undefined,
      res.id_token !== undefined ? 'an ID token' : undefined,
      str(res.scope) ? `scope ${q(str(res.scope)!, 60)}` : undefined,
      str(res.issued_token_type) ? `issued_token_type ${clip(str(res.issued_token_type)!, 60)}` : undefined,
    ].filter((p): p is string => p !== undefined);
    out.push(
      info(
        'oauth-tokens-issued',
        `Tokens issued: a ${str(res.token_type) ? `${clip(str(res.token_type)!, 20)} ` : ''}access token${extras.length > 0 ? `, ${extras.join(', ')}` : ''} (credentials redacted here).`,
      ),
    );
  }
  return out;
}

function authorize(input: PlainHttpInput, query: URLSearchParams, status: number | undefined): Hint[] {
  const responseType = query.get('response_type');
  const method = query.get('code_challenge_method');
  const resource = query.get('resource');
  const scope = query.get('scope');
  const parts = [
    responseType ? `response_type=${clip(responseType, 30)}` : undefined,
    query.has('code_challenge') ? `PKCE ${clip(method ?? 'plain', 10)}` : undefined,
    resource ? `resource=${q(resource)}` : undefined,
    scope ? `scope=${q(scope, 60)}` : undefined,
  ].filter((p): p is string => p !== undefined);
  const out = [
    info(
      'oauth-authorize',
      `Authorization redirect: the browser is sent to the authorization server to log in and consent${parts.length > 0 ? ` (${parts.join(', ')})` : ''}.`,
    ),
  ];
  if (responseType === 'code') {
    if (!query.has('code_challenge'))
      out.push(warn('pkce-missing', 'No code_challenge: this authorization is not PKCE-protected, which MCP requires (S256).'));
    else if (method !== 'S256')
      out.push(warn('pkce-plain', `code_challenge_method is ${method ? clip(method, 20) : 'absent (so plain)'}: MCP requires S256.`));
    if (!resource)
      out.push(
        warn('resource-missing', 'No resource parameter: MCP clients must name the MCP server (RFC 8707) in the authorization request.'),
      );
  }
  const location = headerValue(input.responseHeaders, 'location');
  if (status !== undefined && status >= 300 && status < 400 && location !== undefined) {
    const lq = new URLSearchParams(location.includes('?') ? location.slice(location.indexOf('?') + 1).split('#')[0] : '');
    const to = q(location.split('?')[0], 60);
    const error = lq.get('error');
    if (lq.has('code'))
      out.push(
        info(
          'oauth-authorization-code',
          `The authorization server sends the browser back to ${to} with an authorization code${lq.has('state') ? ' and the state' : ''} (redacted here).`,
        ),
      );
    else if (error)
      out.push(
        warn(
          'oauth-authorization-error',
          `The authorization server sends the browser back to ${to} with error ${clip(error, 40)}${oauthErrorMeaning(error) ? `, which means ${oauthErrorMeaning(error)}` : ''}.`,
        ),
      );
    else out.push(info('oauth-login-redirect', `The authorization server sends the browser on to ${to} (a login or consent page, say).`));
  } else if (status === 200) {
    out.push(info('oauth-login-page', 'The authorization server answered with a page (login or consent) rather than redirecting at once.'));
  }
  return out;
}

function jwks(res: Record<string, unknown> | undefined): Hint[] {
  const keys = Array.isArray(res?.keys) ? res!.keys.map(obj).filter((k): k is Record<string, unknown> => k !== undefined) : [];
  if (keys.length === 0) return [info('jwks', 'JWKS: the public keys that token signatures are checked with.')];
  const names = keys
    .slice(0, 4)
    .map((k) => [str(k.kid) ? `kid ${q(str(k.kid)!, 30)}` : undefined, str(k.alg) ?? str(k.kty)].filter(Boolean).join(' '));
  const out = [
    info(
      'jwks',
      `JWKS: ${keys.length} public key${keys.length === 1 ? '' : 's'} (${names.join('; ')}${keys.length > 4 ? '; …' : ''}) that token signatures are checked with.`,
    ),
  ];
  if (keys.some((k) => 'd' in k || 'k' in k))
    out.push(
      warn(
        'jwks-private-key',
        'This JWKS holds private or symmetric key material (d or k): a JWKS must publish public keys only. It is redacted here.',
      ),
    );
  return out;
}

/** The OAuth error (RFC 6750 §3) in the body of a 401/403 on an MCP exchange, in words; undefined when the body names none. */
export function challengeErrorHint(body: unknown): Hint | undefined {
  const res = obj(body);
  return res && typeof res.error === 'string' ? oauthError('oauth-error', 'Refused', res) : undefined;
}

function oauthError(code: string, what: string, res: Record<string, unknown>): Hint {
  const error = String(res.error);
  const meaning = oauthErrorMeaning(error);
  const description = str(res.error_description);
  return warn(
    code,
    `${what} with ${clip(error, 40)}${meaning ? `, which means ${meaning}` : ''}${description ? `; it says ${q(description, 120)}` : ''}.`,
  );
}

/** What the status says, for what the kind hints did not already cover. */
function statusHints(input: PlainHttpInput, kind: Kind): Hint[] {
  const status = input.status;
  if (status === undefined) return [];
  const www = headerValue(input.responseHeaders, 'www-authenticate');
  if ((status === 401 || status === 403) && www !== undefined && /^\s*bearer\b/i.test(www))
    return challengeHints(status, input.requestHeaders ?? {}, input.responseHeaders);
  if (status >= 300 && status < 400 && kind !== 'authorize') {
    const location = headerValue(input.responseHeaders, 'location');
    return [info('redirect', `Redirect (HTTP ${status})${location !== undefined ? ` to ${q(location, 60)}` : ''}.`)];
  }
  if (status === 404)
    return kind === 'resource-metadata' || kind === 'server-metadata' || kind === 'openid-configuration'
      ? []
      : [info('not-found', 'Not found (404).')];
  if (status === 429) {
    const retry = headerValue(input.responseHeaders, 'retry-after');
    return [
      warn('rate-limited', `Too Many Requests: the server is rate limiting${retry !== undefined ? `; retry after ${q(retry, 30)}` : ''}.`),
    ];
  }
  if (status >= 500) return [warn('server-error', `HTTP ${status}: the server failed or is unavailable.`)];
  if (status >= 400 && !(obj(input.responseJson) && typeof obj(input.responseJson)!.error === 'string'))
    return [warn('client-error', `HTTP ${status}: the server rejected the request.`)];
  return [];
}
