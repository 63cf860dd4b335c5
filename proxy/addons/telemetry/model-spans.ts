/**
 * Model turns → span ops (issue 27; docs/team-setup.md), beside the MCP spans of mcp-spans.ts,
 * which feeds them here: a span per finished turn, kind CLIENT, named `chat {model}`, from its
 * request's start to its response's end, with the GenAI semantic conventions' attributes
 * (@opentelemetry/semantic-conventions 1.45 names: gen_ai.operation.name, gen_ai.provider.name,
 * gen_ai.request.model, gen_ai.request.max_tokens, gen_ai.request.stream, gen_ai.usage.input_tokens
 * — all input, cached included, as the conventions ask —, gen_ai.usage.output_tokens,
 * gen_ai.usage.cache_read.input_tokens, gen_ai.usage.cache_creation.input_tokens,
 * gen_ai.usage.reasoning.output_tokens, gen_ai.response.finish_reasons,
 * gen_ai.response.time_to_first_chunk). The MCP tools/call that carried out one of its tool calls
 * becomes a child of its span (mcp-spans.ts asks `spanKey`): the turn ended before the call began.
 *
 * A turn is an upsert: its span is made once, on its first upsert that is not pending (start and
 * end together); later upserts (links) change nothing. The conversation goes out only with
 * `--otlp-bodies`: gen_ai.system_instructions, gen_ai.input.messages and gen_ai.output.messages
 * in the conventions' JSON shape, redacted and bounded like every body.
 *
 * Pure: no OpenTelemetry import, no I/O. Bounded: the turns remembered (spans made) are the newest
 * `maxTurns` (10,000).
 */
import type { ModelApi, ModelTurnEvent, ModelTurnInfo, TranscriptEntry } from '../../core/model/events.js';
import type { Attrs, SpanOp, SpanRedaction } from './mcp-spans.js';

const PROVIDER: Record<ModelApi, string> = {
  'anthropic-messages': 'anthropic',
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  gemini: 'gcp.gemini',
};

export interface ModelSpanOptions {
  bodies?: boolean;
  /** Applied to every string; bodies are stringified and cut by `body`. */
  redact?: SpanRedaction;
  body: (value: unknown) => string | undefined;
  maxTurns?: number;
}

/** The conventions' message parts (gen_ai.input.messages / gen_ai.output.messages). */
type Part =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id?: string; name?: string; arguments?: unknown }
  | { type: 'tool_call_response'; id?: string; response: string }
  | { type: string; content?: string };

function part(e: TranscriptEntry): Part {
  switch (e.kind) {
    case 'text':
      return { type: 'text', content: e.text };
    case 'thinking':
      return { type: 'reasoning', content: e.text };
    case 'tool-use': {
      let args: unknown = e.text;
      try {
        args = JSON.parse(e.text);
      } catch {
        /* kept as text (cut, or not JSON) */
      }
      return { type: 'tool_call', id: e.callId, name: e.name, arguments: args };
    }
    case 'tool-result':
      return { type: 'tool_call_response', id: e.callId, response: e.text };
    default:
      return { type: e.kind, content: e.text };
  }
}

/** Entries → messages: consecutive entries of one role are one message. */
function messages(entries: readonly TranscriptEntry[]): { role: string; parts: Part[] }[] {
  const out: { role: string; parts: Part[] }[] = [];
  for (const e of entries) {
    const role = e.kind === 'tool-result' ? 'tool' : e.role;
    const last = out[out.length - 1];
    if (last && last.role === role) last.parts.push(part(e));
    else out.push({ role, parts: [part(e)] });
  }
  return out;
}

export class ModelTurnSpans {
  /** Turn id → its span's key, for the turns whose span was made (newest `maxTurns`). */
  private readonly made = new Map<string, string>();
  private readonly maxTurns: number;

  constructor(private readonly options: ModelSpanOptions) {
    this.maxTurns = options.maxTurns ?? 10_000;
  }

  /** The span key of a turn whose span was made, else undefined. */
  spanKey(turnId: string): string | undefined {
    return this.made.get(turnId);
  }

