/**
 * The 2026-07-28 stateless Streamable HTTP wire through the proxy, against a scripted upstream:
 * no Mcp-Session-Id anywhere, one POST per request, an `input_required` answer retried under a new
 * id with the `requestState`, and a 2025-11-25 task polled with tasks/get. The messages API must
 * show one session holding one chain, and the task's traffic linked to the request that made it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { MessageEvent, SessionInfo } from '../../proxy/core/model/events.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';

const TOKEN = 'stateless-2026-test-token-0123456789';
const V = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientInfo': { name: 'stateless-e2e', version: '0.9.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

let upstream: ScriptedUpstream;
let scope: Mcpscope;

beforeAll(async () => {
  upstream = await startScriptedUpstream({
    'POST /mcp': (_req, res, body) => {
      const m = JSON.parse(body.toString('utf8')) as { id: number; method: string; params: Record<string, unknown> };
      const reply = (result: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
      };
      if (m.method === 'tools/call' && m.params.name === 'deploy') {
        // Stateless server: everything it needs comes back in requestState.
        if (m.params.requestState === 'rs-1' && m.params.inputResponses)
          return reply({ resultType: 'complete', content: [{ type: 'text', text: 'deployed as octocat' }] });
        return reply({
          resultType: 'input_required',
          inputRequests: {
            who: {
              method: 'elicitation/create',
              params: {
                mode: 'form',
                message: 'GitHub user?',
                requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
              },
            },
          },
          requestState: 'rs-1',
        });
      }
      if (m.method === 'tools/call' && m.params.name === 'render') {
        // A task-augmented call answered with a CreateTaskResult on an SSE stream that then reports status.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          `data: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', task: { taskId: 'tk-7', status: 'working', createdAt: new Date(0).toISOString(), ttl: 60000 } } })}\n\n`,
        );
        res.write(
          `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId: 'tk-7', status: 'completed', createdAt: new Date(0).toISOString(), ttl: 60000 } })}\n\n`,
        );
        return void res.end();
      }
      if (m.method === 'tasks/get') return reply({ resultType: 'complete', taskId: m.params.taskId, status: 'working' });
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } }));
    },
  });
  scope = await startMcpscope({ target: `${upstream.origin}/mcp`, port: 0, uiPort: 0, token: TOKEN });
});

afterAll(async () => {
  await scope?.close();
  await upstream?.close();
});

async function rpc(id: number, method: string, params: Record<string, unknown>): Promise<{ result?: Record<string, unknown> }> {
  const name = typeof params.name === 'string' ? params.name : undefined;
  const res = await fetch(scope.proxy!.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V,
      'mcp-method': method,
      ...(name !== undefined ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { _meta: META, ...params } }),
  });
  expect(res.headers.get('mcp-session-id')).toBeNull();
  const text = await res.text();
  const data = text.startsWith('data: ') ? text.split('\n\n')[0].slice('data: '.length) : text;
  return JSON.parse(data) as { result?: Record<string, unknown> };
}

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`${scope.ui!.origin}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

async function sessionMessages(count: number): Promise<{ session: SessionInfo; messages: MessageEvent[] }> {
  await scope.waitFor((store) => [...store.sessions.values()].some((s) => store.messages(s.id).length >= count) || undefined);
  const sessions = await api<SessionInfo[]>('/api/sessions');
  expect(sessions).toHaveLength(1);
  return { session: sessions[0], messages: await api<MessageEvent[]>(`/api/sessions/${sessions[0].id}/messages`) };
}

describe('2026-07-28 stateless exchange through the proxy', () => {
  it('correlates an input_required retry chain as one chain in the messages API, in one session', async () => {
    const first = await rpc(1, 'tools/call', { name: 'deploy', arguments: { env: 'prod' } });
    expect(first.result?.resultType).toBe('input_required');
    const final = await rpc(2, 'tools/call', {
      name: 'deploy',
      arguments: { env: 'prod' },
      inputResponses: { who: { action: 'accept', content: { name: 'octocat' } } },
      requestState: first.result?.requestState,
    });
    expect(final.result?.content).toEqual([{ type: 'text', text: 'deployed as octocat' }]);

    const { session, messages } = await sessionMessages(4);
    expect(session.mcpSessionId).toBeUndefined();
    expect(session.grouping).toBe('client:stateless-e2e@0.9.0');
    expect(session.protocolVersion).toBe(V);
    expect(session.counts.exchanges).toBe(2);
    const [req1, res1, req2, res2] = messages;
    expect(new Set(messages.map((m) => m.exchangeId)).size).toBe(2);
    expect(req1).toMatchObject({ kind: 'request', id: 1, method: 'tools/call', name: 'deploy' });
    expect(req1.chain).toBeUndefined();
    expect(res1).toMatchObject({ kind: 'response', id: 1, pair: req1.seq, chain: { root: req1.seq, attempt: 1, step: 'input-required' } });
    expect(req2).toMatchObject({ kind: 'request', id: 2, chain: { root: req1.seq, prev: req1.seq, attempt: 2 } });
    expect(res2).toMatchObject({
      kind: 'response',
      id: 2,
      pair: req2.seq,
      chain: { root: req1.seq, prev: req1.seq, attempt: 2, step: 'final' },
    });
    for (const m of messages) expect(m.hints.map((h) => h.code)).not.toContain('header-mismatch');
  });

  it('links a task-augmented call, its tasks/get polling and its status notification to the origin', async () => {
    const created = await rpc(3, 'tools/call', { name: 'render', arguments: {}, task: { ttl: 60000 } });
    expect((created.result?.task as { taskId?: string }).taskId).toBe('tk-7');
    await rpc(4, 'tasks/get', { taskId: 'tk-7' });
    await rpc(5, 'tasks/get', { taskId: 'tk-7' });

    const { messages } = await sessionMessages(4 + 3 + 4);
    const origin = messages.find((m) => m.kind === 'request' && m.name === 'render')!;
    const link = { id: 'tk-7', origin: origin.seq };
    const after = messages.filter((m) => m.seq > origin.seq);
    expect(after.map((m) => [m.kind, m.method, m.id ?? null, m.task])).toEqual([
      ['response', 'tools/call', 3, link],
      ['notification', 'notifications/tasks/status', null, link],
      ['request', 'tasks/get', 4, link],
      ['response', 'tasks/get', 4, link],
      ['request', 'tasks/get', 5, link],
      ['response', 'tasks/get', 5, link],
    ]);
    const status = after.find((m) => m.method === 'notifications/tasks/status')!;
    expect(status.parent).toBe(origin.seq);
  });
});
