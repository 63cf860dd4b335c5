/**
 * Fault injection (issue 6, item 8) against the demo server with the SDK client: rules added
 * through /api/faults (token required) make the proxy answer 503, delay, drop a POST's SSE stream
 * after N events, or expire the session — each recorded as a `fault-injection` modification.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import type { ModificationEvent } from '../../proxy/core/model/events.js';

const TOKEN = 'faults-test-token-0123456789abcdef';
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

async function setup(): Promise<Mcpscope> {
  demo = await startDemoServer({ port: 0 });
  scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0, token: TOKEN });
  return scope;
}

async function connect(s: Mcpscope): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'faults-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(s.proxy.url));
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

async function api(s: Mcpscope, method: string, path: string, body?: unknown, token: string | null = TOKEN): Promise<Response> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${s.ui!.origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function faultEvents(s: Mcpscope): Promise<ModificationEvent[]> {
  await s.settle();
  return s.store.snapshot().filter((e): e is ModificationEvent => e.type === 'modification' && e.what === 'fault-injection');
}

async function statusesOf(s: Mcpscope): Promise<number[]> {
  await s.settle();
  return [...s.store.exchanges.values()].map((x) => (x as { status?: number }).status ?? 0);
}

describe('fault injection API', () => {
  it('needs the token, validates rules, lists and removes them', async () => {
    const s = await setup();
    expect((await api(s, 'GET', '/api/faults', undefined, null)).status).toBe(401);
    expect((await api(s, 'POST', '/api/faults', { match: {}, action: { type: 'delay', ms: 1 } }, 'wrong')).status).toBe(401);
    expect((await api(s, 'DELETE', '/api/faults', undefined, null)).status).toBe(401);
    expect(s.faults.size).toBe(0);

    const bad = await api(s, 'POST', '/api/faults', { match: {}, action: { type: 'status', status: 418 } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/status must be one of/);

    const added = await api(s, 'POST', '/api/faults', {
      id: 'slow',
      match: { method: 'tools/call' },
      action: { type: 'delay', ms: 10 },
      once: true,
    });
    expect(added.status).toBe(201);
    expect(await (await api(s, 'GET', '/api/faults')).json()).toEqual([
      { id: 'slow', match: { method: 'tools/call' }, action: { type: 'delay', ms: 10 }, once: true },
    ]);
    expect((await api(s, 'DELETE', '/api/faults/nope')).status).toBe(404);
    expect((await api(s, 'DELETE', '/api/faults/slow')).status).toBe(200);
    expect(await (await api(s, 'GET', '/api/faults')).json()).toEqual([]);
    expect(s.faults.needsBody).toBe(false);
  });
});

describe('fault injection through the proxy (demo server, SDK client)', () => {
  it('answers 503 on the next tools/call only, without forwarding it, and records it', async () => {
    const s = await setup();
    const { client } = await connect(s);
    // Not a tools/call: unaffected even with the rule in place.
    expect(
      (
        await api(s, 'POST', '/api/faults', {
          id: 'boom',
          match: { method: 'tools/call' },
          action: { type: 'status', status: 503 },
          once: true,
        })
      ).status,
    ).toBe(201);
    await client.listTools();
    await expect(client.callTool({ name: 'echo', arguments: { text: 'hi' } })).rejects.toThrow(/503/);
    // once: the next call goes through.
    const ok = await client.callTool({ name: 'echo', arguments: { text: 'again' } });
    expect((ok.content as { text: string }[])[0].text).toBe('again');
    expect(s.faults.size).toBe(0);

    const faults = await faultEvents(s);
    expect(faults).toHaveLength(1);
    expect(faults[0].after).toMatch(/^HTTP 503/);
    expect(faults[0].text).toMatch(/not forwarded/);
    expect(await statusesOf(s)).toContain(503);
  });

  it('delays the matching tool call by the given time', async () => {
    const s = await setup();
    const { client } = await connect(s);
    await api(s, 'POST', '/api/faults', { match: { tool: 'echo' }, action: { type: 'delay', ms: 600 } });
    const t0 = Date.now();
    await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    const unaffected = Date.now() - t0;
    const t1 = Date.now();
    const r = await client.callTool({ name: 'echo', arguments: { text: 'late' } });
    const delayed = Date.now() - t1;
    expect((r.content as { text: string }[])[0].text).toBe('late');
    expect(unaffected).toBeLessThan(500);
    expect(delayed).toBeGreaterThanOrEqual(590);
    const faults = await faultEvents(s);
    expect(faults).toHaveLength(1);
    expect(faults[0].text).toMatch(/600 ms/);
  });

  it('drops a POST SSE stream after N events: the client sees the stream end early', async () => {
    const s = await setup();
    const { client } = await connect(s);
    await api(s, 'POST', '/api/faults', { match: { tool: 'slow_task' }, action: { type: 'drop-stream', afterEvents: 2 }, once: true });
    const progress: number[] = [];
    const call = client.callTool({ name: 'slow_task', arguments: { steps: 6, delayMs: 100 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
      timeout: 4000,
    });
    const outcome = await call.then(
      (r) => ({ ok: true as const, r }),
      (e: Error) => ({ ok: false as const, e }),
    );
    const faults = await faultEvents(s);
    expect(faults).toHaveLength(1);
    expect(faults[0].after).toBe('stream ended after 2 events');
    // The POST's stream was cut after 2 events (2 progress notifications, no result)…
    const dropped = s.store.exchanges.get(faults[0].exchangeId!) as { method: string; status?: number } | undefined;
    expect(dropped?.method).toBe('POST');
    expect(dropped?.status).toBe(200);
    const onDropped = s.store
      .snapshot()
      .filter((e) => e.type === 'message' && (e as { exchangeId?: string }).exchangeId === faults[0].exchangeId);
    // The request plus at most 2 events (the demo's first event is a data-less priming event with an id).
    expect(onDropped.length).toBeGreaterThanOrEqual(2);
    expect(onDropped.length).toBeLessThanOrEqual(3);
    expect(JSON.stringify(onDropped)).not.toContain('done after');
    // …so the SDK client resumed it with a GET carrying Last-Event-ID (the demo keeps an event
    // store), and got the rest: the stream ending early is what made it reconnect.
    const resumed = [...s.store.exchanges.values()].find((x) => x.method === 'GET' && x.requestHeaders['last-event-id'] !== undefined);
    expect(resumed).toBeDefined();
    expect(outcome.ok).toBe(true);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('expires the session: the client gets 404 and re-initialises', async () => {
    const s = await setup();
    const { client, transport } = await connect(s);
    const oldSession = transport.sessionId;
    expect(oldSession).toBeTruthy();
    await api(s, 'POST', '/api/faults', { match: { method: 'tools/call' }, action: { type: 'expire-session' }, once: true });
    const err = await client.callTool({ name: 'echo', arguments: { text: 'x' } }).then(
      () => undefined,
      (e: Error & { code?: number }) => e,
    );
    expect(err).toBeDefined();
    expect(String(err!.message) + String(err!.code)).toMatch(/404/);

    // A new session, as a client does after a 404 on its session id.
    const again = await connect(s);
    expect(again.transport.sessionId).toBeTruthy();
    expect(again.transport.sessionId).not.toBe(oldSession);
    const r = await again.client.callTool({ name: 'echo', arguments: { text: 'back' } });
    expect((r.content as { text: string }[])[0].text).toBe('back');

    const faults = await faultEvents(s);
    expect(faults).toHaveLength(1);
    expect(faults[0].after).toMatch(/^HTTP 404/);
    expect(faults[0].text).toMatch(/404 for its session id/);
    expect(faults[0].text).not.toContain(oldSession!);
    expect(await statusesOf(s)).toContain(404);
  });

  it('with no rules, nothing is recorded as a fault', async () => {
    const s = await setup();
    const { client } = await connect(s);
    await client.callTool({ name: 'echo', arguments: { text: 'plain' } });
    expect(await faultEvents(s)).toEqual([]);
  });
});

describe('drop-stream on raw SSE (scripted upstream)', () => {
  it('counts events across chunk boundaries and CRLF line endings, and cuts exactly after N', async () => {
    const { startScriptedUpstream } = await import('../support/scripted-upstream.js');
    const up = await startScriptedUpstream({
      'POST /mcp': async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const stream = 'event: message\r\ndata: {"n":1}\r\n\r\ndata: {"n":2}\r\n\r\ndata: {"n":3}\n\ndata: {"n":4}\n\n';
        // Split mid-line and between CR and LF.
        for (const piece of [stream.slice(0, 20), stream.slice(20, 33), stream.slice(33, 50), stream.slice(50)]) {
          res.write(piece);
          await new Promise((r) => setTimeout(r, 20));
        }
        res.end();
      },
    });
    try {
      scope = await startMcpscope({ target: `${up.origin}/mcp`, port: 0, uiPort: 0, token: TOKEN });
      scope.faults.add({ id: 'cut', match: { path: '/mcp' }, action: { type: 'drop-stream', afterEvents: 2 } });
      const res = await fetch(scope.proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: '{}',
      });
      const text = await res.text();
      expect(text).toBe('event: message\r\ndata: {"n":1}\r\n\r\ndata: {"n":2}\r\n\r\n');
      const faults = await faultEvents(scope);
      expect(faults).toHaveLength(1);
      expect(faults[0].after).toBe('stream ended after 2 events');
      // Not once: it applies to the next request too; removing it restores the whole stream.
      scope.faults.remove('cut');
      const whole = await (await fetch(scope.proxy.url, { method: 'POST', body: '{}' })).text();
      expect(whole).toContain('{"n":4}');
    } finally {
      await scope?.close();
      scope = undefined;
      await up.close();
    }
  });
  it('cuts a GET event stream too, after the endpoint stage of the reverse proxy (it was left whole)', async () => {
    const { startScriptedUpstream } = await import('../support/scripted-upstream.js');
    const up = await startScriptedUpstream({
      'GET /mcp': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":3}\n\n');
      },
    });
    try {
      scope = await startMcpscope({ target: `${up.origin}/mcp`, port: 0, uiPort: 0, token: TOKEN });
      scope.faults.add({ id: 'cut', match: { path: '/mcp' }, action: { type: 'drop-stream', afterEvents: 2 } });
      const res = await fetch(scope.proxy.url, { headers: { accept: 'text/event-stream' } });
      expect(await res.text()).toBe('data: {"n":1}\n\ndata: {"n":2}\n\n');
      const faults = await faultEvents(scope);
      expect(faults.map((f) => f.after)).toEqual(['stream ended after 2 events']);
    } finally {
      await scope?.close();
      scope = undefined;
      await up.close();
    }
  });

  it('a stream under a drop-stream rule that the shutdown cuts is recorded as cut by mcpscope, not by the client', async () => {
    const { startScriptedUpstream } = await import('../support/scripted-upstream.js');
    const up = await startScriptedUpstream({
      'POST /mcp': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"n":1}\n\n');
      },
    });
    try {
      scope = await startMcpscope({ target: `${up.origin}/mcp`, port: 0, uiPort: 0, token: TOKEN });
      scope.faults.add({ id: 'cut', match: { path: '/mcp' }, action: { type: 'drop-stream', afterEvents: 5 } });
      const res = await fetch(scope.proxy.url, { method: 'POST', headers: { accept: 'text/event-stream' }, body: '{}' });
      const reader = res.body!.getReader();
      // The first event has come through the rule's relay: the stream is open, 4 events short of its
      // cut, when the shutdown (no grace) cuts it.
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: {"n":1}\n\n');
      await scope.shutdown({ graceMs: 0, reason: 'test' });
      await reader.read().catch(() => undefined);
      const [x] = [...scope.store.exchanges.values()] as { aborted?: string; error?: string }[];
      expect(x!.aborted).toBe('proxy');
      expect(x!.error).toContain('mcpscope shut down (test)');
    } finally {
      await scope?.close();
      scope = undefined;
      await up.close();
    }
  });
});

describe('holding POST bodies while a method/tool rule exists', () => {
  it('forwards small and over-1-MiB bodies byte for byte (the held prefix, then the rest)', async () => {
    const { startScriptedUpstream } = await import('../support/scripted-upstream.js');
    const { createHash, randomBytes } = await import('node:crypto');
    const up = await startScriptedUpstream({
      'POST /mcp': (_req, res, body) => {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ size: body.length, sha: createHash('sha256').update(body).digest('hex') }));
      },
    });
    try {
      scope = await startMcpscope({ target: `${up.origin}/mcp`, port: 0, uiPort: 0, token: TOKEN });
      scope.faults.add({ id: 'never', match: { method: 'no/such/method' }, action: { type: 'status', status: 500 } });
      expect(scope.faults.needsBody).toBe(true);
      const small = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
      const big = Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":2,"method":"x","params":{"blob":"'),
        Buffer.from(randomBytes(1_600_000).toString('base64')),
        Buffer.from('"}}'),
      ]);
      for (const body of [small, big]) {
        const res = await fetch(scope.proxy.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ size: body.length, sha: createHash('sha256').update(body).digest('hex') });
      }
      expect(await faultEvents(scope)).toEqual([]);
    } finally {
      await scope?.close();
      scope = undefined;
      await up.close();
    }
  });
});
