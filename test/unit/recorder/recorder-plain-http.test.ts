/**
 * Plain HTTP beside MCP (proxy/recorder/plain-http.ts): OAuth and other non-JSON-RPC exchanges are
 * recorded as HTTP exchanges — redacted previews, hints, the `http` bucket of their origin — never
 * as protocol errors; MCP peers that send malformed JSON-RPC still get their problems; id-less
 * requests to two upstreams never share a session.
 */
import { describe, expect, it } from 'vitest';
import type { WireRecord } from '../../../proxy/wire/capture/wire-records.js';
import { exportFixture } from '../../../proxy/files/export/export-fixture.js';
import { exportHar } from '../../../proxy/files/export/export-har.js';
import { exportNdjson } from '../../../proxy/files/export/export-ndjson.js';
import { TARGET, codes, exchangeOf, json, messages, problems, sessionOf, setup, type Wire } from '../../support/recorder-harness.js';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};
const INIT_RESULT = {
  jsonrpc: '2.0',
  id: 0,
  result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } },
};
const RM = 'http://upstream.test/.well-known/oauth-protected-resource/mcp';

/** Credentials the OAuth flow below carries, none of which may be kept. */
const SECRETS = [
  'cs-SECRET-registered',
  'rat-SECRET-mgmt',
  'CODE-SECRET-42',
  'verifier-SECRET',
  'at-SECRET-access',
  'rt-SECRET-refresh',
  'idt-SECRET-id',
  'STATE-SECRET',
];

