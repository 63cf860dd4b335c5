import { describe, expect, it } from 'vitest';
import { createRedactor, redactArgs, redactPreview, redactUrl, REDACTED } from '../../../proxy/recorder/redact/redact.js';

const TOKEN = 'proxy-token-0123456789';

describe('redactor: headers', () => {
  const r = createRedactor();

  it('Authorization keeps its scheme; the credential is redacted', () => {
    expect(r.headers({ authorization: 'Bearer eyJhbGciOi.abc.def' })).toEqual({ authorization: 'Bearer [redacted]' });
    expect(r.headers({ Authorization: 'Basic dXNlcjpwYXNz' })).toEqual({ authorization: 'Basic [redacted]' });
    expect(r.headers({ 'proxy-authorization': 'Digest username="a", response="b"' })).toEqual({
      'proxy-authorization': 'Digest [redacted]',
    });
    // no scheme (a bare token): all of it goes
    expect(r.headers({ authorization: 'sk-live-abcdef' })).toEqual({ authorization: REDACTED });
  });

  it('cookies, DPoP and API-key headers are redacted entirely; set-cookie arrays element by element', () => {
    expect(
      r.headers({
        cookie: 'sid=abc; theme=dark',
        'set-cookie': ['sid=abc; HttpOnly', 'csrf=xyz; Path=/'],
        dpop: 'eyJ0eXAiOiJkcG9wK2p3dCJ9.x.y',
        'x-api-key': 'k-123',
        'X-Auth-Token': 'tok',
        'api-key': 'k2',
        'x-mcpscope-token': 'whatever',
      }),
    ).toEqual({
      cookie: REDACTED,
      'set-cookie': [REDACTED, REDACTED],
      dpop: REDACTED,
      'x-api-key': REDACTED,
      'x-auth-token': REDACTED,
      'api-key': REDACTED,
      'x-mcpscope-token': REDACTED,
    });
  });

  it('other headers pass unchanged (names lower-cased, undefined dropped, arrays kept)', () => {
    expect(
      r.headers({
        'Content-Type': 'application/json',
        'mcp-session-id': 'abc-123',
        accept: ['application/json', 'text/event-stream'],
        'x-missing': undefined,
      }),
    ).toEqual({ 'content-type': 'application/json', 'mcp-session-id': 'abc-123', accept: ['application/json', 'text/event-stream'] });
  });

  it('Location and Referer have their credential query parameters redacted', () => {
    expect(r.headers({ location: 'http://cb.example/callback?code=SplxlOBe&state=xyz&iss=https%3A%2F%2Fas' })).toEqual({
      location: 'http://cb.example/callback?code=[redacted]&state=[redacted]&iss=https%3A%2F%2Fas',
    });
    expect(r.headers({ Referer: 'http://a/b?access_token=t&x=1' })).toEqual({ referer: 'http://a/b?access_token=[redacted]&x=1' });
  });

  it('WWW-Authenticate is not a secret and stays readable', () => {
    const v = 'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource", scope="files:read"';
    expect(r.headers({ 'www-authenticate': v })).toEqual({ 'www-authenticate': v });
  });

  it('extra secrets are replaced inside any header value', () => {
    const x = createRedactor({ extraSecrets: [TOKEN] });
    expect(x.headers({ 'x-note': `token=${TOKEN};again=${TOKEN}` })).toEqual({ 'x-note': 'token=[redacted];again=[redacted]' });
  });
});

