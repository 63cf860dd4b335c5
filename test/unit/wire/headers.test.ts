/** proxy/wire/forwarder/headers.ts: withoutCookie, the strip of mcpscope's own UI cookie. */
import { describe, expect, it } from 'vitest';
import { endToEndHeaders, isJsonType, withoutCookie } from '../../../proxy/wire/forwarder/headers.js';

describe('withoutCookie', () => {
  const name = 'mcpscope_token';
  it.each([
    ['a=1; mcpscope_token=T; b=2', 'a=1; b=2'],
    ['mcpscope_token=T; a=1', 'a=1'],
    ['mcpscope_token=T;a=1', 'a=1'],
    ['a=1; mcpscope_token=T', 'a=1'],
    ['a=1;mcpscope_token=T;b=2', 'a=1;b=2'],
    ['mcpscope_token=T', ''],
    ['mcpscope_token=T; mcpscope_token=U', ''],
    [' mcpscope_token = T ; a=1', 'a=1'],
    ['a=1; mcpscope_token; b=2', 'a=1; b=2'],
  ])('%j → %j', (header, expected) => {
    expect(withoutCookie(header, name)).toBe(expected);
  });
  it.each(['a=1; b=2', 'mcpscope_token2=x', 'x=mcpscope_token', 'my_mcpscope_token=1', ''])(
    '%j has none: undefined (forwarded as it is)',
    (header) => {
      expect(withoutCookie(header, name)).toBeUndefined();
    },
  );
});

describe('isJsonType', () => {
  it('JSON and +json media types, in any case, with or without parameters', () => {
    expect(isJsonType('application/json')).toBe(true);
    expect(isJsonType('Application/JSON; charset=utf-8')).toBe(true);
    expect(isJsonType('application/problem+json')).toBe(true);
    expect(isJsonType('text/event-stream')).toBe(false);
    expect(isJsonType('')).toBe(false);
  });
});

describe('endToEndHeaders', () => {
  it('drops the hop-by-hop headers and those the Connection header lists, keeps the rest as they are', () => {
    const out = endToEndHeaders({
      connection: 'keep-alive, X-Hop',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      te: 'trailers',
      upgrade: 'h2c',
      'proxy-connection': 'keep-alive',
      'x-hop': '1',
      'content-type': 'application/json',
      'set-cookie': ['a=1', 'b=2'],
      'mcp-session-id': 'S',
      absent: undefined,
    });
    expect(out).toEqual({ 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'], 'mcp-session-id': 'S' });
  });
  it('Connection: close or keep-alive alone lists nothing more', () => {
    expect(endToEndHeaders({ connection: 'close', accept: '*/*' })).toEqual({ accept: '*/*' });
  });
});
