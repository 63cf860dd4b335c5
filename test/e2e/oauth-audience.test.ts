/**
 * OAuth with the real audience. A strict authorization server (RFC 8707: `resource` must be the
 * MCP server's own URL, in the authorization and in the token request, else 400 invalid_target)
 * and an MCP server that refuses tokens for any other audience (test/support/strict-auth-server.ts),
 * driven by the SDK's OAuth client (discovery, dynamic registration, authorization code + PKCE):
 * - directly: the flow completes (baseline), and the strict checks are real;
 * - through mcpscope's forward proxy (absolute-form and CONNECT): the client keeps the server's
 *   URL, so the flow completes with a token for the real audience; every MCP and OAuth exchange is
 *   recorded, nothing is modified, and no credential is kept;
 * - through the reverse proxy: the rewritten metadata makes the client ask for a token for the
 *   proxy's URL (on the host the client used), which the strict server refuses — why forward mode exists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { ProxyAgent, fetch as undiciFetch } from 'undici';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startMcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';
import type { ModificationEvent } from '../../proxy/core/model/events.js';
import { startStrictOAuthWorld, type StrictOAuthWorld } from '../support/strict-auth-server.js';
import { TestOAuthClient, connectWithOAuth, type FetchLike } from '../support/oauth-test-client.js';

let world: StrictOAuthWorld;
const cleanups: (() => Promise<unknown> | unknown)[] = [];
beforeAll(async () => {
  world = await startStrictOAuthWorld();
  cleanups.push(() => world.close());
});
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Connects (the shared helper), closed after the file. */
async function connectAndKeep(url: string, oauth: TestOAuthClient, fetchFn?: FetchLike): Promise<Client> {
  const client = await connectWithOAuth(url, oauth, { clientName: 'oauth-audience-e2e', fetchFn });
  cleanups.push(() => client.close());
  return client;
}

/** Runs the whole flow and a tool call; checks what the strict servers saw. */
async function flowSucceeds(oauth: TestOAuthClient, fetchFn?: FetchLike): Promise<void> {
  const from = world.asLog.length;
  const client = await connectAndKeep(world.serverUrl, oauth, fetchFn);
  const result = await client.callTool({ name: 'whoami', arguments: { greeting: 'hello' } });
  expect(JSON.stringify(result.content)).toContain(`hello, ${oauth.client!.client_id} (aud ${world.serverUrl})`);
  // The authorization server issued the token for the server's real URL, after checking it twice.
  expect(world.tokens.get(oauth.saved!.access_token)?.aud).toBe(world.serverUrl);
  expect(oauth.authorizationUrls.map((u) => u.searchParams.get('resource'))).toEqual([world.serverUrl]);
  // (The SDK reads the authorization server's metadata again when it finishes the flow.)
  const seen = world.asLog.slice(from);
  expect(seen[0]).toEqual({ endpoint: 'metadata', status: 200 });
  expect(seen.filter((e) => e.endpoint !== 'metadata')).toEqual([
    { endpoint: 'register', status: 201 },
    { endpoint: 'authorize', resource: world.serverUrl, status: 302 },
    { endpoint: 'token', resource: world.serverUrl, status: 200 },
  ]);
  expect(oauth.secrets().every((s) => typeof s === 'string' && s.length >= 16)).toBe(true);
}

async function scopeWith(options: Parameters<typeof startMcpscope>[0]): Promise<McpscopeCore> {
  const m = await startMcpscope(options);
  cleanups.push(() => m.close());
  return m;
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});
const initialize = (token?: string) => ({
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  }),
});

