/**
 * Breakpoints on the HTTP proxy (issue 18), against the demo server (official SDK, Streamable
 * HTTP with SSE answers) and the SDK client: a tools/call held, edited and resumed; a progress
 * event held inside its POST's stream while another session flows; a server's sampling request
 * answered by the user; a held message released by its time limit; rules through the API.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import type { MessageEvent, ModificationEvent, PausedEvent } from '../../proxy/core/model/events.js';
import type { PausedMessage } from '../../proxy/core/rules/breakpoint-types.js';

const TOKEN = 'breakpoints-test-token-0123456789';
let demo: DemoServer | undefined;
let scope: Mcpscope | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await scope?.close();
  await demo?.close();
  scope = undefined;
  demo = undefined;
});

async function setup(holdMs?: number): Promise<Mcpscope> {
  demo = await startDemoServer({ port: 0 });
  scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0, token: TOKEN, ...(holdMs ? { holdMs } : {}) });
  return scope;
}

async function connect(s: Mcpscope, sampling?: () => unknown): Promise<Client> {
  const client = new Client({ name: 'bp-test', version: '1.0.0' }, { capabilities: sampling ? { sampling: {} } : {} });
  if (sampling) client.setRequestHandler(CreateMessageRequestSchema, async () => sampling() as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(s.proxy.url)));
  clients.push(client);
  return client;
}

async function api<T = unknown>(s: Mcpscope, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${s.ui!.origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as T };
}

/** The next held message (a `paused` event in the store), then its entry at /api/paused. */
async function nextHeld(s: Mcpscope, after = 0): Promise<PausedMessage> {
  const ev = await s.waitFor((st) =>
    st.snapshot().find((e): e is PausedEvent => e.type === 'paused' && e.state === 'held' && e.seq > after),
  );
  const { body } = await api<PausedMessage[]>(s, 'GET', '/api/paused');
  const p = body.find((x) => x.id === ev.pausedId);
  expect(p).toBeDefined();
  return p!;
}

const messages = (s: Mcpscope) => s.store.snapshot().filter((e): e is MessageEvent => e.type === 'message');
const mods = (s: Mcpscope) =>
  s.store.snapshot().filter((e): e is ModificationEvent => e.type === 'modification' && e.what.startsWith('breakpoint'));

