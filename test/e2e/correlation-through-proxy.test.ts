/**
 * Correlation of the harder exchanges, recorded from real SDK peers through the proxy:
 * server→client requests (sampling, elicitation) nested under the tool call whose POST stream
 * carried them, with the client's answers paired in the server's id space; cancellations;
 * tool errors vs JSON-RPC errors; and a resumed stream (Last-Event-ID) linked to the original.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { MessageEvent } from '../../proxy/core/model/events.js';

let demo: DemoServer;
let scope: Mcpscope;
let client: Client;
let transport: StreamableHTTPClientTransport;

beforeAll(async () => {
  demo = await startDemoServer({ port: 0 });
  scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0 });
  client = new Client({ name: 'correlation-test', version: '1' }, { capabilities: { sampling: {}, elicitation: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    model: 'test-model',
    content: { type: 'text', text: 'forty-two' },
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { confirm: true } }));
  transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
});

afterAll(async () => {
  await transport?.terminateSession().catch(() => undefined);
  await client?.close();
  await scope?.close();
  await demo?.close();
});

function sessionMessages(): MessageEvent[] {
  const s = [...scope.store.sessions.values()].find((x) => x.clientInfo?.name === 'correlation-test')!;
  return [...scope.store.messages(s.id)];
}

async function until<T>(pick: (messages: MessageEvent[]) => T | undefined): Promise<T> {
  return scope.waitFor(() => {
    const s = [...scope.store.sessions.values()].find((x) => x.clientInfo?.name === 'correlation-test');
    return s ? pick([...scope.store.messages(s.id)]) : undefined;
  });
}

describe('server→client requests through the proxy', () => {
  it('nests sampling under the tool call that caused it and pairs the answer in the server id space', async () => {
    const result = await client.callTool({ name: 'ask_llm', arguments: { question: 'meaning of life?' } });
    expect(JSON.stringify(result)).toContain('forty-two');
    const call = await until((ms) => {
      const req = ms.find((m) => m.kind === 'request' && m.name === 'ask_llm');
      const res = req && ms.find((m) => m.kind === 'response' && m.pair === req.seq);
      return res ? { req, res } : undefined;
    });
    const ms = sessionMessages();
    const sampling = ms.find((m) => m.method === 'sampling/createMessage' && m.kind === 'request')!;
    expect(sampling.dir).toBe('s2c');
    expect(sampling.carrier).toBe('post-sse');
    expect(sampling.parent).toBe(call.req.seq);
    const answer = ms.find((m) => m.kind === 'response' && m.pair === sampling.seq)!;
    expect(answer.dir).toBe('c2s');
    expect(answer.carrier).toBe('post-body');
    expect(answer.id).toStrictEqual(sampling.id);
    expect(answer.parent).toBe(call.req.seq);
    expect(answer.method).toBe('sampling/createMessage');
    // Wire order: request, sampling request, its answer, then the tool result.
    expect(call.req.seq < sampling.seq && sampling.seq < answer.seq && answer.seq < call.res.seq).toBe(true);
  });

  it('does the same for elicitation', async () => {
    await client.callTool({ name: 'confirm_action', arguments: { action: 'deploy' } });
    const pair = await until((ms) => {
      const req = ms.find((m) => m.kind === 'request' && m.name === 'confirm_action');
      const elicit = ms.find((m) => m.method === 'elicitation/create' && m.kind === 'request');
      const ans = elicit && ms.find((m) => m.kind === 'response' && m.pair === elicit.seq);
      return req && elicit && ans ? { req, elicit, ans } : undefined;
    });
    expect(pair.elicit.parent).toBe(pair.req.seq);
    expect(pair.elicit.hints.map((h) => h.code)).toContain('elicitation-form');
  });
});

describe('errors, cancellation and resumption through the proxy', () => {
  it('tells a tool failure (isError) from a JSON-RPC error, with the code explained', async () => {
    const flaky = await client.callTool({ name: 'flaky', arguments: {} });
    expect(flaky.isError).toBe(true);
    await expect(client.callTool({ name: 'crash', arguments: {} })).rejects.toThrow();
    const got = await until((ms) => {
      const f = ms.find((m) => m.kind === 'response' && m.name === 'flaky');
      const c = ms.find((m) => m.kind === 'error' && m.name === 'crash');
      return f && c ? { f, c } : undefined;
    });
    expect(got.f.isError).toBe(true);
    expect(got.f.hints.map((h) => h.code)).toContain('tool-error');
    expect(got.c.error?.code).toBe(-32603);
    expect(got.c.error?.meaning).toMatch(/internal/i);
    expect(got.c.pair).toBeDefined();
  });

  it('links a cancellation to the request it cancels', async () => {
    const controller = new AbortController();
    const pending = client.callTool({ name: 'slow_task', arguments: { steps: 20, delayMs: 200 } }, undefined, {
      signal: controller.signal,
      onprogress: () => undefined,
    });
    // Cancel once the server has started working (its first progress reached the recorder).
    const call = await until((ms) => {
      const req = ms.filter((m) => m.kind === 'request' && m.name === 'slow_task').at(-1);
      return req && ms.some((m) => m.method === 'notifications/progress' && m.pair === req.seq) ? req : undefined;
    });
    controller.abort('user got bored');
    await expect(pending).rejects.toThrow();
    const cancel = await until((ms) => ms.find((m) => m.method === 'notifications/cancelled'));
    const target = sessionMessages().find((m) => m.seq === cancel.pair)!;
    expect(target.seq).toBe(call.seq);
    expect(target.name).toBe('slow_task');
    expect(target.kind).toBe('request');
    expect(cancel.dir).toBe('c2s');
  });

  it('links a resumed stream (Last-Event-ID) to the stream it resumes', async () => {
    // After an error on a POST stream that had a priming event id, the SDK client reconnects
    // with GET + Last-Event-ID to collect what it thinks it missed.
    const before = scope.store.exchanges.size;
    await expect(client.callTool({ name: 'crash', arguments: {} })).rejects.toThrow();
    const resumed = await scope.waitFor(
      () =>
        [...scope.store.exchanges.values()].find(
          (x) => x.method === 'GET' && x.lastEventId !== undefined && x.resumes !== undefined && x.status !== undefined,
        ),
      15_000,
    );
    expect(scope.store.exchanges.size).toBeGreaterThan(before);
    const original = scope.store.exchanges.get(resumed.resumes!)!;
    expect(original.method).toBe('POST');
    expect(resumed.hints.map((h) => h.code)).toContain('resumed');
  });
});
