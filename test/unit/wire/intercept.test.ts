/**
 * `--intercept` host patterns (proxy/wire/forward-proxy/intercept.ts): which CONNECT targets the forward
 * proxy decrypts. Exact names, `*` wildcards, ports, IPv6 with or without brackets, case, and
 * malformed patterns refused with a plain-words error.
 */
import { describe, expect, it } from 'vitest';
import { intercepts, parseInterceptPatterns } from '../../../proxy/wire/forward-proxy/intercept.js';

const decrypts = (patterns: string[], host: string, port = 443) => intercepts(parseInterceptPatterns(patterns), host, port);

describe('parseInterceptPatterns / intercepts', () => {
  it('decrypts every host when no pattern is given', () => {
    expect(parseInterceptPatterns(undefined)).toEqual([]);
    expect(parseInterceptPatterns([])).toEqual([]);
    expect(decrypts([], 'anything.example')).toBe(true);
    expect(decrypts([], '::1', 1)).toBe(true);
  });

  it('matches an exact host name, and only that name', () => {
    expect(decrypts(['api.example.com'], 'api.example.com')).toBe(true);
    expect(decrypts(['api.example.com'], 'example.com')).toBe(false);
    expect(decrypts(['api.example.com'], 'xapi.example.com')).toBe(false);
    expect(decrypts(['api.example.com'], 'api.example.com.evil')).toBe(false);
    // A dot is a dot, not "any character".
    expect(decrypts(['api.example.com'], 'apixexample.com')).toBe(false);
    expect(decrypts(['localhost'], 'localhost', 8080)).toBe(true);
  });

  it('lets * stand for any run of characters', () => {
    const p = ['*.example.com'];
    expect(decrypts(p, 'a.example.com')).toBe(true);
    expect(decrypts(p, 'a.b.example.com')).toBe(true);
    expect(decrypts(p, 'example.com')).toBe(false);
    expect(decrypts(p, 'a.example.org')).toBe(false);
    expect(decrypts(['mcp-*.internal'], 'mcp-prod.internal')).toBe(true);
    expect(decrypts(['mcp-*.internal'], 'api-prod.internal')).toBe(false);
    expect(decrypts(['10.0.*'], '10.0.3.4')).toBe(true);
    expect(decrypts(['10.0.*'], '10.1.3.4')).toBe(false);
    expect(decrypts(['*'], 'whatever.example', 1)).toBe(true);
  });

  it('restricts a pattern with :port to that port', () => {
    const p = ['localhost:8443'];
    expect(parseInterceptPatterns(p)[0].port).toBe(8443);
    expect(decrypts(p, 'localhost', 8443)).toBe(true);
    expect(decrypts(p, 'localhost', 443)).toBe(false);
    expect(decrypts(['*.example.com:443'], 'a.example.com', 443)).toBe(true);
    expect(decrypts(['*.example.com:443'], 'a.example.com', 8443)).toBe(false);
    expect(decrypts(['127.0.0.1:3000'], '127.0.0.1', 3000)).toBe(true);
    expect(decrypts(['127.0.0.1:3000'], '127.0.0.1', 3001)).toBe(false);
  });

  it('takes IPv6 literals with or without brackets, on either side', () => {
    for (const pattern of ['::1', '[::1]']) {
      expect(decrypts([pattern], '::1')).toBe(true);
      expect(decrypts([pattern], '[::1]')).toBe(true);
      expect(decrypts([pattern], '::2')).toBe(false);
    }
    expect(parseInterceptPatterns(['[::1]:8443'])[0].port).toBe(8443);
    expect(decrypts(['[::1]:8443'], '[::1]', 8443)).toBe(true);
    expect(decrypts(['[::1]:8443'], '::1', 443)).toBe(false);
    expect(decrypts(['2001:db8::1'], '2001:DB8::1')).toBe(true);
    expect(decrypts(['2001:db8:0:0:0:0:0:1'], '2001:db8:0:0:0:0:0:1')).toBe(true);
  });

  it('ignores case in patterns and hosts, and surrounding spaces in patterns', () => {
    expect(decrypts(['API.Example.COM'], 'api.example.com')).toBe(true);
    expect(decrypts(['api.example.com'], 'API.EXAMPLE.COM')).toBe(true);
    expect(decrypts(['*.EXAMPLE.com'], 'Mcp.Example.Com')).toBe(true);
    expect(decrypts(['  localhost  '], 'localhost')).toBe(true);
  });

  it("answers at once for a pattern a backtracking RegExp would retry every split for (the host is the client's, on the proxy thread)", () => {
    // Issue 26, finding 8: as ^.*a.*a…b$ this does not end for a 253-character host.
    const p = ['*a*a*a*a*a*a*a*a*a*a*b.example'];
    expect(decrypts(p, 'a'.repeat(253))).toBe(false);
    expect(decrypts(p, `${'a'.repeat(200)}b.example`)).toBe(true);
  });

  it('keeps the pattern as given, for messages', () => {
    expect(parseInterceptPatterns(['*.Example.com:443'])[0].pattern).toBe('*.Example.com:443');
  });

  it('decrypts a host that matches any of several patterns', () => {
    const p = ['other.example', 'localhost:3000', '*.internal'];
    expect(decrypts(p, 'other.example')).toBe(true);
    expect(decrypts(p, 'localhost', 3000)).toBe(true);
    expect(decrypts(p, 'localhost', 3001)).toBe(false);
    expect(decrypts(p, 'db.internal')).toBe(true);
    expect(decrypts(p, 'example.com')).toBe(false);
  });

  it('refuses malformed patterns with an error naming the pattern', () => {
    for (const bad of [
      '',
      '   ',
      'exa mple.com',
      'host:',
      'host:abc',
      'host:123456',
      '[::1',
      'http://example.com',
      'example.com/path',
      'example.com/mcp:443',
      'user@example.com',
      'a?b',
      'a#b',
      'a]b',
    ]) {
      expect(() => parseInterceptPatterns([bad]), JSON.stringify(bad)).toThrow(/--intercept .* is not a host pattern/);
    }
    for (const bad of ['host:0', 'host:70000', '[::1]:0']) {
      expect(() => parseInterceptPatterns([bad]), bad).toThrow(/--intercept .*port \d+ is out of range/);
    }
    // One bad pattern fails the whole list.
    expect(() => parseInterceptPatterns(['localhost', 'a b'])).toThrow(/"a b"/);
  });
});
