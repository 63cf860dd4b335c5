/**
 * A GET event stream that carries no session id: a stateless Streamable HTTP server's standalone
 * stream (MCP-Protocol-Version on the request, or the endpoint its POSTs were accepted at) joins
 * that server's id-less session; the legacy HTTP+SSE stream (no such header, another path, or a
 * client falling back after its POST was refused) is a legacy-sse session as before; and a stream
 * taken for Streamable HTTP whose first event is the legacy `endpoint` becomes legacy after all.
 */
import { describe, expect, it } from 'vitest';
import { json, setup, messages, sessionOf, exchangeOf, codes, type Wire } from '../../support/recorder-harness.js';
import type { WireRecord } from '../../../proxy/wire/capture/wire-records.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const V = '2025-11-25';
const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: V, capabilities: {}, clientInfo: { name: 'inspector-cli', version: '1' } },
};
const INIT_RESULT = {
  jsonrpc: '2.0',
  id: 0,
  result: { protocolVersion: V, capabilities: {}, serverInfo: { name: 'stateless', version: '1' } },
};

/** initialize and notifications/initialized answered by a server that assigns no session id. */
function statelessStart(w: Wire): WireRecord[] {
  const x1 = w.xid();
  const x2 = w.xid();
  return [
    ...w.send(x1, 'POST', '/mcp', JSON_HEADERS, json(INIT)),
    ...w.reply(x1, 200, { 'content-type': 'application/json' }, json(INIT_RESULT)),
    ...w.send(
      x2,
      'POST',
      '/mcp',
      { ...JSON_HEADERS, 'mcp-protocol-version': V },
      json({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    ),
    ...w.reply(x2, 202, {}),
  ];
}

/** A GET event stream, opened and then closed by the client. */
function getStream(w: Wire, xid: string, url: string, headers: Record<string, string>, events = ''): WireRecord[] {
  return [
    ...w.send(xid, 'GET', url, { accept: 'text/event-stream', ...headers }),
    w.head(xid, 200, { 'content-type': 'text/event-stream' }),
    ...(events ? w.chunks(xid, events) : []),
    { t: 'abort', xid, ts: w.ts(), side: 'client', reason: 'the client closed the connection' },
  ];
}

describe('Recorder: GET event streams without a session id', () => {
  it("with MCP-Protocol-Version: the stateless server's standalone stream, in its session (not a legacy-sse one)", () => {
    const { store, w, feed } = setup();
    feed(statelessStart(w));
    const g = w.xid();
    feed(getStream(w, g, '/mcp', { 'mcp-protocol-version': V }));
    expect([...store.sessions.values()].map((s) => s.transport)).toEqual(['streamable-http']);
    expect(exchangeOf(store, g)).toMatchObject({ sessionId: 's1', carrier: 'get-sse', aborted: 'client' });
    expect(codes(exchangeOf(store, g).hints)).toContain('standalone-stream');
    expect(sessionOf(store)).toMatchObject({ status: 'open', counts: { exchanges: 3, pending: 0 } });
    // A server notification on it belongs to the session.
    const g2 = w.xid();
    feed(
      getStream(
        w,
        g2,
        '/mcp',
        { 'mcp-protocol-version': V },
        `data: ${json({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`,
      ),
    );
    expect(messages(store).at(-1)).toMatchObject({
      sessionId: 's1',
      exchangeId: g2,
      carrier: 'get-sse',
      method: 'notifications/tools/list_changed',
    });
  });

  it('without the header, to the endpoint where the stateless POSTs were accepted: the same', () => {
    const { store, w, feed } = setup();
    feed(statelessStart(w));
    const g = w.xid();
    feed(getStream(w, g, '/mcp', {}));
    expect([...store.sessions.values()].map((s) => s.transport)).toEqual(['streamable-http']);
    expect(exchangeOf(store, g)).toMatchObject({ sessionId: 's1', carrier: 'get-sse' });
  });

  it('with the header and no id-less session known yet: a streamable-http session of its own', () => {
    const { store, w, feed } = setup();
    const g = w.xid();
    feed(getStream(w, g, '/mcp', { 'mcp-protocol-version': V }));
    expect(sessionOf(store)).toMatchObject({ transport: 'streamable-http', grouping: 'requests without Mcp-Session-Id', status: 'open' });
    expect(exchangeOf(store, g)).toMatchObject({ sessionId: 's1', carrier: 'get-sse' });
  });

  it('without the header, to another path: the legacy HTTP+SSE stream, as before', () => {
    const { store, w, feed } = setup();
    feed(statelessStart(w));
    const g = w.xid();
    feed(getStream(w, g, '/sse', {}, 'event: endpoint\ndata: /messages?sessionId=abc\n\n'));
    expect(sessionOf(store, 's2')).toMatchObject({
      transport: 'legacy-sse',
      endpoint: '/messages?sessionId=abc',
      status: 'closed',
      closeReason: 'client-closed-stream',
    });
    expect(exchangeOf(store, g)).toMatchObject({ sessionId: 's2', carrier: 'legacy-sse' });
  });

  it('a client falling back to the legacy transport after its POST was refused opens a legacy stream at the same URL', () => {
    const { store, w, feed } = setup();
    const p = w.xid();
    feed([
      ...w.send(p, 'POST', '/mcp', JSON_HEADERS, json(INIT)),
      ...w.reply(p, 405, { 'content-type': 'text/plain' }, 'Method Not Allowed'),
    ]);
    const g = w.xid();
    feed(getStream(w, g, '/mcp', {}, 'event: endpoint\ndata: /mcp?sessionId=xyz\n\n'));
    expect(sessionOf(store, 's2')).toMatchObject({ transport: 'legacy-sse', endpoint: '/mcp?sessionId=xyz' });
    expect(exchangeOf(store, g)).toMatchObject({ sessionId: 's2', carrier: 'legacy-sse' });
  });

  it('a stream taken for Streamable HTTP whose first event is `endpoint` is a legacy session stream after all', () => {
    const { store, w, feed } = setup();
    const g = w.xid();
    feed([
      ...w.send(g, 'GET', '/sse', { accept: 'text/event-stream', 'mcp-protocol-version': '2024-11-05' }),
      w.head(g, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(g, 'event: endpoint\ndata: /messages?sessionId=r1\n\n'),
    ]);
    expect([...store.sessions.values()].map((s) => s.transport)).toEqual(['legacy-sse']);
    expect(sessionOf(store)).toMatchObject({ endpoint: '/messages?sessionId=r1', counts: { exchanges: 1 } });
    expect(sessionOf(store).grouping).toBeUndefined();
    expect(exchangeOf(store, g)).toMatchObject({ sessionId: 's1', carrier: 'legacy-sse' });
    const p = w.xid();
    feed([
      ...w.send(
        p,
        'POST',
        '/messages?sessionId=r1',
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      ),
      ...w.reply(p, 202, {}, 'Accepted'),
    ]);
    feed(w.chunks(g, `event: message\ndata: ${json({ jsonrpc: '2.0', id: 1, result: { tools: [] } })}\n\n`));
    expect(messages(store).map((m) => [m.sessionId, m.carrier, m.kind])).toEqual([
      ['s1', 'post-body', 'request'],
      ['s1', 'legacy-sse', 'response'],
    ]);
    // A later id-less POST does not take the legacy session for a stateless one.
    const q = w.xid();
    feed([
      ...w.send(q, 'POST', '/mcp', JSON_HEADERS, json({ jsonrpc: '2.0', id: 5, method: 'ping' })),
      ...w.reply(q, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 5, result: {} })),
    ]);
    expect(exchangeOf(store, q).sessionId).toBe('s2');
  });

  it('a stream moved off a stateless session that had other traffic leaves that session whole', () => {
    const { store, w, feed } = setup();
    feed(statelessStart(w));
    const g = w.xid();
    feed([
      ...w.send(g, 'GET', '/mcp', { accept: 'text/event-stream', 'mcp-protocol-version': V }),
      w.head(g, 200, { 'content-type': 'text/event-stream' }),
      ...w.chunks(g, 'event: endpoint\ndata: /mcp?sessionId=q\n\n'),
    ]);
    expect(sessionOf(store, 's1')).toMatchObject({ transport: 'streamable-http', counts: { exchanges: 2 } });
    expect(sessionOf(store, 's2')).toMatchObject({ transport: 'legacy-sse', endpoint: '/mcp?sessionId=q', counts: { exchanges: 1 } });
    expect(exchangeOf(store, g)).toMatchObject({ sessionId: 's2', carrier: 'legacy-sse' });
  });
});
