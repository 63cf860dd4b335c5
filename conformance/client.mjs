#!/usr/bin/env node
// The MCP client under test for `npm run conformance` (conformance/run.mjs).
//
//   MCP_CONFORMANCE_SCENARIO=<scenario> [MCP_CONFORMANCE_CONTEXT=<json>] node conformance/client.mjs <server-url>
//
// The conformance suite (@modelcontextprotocol/conformance) starts a scenario's servers, then runs
// this command with the MCP server URL appended as the last argument; the scenario's name is in
// MCP_CONFORMANCE_SCENARIO and, for scenarios that hand the client credentials or tokens, a JSON
// object in MCP_CONFORMANCE_CONTEXT. The client does what a well-behaved SDK client does for that
// scenario and exits 0, or prints the error and exits 1.
//
// Written for mcpscope (not copied from the suite): it follows the behaviour of the suite's example
// "everything" client, but all OAuth goes through the official SDK's `auth()` machinery via
// StreamableHTTPClientTransport's `authProvider`. It knows nothing about proxies: the runner puts
// mcpscope in front of it from the outside (the server URL, or `mcpscope run`'s environment).

import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** The redirect URI we register; nothing listens there: the "browser" below reads the code off the redirect. */
const REDIRECT_URI = 'http://localhost:3000/callback';
/** A URL-based client id (SEP-991, Client ID Metadata Documents), used when the AS supports them. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Authorization attempts per operation (scope step-up needs 2; auth/scope-retry-limit wants ≤ 3). */
const MAX_AUTH_ATTEMPTS = 3;

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';

const log = (...args) => console.error('[client]', ...args);

// ─── OAuth providers ─────────────────────────────────────────────────────────────────────────────

/** Keeps everything in memory; the SDK's auth() drives it. */
class MemoryProvider {
  constructor() {
    this._clientInformation = undefined;
    this._tokens = undefined;
    this._discovery = undefined;
  }
  clientInformation() {
    return this._clientInformation;
  }
  saveClientInformation(info) {
    this._clientInformation = info;
  }
  tokens() {
    return this._tokens;
  }
  saveTokens(tokens) {
    log('tokens received', tokens.scope ? `(scope: ${tokens.scope})` : '');
    this._tokens = tokens;
  }
  discoveryState() {
    return this._discovery;
  }
  saveDiscoveryState(state) {
    this._discovery = state;
  }
  invalidateCredentials(scope) {
    log('invalidating credentials:', scope);
    if (scope === 'all' || scope === 'client') this._clientInformation = undefined;
    if (scope === 'all' || scope === 'tokens') this._tokens = undefined;
    if (scope === 'all' || scope === 'discovery') this._discovery = undefined;
  }
}

/**
 * Authorization code + PKCE with a headless "user agent": redirectToAuthorization() requests the
 * authorization URL itself, does not follow the redirect, and keeps the `code` from its Location
 * (after checking `state`). The caller then hands the code to transport.finishAuth().
 */
