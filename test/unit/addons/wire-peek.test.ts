/** What a holder reads off a message, and the book that matches a response by its request. */
import { describe, expect, it } from 'vitest';
import { CallBook, bookKey, peekMessages } from '../../../proxy/addons/breakpoints/wire/wire-peek.js';

describe('peekMessages', () => {
  it('reads kinds, ids (typed), methods and names; a batch; refuses what is not JSON-RPC', () => {
    expect(peekMessages('{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"echo"}}')).toEqual({
      batch: false,
      messages: [{ kind: 'request', id: '1', method: 'tools/call', name: 'echo' }],
    });
    expect(
      peekMessages('[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}}]'),
    ).toEqual({
      batch: true,
      messages: [
        { kind: 'notification', method: 'notifications/initialized' },
        { kind: 'error', id: 2 },
      ],
    });
    expect(peekMessages('not json')).toBeUndefined();
    expect(peekMessages('{"hello":1}')).toBeUndefined();
    expect(peekMessages('[]')).toBeUndefined();
    expect(peekMessages('['.repeat(200) + ']'.repeat(200))).toBeUndefined();
  });
});

describe('CallBook', () => {
  it('matches a response to the request of the other direction, per session and typed id, once', () => {
    const book = new CallBook();
    book.book('m:a', 'c2s', [{ kind: 'request', id: 1, method: 'tools/call', name: 'echo' }]);
    book.book('m:b', 'c2s', [{ kind: 'request', id: 1, method: 'ping' }]);
    book.book('m:a', 's2c', [{ kind: 'request', id: 1, method: 'sampling/createMessage' }]);
    expect(book.answer('m:a', 's2c', '1')).toBeUndefined();
    expect(book.answer('m:a', 's2c', 1)).toEqual({ method: 'tools/call', name: 'echo' });
    expect(book.answer('m:a', 's2c', 1)).toBeUndefined();
    expect(book.answer('m:a', 'c2s', 1)).toEqual({ method: 'sampling/createMessage', name: undefined });
    expect(book.answer('m:b', 's2c', 1)).toEqual({ method: 'ping', name: undefined });
  });
  it('names sessions by their wire key', () => {
    expect(bookKey({ mcpSessionId: 'x', endpoint: '/mcp' })).toBe('m:x');
    expect(bookKey({ endpoint: '/message?sessionId=1' })).toBe('e:/message?sessionId=1');
    expect(bookKey({})).toBe('');
  });
});