/** The SDK's OAuth flow against a server with its authorization server on the same origin: discovery → DCR → authorize → token → JWKS. */
function oauthFlow(w: Wire): WireRecord[][] {
  const steps: WireRecord[][] = [];
  const x = () => w.xid();
  let id = x();
  steps.push([
    ...w.send(id, 'GET', '/.well-known/oauth-protected-resource/mcp', { 'mcp-protocol-version': '2025-06-18', accept: '*/*' }),
    ...w.reply(
      id,
      200,
      { 'content-type': 'application/json' },
      json({ resource: TARGET, authorization_servers: ['http://upstream.test/'], scopes_supported: ['mcp:tools'] }),
    ),
  ]);
  id = x();
  steps.push([
    ...w.send(id, 'GET', '/.well-known/oauth-authorization-server', { 'mcp-protocol-version': '2025-06-18' }),
    ...w.reply(
      id,
      200,
      { 'content-type': 'application/json' },
      json({
        issuer: 'http://upstream.test/',
        authorization_endpoint: 'http://upstream.test/authorize',
        token_endpoint: 'http://upstream.test/token',
        registration_endpoint: 'http://upstream.test/register',
        jwks_uri: 'http://upstream.test/jwks',
        code_challenge_methods_supported: ['S256'],
      }),
    ),
  ]);
  id = x();
  steps.push([
    ...w.send(
      id,
      'POST',
      '/register',
      { 'content-type': 'application/json' },
      json({
        client_name: 'agent',
        redirect_uris: ['http://localhost:1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'client_secret_post',
      }),
    ),
    ...w.reply(
      id,
      201,
      { 'content-type': 'application/json' },
      json({
        client_id: 'client-7',
        client_secret: 'cs-SECRET-registered',
        registration_access_token: 'rat-SECRET-mgmt',
        redirect_uris: ['http://localhost:1/callback'],
      }),
    ),
  ]);
  id = x();
  steps.push([
    ...w.send(
      id,
      'GET',
      '/authorize?response_type=code&client_id=client-7&code_challenge=E9Melhoa2Ow&code_challenge_method=S256&state=STATE-SECRET&resource=http%3A%2F%2Fupstream.test%2Fmcp',
      {},
    ),
    ...w.reply(id, 302, { location: 'http://localhost:1/callback?code=CODE-SECRET-42&state=STATE-SECRET' }),
  ]);
  id = x();
  steps.push([
    ...w.send(
      id,
      'POST',
      '/token',
      { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      'grant_type=authorization_code&code=CODE-SECRET-42&code_verifier=verifier-SECRET&redirect_uri=http%3A%2F%2Flocalhost%3A1%2Fcallback&client_id=client-7&client_secret=cs-SECRET-registered&resource=http%3A%2F%2Fupstream.test%2Fmcp',
      [30],
    ),
    ...w.reply(
      id,
      200,
      { 'content-type': 'application/json' },
      json({
        access_token: 'at-SECRET-access',
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: 'rt-SECRET-refresh',
        id_token: 'idt-SECRET-id',
        scope: 'mcp:tools',
      }),
      [12],
    ),
  ]);
  id = x();
  steps.push([
    ...w.send(id, 'GET', '/jwks', {}),
    ...w.reply(
      id,
      200,
      { 'content-type': 'application/jwk-set+json' },
      json({ keys: [{ kty: 'RSA', kid: 'k1', alg: 'RS256', n: 'mod', e: 'AQAB' }] }),
    ),
  ]);
  return steps;
}

const HINTS_BY_STEP = [
  ['oauth-resource-metadata'],
  ['oauth-server-metadata'],
  ['oauth-client-registration'],
  ['oauth-authorize', 'oauth-authorization-code'],
  ['oauth-token-request', 'oauth-tokens-issued'],
  ['jwks'],
];

describe('Recorder: plain HTTP (OAuth) exchanges', () => {
  it('a whole OAuth flow (discovery, registration, authorization, token, JWKS) has no error-level problem, its hints, and no secret kept', () => {
    const { store, w, feed } = setup();
    // The client's first MCP request is refused: that is MCP (its session closes as initialize-rejected).
    const x0 = w.xid();
    feed([
      ...w.send(x0, 'POST', '/mcp', MCP_HEADERS, json(INIT)),
      ...w.reply(
        x0,
        401,
        { 'content-type': 'application/json', 'www-authenticate': `Bearer resource_metadata="${RM}"` },
        json({ error: 'invalid_token' }),
      ),
    ]);
    for (const step of oauthFlow(w)) feed(step);

    expect(problems(store).filter((p) => p.level === 'error')).toEqual([]);
    expect(problems(store)).toEqual([]);
    const oauth = [...store.exchanges.values()].filter((x) => x.id !== x0);
    expect(oauth.map((x) => `${x.method} ${x.url.split('?')[0]} ${x.status}`)).toEqual([
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /register 201',
      'GET /authorize 302',
      'POST /token 200',
      'GET /jwks 200',
    ]);
    expect(oauth.map((x) => codes(x.hints))).toEqual(HINTS_BY_STEP);
    expect(oauth.every((x) => x.plain === true && x.sessionId === 's2' && x.carrier === undefined)).toBe(true);
    // One bucket for the origin: exchanges only, no MCP counts, no errors.
    expect(sessionOf(store, 's2')).toMatchObject({
      transport: 'http',
      target: 'http://upstream.test',
      counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 6 },
    });
    // The refused initialize stays MCP.
    expect(exchangeOf(store, x0)).toMatchObject({ sessionId: 's1', status: 401 });
    expect(exchangeOf(store, x0).plain).toBeUndefined();
    expect(codes(exchangeOf(store, x0).hints)).toContain('auth-required');
    expect(sessionOf(store, 's1')).toMatchObject({
      transport: 'streamable-http',
      status: 'closed',
      closeReason: 'initialize-rejected',
      counts: { messages: 1, errors: 0 },
    });
    expect(store.sessions.size).toBe(2);
    // Its 401 body is the authorization layer's (RFC 6750), not a JSON-RPC message: a preview and its meaning.
    expect(messages(store).map((m) => [m.exchangeId, m.kind])).toEqual([[x0, 'request']]);
    expect(exchangeOf(store, x0).responsePreview).toBe('{"error":"invalid_token"}');
    expect(codes(exchangeOf(store, x0).hints)).toEqual(['auth-required', 'oauth-error']);

    // Previews, redacted.
    const [prm, , dcr, authorize, token] = oauth;
    expect(JSON.parse(prm.responsePreview!)).toMatchObject({ resource: TARGET });
    expect(JSON.parse(dcr.responsePreview!)).toEqual({
      client_id: 'client-7',
      client_secret: '[redacted]',
      registration_access_token: '[redacted]',
      redirect_uris: ['http://localhost:1/callback'],
    });
    expect(authorize.url).toContain('state=[redacted]');
    expect(authorize.responseHeaders?.location).toBe('http://localhost:1/callback?code=[redacted]&state=[redacted]');
    expect(token.requestPreview).toBe(
      'grant_type=authorization_code&code=[redacted]&code_verifier=[redacted]&redirect_uri=http%3A%2F%2Flocalhost%3A1%2Fcallback&client_id=client-7&client_secret=[redacted]&resource=http%3A%2F%2Fupstream.test%2Fmcp',
    );
    expect(JSON.parse(token.responsePreview!)).toEqual({
      access_token: '[redacted]',
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: '[redacted]',
      id_token: '[redacted]',
      scope: 'mcp:tools',
    });
    expect(token.hints[0].text).toContain('resource="http://upstream.test/mcp" (RFC 8707 audience)');

    // No credential in the store (what the feed and the API serve) or in any export.
    const texts = {
      store: JSON.stringify(store.snapshot()),
      har: JSON.stringify(exportHar(store)),
      ndjson: exportNdjson(store),
      fixture: JSON.stringify(exportFixture(store, 's2')),
    };
    for (const [name, text] of Object.entries(texts))
      for (const secret of SECRETS) expect(text.includes(secret), `${name} holds ${secret}`).toBe(false);
    expect(exportFixture(store, 's2').exchanges.map((x) => x.url.split('?')[0])).toEqual(oauth.map((x) => x.url.split('?')[0]));
  });

  it('extension grants (JWT bearer / cross-app access, token exchange): assertion, client_assertion, subject_token and actor_token are redacted in previews and exports', () => {
    const { store, w, feed } = setup();
    const forms = [
      'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=eyJ.ASSERTION-SECRET.sig&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_assertion=eyJ.CLIENT-ASSERTION-SECRET.sig&resource=http%3A%2F%2Fupstream.test%2Fmcp',
      'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&subject_token=SUBJECT-SECRET&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid_token&actor_token=ACTOR-SECRET&requested_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid-jag&audience=http%3A%2F%2Fas.test',
    ];
    for (const form of forms) {
      const x = w.xid();
      feed([
        ...w.send(x, 'POST', '/oauth2/token', { 'content-type': 'application/x-www-form-urlencoded' }, form),
        ...w.reply(
          x,
          200,
          { 'content-type': 'application/json' },
          json({ access_token: 'ISSUED-SECRET', issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A' }),
        ),
      ]);
      expect(codes(exchangeOf(store, x).hints)).toEqual(['oauth-token-request', 'oauth-tokens-issued']);
    }
    expect(problems(store)).toEqual([]);
    const texts = [
      JSON.stringify(store.snapshot()),
      JSON.stringify(exportHar(store)),
      exportNdjson(store),
      JSON.stringify(exportFixture(store, 's1')),
    ];
    for (const text of texts) expect(text).not.toMatch(/ASSERTION-SECRET|SUBJECT-SECRET|ACTOR-SECRET|ISSUED-SECRET/);
    expect(exchangeOf(store, 'x1').requestPreview).toContain('assertion=[redacted]&client_assertion_type=');
  });

  it('recorded with --show-secrets, the store keeps the credentials but no export does', () => {
    const { store, w, feed } = setup({ showSecrets: true });
    for (const step of oauthFlow(w)) feed(step);
    expect(JSON.stringify(store.snapshot())).toContain('at-SECRET-access');
    expect(problems(store)).toEqual([]);
    const texts = [JSON.stringify(exportHar(store)), exportNdjson(store), JSON.stringify(exportFixture(store, 's1'))];
    for (const text of texts) for (const secret of SECRETS) expect(text).not.toContain(secret);
  });

  it('an OAuth exchange interleaved with an MCP session changes none of its counts', () => {
    const run = (withOAuth: boolean) => {
      const { store, w, feed } = setup();
      const sh = { ...MCP_HEADERS, 'mcp-session-id': 'S', 'mcp-protocol-version': '2025-06-18' };
      const x1 = w.xid();
      feed([
        ...w.send(x1, 'POST', '/mcp', MCP_HEADERS, json(INIT)),
        ...w.reply(x1, 200, { 'content-type': 'application/json', 'mcp-session-id': 'S' }, json(INIT_RESULT)),
      ]);
      const call = w.xid();
      feed([
        ...w.send(call, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } })),
        w.head(call, 200, { 'content-type': 'text/event-stream' }),
      ]);
      if (withOAuth) {
        // A refresh in the middle of a call, refused: a token error, not an MCP one.
        const t = w.xid();
        feed([
          ...w.send(
            t,
            'POST',
            '/token',
            { 'content-type': 'application/x-www-form-urlencoded' },
            'grant_type=refresh_token&refresh_token=rt-SECRET-refresh&resource=http%3A%2F%2Fupstream.test%2Fmcp',
          ),
          ...w.reply(
            t,
            400,
            { 'content-type': 'application/json' },
            json({ error: 'invalid_grant', error_description: 'refresh token expired' }),
          ),
        ]);
        const m = w.xid();
        feed([
          ...w.send(m, 'GET', '/.well-known/oauth-protected-resource/mcp', {}),
          ...w.reply(m, 404, { 'content-type': 'text/html' }, '<h1>Not Found</h1>'),
        ]);
        expect(codes(exchangeOf(store, t).hints)).toEqual(['oauth-token-request', 'oauth-token-error']);
        expect(codes(exchangeOf(store, m).hints)).toEqual(['oauth-metadata-not-found']);
        expect(exchangeOf(store, m).responsePreview).toBe('<h1>Not Found</h1>');
      }
      feed([...w.chunks(call, `data: ${json({ jsonrpc: '2.0', id: 1, result: { content: [] } })}\n\n`), w.end(call)]);
      const x3 = w.xid();
      feed([
        ...w.send(x3, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 2, method: 'nope' })),
        ...w.reply(
          x3,
          200,
          { 'content-type': 'application/json' },
          json({ jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } }),
        ),
      ]);
      return { store, mcp: sessionOf(store, 's1') };
    };
    const plain = run(false);
    const mixed = run(true);
    expect(mixed.mcp.counts).toEqual(plain.mcp.counts);
    expect(mixed.mcp.counts).toMatchObject({ messages: 6, requests: 3, errors: 1, exchanges: 3 });
    expect(messages(mixed.store).map((m) => m.method)).toEqual(messages(plain.store).map((m) => m.method));
    expect(problems(mixed.store)).toEqual([]);
    expect(sessionOf(mixed.store, 's2')).toMatchObject({ transport: 'http', counts: { messages: 0, errors: 0, exchanges: 2 } });
  });

  it('plain exchanges to two origins go to two buckets; the bucket keeps its upstream name', () => {
    const { store, w, feed } = setup();
    const a = w.xid();
    feed([
      ...w.send(a, 'GET', '/.well-known/openid-configuration', {}),
      ...w.reply(a, 200, { 'content-type': 'application/json' }, json({ issuer: 'https://idp.example' })),
    ]);
    const b = w.xid();
    const other: WireRecord = {
      ...(w.request(b, 'GET', '/keys') as Extract<WireRecord, { t: 'request' }>),
      upstreamUrl: 'https://idp.example/keys',
      target: 'https://idp.example',
      targetName: 'idp',
    };
    feed([other, { t: 'request-end', xid: b, ts: w.ts() }, ...w.reply(b, 200, { 'content-type': 'application/json' }, json({ keys: [] }))]);
    expect([...store.sessions.values()].map((s) => [s.transport, s.target, s.targetName])).toEqual([
      ['http', 'http://upstream.test', undefined],
      ['http', 'https://idp.example', 'idp'],
    ]);
    expect(exchangeOf(store, b)).toMatchObject({ sessionId: 's2', plain: true });
  });

  it('a plain JSON body cut at the parse limit keeps a preview with its credential fields redacted', () => {
    const { store, w, feed } = setup({ maxBodyBytes: 64 });
    const x = w.xid();
    const body = json({ access_token: 'at-SECRET-access', refresh_token: 'rt-SECRET-refresh', padding: 'p'.repeat(200) });
    feed([
      ...w.send(x, 'POST', '/token', { 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials'),
      ...w.reply(x, 200, { 'content-type': 'application/json' }, body),
    ]);
    const ex = exchangeOf(store, x);
    expect(ex).toMatchObject({ plain: true, truncated: true });
    expect(ex.responsePreview).toMatch(/^\{"access_token":"\[redacted\]","refresh_token":"\[redacted\]"/);
    expect(JSON.stringify(store.snapshot())).not.toContain('SECRET');
    expect(problems(store)).toEqual([]);
    // Recorded with --show-secrets, the cut preview keeps them; every export still redacts them.
    const shown = setup({ maxBodyBytes: 64, showSecrets: true });
    const y = shown.w.xid();
    shown.feed([
      ...shown.w.send(y, 'POST', '/token', { 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials'),
      ...shown.w.reply(y, 200, { 'content-type': 'application/json' }, body),
    ]);
    expect(exchangeOf(shown.store, y).responsePreview).toContain('at-SECRET-access');
    for (const text of [
      JSON.stringify(exportHar(shown.store)),
      exportNdjson(shown.store),
      JSON.stringify(exportFixture(shown.store, 's1')),
    ])
      expect(text).not.toContain('SECRET');
  });
});

describe('Recorder: what stays MCP', () => {
  it("a JSON-RPC-shaped body without jsonrpc (or with the wrong version) is the client's mistake, as before", () => {
    const { store, w, feed } = setup();
    // No MCP header and not the target's path: the body's shape (method + id) says MCP.
    const x1 = w.xid();
    feed([
      ...w.send(x1, 'POST', '/rpc', { 'content-type': 'application/json' }, json({ id: 1, method: 'tools/list' })),
      ...w.reply(x1, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 1, result: {} })),
    ]);
    const [m] = messages(store);
    expect(m).toMatchObject({ kind: 'request', exchangeId: x1 });
    expect(m.hints).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'missing-jsonrpc', level: 'error' })]));
    expect(exchangeOf(store, x1).plain).toBeUndefined();
    const x2 = w.xid();
    feed([
      ...w.send(x2, 'POST', '/rpc', { 'content-type': 'application/json' }, json({ jsonrpc: '1.0', id: 2, method: 'ping' })),
      ...w.reply(x2, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 2, result: {} })),
    ]);
    expect(
      messages(store)
        .find((x) => x.exchangeId === x2)
        ?.hints.some((h) => h.level === 'error'),
    ).toBe(true);
    expect(store.sessions.size).toBe(1);
    expect(sessionOf(store).transport).toBe('streamable-http');
  });

  it("a 401/403 body is JSON-RPC when it says so, and a body without a challenge stays the server's mistake", () => {
    const { store, w, feed } = setup();
    const sh = { ...MCP_HEADERS, 'mcp-session-id': 'S' };
    const x1 = w.xid();
    feed([
      ...w.send(x1, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 1, method: 'tools/list' })),
      ...w.reply(
        x1,
        401,
        { 'content-type': 'application/json', 'www-authenticate': 'Bearer' },
        json({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Unauthorized' } }),
      ),
    ]);
    expect(messages(store).map((m) => m.kind)).toEqual(['request', 'error']);
    const x2 = w.xid();
    feed([
      ...w.send(x2, 'POST', '/mcp', sh, json({ jsonrpc: '2.0', id: 2, method: 'tools/list' })),
      ...w.reply(x2, 400, { 'content-type': 'application/json' }, json({ error: 'bad' })),
    ]);
    const last = messages(store).at(-1)!;
    expect(last).toMatchObject({ kind: 'error', exchangeId: x2 });
    expect(last.hints.some((h) => h.code === 'missing-jsonrpc' && h.level === 'error')).toBe(true);
  });

  it('a JSON object of another shape is not-jsonrpc when the request looks like MCP (Accept, an MCP header, the MCP endpoint)', () => {
    const { store, w, feed } = setup();
    const cases: [string, Record<string, string>][] = [
      ['/elsewhere', MCP_HEADERS],
      ['/elsewhere', { 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' }],
      ['/mcp', { 'content-type': 'application/json' }],
    ];
    for (const [path, headers] of cases) {
      const x = w.xid();
      feed([
        ...w.send(x, 'POST', path, headers, json({ redirect_uris: ['http://x'] })),
        ...w.reply(
          x,
          400,
          { 'content-type': 'application/json' },
          json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } }),
        ),
      ]);
      expect(exchangeOf(store, x).plain, `${path} ${JSON.stringify(headers)}`).toBeUndefined();
    }
    expect(problems(store).map((p) => [p.code, p.level])).toEqual([
      ['not-jsonrpc', 'error'],
      ['not-jsonrpc', 'error'],
      ['not-jsonrpc', 'error'],
    ]);
  });

  it('invalid JSON: MCP when the request or the JSON-RPC answer says so, plain HTTP otherwise', () => {
    const { store, w, feed } = setup();
    const bad = '{"jsonrpc":"2.0","id":1,';
    // To a URL that carried MCP before (the first exchange makes /rpc known).
    const x0 = w.xid();
    feed([
      ...w.send(x0, 'POST', '/rpc', { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', method: 'notifications/initialized' })),
      ...w.reply(x0, 202, {}),
    ]);
    const x1 = w.xid();
    feed([
      ...w.send(x1, 'POST', '/rpc', { 'content-type': 'application/json' }, bad),
      ...w.reply(x1, 400, { 'content-type': 'text/plain' }, 'bad'),
    ]);
    // No sign in the request; the server answers with a JSON-RPC parse error: MCP.
    const x2 = w.xid();
    feed([
      ...w.send(x2, 'POST', '/api', { 'content-type': 'application/json' }, bad),
      ...w.reply(
        x2,
        200,
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
      ),
    ]);
    // No sign anywhere: plain HTTP, its body kept as a preview.
    const x3 = w.xid();
    feed([
      ...w.send(x3, 'POST', '/upload', { 'content-type': 'application/json' }, bad),
      ...w.reply(x3, 400, { 'content-type': 'text/html' }, '<p>bad json</p>'),
    ]);
    expect(problems(store).map((p) => [p.code, p.exchangeId])).toEqual([
      ['invalid-json', x1],
      ['invalid-json', x2],
    ]);
    expect(exchangeOf(store, x2).plain).toBeUndefined();
    expect(exchangeOf(store, x3)).toMatchObject({ plain: true, requestPreview: bad, responsePreview: '<p>bad json</p>' });
    expect(codes(exchangeOf(store, x3).hints)).toEqual(['plain-http', 'client-error']);
  });

  it('a GET without any sign is MCP when it gets an event stream or JSON-RPC, plain HTTP when it gets other JSON', () => {
    const { store, w, feed } = setup();
    const legacy = w.xid();
    feed([
      ...w.send(legacy, 'GET', '/events', {}),
      w.head(legacy, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(legacy, 'event: endpoint\ndata: /messages?sid=1\n\n'),
    ]);
    expect(sessionOf(store)).toMatchObject({ transport: 'legacy-sse', endpoint: '/messages?sid=1' });
    const rpc = w.xid();
    feed([
      ...w.send(rpc, 'GET', '/status', {}),
      ...w.reply(
        rpc,
        200,
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }),
      ),
    ]);
    expect(exchangeOf(store, rpc).plain).toBeUndefined();
    const other = w.xid();
    feed([
      ...w.send(other, 'GET', '/status', {}),
      ...w.reply(other, 200, { 'content-type': 'application/json' }, json({ ok: true, error: null })),
    ]);
    expect(exchangeOf(store, other)).toMatchObject({ plain: true, responsePreview: '{"ok":true,"error":null}', carrier: undefined });
    expect(codes(exchangeOf(store, other).hints)).toEqual(['plain-http']);
    expect(problems(store)).toEqual([]);
  });

  it('a /.well-known/ request is plain HTTP even with MCP headers (the SDK sends MCP-Protocol-Version on discovery), and an upstream failure there counts no error', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    feed([
      ...w.send(x, 'GET', '/.well-known/oauth-authorization-server', { 'mcp-protocol-version': '2025-06-18', 'mcp-session-id': 'S' }),
      { t: 'upstream-error', xid: x, ts: w.ts(), code: 'ECONNREFUSED', message: 'connect ECONNREFUSED', status: 502 },
    ]);
    expect(exchangeOf(store, x)).toMatchObject({ plain: true, sessionId: 's1', status: 502 });
    expect(problems(store)).toEqual([expect.objectContaining({ code: 'upstream-unreachable', sessionId: 's1' })]);
    expect(sessionOf(store)).toMatchObject({ transport: 'http', counts: { errors: 0, exchanges: 1 } });
  });
});