class HeadlessAuthCodeProvider extends MemoryProvider {
  constructor({ clientName, clientMetadataUrl, preRegistered } = {}) {
    super();
    this._clientMetadataUrl = clientMetadataUrl;
    this._clientMetadata = {
      client_name: clientName ?? 'mcpscope-conformance-client',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
    if (preRegistered) this._clientInformation = { redirect_uris: [REDIRECT_URI], ...preRegistered };
    this._codeVerifier = undefined;
    this._state = undefined;
    this._pendingCode = undefined;
  }
  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata() {
    return this._clientMetadata;
  }
  get clientMetadataUrl() {
    return this._clientMetadataUrl;
  }
  state() {
    this._state = randomBytes(16).toString('base64url');
    return this._state;
  }
  saveCodeVerifier(verifier) {
    this._codeVerifier = verifier;
  }
  codeVerifier() {
    if (!this._codeVerifier) throw new Error('no PKCE code verifier saved');
    return this._codeVerifier;
  }
  async redirectToAuthorization(authorizationUrl) {
    log(
      'authorizing at',
      authorizationUrl.origin + authorizationUrl.pathname,
      'scope:',
      authorizationUrl.searchParams.get('scope') ?? '(none)',
    );
    const response = await fetch(authorizationUrl, { redirect: 'manual' });
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (!location) throw new Error(`authorization endpoint answered ${response.status} without a redirect`);
    const back = new URL(location, authorizationUrl);
    const error = back.searchParams.get('error');
    if (error) throw new Error(`authorization failed: ${error} ${back.searchParams.get('error_description') ?? ''}`);
    const returnedState = back.searchParams.get('state');
    if (this._state !== undefined && returnedState !== null && returnedState !== this._state) {
      throw new Error('authorization redirect carried a different state');
    }
    const code = back.searchParams.get('code');
    if (!code) throw new Error(`no authorization code in the redirect to ${back.origin}${back.pathname}`);
    this._pendingCode = code;
  }
  /** The code from the last authorization redirect, once. */
  takeAuthorizationCode() {
    const code = this._pendingCode;
    this._pendingCode = undefined;
    return code;
  }
  invalidateCredentials(scope) {
    super.invalidateCredentials(scope);
    if (scope === 'all' || scope === 'verifier') this._codeVerifier = undefined;
  }
}

/**
 * Cross-app access (SEP-990, Enterprise-Managed Authorization): the client holds an ID token from
 * its enterprise IdP, exchanges it there for an ID-JAG (RFC 8693 token exchange), and presents the
 * ID-JAG to the MCP server's authorization server as a JWT bearer grant (RFC 7523), authenticating
 * with client_secret_basic. Non-interactive: auth() calls prepareTokenRequest() after discovery,
 * which it has saved through saveDiscoveryState() (the AS issuer and the resource are needed).
 */
class CrossAppAccessProvider extends MemoryProvider {
  constructor(ctx) {
    super();
    this._ctx = ctx;
    this._clientInformation = { client_id: ctx.client_id, client_secret: ctx.client_secret };
  }
  get redirectUrl() {
    return undefined;
  }
  get clientMetadata() {
    return {
      client_name: 'mcpscope-conformance-cross-app-access',
      redirect_uris: [],
      grant_types: [JWT_BEARER],
      token_endpoint_auth_method: 'client_secret_basic',
    };
  }
  redirectToAuthorization() {
    throw new Error('cross-app access does not use a browser redirect');
  }
  saveCodeVerifier() {}
  codeVerifier() {
    throw new Error('cross-app access does not use PKCE');
  }
  async prepareTokenRequest(scope) {
    const asMetadata = this._discovery?.authorizationServerMetadata;
    const resource = this._discovery?.resourceMetadata?.resource;
    if (!asMetadata?.issuer) throw new Error('cross-app access: authorization server metadata was not discovered');
    if (!resource) throw new Error('cross-app access: protected resource metadata was not discovered');
    const grants = asMetadata.grant_types_supported ?? [];
    if (!grants.includes(JWT_BEARER))
      throw new Error(`authorization server does not support ${JWT_BEARER} (supports: ${grants.join(', ')})`);

    log('exchanging the IdP ID token for an ID-JAG at', this._ctx.idp_token_endpoint);
    const exchange = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: ID_JAG,
      audience: asMetadata.issuer,
      resource,
      subject_token: this._ctx.idp_id_token,
      subject_token_type: ID_TOKEN,
      client_id: this._ctx.idp_client_id,
    });
    if (scope) exchange.set('scope', scope);
    const response = await fetch(this._ctx.idp_token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: exchange,
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`IdP token exchange failed: ${response.status} ${text}`);
    const body = JSON.parse(text);
    if (body.issued_token_type && body.issued_token_type !== ID_JAG) {
      throw new Error(`IdP issued ${body.issued_token_type}, not an ID-JAG`);
    }
    if (typeof body.access_token !== 'string') throw new Error('IdP token exchange returned no token');

    const grant = new URLSearchParams({ grant_type: JWT_BEARER, assertion: body.access_token });
    if (scope) grant.set('scope', scope);
    return grant;
  }
}

// ─── Running a session with authorization ────────────────────────────────────────────────────────

/**
 * One MCP session whose transport carries an OAuth provider. An operation that ends in
 * UnauthorizedError because auth() sent the "user" to the authorization endpoint is finished with
 * the code the headless user agent caught, then tried again — at most MAX_AUTH_ATTEMPTS times.
 */
class Session {
  constructor(serverUrl, { provider, capabilities = {}, name = 'mcpscope-conformance-client', transportOptions = {}, setup } = {}) {
    this.serverUrl = new URL(serverUrl);
    this.provider = provider;
    this.capabilities = capabilities;
    this.name = name;
    this.transportOptions = transportOptions;
    this.setup = setup;
    this.client = undefined;
    this.transport = undefined;
  }

  _fresh() {
    this.transport = new StreamableHTTPClientTransport(this.serverUrl, {
      ...this.transportOptions,
      ...(this.provider ? { authProvider: this.provider } : {}),
    });
    this.transport.onerror = (error) => log('transport error:', error?.message ?? error);
    this.client = new Client({ name: this.name, version: '1.0.0' }, { capabilities: this.capabilities });
    this.setup?.(this.client);
  }

  async _finishAuthorization(error, attempt) {
    const code = this.provider?.takeAuthorizationCode?.();
    if (!(error instanceof UnauthorizedError) || !code || attempt >= MAX_AUTH_ATTEMPTS) return false;
    log(`authorization redirect caught (attempt ${attempt}); exchanging the code`);
    await this.transport.finishAuth(code);
    return true;
  }

  async connect() {
    for (let attempt = 1; ; attempt++) {
      this._fresh();
      try {
        await this.client.connect(this.transport);
        log('connected; server:', JSON.stringify(this.client.getServerVersion()));
        return;
      } catch (error) {
        // Client.connect() closes a transport whose initialize failed; the closed one still knows
        // the challenge's resource_metadata and scope, so it finishes the authorization, and the
        // next attempt starts a fresh one.
        if (!(await this._finishAuthorization(error, attempt))) throw error;
      }
    }
  }

