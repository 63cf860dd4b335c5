/**
 * The model-API stand-ins (test/support/model-apis/) are valid: each is driven by its provider's
 * official SDK (@anthropic-ai/sdk, openai, @google/genai), streaming and not, over real sockets.
 * What an SDK rejects is the stand-in's bug. Also: the exact token figures of the script come out
 * of the SDKs' own accumulators, requests are recorded as sent, HTTPS works with a throwaway CA,
 * and the faults (cut, error event, broken JSON, HTTP error) reach the SDK as failures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { startAnthropicStandin } from '../support/model-apis/anthropic-standin.js';
import { startOpenAiStandin } from '../support/model-apis/openai-standin.js';
import { startGeminiStandin } from '../support/model-apis/gemini-standin.js';
import { callToolThenAnswer, type Script, type ScriptReply, type ScriptUsage } from '../support/model-apis/script.js';
import { direct, makeTestCa, type TestCa } from '../support/tls-peers.js';

const KEY = 'sk-standin-secret-0123456789';
const USAGE: ScriptUsage = { inputTokens: 1234, outputTokens: 42, cacheReadTokens: 789, cacheWriteTokens: 56, reasoningTokens: 7 };
const ARGS = { message: 'hello from the stand-in, über JSON', n: 3, nested: { list: [1, 2, 3] } };

/** One reply for every call, changed per test through `current`. */
let current: ScriptReply = {};
const script: Script = (ctx) =>
  ctx.toolResults.length > 0 ? { text: `got ${ctx.toolResults.map((r) => r.text).join('|')}`, usage: USAGE } : current;
const toolReply = (name: string, extra: Partial<ScriptReply> = {}): ScriptReply => ({
  text: 'Let me call it.',
  toolCalls: [{ name, arguments: ARGS }],
  usage: USAGE,
  ...extra,
});