describe('redactor: URLs', () => {
  const r = createRedactor();

  it('redacts code, state and access_token query values; keeps the rest byte for byte', () => {
    expect(r.url('/callback?code=abc&state=s1&access_token=t&keep=1')).toBe(
      '/callback?code=[redacted]&state=[redacted]&access_token=[redacted]&keep=1',
    );
    expect(r.url('/mcp?sessionId=6f1c')).toBe('/mcp?sessionId=6f1c');
    expect(r.url('/message?sessionId=a&token=zz')).toBe('/message?sessionId=a&token=[redacted]');
    expect(r.url('http://h:1/p?refresh_token=r&id_token=i&client_secret=c&api_key=k')).toBe(
      'http://h:1/p?refresh_token=[redacted]&id_token=[redacted]&client_secret=[redacted]&api_key=[redacted]',
    );
  });

  it('redacts the token-endpoint form fields too (form bodies are redacted as queries)', () => {
    expect(
      r.url('?grant_type=authorization_code&code_verifier=v&client_assertion=eyJ&client_assertion_type=jwt-bearer&username=u&password=p'),
    ).toBe(
      '?grant_type=authorization_code&code_verifier=[redacted]&client_assertion=[redacted]&client_assertion_type=jwt-bearer&username=u&password=[redacted]',
    );
  });

  it('redacts the extension-grant form fields: JWT bearer / cross-app access assertion, token-exchange tokens, device code', () => {
    expect(
      r.url(
        '?grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=eyJ.a.b&scope=mcp&resource=https%3A%2F%2Fmcp.example%2Fmcp',
      ),
    ).toBe(
      '?grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=[redacted]&scope=mcp&resource=https%3A%2F%2Fmcp.example%2Fmcp',
    );
    expect(
      r.url(
        '?grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&subject_token=st&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid_token&actor_token=act&requested_token_type=x',
      ),
    ).toBe(
      '?grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&subject_token=[redacted]&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid_token&actor_token=[redacted]&requested_token_type=x',
    );
    expect(r.url('?grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=dc&client_id=c')).toBe(
      '?grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=[redacted]&client_id=c',
    );
  });

  it('matches percent-encoded names; a name without "=" is left alone; no query → unchanged', () => {
    expect(r.url('/x?%63ode=abc')).toBe('/x?%63ode=[redacted]');
    expect(r.url('/x?code&b=1')).toBe('/x?code&b=1');
    expect(r.url('/x/y')).toBe('/x/y');
    expect(r.url('/x?bad=%E0%A4%A&code=1')).toBe('/x?bad=%E0%A4%A&code=[redacted]');
  });

  it('does not match on a prefix or suffix of a name', () => {
    expect(r.url('/x?codec=h264&statement=1&xcode=2')).toBe('/x?codec=h264&statement=1&xcode=2');
  });

  it('replaces extra secrets anywhere in the URL', () => {
    const x = createRedactor({ extraSecrets: [TOKEN] });
    expect(x.url(`/ui/${TOKEN}/x?t=${TOKEN}`)).toBe('/ui/[redacted]/x?t=[redacted]');
  });
});