describe('breakpoints API', () => {
  it('validates, lists and removes rules; needs the token', async () => {
    const s = await setup();
    expect((await fetch(`${s.ui!.origin}/api/breakpoints`)).status).toBe(401);
    const bad = await api<{ error: string }>(s, 'POST', '/api/breakpoints', { match: { dir: 'up' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/match\.dir must be "c2s"/);
    const added = await api<{ id: string }>(s, 'POST', '/api/breakpoints', { match: { dir: 'c2s', method: 'tools/call' }, once: true });
    expect(added.status).toBe(201);
    expect((await api(s, 'GET', '/api/breakpoints')).body).toEqual([
      { id: added.body.id, match: { dir: 'c2s', method: 'tools/call' }, once: true },
    ]);
    expect((await api(s, 'DELETE', `/api/breakpoints/${added.body.id}`)).status).toBe(200);
    expect((await api(s, 'GET', '/api/breakpoints')).body).toEqual([]);
    expect((await api(s, 'POST', '/api/paused/h99', { action: 'resume' })).status).toBe(404);
  });
});

describe('breakpoints on the wire', () => {
  it("holds a client's tools/call; the edited call reaches the server and the record shows both versions", async () => {
    const s = await setup();
    const client = await connect(s);
    await api(s, 'POST', '/api/breakpoints', { match: { dir: 'c2s', method: 'tools/call', tool: 'echo' }, once: true });
    const call = client.callTool({ name: 'echo', arguments: { text: 'original' } });
    const held = await nextHeld(s);
    expect(held).toMatchObject({ dir: 'c2s', carrier: 'post-body', kind: 'request', method: 'tools/call', name: 'echo' });
    const original = held.message as { id: number; params: { arguments: { text: string } } };
    expect(original.params.arguments.text).toBe('original');
    const edited = { ...original, params: { ...original.params, arguments: { text: 'edited by the user, longer than before' } } };
    expect((await api(s, 'POST', `/api/paused/${held.id}`, { action: 'resume', message: edited })).body).toEqual({ ok: true });
    const result = (await call) as { content: { text: string }[] };
    expect(result.content[0]!.text).toBe('edited by the user, longer than before');

    await s.settle();
    const mod = mods(s).find((m) => m.pausedId === held.id)!;
    expect(mod.what).toBe('breakpoint-edit');
    expect(JSON.parse(mod.before).params.arguments.text).toBe('original');
    const sent = messages(s).find((m) => m.dir === 'c2s' && m.method === 'tools/call')!;
    expect(sent.edited).toBe(mod.seq);
    expect((sent.jsonrpc as typeof original).params.arguments.text).toBe('edited by the user, longer than before');
    expect(sent.hints.map((h) => h.code)).toContain('breakpoint-edited');
    // The answer pairs with the edited request.
    expect(messages(s).find((m) => m.dir === 's2c' && m.pair === sent.seq)).toBeDefined();
    const released = s.store.snapshot().find((e): e is PausedEvent => e.type === 'paused' && e.state === 'released');
    expect(released).toMatchObject({ pausedId: held.id, outcome: 'edited' });
    // once: the rule is gone, the next call flows.
    expect((await api(s, 'GET', '/api/breakpoints')).body).toEqual([]);
    expect(
      ((await client.callTool({ name: 'echo', arguments: { text: 'again' } })) as { content: { text: string }[] }).content[0]!.text,
    ).toBe('again');
  });

  it('holds one progress event inside a POST stream: the events behind it wait, another session flows, all arrive in order', async () => {
    const s = await setup();
    const slow = await connect(s);
    const other = await connect(s);
    await api(s, 'POST', '/api/breakpoints', { match: { dir: 's2c', method: 'notifications/progress' }, once: true });
    const progress: number[] = [];
    const call = slow.callTool({ name: 'slow_task', arguments: { steps: 3, delayMs: 20 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    const held = await nextHeld(s);
    expect(held).toMatchObject({ dir: 's2c', carrier: 'post-sse', kind: 'notification', method: 'notifications/progress' });
    // While it is held, another session's call is answered.
    expect(
      ((await other.callTool({ name: 'echo', arguments: { text: 'meanwhile' } })) as { content: { text: string }[] }).content[0]!.text,
    ).toBe('meanwhile');
    // The server has finished meanwhile (3 × 20 ms), but nothing after the held event reached the client or the record.
    expect(progress).toEqual([]);
    await s.settle();
    const slowExchange = held.exchangeId!;
    expect(messages(s).filter((m) => m.exchangeId === slowExchange && m.dir === 's2c')).toEqual([]);
    await api(s, 'POST', `/api/paused/${held.id}`, { action: 'resume' });
    const result = (await call) as { content: { text: string }[] };
    expect(result.content[0]!.text).toBe('done after 3 steps');
    expect(progress).toEqual([1, 2, 3]);
    await s.settle();
    const onStream = messages(s).filter((m) => m.exchangeId === slowExchange && m.dir === 's2c');
    expect(onStream.filter((m) => m.method === 'notifications/progress').map((m) => m.progress?.progress)).toEqual([1, 2, 3]);
    expect(onStream.at(-1)!.kind).toBe('response');
    expect(mods(s).find((m) => m.pausedId === held.id)).toMatchObject({
      what: 'breakpoint',
      text: expect.stringMatching(/forwarded unchanged|sent unchanged/),
    });
  });

  it("answers a server's sampling request in the client's place: the client never sees it, the server gets the user's answer", async () => {
    const s = await setup();
    let asked = 0;
    const client = await connect(s, () => {
      asked += 1;
      return { role: 'assistant', content: { type: 'text', text: 'from the client' }, model: 'client-model' };
    });
    await api(s, 'POST', '/api/breakpoints', { match: { dir: 's2c', method: 'sampling/createMessage' } });
    const call = client.callTool({ name: 'ask_llm', arguments: { question: 'why?' } });
    const held = await nextHeld(s);
    expect(held).toMatchObject({ dir: 's2c', kind: 'request', method: 'sampling/createMessage' });
    const bad = await api<{ error: string }>(s, 'POST', `/api/paused/${held.id}`, {
      action: 'respond',
      message: { id: 'other', result: {} },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/id must be the request's id/);
    const answer = { result: { role: 'assistant', content: { type: 'text', text: 'from the user' }, model: 'user-model' } };
    expect((await api(s, 'POST', `/api/paused/${held.id}`, { action: 'respond', message: answer })).status).toBe(200);
    const result = (await call) as { content: { text: string }[] };
    expect(result.content[0]!.text).toBe('user-model says: from the user');
    expect(asked).toBe(0);
    await s.settle();
    const ours = [...s.store.exchanges.values()].find((x) => x.sentBy === 'respond' || x.requestHeaders['x-mcpscope-origin'] === 'respond');
    expect(ours?.status).toBe(202);
    const request = messages(s).find((m) => m.method === 'sampling/createMessage' && m.kind === 'request')!;
    expect(messages(s).find((m) => m.kind === 'response' && m.pair === request.seq && m.dir === 'c2s')).toBeDefined();
  });

  it("holds a server's request on the stream of mcpscope's own send (no client reads it) for the user to answer", async () => {
    const s = await setup();
    let asked = 0;
    await connect(s, () => {
      asked += 1;
      return { role: 'assistant', content: { type: 'text', text: 'from the client' }, model: 'client-model' };
    });
    await s.settle();
    const session = [...s.store.sessions.values()].find((x) => x.clientInfo?.name === 'bp-test')!;
    // No breakpoint rule at all.
    const sent = api<{ response: { result: { content: { text: string }[] } } }>(s, 'POST', `/api/sessions/${session.id}/send`, {
      message: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'ask_llm', arguments: { question: 'who answers?' } } },
    });
    const held = await nextHeld(s);
    expect(held).toMatchObject({ dir: 's2c', kind: 'request', method: 'sampling/createMessage', rule: 'mcpscope-send' });
    const answer = { result: { role: 'assistant', content: { type: 'text', text: 'the user' }, model: 'panel' } };
    expect((await api(s, 'POST', `/api/paused/${held.id}`, { action: 'respond', message: answer })).status).toBe(200);
    const res = await sent;
    expect(res.status).toBe(200);
    expect(res.body.response.result.content[0]!.text).toBe('panel says: the user');
    expect(asked).toBe(0);
  });

  it('releases a held message unchanged at its time limit', async () => {
    const s = await setup(200);
    const client = await connect(s);
    await api(s, 'POST', '/api/breakpoints', { match: { dir: 's2c', method: 'tools/call' }, once: true });
    const call = client.callTool({ name: 'echo', arguments: { text: 'late' } });
    const held = await nextHeld(s);
    expect(held).toMatchObject({ dir: 's2c', kind: 'response', method: 'tools/call', name: 'echo' });
    expect(held.expiresAt - held.since).toBe(200);
    expect(((await call) as { content: { text: string }[] }).content[0]!.text).toBe('late');
    await s.waitFor((st) => st.snapshot().find((e) => e.type === 'paused' && e.state === 'released' && e.outcome === 'timed-out'));
    expect((await api<unknown[]>(s, 'GET', '/api/paused')).body).toEqual([]);
  });
});