describe('Recorder: id-less requests to two upstreams', () => {
  it('never share a session: the grouping key includes the target', () => {
    const { store, w, feed } = setup();
    const send = (target: string, id: number, meta?: Record<string, unknown>) => {
      const x = w.xid();
      const head = {
        ...(w.request(x, 'POST', '/mcp', MCP_HEADERS) as Extract<WireRecord, { t: 'request' }>),
        target,
        upstreamUrl: `${target}`,
      };
      const body = json({ jsonrpc: '2.0', id, method: 'tools/list', params: meta ? { _meta: meta } : undefined });
      feed([
        head,
        { t: 'request-chunk', xid: x, ts: w.ts(), chunk: new TextEncoder().encode(body) },
        { t: 'request-end', xid: x, ts: w.ts() },
        ...w.reply(x, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id, result: {} })),
      ]);
      return x;
    };
    const a1 = send('http://a.test/mcp', 1);
    const b1 = send('http://b.test/mcp', 1);
    const a2 = send('http://a.test/mcp', 2);
    const client = { 'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '1' } };
    const a3 = send('http://a.test/mcp', 3, client);
    const b3 = send('http://b.test/mcp', 3, client);
    const sessionOfX = (x: string) => exchangeOf(store, x).sessionId;
    expect(sessionOfX(a1)).toBe(sessionOfX(a2));
    expect(sessionOfX(a1)).not.toBe(sessionOfX(b1));
    expect(sessionOfX(a3)).not.toBe(sessionOfX(b3));
    expect(sessionOfX(a3)).not.toBe(sessionOfX(a1));
    expect([...store.sessions.values()].map((s) => [s.target, s.grouping])).toEqual([
      ['http://a.test/mcp', 'requests without Mcp-Session-Id'],
      ['http://b.test/mcp', 'requests without Mcp-Session-Id'],
      ['http://a.test/mcp', 'client:agent@1'],
      ['http://b.test/mcp', 'client:agent@1'],
    ]);
    // Each id 1 paired within its own session: no duplicate-id across the two servers.
    expect(messages(store).every((m) => m.hints.every((h) => h.level !== 'error'))).toBe(true);
  });
});

