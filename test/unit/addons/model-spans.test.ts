/**
 * proxy/addons/telemetry/model-spans.ts (through McpSpanBuilder, as the exporter feeds it): a `chat
 * {model}` span per finished model turn with the GenAI conventions' attributes, made once whatever
 * upserts follow; the MCP tools/call the turn chose is its child; the conversation only with
 * --otlp-bodies, redacted and bounded.
 */
import { describe, expect, it } from 'vitest';
import type { McpscopeEvent, ModelTurnInfo } from '../../../proxy/core/model/events.js';
import { createRedactor } from '../../../proxy/recorder/redact/redact.js';
import { McpSpanBuilder, type SpanOp } from '../../../proxy/addons/telemetry/mcp-spans.js';
import { SAMPLE_START, sampleAgentEvents, TURN_1 } from '../../support/model-turn-sample.js';

type Start = Extract<SpanOp, { op: 'start' }>;
type End = Extract<SpanOp, { op: 'end' }>;

function ops(events: McpscopeEvent[], builder = new McpSpanBuilder()): SpanOp[] {
  const out: SpanOp[] = [];
  for (const e of events) builder.feed(e, out);
  return out;
}
const starts = (o: SpanOp[]) => o.filter((x): x is Start => x.op === 'start');
const ends = (o: SpanOp[]) => o.filter((x): x is End => x.op === 'end');

describe('model turn spans', () => {
  it('one chat span per turn, once, from its start to its end, with gen_ai usage attributes', () => {
    const o = ops(sampleAgentEvents());
    const chats = starts(o).filter((s) => s.key.startsWith('t:'));
    expect(chats.map((s) => [s.key, s.name, s.kind, s.time - SAMPLE_START])).toEqual([
      ['t:m1', 'chat claude-sonnet-4-5', 'client', 100],
      ['t:m2', 'chat claude-sonnet-4-5', 'client', 600],
    ]);
    expect(chats[0].attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.request.max_tokens': 32000,
      'gen_ai.request.stream': true,
    });
    const end1 = ends(o).find((e) => e.key === 't:m1')!;
    expect(end1.time - SAMPLE_START).toBe(400);
    expect(end1.attributes).toEqual({
      'gen_ai.usage.input_tokens': 31_338,
      'gen_ai.usage.output_tokens': 61,
      'gen_ai.usage.cache_read.input_tokens': 0,
      'gen_ai.usage.cache_creation.input_tokens': 31_334,
      'gen_ai.response.finish_reasons': ['tool_use'],
      'gen_ai.response.time_to_first_chunk': 0.14,
      'mcpscope.model.tool_calls': 'mcp__se__echo',
    });
    expect(end1.error).toBeUndefined();
    // m1 has three upserts in the sample: one span.
    expect(ends(o).filter((e) => e.key === 't:m1')).toHaveLength(1);
  });

  it('the MCP tools/call the turn chose is a child of its span, and names the call', () => {
    const call = starts(ops(sampleAgentEvents())).find((s) => s.name === 'tools/call echo')!;
    expect(call.parent).toEqual({ key: 't:m1' });
    expect(call.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'toolu_01', 'mcpscope.model_turn': 'm1' });
    // With a remote parent (traceparent in _meta), the turn is a link instead.
    const events = sampleAgentEvents().map((e) =>
      e.type === 'message' && e.method === 'tools/call' && e.kind === 'request'
        ? {
            ...e,
            jsonrpc: {
              ...(e.jsonrpc as object),
              params: { name: 'echo', arguments: {}, _meta: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } },
            },
          }
        : e,
    );
    const linked = starts(ops(events)).find((s) => s.name === 'tools/call echo')!;
    expect(linked.parent).toMatchObject({ remote: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736' } });
    expect(linked.links).toContainEqual({ key: 't:m1' });
  });

  it('a pending turn makes no span; a cut one ends in error; providers by API', () => {
    const upsert = (seq: number, turn: ModelTurnInfo): McpscopeEvent => ({
      type: 'model-turn',
      seq,
      ts: turn.startedAt + 1,
      sessionId: 's2',
      turn,
    });
    const b = new McpSpanBuilder();
    expect(ops([upsert(1, { ...TURN_1, status: 'pending', endedAt: undefined })], b)).toEqual([]);
    const cut = ops([upsert(2, { ...TURN_1, status: 'cut', error: 'the stream ended before message_stop', api: 'openai-responses' })], b);
    expect(starts(cut)[0].attributes['gen_ai.provider.name']).toBe('openai');
    expect(ends(cut)[0]).toMatchObject({ attributes: { 'error.type': 'cut' }, error: { message: 'the stream ended before message_stop' } });
    expect(starts(ops([upsert(3, { ...TURN_1, id: 'g1', api: 'gemini' })]))[0].attributes['gen_ai.provider.name']).toBe('gcp.gemini');
  });

  it('no conversation text without --otlp-bodies; with it, the conventions’ messages, redacted and bounded', () => {
    const secret = 'sk-ant-api03-' + 'Z'.repeat(80);
    const turn: ModelTurnInfo = {
      ...TURN_1,
      system: { role: 'system', kind: 'text', text: `You are Claude Code. x-api-key: ${secret}`, bytes: 40 },
      messages: [{ role: 'user', kind: 'text', text: `call the echo tool ${'x'.repeat(20_000)}`, bytes: 20_020 }],
    };
    const event: McpscopeEvent = { type: 'model-turn', seq: 1, ts: TURN_1.endedAt!, sessionId: 's2', turn };
    const plain = JSON.stringify(ops([event]));
    expect(plain).not.toContain('call the echo tool');
    expect(plain).not.toContain('gen_ai.input.messages');
    const withBodies = ends(ops([event], new McpSpanBuilder({ bodies: true, maxBodyChars: 4096, redact: createRedactor() })))[0].attributes;
    expect(String(withBodies['gen_ai.system_instructions'])).not.toContain(secret);
    const input = String(withBodies['gen_ai.input.messages']);
    expect(input.startsWith('[{"role":"user","parts":[{"type":"text","content":"call the echo tool')).toBe(true);
    expect(input).toMatch(/more characters cut by mcpscope\]$/);
    expect(JSON.parse(String(withBodies['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        finish_reason: 'tool_use',
        parts: [
          { type: 'text', content: 'I will call the echo tool.' },
          { type: 'tool_call', id: 'toolu_01', name: 'mcp__se__echo', arguments: { message: 'hello' } },
        ],
      },
    ]);
  });
});

describe('model turn spans: the response model', () => {
  it('gen_ai.response.model is the model the response named (responseModel); gen_ai.request.model the one asked for', () => {
    const events = sampleAgentEvents().map((e) =>
      e.type === 'model-turn' ? { ...e, turn: { ...e.turn, responseModel: 'claude-sonnet-4-5-20250929' } } : e,
    );
    const o = ops(events);
    expect(starts(o).find((s) => s.key === 't:m1')!.attributes['gen_ai.request.model']).toBe('claude-sonnet-4-5');
    expect(ends(o).find((e) => e.key === 't:m1')!.attributes['gen_ai.response.model']).toBe('claude-sonnet-4-5-20250929');
    // Without one, none.
    expect(ends(ops(sampleAgentEvents())).find((e) => e.key === 't:m1')!.attributes['gen_ai.response.model']).toBeUndefined();
  });
});
