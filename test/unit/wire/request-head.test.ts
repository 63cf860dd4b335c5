/** proxy/wire/forwarder/request-head.ts: which request heads mcpscope refuses to forward. */
import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_HEADERS, readOverflowingHead, refusedHead } from '../../../proxy/wire/forwarder/request-head.js';

const fields = (n: number) => Array.from({ length: n }, (_, i) => [`x-${i}`, '1']).flat();

describe('refusedHead', () => {
  it('accepts up to the limit, refuses one more', () => {
    expect(refusedHead(['Host', 'a', ...fields(MAX_REQUEST_HEADERS - 1)])).toBeUndefined();
    expect(refusedHead(['Host', 'a', ...fields(MAX_REQUEST_HEADERS)])).toBe('too-many-headers');
  });
  it('refuses a second Host in any case, accepts one', () => {
    expect(refusedHead(['Host', 'a', 'hosts', 'b', 'x-host', 'c'])).toBeUndefined();
    expect(refusedHead(['Host', 'a', 'accept', '*/*', 'HoSt', 'a'])).toBe('duplicate-host');
    expect(refusedHead(['host', 'a', 'host', 'b'])).toBe('duplicate-host');
    expect(refusedHead([])).toBeUndefined();
  });
});

describe('readOverflowingHead', () => {
  const enc = (s: string) => Buffer.from(s, 'latin1');
  it('reads the request line and Host of a head Node refused, and tells count from size', () => {
    const many = `POST /mcp?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9\r\n${Array.from({ length: MAX_REQUEST_HEADERS + 5 }, (_, i) => `x${i}: 1\r\n`).join('')}\r\n`;
    expect(readOverflowingHead(enc(many))).toEqual({ refusal: 'too-many-headers', method: 'POST', url: '/mcp?x=1', host: '127.0.0.1:9' });
    const big = `GET http://a.test/mcp HTTP/1.1\r\nx-big: ${'b'.repeat(20_000)}\r\nHOST: a.test\r\n`;
    expect(readOverflowingHead(enc(big))).toEqual({ refusal: 'head-too-large', method: 'GET', url: 'http://a.test/mcp', host: 'a.test' });
  });
  it('a packet that is not a request line: GET / with no Host, never a throw', () => {
    expect(readOverflowingHead(undefined)).toEqual({ refusal: 'head-too-large', method: 'GET', url: '/', host: undefined });
    expect(readOverflowingHead(enc('\u0000\u0001garbage'))).toMatchObject({ method: 'GET', url: '/' });
  });
});
