/**
 * OAuth through the proxy, end to end with real SDK pieces:
 * - upstream: an express app with the SDK's `mcpAuthRouter` (metadata, /authorize, /token,
 *   /register on the MCP origin, as 2025-03-26 servers do) over its demo in-memory provider, and
 *   `requireBearerAuth` in front of a stateless Streamable HTTP MCP server;
 * - client: the SDK's `StreamableHTTPClientTransport` with an in-memory `OAuthClientProvider`
 *   that "logs in" by fetching the authorization URL without following the redirect.
 * Connecting THROUGH mcpscope, discovery, dynamic registration, authorization, token exchange and
 * a tool call succeed; the session shows the 401 and the rewrites; no export holds a credential;
 * foreign origins are left alone; with rewriting off, the client's discovery fails.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { TestOAuthClient, connectWithOAuth } from '../support/oauth-test-client.js';
import type { ModificationEvent, ProblemEvent } from '../../proxy/core/model/events.js';

const TOKEN = 'oauth-e2e-ui-token-0123456789';
const FOREIGN_RM = 'https://auth.example.com/.well-known/oauth-protected-resource/mcp';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The demo provider, plus a refresh token in its token response (so there is one to leak). */
class Provider extends DemoInMemoryAuthProvider {
  readonly issued: { access: string[]; refresh: string[] } = { access: [], refresh: [] };
  override async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, verifier?: string) {
    const tokens = await super.exchangeAuthorizationCode(client, code, verifier);
    const refresh = randomUUID();
    this.issued.access.push(tokens.access_token);
    this.issued.refresh.push(refresh);
    return { ...tokens, refresh_token: refresh };
  }
}

/** The little of express's request and response these handlers use. */
interface Req {
  method: string;
  body?: unknown;
}
interface Res {
  set(name: string, value: string): Res;
  status(code: number): Res;
  json(body: unknown): void;
  redirect(status: number, url: string): void;
  end(): void;
  on(event: 'close', listener: () => void): void;
}

interface Upstream {
  origin: string;
  url: string;
  provider: Provider;
}

async function startOAuthUpstream(): Promise<Upstream> {
  // The SDK's express app (JSON body parsing, Host check); express itself has no types installed here.
  const app = createMcpExpressApp();
  const server: Server = await new Promise((resolve) => {
    const s: Server = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = new URL('/mcp', origin);
  const provider = new Provider();

  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(origin),
      resourceServerUrl: mcpUrl,
      scopesSupported: ['mcp:tools'],
      // The tests make many requests from one address.
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
    }),
  );
  // A redirect back onto the server's own origin, carrying a code (a login page would do this).
  app.get('/login', (_req: Req, res: Res) => {
    res.redirect(302, `${origin}/done?code=LOCATIONCODE0123456789&state=LOCATIONSTATE0123456789`);
  });
  // A challenge that names a foreign authorization server's resource metadata.
  app.post('/foreign', (_req: Req, res: Res) => {
    res
      .set('WWW-Authenticate', `Bearer error="invalid_token", resource_metadata="${FOREIGN_RM}"`)
      .status(401)
      .json({ error: 'invalid_token' });
  });
  // Protected-resource metadata on the upstream origin that names a foreign authorization server.
  app.get('/.well-known/oauth-protected-resource/foreign', (_req: Req, res: Res) => {
    res.json({ resource: `${origin}/foreign`, authorization_servers: ['https://auth.example.com'] });
  });

  const auth = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.all('/mcp', auth, async (req: Req, res: Res) => {
    if (req.method !== 'POST') {
      res.status(405).set('Allow', 'POST').end();
      return;
    }
    const mcp = new McpServer({ name: 'oauth-upstream', version: '1.0.0' });
    mcp.registerTool(
      'whoami',
      { description: 'Names the OAuth client', inputSchema: { greeting: z.string() } },
      async ({ greeting }, extra) => ({
        content: [{ type: 'text', text: `${greeting}, ${extra.authInfo?.clientId ?? 'nobody'}` }],
      }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req as never, res as never, req.body);
  });
  return { origin, url: mcpUrl.href, provider };
}

async function scope(upstream: Upstream, options: { rewrite?: boolean } = {}): Promise<Mcpscope> {
  const m = await startMcpscope({ target: upstream.url, uiPort: 0, token: TOKEN, ...options });
  cleanups.push(() => m.close());
  return m;
}