describe('redactor: JSON', () => {
  const r = createRedactor();

  it('redacts OAuth token fields at any depth', () => {
    const tokenResponse = { access_token: 'at', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt', id_token: 'it', scope: 'a b' };
    expect(r.json(tokenResponse)).toEqual({
      access_token: REDACTED,
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: REDACTED,
      id_token: REDACTED,
      scope: 'a b',
    });
    const deep = {
      result: {
        content: [
          {
            type: 'text',
            text: 'x',
            meta: { client_secret: 'cs', code_verifier: 'cv', client_assertion: 'ca', password: 'pw', api_key: 'k', apiKey: 'k2' },
          },
        ],
      },
    };
    expect(r.json(deep)).toEqual({
      result: {
        content: [
          {
            type: 'text',
            text: 'x',
            meta: {
              client_secret: REDACTED,
              code_verifier: REDACTED,
              client_assertion: REDACTED,
              password: REDACTED,
              api_key: REDACTED,
              apiKey: REDACTED,
            },
          },
        ],
      },
    });
    expect(r.json({ code: 'SplxlOBeZQQYbYS6WxSbIA', grant_type: 'authorization_code' })).toEqual({
      code: REDACTED,
      grant_type: 'authorization_code',
    });
  });

  it('redacts client registration and extension-grant fields: client_secret, registration_access_token, subject/actor tokens, device_code', () => {
    const dcr = {
      client_id: 'c-1',
      client_secret: 'cs',
      client_secret_expires_at: 0,
      registration_access_token: 'rat',
      registration_client_uri: 'https://as/reg/c-1',
      redirect_uris: ['http://localhost/cb'],
    };
    expect(r.json(dcr)).toEqual({ ...dcr, client_secret: REDACTED, registration_access_token: REDACTED });
    expect(r.json({ subject_token: 's', actor_token: 'a', device_code: 'd', user_code: 'WDJB-MJHT' })).toEqual({
      subject_token: REDACTED,
      actor_token: REDACTED,
      device_code: REDACTED,
      user_code: 'WDJB-MJHT',
    });
  });

  it('redacts an assertion only in a token request (beside grant_type), not as a tool argument', () => {
    expect(r.json({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: 'eyJ.a.b' })).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: REDACTED,
    });
    const call = { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'check', arguments: { assertion: 'x > 1' } } };
    expect(r.json(call)).toBe(call);
  });

  it('redacts the private members of a JWK, and only of a JWK', () => {
    const jwks = {
      keys: [
        { kty: 'RSA', kid: 'k1', n: 'modulus', e: 'AQAB', d: 'priv', p: 'p1', q: 'q1', dp: 'x', dq: 'y', qi: 'z' },
        { kty: 'oct', k: 'secret-key' },
      ],
    };
    expect(r.json(jwks)).toEqual({
      keys: [
        { kty: 'RSA', kid: 'k1', n: 'modulus', e: 'AQAB', d: REDACTED, p: REDACTED, q: REDACTED, dp: REDACTED, dq: REDACTED, qi: REDACTED },
        { kty: 'oct', k: REDACTED },
      ],
    });
    const pub = { keys: [{ kty: 'EC', crv: 'P-256', x: 'xx', y: 'yy', kid: 'k2' }] };
    expect(r.json(pub)).toBe(pub);
    const args = { d: 'day', p: 'page', k: 3 };
    expect(r.json(args)).toBe(args);
    // RSA's other primes (`oth`, an array of objects) go whole; outside a JWK it is just a key.
    const multiPrime = { kty: 'RSA', n: 'modulus', oth: [{ r: 'r3', d: 'd3', t: 't3' }] };
    expect(r.json(multiPrime)).toEqual({ kty: 'RSA', n: 'modulus', oth: REDACTED });
    const notJwk = { oth: ['other'] };
    expect(r.json(notJwk)).toBe(notJwk);
  });

  it('leaves a tool argument named code alone (only an OAuth code beside grant_type/redirect_uri is a secret)', () => {
    const call = { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'run_python', arguments: { code: 'print(1)' } } };
    expect(r.json(call)).toBe(call);
  });

  it('hides the proxy token even with showSecrets', () => {
    const shown = createRedactor({ showSecrets: true, extraSecrets: ['tok-1234567890'] });
    expect(shown.json({ note: 'tok-1234567890' })).toEqual({ note: REDACTED });
    expect(shown.url('/x?token=tok-1234567890')).toBe(`/x?token=${REDACTED}`);
    expect(shown.headers({ authorization: 'Bearer upstream' }).authorization).toBe('Bearer upstream');
  });

  it('never redacts a JSON-RPC error.code number', () => {
    const err = { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Invalid params', data: { code: -1 } } };
    const out = r.json(err);
    expect(out).toBe(err);
    expect(out.error.code).toBe(-32602);
  });

  it('returns unchanged objects by identity and copies only the changed path', () => {
    const msg = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' }, list: [1, 'two', { a: null }] },
    };
    expect(r.json(msg)).toBe(msg);
    const withSecret = { a: { b: { access_token: 'x' } }, untouched: { deep: [1, 2] }, arr: [{ ok: 1 }, { password: 'p' }] };
    const out = r.json(withSecret);
    expect(out).not.toBe(withSecret);
    expect(out.untouched).toBe(withSecret.untouched);
    expect(out.arr).not.toBe(withSecret.arr);
    expect(out.arr[0]).toBe(withSecret.arr[0]);
    expect(out.arr[1]).toEqual({ password: REDACTED });
    // the input is not mutated
    expect(withSecret.a.b.access_token).toBe('x');
    expect(withSecret.arr[1].password).toBe('p');
  });

  it('leaves non-scalar values under secret keys to recursion, and primitives alone', () => {
    expect(r.json({ authorization: { scheme: 'Bearer' } })).toEqual({ authorization: { scheme: 'Bearer' } });
    expect(r.json({ access_token: null })).toEqual({ access_token: null });
    expect(r.json('plain')).toBe('plain');
    expect(r.json(42)).toBe(42);
    expect(r.json(null)).toBe(null);
  });

  it('replaces extra secrets inside JSON strings', () => {
    const x = createRedactor({ extraSecrets: [TOKEN] });
    expect(x.json({ params: { arguments: { text: `my token is ${TOKEN}` } } })).toEqual({
      params: { arguments: { text: 'my token is [redacted]' } },
    });
    const clean = { a: 'nothing here' };
    expect(x.json(clean)).toBe(clean);
  });

  it('covers the whole tree, however deep: a secret 100,000 levels down is redacted, without recursion', () => {
    let deep: unknown = { access_token: 'SECRET-deep-9c1e' };
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? { n: deep } : [deep];
    let out = r.json(deep) as unknown;
    expect(out !== deep).toBe(true); // (not .not.toBe: vitest formats the 100,000-deep operands)
    for (let i = 0; i < 100_000; i++) out = Array.isArray(out) ? out[0] : (out as { n: unknown }).n;
    expect(out).toEqual({ access_token: REDACTED });
  });
});

