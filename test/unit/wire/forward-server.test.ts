/**
 * The forward proxy's request-target parsing: absolute-form URLs split into origin and a path
 * kept byte for byte (proxy/wire/forward-proxy/forward-server.ts), and CONNECT's authority-form
 * (proxy/wire/forward-proxy/connect-handler.ts); the upstream agent's connector, which cuts a connection that
 * lands on mcpscope's own port (a name that resolved elsewhere when the request came).
 */
import { createServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { splitAbsoluteForm, upstreamConnector } from '../../../proxy/wire/forward-proxy/forward-server.js';
import { upstreamAgent } from '../../../proxy/wire/forwarder/fastify-app.js';
import { SelfGuard } from '../../../proxy/wire/forward-proxy/self-address.js';
import { parseAuthority } from '../../../proxy/wire/forward-proxy/connect-handler.js';

describe('splitAbsoluteForm', () => {
  it('splits origin, authority and path', () => {
    expect(splitAbsoluteForm('http://example.com:8080/mcp?x=1')).toEqual({
      origin: 'http://example.com:8080',
      host: 'example.com:8080',
      hostname: 'example.com',
      port: 8080,
      path: '/mcp?x=1',
    });
    expect(splitAbsoluteForm('https://api.example.com/v1/mcp')).toEqual({
      origin: 'https://api.example.com',
      host: 'api.example.com',
      hostname: 'api.example.com',
      port: 443,
      path: '/v1/mcp',
    });
    expect(splitAbsoluteForm('http://127.0.0.1:3000/')).toEqual({
      origin: 'http://127.0.0.1:3000',
      host: '127.0.0.1:3000',
      hostname: '127.0.0.1',
      port: 3000,
      path: '/',
    });
  });

  it('keeps the path byte for byte: dot segments, encodings, double slashes', () => {
    const paths = [
      '/a/%2e%2e/b',
      '/a/../b/./c',
      '/%2E%2e/%2f',
      '//double//slashes/',
      '/mcp%zz',
      '/caf%C3%A9?q=a%20b&q=%2e',
      '/a;b=c/d',
      '/?',
      '/a?b?c',
    ];
    for (const path of paths) expect(splitAbsoluteForm(`http://h.example:81${path}`)?.path, path).toBe(path);
  });

  it('makes an empty path "/" and a query-only target "/?query"', () => {
    expect(splitAbsoluteForm('http://example.com')?.path).toBe('/');
    expect(splitAbsoluteForm('http://example.com:8080')?.path).toBe('/');
    expect(splitAbsoluteForm('http://example.com?q=1')?.path).toBe('/?q=1');
    expect(splitAbsoluteForm('http://example.com:8080?q')?.path).toBe('/?q');
  });

  it('drops a fragment (never part of a request-target)', () => {
    expect(splitAbsoluteForm('http://example.com/p?q=1#frag')?.path).toBe('/p?q=1');
  });

  it('normalises only the origin: scheme and host case, default ports', () => {
    expect(splitAbsoluteForm('HTTP://Example.COM/Mixed/Case')).toEqual({
      origin: 'http://example.com',
      host: 'example.com',
      hostname: 'example.com',
      port: 80,
      path: '/Mixed/Case',
    });
    expect(splitAbsoluteForm('http://example.com:80/x')).toMatchObject({ origin: 'http://example.com', host: 'example.com' });
    expect(splitAbsoluteForm('https://example.com:443/x')).toMatchObject({ origin: 'https://example.com', host: 'example.com' });
    expect(splitAbsoluteForm('http://[::1]:3000/mcp')).toEqual({
      origin: 'http://[::1]:3000',
      host: '[::1]:3000',
      hostname: '::1',
      port: 3000,
      path: '/mcp',
    });
    expect(splitAbsoluteForm('http://user:secret@example.com/x')).toMatchObject({ origin: 'http://example.com', path: '/x' });
  });

  it('is undefined for what is not an http(s) absolute-form target', () => {
    for (const url of [
      '/mcp',
      '*',
      'example.com:443',
      'ftp://example.com/x',
      'ws://example.com/x',
      'http:/example.com',
      'http://',
      'http:///x',
      'http://[::1/x',
      'http://exa mple.com/',
    ]) {
      expect(splitAbsoluteForm(url), url).toBeUndefined();
    }
  });
});

describe('parseAuthority (CONNECT targets)', () => {
  it('splits host:port', () => {
    expect(parseAuthority('example.com:443')).toEqual({ host: 'example.com', hostname: 'example.com', port: 443 });
    expect(parseAuthority('127.0.0.1:8080')).toEqual({ host: '127.0.0.1', hostname: '127.0.0.1', port: 8080 });
    expect(parseAuthority('localhost:1')).toEqual({ host: 'localhost', hostname: 'localhost', port: 1 });
    expect(parseAuthority('localhost:65535')?.port).toBe(65535);
    expect(parseAuthority('my_host-1.internal:3000')?.hostname).toBe('my_host-1.internal');
  });

  it('takes a bracketed IPv6 literal, the hostname without brackets', () => {
    expect(parseAuthority('[::1]:443')).toEqual({ host: '[::1]', hostname: '::1', port: 443 });
    expect(parseAuthority('[2001:DB8::1]:8443')).toEqual({ host: '[2001:db8::1]', hostname: '2001:db8::1', port: 8443 });
    expect(parseAuthority('[::ffff:127.0.0.1]:80')?.hostname).toBe('::ffff:127.0.0.1');
  });

  it('lower-cases the host', () => {
    expect(parseAuthority('Example.COM:443')).toEqual({ host: 'example.com', hostname: 'example.com', port: 443 });
  });

  it('rejects a missing port, ports out of range, spaces and other forms', () => {
    const bad = [
      undefined,
      '',
      'example.com',
      'example.com:',
      ':443',
      '[::1]',
      '::1:443',
      'example.com:0',
      'example.com:00000',
      'example.com:65536',
      'example.com:70000',
      'example.com:123456',
      'example.com:-1',
      'exa mple.com:443',
      'example.com: 443',
      ' example.com:443',
      'example.com:443 ',
      'http://example.com:443',
      'example.com:443/path',
      'user@example.com:443',
      'example.com:443?x',
      '[::1',
      '[zz::1]:443',
      'nonsense',
    ];
    for (const target of bad) expect(parseAuthority(target), JSON.stringify(target)).toBeUndefined();
  });
});

describe('upstreamConnector', () => {
  it('cuts a connection whose far end is mcpscope’s own port, with EPROXYLOOP; any other goes through', async () => {
    let accepted = 0;
    let answered = 0;
    const server = createServer((s) => {
      accepted += 1;
      s.on('error', () => undefined);
      s.once('data', () => {
        answered += 1;
        s.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}/mcp`;
    try {
      // The port mcpscope listens on: the request never reaches the server, and says why.
      const looping = upstreamAgent(upstreamConnector(undefined, new SelfGuard(() => [port])));
      const err = (await request(url, { dispatcher: looping }).catch((e: unknown) => e)) as Error & { code?: string };
      expect(err.code).toBe('EPROXYLOOP');
      expect(err.message).toBe(`127.0.0.1:${port} is mcpscope's own forward proxy: forwarding there would loop, so mcpscope did not`);
      expect(answered).toBe(0);
      await looping.close();
      // Another port: forwarded.
      const other = upstreamAgent(upstreamConnector(undefined, new SelfGuard(() => [port + 1])));
      const res = await request(url, { dispatcher: other });
      expect(await res.body.text()).toBe('ok');
      expect(answered).toBe(1);
      expect(accepted).toBe(2);
      await other.close();
    } finally {
      server.close();
    }
  });
});
