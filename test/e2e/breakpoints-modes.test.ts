/**
 * Breakpoints beyond the reverse proxy's SSE answers (issue 18): the forward proxy with TLS
 * interception in front of an SDK server answering JSON (the answer held before its head, its
 * Content-Length set to the edit's), a legacy HTTP+SSE session of server-everything whose GET
 * stream was open before the rule existed, and a client notification dropped (answered 202).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { startMcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import type { MessageEvent, ModificationEvent, PausedEvent } from '../../proxy/core/model/events.js';
import type { PausedMessage } from '../../proxy/core/rules/breakpoint-types.js';
import { makeTestCa, startSdkServer, viaProxy, type SdkServer, type TestCa } from '../support/tls-peers.js';
import { startEverythingServer, type RunningPeer } from '../support/peers.js';

const TOKEN = 'breakpoints-modes-token-0123456789';
const cleanup: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function api<T = unknown>(s: McpscopeCore, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${s.ui!.origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as T };
}

async function nextHeld(s: McpscopeCore): Promise<PausedMessage> {
  const ev = await s.waitFor((st) => st.snapshot().find((e): e is PausedEvent => e.type === 'paused' && e.state === 'held'));
  const { body } = await api<PausedMessage[]>(s, 'GET', '/api/paused');
  return body.find((x) => x.id === ev.pausedId)!;
}

const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;

describe('breakpoints in the other modes', () => {
  it('forward proxy, TLS intercepted, JSON answers: the answer is held before its head and sent edited with its new length', async () => {
    const ca: TestCa = await makeTestCa();
    cleanup.push(() => ca.remove());
    const server: SdkServer = await startSdkServer({ tls: ca.leaf, json: true });
    cleanup.push(() => server.close());
    const scope = await startMcpscope({ forward: { port: 0, upstreamCa: [ca.ca.certPem] }, uiPort: 0, token: TOKEN });
    cleanup.push(() => scope.close());
    const via = viaProxy(scope.forwardProxy!.origin, { ca: scope.ca!.certPem });
    cleanup.push(() => via.close());
    const client = new Client({ name: 'bp-forward', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { fetch: via.fetch }));
    cleanup.push(() => client.close());

    await api(scope, 'POST', '/api/breakpoints', { match: { dir: 's2c', method: 'tools/call', tool: 'echo' }, once: true });
    const call = client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    const held = await nextHeld(scope);
    expect(held).toMatchObject({ dir: 's2c', carrier: 'post-json', kind: 'response', method: 'tools/call', name: 'echo' });
    const answer = held.message as { result: { content: { type: string; text: string }[] } };
    expect(answer.result.content[0]!.text).toBe('echo: hi');
    answer.result.content[0]!.text = 'echo: a much longer answer written by the user at the breakpoint';
    await api(scope, 'POST', `/api/paused/${held.id}`, { action: 'resume', message: answer });
    expect(text(await call)).toBe('echo: a much longer answer written by the user at the breakpoint');
    await scope.settle();
    const response = scope.store
      .snapshot()
      .find((e): e is MessageEvent => e.type === 'message' && e.dir === 's2c' && e.method === 'tools/call')!;
    expect(response.edited).toBeGreaterThan(0);
    expect(response.carrier).toBe('post-json');
    const mod = scope.store.snapshot().find((e): e is ModificationEvent => e.type === 'modification' && e.seq === response.edited)!;
    expect(JSON.parse(mod.before).result.content[0].text).toBe('echo: hi');
  });

  it('legacy HTTP+SSE: a rule added while the GET stream is open holds its next matching event', async () => {
    const peer: RunningPeer = await startEverythingServer('sse');
    cleanup.push(() => peer.close());
    const scope = await startMcpscope({ target: peer.url, port: 0, uiPort: 0, token: TOKEN });
    cleanup.push(() => scope.close());
    const client = new Client({ name: 'bp-legacy', version: '1' });
    await client.connect(new SSEClientTransport(new URL(scope.proxy!.url)));
    cleanup.push(() => client.close());
    // The stream is open and flowing before any rule exists.
    expect(text(await client.callTool({ name: 'echo', arguments: { message: 'before' } }))).toMatch(/before/);

    await api(scope, 'POST', '/api/breakpoints', { match: { dir: 's2c', method: 'tools/call', tool: 'echo' }, once: true });
    const call = client.callTool({ name: 'echo', arguments: { message: 'after' } });
    const held = await nextHeld(scope);
    expect(held).toMatchObject({ dir: 's2c', carrier: 'legacy-sse', kind: 'response', method: 'tools/call', name: 'echo' });
    const answer = held.message as { result: { content: { type: string; text: string }[] } };
    answer.result.content = [{ type: 'text', text: 'rewritten on the legacy stream' }];
    await api(scope, 'POST', `/api/paused/${held.id}`, { action: 'resume', message: answer });
    expect(text(await call)).toBe('rewritten on the legacy stream');
    // The stream goes on: the next call through it works.
    expect(text(await client.callTool({ name: 'echo', arguments: { message: 'later' } }))).toMatch(/later/);
  });

  it('a dropped client notification is not forwarded and is answered 202, as the server would', async () => {
    const demo: DemoServer = await startDemoServer({ port: 0 });
    cleanup.push(() => demo.close());
    const scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0, token: TOKEN });
    cleanup.push(() => scope.close());
    const transport = new StreamableHTTPClientTransport(new URL(scope.proxy!.url));
    const client = new Client({ name: 'bp-drop', version: '1' });
    await client.connect(transport);
    cleanup.push(() => client.close());
    await api(scope, 'POST', '/api/breakpoints', { match: { dir: 'c2s', method: 'notifications/roots/list_changed' } });
    const sent = fetch(scope.proxy!.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
      },
      body: '{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}',
    });
    const held = await nextHeld(scope);
    expect(held).toMatchObject({ dir: 'c2s', kind: 'notification', carrier: 'post-body' });
    await api(scope, 'POST', `/api/paused/${held.id}`, { action: 'drop' });
    const res = await sent;
    expect(res.status).toBe(202);
    expect(res.headers.get('x-mcpscope-breakpoint')).toBe('dropped');
    await scope.settle();
    const mod = scope.store.snapshot().find((e): e is ModificationEvent => e.type === 'modification' && e.pausedId === held.id)!;
    expect(mod).toMatchObject({ what: 'breakpoint-drop', after: '(dropped)' });
    const x = [...scope.store.exchanges.values()].find((e) => e.id === held.exchangeId)!;
    expect(x.status).toBe(202);
    expect(x.hints.find((h) => h.code === 'answered-by-mcpscope')?.text).toMatch(/dropped at a breakpoint/);
  });
});