describe('redactor: free text and extra secrets', () => {
  it('replaces every occurrence of an extra secret', () => {
    const x = createRedactor({ extraSecrets: [TOKEN] });
    expect(x.text(`a ${TOKEN} b ${TOKEN}`)).toBe('a [redacted] b [redacted]');
    expect(x.text('nothing')).toBe('nothing');
  });

  it('ignores extra secrets shorter than 8 characters (they would match ordinary text)', () => {
    const x = createRedactor({ extraSecrets: ['abc', 'abcdefgh'] });
    expect(x.text('abc abcdefgh')).toBe('abc [redacted]');
  });

  it('without extra secrets text is returned unchanged', () => {
    expect(createRedactor().text('Bearer abc')).toBe('Bearer abc');
  });
});

describe('redactor: showSecrets', () => {
  const r = createRedactor({ showSecrets: true });

  it('is reported as disabled', () => {
    expect(r.enabled).toBe(false);
    expect(createRedactor().enabled).toBe(true);
  });

  it('headers, URLs and JSON pass through', () => {
    expect(r.headers({ Authorization: 'Bearer abc', cookie: 'a=b', 'set-cookie': ['x=y'], location: '/cb?code=1' })).toEqual({
      authorization: 'Bearer abc',
      cookie: 'a=b',
      'set-cookie': ['x=y'],
      location: '/cb?code=1',
    });
    expect(r.url('/cb?code=abc&state=s')).toBe('/cb?code=abc&state=s');
    const tok = { access_token: 'at', code: 'c' };
    expect(r.json(tok)).toBe(tok);
  });
});

