/**
 * A strict OAuth world for audience tests, on two origins (OS-picked ports on 127.0.0.1):
 * - an authorization server (RFC 8414 metadata, RFC 7591 dynamic registration, authorization code
 *   with PKCE S256) that validates RFC 8707: the `resource` of the authorization request and of the
 *   token request must be the MCP server's own URL, else 400 `invalid_target`; its tokens (opaque,
 *   kept in `tokens`) carry that resource as their audience;
 * - an MCP server (the SDK's McpServer over a stateless StreamableHTTPServerTransport) behind a
 *   bearer check that refuses a missing token with a `resource_metadata` challenge and a token
 *   whose audience is not its own URL with 401 `invalid_token`; it serves its RFC 9728
 *   protected-resource metadata naming itself and the authorization server.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';

export interface IssuedToken {
  aud: string;
  scope: string;
  exp: number;
  clientId: string;
}

/** What the authorization server was asked and what it answered. */
export interface AsLogEntry {
  endpoint: 'metadata' | 'register' | 'authorize' | 'token';
  resource?: string;
  status: number;
  error?: string;
}

/** What the MCP server answered to a request for /mcp. */
export interface RsLogEntry {
  method: string;
  status: number;
  error?: string;
  aud?: string;
}

export interface StrictOAuthWorld {
  /** http://127.0.0.1:<port> of the MCP server. */
  serverOrigin: string;
  /** The MCP server's URL: the only resource the authorization server accepts, and the audience the server accepts. */
  serverUrl: string;
  /** http://127.0.0.1:<port> of the authorization server. */
  asOrigin: string;
  tokens: Map<string, IssuedToken>;
  asLog: AsLogEntry[];
  rsLog: RsLogEntry[];
  /** Puts a token straight into the store (for the audience check's own test). */
  mint(aud: string, clientId?: string): string;
  close(): Promise<void>;
}