describe('forward-mode tunnels', () => {
  it('are plain HTTP exchanges saying why they were not decrypted, with the bytes each way and no problem', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    const target = 'https://api.example:443';
    const head = {
      ...(w.request(x, 'CONNECT', 'api.example:443', { host: 'api.example:443', 'mcp-protocol-version': '2025-06-18' }) as Extract<
        WireRecord,
        { t: 'request' }
      >),
      target,
      upstreamUrl: target,
      tunnel: 'api.example matches no --intercept pattern: tunnelled without decrypting',
    };
    feed([
      head,
      { t: 'request-end', xid: x, ts: w.ts() },
      { t: 'response', xid: x, ts: w.ts(), status: 200, headers: {} },
      { t: 'request-skip', xid: x, ts: w.ts(), bytes: 517 },
      { t: 'response-skip', xid: x, ts: w.ts(), bytes: 4096 },
      { t: 'response-end', xid: x, ts: w.ts() },
    ]);
    const ex = exchangeOf(store, x);
    expect(ex.plain).toBe(true);
    expect([ex.requestBytes, ex.responseBytes]).toEqual([517, 4096]);
    expect(ex.hints[0]).toMatchObject({
      code: 'tunnel',
      text: 'CONNECT api.example:443: api.example matches no --intercept pattern: tunnelled without decrypting',
    });
    expect(problems(store)).toEqual([]);
    expect(messages(store)).toEqual([]);
    expect(sessionOf(store, ex.sessionId)).toMatchObject({ transport: 'http', target: 'https://api.example' });
  });
});

