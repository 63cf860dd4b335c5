/**
 * Breakpoints and sends on stdio: the built wrapper (bin/mcpscope.js -- <server>) between the
 * official SDK's StdioClientTransport client and an SDK McpServer on StdioServerTransport
 * (test/support/stdio-sdk-server.mjs), reporting to an mcpscope UI started in this test process.
 * Held lines are seen and acted on through the UI port's API with the token, as the UI does.
 * Requires `npm run build` (npm test runs it first).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { startMcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';
import type { PausedMessage } from '../../proxy/core/rules/breakpoint-types.js';
import type { MessageEvent, ModificationEvent, PausedEvent, SessionInfo } from '../../proxy/core/model/events.js';
import type { EventStore } from '../../proxy/recorder/store/event-store.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const SERVER = fileURLToPath(new URL('../support/stdio-sdk-server.mjs', import.meta.url));

let home: string;
let scope: McpscopeCore;
const savedHome = process.env.MCPSCOPE_HOME;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcpscope-stdio-bp-'));
  process.env.MCPSCOPE_HOME = home;
  scope = await startMcpscope({ uiPort: 0, discoveryFile: true });
});

afterAll(async () => {
  await scope?.close();
  if (savedHome === undefined) delete process.env.MCPSCOPE_HOME;
  else process.env.MCPSCOPE_HOME = savedHome;
  rmSync(home, { recursive: true, force: true });
});

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  scope.breakpoints.clear();
});

async function api<T>(on: McpscopeCore, path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const res = await fetch(`${on.ui!.origin}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${on.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as T };
}

/** A client over the wrapper around the SDK server, recording into `on`; resolves once the session shows there. */
async function wrapped(on: McpscopeCore, tag: string, sampled: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--ui-port', String(on.ui!.port), '--token', on.token, '--', process.execPath, SERVER, tag],
    env: { ...process.env, MCPSCOPE_HOME: home, MCPSCOPE_TOKEN: '' } as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-bp-e2e', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    const c = req.params.messages[0].content as { type: string; text?: string };
    sampled.push(c.text ?? '?');
    return { role: 'assistant', model: 'client-model', content: { type: 'text', text: 'from the client' } };
  });
  clients.push(client);
  await client.connect(transport);
  const session = await on.waitFor((s) => sessionOf(s, tag));
  return { client, transport, session };
}

function sessionOf(store: EventStore, tag: string): SessionInfo | undefined {
  return [...store.sessions.values()].find((s) => s.transport === 'stdio' && s.target.includes(tag));
}

/** The held message, once the wrapper reported it (GET /api/paused, as the UI reads it). */
async function heldOne(on: McpscopeCore): Promise<PausedMessage> {
  await on.waitFor(() => on.paused.size > 0);
  const { status, json } = await api<PausedMessage[]>(on, '/api/paused');
  expect(status).toBe(200);
  expect(json).toHaveLength(1);
  return json[0];
}

const released = (on: McpscopeCore, id: string) =>
  on.waitFor((s) => s.snapshot().find((e): e is PausedEvent => e.type === 'paused' && e.pausedId === id && e.state === 'released'));

