/**
 * Hints for plain HTTP exchanges (proxy/core/annotate/oauth-hints.ts): one per kind of OAuth exchange,
 * token and registration errors in words, and a note for any other HTTP.
 */
import { describe, expect, it } from 'vitest';
import { oauthErrorMeaning, plainHttpHints, type PlainHttpInput } from '../../../proxy/core/annotate/oauth-hints.js';
import type { Hint } from '../../../proxy/core/model/events.js';

const codes = (hints: Hint[]) => hints.map((h) => h.code);
const text = (hints: Hint[], code: string) => hints.find((h) => h.code === code)?.text ?? '';
const get = (url: string, extra: Partial<PlainHttpInput> = {}): PlainHttpInput => ({ method: 'GET', url, ...extra });

const AS_METADATA = {
  issuer: 'https://as.example/',
  authorization_endpoint: 'https://as.example/authorize',
  token_endpoint: 'https://as.example/token',
  registration_endpoint: 'https://as.example/register',
  code_challenge_methods_supported: ['S256'],
};

describe('plainHttpHints: discovery', () => {
  it('protected-resource metadata (RFC 9728): before the answer, then naming the authorization servers for the resource', () => {
    expect(codes(plainHttpHints(get('/.well-known/oauth-protected-resource/mcp')))).toEqual(['oauth-resource-metadata']);
    const h = plainHttpHints(
      get('/.well-known/oauth-protected-resource/mcp', {
        status: 200,
        responseJson: {
          resource: 'https://mcp.example/mcp',
          authorization_servers: ['https://as.example/'],
          scopes_supported: ['mcp:tools', 'mcp:read'],
        },
      }),
    );
    expect(codes(h)).toEqual(['oauth-resource-metadata']);
    expect(text(h, 'oauth-resource-metadata')).toBe(
      'OAuth protected-resource metadata (RFC 9728): names the authorization server "https://as.example/" for resource "https://mcp.example/mcp"; scopes "mcp:tools mcp:read".',
    );
  });

  it('protected-resource metadata without authorization servers or resource is warned about; a 404 explains the fallback', () => {
    const h = plainHttpHints(get('/.well-known/oauth-protected-resource', { status: 200, responseJson: {} }));
    expect(codes(h)).toEqual(['oauth-resource-metadata', 'oauth-no-authorization-server', 'oauth-no-resource']);
    const missing = plainHttpHints(get('/.well-known/oauth-protected-resource/mcp', { status: 404, responseType: 'text/html' }));
    expect(codes(missing)).toEqual(['oauth-metadata-not-found']);
    expect(missing[0].text).toContain('root /.well-known/oauth-protected-resource');
  });

  it('resource metadata found at a URL outside /.well-known/ (a resource_metadata URL) is recognised by its shape', () => {
    const h = plainHttpHints(
      get('/prm', { status: 200, responseJson: { resource: 'https://mcp.example/mcp', authorization_servers: ['https://as.example/'] } }),
    );
    expect(codes(h)).toEqual(['oauth-resource-metadata']);
  });

  it('authorization-server metadata (RFC 8414): issuer and endpoints; S256 not advertised is a warning', () => {
    expect(text(plainHttpHints(get('/.well-known/oauth-authorization-server')), 'oauth-server-metadata')).toContain(
      'Authorization-server metadata (RFC 8414)',
    );
    const h = plainHttpHints(get('/.well-known/oauth-authorization-server', { status: 200, responseJson: AS_METADATA }));
    expect(codes(h)).toEqual(['oauth-server-metadata']);
    expect(h[0].text).toBe(
      'Authorization-server metadata (RFC 8414) of issuer "https://as.example/": authorize at "https://as.example/authorize", tokens at "https://as.example/token", registration at "https://as.example/register".',
    );
    const noPkce = plainHttpHints(
      get('/.well-known/oauth-authorization-server/tenant', {
        status: 200,
        responseJson: { ...AS_METADATA, code_challenge_methods_supported: ['plain'], registration_endpoint: undefined },
      }),
    );
    expect(codes(noPkce)).toEqual(['oauth-server-metadata', 'pkce-not-advertised', 'no-client-registration']);
    const cimd = plainHttpHints(
      get('/.well-known/oauth-authorization-server', {
        status: 200,
        responseJson: { ...AS_METADATA, registration_endpoint: undefined, client_id_metadata_document_supported: true },
      }),
    );
    expect(codes(cimd)).toEqual(['oauth-server-metadata']);
  });

  it('OpenID configuration, also path-appended; a 404 says clients try the other forms', () => {
    expect(codes(plainHttpHints(get('/.well-known/openid-configuration')))).toEqual(['openid-configuration']);
    const h = plainHttpHints(get('/tenant/.well-known/openid-configuration', { status: 200, responseJson: AS_METADATA }));
    expect(h[0]).toMatchObject({ code: 'openid-configuration' });
    expect(h[0].text).toContain('OpenID configuration (OpenID Connect Discovery) of issuer "https://as.example/"');
    expect(codes(plainHttpHints(get('/.well-known/openid-configuration', { status: 404 })))).toEqual(['oauth-metadata-not-found']);
  });

  it('another /.well-known/ document is site metadata', () => {
    expect(codes(plainHttpHints(get('/.well-known/security.txt', { status: 200 })))).toEqual(['well-known']);
  });
});