  private text(s: string): string {
    return this.options.redact ? this.options.redact.text(s) : s;
  }

  feed(e: ModelTurnEvent, out: SpanOp[]): void {
    const t = e.turn;
    if (t.status === 'pending' || this.made.has(t.id)) return;
    if (this.made.size >= this.maxTurns) this.made.delete(this.made.keys().next().value as string);
    const key = `t:${t.id}`;
    this.made.set(t.id, key);
    const model = t.model !== undefined ? this.text(t.model) : undefined;
    out.push({
      op: 'start',
      key,
      name: model !== undefined ? `chat ${model}` : 'chat',
      kind: 'client',
      time: t.startedAt,
      attributes: this.startAttrs(t, model),
    });
    const end = Math.max(t.startedAt, t.endedAt ?? e.ts);
    const failed = t.status !== 'done';
    const attributes = this.endAttrs(t);
    if (failed) attributes['error.type'] = t.status === 'cut' ? 'cut' : 'api_error';
    out.push({
      op: 'end',
      key,
      time: end,
      attributes,
      ...(failed ? { error: { message: this.text(t.error ?? `the response ${t.status === 'cut' ? 'broke off' : 'was an error'}`) } } : {}),
    });
  }

  private startAttrs(t: ModelTurnInfo, model: string | undefined): Attrs {
    const a: Attrs = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': PROVIDER[t.api] ?? t.api,
      'gen_ai.request.stream': t.stream,
      'mcpscope.model_turn': t.id,
      'mcpscope.session': t.sessionId,
      'mcpscope.model.api': t.api,
      'mcpscope.model.client': t.client,
      'mcpscope.model.agent': this.text(t.agent),
      'mcpscope.model.tools_offered': t.tools.length,
    };
    if (model !== undefined) a['gen_ai.request.model'] = model;
    if (t.maxTokens !== undefined) a['gen_ai.request.max_tokens'] = t.maxTokens;
    if (t.context) a['mcpscope.model.tools_tokens_estimate'] = t.context.toolsTokens;
    return a;
  }

  private endAttrs(t: ModelTurnInfo): Attrs {
    const a: Attrs = {};
    const u = t.usage;
    const input = u?.totalInputTokens ?? u?.inputTokens;
    if (input !== undefined) a['gen_ai.usage.input_tokens'] = input;
    if (u?.outputTokens !== undefined) a['gen_ai.usage.output_tokens'] = u.outputTokens;
    if (u?.cacheReadTokens !== undefined) a['gen_ai.usage.cache_read.input_tokens'] = u.cacheReadTokens;
    if (u?.cacheWriteTokens !== undefined) a['gen_ai.usage.cache_creation.input_tokens'] = u.cacheWriteTokens;
    if (u?.reasoningTokens !== undefined) a['gen_ai.usage.reasoning.output_tokens'] = u.reasoningTokens;
    if (t.responseModel !== undefined) a['gen_ai.response.model'] = this.text(t.responseModel);
    if (t.stopReason !== undefined) a['gen_ai.response.finish_reasons'] = [this.text(t.stopReason)];
    if (t.firstTokenAt !== undefined) a['gen_ai.response.time_to_first_chunk'] = Math.max(0, t.firstTokenAt - t.startedAt) / 1000;
    if (t.toolCalls.length > 0) a['mcpscope.model.tool_calls'] = this.text(t.toolCalls.map((c) => c.name).join(','));
    if (this.options.bodies) {
      const body = this.options.body;
      const system = t.system ? body([{ type: 'text', content: t.system.text }]) : undefined;
      if (system !== undefined) a['gen_ai.system_instructions'] = system;
      const input = body(messages(t.messages));
      if (input !== undefined) a['gen_ai.input.messages'] = input;
      const output = body(
        t.output.length > 0
          ? [{ role: 'assistant', parts: t.output.map(part), ...(t.stopReason ? { finish_reason: t.stopReason } : {}) }]
          : [],
      );
      if (output !== undefined) a['gen_ai.output.messages'] = output;
    }
    return a;
  }
}
