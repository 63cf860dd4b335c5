/**
 * The embedded demo server and the scripted demo client, end to end over real loopback sockets.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type CreateMessageRequest,
  type ElicitRequest,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startDemoClient, type DemoRound } from '../../proxy/app/demo/demo-client.js';
import { firstText } from '../support/mcp-results.js';

/** A promise with its resolver, for waiting on events. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

interface ConnectedClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  sampling: CreateMessageRequest['params'][];
  elicitations: ElicitRequest['params'][];
  logs: LoggingMessageNotification['params'][];
  elicitAnswer: { action: 'accept' | 'decline' | 'cancel'; content?: { confirm: boolean } };
  close(): Promise<void>;
}

async function connect(url: string): Promise<ConnectedClient> {
  const client = new Client(
    { name: 'mcpscope-demo-test', version: '0.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  const state: ConnectedClient = {
    client,
    transport: new StreamableHTTPClientTransport(new URL(url)),
    sampling: [],
    elicitations: [],
    logs: [],
    elicitAnswer: { action: 'accept', content: { confirm: true } },
    async close() {
      await state.transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    state.sampling.push(request.params);
    return { role: 'assistant', model: 'test-llm', content: { type: 'text', text: 'forty-two' } };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    state.elicitations.push(request.params);
    return state.elicitAnswer;
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    state.logs.push(notification.params);
  });
  await client.connect(state.transport);
  return state;
}

// --- a minimal SSE reader for the raw-HTTP resumption test ---------------------------------------

interface SseEvent {
  id?: string;
  data: string;
}

class SseReader {
  private buffer = '';
  private readonly reader: ReadableStreamDefaultReader<string>;
  constructor(body: NonNullable<Response['body']>) {
    this.reader = body.pipeThrough(new TextDecoderStream()).getReader();
  }
  /** Drops the connection. */
  async cancel(): Promise<void> {
    await this.reader.cancel();
  }
  /** Next dispatched event with data (comments and keep-alives skipped); undefined at end of stream. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const boundary = this.buffer.indexOf('\n\n');
      if (boundary >= 0) {
        const block = this.buffer.slice(0, boundary);
        this.buffer = this.buffer.slice(boundary + 2);
        const event: SseEvent = { data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('id:')) event.id = line.slice(3).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        event.data = data.join('\n');
        if (event.data !== '') return event;
        continue;
      }
      const { value, done } = await this.reader.read();
      if (done) return undefined;
      this.buffer += value;
    }
  }
}

describe('demo server', () => {
  let server: DemoServer;
  let peer: ConnectedClient;

  beforeAll(async () => {
    server = await startDemoServer();
    peer = await connect(server.url);
  });
  afterAll(async () => {
    await peer?.close();
    await server?.close();
  });

  it('listens on an OS-chosen loopback port at /mcp and names itself', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(peer.client.getServerVersion()?.name).toBe('mcpscope-demo');
    expect(peer.client.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {}, resources: {}, logging: {} });
    expect(peer.transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lists its tools with descriptions and input schemas, its prompt and its resources', async () => {
    const { tools } = await peer.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['echo', 'add', 'slow_task', 'flaky', 'crash', 'ask_llm', 'confirm_action', 'random_delay']),
    );
    for (const tool of tools) expect(tool.description, tool.name).toBeTruthy();
    expect(tools.find((t) => t.name === 'add')?.inputSchema.properties).toHaveProperty('a');
    expect(tools.find((t) => t.name === 'add')?.outputSchema?.properties).toHaveProperty('sum');

    const { prompts } = await peer.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['summarize']);
    expect(prompts[0]?.arguments?.map((a) => a.name)).toContain('text');

    const { resources } = await peer.client.listResources();
    expect(resources.map((r) => r.uri)).toContain('demo://readme');
    const { resourceTemplates } = await peer.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['demo://notes/{id}']);
  });

  it('echo and add', async () => {
    expect(firstText(await peer.client.callTool({ name: 'echo', arguments: { text: 'hi there' } }))).toBe('hi there');
    const sum = await peer.client.callTool({ name: 'add', arguments: { a: 40, b: 2 } });
    expect(sum.structuredContent).toEqual({ sum: 42 });
    expect(firstText(sum)).toBe('40 + 2 = 42');
  });

  it('slow_task sends one progress notification and one log line per step', async () => {
    const progress: Progress[] = [];
    const logsBefore = peer.logs.length;
    const result = await peer.client.callTool({ name: 'slow_task', arguments: { steps: 3, delayMs: 10 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(firstText(result)).toBe('done after 3 steps');
    expect(progress.map((p) => [p.progress, p.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    const logs = peer.logs.slice(logsBefore).filter((l) => l.logger === 'slow_task');
    expect(logs.map((l) => l.data)).toEqual(['finished step 1/3', 'finished step 2/3', 'finished step 3/3']);
  });

  it('flaky returns a tool error (isError), not a JSON-RPC error', async () => {
    const result = await peer.client.callTool({ name: 'flaky', arguments: {} });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/quota exceeded/);
  });

  it('crash answers with a JSON-RPC error', async () => {
    const error = await peer.client.callTool({ name: 'crash', arguments: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32603);
    expect((error as McpError).message).toMatch(/demo crash/);
    // The session survives.
    await expect(peer.client.ping()).resolves.toEqual({});
  });

  it('ask_llm sends sampling/createMessage to the client and returns its answer', async () => {
    const before = peer.sampling.length;
    const result = await peer.client.callTool({ name: 'ask_llm', arguments: { question: 'What is six times seven?' } });
    expect(peer.sampling.slice(before)).toHaveLength(1);
    expect(peer.sampling.at(-1)?.messages[0]?.content).toEqual({ type: 'text', text: 'What is six times seven?' });
    expect(firstText(result)).toBe('test-llm says: forty-two');
  });

  it('confirm_action sends a form elicitation with a boolean confirm field', async () => {
    const before = peer.elicitations.length;
    peer.elicitAnswer = { action: 'accept', content: { confirm: true } };
    const accepted = await peer.client.callTool({ name: 'confirm_action', arguments: { action: 'drop the table' } });
    expect(firstText(accepted)).toBe('confirmed: drop the table');
    const params = peer.elicitations[before] as Extract<ElicitRequest['params'], { requestedSchema: unknown }>;
    expect(params.message).toMatch(/drop the table/);
    expect(params.requestedSchema.properties.confirm).toMatchObject({ type: 'boolean' });

    peer.elicitAnswer = { action: 'decline' };
    const declined = await peer.client.callTool({ name: 'confirm_action', arguments: { action: 'reboot' } });
    expect(firstText(declined)).toBe('user chose to decline: nothing done');
    peer.elicitAnswer = { action: 'accept', content: { confirm: true } };
  });

  it('concurrent calls complete out of order (fast calls overtake a slow one)', async () => {
    const order: string[] = [];
    const track = (label: string, p: Promise<unknown>) => p.then(() => order.push(label));
    await Promise.all([
      track('slow_task', peer.client.callTool({ name: 'slow_task', arguments: { steps: 2, delayMs: 150 } })),
      track('random_delay', peer.client.callTool({ name: 'random_delay', arguments: { maxMs: 0 } })),
      track('add', peer.client.callTool({ name: 'add', arguments: { a: 1, b: 1 } })),
    ]);
    expect(order.at(-1)).toBe('slow_task');
    const waited = firstText(await peer.client.callTool({ name: 'random_delay', arguments: { maxMs: 20 } }));
    expect(waited).toMatch(/^waited \d+ ms$/);
  });

  it('a cancelled slow_task rejects on the client and the session keeps working', async () => {
    const controller = new AbortController();
    const progress: Progress[] = [];
    const outcome = await peer.client
      .callTool({ name: 'slow_task', arguments: { steps: 5, delayMs: 30 } }, undefined, {
        signal: controller.signal,
        onprogress: (p) => {
          progress.push(p);
          controller.abort(new Error('cancelled by test'));
        },
      })
      .then(
        () => 'resolved',
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      );
    expect(outcome).toMatch(/cancelled by test/);
    expect(progress).toHaveLength(1);
    await expect(peer.client.callTool({ name: 'echo', arguments: { text: 'still here' } })).resolves.toBeTruthy();
  });

  it('prompts/get and resources/read (static and templated)', async () => {
    const prompt = await peer.client.getPrompt({ name: 'summarize', arguments: { text: 'Long text.', style: 'haiku' } });
    expect(prompt.messages[0]?.content).toMatchObject({ type: 'text' });
    expect((prompt.messages[0]?.content as { text: string }).text).toMatch(/as haiku:\n\nLong text\./);

    const readme = await peer.client.readResource({ uri: 'demo://readme' });
    expect(readme.contents[0]).toMatchObject({ uri: 'demo://readme', mimeType: 'text/markdown' });
    const note = await peer.client.readResource({ uri: 'demo://notes/7' });
    expect((note.contents[0] as { text: string }).text).toMatch(/^Note 7:/);
  });

  it('toggle_bonus_tool makes the server send notifications/tools/list_changed', async () => {
    const changed = deferred();
    peer.client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.resolve());
    const result = await peer.client.callTool({ name: 'toggle_bonus_tool', arguments: {} });
    expect(firstText(result)).toBe('lucky_number is now enabled');
    await changed.promise;
    expect((await peer.client.listTools()).tools.map((t) => t.name)).toContain('lucky_number');
    expect(firstText(await peer.client.callTool({ name: 'lucky_number', arguments: {} }))).toMatch(/^\d+$/);
  });

  it('honours logging/setLevel', async () => {
    const before = peer.logs.length;
    await peer.client.setLoggingLevel('error');
    await peer.client.callTool({ name: 'slow_task', arguments: { steps: 2, delayMs: 0 } });
    expect(peer.logs.slice(before)).toEqual([]);
    await peer.client.setLoggingLevel('debug');
  });

  it('ends a session on DELETE; the old session id then gets 404', async () => {
    const other = await connect(server.url);
    const sessionId = other.transport.sessionId!;
    await other.close();
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: -32001 } });
  });

  it('rejects requests without a session that are not initialize, and unknown paths', async () => {
    const noSession = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(noSession.status).toBe(400);
    await noSession.body?.cancel();
    const elsewhere = await fetch(new URL('/other', server.url));
    expect(elsewhere.status).toBe(404);
    await elsewhere.body?.cancel();
  });

  it('rejects a non-loopback Host header (DNS-rebinding guard)', async () => {
    const url = new URL(server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers: { host: 'attacker.example' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('resumes a broken POST stream from Last-Event-ID (event store)', async () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    const init = await fetch(server.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      }),
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    expect(sessionId).toBeTruthy();
    await init.text();
    const session = { ...headers, 'mcp-session-id': sessionId };
    const initialized = await fetch(server.url, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(initialized.status).toBe(202);
    await initialized.body?.cancel();

    // Start a slow call, read up to its first progress notification, then drop the connection.
    const abort = new AbortController();
    const call = await fetch(server.url, {
      method: 'POST',
      headers: session,
      signal: abort.signal,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'slow_task', arguments: { steps: 3, delayMs: 40 }, _meta: { progressToken: 'p-1' } },
      }),
    });
    expect(call.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = new SseReader(call.body!);
    let firstProgress: SseEvent | undefined;
    while (!firstProgress) {
      const event = await first.next();
      if (!event) throw new Error('stream ended before the first progress notification');
      if (JSON.parse(event.data).method === 'notifications/progress') firstProgress = event;
    }
    expect(firstProgress.id).toBeTruthy();
    expect(JSON.parse(firstProgress.data).params).toMatchObject({ progressToken: 'p-1', progress: 1 });
    abort.abort();

    // Resume with GET + Last-Event-ID: the rest of the stream, the response included, is replayed.
    const resumed = await fetch(server.url, {
      headers: { ...session, accept: 'text/event-stream', 'last-event-id': firstProgress.id! },
    });
    expect(resumed.status).toBe(200);
    const rest = new SseReader(resumed.body!);
    const messages: { method?: string; id?: number; params?: { progress?: number }; result?: unknown }[] = [];
    for (;;) {
      const event = await rest.next();
      if (!event) throw new Error('resumed stream ended without the response');
      const message = JSON.parse(event.data);
      messages.push(message);
      if (message.id === 2) break;
    }
    await rest.cancel();
    const progress = messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params?.progress);
    expect(progress).toEqual([2, 3]);
    expect(messages.at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'done after 3 steps' }] } });

    const deleted = await fetch(server.url, { method: 'DELETE', headers: session });
    expect(deleted.status).toBe(200);
    await deleted.body?.cancel();
  });
});

describe('demo client', () => {
  let server: DemoServer;
  beforeAll(async () => {
    server = await startDemoServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('runs full rounds across a session switch against the demo server, then stops', async () => {
    const lines: string[] = [];
    const rounds: DemoRound[] = [];
    const thirdRound = deferred();
    const client = startDemoClient(server.url, {
      intervalMs: 10,
      roundsPerSession: 2,
      slowStepMs: 10,
      randomDelayMaxMs: 20,
      log: (line) => lines.push(line),
      onRound: (round) => {
        rounds.push(round);
        if (round.round === 3) thirdRound.resolve();
      },
    });
    await thirdRound.promise;
    await client.stop();

    expect(rounds.slice(0, 3).map((r) => [r.round, r.session, r.sessionRound])).toEqual([
      [1, 1, 1],
      [2, 1, 2],
      [3, 2, 1],
    ]);
    expect(rounds[0]?.sessionId).toBeTruthy();
    expect(rounds[2]?.sessionId).not.toBe(rounds[0]?.sessionId);
    const log = lines.join('\n');
    expect(log).toMatch(/tools\/list → echo, add, slow_task/);
    expect(log).toMatch(/echo → hello from round 1/);
    expect(log).toMatch(/completion order: .*slow_task \(4 progress notifications\)/);
    expect(log).toMatch(/flaky → isError=true/);
    expect(log).toMatch(/crash → JSON-RPC error: .*-32603/);
    expect(log).toMatch(/sampling\/createMessage/);
    expect(log).toMatch(/confirm_action → confirmed/);
    expect(log).toMatch(/ping → pong/);
    expect(log).toMatch(/slow_task cancelled by the client/);
    expect(log).toMatch(/toggle_bonus_tool → lucky_number is now enabled/);
    expect(log).toMatch(/session 1: terminated \(HTTP DELETE\)/);
    expect(log).not.toMatch(/^error:/m);
    expect(lines.at(-1)).toBe('demo client stopped');
  });

  it('stop() aborts the step in flight and resolves', async () => {
    const lines: string[] = [];
    const inSlowTask = deferred();
    const client = startDemoClient(server.url, {
      slowStepMs: 5_000, // the first progress notification would take 5 s: stop must not wait for it
      log: (line) => {
        lines.push(line);
        if (line.includes('calling slow_task')) inSlowTask.resolve();
      },
    });
    await inSlowTask.promise;
    const started = Date.now();
    await client.stop();
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(lines.at(-1)).toBe('demo client stopped');
    expect(lines.join('\n')).not.toMatch(/completion order/);
  });

  it('logs errors and retries with backoff while the server is unreachable, and stops cleanly', async () => {
    const dead = await startDemoServer();
    const url = dead.url;
    await dead.close();
    const errors: string[] = [];
    const secondError = deferred();
    const client = startDemoClient(url, {
      log: (line) => {
        if (!line.startsWith('error:')) return;
        errors.push(line);
        if (errors.length === 2) secondError.resolve();
      },
    });
    await secondError.promise;
    await client.stop();
    expect(errors[0]).toMatch(/retrying in 500 ms/);
    expect(errors[1]).toMatch(/retrying in 1000 ms/);
  });
});