describe('plainHttpHints: registration, authorization, tokens', () => {
  const dcr: PlainHttpInput = {
    method: 'POST',
    url: '/register',
    requestType: 'application/json',
    requestJson: {
      client_name: 'My Agent',
      redirect_uris: ['http://localhost:3000/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
    },
  };

  it('dynamic client registration (RFC 7591): the request, then the client_id (never the secret)', () => {
    expect(text(plainHttpHints(dcr), 'oauth-client-registration')).toBe(
      'Dynamic client registration (RFC 7591) for "My Agent": the client registers its redirect URIs and grant types (authorization_code, refresh_token) and gets a client_id.',
    );
    const done = plainHttpHints({
      ...dcr,
      status: 201,
      responseJson: { client_id: 'c-42', client_secret: 'shh-SECRET', redirect_uris: ['http://localhost:3000/cb'] },
    });
    expect(text(done, 'oauth-client-registration')).toBe(
      'Dynamic client registration (RFC 7591): "My Agent" is registered as client_id "c-42" and a client_secret (redacted here).',
    );
    expect(JSON.stringify(done)).not.toContain('shh-SECRET');
  });

  it('a refused registration is explained', () => {
    const h = plainHttpHints({
      ...dcr,
      status: 400,
      responseJson: { error: 'invalid_redirect_uri', error_description: 'http not allowed' },
    });
    expect(codes(h)).toEqual(['oauth-registration-error']);
    expect(h[0]).toMatchObject({ level: 'warn' });
    expect(h[0].text).toBe(
      'Client registration refused with invalid_redirect_uri, which means a redirect URI was refused (not allowed here, or neither https nor a loopback address); it says "http not allowed".',
    );
  });

  it('authorization redirect: PKCE and resource named; the redirect back with a code; missing PKCE or resource warned', () => {
    const url =
      '/authorize?response_type=code&client_id=c&code_challenge=abc&code_challenge_method=S256&state=[redacted]&resource=https%3A%2F%2Fmcp.example%2Fmcp&scope=mcp%3Atools';
    const h = plainHttpHints(
      get(url, { status: 302, responseHeaders: { location: 'http://localhost:3000/cb?code=[redacted]&state=[redacted]' } }),
    );
    expect(codes(h)).toEqual(['oauth-authorize', 'oauth-authorization-code']);
    expect(h[0].text).toBe(
      'Authorization redirect: the browser is sent to the authorization server to log in and consent (response_type=code, PKCE S256, resource="https://mcp.example/mcp", scope="mcp:tools").',
    );
    expect(h[1].text).toBe(
      'The authorization server sends the browser back to "http://localhost:3000/cb" with an authorization code and the state (redacted here).',
    );
    expect(codes(plainHttpHints(get('/authorize?response_type=code&client_id=c')))).toEqual([
      'oauth-authorize',
      'pkce-missing',
      'resource-missing',
    ]);
    expect(codes(plainHttpHints(get('/authorize?response_type=code&code_challenge=x&resource=r')))).toEqual([
      'oauth-authorize',
      'pkce-plain',
    ]);
    const denied = plainHttpHints(
      get('/authorize?response_type=code&code_challenge=x&code_challenge_method=S256&resource=r', {
        status: 302,
        responseHeaders: { location: 'http://localhost/cb?error=access_denied' },
      }),
    );
    expect(codes(denied)).toEqual(['oauth-authorize', 'oauth-authorization-error']);
    expect(denied[1].text).toContain('access_denied, which means the user or the authorization server refused');
    expect(
      codes(
        plainHttpHints(
          get('/oauth/authorize?response_type=code&code_challenge=x&code_challenge_method=S256&resource=r', {
            status: 200,
            responseType: 'text/html',
          }),
        ),
      ),
    ).toEqual(['oauth-authorize', 'oauth-login-page']);
  });

  const token = (form: Record<string, string>, extra: Partial<PlainHttpInput> = {}): PlainHttpInput => ({
    method: 'POST',
    url: '/token',
    requestType: 'application/x-www-form-urlencoded',
    form,
    ...extra,
  });

  it('token request: the grant in words, the resource (RFC 8707 audience), the client authentication', () => {
    const h = plainHttpHints(
      token({ grant_type: 'authorization_code', code: 'c0de', code_verifier: 'v', client_id: 'c', resource: 'https://mcp.example/mcp' }),
    );
    expect(codes(h)).toEqual(['oauth-token-request']);
    expect(h[0].text).toBe(
      'Token request (grant_type=authorization_code: the authorization code and its PKCE code_verifier are traded for tokens), with resource="https://mcp.example/mcp" (RFC 8707 audience), client authentication: none (a public client).',
    );
    expect(h[0].text).not.toContain('c0de');
    expect(
      text(
        plainHttpHints(
          token(
            { grant_type: 'refresh_token', refresh_token: 'r', resource: 'x' },
            { requestHeaders: { authorization: 'Basic [redacted]' } },
          ),
        ),
        'oauth-token-request',
      ),
    ).toContain(
      'grant_type=refresh_token: a refresh token is traded for a new access token), with resource="x" (RFC 8707 audience), client authentication: client_secret_basic',
    );
    expect(
      text(
        plainHttpHints(token({ grant_type: 'client_credentials', client_id: 'c', client_secret: 's', scope: 'a b' })),
        'oauth-token-request',
      ),
    ).toBe(
      'Token request (grant_type=client_credentials: the client asks for a token for itself, no user involved), with scope="a b", client authentication: client_secret_post.',
    );
  });

  it('extension grants: JWT bearer, token exchange (with an ID-JAG for cross-app access), device code', () => {
    const jwt = plainHttpHints(
      token({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: 'eyJ.a.b',
        client_assertion: 'eyJ.c.d',
        resource: 'https://mcp.example/mcp',
      }),
    );
    expect(jwt[0].text).toContain(
      'grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer: a signed JWT assertion (RFC 7523; also the last step of cross-app access) is traded for an access token',
    );
    expect(jwt[0].text).toContain('client authentication: private_key_jwt');
    expect(JSON.stringify(jwt)).not.toContain('eyJ');
    const exchange = plainHttpHints(
      token({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: 'idt',
        requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
        audience: 'https://as.example/',
      }),
    );
    expect(exchange[0].text).toContain('token exchange (RFC 8693)');
    expect(exchange[0].text).toContain(
      'requested_token_type=urn:ietf:params:oauth:token-type:id-jag (an identity assertion for cross-app access)',
    );
    expect(plainHttpHints(token({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'd' }))[0].text).toContain(
      'device authorization grant (RFC 8628)',
    );
    expect(plainHttpHints(token({ grant_type: 'urn:example:custom' }))[0].text).toContain('an extension grant');
  });

  it('an authorization_code grant without code_verifier or resource is warned about; a JSON token request too', () => {
    expect(codes(plainHttpHints(token({ grant_type: 'authorization_code', code: 'c' })))).toEqual([
      'oauth-token-request',
      'pkce-missing',
      'resource-missing',
    ]);
    const json = plainHttpHints({
      method: 'POST',
      url: '/token',
      requestType: 'application/json',
      requestJson: { grant_type: 'client_credentials' },
    });
    expect(codes(json)).toEqual(['oauth-token-request', 'token-request-json']);
  });

  it('tokens issued: what came back, never the tokens themselves', () => {
    const h = plainHttpHints(
      token(
        { grant_type: 'authorization_code', code: 'c', code_verifier: 'v', resource: 'r' },
        {
          status: 200,
          responseJson: {
            access_token: 'at-SECRET',
            token_type: 'Bearer',
            expires_in: 3600,
            refresh_token: 'rt-SECRET',
            scope: 'mcp:tools',
          },
        },
      ),
    );
    expect(codes(h)).toEqual(['oauth-token-request', 'oauth-tokens-issued']);
    expect(h[1].text).toBe(
      'Tokens issued: a Bearer access token, valid for 3600 s, a refresh token, scope "mcp:tools" (credentials redacted here).',
    );
    expect(JSON.stringify(h)).not.toContain('SECRET');
  });

  it('token errors in words: invalid_grant, invalid_target (the resource refused), invalid_client, unknown codes', () => {
    const err = (error: string, description?: string) =>
      plainHttpHints(
        token(
          { grant_type: 'refresh_token', refresh_token: 'r', resource: 'r' },
          { status: 400, responseJson: { error, error_description: description } },
        ),
      );
    const target = err('invalid_target', 'unknown resource');
    expect(codes(target)).toEqual(['oauth-token-request', 'oauth-token-error']);
    expect(target[1]).toMatchObject({ level: 'warn' });
    expect(target[1].text).toBe(
      'Token request refused with invalid_target, which means the authorization server refused the `resource` (RFC 8707): it does not know that resource, or will not issue tokens for it to this client; it says "unknown resource".',
    );
    expect(err('invalid_grant')[1].text).toContain('the code, refresh token or assertion is invalid, expired, revoked or already used');
    expect(err('invalid_client')[1].text).toContain('client authentication failed');
    expect(err('something_else')[1].text).toBe('Token request refused with something_else.');
    expect(oauthErrorMeaning('use_dpop_nonce')).toContain('DPoP-Nonce');
    expect(oauthErrorMeaning('toString')).toBeUndefined();
  });

  it('revocation and introspection by their paths', () => {
    expect(
      codes(
        plainHttpHints({ method: 'POST', url: '/oauth/revoke', requestType: 'application/x-www-form-urlencoded', form: { token: 't' } }),
      ),
    ).toEqual(['oauth-revocation']);
    expect(
      codes(plainHttpHints({ method: 'POST', url: '/introspect', requestType: 'application/x-www-form-urlencoded', form: { token: 't' } })),
    ).toEqual(['oauth-introspection']);
  });
});

describe('plainHttpHints: keys, client metadata documents, challenges, other HTTP', () => {
  it('JWKS: the keys by kid and algorithm; private key material is warned about', () => {
    const h = plainHttpHints(
      get('/oauth/keys', {
        status: 200,
        responseJson: {
          keys: [
            { kty: 'RSA', kid: 'k1', alg: 'RS256', n: 'n', e: 'AQAB' },
            { kty: 'EC', kid: 'k2', crv: 'P-256', x: 'x', y: 'y' },
          ],
        },
      }),
    );
    expect(codes(h)).toEqual(['jwks']);
    expect(h[0].text).toBe('JWKS: 2 public keys (kid "k1" RS256; kid "k2" EC) that token signatures are checked with.');
    expect(codes(plainHttpHints(get('/jwks.json')))).toEqual(['jwks']);
    expect(
      codes(plainHttpHints(get('/jwks', { status: 200, responseJson: { keys: [{ kty: 'RSA', n: 'n', e: 'AQAB', d: 'private' }] } }))),
    ).toEqual(['jwks', 'jwks-private-key']);
  });

  it('a client ID metadata document: its client_id is its URL', () => {
    const h = plainHttpHints(
      get('/client.json', {
        status: 200,
        responseJson: { client_id: 'https://app.example/client.json', client_name: 'App', redirect_uris: ['https://app.example/cb'] },
      }),
    );
    expect(codes(h)).toEqual(['oauth-client-metadata-document']);
    expect(h[0].text).toContain('learn the client\'s name ("App") and redirect URIs');
  });

  it('a Bearer challenge reuses the HTTP hints (where discovery starts); a JSON error is explained', () => {
    const h = plainHttpHints({
      method: 'POST',
      url: '/api',
      status: 401,
      responseHeaders: {
        'www-authenticate': 'Bearer error="invalid_token", resource_metadata="https://api.example/.well-known/oauth-protected-resource"',
      },
      responseJson: { error: 'invalid_token' },
    });
    expect(codes(h)).toEqual(['plain-http', 'oauth-error', 'auth-required']);
    expect(text(h, 'auth-required')).toContain(
      'OAuth discovery starts at the resource metadata "https://api.example/.well-known/oauth-protected-resource"',
    );
    expect(text(h, 'oauth-error')).toBe('Refused with invalid_token, which means the token is invalid, expired or revoked.');
    const scope = plainHttpHints({
      method: 'GET',
      url: '/api',
      status: 403,
      responseHeaders: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="files:write"' },
    });
    expect(codes(scope)).toEqual(['plain-http', 'insufficient-scope']);
  });

  it('any other HTTP: a plain note, and what its status says', () => {
    expect(plainHttpHints(get('/favicon.ico'))).toEqual([
      { level: 'info', code: 'plain-http', text: 'Plain HTTP (not MCP): recorded, not parsed as JSON-RPC.' },
    ]);
    expect(codes(plainHttpHints(get('/', { status: 200 })))).toEqual(['plain-http']);
    expect(codes(plainHttpHints(get('/old', { status: 301, responseHeaders: { location: '/new' } })))).toEqual(['plain-http', 'redirect']);
    expect(codes(plainHttpHints(get('/x', { status: 404 })))).toEqual(['plain-http', 'not-found']);
    expect(codes(plainHttpHints(get('/x', { status: 429, responseHeaders: { 'retry-after': '5' } })))).toEqual([
      'plain-http',
      'rate-limited',
    ]);
    expect(plainHttpHints(get('/x', { status: 503 }))[1]).toMatchObject({ code: 'server-error', level: 'warn' });
    expect(codes(plainHttpHints(get('/x', { status: 418 })))).toEqual(['plain-http', 'client-error']);
    // Never an error level: plain HTTP is not a protocol mistake.
    for (const status of [200, 302, 400, 401, 404, 500])
      expect(plainHttpHints(get('/x', { status })).every((x) => x.level !== 'error')).toBe(true);
  });

  it('never throws, whatever the bodies hold', () => {
    expect(
      plainHttpHints({ method: 'POST', url: '/token', form: { grant_type: 'x' }, responseJson: { error: 42, keys: 'no' }, status: 400 }),
    ).toEqual(expect.any(Array));
    expect(plainHttpHints({ method: 'GET', url: 'http://h/%zz?%%', responseJson: null })).toEqual(expect.any(Array));
  });
});
