/**
 * The OpenAI Chat Completions dialect (proxy/core/model-api/openai-chat.ts): requests of every role
 * with tools (and the legacy functions), and responses in the wire format of the API reference
 * (the chunk object; the function-calling guide's streamed tool call, whose later fragments carry
 * `"id": null, "name": null`), fed event by event and cut at every event; a whole JSON body.
 */
import { describe, expect, it } from 'vitest';
import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import { openaiChat as dialect } from '../../../proxy/core/model-api/openai-chat.js';
import { replay, sseEvents } from '../../support/sse-text.js';

const request = {
  model: 'gpt-4.1',
  stream: true,
  stream_options: { include_usage: true },
  max_completion_tokens: 4096,
  messages: [
    { role: 'developer', content: 'You are terse.' },
    { role: 'system', content: [{ type: 'text', text: 'Use tools.' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather in Paris?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '18C and sunny' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Get the weather',
        parameters: { type: 'object', properties: { location: { type: 'string' } } },
      },
    },
  ],
  tool_choice: { type: 'function', function: { name: 'get_weather' } },
} satisfies ChatCompletionCreateParams;

const chunk = (delta: string, finish = 'null') =>
  `data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]}\n\n`;
const toolDelta = (fragment: string) =>
  `{"tool_calls":[{"index":0,"id":null,"function":{"arguments":${JSON.stringify(fragment)},"name":null},"type":null}]}`;

const toolStream =
  chunk(
    '{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_DdmO9pD3xa9XTPNJ32zg2hcA","function":{"arguments":"","name":"get_weather"},"type":"function"}]}',
  ) +
  ['{"', 'location', '":"', 'Paris', ',', ' France', '"}'].map((f) => chunk(toolDelta(f))).join('') +
  chunk('{}', '"tool_calls"') +
  'data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini-2024-07-18","choices":[],"usage":{"prompt_tokens":1117,"completion_tokens":46,"total_tokens":1163,"prompt_tokens_details":{"cached_tokens":1024},"completion_tokens_details":{"reasoning_tokens":0}}}\n\n' +
  'data: [DONE]\n\n';

const textStream =
  chunk('{"role":"assistant","content":""}') +
  chunk('{"content":"Hello"}') +
  chunk('{"content":"!"}') +
  chunk('{}', '"stop"') +
  'data: [DONE]\n\n';

const parsed = () => dialect.parseRequest(request, '/v1/chat/completions');

describe('openai-chat: matching', () => {
  it('matches …/chat/completions under any prefix (Ollama, LiteLLM, gateways) and a chat body only', () => {
    expect(dialect.matchesPath('/v1/chat/completions')).toBe(true);
    expect(dialect.matchesPath('/openai/deployments/gpt/chat/completions')).toBe(true);
    expect(dialect.matchesPath('/v1/completions')).toBe(false);
    expect(dialect.matchesBody(request)).toBe(true);
    expect(dialect.matchesBody({ model: 'llama3', messages: [{ role: 'user', content: 'hi' }] })).toBe(true);
    expect(dialect.matchesBody({ model: 'x', prompt: 'hi' })).toBe(false);
    expect(dialect.matchesBody({ model: 'x', messages: [{ role: 'narrator', content: 'hi' }] })).toBe(false);
    expect(dialect.matchesBody({ messages: [{ role: 'user', content: 'hi' }] })).toBe(false);
  });
});

describe('openai-chat: request', () => {
  it('reads system/developer messages (kept in order and as the system prompt), parts, tool calls and results, tools, choice, limit', () => {
    const r = parsed();
    expect(r.model).toBe('gpt-4.1');
    expect(r.stream).toBe(true);
    expect(r.maxTokens).toBe(4096);
    expect(r.toolChoice).toBe('tool:get_weather');
    expect(r.system).toBe('You are terse.\n\nUse tools.');
    expect(r.messageCount).toBe(5);
    expect(r.messageStarts).toEqual([0, 1, 2, 4, 5]);
    expect(r.messages.map((m) => `${m.role}/${m.kind}`)).toEqual([
      'developer/text',
      'system/text',
      'user/text',
      'user/image',
      'assistant/tool-use',
      'tool/tool-result',
    ]);
    expect(r.messages[3].text).toBe('[image image/png;base64, 34 characters]');
    expect(r.toolResults).toEqual([{ callId: 'call_1', name: 'get_weather', text: '18C and sunny' }]);
    expect(r.tools).toEqual([
      { name: 'get_weather', description: 'Get the weather', schemaText: '{"type":"object","properties":{"location":{"type":"string"}}}' },
    ]);
    expect(r.notes).toEqual([]);
  });

  it('reads the legacy functions and function_call, max_tokens, and a string tool choice', () => {
    const r = dialect.parseRequest(
      {
        model: 'gpt-3.5-turbo',
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } },
          { role: 'function', name: 'f', content: 'done' },
        ],
        functions: [{ name: 'f', description: 'F', parameters: { type: 'object' } }],
        tool_choice: 'required',
      },
      '/v1/chat/completions',
    );
    expect(r.maxTokens).toBe(100);
    expect(r.toolChoice).toBe('required');
    expect(r.tools).toEqual([{ name: 'f', description: 'F', schemaText: '{"type":"object"}' }]);
    expect(r.messages[1]).toEqual({ role: 'assistant', kind: 'tool-use', text: '{}', name: 'f' });
    expect(r.messages[2]).toEqual({ role: 'tool', kind: 'tool-result', text: 'done', name: 'f' });
  });
});