function api(m: Mcpscope, path: string): Promise<Response> {
  return fetch(`${m.ui!.origin}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
}

async function modifications(m: Mcpscope): Promise<ModificationEvent[]> {
  await m.settle();
  return m.store.snapshot().filter((e): e is ModificationEvent => e.type === 'modification');
}

describe('OAuth through the proxy', () => {
  it('the SDK client discovers, registers, authorizes, exchanges the code and calls a tool through mcpscope', async () => {
    const upstream = await startOAuthUpstream();
    const m = await scope(upstream);
    const oauth = new TestOAuthClient({ name: 'mcpscope oauth e2e', grantTypes: ['authorization_code', 'refresh_token'] });

    const client = await connectWithOAuth(m.proxy.url, oauth);
    cleanups.push(() => client.close());
    const result = await client.callTool({ name: 'whoami', arguments: { greeting: 'hello' } });
    expect(JSON.stringify(result.content)).toContain(`hello, ${oauth.client!.client_id}`);

    // Every step of the flow went to the proxy's origin, never to the upstream's.
    expect(oauth.authorizationUrls).toHaveLength(1);
    expect(oauth.authorizationUrls[0].origin).toBe(m.proxy.origin);
    expect(oauth.authorizationUrls[0].searchParams.get('resource')).toBe(m.proxy.url);
    expect(oauth.saved?.access_token).toBe(upstream.provider.issued.access[0]);
    expect(oauth.saved?.refresh_token).toBe(upstream.provider.issued.refresh[0]);

    await m.waitFor((s) =>
      [...s.exchanges.values()].some((x) => x.url.startsWith('/mcp') && x.status === 200 && x.responseBytes > 0 && x.endedAt !== undefined),
    );
    const exchanges = [...m.store.exchanges.values()];
    const paths = exchanges.map((x) => `${x.method} ${x.url.split('?')[0]} ${x.status}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'POST /mcp 401',
        'GET /.well-known/oauth-protected-resource/mcp 200',
        'GET /.well-known/oauth-authorization-server 200',
        'POST /register 201',
        'GET /authorize 302',
        'POST /token 200',
        'POST /mcp 200',
      ]),
    );

    // The OAuth exchanges are plain HTTP (not MCP), annotated for what they are, in the http bucket of the origin; the
    // whole flow recorded no error-level problem (a token response is not a JSON-RPC mistake).
    await m.settle();
    const problems = m.store.snapshot().filter((e): e is ProblemEvent => e.type === 'problem');
    expect(problems.filter((p) => p.level === 'error')).toEqual([]);
    const oauthSteps: [string, string][] = [
      ['GET /.well-known/oauth-protected-resource/mcp', 'oauth-resource-metadata'],
      ['GET /.well-known/oauth-authorization-server', 'oauth-server-metadata'],
      ['POST /register', 'oauth-client-registration'],
      ['GET /authorize', 'oauth-authorize'],
      ['POST /token', 'oauth-token-request'],
    ];
    const bucket = [...m.store.sessions.values()].find((s) => s.transport === 'http')!;
    expect(bucket).toMatchObject({ target: upstream.origin, counts: { messages: 0, errors: 0 } });
    for (const [step, code] of oauthSteps) {
      const x = exchanges.find((e) => `${e.method} ${e.url.split('?')[0]}` === step)!;
      expect(x, step).toMatchObject({ plain: true, sessionId: bucket.id });
      expect(
        x.hints.map((h) => h.code),
        step,
      ).toContain(code);
    }
    const tokenHints = exchanges
      .find((e) => e.url === '/token')!
      .hints.map((h) => h.text)
      .join(' ');
    expect(tokenHints).toContain('grant_type=authorization_code');
    expect(tokenHints).toContain(`resource="${m.proxy.url}"`);
    // The MCP sessions hold only MCP: no error counted in any of them.
    for (const s of m.store.sessions.values()) if (s.transport !== 'http') expect(s.counts.errors, s.id).toBe(0);

    // The 401 with its hint, in a session.
    const unauthorized = exchanges.find((x) => x.method === 'POST' && x.status === 401)!;
    expect(unauthorized.sessionId).toBeDefined();
    const hint = unauthorized.hints.find((h) => h.code === 'auth-required');
    expect(hint?.text).toContain('/.well-known/oauth-protected-resource/mcp');

    // The modification events, with before and after.
    const mods = await modifications(m);
    const www = mods.find((e) => e.what === 'www-authenticate-rewrite');
    expect(www?.before).toContain(`resource_metadata="${upstream.origin}/.well-known/oauth-protected-resource/mcp"`);
    expect(www?.after).toContain(`resource_metadata="${m.proxy.origin}/.well-known/oauth-protected-resource/mcp"`);
    expect(www?.exchangeId).toBe(unauthorized.id);
    const metadata = mods.filter((e) => e.what === 'oauth-metadata-rewrite');
    const prm = metadata.find((e) => e.before.includes('"resource"'))!;
    expect(JSON.parse(prm.before).resource).toBe(upstream.url);
    expect(JSON.parse(prm.after).resource).toBe(m.proxy.url);
    expect(JSON.parse(prm.after).authorization_servers).toEqual([`${m.proxy.origin}/`]);
    const asm = metadata.find((e) => e.before.includes('"token_endpoint"'))!;
    expect(JSON.parse(asm.after)).toMatchObject({
      issuer: `${m.proxy.origin}/`,
      authorization_endpoint: `${m.proxy.origin}/authorize`,
      token_endpoint: `${m.proxy.origin}/token`,
      registration_endpoint: `${m.proxy.origin}/register`,
    });
    // The client's redirect (a foreign origin) was not touched.
    expect(mods.some((e) => e.what === 'location-rewrite')).toBe(false);

    // No credential in any export: access and refresh tokens, the code, the verifier, the client secret.
    const secrets = [
      oauth.saved!.access_token,
      oauth.saved!.refresh_token!,
      ...oauth.codes,
      oauth.verifier!,
      (oauth.client as { client_secret?: string }).client_secret!,
    ];
    expect(secrets.every((s) => typeof s === 'string' && s.length >= 8)).toBe(true);
    const texts: Record<string, string> = {};
    for (const format of ['har', 'ndjson']) {
      const res = await api(m, `/api/export?format=${format}`);
      expect(res.status).toBe(200);
      texts[`all.${format}`] = await res.text();
    }
    for (const sessionId of new Set(exchanges.flatMap((x) => (x.sessionId ? [x.sessionId] : [])))) {
      for (const format of ['fixture', 'har', 'ndjson']) {
        const res = await api(m, `/api/sessions/${sessionId}/export?format=${format}`);
        expect(res.status).toBe(200);
        texts[`${sessionId}.${format}`] = await res.text();
      }
    }
    // What the UI reads (the same events the feed pushes).
    const snapshot = await api(m, '/api/events');
    expect(snapshot.status).toBe(200);
    texts['api.events'] = await snapshot.text();
    // The exports do hold the OAuth exchanges (so the grep is meaningful).
    expect(texts['all.har']).toContain('/token');
    expect(texts['all.ndjson']).toContain('oauth-metadata-rewrite');
    expect(texts['all.har']).toContain('[redacted]');
    for (const [name, text] of Object.entries(texts)) {
      for (const secret of secrets) expect(text.includes(secret), `${name} holds ${secret}`).toBe(false);
    }
  });

  it('rewrites a Location on the upstream origin and redacts its code and state in the recorded event', async () => {
    const upstream = await startOAuthUpstream();
    const m = await scope(upstream);
    const res = await fetch(`${m.proxy.origin}/login`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${m.proxy.origin}/done?code=LOCATIONCODE0123456789&state=LOCATIONSTATE0123456789`);
    await m.waitFor((s) => [...s.exchanges.values()].some((x) => x.url === '/login' && x.endedAt !== undefined));
    const mod = (await modifications(m)).find((e) => e.what === 'location-rewrite');
    expect(mod?.before).toBe(`${upstream.origin}/done?code=[redacted]&state=[redacted]`);
    expect(mod?.after).toBe(`${m.proxy.origin}/done?code=[redacted]&state=[redacted]`);
    const all = await (await api(m, '/api/export?format=ndjson')).text();
    expect(all).toContain('location-rewrite');
    expect(all).not.toContain('LOCATIONCODE0123456789');
    expect(all).not.toContain('LOCATIONSTATE0123456789');
  });

  it('never rewrites a foreign origin: resource_metadata and authorization_servers elsewhere pass unchanged', async () => {
    const upstream = await startOAuthUpstream();
    const m = await scope(upstream);
    const challenge = await fetch(`${m.proxy.origin}/foreign`, { method: 'POST' });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", resource_metadata="${FOREIGN_RM}"`);

    const meta = await fetch(`${m.proxy.origin}/.well-known/oauth-protected-resource/foreign`);
    const text = await meta.text();
    expect(JSON.parse(text)).toEqual({ resource: `${m.proxy.origin}/foreign`, authorization_servers: ['https://auth.example.com'] });
    expect(meta.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));

    await m.waitFor((s) => [...s.exchanges.values()].filter((x) => x.endedAt !== undefined).length >= 2);
    const mods = await modifications(m);
    expect(mods.map((e) => e.what)).toEqual(['oauth-metadata-rewrite']);
    expect(mods[0].text).toContain(`${upstream.origin}/foreign`);
    expect(mods[0].text).not.toContain('auth.example.com');
  });

  it('with rewriting off, nothing is changed and the SDK client fails discovery', async () => {
    const upstream = await startOAuthUpstream();
    const m = await scope(upstream, { rewrite: false });

    const challenge = await fetch(m.proxy.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toContain(
      `resource_metadata="${upstream.origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    const meta = await (await fetch(`${m.proxy.origin}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(meta.resource).toBe(upstream.url);

    const oauth = new TestOAuthClient({ name: 'mcpscope oauth e2e', grantTypes: ['authorization_code', 'refresh_token'] });
    await expect(connectWithOAuth(m.proxy.url, oauth)).rejects.toThrow(/Protected resource .* does not match expected/);
    expect(oauth.authorizationUrls).toHaveLength(0);
    expect(oauth.saved).toBeUndefined();
    expect(await modifications(m)).toEqual([]);
  });
});
