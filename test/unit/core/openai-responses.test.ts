/**
 * The OpenAI Responses dialect (proxy/core/model-api/openai-responses.ts): a request as Codex sends it
 * (instructions, input items with a function call and its output, a reasoning item, tools grouped
 * in a namespace), and typed SSE events in the wire format of the API reference's streaming
 * events (reasoning summary, message text, a function call's argument deltas), fed event by event
 * and cut at every event; a whole JSON response.
 */
import { describe, expect, it } from 'vitest';
import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import { openaiResponses as dialect } from '../../../proxy/core/model-api/openai-responses.js';
import { replay, sseEvents } from '../../support/sse-text.js';

const request = {
  model: 'gpt-5-codex',
  instructions: 'You are Codex.',
  stream: true,
  max_output_tokens: 8000,
  input: [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions>…</permissions>' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'echo hi' }] },
    { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Use the echo tool.' }], encrypted_content: 'gAAA' },
    { type: 'function_call', call_id: 'call_a', name: 'echo', namespace: 'mcp__se', arguments: '{"message":"hi"}' },
    { type: 'function_call_output', call_id: 'call_a', output: 'Echo: hi' },
  ],
  tools: [
    { type: 'function', name: 'shell', description: 'Runs a command', parameters: { type: 'object' }, strict: false },
    {
      type: 'namespace',
      name: 'mcp__se',
      description: 'Tools of se',
      tools: [
        {
          type: 'function',
          name: 'echo',
          description: 'Echoes',
          parameters: { type: 'object', properties: { message: { type: 'string' } } },
        },
      ],
    },
    { type: 'web_search' },
  ],
  tool_choice: 'auto',
} satisfies ResponseCreateParams;

const e = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const response = (status: string, extra: object = {}) => ({
  id: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
  object: 'response',
  created_at: 1741290958,
  status,
  model: 'gpt-5-codex',
  output: [],
  usage: null,
  ...extra,
});
const usage = {
  input_tokens: 2900,
  input_tokens_details: { cached_tokens: 2048 },
  output_tokens: 120,
  output_tokens_details: { reasoning_tokens: 64 },
  total_tokens: 3020,
};

const stream = [
  e('response.created', { sequence_number: 0, response: response('in_progress') }),
  e('response.in_progress', { sequence_number: 1, response: response('in_progress') }),
  e('response.output_item.added', { sequence_number: 2, output_index: 0, item: { id: 'rs_2', type: 'reasoning', summary: [] } }),
  e('response.reasoning_summary_part.added', {
    sequence_number: 3,
    item_id: 'rs_2',
    output_index: 0,
    summary_index: 0,
    part: { type: 'summary_text', text: '' },
  }),
  e('response.reasoning_summary_text.delta', {
    sequence_number: 4,
    item_id: 'rs_2',
    output_index: 0,
    summary_index: 0,
    delta: '**Calling echo**',
  }),
  e('response.output_item.done', {
    sequence_number: 5,
    output_index: 0,
    item: { id: 'rs_2', type: 'reasoning', summary: [{ type: 'summary_text', text: '**Calling echo**' }] },
  }),
  e('response.output_item.added', {
    sequence_number: 6,
    output_index: 1,
    item: { id: 'msg_1', type: 'message', status: 'in_progress', role: 'assistant', content: [] },
  }),
  e('response.content_part.added', {
    sequence_number: 7,
    item_id: 'msg_1',
    output_index: 1,
    content_index: 0,
    part: { type: 'output_text', text: '', annotations: [] },
  }),
  e('response.output_text.delta', { sequence_number: 8, item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'Calling' }),
  e('response.output_text.delta', { sequence_number: 9, item_id: 'msg_1', output_index: 1, content_index: 0, delta: ' echo.' }),
  e('response.output_text.done', { sequence_number: 10, item_id: 'msg_1', output_index: 1, content_index: 0, text: 'Calling echo.' }),
  e('response.output_item.done', {
    sequence_number: 11,
    output_index: 1,
    item: { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Calling echo.' }] },
  }),
  e('response.output_item.added', {
    sequence_number: 12,
    output_index: 2,
    item: {
      id: 'fc_1',
      type: 'function_call',
      status: 'in_progress',
      arguments: '',
      call_id: 'call_b',
      name: 'echo',
      namespace: 'mcp__se',
    },
  }),
  e('response.function_call_arguments.delta', { sequence_number: 13, item_id: 'fc_1', output_index: 2, delta: '{"mess' }),
  e('response.function_call_arguments.delta', { sequence_number: 14, item_id: 'fc_1', output_index: 2, delta: 'age":"hi"}' }),
  e('response.function_call_arguments.done', { sequence_number: 15, item_id: 'fc_1', output_index: 2, arguments: '{"message":"hi"}' }),
  e('response.output_item.done', {
    sequence_number: 16,
    output_index: 2,
    item: {
      id: 'fc_1',
      type: 'function_call',
      status: 'completed',
      arguments: '{"message":"hi"}',
      call_id: 'call_b',
      name: 'echo',
      namespace: 'mcp__se',
    },
  }),
  e('response.completed', { sequence_number: 17, response: response('completed', { usage }) }),
].join('');

const parsed = () => dialect.parseRequest(request, '/v1/responses');

describe('openai-responses: matching', () => {
  it('matches POST …/responses, not /responses/{id}; a Responses body only', () => {
    expect(dialect.matchesPath('/v1/responses')).toBe(true);
    expect(dialect.matchesPath('/backend-api/codex/responses')).toBe(true);
    expect(dialect.matchesPath('/v1/responses/resp_123')).toBe(false);
    expect(dialect.matchesPath('/v1/responses/resp_123/cancel')).toBe(false);
    expect(dialect.matchesBody(request)).toBe(true);
    expect(dialect.matchesBody({ model: 'gpt-4.1', input: 'hi' })).toBe(true);
    expect(dialect.matchesBody({ model: 'gpt-4.1', messages: [], input: 'hi' })).toBe(false);
    expect(dialect.matchesBody({ model: 'gpt-4.1', input: [1, 2] })).toBe(false);
    expect(dialect.matchesBody({ responses: [] })).toBe(false);
  });
});

describe('openai-responses: request', () => {
  it('reads instructions, items (one message each), the namespace flattened to mcp__se__echo, and limits', () => {
    const r = parsed();
    expect(r.model).toBe('gpt-5-codex');
    expect(r.maxTokens).toBe(8000);
    expect(r.toolChoice).toBe('auto');
    expect(r.system).toBe('You are Codex.\n\n<permissions>…</permissions>');
    expect(r.messageCount).toBe(5);
    expect(r.messageStarts).toEqual([0, 1, 2, 3, 4]);
    expect(r.messages.map((m) => `${m.role}/${m.kind}`)).toEqual([
      'developer/text',
      'user/text',
      'assistant/thinking',
      'assistant/tool-use',
      'tool/tool-result',
    ]);
    expect(r.messages[2].text).toBe('Use the echo tool.');
    expect(r.messages[3]).toEqual({
      role: 'assistant',
      kind: 'tool-use',
      text: '{"message":"hi"}',
      name: 'mcp__se__echo',
      callId: 'call_a',
    });
    expect(r.toolResults).toEqual([{ callId: 'call_a', name: 'mcp__se__echo', text: 'Echo: hi' }]);
    expect(r.tools.map((t) => t.name)).toEqual(['shell', 'mcp__se__echo', 'web_search']);
    expect(r.tools[2].schemaText).toBe('{"type":"web_search"}');
    expect(r.notes).toEqual([]);
  });

  it('a string input is one user message; a stored conversation is said', () => {
    const r = dialect.parseRequest(
      { model: 'm', input: 'hello', previous_response_id: 'resp_1', tool_choice: { type: 'function', name: 'f' } },
      '/v1/responses',
    );
    expect(r.messages).toEqual([{ role: 'user', kind: 'text', text: 'hello' }]);
    expect(r.toolChoice).toBe('tool:f');
    expect(r.notes[0]).toMatch(/previous_response_id/);
  });
});

describe('openai-responses: response', () => {
  const events = sseEvents(stream);

  it('reassembles reasoning, text and the namespaced function call; usage less cached tokens', () => {
    const { parser, firsts } = replay(dialect, parsed(), events);
    expect(firsts).toEqual([4]); // the reasoning summary's first delta
    const s = parser.end(false);
    expect(s.complete).toBe(true);
    expect(s.stopReason).toBe('completed');
    expect(s.model).toBe('gpt-5-codex');
    expect(s.output).toEqual([
      { role: 'assistant', kind: 'thinking', text: '**Calling echo**' },
      { role: 'assistant', kind: 'text', text: 'Calling echo.' },
      { role: 'assistant', kind: 'tool-use', text: '{"message":"hi"}', callId: 'call_b', name: 'mcp__se__echo' },
    ]);
    expect(s.toolCalls).toEqual([{ id: 'call_b', name: 'mcp__se__echo', argumentsText: '{"message":"hi"}', arguments: { message: 'hi' } }]);
    expect(s.usage).toEqual({ inputTokens: 852, outputTokens: 120, cacheReadTokens: 2048, reasoningTokens: 64, totalInputTokens: 2900 });
    expect(s.notes).toEqual([]);
  });

  it('cut at every event boundary: the call offered once its arguments are done, what was missing said', () => {
    const done = events.findIndex((x) => x.type === 'response.function_call_arguments.done');
    const added = events.findIndex((x) => x.data.includes('"fc_1","type":"function_call"'));
    for (let k = 0; k <= events.length; k++) {
      const { parser } = replay(dialect, parsed(), events, k);
      expect(parser.state().toolCalls.length).toBe(k > done ? 1 : 0);
      const s = parser.end(true);
      expect(s.complete).toBe(k === events.length);
      if (k < events.length) expect(s.notes.join(' ')).toMatch(/broke off before response.completed/);
      if (k > added && k <= done) {
        expect(s.notes.join(' ')).toMatch(/call_b \(mcp__se__echo\) had not finished its arguments/);
        expect(s.toolCalls[0].argumentsError).toMatch(/broke off/);
      }
    }
  });

  it('broken arguments, unknown events (said once), an error event, an incomplete response', () => {
    const p = dialect.newResponse(parsed());
    p.event(
      'response.output_item.added',
      '{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_9","call_id":"call_9","name":"f","arguments":""}}',
    );
    p.event(
      'response.function_call_arguments.delta',
      '{"type":"response.function_call_arguments.delta","item_id":"fc_9","output_index":0,"delta":"{\\"x\\""}',
    );
    p.event(
      'response.output_item.done',
      '{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_9","call_id":"call_9","name":"f"}}',
    );
    p.event('response.future_thing', '{"type":"response.future_thing"}');
    p.event('response.future_thing', '{"type":"response.future_thing"}');
    p.event('response.web_search_call.searching', '{"type":"response.web_search_call.searching"}');
    p.event(
      'response.incomplete',
      '{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":10,"output_tokens":5}}}',
    );
    const s = p.end(false);
    expect(s.toolCalls[0]).toMatchObject({ id: 'call_9', argumentsText: '{"x"' });
    expect(s.toolCalls[0].argumentsError).toMatch(/not valid JSON/);
    expect(s.stopReason).toBe('max_output_tokens');
    expect(s.complete).toBe(true);
    expect(s.notes).toEqual(['an event of unknown type "response.future_thing" was ignored']);

    const err = dialect.newResponse(parsed());
    err.event('error', '{"type":"error","code":"rate_limit_exceeded","message":"Slow down","param":null}');
    expect(err.end(true).error).toBe('rate_limit_exceeded: Slow down');
    const failed = dialect.newResponse(parsed());
    failed.event(
      'response.failed',
      '{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The model failed"}}}',
    );
    expect(failed.end(false).error).toBe('server_error: The model failed');
  });

  it('a whole JSON response and an error body', () => {
    const p = dialect.newResponse(parsed());
    p.json({
      ...response('completed', { usage }),
      output: [
        { type: 'message', id: 'msg_2', role: 'assistant', content: [{ type: 'output_text', text: 'Hi', annotations: [] }] },
        { type: 'function_call', id: 'fc_2', call_id: 'call_c', name: 'shell', arguments: '{"command":["ls"]}' },
      ],
    });
    const s = p.end(false);
    expect(s.output.map((o) => o.kind)).toEqual(['text', 'tool-use']);
    expect(s.toolCalls).toEqual([{ id: 'call_c', name: 'shell', argumentsText: '{"command":["ls"]}', arguments: { command: ['ls'] } }]);
    const err = dialect.newResponse(parsed());
    err.json({ error: { message: 'Invalid model', type: 'invalid_request_error', param: 'model', code: 'model_not_found' } });
    expect(err.end(false).error).toBe('model_not_found: Invalid model');
  });
});
