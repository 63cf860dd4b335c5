/**
 * mcpscope's own answers, recorded as the response to the request they answer: the 502 of an
 * unreachable upstream (forwarder.ts records it — head, body — then the upstream-error record) and
 * fault injection's answers (x-mcpscope-fault). The JSON-RPC error pairs with its request (so
 * nothing stays pending), says who answered, and the problem sits on the same exchange. A session
 * closed by its response's status (initialize rejected, session expired) still pairs that answer.
 */
import { describe, expect, it } from 'vitest';
import type { WireRecord } from '../../../proxy/wire/capture/wire-records.js';
import { json, setup, messages, problems, sessionOf, exchangeOf, codes, type Wire } from '../../support/recorder-harness.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};

/** What forwarder.ts captures when the upstream cannot be reached: its answer, then why. */
function unreachable(w: Wire, xid: string, id: unknown): WireRecord[] {
  const message =
    'mcpscope could not get a response from http://upstream.test/mcp: connection refused — is the server running on that port?';
  return [
    w.head(xid, 502, { 'content-type': 'application/json', 'x-mcpscope-error': 'ECONNREFUSED' }),
    ...w.chunks(xid, json({ jsonrpc: '2.0', id, error: { code: -32000, message, data: { cause: 'ECONNREFUSED' } } })),
    { t: 'upstream-error', xid, ts: w.ts(), code: 'ECONNREFUSED', message, status: 502 },
  ];
}

describe("Recorder: mcpscope's own answers", () => {
  it("the forward proxy's refusals (a request to the proxy itself, a loop) are refusals, not an unreachable server", () => {
    for (const [code, status] of [
      ['NOT_PROXY_REQUEST', 400],
      ['LOOP', 508],
    ] as const) {
      const { store, w, feed } = setup();
      const x = w.xid();
      const message = `Refused by mcpscope: ${code === 'LOOP' ? 'a request to the proxy itself would loop.' : "this port is mcpscope's forward proxy."}`;
      feed([w.request(x, 'GET', '/'), { t: 'upstream-error', xid: x, ts: w.ts(), code, message, status }]);
      const found = problems(store);
      expect(found.map((p) => p.code)).toEqual(['refused']);
      expect(found[0]!.text).toBe(message);
      expect(exchangeOf(store, found[0]!.exchangeId!).status).toBe(status);
    }
  });

  it('an unreachable upstream: the 502 is the JSON-RPC error answering the call, paired and marked; nothing pending; the problem on the same exchange', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    feed([
      ...w.send(
        x,
        'POST',
        '/mcp',
        { ...JSON_HEADERS, 'mcp-session-id': 'U' },
        json({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo' } }),
      ),
      ...unreachable(w, x, 4),
    ]);
    const [request, answer] = messages(store);
    expect(messages(store)).toHaveLength(2);
    expect(answer).toMatchObject({
      kind: 'error',
      dir: 's2c',
      exchangeId: x,
      pair: request.seq,
      latencyMs: expect.any(Number),
      method: 'tools/call',
      name: 'echo',
      carrier: 'post-json',
    });
    expect(answer.error).toMatchObject({ code: -32000 });
    expect(answer.hints.find((h) => h.code === 'answered-by-mcpscope')).toMatchObject({
      level: 'warn',
      text: expect.stringContaining('the server was not reachable (connection refused'),
    });
    expect(sessionOf(store)).toMatchObject({ status: 'open', counts: { messages: 2, requests: 1, pending: 0 } });
    expect(exchangeOf(store, x)).toMatchObject({
      status: 502,
      endedAt: expect.any(Number),
      error: expect.stringContaining('connection refused'),
    });
    expect(codes(exchangeOf(store, x).hints)).toContain('answered-by-mcpscope');
    expect(problems(store)).toEqual([expect.objectContaining({ code: 'upstream-unreachable', sessionId: 's1', exchangeId: x })]);
  });

  it('an initialize answered by mcpscope: paired before its session closes as initialize-rejected', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    feed([...w.send(x, 'POST', '/mcp', JSON_HEADERS, json(INIT)), ...unreachable(w, x, 0)]);
    const [request, answer] = messages(store);
    expect(answer).toMatchObject({ kind: 'error', pair: request.seq, method: 'initialize' });
    expect(codes(answer.hints)).not.toContain('unknown-id');
    expect(sessionOf(store)).toMatchObject({ status: 'closed', closeReason: 'initialize-rejected', counts: { pending: 0 } });
  });

  it("a server's 404 for an expired session still pairs the error its body carries (an error status on initialize: recorder.test.ts)", () => {
    const { store, w, feed } = setup();
    const x2 = w.xid();
    const x3 = w.xid();
    feed([
      ...w.send(x2, 'POST', '/mcp', JSON_HEADERS, json({ ...INIT, id: 1 })),
      ...w.reply(
        x2,
        200,
        { 'content-type': 'application/json', 'mcp-session-id': 'E' },
        json({
          jsonrpc: '2.0',
          id: 1,
          result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } },
        }),
      ),
    ]);
    feed([
      ...w.send(x3, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'E' }, json({ jsonrpc: '2.0', id: 2, method: 'tools/list' })),
      ...w.reply(
        x3,
        404,
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', id: 2, error: { code: -32001, message: 'Session not found' } }),
      ),
    ]);
    const expired = messages(store);
    expect(expired.at(-1)).toMatchObject({ kind: 'error', pair: expired.at(-2)!.seq });
    expect(sessionOf(store)).toMatchObject({ status: 'closed', closeReason: 'expired', counts: { pending: 0 } });
  });

  it("a fault injection's answer is marked as mcpscope's, not the server's", () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    feed([
      ...w.send(x, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'F' }, json({ jsonrpc: '2.0', id: 9, method: 'ping' })),
      ...w.reply(
        x,
        500,
        { 'content-type': 'application/json', 'x-mcpscope-fault': 'injected' },
        json({ jsonrpc: '2.0', id: 9, error: { code: -32000, message: 'mcpscope fault injection: HTTP 500 (rule r1)' } }),
      ),
    ]);
    const answer = messages(store)[1];
    expect(answer).toMatchObject({ kind: 'error', pair: messages(store)[0].seq });
    expect(answer.hints.find((h) => h.code === 'answered-by-mcpscope')?.text).toMatch(/fault injection/);
    expect(sessionOf(store).counts.pending).toBe(0);
  });

  it('a server-sent error carries no such mark', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    feed([
      ...w.send(x, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': 'G' }, json({ jsonrpc: '2.0', id: 1, method: 'ping' })),
      ...w.reply(x, 500, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom' } })),
    ]);
    expect(codes(messages(store)[1].hints)).not.toContain('answered-by-mcpscope');
    expect(codes(exchangeOf(store, x).hints)).not.toContain('answered-by-mcpscope');
  });
});