describe('OAuth metadata at a custom path', () => {
  it('is plain HTTP although the SDK sends MCP-Protocol-Version on the discovery GET (conformance auth/metadata-var3)', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    feed([
      ...w.send(x, 'GET', '/custom/metadata/location.json', { 'mcp-protocol-version': '2025-06-18', accept: '*/*' }),
      ...w.reply(
        x,
        200,
        { 'content-type': 'application/json' },
        json({ resource: TARGET, authorization_servers: ['http://upstream.test/'] }),
      ),
    ]);
    expect(exchangeOf(store, x).plain).toBe(true);
    expect(problems(store)).toEqual([]);
    // The MCP GET stream (an event stream accepted) still counts as MCP from its head.
    const y = w.xid();
    feed([...w.send(y, 'GET', '/mcp', { 'mcp-protocol-version': '2025-06-18', accept: 'text/event-stream' }), ...w.reply(y, 405, {})]);
    expect(exchangeOf(store, y).plain).toBeUndefined();
  });
});

describe('plain HTTP previews of large bodies', () => {
  it('redact only what they keep, plus a margin: a secret across the 16 KiB cut is still found whole', async () => {
    const { AgentWire } = await import('../../support/scripted-agent.js');
    const { Recorder } = await import('../../../proxy/recorder/recorder.js');
    const { createRedactor } = await import('../../../proxy/recorder/redact/redact.js');
    const { EventStore } = await import('../../../proxy/recorder/store/event-store.js');
    const secret = 'cs-VERYSECRETVALUE-0123456789';
    const w = new AgentWire();
    // The secret's value starts a few characters before the preview's 16 KiB cut, the body goes on for 200 KiB.
    const body = JSON.stringify({ pad: 'x'.repeat(16 * 1024 - 40), client_secret: secret, tail: 'y'.repeat(200 * 1024) });
    w.exchange({ origin: 'https://auth.example', url: '/register', headers: { 'content-type': 'application/json' }, body, chunks: ['{}'] });
    const store = new EventStore();
    new Recorder({ store, redactor: createRedactor({}), tokenCounter: null }).handle(w.records);
    const preview = [...store.exchanges.values()][0].requestPreview!;
    expect(preview.length).toBeLessThanOrEqual(16 * 1024);
    expect(preview).toContain('"client_secret"');
    expect(preview).not.toContain(secret.slice(0, 8));
  });
});
