/**
 * The SDK's OAuth client side for e2e tests: an in-memory `OAuthClientProvider` whose "browser"
 * fetches the authorization URL without following the redirect and reads the code from its
 * Location, and `connectWithOAuth`, which connects the way the SDK's simpleOAuthClient does (on
 * UnauthorizedError: finish the flow, connect again).
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export class TestOAuthClient implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  codes: string[] = [];
  authorizationUrls: URL[] = [];
  pendingCode?: string;
  /**
   * `name`: the registered client name; `grantTypes`: what it registers for; `browser`: how the
   * user agent reaches the authorization server (through the proxy, in forward mode).
   */
  constructor(private readonly o: { name?: string; grantTypes?: string[]; browser?: FetchLike } = {}) {}

  get redirectUrl(): string {
    // A foreign origin: never fetched (the code is read from the Location header), never rewritten.
    return 'http://localhost:1/callback';
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.o.name ?? 'mcpscope e2e',
      redirect_uris: [this.redirectUrl],
      grant_types: this.o.grantTypes ?? ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    };
  }
  state(): string {
    return `state-${randomUUID()}`;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url);
    const res = await (this.o.browser ?? fetch)(url, { redirect: 'manual' });
    if (res.status !== 302) throw new Error(`authorization refused: ${res.status} ${await res.text()}`);
    const code = new URL(res.headers.get('location')!).searchParams.get('code');
    if (!code) throw new Error('no code in the redirect');
    this.codes.push(code);
    this.pendingCode = code;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier(): string {
    if (!this.verifier) throw new Error('no code verifier');
    return this.verifier;
  }
  /** Everything secret this client held, for leak checks. */
  secrets(): string[] {
    return [this.saved!.access_token, ...this.codes, this.verifier!, (this.client as { client_secret?: string }).client_secret!];
  }
}

/** Connects with OAuth; `fetchFn` is the transport's fetch (a proxy's, say). */
export async function connectWithOAuth(
  url: string,
  oauth: TestOAuthClient,
  o: { clientName?: string; fetchFn?: FetchLike } = {},
): Promise<Client> {
  const attempt = async (): Promise<Client | undefined> => {
    const client = new Client({ name: o.clientName ?? 'oauth-e2e', version: '1.0.0' }, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: oauth, ...(o.fetchFn ? { fetch: o.fetchFn } : {}) });
    try {
      await client.connect(transport);
      return client;
    } catch (err) {
      if (!(err instanceof UnauthorizedError) || !oauth.pendingCode) throw err;
      const code = oauth.pendingCode;
      oauth.pendingCode = undefined;
      await transport.finishAuth(code);
      await client.close().catch(() => undefined);
      return undefined;
    }
  };
  const client = (await attempt()) ?? (await attempt());
  if (!client) throw new Error('OAuth did not complete');
  return client;
}
