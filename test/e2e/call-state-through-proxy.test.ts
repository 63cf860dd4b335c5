/**
 * A call's state through the real reverse proxy (proxy/core/model/call-state.ts), against the official
 * SDK's StreamableHTTPServerTransport in stateful mode (test/support/tls-peers.ts): a tools/list
 * POSTed without initialize is answered HTTP 400 "Bad Request: Server not initialized" (a JSON-RPC
 * error with id null, which answers no request). That request is failed, not pending — in
 * /api/sessions (what the sidebar and `mcpscope mcp` read), /api/calls and /api/search. A call
 * whose SSE stream is still to carry its answer stays pending until it comes, and a notification's
 * 202 Accepted fails nothing.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { MessageEvent, SessionInfo } from '../../proxy/core/model/events.js';
import type { CallView } from '../../proxy/recorder/store/call-view.js';
import type { SearchResult } from '../../proxy/recorder/store/search.js';
import { formatSessions } from '../../proxy/app/agent/agent-format.js';
import { createRedactor } from '../../proxy/recorder/redact/redact.js';
import { startSdkServer, type SdkServer } from '../support/tls-peers.js';

const TOKEN = 'call-state-test-token-0123456789abcdef';
let upstream: SdkServer;
let scope: Mcpscope;

beforeAll(async () => {
  upstream = await startSdkServer();
  scope = await startMcpscope({ target: upstream.url, port: 0, uiPort: 0, token: TOKEN });
});
afterAll(async () => {
  await scope?.close();
  await upstream?.close();
});

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`${scope.ui!.origin}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(scope.proxy.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });

it('counts a request refused with HTTP 400 "Server not initialized" as failed, not pending, everywhere', async () => {
  const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ id: null, error: { message: 'Bad Request: Server not initialized' } });
  await scope.settle();

  const sessions = await api<SessionInfo[]>('/api/sessions');
  const refused = sessions.find((s) => s.grouping !== undefined && s.counts.requests === 1)!;
  expect(refused).toBeDefined();
  expect(refused.counts).toMatchObject({ requests: 1, pending: 0, failed: 1 });

  // What `mcpscope mcp`'s list_sessions says of it.
  const listed = formatSessions(sessions, createRedactor({})).text;
  expect(listed).toContain('1 failed');
  expect(listed).not.toContain('pending');

  const request = (await api<MessageEvent[]>(`/api/sessions/${refused.id}/messages`)).find((m) => m.kind === 'request')!;
  const view = await api<CallView>(`/api/calls/${request.seq}`);
  expect(view.status).toBe('http-error');
  const found = await api<SearchResult>(`/api/search?errorsOnly=true&method=tools/list&session=${refused.id}`);
  expect(found.hits.map((h) => [h.seq, h.httpStatus])).toEqual([[request.seq, 400]]);
});

it('keeps a call pending while its SSE stream is still to carry the answer, and a notification’s 202 fails nothing', async () => {
  const client = new Client({ name: 'call-state-client', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
  const session = (): Promise<SessionInfo> =>
    api<SessionInfo[]>('/api/sessions').then((all) => all.find((s) => s.clientInfo?.name === 'call-state-client')!);

  // The tool sends a progress notification on the call's SSE stream, then waits for release().
  const progressed = new Promise<void>((resolve) => {
    void client
      .callTool({ name: 'progress-then-wait', arguments: {} }, undefined, { onprogress: () => resolve() })
      .then((r) => expect(r.content).toEqual([{ type: 'text', text: 'released' }]));
  });
  await progressed;
  await scope.waitFor((store) =>
    store.snapshot().some((e) => e.type === 'message' && e.method === 'notifications/progress' && e.sessionId !== undefined),
  );
  await scope.settle();
  const waiting = await session();
  expect(waiting.counts.pending).toBe(1);
  expect(waiting.counts.failed ?? 0).toBe(0);

  upstream.release();
  await scope.waitFor((store) => store.sessions.get(waiting.id)?.counts.pending === 0 || undefined);
  await scope.settle();
  const done = await session();
  expect(done.counts.pending).toBe(0);
  expect(done.counts.failed ?? 0).toBe(0);
  // The initialized notification (and nothing else) was answered 202 Accepted.
  const exchanges = scope.store.snapshot().filter((e) => e.type === 'exchange' && e.exchange.sessionId === waiting.id);
  expect(exchanges.some((e) => e.type === 'exchange' && e.exchange.status === 202)).toBe(true);
  await client.close();
});
