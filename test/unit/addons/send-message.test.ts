/**
 * The pure part of POST /api/sessions/:id/send (proxy/addons/send/send-message.ts): the body's checks,
 * the message as it goes out (fresh id, a stateless client's _meta) and its headers.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SEND_TIMEOUT_MS,
  SendIds,
  checkSendBody,
  mirrorValue,
  outgoingMessage,
  paramHeaders,
  sendHeaders,
  type CheckedSend,
} from '../../../proxy/addons/send/send-message.js';

const checked = (body: unknown): CheckedSend => {
  const c = checkSendBody(body);
  if ('error' in c) throw new Error(c.error);
  return c;
};

describe('checkSendBody', () => {
  it('takes a request with or without an id, and a notifications/… message without one as a notification', () => {
    expect(checked({ message: { jsonrpc: '2.0', method: 'tools/list' } })).toMatchObject({
      kind: 'request',
      keepId: false,
      timeoutMs: DEFAULT_SEND_TIMEOUT_MS,
    });
    expect(checked({ message: { jsonrpc: '2.0', id: 7, method: 'ping' }, keepId: true, timeoutMs: 500 })).toMatchObject({
      kind: 'request',
      keepId: true,
      timeoutMs: 500,
    });
    expect(checked({ message: { jsonrpc: '2.0', method: 'notifications/roots/list_changed' } }).kind).toBe('notification');
  });

  it('refuses what cannot be sent, in plain words', () => {
    const error = (body: unknown) => (checkSendBody(body) as { error: string }).error;
    expect(error(null)).toMatch(/JSON object/);
    expect(error({})).toMatch(/no "message"/);
    expect(error({ message: [{ jsonrpc: '2.0', method: 'ping' }] })).toMatch(/not a batch/);
    expect(error({ message: { jsonrpc: '2.0', id: 1, result: {} } })).toMatch(/only a request or a notification/);
    expect(error({ message: { method: 'ping' } })).toMatch(/jsonrpc/);
    expect(error({ message: { jsonrpc: '2.0', method: 'ping', params: 3 } })).toMatch(/params/);
    expect(error({ message: { jsonrpc: '2.0', method: 'ping', id: null } })).toMatch(/not null/);
    expect(error({ message: { jsonrpc: '2.0', method: 'ping' }, timeoutMs: 0 })).toMatch(/timeoutMs/);
    expect(error({ message: { jsonrpc: '2.0', method: 'ping' }, timeoutMs: 3_600_000 })).toMatch(/timeoutMs/);
    expect(error({ message: { jsonrpc: '2.0', method: 'ping' }, keepId: 'yes' })).toMatch(/keepId/);
  });
});

describe('outgoingMessage', () => {
  it('gives a request a fresh id, replacing its own unless keepId', () => {
    const fresh = () => 'mcpscope-9';
    expect(outgoingMessage(checked({ message: { jsonrpc: '2.0', id: 3, method: 'ping' } }), fresh, undefined)).toEqual({
      message: { jsonrpc: '2.0', id: 'mcpscope-9', method: 'ping' },
      id: 'mcpscope-9',
    });
    expect(outgoingMessage(checked({ message: { jsonrpc: '2.0', id: 3, method: 'ping' }, keepId: true }), fresh, undefined).id).toBe(3);
    const n = outgoingMessage(checked({ message: { jsonrpc: '2.0', method: 'notifications/x' } }), fresh, undefined);
    expect(n).toEqual({ message: { jsonrpc: '2.0', method: 'notifications/x' } });
  });

  it("adds a stateless client's _meta where the message has none of its own for the key", () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'c' } };
    const { message } = outgoingMessage(
      checked({
        message: {
          jsonrpc: '2.0',
          method: 'tools/call',
          params: { name: 't', _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'mine' }, progressToken: 1 } },
        },
      }),
      () => 'mcpscope-1',
      meta,
    );
    expect((message.params as { _meta: unknown })._meta).toEqual({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'mine' },
      progressToken: 1,
    });
    expect(outgoingMessage(checked({ message: { jsonrpc: '2.0', method: 'ping' } }), () => 'mcpscope-1', meta).message.params).toEqual({
      _meta: meta,
    });
  });

  it('SendIds skips an id the session already used', () => {
    const ids = new SendIds();
    expect(ids.next((id) => id === 'mcpscope-1')).toBe('mcpscope-2');
    expect(ids.next(() => false)).toBe('mcpscope-3');
  });
});

describe('sendHeaders', () => {
  const client = {
    host: '127.0.0.1:1',
    connection: 'keep-alive',
    'content-length': '99',
    'accept-encoding': 'gzip',
    'transfer-encoding': 'chunked',
    'content-type': 'application/json; charset=utf-8',
    authorization: 'Bearer s3cret',
    cookie: 'a=b',
    'mcp-session-id': 'abc',
    'mcp-protocol-version': '2025-06-18',
    'x-tenant': 't1',
    'mcp-method': 'tools/list',
    'mcp-param-region': 'old',
    'x-mcpscope-origin': 'respond',
    accept: 'application/json, text/event-stream',
  };

  it("keeps the client's end-to-end headers, drops the connection's and the body's, and says who sent it", () => {
    const h = sendHeaders({ client, message: { jsonrpc: '2.0', id: 'mcpscope-1', method: 'ping' }, mirror: false });
    expect(h).toEqual({
      authorization: 'Bearer s3cret',
      cookie: 'a=b',
      'mcp-session-id': 'abc',
      'mcp-protocol-version': '2025-06-18',
      'x-tenant': 't1',
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'x-mcpscope-origin': 'send',
    });
    expect(sendHeaders({ client: { accept: '*/*' }, message: { jsonrpc: '2.0', method: 'ping' }, mirror: false }).accept).toBe(
      'application/json, text/event-stream',
    );
  });

  it('recomputes Mcp-Method, Mcp-Name and Mcp-Param-* for the new message (2026-07-28)', () => {
    const schema = { properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, n: { type: 'number' } } };
    const message = {
      jsonrpc: '2.0',
      id: 'mcpscope-1',
      method: 'tools/call',
      params: { name: 'déploy', arguments: { region: 'eu-1', n: 2 } },
    };
    const h = sendHeaders({ client, message, mirror: true, toolSchema: schema });
    expect(h['mcp-method']).toBe('tools/call');
    expect(h['mcp-name']).toBe(mirrorValue('déploy'));
    expect(h['mcp-param-region']).toBe('eu-1');
    expect(Object.keys(h).filter((k) => k.startsWith('mcp-param-'))).toEqual(['mcp-param-region']);
    const read = sendHeaders({
      client: {},
      message: { jsonrpc: '2.0', method: 'resources/read', params: { uri: 'file:///a' } },
      mirror: true,
    });
    expect(read['mcp-name']).toBe('file:///a');
  });

  it('mirrors non-ASCII values as =?base64?…?=', () => {
    expect(mirrorValue('plain-name')).toBe('plain-name');
    expect(mirrorValue('déploy')).toBe(`=?base64?${Buffer.from('déploy').toString('base64')}?=`);
    expect(paramHeaders({ properties: { a: { 'x-mcp-header': 'bad header' } } }, { a: 'x' })).toEqual({});
  });
});
