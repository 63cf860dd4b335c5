import { describe, expect, it } from 'vitest';
import {
  metadataTooDeep,
  oauthMetadataKind,
  rewriteLocation,
  rewriteMetadataJson,
  rewriteWwwAuthenticate,
} from '../../../proxy/core/parse/oauth-rewrite.js';
import { MAX_JSON_DEPTH } from '../../../proxy/core/parse/json-depth.js';
import { originRewriter } from '../../../proxy/core/parse/endpoint-rewriter.js';
import { createRedactor } from '../../../proxy/recorder/redact/redact.js';

const UP = 'http://127.0.0.1:3000';
const PX = 'http://127.0.0.1:9000';
const map = originRewriter(UP, PX);

describe('rewriteWwwAuthenticate', () => {
  it('maps an upstream-origin resource_metadata and keeps every other byte', () => {
    const v = `Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="${UP}/.well-known/oauth-protected-resource/mcp"`;
    expect(rewriteWwwAuthenticate(v, map)).toBe(v.replace(UP, PX));
  });
  it('handles the token form, other case and several challenges', () => {
    expect(rewriteWwwAuthenticate(`Bearer Resource_Metadata=${UP}/m, scope="a b"`, map)).toBe(
      `Bearer Resource_Metadata="${PX}/m", scope="a b"`,
    );
    expect(rewriteWwwAuthenticate(`Basic realm="x", Bearer resource_metadata="${UP}/a"`, map)).toBe(
      `Basic realm="x", Bearer resource_metadata="${PX}/a"`,
    );
  });
  it('handles 403 insufficient_scope challenges', () => {
    const v = `Bearer error="insufficient_scope", scope="files:write", resource_metadata="${UP}/.well-known/oauth-protected-resource"`;
    expect(rewriteWwwAuthenticate(v, map)).toBe(v.replace(UP, PX));
  });
  it('never touches foreign origins, relative URLs or text inside other quoted parameters', () => {
    expect(
      rewriteWwwAuthenticate(`Bearer resource_metadata="https://auth.example.com/.well-known/oauth-protected-resource"`, map),
    ).toBeNull();
    expect(rewriteWwwAuthenticate(`Bearer resource_metadata="http://127.0.0.1:3001/x"`, map)).toBeNull();
    expect(rewriteWwwAuthenticate(`Bearer resource_metadata="/.well-known/oauth-protected-resource"`, map)).toBeNull();
    expect(rewriteWwwAuthenticate(`Bearer error_description="resource_metadata=${UP}/x is wrong"`, map)).toBeNull();
    expect(rewriteWwwAuthenticate('Bearer realm="mcp"', map)).toBeNull();
  });
});

describe('rewriteMetadataJson', () => {
  it('maps resource and authorization_servers on the upstream origin, byte for byte elsewhere', () => {
    const doc = `{\n  "resource": "${UP}/mcp",\n  "authorization_servers": ["${UP}/", "https://login.example.com"],\n  "scopes_supported": ["mcp:tools"]\n}\n`;
    const r = rewriteMetadataJson(doc, map)!;
    expect(r.text).toBe(doc.replace(`"${UP}/mcp"`, `"${PX}/mcp"`).replace(`"${UP}/"`, `"${PX}/"`));
    expect(r.rewrites).toEqual([
      { before: `${UP}/mcp`, after: `${PX}/mcp` },
      { before: `${UP}/`, after: `${PX}/` },
    ]);
  });
  it('maps authorization-server metadata endpoints on the upstream origin only', () => {
    const doc = JSON.stringify({
      issuer: `${UP}/`,
      authorization_endpoint: `${UP}/authorize`,
      token_endpoint: `${UP}/token`,
      registration_endpoint: `${UP}/register`,
      jwks_uri: 'https://keys.example.com/jwks',
      service_documentation: `see ${UP}/docs`,
    });
    const out = JSON.parse(rewriteMetadataJson(doc, map)!.text);
    expect(out).toEqual({
      issuer: `${PX}/`,
      authorization_endpoint: `${PX}/authorize`,
      token_endpoint: `${PX}/token`,
      registration_endpoint: `${PX}/register`,
      jwks_uri: 'https://keys.example.com/jwks',
      service_documentation: `see ${UP}/docs`,
    });
  });
  it('never rewrites keys, and reads escaped strings', () => {
    const doc = `{"${UP}/k": "x", "resource": "http:\\/\\/127.0.0.1:3000\\/mcp"}`;
    const r = rewriteMetadataJson(doc, map)!;
    expect(JSON.parse(r.text)).toEqual({ [`${UP}/k`]: 'x', resource: `${PX}/mcp` });
  });
  it('returns null for non-objects, invalid JSON and documents with nothing to map', () => {
    expect(rewriteMetadataJson(`["${UP}/"]`, map)).toBeNull();
    expect(rewriteMetadataJson(`{"resource": "${UP}/mcp"`, map)).toBeNull();
    expect(rewriteMetadataJson(`{"resource": "https://other.example/mcp"}`, map)).toBeNull();
  });
});