  async run(what, operation) {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await operation(this.client);
        log(`${what}: ok`);
        return result;
      } catch (error) {
        if (!(await this._finishAuthorization(error, attempt))) throw error;
      }
    }
  }

  async close() {
    await this.transport?.close().catch(() => {});
  }
}

/** initialize → tools/list → tools/call (the scenario's one tool, when it has one) → close. */
async function authorizedSession(serverUrl, provider, name) {
  const session = new Session(serverUrl, { provider, name });
  await session.connect();
  const { tools } = await session.run('tools/list', (client) => client.listTools());
  log('tools:', tools.map((t) => t.name).join(', ') || '(none)');
  const tool = tools.find((t) => t.name === 'test-tool') ?? tools[0];
  if (tool) await session.run(`tools/call ${tool.name}`, (client) => client.callTool({ name: tool.name, arguments: {} }));
  await session.close();
}

function context(expectedName) {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (!raw) throw new Error(`MCP_CONFORMANCE_CONTEXT is not set (needed by ${expectedName})`);
  const ctx = JSON.parse(raw);
  if (ctx.name !== expectedName) throw new Error(`MCP_CONFORMANCE_CONTEXT is for ${ctx.name}, not ${expectedName}`);
  return ctx;
}

// ─── Scenarios ───────────────────────────────────────────────────────────────────────────────────

const handlers = {
  'auth/client-credentials-basic': async (url) => {
    const ctx = context('auth/client-credentials-basic');
    const provider = new ClientCredentialsProvider({ clientId: ctx.client_id, clientSecret: ctx.client_secret });
    await authorizedSession(url, provider, 'mcpscope-conformance-client-credentials-basic');
  },
  'auth/client-credentials-jwt': async (url) => {
    const ctx = context('auth/client-credentials-jwt');
    const provider = new PrivateKeyJwtProvider({
      clientId: ctx.client_id,
      privateKey: ctx.private_key_pem,
      algorithm: ctx.signing_algorithm ?? 'ES256',
    });
    await authorizedSession(url, provider, 'mcpscope-conformance-client-credentials-jwt');
  },
  'auth/pre-registration': async (url) => {
    const ctx = context('auth/pre-registration');
    const provider = new HeadlessAuthCodeProvider({
      clientName: 'mcpscope-conformance-pre-registration',
      preRegistered: { client_id: ctx.client_id, client_secret: ctx.client_secret },
    });
    await authorizedSession(url, provider, 'mcpscope-conformance-pre-registration');
  },
  'auth/cross-app-access-complete-flow': async (url) => {
    const provider = new CrossAppAccessProvider(context('auth/cross-app-access-complete-flow'));
    await authorizedSession(url, provider, 'mcpscope-conformance-cross-app-access');
  },
};

/** Every other auth/* scenario: authorization code + PKCE; CIMD when the AS offers it, else DCR. */
async function authCodeScenario(url) {
  const provider = new HeadlessAuthCodeProvider({ clientMetadataUrl: CLIENT_METADATA_URL });
  await authorizedSession(url, provider, 'mcpscope-conformance-auth-client');
}

/** Non-auth scenarios: connect, list tools, call the ones the scenarios define. */
async function plainScenario(url) {
  const session = new Session(url, {
    name: 'mcpscope-conformance-client',
    capabilities: { elicitation: { form: { applyDefaults: true } } },
    transportOptions: {
      reconnectionOptions: { initialReconnectionDelay: 1000, maxReconnectionDelay: 10000, reconnectionDelayGrowFactor: 1.5, maxRetries: 3 },
    },
    setup: (client) =>
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        log('elicitation request:', request.params.message);
        // An empty answer: the SDK fills in the schema's defaults (SEP-1034).
        return { action: 'accept', content: {} };
      }),
  });
  await session.connect();
  const { tools } = await session.run('tools/list', (client) => client.listTools());
  log('tools:', tools.map((t) => t.name).join(', ') || '(none)');
  for (const tool of tools) {
    const args = tool.name === 'add_numbers' ? { a: 5, b: 3 } : {};
    const result = await session.run(`tools/call ${tool.name}`, (client) =>
      client.request({ method: 'tools/call', params: { name: tool.name, arguments: args } }, CallToolResultSchema, { timeout: 20_000 }),
    );
    log(`${tool.name} →`, JSON.stringify(result.content ?? result).slice(0, 200));
  }
  await session.close();
}

async function main() {
  const serverUrl = process.argv[2];
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  if (!serverUrl) {
    console.error('usage: MCP_CONFORMANCE_SCENARIO=<scenario> node conformance/client.mjs <server-url>');
    process.exit(2);
  }
  log(`scenario ${scenario || '(none)'} against ${serverUrl}`);
  const handler = handlers[scenario] ?? (scenario.startsWith('auth/') ? authCodeScenario : plainScenario);
  await handler(serverUrl);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error('[client] failed:', error?.stack ?? error);
    process.exit(1);
  },
);
