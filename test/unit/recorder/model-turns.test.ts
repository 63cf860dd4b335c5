/**
 * The recorder's model turns (proxy/recorder/model-turns.ts): scripted wire records of an agent loop
 * (test/support/scripted-agent.ts) through the real Recorder, and the bad-input cases of issue 27.
 * A fake token counter (4 characters a token, answering at once) keeps it deterministic.
 */
import { describe, expect, it } from 'vitest';
import { Recorder } from '../../../proxy/recorder/recorder.js';
import { createRedactor } from '../../../proxy/recorder/redact/redact.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';
import type { MessageEvent, ModelTurnInfo } from '../../../proxy/core/model/events.js';
import type { TokenCounter } from '../../../proxy/recorder/token-counter.js';
import {
  AgentWire,
  API_KEY,
  claudeTools,
  ECHO_TOOLS,
  scriptedAgentLoop,
  SYSTEM_PROMPT,
  textStream,
  toolUseStream,
} from '../../support/scripted-agent.js';

function fakeCounter(): TokenCounter {
  return {
    encoding: 'test (4 characters a token)',
    count: (t) => Math.ceil(t.length / 4),
    want: () => undefined,
    onCounted: undefined,
    failed: undefined,
    settled: () => Promise.resolve(),
    close: () => undefined,
  };
}

function record(w: AgentWire, options: { modelTraffic?: 'parse' | 'plain'; counter?: TokenCounter } = {}) {
  const store = new EventStore();
  const recorder = new Recorder({
    store,
    redactor: createRedactor({}),
    tokenCounter: options.counter ?? fakeCounter(),
    modelTraffic: options.modelTraffic,
  });
  recorder.handle(w.records);
  const turns = [...store.turns.values()];
  const messages = store.snapshot().filter((e): e is MessageEvent => e.type === 'message');
  return { store, turns, messages, turn: (id: string) => store.turns.get(id) as ModelTurnInfo };
}

describe('model turns from a Claude Code loop', () => {
  it('reads both turns: model, usage, time to first token, output, the tool chosen', () => {
    const { turns, turn } = record(scriptedAgentLoop());
    expect(turns.map((t) => t.id)).toEqual(['m1', 'm2']);
    const m1 = turn('m1');
    expect(m1).toMatchObject({
      api: 'anthropic-messages',
      client: 'claude-code',
      agent: 'claude-code:7f1c2d9e-0000-4000-8000-000000000001',
      endpoint: 'POST /v1/messages',
      model: 'claude-sonnet-4-5-20250929',
      stream: true,
      status: 'done',
      stopReason: 'tool_use',
      maxTokens: 32000,
      messageCount: 1,
      messagesFrom: 0,
      usage: { inputTokens: 4, cacheWriteTokens: 31_334, cacheReadTokens: 0, outputTokens: 61, totalInputTokens: 31_338 },
    });
    expect(m1.firstTokenAt).toBeGreaterThan(m1.respondedAt!);
    expect(m1.endedAt).toBeGreaterThan(m1.firstTokenAt!);
    expect(m1.output.map((o) => o.kind)).toEqual(['text', 'tool-use']);
    expect(m1.toolCalls).toHaveLength(1);
    expect(m1.toolCalls[0]).toMatchObject({
      id: 'toolu_01',
      name: 'mcp__se__echo',
      server: 'se',
      tool: 'echo',
      arguments: { message: 'hello' },
    });
    expect(m1.system?.text).toContain('You are Claude Code');
  });

  it('joins the tool use to the tools/call that carried it out, and its result to the next request, both ways', () => {
    const { turn, messages } = record(scriptedAgentLoop());
    const call = messages.find((m) => m.method === 'tools/call' && m.kind === 'request')!;
    const result = messages.find((m) => m.method === 'tools/call' && m.kind === 'response')!;
    expect(call.modelCall).toEqual({ turn: 'm1', callId: 'toolu_01', name: 'mcp__se__echo' });
    expect(result.modelCall).toEqual(call.modelCall);
    const m1 = turn('m1');
    expect(m1.toolCalls[0].mcpCall).toEqual({ sessionId: call.sessionId, seq: call.seq });
    expect(m1.toolCalls[0].mcpResult).toEqual({ sessionId: result.sessionId, seq: result.seq });
    expect(m1.toolCalls[0].resultTurn).toBe('m2');
    const m2 = turn('m2');
    expect(m2.toolResults).toEqual([
      { callId: 'toolu_01', fromTurn: 'm1', mcpResult: { sessionId: result.sessionId, seq: result.seq }, bytes: 11, compared: 'same' },
    ]);
    // m2 keeps only what m1 had not sent: the assistant's turn and the tool result.
    expect(m2.messagesFrom).toBe(1);
    expect(m2.messages.map((e) => e.kind)).toEqual(['text', 'tool-use', 'tool-result']);
  });

  it('costs the tools per MCP server, with the instructions, against the real input tokens', () => {
    const { turn, messages } = record(scriptedAgentLoop());
    const ctx = turn('m1').context!;
    expect(ctx.encoding).toBe('test (4 characters a token)');
    const se = ctx.servers.find((s) => s.server === 'se')!;
    const builtIn = ctx.servers.find((s) => s.server === '(built-in)')!;
    expect(se.tools).toBe(2);
    expect(builtIn.tools).toBe(1);
    const tools = claudeTools();
    const expected = tools
      .slice(1)
      .reduce((n, t) => n + Math.ceil(t.description.length / 4) + Math.ceil(JSON.stringify(t.input_schema).length / 4), 0);
    expect(se.tokens).toBe(expected);
    expect(se.instructionsTokens).toBe(Math.ceil('Use echo to test.'.length / 4));
    expect(se.share).toBeCloseTo((se.tokens + se.instructionsTokens!) / 31_338, 6);
    // Largest first; the server's MCP session named once a call joined it.
    expect(ctx.servers[0].server).toBe('(built-in)');
    expect(se.sessionId).toBe(messages.find((m) => m.method === 'tools/call')!.sessionId);
  });

  it('keeps the API key out of every turn', () => {
    const { store } = record(scriptedAgentLoop());
    expect(JSON.stringify(store.snapshot())).not.toContain(API_KEY);
    expect(JSON.stringify(store.history())).not.toContain(API_KEY);
  });

  it('--model-traffic plain records the calls as plain HTTP, no turns, no links', () => {
    const { turns, messages } = record(scriptedAgentLoop(), { modelTraffic: 'plain' });
    expect(turns).toEqual([]);
    expect(messages.some((m) => m.modelCall)).toBe(false);
  });

  it('waits for the tokenizer: the cost comes in a later upsert, once counted', async () => {
    const counts = new Map<string, number>();
    let wanted: string[] = [];
    const counter: TokenCounter = {
      ...fakeCounter(),
      count: (t) => counts.get(t),
      want: (texts) => void (wanted = texts),
    };
    const { store, turn } = record(scriptedAgentLoop(), { counter });
    expect(turn('m1').context).toBeUndefined();
    for (const t of wanted) counts.set(t, 1);
    counter.onCounted?.();
    expect(turn('m1').context?.toolsTokens).toBe(6);
    expect(store.snapshot().filter((e) => e.type === 'model-turn')).toHaveLength(2);
  });
});