const random = () => randomBytes(24).toString('base64url');
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    handler(req, res).catch((err: Error) => {
      if (!res.headersSent) json(res, 500, { error: 'server_error', error_description: err.message });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

interface Client {
  secret: string;
  redirectUris: string[];
  authMethod: string;
}
interface Code {
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string;
  scope: string;
}

export async function startStrictOAuthWorld(): Promise<StrictOAuthWorld> {
  const tokens = new Map<string, IssuedToken>();
  const asLog: AsLogEntry[] = [];
  const rsLog: RsLogEntry[] = [];
  const clients = new Map<string, Client>();
  const codes = new Map<string, Code>();
  // Both origins are known only once both listen; the handlers read them from here.
  let serverOrigin = '';
  let serverUrl = '';
  let asOrigin = '';

  const as = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', asOrigin);
    const fail = (entry: Omit<AsLogEntry, 'status' | 'error'>, status: number, error: string, description: string) => {
      asLog.push({ ...entry, status, error });
      json(res, status, { error, error_description: description });
    };
    if (req.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      asLog.push({ endpoint: 'metadata', status: 200 });
      return json(res, 200, {
        issuer: asOrigin,
        authorization_endpoint: `${asOrigin}/authorize`,
        token_endpoint: `${asOrigin}/token`,
        registration_endpoint: `${asOrigin}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
        scopes_supported: ['mcp:tools'],
      });
    }
    if (req.method === 'POST' && url.pathname === '/register') {
      const meta = JSON.parse(await readBody(req)) as { redirect_uris?: string[]; token_endpoint_auth_method?: string };
      if (!Array.isArray(meta.redirect_uris) || meta.redirect_uris.length === 0)
        return fail({ endpoint: 'register' }, 400, 'invalid_redirect_uri', 'redirect_uris is required');
      const clientId = `client-${random()}`;
      const client: Client = {
        secret: random(),
        redirectUris: meta.redirect_uris,
        authMethod: meta.token_endpoint_auth_method ?? 'client_secret_basic',
      };
      clients.set(clientId, client);
      asLog.push({ endpoint: 'register', status: 201 });
      return json(res, 201, {
        ...meta,
        client_id: clientId,
        client_secret: client.secret,
        client_id_issued_at: Math.floor(Date.now() / 1000),
        token_endpoint_auth_method: client.authMethod,
      });
    }
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const q = url.searchParams;
      const resource = q.get('resource') ?? undefined;
      const entry = { endpoint: 'authorize' as const, resource };
      const client = clients.get(q.get('client_id') ?? '');
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!client || !client.redirectUris.includes(redirectUri))
        return fail(entry, 400, 'invalid_request', 'unknown client or redirect_uri');
      if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge'))
        return fail(entry, 400, 'invalid_request', 'authorization code with PKCE S256 only');
      // RFC 8707 §2: this authorization server serves exactly one resource, the MCP server.
      if (resource !== serverUrl) return fail(entry, 400, 'invalid_target', `resource ${JSON.stringify(resource)} is not ${serverUrl}`);
      const code = random();
      codes.set(code, {
        clientId: q.get('client_id')!,
        redirectUri,
        challenge: q.get('code_challenge')!,
        resource,
        scope: q.get('scope') ?? '',
      });
      const location = new URL(redirectUri);
      location.searchParams.set('code', code);
      if (q.get('state') !== null) location.searchParams.set('state', q.get('state')!);
      asLog.push({ ...entry, status: 302 });
      res.writeHead(302, { location: location.href });
      return void res.end();
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(await readBody(req));
      const resource = form.get('resource') ?? undefined;
      const entry = { endpoint: 'token' as const, resource };
      let clientId = form.get('client_id') ?? '';
      let secret = form.get('client_secret') ?? '';
      const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
      if (basic) [clientId, secret] = Buffer.from(basic[1], 'base64').toString('utf8').split(':').map(decodeURIComponent);
      const client = clients.get(clientId);
      if (!client || client.secret !== secret) return fail(entry, 401, 'invalid_client', 'client authentication failed');
      if (form.get('grant_type') !== 'authorization_code') return fail(entry, 400, 'unsupported_grant_type', 'authorization_code only');
      const code = codes.get(form.get('code') ?? '');
      if (!code || code.clientId !== clientId || code.redirectUri !== form.get('redirect_uri'))
        return fail(entry, 400, 'invalid_grant', 'unknown code');
      if (s256(form.get('code_verifier') ?? '') !== code.challenge) return fail(entry, 400, 'invalid_grant', 'PKCE verification failed');
      // RFC 8707 §2.2: the token request names the resource too, and it must be the one authorized.
      if (resource !== serverUrl || resource !== code.resource)
        return fail(entry, 400, 'invalid_target', `resource ${JSON.stringify(resource)} is not ${serverUrl}`);
      codes.delete(form.get('code')!);
      const token = random();
      tokens.set(token, { aud: resource, scope: code.scope, exp: Date.now() + 3_600_000, clientId });
      asLog.push({ ...entry, status: 200 });
      return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: code.scope });
    }
    json(res, 404, { error: 'not_found' });
  });

  const rs = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', serverOrigin);
    if (req.method === 'GET' && url.pathname === '/.well-known/oauth-protected-resource/mcp') {
      return json(res, 200, {
        resource: serverUrl,
        authorization_servers: [asOrigin],
        scopes_supported: ['mcp:tools'],
        bearer_methods_supported: ['header'],
      });
    }
    if (url.pathname !== '/mcp') return json(res, 404, { error: 'not_found' });
    const challenge = `resource_metadata="${serverOrigin}/.well-known/oauth-protected-resource/mcp"`;
    const refuse = (error: string | undefined, description: string, aud?: string) => {
      rsLog.push({ method: req.method ?? '', status: 401, error, aud });
      const params = error ? `error="${error}", error_description="${description}", ${challenge}` : challenge;
      json(res, 401, { error: error ?? 'invalid_request', error_description: description }, { 'www-authenticate': `Bearer ${params}` });
      req.resume();
    };
    const bearer = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '');
    // RFC 6750 §3.1: a request without credentials gets a challenge with no error code.
    if (!bearer) return refuse(undefined, 'no bearer token');
    const token = tokens.get(bearer[1]);
    if (!token || token.exp < Date.now()) return refuse('invalid_token', 'unknown or expired token');
    if (token.aud !== serverUrl)
      return refuse('invalid_token', `the token's audience ${token.aud} is not this server (${serverUrl})`, token.aud);
    rsLog.push({ method: req.method ?? '', status: req.method === 'POST' ? 200 : 405, aud: token.aud });
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' });
      return void res.end();
    }
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    const auth: AuthInfo = {
      token: bearer[1],
      clientId: token.clientId,
      scopes: token.scope.split(' ').filter(Boolean),
      expiresAt: Math.floor(token.exp / 1000),
      resource: new URL(token.aud),
    };
    const mcp = new McpServer({ name: 'strict-audience-server', version: '1.0.0' });
    mcp.registerTool(
      'whoami',
      { description: 'Names the OAuth client and the token audience', inputSchema: { greeting: z.string() } },
      async ({ greeting }, extra) => ({
        content: [
          { type: 'text', text: `${greeting}, ${extra.authInfo?.clientId ?? 'nobody'} (aud ${extra.authInfo?.resource?.href ?? '?'})` },
        ],
      }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(Object.assign(req, { auth }), res, body);
  });

  serverOrigin = rs.origin;
  serverUrl = `${rs.origin}/mcp`;
  asOrigin = as.origin;
  const close = (s: Server) =>
    new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });
  return {
    serverOrigin,
    serverUrl,
    asOrigin,
    tokens,
    asLog,
    rsLog,
    mint(aud, clientId = 'minted') {
      const t = random();
      tokens.set(t, { aud, scope: 'mcp:tools', exp: Date.now() + 3_600_000, clientId });
      return t;
    },
    async close() {
      await Promise.all([close(as.server), close(rs.server)]);
    },
  };
}