describe('redactor: issue 16 finding 4 (side paths)', () => {
  const r = createRedactor();

  it('common credential headers beyond Authorization, by name and by shape; session ids stay visible', () => {
    const out = r.headers({
      apikey: 'S1',
      'x-goog-api-key': 'S2',
      'private-token': 'S3',
      'x-access-token': 'S4',
      'x-amz-security-token': 'S5',
      'openai-api-key': 'S6',
      'x-github-token': 'S7',
      authentication: 'Bearer S8',
      'x-custom-secret': 'S9',
      'x-acme-key': 'S10',
      'mcp-session-id': 'sess-1',
    });
    expect(JSON.stringify(out)).not.toMatch(/S\d/);
    expect(out['mcp-session-id']).toBe('sess-1');
    expect(out.authentication).toBe('Bearer [redacted]');
  });

  it('query names case-insensitively: apikey, API_KEY, key, secret, sig, X-Amz-Signature, session_token', () => {
    const u = r.url(
      '/mcp?apikey=S1&API_KEY=S2&key=S3&secret=S4&sig=S5&X-Amz-Signature=S6&X-Amz-Credential=S7&session_token=S8&page=2#frag',
    );
    expect(u).toBe(
      '/mcp?apikey=[redacted]&API_KEY=[redacted]&key=[redacted]&secret=[redacted]&sig=[redacted]&X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]&session_token=[redacted]&page=2#frag',
    );
  });

  it('URL userinfo', () => {
    expect(r.url('https://user:S-pass@host.example/mcp')).toBe('https://user:[redacted]@host.example/mcp');
  });

  it('camelCase and differently-cased JSON keys; MCP words kept', () => {
    const v = {
      accessToken: 'S1',
      clientSecret: 'S2',
      Authorization: 'Bearer S3',
      token: 'S4',
      secret: 'S5',
      apiKey: 'S6',
      refreshToken: 'S7',
      privateKey: 'S8',
    };
    expect(Object.values(r.json(v) as object).every((x) => x === REDACTED)).toBe(true);
    const mcp = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'run', arguments: { code: 'print(1)', key: 'k' }, _meta: { progressToken: 'p1' } },
      result: { nextCursor: 'c', usage: { maxTokens: 5, totalTokens: 9 } },
    };
    expect(r.json(mcp)).toBe(mcp);
  });

  it('free text: a JSON prefix cut short, a form, known token formats', () => {
    expect(r.text('{"result":{"refresh_token":"S-1","password":"S-2","client_secret":"S-3')).not.toMatch(/S-\d/);
    expect(r.text(`log ${['ghp_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'].join('')}`)).toBe('log [redacted]');
    expect(redactPreview('access_token=S-1&token_type=bearer', 'text/plain', r)).toBe('access_token=[redacted]&token_type=bearer');
  });

  it('string values of a message: known token formats inside are redacted', () => {
    const m = { params: { level: 'info', data: `using ${['AKIA', 'IOSFODNN7EXAMPLQ'].join('')}` } };
    expect(JSON.stringify(r.json(m))).not.toContain('AKIA');
  });

  it('command lines: secret flags, env-style arguments, userinfo', () => {
    expect(redactArgs(['--api-key=S1', '--token', 'S2', '--password', 'S3', 'API_KEY=S4', 'postgres://u:S5@db/x', '--port', '80'])).toEqual(
      [
        '--api-key=[redacted]',
        '--token',
        REDACTED,
        '--password',
        REDACTED,
        'API_KEY=[redacted]',
        'postgres://u:[redacted]@db/x',
        '--port',
        '80',
      ],
    );
    expect(redactUrl('http://admin:S6@127.0.0.1:9/mcp?key=S7')).toBe('http://admin:[redacted]@127.0.0.1:9/mcp?key=[redacted]');
  });

  it('--show-secrets: text, URLs and JSON are shown (the live view only); the proxy token is not', () => {
    const s = createRedactor({ showSecrets: true, extraSecrets: [TOKEN] });
    expect(s.text(`{"password":"S-1"} ${TOKEN}`)).toBe('{"password":"S-1"} [redacted]');
    expect(s.url('https://u:S-2@h/?key=S-3')).toBe('https://u:S-2@h/?key=S-3');
  });
});

describe('redactor: exact (a frame whose parsed value json() left unchanged)', () => {
  it('replaces only the known secrets, also in keys', () => {
    const x = createRedactor({ extraSecrets: [TOKEN] });
    expect(x.exact(`{"${TOKEN}":"password=abc"}`)).toBe('{"[redacted]":"password=abc"}');
  });
});