describe('model turns: bad input gets a clear record, never a crash or a false link', () => {
  const base = { model: 'claude-sonnet-4-5', max_tokens: 1024, stream: true, system: SYSTEM_PROMPT, tools: claudeTools() };
  const user = { role: 'user', content: 'go' };

  it('a stream cut after the tool use began: the turn is cut, and says so', () => {
    const w = new AgentWire();
    const events = toolUseStream({ id: 'toolu_09', name: 'mcp__se__echo', fragments: ['{"message":'] });
    w.messages('a1', { ...base, messages: [user] }, events.slice(0, 5).concat(events[5]), { end: 'abort' });
    const { turn } = record(w);
    const m1 = turn('m1');
    expect(m1.status).toBe('cut');
    expect(m1.error).toBeTruthy();
    expect(m1.hints.map((h) => h.code)).toContain('model-stream-cut');
  });

  it('broken JSON in the argument deltas: kept as text, and joined to nothing', () => {
    const w = new AgentWire();
    w.mcpStart('sess-9');
    w.messages(
      'a1',
      { ...base, messages: [user] },
      toolUseStream({ id: 'toolu_02', name: 'mcp__se__echo', fragments: ['{"message": "hi', '"oops'] }),
    );
    w.mcp(
      'sess-9',
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '3' }] } },
    );
    const { turn, messages } = record(w);
    const call = turn('m1').toolCalls[0];
    expect(call.arguments).toBeUndefined();
    expect(call.argumentsText).toContain('oops');
    expect(call.argumentsError).toBeTruthy();
    expect(messages.find((m) => m.method === 'tools/call' && m.kind === 'request')!.modelCall).toBeUndefined();
  });

  it('different arguments are no join (a call of the same tool the model did not ask for)', () => {
    const w = new AgentWire();
    w.mcpStart('sess-1');
    w.messages(
      'a1',
      { ...base, messages: [user] },
      toolUseStream({ id: 'toolu_03', name: 'mcp__se__echo', fragments: ['{"message":"one"}'] }),
    );
    w.mcp(
      'sess-1',
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'two' } } },
      { jsonrpc: '2.0', id: 2, result: { content: [] } },
    );
    const { messages, turn } = record(w);
    expect(messages.find((m) => m.method === 'tools/call' && m.kind === 'request')!.modelCall).toBeUndefined();
    expect(turn('m1').toolCalls[0].mcpCall).toBeUndefined();
  });

  it('unknown event types are skipped, the rest read', () => {
    const w = new AgentWire();
    const events = textStream('fine');
    w.messages('a1', { ...base, messages: [user] }, [
      events[0],
      'event: brand_new\ndata: {"type":"brand_new","x":1}\n\n',
      ...events.slice(1),
    ]);
    const { turn } = record(w);
    expect(turn('m1')).toMatchObject({ status: 'done', stopReason: 'end_turn' });
    expect(turn('m1').output[0].text).toBe('fine');
  });

  it('a JSON API of another shape at /v1/messages is plain HTTP, not a turn', () => {
    const w = new AgentWire();
    w.exchange({
      origin: 'https://chat.example',
      url: '/v1/messages',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'bob', text: 'hi' }),
      chunks: ['{"ok":true}'],
    });
    const { turns, store } = record(w);
    expect(turns).toEqual([]);
    expect([...store.exchanges.values()][0].plain).toBe(true);
  });

  it('a 5 MiB request: one turn, its texts bounded', () => {
    const w = new AgentWire();
    const big = 'x'.repeat(5 * 1024 * 1024);
    w.messages('a1', { ...base, messages: [{ role: 'user', content: big }] }, textStream('ok'));
    const { turn, store } = record(w);
    const m1 = turn('m1');
    expect(m1.status).toBe('done');
    expect(m1.messages[0].truncated).toBe(true);
    expect(m1.messages[0].bytes).toBe(big.length);
    expect(m1.messages[0].text.length).toBeLessThan(9 * 1024);
    expect(JSON.stringify(store.snapshot()).length).toBeLessThan(200_000);
  });

  it('an API error answer is an error turn with the API’s message', () => {
    const w = new AgentWire();
    w.messages(
      'a1',
      { ...base, messages: [user] },
      [JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })],
      { status: 529, type: 'application/json' },
    );
    const { turn } = record(w);
    expect(turn('m1').status).toBe('error');
    expect(turn('m1').error).toContain('Overloaded');
  });

  it('two agents through one proxy at once: each call joins its own agent’s turn', () => {
    const w = new AgentWire();
    w.mcpStart('sess-A');
    w.mcpStart('sess-B');
    const call = (sid: string, id: number, name: string, args: unknown) =>
      w.mcp(
        sid,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
        { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `${sid}:${id}` }] } },
      );
    const next = (agent: string, id: string, input: unknown, result: string, nextId: string) =>
      w.messages(
        agent,
        {
          ...base,
          messages: [
            user,
            { role: 'assistant', content: [{ type: 'tool_use', id, name: 'mcp__se__echo', input }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] },
          ],
        },
        toolUseStream({ id: nextId, name: 'mcp__se__add', fragments: ['{"a":1,', '"b":2}'] }),
      );
    w.messages(
      'agent-A',
      { ...base, messages: [user] },
      toolUseStream({ id: 'toolu_A', name: 'mcp__se__echo', fragments: ['{"message":"a"}'] }),
    );
    w.messages(
      'agent-B',
      { ...base, messages: [user] },
      toolUseStream({ id: 'toolu_B', name: 'mcp__se__echo', fragments: ['{"message":"b"}'] }),
    );
    // B calls first, on its own session; then A on its own.
    call('sess-B', 2, 'echo', { message: 'b' });
    call('sess-A', 2, 'echo', { message: 'a' });
    // Round two: both models ask for the very same call; each session now belongs to its agent.
    next('agent-A', 'toolu_A', { message: 'a' }, 'sess-A:2', 'toolu_A2');
    next('agent-B', 'toolu_B', { message: 'b' }, 'sess-B:2', 'toolu_B2');
    call('sess-B', 3, 'add', { b: 2, a: 1 });
    call('sess-A', 3, 'add', { a: 1, b: 2 });
    const { messages, store } = record(w);
    const calls = messages.filter((m) => m.method === 'tools/call' && m.kind === 'request');
    const sessionOf = (mcpId: string) => [...store.sessions.values()].find((s) => s.mcpSessionId === mcpId)!.id;
    const linkOn = (mcpId: string, id: number) => calls.find((c) => c.sessionId === sessionOf(mcpId) && c.id === id)!.modelCall?.callId;
    expect([linkOn('sess-A', 2), linkOn('sess-B', 2), linkOn('sess-A', 3), linkOn('sess-B', 3)]).toEqual([
      'toolu_A',
      'toolu_B',
      'toolu_A2',
      'toolu_B2',
    ]);
    const byId = (id: string) => [...store.turns.values()].find((t) => t.toolCalls.some((c) => c.id === id))!;
    expect(byId('toolu_A2').agent).toBe('claude-code:agent-A');
    expect(byId('toolu_A2').toolResults[0]).toMatchObject({ callId: 'toolu_A', compared: 'same' });
    expect(byId('toolu_B2').toolResults[0]).toMatchObject({ callId: 'toolu_B', compared: 'same' });
  });

  it('two agents waiting for the very same call, on sessions nothing binds yet: no link, said why', () => {
    const w = new AgentWire();
    w.mcpStart('sess-A');
    w.mcpStart('sess-B');
    w.messages(
      'agent-A',
      { ...base, messages: [user] },
      toolUseStream({ id: 'toolu_A', name: 'mcp__se__echo', fragments: ['{"message":"same"}'] }),
    );
    w.messages(
      'agent-B',
      { ...base, messages: [user] },
      toolUseStream({ id: 'toolu_B', name: 'mcp__se__echo', fragments: ['{"message":"same"}'] }),
    );
    w.mcp(
      'sess-B',
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'same' } } },
      { jsonrpc: '2.0', id: 2, result: { content: [] } },
    );
    const { messages } = record(w);
    const m = messages.find((x) => x.method === 'tools/call' && x.kind === 'request')!;
    expect(m.modelCall).toBeUndefined();
    expect(m.hints.map((h) => h.code)).toContain('model-call-ambiguous');
  });

  it('a tool the model asked for that the client never called is said in words on the next turn', () => {
    const w = new AgentWire();
    w.mcpStart('sess-1');
    w.messages(
      'a1',
      { ...base, messages: [user] },
      toolUseStream({ id: 'toolu_05', name: 'mcp__se__echo', fragments: ['{"message":"x"}'] }),
    );
    w.messages(
      'a1',
      {
        ...base,
        messages: [
          user,
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_05', name: 'mcp__se__echo', input: { message: 'x' } }] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_05', is_error: true, content: 'Permission to use mcp__se__echo has been denied.' },
            ],
          },
        ],
      },
      textStream('ok'),
    );
    const { turn } = record(w);
    const hint = turn('m2').hints.find((h) => h.code === 'tool-not-called')!;
    expect(hint.text).toContain('mcp__se__echo');
    expect(hint.text).toContain('denied');
    expect(turn('m2').toolResults[0]).toMatchObject({ callId: 'toolu_05', fromTurn: 'm1', isError: true });
  });

  it('a result the client changed on its way to the model is compared and said', () => {
    const w = scriptedAgentLoop({ message: 'long' });
    // Replace the second request's tool result with a cut one.
    const req = w.records.findLast((r) => r.t === 'request-chunk')!;
    const body = JSON.parse(new TextDecoder().decode((req as { chunk: Uint8Array }).chunk));
    body.messages[2].content[0].content = [{ type: 'text', text: 'Echo: lo' }];
    (req as { chunk: Uint8Array }).chunk = new TextEncoder().encode(JSON.stringify(body));
    const { turn } = record(w);
    expect(turn('m2').toolResults[0]).toMatchObject({ compared: 'changed' });
    expect(turn('m2').toolResults[0].note).toBeTruthy();
  });

  it('bare tool names (SDK agents) are the tools an MCP session lists, named by its server, and joined', () => {
    const w = new AgentWire();
    w.mcpStart('sess-1');
    const tools = ECHO_TOOLS.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.inputSchema },
    }));
    const answer = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'gpt-x',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{"message":"hi"}' } }],
          },
        },
      ],
      usage: { prompt_tokens: 100, completion_tokens: 5 },
    };
    w.exchange({
      origin: 'https://api.openai.com',
      url: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x', 'user-agent': 'OpenAI/JS 6.49.0' },
      body: JSON.stringify({ model: 'gpt-x', messages: [{ role: 'user', content: 'go' }], tools }),
      chunks: [JSON.stringify(answer)],
    });
    w.mcp(
      'sess-1',
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Echo: hi' }] } },
    );
    const { turn, messages } = record(w);
    const m1 = turn('m1');
    expect(m1.tools.map((t) => [t.name, t.server, t.tool])).toEqual([
      ['echo', 'everything', 'echo'],
      ['add', 'everything', 'add'],
    ]);
    expect(m1.context!.servers.map((x) => [x.server, x.tools])).toEqual([['everything', 2]]);
    expect(m1.toolCalls[0]).toMatchObject({ name: 'echo', server: 'everything', tool: 'echo' });
    expect(messages.find((m) => m.method === 'tools/call' && m.kind === 'request')!.modelCall).toEqual({
      turn: 'm1',
      callId: 'call_1',
      name: 'echo',
    });
  });
});
