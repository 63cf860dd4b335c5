/**
 * A recorded Streamable HTTP session (through the real Recorder, linter on) with exactly one spec
 * violation: a tools/call whose argument `a` is a string where the tool's inputSchema wants a
 * number (rule tools/arguments-schema). For the export and import tests.
 */
import type { MessageEvent, ProblemEvent } from '../../proxy/core/model/events.js';
import { json, setup } from './recorder-harness.js';

export const VIOLATION_RULE = 'tools/arguments-schema';

export function recordViolatingSession(lint: 'warn' | 'strict' = 'warn') {
  const h = setup({ lint });
  const { w, feed } = h;
  const sid = 'sess-violating-1';
  const post = (body: unknown, reply: unknown | undefined, headers: Record<string, string> = {}) => {
    const xid = w.xid();
    feed([
      ...w.send(
        xid,
        'POST',
        '/mcp',
        { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        json(body),
      ),
      ...(reply === undefined
        ? w.reply(xid, 202, {})
        : w.reply(xid, 200, { 'content-type': 'application/json', 'mcp-session-id': sid }, json(reply))),
    ]);
  };
  const inSession = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  post(
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'violator', version: '1' } },
    },
    {
      jsonrpc: '2.0',
      id: 0,
      result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'calc', version: '1' } },
    },
  );
  post({ jsonrpc: '2.0', method: 'notifications/initialized' }, undefined, inSession);
  post(
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    {
      jsonrpc: '2.0',
      id: 1,
      result: {
        tools: [
          {
            name: 'add',
            inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
          },
        ],
      },
    },
    inSession,
  );
  post(
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: '2', b: 3 } } },
    { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'a must be a number' }], isError: true } },
    inSession,
  );
  const events = h.store.snapshot();
  const violations = events.filter((e): e is ProblemEvent => e.type === 'problem' && e.code === 'spec-violation');
  const call = events.find((e): e is MessageEvent => e.type === 'message' && e.kind === 'request' && e.method === 'tools/call')!;
  return { ...h, sessionId: violations[0]?.sessionId ?? 's1', violations, call };
}