describe('breakpoints on a wrapped stdio server', () => {
  it('holds the server’s answer to tools/call; the user edits it; the client gets the edited result; the store keeps both', async () => {
    // The rule exists before the wrapper starts: it comes down the ingest socket as the wrapper links.
    scope.breakpoints.add({ id: 'edit-echo', match: { dir: 's2c', method: 'tools/call', tool: 'echo' }, once: true });
    const { client, session } = await wrapped(scope, 'bp-edit');
    const call = client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    const held = await heldOne(scope);
    expect(held).toMatchObject({
      dir: 's2c',
      carrier: 'stdio',
      kind: 'response',
      method: 'tools/call',
      name: 'echo',
      rule: 'edit-echo',
      sessionId: session.id,
    });
    const original = held.message as { id: number; result: { content: { text: string }[] } };
    expect(original.result.content[0].text).toBe('echo: hi');
    expect(held.id).toMatch(/^i\d+:s\d+$/);

    const edited = { jsonrpc: '2.0', id: original.id, result: { content: [{ type: 'text', text: 'edited at a breakpoint' }] } };
    expect((await api(scope, `/api/paused/${held.id}`, { action: 'resume', message: edited })).status).toBeLessThan(300);
    expect(await call).toEqual({ content: [{ type: 'text', text: 'edited at a breakpoint' }] });
    expect((await released(scope, held.id)).outcome).toBe('edited');

    const [mod, msg] = await scope.waitFor((s) => {
      const m = s.snapshot().find((e): e is ModificationEvent => e.type === 'modification' && e.pausedId === held.id);
      const r = m && s.messages(session.id).find((e) => e.edited === m.seq);
      return m && r ? ([m, r] as const) : undefined;
    });
    expect(mod).toMatchObject({ sessionId: session.id, what: 'breakpoint-edit', after: JSON.stringify(edited) });
    expect(mod.exchangeId).toBeUndefined();
    expect(JSON.parse(mod.before)).toEqual(original);
    expect(msg).toMatchObject({ dir: 's2c', kind: 'response', method: 'tools/call', jsonrpc: edited });
    expect(msg.hints.some((h) => h.code === 'breakpoint-edited')).toBe(true);
    // The `once` rule is used up, also in the UI's rule set.
    expect(scope.breakpoints.size).toBe(0);
  });

  it('holds a server→client request (sampling) and answers it in the client’s place', async () => {
    scope.breakpoints.add({ id: 'sampling', match: { dir: 's2c', method: 'sampling/createMessage' } });
    const sampled: string[] = [];
    const { client, session } = await wrapped(scope, 'bp-respond', sampled);
    const call = client.callTool({ name: 'ask', arguments: { question: 'what?' } });
    const held = await heldOne(scope);
    expect(held).toMatchObject({ dir: 's2c', kind: 'request', method: 'sampling/createMessage' });
    const answer = { result: { role: 'assistant', model: 'mcpscope', content: { type: 'text', text: 'from mcpscope' } } };
    expect((await api(scope, `/api/paused/${held.id}`, { action: 'respond', message: answer })).status).toBeLessThan(300);
    expect(await call).toEqual({ content: [{ type: 'text', text: 'answer: from mcpscope' }] });
    expect(sampled).toEqual([]); // the client never saw the request
    expect((await released(scope, held.id)).outcome).toBe('responded');

    const reply = await scope.waitFor((s) =>
      s.messages(session.id).find((m) => m.dir === 'c2s' && m.kind === 'response' && m.sentBy === 'mcpscope'),
    );
    const request = scope.store.messages(session.id).find((m) => m.method === 'sampling/createMessage' && m.kind === 'request')!;
    expect(reply.pair).toBe(request.seq);
    expect(
      scope.store.snapshot().some((e) => e.type === 'modification' && e.pausedId === held.id && e.after.startsWith('(answered: ')),
    ).toBe(true);
  });

  it('lets a held line go on unchanged at the UI’s hold time', async () => {
    const quick = await startMcpscope({ uiPort: 0, holdMs: 300 });
    try {
      quick.breakpoints.add({ match: { dir: 's2c', method: 'tools/call' } });
      const { client } = await wrapped(quick, 'bp-timeout');
      const call = client.callTool({ name: 'echo', arguments: { text: 'later' } });
      // From the store's `paused` events, not the live registry: on a busy machine the 300 ms can be
      // over before a check sees the line held (held and released reported in one batch).
      const held = await quick.waitFor((s) => s.snapshot().find((e): e is PausedEvent => e.type === 'paused' && e.state === 'held'));
      expect(held.expiresAt - held.since).toBe(300);
      expect(await call).toEqual({ content: [{ type: 'text', text: 'echo: later' }] });
      expect((await released(quick, held.pausedId)).outcome).toBe('timed-out');
      await client.close();
    } finally {
      await quick.close();
    }
  });
});

describe('sending into a wrapped stdio server', () => {
  it('answers a tools/call sent by mcpscope, which the client never sees, and records both lines as mcpscope’s', async () => {
    const { client, transport, session } = await wrapped(scope, 'send-into');
    const seen: JSONRPCMessage[] = [];
    const deliver = transport.onmessage!;
    transport.onmessage = (m) => {
      seen.push(m);
      deliver(m);
    };
    const { response } = await scope.sendToStdio(session.id, {
      jsonrpc: '2.0',
      id: 0, // the client's initialize used it: mcpscope picks another
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'from mcpscope' } },
    });
    expect(response).toEqual({ jsonrpc: '2.0', id: 'mcpscope-1', result: { content: [{ type: 'text', text: 'echo: from mcpscope' }] } });
    // The client goes on as before; what mcpscope sent and got never reached it.
    expect(await client.callTool({ name: 'echo', arguments: { text: 'mine' } })).toEqual({
      content: [{ type: 'text', text: 'echo: mine' }],
    });
    expect(seen.some((m) => 'id' in m && m.id === 'mcpscope-1')).toBe(false);
    expect(seen).toHaveLength(1);

    const [sent, answer] = await scope.waitFor((s) => {
      const mine = s.messages(session.id).filter((m) => m.id === 'mcpscope-1');
      return mine.length === 2 ? mine : undefined;
    });
    expect(sent).toMatchObject({ dir: 'c2s', kind: 'request', sentBy: 'mcpscope', name: 'echo' });
    expect(answer).toMatchObject({ dir: 's2c', kind: 'response', sentBy: 'mcpscope', pair: sent.seq });
    const theirs = scope.store.messages(session.id).filter((m: MessageEvent) => m.name === 'echo' && m.id !== 'mcpscope-1');
    expect(theirs.every((m) => m.sentBy === undefined)).toBe(true);
  });

  it('refuses a session that is not a running stdio process', async () => {
    await expect(scope.sendToStdio('s999', { jsonrpc: '2.0', id: 1, method: 'ping' })).rejects.toMatchObject({ status: 409 });
  });
});