describe('OAuth with the real audience', () => {
  it('the strict checks are real: a wrong resource gets 400 invalid_target, a wrong audience 401 invalid_token', async () => {
    const redirect = 'http://localhost:1/callback';
    const reg = await fetch(`${world.asOrigin}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirect], token_endpoint_auth_method: 'client_secret_post' }),
    });
    expect(reg.status).toBe(201);
    const { client_id, client_secret } = (await reg.json()) as { client_id: string; client_secret: string };
    const verifier = randomBytes(32).toString('base64url');
    const authorize = (resource?: string) => {
      const u = new URL(`${world.asOrigin}/authorize`);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id,
        redirect_uri: redirect,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        state: 's',
      }))
        u.searchParams.set(k, v);
      if (resource !== undefined) u.searchParams.set('resource', resource);
      return fetch(u, { redirect: 'manual' });
    };
    for (const wrong of [undefined, `${world.serverOrigin}/`, `${world.serverUrl}/`, world.serverUrl.replace('127.0.0.1', 'localhost')]) {
      const res = await authorize(wrong);
      expect(res.status, String(wrong)).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_target' });
    }
    const ok = await authorize(world.serverUrl);
    expect(ok.status).toBe(302);
    const code = new URL(ok.headers.get('location')!).searchParams.get('code')!;
    const token = (resource: string) =>
      fetch(
        `${world.asOrigin}/token`,
        form({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: redirect,
          client_id,
          client_secret,
          resource,
        }),
      );
    const refused = await token(`http://127.0.0.1:1/mcp`);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_target' });
    const issued = await token(world.serverUrl);
    expect(issued.status).toBe(200);
    const { access_token } = (await issued.json()) as { access_token: string };
    expect(world.tokens.get(access_token)?.aud).toBe(world.serverUrl);

    // The server: no token → a challenge naming its metadata; another audience → invalid_token.
    const none = await fetch(world.serverUrl, initialize());
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${world.serverOrigin}/.well-known/oauth-protected-resource/mcp"`,
    );
    const elsewhere = await fetch(world.serverUrl, initialize(world.mint('http://127.0.0.1:1/mcp')));
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", error_description="the token's audience http:\/\/127\.0\.0\.1:1\/mcp is not this server/,
    );
    const good = await fetch(world.serverUrl, initialize(access_token));
    expect(good.status).toBe(200);
    expect(await good.text()).toContain('strict-audience-server');
  });

  it('directly: discovery, registration, authorization, token exchange and a tool call succeed', async () => {
    await flowSucceeds(new TestOAuthClient({ name: 'mcpscope audience e2e' }));
  });

  describe.each([
    { mode: 'absolute-form', proxyTunnel: false },
    { mode: 'CONNECT', proxyTunnel: true },
  ])('through the forward proxy ($mode)', ({ proxyTunnel }) => {
    it('the flow completes with a token for the real audience, everything is recorded, nothing modified, no secret kept', async () => {
      const m = await scopeWith({ forward: { port: 0 }, uiPort: 0 });
      const dispatcher = new ProxyAgent({ uri: m.forwardProxy!.origin, proxyTunnel });
      cleanups.push(() => dispatcher.close());
      const viaProxy = ((url: string | URL, init?: RequestInit) =>
        undiciFetch(url, { ...(init as object), dispatcher } as never)) as unknown as FetchLike;
      // What the client sent to the proxy (undici's own record of its requests): CONNECTs, or absolute-form requests.
      const toProxy: string[] = [];
      const onRequest = (msg: unknown) => {
        const r = (msg as { request: { origin: string; method: string; path: string } }).request;
        if (String(r.origin) === m.forwardProxy!.origin) toProxy.push(`${r.method} ${r.path}`);
      };
      diagnostics.subscribe('undici:request:create', onRequest);
      const oauth = new TestOAuthClient({ name: 'mcpscope audience e2e', browser: viaProxy });
      try {
        await flowSucceeds(oauth, viaProxy);
      } finally {
        diagnostics.unsubscribe('undici:request:create', onRequest);
      }
      const S = world.serverOrigin;
      const A = world.asOrigin;
      expect(toProxy.length).toBeGreaterThan(0);
      if (proxyTunnel) {
        const authorities = [S, A].map((o) => `CONNECT ${new URL(o).host}`);
        expect(new Set(toProxy)).toEqual(new Set(authorities));
      } else {
        for (const r of toProxy) expect(r).toMatch(new RegExp(`^(GET|POST) (${S}|${A})/`));
        expect(toProxy).toContain(`POST ${A}/token`);
      }

      const done = (u: string, status: number) => (s: typeof m.store) =>
        [...s.exchanges.values()].some((x) => x.upstreamUrl === u && x.status === status && x.endedAt !== undefined);
      await m.waitFor(done(world.serverUrl, 200));
      await m.settle();
      const exchanges = [...m.store.exchanges.values()];
      const seen = exchanges.map((x) => `${x.method} ${x.upstreamUrl?.split('?')[0]} ${x.status}${x.plain ? ' plain' : ''}`);
      expect(seen).toEqual(
        expect.arrayContaining([
          `POST ${S}/mcp 401`,
          `GET ${S}/.well-known/oauth-protected-resource/mcp 200 plain`,
          `GET ${A}/.well-known/oauth-authorization-server 200 plain`,
          `POST ${A}/register 201 plain`,
          `GET ${A}/authorize 302 plain`,
          `POST ${A}/token 200 plain`,
          `POST ${S}/mcp 200`,
        ]),
      );
      // Forward mode: the client sent the server's own URL, and that is what was forwarded.
      for (const x of exchanges) expect(x.upstreamUrl!.startsWith(S) || x.upstreamUrl!.startsWith(A), x.upstreamUrl).toBe(true);
      const events = m.store.snapshot();
      const calls = events.filter((e) => e.type === 'message' && e.method === 'tools/call');
      expect(calls.length).toBeGreaterThanOrEqual(1);
      expect(events.filter((e) => e.type === 'message' && e.method === 'initialize').length).toBeGreaterThanOrEqual(1);

      // Nothing was changed on the wire.
      expect(events.filter((e) => e.type === 'modification')).toEqual([]);

      // No credential anywhere in the store: access token, code, verifier, client secret.
      const text = JSON.stringify(events);
      expect(text).toContain('/token');
      for (const secret of oauth.secrets()) expect(text.includes(secret), `the store holds ${secret}`).toBe(false);
    });
  });

  describe.each(['127.0.0.1', 'localhost'])('through the reverse proxy, reached as %s', (host) => {
    it("the client asks for a token for the proxy's URL and the strict authorization server refuses it", async () => {
      const m = await scopeWith({ target: world.serverUrl, port: 0, uiPort: 0 });
      const proxyOrigin = `http://${host}:${m.proxy!.port}`;
      const proxyUrl = `${proxyOrigin}/mcp`;
      const from = world.asLog.length;
      const issuedBefore = world.tokens.size;
      const oauth = new TestOAuthClient({ name: 'mcpscope audience e2e' });

      await expect(connectAndKeep(proxyUrl, oauth)).rejects.toThrow(/invalid_target/);
      // The client asked for the proxy's URL (on the host it used), which the authorization server refused.
      expect(oauth.authorizationUrls.map((u) => u.searchParams.get('resource'))).toEqual([proxyUrl]);
      expect(world.asLog.slice(from)).toEqual([
        { endpoint: 'metadata', status: 200 },
        { endpoint: 'register', status: 201 },
        { endpoint: 'authorize', resource: proxyUrl, status: 400, error: 'invalid_target' },
      ]);
      expect(oauth.saved).toBeUndefined();
      expect(world.tokens.size).toBe(issuedBefore);

      // The rewrites named the host the client used, not the proxy's listening address.
      await m.waitFor((s) =>
        [...s.exchanges.values()].some((x) => x.url === '/.well-known/oauth-protected-resource/mcp' && x.endedAt !== undefined),
      );
      await m.settle();
      const mods = m.store.snapshot().filter((e): e is ModificationEvent => e.type === 'modification');
      const www = mods.find((e) => e.what === 'www-authenticate-rewrite');
      expect(www?.before).toBe(`Bearer resource_metadata="${world.serverOrigin}/.well-known/oauth-protected-resource/mcp"`);
      expect(www?.after).toBe(`Bearer resource_metadata="${proxyOrigin}/.well-known/oauth-protected-resource/mcp"`);
      const prm = mods.find((e) => e.what === 'oauth-metadata-rewrite');
      expect(JSON.parse(prm!.before).resource).toBe(world.serverUrl);
      expect(JSON.parse(prm!.after)).toMatchObject({ resource: proxyUrl, authorization_servers: [world.asOrigin] });

      // And a token for the proxy's URL, had the authorization server issued one, the server refuses.
      const res = await fetch(proxyUrl, initialize(world.mint(proxyUrl)));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(world.rsLog.at(-1)).toMatchObject({ status: 401, error: 'invalid_token', aud: proxyUrl });
    });
  });
});
