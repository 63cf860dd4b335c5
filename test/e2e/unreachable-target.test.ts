/**
 * A target that is down (nothing listens on its port), as a new user meets it: the official SDK
 * client connects through `startMcpscope({ target })` and gets mcpscope's 502 with a JSON-RPC
 * error naming its request's id. The recording must show that answer as the response to the
 * request (paired, with its latency, marked as mcpscope's own), leave nothing pending, link the
 * upstream-unreachable problem to the same exchange, and tell the terminal once — not once per
 * call — that the server cannot be reached; then, once it runs, that it answers again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoServer } from '../../proxy/app/demo/demo-server.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { MessageEvent, ProblemEvent } from '../../proxy/core/model/events.js';
import { freePort } from '../support/free-port.js';

let port: number;
let scope: Mcpscope;
const notices: string[] = [];

beforeAll(async () => {
  port = await freePort();
  scope = await startMcpscope({ target: `http://127.0.0.1:${port}/mcp`, port: 0, uiPort: 0, onNotice: (line) => notices.push(line) });
});

afterAll(async () => {
  await scope?.close();
});

async function connect(name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(scope.proxy.url)));
  return client;
}

describe('a target with nothing listening', () => {
  it("records mcpscope's 502 as the JSON-RPC error answering initialize: paired, marked, nothing pending, the problem on the same exchange", async () => {
    await expect(connect('down-1')).rejects.toThrow(/502|could not get a response/);
    await scope.settle();
    const session = [...scope.store.sessions.values()].find((s) => s.clientInfo?.name === 'down-1')!;
    expect(session).toBeDefined();
    const ms: MessageEvent[] = [...scope.store.messages(session.id)];
    expect(ms.map((m) => [m.dir, m.kind, m.method])).toEqual([
      ['c2s', 'request', 'initialize'],
      ['s2c', 'error', 'initialize'],
    ]);
    const [request, answer] = ms;
    expect(answer.pair).toBe(request.seq);
    expect(answer.latencyMs).toEqual(expect.any(Number));
    expect(answer.id).toBe(request.id);
    expect(answer.exchangeId).toBe(request.exchangeId);
    expect(answer.error).toMatchObject({ code: -32000 });
    expect(answer.error?.message).toContain(`http://127.0.0.1:${port}/mcp`);
    const own = answer.hints.find((h) => h.code === 'answered-by-mcpscope');
    expect(own?.text).toMatch(/Answered by mcpscope.*not reachable \(connection refused/);
    expect(session.counts).toMatchObject({ messages: 2, requests: 1, pending: 0 });
    const exchange = scope.store.exchanges.get(request.exchangeId!)!;
    expect(exchange).toMatchObject({ status: 502, endedAt: expect.any(Number) });
    expect(exchange.hints.map((h) => h.code)).toContain('answered-by-mcpscope');
    const problems = scope.store.snapshot().filter((e): e is ProblemEvent => e.type === 'problem' && e.code === 'upstream-unreachable');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ sessionId: session.id, exchangeId: request.exchangeId });
  });

  it('tells the terminal once for two failing calls, in plain words', async () => {
    await expect(connect('down-2')).rejects.toThrow();
    await scope.settle();
    expect(scope.store.snapshot().filter((e) => e.type === 'problem' && e.code === 'upstream-unreachable')).toHaveLength(2);
    expect(notices).toEqual([
      `mcpscope: http://127.0.0.1:${port}/mcp is not reachable (connection refused — is the server running on that port?); clients get 502 until it is.`,
    ]);
  });

  it('says when the server answers again, and records its traffic as usual', async () => {
    const demo = await startDemoServer({ port });
    try {
      const client = await connect('up-again');
      await client.listTools();
      await client.close();
      await scope.waitFor(() => notices.length === 2);
      expect(notices[1]).toBe(`mcpscope: http://127.0.0.1:${port}/mcp answers again.`);
    } finally {
      await demo.close();
    }
  });
});

describe("the 502's text", () => {
  it('names the URL the request was sent to, with the path the client asked for (a target given as an origin)', async () => {
    const closed = await freePort();
    const origin = await startMcpscope({ target: `http://127.0.0.1:${closed}`, port: 0, uiPort: false });
    try {
      const res = await fetch(`${origin.proxy.origin}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }),
      });
      expect(res.status).toBe(502);
      const body = (await res.json()) as { id: unknown; error: { message: string; data: { url: string } } };
      expect(body.id).toBe(7);
      expect(body.error.message).toContain(`could not get a response from http://127.0.0.1:${closed}/mcp:`);
      expect(body.error.data.url).toBe(`http://127.0.0.1:${closed}/mcp`);
      await origin.settle();
      const answer = [...origin.store.snapshot()].find((e): e is MessageEvent => e.type === 'message' && e.kind === 'error')!;
      expect(answer.error?.message).toContain(`http://127.0.0.1:${closed}/mcp`);
    } finally {
      await origin.close();
    }
  });
});
