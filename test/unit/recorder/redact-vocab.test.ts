import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  GRANT_KEYS,
  isSecretFlag,
  isSecretHeader,
  isSecretKey,
  isSecretQueryName,
  JWK_PRIVATE,
  normaliseName,
  vocabularyNames,
} from '../../../proxy/recorder/redact/redact-vocab.js';

describe('redact-vocab: JSON keys', () => {
  it('matches credential keys in any case or separator style', () => {
    for (const k of [
      'access_token',
      'accessToken',
      'AccessToken',
      'ACCESS_TOKEN',
      'refreshToken',
      'clientSecret',
      'client-secret',
      'Authorization',
      'token',
      'Token',
      'secret',
      'apiKey',
      'api_key',
      'API-KEY',
      'privateKey',
      'private_key',
      'password',
      'Password',
      'dbPassword',
      'githubToken',
      'sessionToken',
      'webhookSecret',
      'stripeApiKey',
      'aws_secret_access_key',
      'credentials',
      'cookie',
      'x-api-key',
      'passphrase',
    ]) {
      expect(isSecretKey(k), k).toBe(true);
    }
  });

  it("leaves MCP's own vocabulary and counts alone: progressToken, cursors, token counts, token metadata, code, key", () => {
    for (const k of [
      'progressToken',
      'nextCursor',
      'cursor',
      'code',
      'key',
      'maxTokens',
      'totalTokens',
      'inputTokens',
      'output_tokens',
      'tokens',
      'tokenCount',
      'token_type',
      'token_endpoint',
      'token_endpoint_auth_method',
      'issued_token_type',
      'pageToken',
      'nextPageToken',
      'nextToken',
      'sessionId',
      'mcp-session-id',
      'secretName',
      'isSecret',
      'hasSecret',
      'keyword',
      'name',
      'description',
      'user_code',
      'code_challenge',
      'client_id',
      'state',
    ]) {
      expect(isSecretKey(k), k).toBe(false);
    }
  });

  it('normalises by lowercasing and dropping _ - . and spaces', () => {
    expect(normaliseName('X-Amz_Security.Token')).toBe('xamzsecuritytoken');
  });
});

describe('redact-vocab: headers', () => {
  it('names credential headers: the named list and the shapes *-api-key, *-token, *-secret, x-*-key', () => {
    for (const h of [
      'authorization',
      'proxy-authorization',
      'authentication',
      'cookie',
      'set-cookie',
      'dpop',
      'apikey',
      'x-api-key',
      'x-goog-api-key',
      'private-token',
      'x-access-token',
      'x-amz-security-token',
      'openai-api-key',
      'x-github-token',
      'x-auth-token',
      'x-vault-token',
      'x-client-secret',
      'x-figma-key',
      'x-forwarded-authorization',
      'ocp-apim-subscription-key',
      'x-csrf-token',
    ]) {
      expect(isSecretHeader(h), h).toBe(true);
    }
  });

  it('keeps session ids, challenges and ordinary headers visible', () => {
    for (const h of [
      'mcp-session-id',
      'last-event-id',
      'mcp-protocol-version',
      'www-authenticate',
      'proxy-authenticate',
      'content-type',
      'x-request-id',
      'x-idempotency-key',
      'sec-websocket-key',
      'user-agent',
      'accept',
      'host',
    ]) {
      expect(isSecretHeader(h), h).toBe(false);
    }
  });
});

describe('redact-vocab: query names and flags', () => {
  it('query names, case-insensitive: also code, state, key, sig and signed-URL parameters', () => {
    for (const q of [
      'apikey',
      'API_KEY',
      'api-key',
      'key',
      'Key',
      'secret',
      'sig',
      'signature',
      'X-Amz-Signature',
      'X-Amz-Credential',
      'X-Amz-Security-Token',
      'session_token',
      'code',
      'state',
      'access_token',
      'AccessToken',
      'password',
      'auth',
    ]) {
      expect(isSecretQueryName(q), q).toBe(true);
    }
    for (const q of [
      'page',
      'cursor',
      'limit',
      'q',
      'redirect_uri',
      'client_id',
      'scope',
      'response_type',
      'code_challenge',
      'X-Amz-Date',
      'X-Amz-Expires',
    ])
      expect(isSecretQueryName(q), q).toBe(false);
  });

  it('command-line flags that carry secrets', () => {
    for (const f of [
      '--api-key',
      '--apikey',
      '--token',
      '--auth-token',
      '--password',
      '--client-secret',
      '--key',
      '--pass',
      '--access-token',
      '--github-token',
    ])
      expect(isSecretFlag(f), f).toBe(true);
    for (const f of ['--port', '--verbose', '--config', '--name', '--max-tokens', '--host']) expect(isSecretFlag(f), f).toBe(false);
  });
});

describe('redact-vocab: docs/security.md', () => {
  it('"What is redacted" names every word of the vocabulary', () => {
    const md = readFileSync(new URL('../../../docs/security.md', import.meta.url), 'utf8');
    const start = md.indexOf('## What is redacted');
    const section = md.slice(start, md.indexOf('\n## ', start + 1));
    // Every `code span` of the section, split into words and normalised; `…token`, `credential(s)`,
    // `x-hub-signature(-256)`, `--token`, `x-…-key` and `name=value` shapes give their names.
    const named = new Set<string>();
    for (const [, span] of section.matchAll(/`([^`]+)`/g))
      for (const word of span.split(/[\s/,]+/)) {
        const name = word.replace(/^…-?|^--|^x-…-|=.*$|:.*$/g, '');
        named.add(normaliseName(name.replace(/\((s|-256)\)$/, '')));
        named.add(normaliseName(name.replace(/[()]/g, '')));
      }
    const missing = [...vocabularyNames(), ...GRANT_KEYS, ...JWK_PRIVATE].map(normaliseName).filter((n) => !named.has(n));
    expect(missing).toEqual([]);
  });
});