describe('Anthropic Messages stand-in, through @anthropic-ai/sdk', () => {
  let standin: Awaited<ReturnType<typeof startAnthropicStandin>>;
  let client: Anthropic;
  beforeAll(async () => {
    standin = await startAnthropicStandin({ script });
    client = new Anthropic({ baseURL: standin.baseURL, apiKey: KEY, maxRetries: 0 });
  });
  afterAll(() => standin?.close());
  const tools = [
    { name: 'mcp__se__echo', description: 'Echo', input_schema: { type: 'object' as const, properties: { message: { type: 'string' } } } },
  ];

  it('messages.stream: finalMessage has the tool_use with parsed input, the text, and the exact usage', async () => {
    current = toolReply('mcp__se__echo', { thinking: 'I should echo.' });
    const stream = client.messages.stream({
      model: 'claude-standin-1',
      max_tokens: 256,
      tools,
      messages: [{ role: 'user', content: 'echo it' }],
    });
    const deltas: string[] = [];
    stream.on('inputJson', (partial) => deltas.push(partial));
    const message = await stream.finalMessage();
    expect(message.model).toBe('claude-standin-1');
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    const [thinking, text, use] = message.content;
    expect(thinking.type === 'thinking' && thinking.thinking).toBe('I should echo.');
    expect(thinking.type === 'thinking' && thinking.signature.length).toBeGreaterThan(0);
    expect(text.type === 'text' && text.text).toBe('Let me call it.');
    expect(use).toMatchObject({ type: 'tool_use', id: 'toolu_standin_0_0', name: 'mcp__se__echo', input: ARGS });
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(JSON.stringify(ARGS));
    expect(message.usage).toMatchObject({
      input_tokens: 1234,
      output_tokens: 42,
      cache_read_input_tokens: 789,
      cache_creation_input_tokens: 56,
    });
    const sent = standin.modelCalls().at(-1)!;
    // This SDK sends the key as a bearer token (Claude Code sends x-api-key).
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(sent.body).toMatchObject({ model: 'claude-standin-1', stream: true, tools: [{ name: 'mcp__se__echo' }] });
  });

  it('create({stream:true}): the raw events in the documented order (the SDK hides ping), partial_json in several fragments', async () => {
    current = toolReply('mcp__se__echo');
    const stream = await client.messages.create({
      model: 'm',
      max_tokens: 64,
      tools,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    const types: string[] = [];
    let partials = 0;
    for await (const e of stream) {
      types.push(e.type === 'content_block_delta' ? `delta:${e.delta.type}` : e.type);
      if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') partials += 1;
      if (e.type === 'message_start') expect(e.message.usage.input_tokens).toBe(1234);
      if (e.type === 'message_delta') expect(e.usage.output_tokens).toBe(42);
    }
    const squeezed = types.filter((t, i) => t !== types[i - 1]);
    expect(squeezed).toEqual([
      'message_start',
      'content_block_start',
      'delta:text_delta',
      'content_block_stop',
      'content_block_start',
      'delta:input_json_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(partials).toBeGreaterThan(3);
  });

  it('non-streaming create, with the tool_result of the previous turn; ?beta=true; count_tokens; HEAD /', async () => {
    const message = await client.messages.create({
      model: 'm',
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'mcp__se__echo', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'echo: hi' }] }] },
      ],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'got echo: hi' }]);
    expect(message.stop_reason).toBe('end_turn');
    current = { text: 'beta ok' };
    const beta = await client.beta.messages.create(
      { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] },
      { query: { beta: 'true' } },
    );
    expect(beta.content).toEqual([{ type: 'text', text: 'beta ok' }]);
    expect(standin.modelCalls().at(-1)!.url).toBe('/v1/messages?beta=true');
    const counted = await client.messages.countTokens({ model: 'm', messages: [{ role: 'user', content: 'count me' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect((await fetch(`${standin.origin}/`, { method: 'HEAD' })).status).toBe(200);
  });

  it('faults reach the SDK: an error event, a cut stream, broken argument JSON, an HTTP error', async () => {
    const run = (reply: ScriptReply) => {
      current = reply;
      return client.messages.stream({ model: 'm', max_tokens: 8, tools, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
    };
    await expect(run(toolReply('mcp__se__echo', { fault: { kind: 'error-event', afterEvents: 3 } }))).rejects.toMatchObject({
      error: { error: { type: 'overloaded_error' } },
    });
    await expect(run(toolReply('mcp__se__echo', { fault: { kind: 'cut', afterEvents: 5 } }))).rejects.toThrow();
    await expect(run({ fault: { kind: 'http-error', status: 429, errorType: 'rate_limit_error' } })).rejects.toMatchObject({ status: 429 });
  });

  it('on the wire: a ping after message_start; broken-json fragments that do not concatenate to JSON (the SDK reads them leniently)', async () => {
    current = toolReply('mcp__se__echo', { fault: { kind: 'broken-json' } });
    const res = await fetch(`${standin.origin}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({ model: 'm', max_tokens: 8, stream: true, tools, messages: [{ role: 'user', content: 'x' }] }),
    });
    const text = await res.text();
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(text).toMatch(/^event: message_start\ndata: .*\n\nevent: ping\ndata: \{"type":"ping"\}\n\n/);
    const events = text
      .split('\n\n')
      .filter((b) => b.includes('data: '))
      .map((b) => JSON.parse(b.slice(b.indexOf('data: ') + 6)) as { delta?: { type: string; partial_json?: string } });
    const partial = events.filter((e) => e.delta?.type === 'input_json_delta').map((e) => e.delta!.partial_json);
    expect(partial.length).toBeGreaterThan(3);
    expect(() => JSON.parse(partial.join(''))).toThrow();
    expect(standin.modelCalls().at(-1)).toMatchObject({
      url: '/v1/messages?beta=true',
      query: { beta: 'true' },
      headers: { 'x-api-key': KEY },
    });
  });

  it('an unknown event type in between is skipped by the SDK', async () => {
    current = { text: 'fine', extraEvents: [{ at: 2, event: 'standin_unknown', data: { type: 'standin_unknown', x: 1 } }] };
    const message = await client.messages.stream({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'fine' }]);
  });
});

describe('HTTPS with a throwaway CA', () => {
  let ca: TestCa;
  beforeAll(async () => void (ca = await makeTestCa()));
  afterAll(() => ca?.remove());

  it('the Anthropic stand-in over TLS, the SDK trusting only the test CA', async () => {
    const standin = await startAnthropicStandin({ script: { text: 'over TLS' }, tls: ca.leaf });
    const via = direct(ca.ca.certPem);
    try {
      expect(standin.baseURL).toMatch(/^https:\/\/localhost:\d+$/);
      const client = new Anthropic({ baseURL: standin.baseURL, apiKey: KEY, maxRetries: 0, fetch: via.fetch as never });
      const message = await client.messages
        .stream({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })
        .finalMessage();
      expect(message.content).toEqual([{ type: 'text', text: 'over TLS' }]);
      // Node's own roots do not know the CA.
      const untrusting = new Anthropic({ baseURL: standin.baseURL, apiKey: KEY, maxRetries: 0 });
      await expect(untrusting.messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow();
    } finally {
      await via.close();
      await standin.close();
    }
  });
});

describe('OpenAI stand-in, through openai', () => {
  let standin: Awaited<ReturnType<typeof startOpenAiStandin>>;
  let client: OpenAI;
  beforeAll(async () => {
    standin = await startOpenAiStandin({ script });
    client = new OpenAI({ baseURL: standin.baseURL, apiKey: KEY, maxRetries: 0 });
  });
  afterAll(() => standin?.close());
  const chatTools = [{ type: 'function' as const, function: { name: 'echo', parameters: { type: 'object' } } }];
  const two = (): ScriptReply => ({
    toolCalls: [
      { name: 'echo', arguments: ARGS },
      { name: 'add', arguments: { a: 2, b: 3 } },
    ],
    usage: USAGE,
  });

  it('chat.completions.create({stream:true, include_usage}): tool call arguments per index, finish_reason, the usage chunk', async () => {
    current = two();
    const stream = await client.chat.completions.create({
      model: 'gpt-standin',
      stream: true,
      stream_options: { include_usage: true },
      tools: chatTools,
      messages: [{ role: 'user', content: 'call them' }],
    });
    const calls: { id?: string; name?: string; args: string; fragments: number }[] = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices) {
        finish = choice.finish_reason ?? finish;
        for (const t of choice.delta.tool_calls ?? []) {
          const c = (calls[t.index] ??= { args: '', fragments: 0 });
          if (t.id) c.id = t.id;
          if (t.function?.name) c.name = t.function.name;
          if (t.function?.arguments) {
            c.args += t.function.arguments;
            c.fragments += 1;
          }
        }
      }
    }
    expect(finish).toBe('tool_calls');
    expect(calls.map((c) => [c.id, c.name, JSON.parse(c.args)])).toEqual([
      ['call_standin_0_0', 'echo', ARGS],
      ['call_standin_0_1', 'add', { a: 2, b: 3 }],
    ]);
    expect(calls[0].fragments).toBeGreaterThan(3);
    expect(usage).toMatchObject({
      prompt_tokens: 1234,
      completion_tokens: 42,
      total_tokens: 1276,
      prompt_tokens_details: { cached_tokens: 789 },
    });
    expect(standin.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("chat.completions.stream(): the SDK's accumulator gives the final completion", async () => {
    current = { text: 'a streamed answer in pieces', usage: USAGE };
    const final = await client.chat.completions
      .stream({ model: 'gpt-standin', stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'x' }] })
      .finalChatCompletion();
    expect(final.choices[0].message.content).toBe('a streamed answer in pieces');
    expect(final.choices[0].finish_reason).toBe('stop');
    expect(final.usage?.completion_tokens).toBe(42);
  });

  it('chat, non-streaming, with the role:tool result of the previous turn', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-standin',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'echo: hi' },
      ],
    });
    expect(completion.choices[0].message.content).toBe('got echo: hi');
    expect(completion.usage?.prompt_tokens).toBe(1234);
  });

  it('responses.stream(): function_call items with their arguments, text, reasoning, usage', async () => {
    current = toolReply('echo', { thinking: 'thinking it over' });
    const stream = client.responses.stream({
      model: 'gpt-standin',
      input: 'call echo',
      tools: [{ type: 'function', name: 'echo', parameters: { type: 'object' }, strict: false }],
    });
    const types = new Set<string>();
    let argDeltas = 0;
    for await (const e of stream) {
      types.add(e.type);
      if (e.type === 'response.function_call_arguments.delta') argDeltas += 1;
    }
    const response = await stream.finalResponse();
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Let me call it.');
    const call = response.output.find((o) => o.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', call_id: expect.stringMatching(/^call_standin_\d+_0$/), name: 'echo' });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual(ARGS);
    expect(argDeltas).toBeGreaterThan(3);
    expect(response.usage).toMatchObject({ input_tokens: 1234, output_tokens: 42, input_tokens_details: { cached_tokens: 789 } });
    for (const t of [
      'response.created',
      'response.output_item.added',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_text.delta',
      'response.completed',
    ])
      expect(types, t).toContain(t);
  });

  it('responses.create({stream:true}) and non-streaming, with function_call_output', async () => {
    current = toolReply('echo');
    const stream = await client.responses.create({ model: 'gpt-standin', input: 'x', stream: true });
    const seqs: number[] = [];
    for await (const e of stream) seqs.push(e.sequence_number);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    const answer = await client.responses.create({
      model: 'gpt-standin',
      input: [
        { role: 'user', content: 'x' },
        { type: 'function_call', call_id: 'call_1', name: 'echo', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'echo: hi' },
      ],
    });
    expect(answer.output_text).toBe('got echo: hi');
  });

  it('faults reach the SDK: an error in a chat stream, an error event in a Responses stream, an HTTP error', async () => {
    current = { ...two(), fault: { kind: 'error-event', afterEvents: 2 } };
    const chat = async () => {
      for await (const chunk of await client.chat.completions.create({
        model: 'm',
        stream: true,
        messages: [{ role: 'user', content: 'x' }],
      }))
        void chunk;
    };
    await expect(chat()).rejects.toMatchObject({ error: { type: 'server_error' } });
    const events: string[] = [];
    for await (const e of await client.responses.create({ model: 'm', input: 'x', stream: true })) events.push(e.type);
    expect(events).toEqual(['response.created', 'response.in_progress', 'error']);
    current = { fault: { kind: 'http-error', status: 500 } };
    await expect(client.responses.create({ model: 'm', input: 'x' })).rejects.toMatchObject({ status: 500 });
  });
});

describe('Gemini stand-in, through @google/genai', () => {
  let standin: Awaited<ReturnType<typeof startGeminiStandin>>;
  let ai: GoogleGenAI;
  beforeAll(async () => {
    standin = await startGeminiStandin({ script });
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: standin.baseURL } });
  });
  afterAll(() => standin?.close());
  const config = { tools: [{ functionDeclarations: [{ name: 'echo', parametersJsonSchema: { type: 'object' } }] }] };

  it('models.generateContentStream: text in pieces, the functionCall, the usage', async () => {
    current = toolReply('echo', { usage: { ...USAGE, reasoningTokens: 0 } });
    const chunks: GenerateContentResponse[] = [];
    for await (const c of await ai.models.generateContentStream({ model: 'gemini-standin', contents: 'call echo', config })) chunks.push(c);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.text ?? '').join('')).toBe('Let me call it.');
    const last = chunks.at(-1)!;
    expect(last.functionCalls).toEqual([{ name: 'echo', args: ARGS }]);
    expect(last.candidates?.[0].finishReason).toBe('STOP');
    expect(last.usageMetadata).toMatchObject({ promptTokenCount: 1234, candidatesTokenCount: 42, cachedContentTokenCount: 789 });
    const sent = standin.modelCalls().at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-standin:streamGenerateContent');
    expect(sent.query.alt).toBe('sse');
    expect(sent.headers['x-goog-api-key']).toBe(KEY);
  });

  it('models.generateContent with the functionResponse of the previous turn', async () => {
    const response = await ai.models.generateContent({
      model: 'gemini-standin',
      config,
      contents: [
        { role: 'user', parts: [{ text: 'x' }] },
        { role: 'model', parts: [{ functionCall: { name: 'echo', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'echo', response: { output: 'echo: hi' } } }] },
      ],
    });
    expect(response.text).toBe('got echo: hi');
    expect(response.usageMetadata?.promptTokenCount).toBe(1234);
  });

  it('faults reach the SDK: an error chunk, broken JSON, an HTTP error', async () => {
    const run = async (reply: ScriptReply) => {
      current = reply;
      for await (const c of await ai.models.generateContentStream({ model: 'g', contents: 'x', config })) void c;
    };
    await expect(run(toolReply('echo', { fault: { kind: 'error-event', afterEvents: 1 } }))).rejects.toThrow(/Internal error/);
    await expect(run(toolReply('echo', { fault: { kind: 'broken-json' } }))).rejects.toThrow();
    await expect(run({ fault: { kind: 'http-error', status: 400, errorType: 'INVALID_ARGUMENT' } })).rejects.toThrow(/INVALID_ARGUMENT/);
  });
});

describe('callToolThenAnswer', () => {
  it('picks the offered tool by bare name or by its mcp__<server>__ prefix; a request without it gets text', async () => {
    const standin = await startAnthropicStandin({ script: callToolThenAnswer({ tool: 'echo', arguments: { message: 'm' } }) });
    try {
      const client = new Anthropic({ baseURL: standin.baseURL, apiKey: KEY, maxRetries: 0 });
      const first = await client.messages.create({
        model: 'm',
        max_tokens: 8,
        tools: [
          { name: 'mcp__other__add', input_schema: { type: 'object' } },
          { name: 'mcp__se__echo', input_schema: { type: 'object' } },
        ],
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(first.content).toMatchObject([{ type: 'tool_use', name: 'mcp__se__echo', input: { message: 'm' } }]);
      // A side request that offers no such tool (Claude Code's title request) gets plain text.
      const side = await client.messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'a title please' }] });
      expect(side.content).toEqual([{ type: 'text', text: 'OK.' }]);
    } finally {
      await standin.close();
    }
  });
});