describe('openai-chat: response', () => {
  it('reassembles a streamed tool call from fragments (ids and names null after the first), with usage less cached tokens', () => {
    const events = sseEvents(toolStream);
    const { parser, firsts } = replay(dialect, parsed(), events);
    expect(firsts).toEqual([0]);
    const s = parser.end(false);
    expect(s.complete).toBe(true);
    expect(s.model).toBe('gpt-4o-mini-2024-07-18');
    expect(s.stopReason).toBe('tool_calls');
    expect(s.toolCalls).toEqual([
      {
        id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
        name: 'get_weather',
        argumentsText: '{"location":"Paris, France"}',
        arguments: { location: 'Paris, France' },
      },
    ]);
    expect(s.usage).toEqual({ inputTokens: 93, outputTokens: 46, cacheReadTokens: 1024, reasoningTokens: 0, totalInputTokens: 1117 });
    expect(s.notes).toEqual([]);
  });

  it('text: the first non-empty content is the first token', () => {
    const { parser, firsts } = replay(dialect, parsed(), sseEvents(textStream));
    expect(firsts).toEqual([1]);
    const s = parser.end(false);
    expect(s.output).toEqual([{ role: 'assistant', kind: 'text', text: 'Hello!' }]);
    expect(s.stopReason).toBe('stop');
  });

  it('cut at every event boundary: never throws; a tool call only once a finish reason closed it; the usage chunk awaited when asked for', () => {
    const events = sseEvents(toolStream);
    const finish = events.findIndex((e) => e.data.includes('"finish_reason":"tool_calls"'));
    for (let k = 0; k <= events.length; k++) {
      const { parser } = replay(dialect, parsed(), events, k);
      expect(parser.state().toolCalls.length).toBe(k > finish ? 1 : 0);
      const s = parser.end(true);
      expect(s.complete).toBe(k > finish + 1); // the usage chunk follows the finish reason
      if (k >= 1 && k <= finish) {
        expect(s.notes.join(' ')).toMatch(/call_DdmO9pD3xa9XTPNJ32zg2hcA \(get_weather\) had not finished/);
        expect(s.toolCalls[0].argumentsError).toMatch(/broke off/);
      }
    }
  });

  it('broken argument JSON is kept with the reason; a call without an id gets call-<n>', () => {
    const p = dialect.newResponse(dialect.parseRequest({ model: 'm', messages: [] }, '/v1/chat/completions'));
    p.event(undefined, '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{\\"a\\":"}}]}}]}');
    p.event(undefined, '{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}');
    const s = p.end(false);
    expect(s.complete).toBe(true);
    expect(s.toolCalls[0]).toMatchObject({ id: 'call-0', name: 'f', argumentsText: '{"a":' });
    expect(s.toolCalls[0].argumentsError).toMatch(/not valid JSON/);
  });

  it('an error chunk and an error body', () => {
    const p = dialect.newResponse(parsed());
    p.event(undefined, '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}');
    expect(p.end(true).error).toBe('requests: Rate limit reached');
    const j = dialect.newResponse(parsed());
    j.json({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
    expect(j.end(false).error).toBe('invalid_request_error: Incorrect API key provided');
  });

  it('a whole chat.completion body', () => {
    const p = dialect.newResponse(parsed());
    p.json({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'gpt-4.1',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Oslo"}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 82, completion_tokens: 17, total_tokens: 99 },
    });
    const s = p.end(false);
    expect(s.complete).toBe(true);
    expect(s.toolCalls).toEqual([
      { id: 'call_9', name: 'get_weather', argumentsText: '{"location":"Oslo"}', arguments: { location: 'Oslo' } },
    ]);
    expect(s.usage).toEqual({ inputTokens: 82, outputTokens: 17, totalInputTokens: 82 });
    const other = dialect.newResponse(parsed());
    other.json({ data: [] });
    expect(other.end(false).notes[0]).toMatch(/neither a chat completion nor an error/);
  });

  it('reasoning_content / reasoning deltas are thinking', () => {
    const p = dialect.newResponse(parsed());
    expect(p.event(undefined, '{"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}')).toBe(true);
    p.event(undefined, '{"choices":[{"index":0,"delta":{"reasoning":" more"}}]}');
    p.event(undefined, '{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}');
    const s = p.end(false);
    expect(s.output).toEqual([
      { role: 'assistant', kind: 'thinking', text: 'think more' },
      { role: 'assistant', kind: 'text', text: 'ok' },
    ]);
  });
});
