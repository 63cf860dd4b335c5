/**
 * The recorder's side of sending into a session (proxy/recorder/kept-requests.ts): each HTTP
 * session's latest client POST kept unredacted in memory (never in an event), dropped when the
 * session closes; requests carrying `x-mcpscope-origin` marked `sentBy` with their body's messages.
 */
import { describe, expect, it } from 'vitest';
import { codes, exchangeOf, json, messages, setup } from '../../support/recorder-harness.js';

const SECRET = 'Bearer kept-secret-token-123456';
const JSON_H = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const init = json({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
});

describe('kept requests', () => {
  it("keeps the latest client POST's headers unredacted, out of every event, until the session closes", () => {
    const { store, recorder, w, feed } = setup();
    feed([
      ...w.send('x1', 'POST', '/mcp', { ...JSON_H, authorization: SECRET }, init),
      ...w.reply(
        'x1',
        200,
        { 'content-type': 'application/json', 'mcp-session-id': 'sid-1' },
        json({
          jsonrpc: '2.0',
          id: 0,
          result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } },
        }),
      ),
      ...w.send(
        'x2',
        'POST',
        '/mcp?k=v',
        { ...JSON_H, authorization: SECRET, 'mcp-session-id': 'sid-1', 'x-custom': 'c1' },
        json({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      ),
    ]);
    const kept = recorder.keptRequest('s1')!;
    expect(kept).toMatchObject({ url: '/mcp?k=v', target: 'http://upstream.test/mcp', proxyOrigin: 'http://127.0.0.1:6481' });
    expect(kept.headers).toMatchObject({ authorization: SECRET, 'mcp-session-id': 'sid-1', 'x-custom': 'c1' });
    expect(JSON.stringify(store.snapshot())).not.toContain('kept-secret-token');

    // A request mcpscope sent is not the client's: it does not replace the kept one.
    feed(
      w.send(
        'x3',
        'POST',
        '/mcp',
        { ...JSON_H, 'mcp-session-id': 'sid-1', 'x-mcpscope-origin': 'send' },
        json({ jsonrpc: '2.0', id: 'mcpscope-1', method: 'ping' }),
      ),
    );
    expect(recorder.keptRequest('s1')!.headers['x-custom']).toBe('c1');

    feed([...w.send('x4', 'DELETE', '/mcp', { 'mcp-session-id': 'sid-1' }), ...w.reply('x4', 200, {})]);
    expect(store.sessions.get('s1')!.status).toBe('closed');
    expect(recorder.keptRequest('s1')).toBeUndefined();
  });

  it("keeps a stateless client's _meta identity from its latest request that had one", () => {
    const { recorder, w, feed } = setup();
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'sl', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
      progressToken: 4,
    };
    feed(
      w.send(
        'x1',
        'POST',
        '/mcp',
        { ...JSON_H, 'mcp-method': 'tools/list' },
        json({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }),
      ),
    );
    const { progressToken: _, ...identity } = meta;
    void _;
    expect(recorder.keptRequest('s1')!.meta).toEqual(identity);
  });

  it('marks an exchange sent with x-mcpscope-origin, and the messages of its request body only', () => {
    const { store, w, feed } = setup();
    feed([
      ...w.send('x1', 'POST', '/mcp', JSON_H, init),
      ...w.reply(
        'x1',
        200,
        { 'content-type': 'application/json', 'mcp-session-id': 'sid-1' },
        json({
          jsonrpc: '2.0',
          id: 0,
          result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } },
        }),
      ),
      ...w.send(
        'x2',
        'POST',
        '/mcp',
        { ...JSON_H, 'mcp-session-id': 'sid-1', 'x-mcpscope-origin': 'send' },
        json({ jsonrpc: '2.0', id: 'mcpscope-1', method: 'ping' }),
      ),
      ...w.reply('x2', 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 'mcpscope-1', result: {} })),
    ]);
    expect(exchangeOf(store, 'x1').sentBy).toBeUndefined();
    const x2 = exchangeOf(store, 'x2');
    expect(x2.sentBy).toBe('send');
    expect(codes(x2.hints)).toContain('sent-by-mcpscope');
    const [req, res] = messages(store).filter((m) => m.exchangeId === 'x2');
    expect(req).toMatchObject({ dir: 'c2s', sentBy: 'mcpscope', id: 'mcpscope-1' });
    expect(codes(req.hints)).toContain('sent-by-mcpscope');
    expect(res).toMatchObject({ dir: 's2c', pair: req.seq });
    expect(res.sentBy).toBeUndefined();
    expect(
      messages(store)
        .filter((m) => m.exchangeId === 'x1')
        .every((m) => m.sentBy === undefined),
    ).toBe(true);
  });
});
