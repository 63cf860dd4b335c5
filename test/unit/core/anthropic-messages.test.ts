/**
 * The Anthropic Messages dialect (proxy/core/model-api/anthropic-messages.ts): requests as Claude Code
 * and the SDK send them, and responses in the wire format of the API reference's "Streaming
 * messages" page (the tool-use stream there: text, then a tool_use whose input arrives as
 * partial_json fragments after an empty one), fed whole, event by event, and cut at every event.
 */
import { describe, expect, it } from 'vitest';
import type { MessageCreateParams } from '@anthropic-ai/sdk/resources/messages/messages';
import { anthropicMessages as dialect } from '../../../proxy/core/model-api/anthropic-messages.js';
import { replay, sseEvents } from '../../support/sse-text.js';

const request = {
  model: 'claude-sonnet-4-5',
  max_tokens: 32000,
  stream: true,
  system: [
    { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
    { type: 'text', text: '# MCP Server Instructions\n## se\nUse echo.', cache_control: { type: 'ephemeral' } },
  ],
  messages: [
    { role: 'user', content: 'call the echo tool' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The user wants echo.', signature: 'sig' },
        { type: 'text', text: 'Calling it.' },
        { type: 'tool_use', id: 'toolu_01', name: 'mcp__se__echo', input: { message: 'hi' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: 'Echo: hi' }] },
        { type: 'tool_result', tool_use_id: 'toolu_02', content: 'boom', is_error: true },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'a plain document' } },
      ],
    },
  ],
  tools: [
    { name: 'Bash', description: 'Run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } },
    { name: 'mcp__se__echo', description: 'Echoes', input_schema: { type: 'object', properties: { message: { type: 'string' } } } },
    { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
  ],
  tool_choice: { type: 'tool', name: 'mcp__se__echo' },
} satisfies MessageCreateParams;

// The tool-use stream of docs.anthropic.com/en/docs/build-with-claude/streaming ("Streaming request with tool use").
const toolStream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message","role":"assistant","model":"claude-opus-4-1-20250805","stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":2},"content":[],"stop_reason":null}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Okay"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":",  let's check the weather for San Francisco, CA:"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"location\\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" \\"San"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" Francisc"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"o,"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" CA\\""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":", "}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\\"unit\\": \\"fah"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"renheit\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

event: message_stop
data: {"type":"message_stop"}

`;

const parsed = () => dialect.parseRequest(request, '/v1/messages?beta=true');

describe('anthropic-messages: matching', () => {
  it('matches …/v1/messages under any prefix, not count_tokens or batches', () => {
    expect(dialect.matchesPath('/v1/messages')).toBe(true);
    expect(dialect.matchesPath('/proxy/anthropic/v1/messages')).toBe(true);
    expect(dialect.matchesPath('/v1/messages/count_tokens')).toBe(false);
    expect(dialect.matchesPath('/v1/messages/batches')).toBe(false);
    expect(dialect.matchesPath('/v1/chat/completions')).toBe(false);
  });

  it('matches a Messages body, not another shape at the same path', () => {
    expect(dialect.matchesBody(request)).toBe(true);
    expect(dialect.matchesBody({ model: 'x', messages: [] })).toBe(true);
    expect(dialect.matchesBody({ messages: [{ from: 'ann', text: 'hi' }] })).toBe(false);
    // Claude Code 2.1.197 puts a system message among its messages: still a Messages call.
    expect(
      dialect.matchesBody({
        model: 'x',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'system', content: 'hi' },
        ],
      }),
    ).toBe(true);
    expect(dialect.matchesBody({ model: 'x', messages: [{ role: 7, content: 'hi' }] })).toBe(false);
    expect(dialect.matchesBody({ model: 'x', messages: 'hi' })).toBe(false);
    expect(dialect.matchesBody([request])).toBe(false);
    expect(dialect.matchesBody(undefined)).toBe(false);
  });
});

describe('anthropic-messages: request', () => {
  it('reads model, system blocks, messages, tools, tool choice and limits', () => {
    const r = parsed();
    expect(r.model).toBe('claude-sonnet-4-5');
    expect(r.stream).toBe(true);
    expect(r.maxTokens).toBe(32000);
    expect(r.toolChoice).toBe('tool:mcp__se__echo');
    expect(r.system).toBe("You are Claude Code, Anthropic's official CLI for Claude.\n\n# MCP Server Instructions\n## se\nUse echo.");
    expect(r.messageCount).toBe(3);
    expect(r.messageStarts).toEqual([0, 1, 4]);
    expect(r.messages.map((m) => `${m.role}/${m.kind}`)).toEqual([
      'user/text',
      'assistant/thinking',
      'assistant/text',
      'assistant/tool-use',
      'tool/tool-result',
      'tool/tool-result',
      'user/image',
      'user/document',
    ]);
    expect(r.messages[3]).toEqual({
      role: 'assistant',
      kind: 'tool-use',
      text: '{"message":"hi"}',
      callId: 'toolu_01',
      name: 'mcp__se__echo',
    });
    expect(r.messages[6].text).toBe('[image image/png, 12 base64 characters]');
    expect(r.messages[7].text).toBe('a plain document');
    expect(r.toolResults).toEqual([
      { callId: 'toolu_01', name: 'mcp__se__echo', text: 'Echo: hi' },
      { callId: 'toolu_02', text: 'boom', isError: true },
    ]);
    expect(r.tools.map((t) => t.name)).toEqual(['Bash', 'mcp__se__echo', 'web_search']);
    expect(r.tools[1]).toEqual({
      name: 'mcp__se__echo',
      description: 'Echoes',
      schemaText: '{"type":"object","properties":{"message":{"type":"string"}}}',
    });
    expect(r.tools[2].schemaText).toBe('{"type":"web_search_20250305","max_uses":5}');
    expect(r.notes).toEqual([]);
  });

  it('a 5 MiB request (2,000 turns of tool use and result) parses in linear time', () => {
    const messages = [];
    for (let i = 0; i < 2000; i++) {
      messages.push({
        role: 'assistant',
        content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'mcp__se__echo', input: { message: 'x'.repeat(1300) } }],
      });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: 'y'.repeat(1300) }] });
    }
    const body = { model: 'm', max_tokens: 1, messages };
    expect(JSON.stringify(body).length).toBeGreaterThan(5 * 1024 * 1024);
    const started = performance.now();
    expect(dialect.matchesBody(body)).toBe(true);
    const r = dialect.parseRequest(body, '/v1/messages');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(r.messageCount).toBe(4000);
    expect(r.toolResults).toHaveLength(2000);
    expect(r.toolResults[1999]).toMatchObject({ callId: 'toolu_1999', name: 'mcp__se__echo' });
  });

  it('says what it could not read, and never throws', () => {
    const r = dialect.parseRequest(
      { model: 'm', system: 5, messages: [null, { role: 'user', content: 7 }, { role: 'user', content: [3] }] },
      '/v1/messages',
    );
    expect(r.messageCount).toBe(3);
    expect(r.notes.length).toBeGreaterThanOrEqual(3);
    expect(dialect.parseRequest('not an object', '/v1/messages').notes[0]).toMatch(/not an object/);
  });
});

describe('anthropic-messages: response', () => {
  const events = sseEvents(toolStream);

  it('reassembles the documented tool-use stream, fed event by event', () => {
    const { parser, firsts } = replay(dialect, parsed(), events);
    expect(firsts).toEqual([3]); // the first text_delta
    const s = parser.end(false);
    expect(s.complete).toBe(true);
    expect(s.model).toBe('claude-opus-4-1-20250805');
    expect(s.stopReason).toBe('tool_use');
    expect(s.usage).toEqual({ inputTokens: 472, outputTokens: 89, totalInputTokens: 472 });
    expect(s.output).toEqual([
      { role: 'assistant', kind: 'text', text: "Okay,  let's check the weather for San Francisco, CA:" },
      {
        role: 'assistant',
        kind: 'tool-use',
        text: '{"location": "San Francisco, CA", "unit": "fahrenheit"}',
        callId: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        name: 'get_weather',
      },
    ]);
    expect(s.toolCalls).toEqual([
      {
        id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        name: 'get_weather',
        argumentsText: '{"location": "San Francisco, CA", "unit": "fahrenheit"}',
        arguments: { location: 'San Francisco, CA', unit: 'fahrenheit' },
      },
    ]);
    expect(s.notes).toEqual([]);
  });

  it('cut at every event boundary: never throws, says what was missing, offers a tool call only once its block stopped', () => {
    const stop = events.findIndex((e) => e.data.includes('"content_block_stop","index":1'));
    for (let k = 0; k <= events.length; k++) {
      const { parser } = replay(dialect, parsed(), events, k);
      const mid = parser.state();
      expect(mid.toolCalls.length).toBe(k > stop ? 1 : 0);
      const s = parser.end(true);
      if (k === events.length) {
        expect(s.complete).toBe(true);
        expect(s.notes).toEqual([]);
        continue;
      }
      expect(s.complete).toBe(false);
      expect(s.notes.join(' ')).toMatch(/broke off before message_stop/);
      const toolOpen = k > 6 && k <= stop;
      if (toolOpen) {
        expect(s.notes.join(' ')).toMatch(/toolu_01T1x1fJ34qAmk2tNTrN7Up6 \(get_weather\) had not finished its arguments/);
        expect(s.toolCalls[0].arguments).toBeUndefined();
        expect(s.toolCalls[0].argumentsError).toMatch(/broke off before the arguments ended/);
      }
    }
  });

  it('keeps broken argument JSON as text with the reason, never a throw', () => {
    const p = dialect.newResponse(parsed());
    p.event(
      'content_block_start',
      '{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_x","name":"t","input":{}}}',
    );
    p.event(
      'content_block_delta',
      '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\": tru"}}',
    );
    p.event('content_block_stop', '{"type":"content_block_stop","index":0}');
    p.event('message_stop', '{"type":"message_stop"}');
    const s = p.end(false);
    expect(s.toolCalls[0].argumentsText).toBe('{"a": tru');
    expect(s.toolCalls[0].arguments).toBeUndefined();
    expect(s.toolCalls[0].argumentsError).toMatch(/not valid JSON/);
  });

  it('a tool use with no deltas takes its start input; usage sums cache reads and writes, message_delta overrides', () => {
    const p = dialect.newResponse(parsed());
    p.event(
      'message_start',
      '{"type":"message_start","message":{"model":"m","usage":{"input_tokens":3,"cache_creation_input_tokens":2000,"cache_read_input_tokens":30000,"output_tokens":1}}}',
    );
    p.event('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}');
    p.event('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}');
    p.event('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}');
    p.event('content_block_stop', '{"type":"content_block_stop","index":0}');
    p.event(
      'content_block_start',
      '{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_y","name":"mcp__se__echo","input":{"message":"x"}}}',
    );
    p.event('content_block_stop', '{"type":"content_block_stop","index":1}');
    p.event('message_delta', '{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"input_tokens":5,"output_tokens":40}}');
    p.event('message_stop', '{"type":"message_stop"}');
    const s = p.end(false);
    expect(s.output[0]).toEqual({ role: 'assistant', kind: 'thinking', text: 'hmm' });
    expect(s.toolCalls[0]).toMatchObject({ id: 'toolu_y', arguments: { message: 'x' } });
    expect(s.usage).toEqual({ inputTokens: 5, outputTokens: 40, cacheReadTokens: 30000, cacheWriteTokens: 2000, totalInputTokens: 32005 });
  });

  it('an error event, unknown events and non-JSON data are said, not thrown', () => {
    const p = dialect.newResponse(parsed());
    expect(p.event('mystery', '{"type":"mystery"}')).toBe(false);
    p.event('mystery', '{"type":"mystery"}');
    p.event(undefined, 'not json');
    p.event('error', '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    const s = p.end(false);
    expect(s.error).toBe('overloaded_error: Overloaded');
    expect(s.notes.filter((n) => n.includes('mystery'))).toHaveLength(1);
    expect(s.notes.some((n) => n.includes('not JSON'))).toBe(true);
  });

  it('reads a whole JSON message and a JSON error body', () => {
    const p = dialect.newResponse(parsed());
    p.json({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [
        { type: 'text', text: 'Hi' },
        { type: 'tool_use', id: 'toolu_z', name: 'mcp__se__echo', input: { message: 'a' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0 },
    });
    const s = p.end(false);
    expect(s.complete).toBe(true);
    expect(s.toolCalls).toEqual([{ id: 'toolu_z', name: 'mcp__se__echo', argumentsText: '{"message":"a"}', arguments: { message: 'a' } }]);
    expect(s.usage?.totalInputTokens).toBe(10);

    const e = dialect.newResponse(parsed());
    e.json({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: required' } });
    expect(e.end(false).error).toBe('invalid_request_error: max_tokens: required');
    const u = dialect.newResponse(parsed());
    u.json(undefined);
    expect(u.end(false).notes[0]).toMatch(/not JSON/);
  });

  it('stays linear in the number of fragments (100,000 deltas, the state read after each, as the recorder does)', () => {
    const p = dialect.newResponse(parsed());
    p.event(
      'content_block_start',
      '{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}',
    );
    p.event(
      'content_block_delta',
      '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":\\""}}',
    );
    const started = performance.now();
    const fragment = '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"xxxxxxxxxx"}}';
    let offered = 0;
    for (let i = 0; i < 100_000; i++) {
      p.event('content_block_delta', fragment);
      offered += p.state().toolCalls.length;
    }
    expect(offered).toBe(0);
    p.event('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\\"}"}}');
    p.event('content_block_stop', '{"type":"content_block_stop","index":0}');
    const s = p.end(false);
    expect(s.toolCalls[0].argumentsText.length).toBe(1_000_008);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