describe('rewriteLocation', () => {
  it('maps absolute upstream-origin URLs only', () => {
    expect(rewriteLocation(`${UP}/done?code=abc&state=xyz`, map)).toBe(`${PX}/done?code=abc&state=xyz`);
    expect(rewriteLocation('/relative?code=abc', map)).toBeNull();
    expect(rewriteLocation('http://localhost:1/callback?code=abc', map)).toBeNull();
  });
});

describe('oauthMetadataKind', () => {
  it('recognises the well-known metadata paths', () => {
    expect(oauthMetadataKind('/.well-known/oauth-protected-resource')).toBe('protected-resource');
    expect(oauthMetadataKind('/.well-known/oauth-protected-resource/mcp')).toBe('protected-resource');
    expect(oauthMetadataKind('/.well-known/oauth-authorization-server')).toBe('authorization-server');
    expect(oauthMetadataKind('/.well-known/openid-configuration/tenant')).toBe('authorization-server');
    expect(oauthMetadataKind('/tenant/.well-known/openid-configuration')).toBe('authorization-server');
    expect(oauthMetadataKind('/mcp')).toBeNull();
    expect(oauthMetadataKind('/.well-known/oauth-protected-resourcex')).toBeNull();
  });
});

describe('redaction of query secrets quoted in free text', () => {
  it('redacts code/state in a redirect page and leaves other parameters', () => {
    const r = createRedactor();
    expect(r.text(`Found. Redirecting to ${UP}/cb?code=abc123&state=s1&x=1`)).toBe(
      `Found. Redirecting to ${UP}/cb?code=[redacted]&state=[redacted]&x=1`,
    );
    expect(r.text('a ?codex=1 &mode=2')).toBe('a ?codex=1 &mode=2');
    expect(createRedactor({ showSecrets: true }).text('?code=abc')).toBe('?code=abc');
  });
});

describe('rewriteMetadataJson: a document nested too deep', () => {
  const deepDoc = (d: number) => `{"issuer":"http://upstream.test:9000","x":${'['.repeat(d)}${']'.repeat(d)}}`;
  const upstream = (u: string) =>
    u.startsWith('http://upstream.test:9000') ? u.replace('http://upstream.test:9000', 'http://127.0.0.1:1234') : null;

  it('is not rewritten (forwarded unchanged by the caller), and metadataTooDeep says how deep', () => {
    expect(rewriteMetadataJson(deepDoc(5_000), upstream)).toBeNull();
    expect(metadataTooDeep(deepDoc(5_000))).toBe(5_001);
  });

  it('a document within the cap is rewritten as before', () => {
    expect(metadataTooDeep(deepDoc(MAX_JSON_DEPTH - 1))).toBeUndefined();
    expect(rewriteMetadataJson(deepDoc(MAX_JSON_DEPTH - 1), upstream)?.rewrites).toEqual([
      { before: 'http://upstream.test:9000', after: 'http://127.0.0.1:1234' },
    ]);
  });
});
