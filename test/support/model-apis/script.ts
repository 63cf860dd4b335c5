/**
 * The script shared by the model-API stand-ins (anthropic-standin.ts, openai-standin.ts,
 * gemini-standin.ts): a list of turns, each deciding its reply from a provider-neutral view of the
 * request (which tools were offered, which tool results the newest message carries). The same
 * script drives every stand-in; each writes the reply in its own provider's wire format.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** One HTTP request a stand-in received, as it came. */
export interface RecordedRequest {
  method: string;
  /** The request target as sent (path and query). */
  url: string;
  /** The path without the query. */
  path: string;
  /** The query parameters (the last value of a repeated one). */
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The raw body, as UTF-8 text. */
  rawBody: string;
  /** The body parsed as JSON; undefined when it was empty or not JSON. */
  body: unknown;
}

/** Token figures, as the provider's own fields say them (no arithmetic is done on them). */
export interface ScriptUsage {
  /** Anthropic `input_tokens`, OpenAI `prompt_tokens` / `input_tokens`, Gemini `promptTokenCount`. */
  inputTokens: number;
  /** Anthropic `output_tokens`, OpenAI `completion_tokens` / `output_tokens`, Gemini `candidatesTokenCount`. */
  outputTokens: number;
  /** Anthropic `cache_read_input_tokens`, OpenAI `cached_tokens`, Gemini `cachedContentTokenCount`. */
  cacheReadTokens?: number;
  /** Anthropic `cache_creation_input_tokens` (the others have no such figure). */
  cacheWriteTokens?: number;
  /** OpenAI `reasoning_tokens`, Gemini `thoughtsTokenCount` (Anthropic has none). */
  reasoningTokens?: number;
}

export const DEFAULT_USAGE: ScriptUsage = { inputTokens: 120, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 };

export interface ScriptToolCall {
  /** The tool's name exactly as the client offered it (see `pickTool`). */
  name: string;
  arguments: Record<string, unknown>;
  /** The call id; default `toolu_standin_<turn>_<i>` (Anthropic), `call_standin_<turn>_<i>` (OpenAI). Gemini sends none unless set. */
  id?: string;
}

/** Ways to break a reply (for the recorder's bad-input tests; official SDKs reject most of them). */
export type ScriptFault =
  /** Close the connection after this many SSE events (or, for a JSON answer, after half its bytes). */
  | { kind: 'cut'; afterEvents: number }
  /** After this many events, send the provider's error event (a JSON answer: an HTTP error) and end. */
  | { kind: 'error-event'; afterEvents: number; errorType?: string; message?: string }
  /** Answer with an HTTP error in the provider's error format, nothing else. */
  | { kind: 'http-error'; status: number; errorType?: string; message?: string }
  /** Tool arguments sent as fragments that do not concatenate to JSON (Gemini: a `data:` line that is not JSON). */
  | { kind: 'broken-json' };

/** An extra SSE event, inserted before the event at position `at` (0 = first; past the end = last). */
export interface ExtraEvent {
  at: number;
  /** The `event:` field (omit for a data-only event). */
  event?: string;
  /** A string is sent as is; anything else JSON-encoded. */
  data: unknown;
}

export interface ScriptReply {
  /** Assistant text (streamed in several deltas). */
  text?: string;
  /** Reasoning text: Anthropic `thinking` block (with a signature), OpenAI Responses `reasoning` item, Gemini thought part. */
  thinking?: string;
  toolCalls?: ScriptToolCall[];
  usage?: ScriptUsage;
  /** Override the stop reason the stand-in would pick (`end_turn`/`tool_use`, `stop`/`tool_calls`, `STOP`). */
  stopReason?: string;
  fault?: ScriptFault;
  extraEvents?: ExtraEvent[];
  /** Characters per text delta / argument fragment (default 7). */
  fragmentSize?: number;
}

/** A tool result found in the newest input of a request. */
export interface SeenToolResult {
  /** tool_use_id / tool_call_id / call_id (Gemini: functionResponse.id when the client sent one). */
  id?: string;
  /** Gemini's functionResponse.name (the others carry only the id). */
  name?: string;
  /** The result's text (text blocks joined; a JSON result as JSON). */
  text: string;
  isError?: boolean;
}

/** The provider-neutral view of a model request that a turn decides from. */
export interface TurnContext {
  /** 0-based: which model call this is on this stand-in (count_tokens and probes not counted). */
  index: number;
  request: RecordedRequest;
  model: string;
  stream: boolean;
  /** Names of the tools offered, as the client named them. */
  toolNames: string[];
  /** Tool results carried by the newest input (the last user message / trailing tool messages / input items). */
  toolResults: SeenToolResult[];
  /** The newest user text, when the newest input is a user text. */
  userText?: string;
}

export type ScriptTurn = ScriptReply | ((ctx: TurnContext) => ScriptReply);

/** Turn i answers model call i; calls past the end get the last turn. A single turn answers all. */
export type Script = ScriptTurn | ScriptTurn[];

export function replyFor(script: Script, ctx: TurnContext): ScriptReply {
  const turns = Array.isArray(script) ? script : [script];
  if (turns.length === 0) return { text: 'ok' };
  const turn = turns[Math.min(ctx.index, turns.length - 1)];
  return typeof turn === 'function' ? turn(ctx) : turn;
}

/** The offered tool named `wanted`, or else the one named `<prefix>__<wanted>` (`mcp__se__echo`); `wanted` itself if none. */
export function pickTool(toolNames: string[], wanted: string): string {
  if (toolNames.includes(wanted)) return wanted;
  return toolNames.find((n) => n.endsWith(`__${wanted}`)) ?? wanted;
}

/**
 * The common two-step turn: with no tool result in the newest input, call `tool` (matched with
 * `pickTool`) with `arguments`; else answer text (`answer(results)`, default
 * `The tool said: <text>`). `usage`: [for the call, for the answer]. A request that does not
 * offer the tool at all (a client's side request: a title, a quota check) is answered
 * `otherwise` (default `OK.`), with the answer's usage.
 */
export function callToolThenAnswer(o: {
  tool: string;
  arguments: Record<string, unknown>;
  answer?: (results: SeenToolResult[]) => string;
  usage?: [ScriptUsage, ScriptUsage];
  /** Text before the tool call, in the same reply. */
  preamble?: string;
  /** The answer to a request that does not offer the tool (default `OK.`). */
  otherwise?: string;
}): (ctx: TurnContext) => ScriptReply {
  return (ctx) => {
    const offered = ctx.toolNames.includes(pickTool(ctx.toolNames, o.tool));
    if (ctx.toolResults.length === 0 && !offered) return { text: o.otherwise ?? 'OK.', ...(o.usage ? { usage: o.usage[1] } : {}) };
    if (ctx.toolResults.length === 0)
      return {
        ...(o.preamble !== undefined ? { text: o.preamble } : {}),
        toolCalls: [{ name: pickTool(ctx.toolNames, o.tool), arguments: o.arguments }],
        ...(o.usage ? { usage: o.usage[0] } : {}),
      };
    const text = o.answer ? o.answer(ctx.toolResults) : `The tool said: ${ctx.toolResults.map((r) => r.text).join('\n')}`;
    return { text, ...(o.usage ? { usage: o.usage[1] } : {}) };
  };
}

/** `text` in pieces of `size` characters (code points; at least one piece, possibly empty). */
export function fragments(text: string, size = 7): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out.length > 0 ? out : [''];
}

/** The JSON of tool arguments, or (broken) the same with its closing brace cut and a stray quote: never parses. */
export function argumentText(args: Record<string, unknown>, broken: boolean): string {
  const json = JSON.stringify(args);
  return broken ? `${json.slice(0, -1)},"unterminated` : json;
}

/** Text of a tool result's content, whatever its shape (string, text blocks, parts, JSON). */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((c: unknown) =>
        c && typeof c === 'object' && typeof (c as { text?: unknown }).text === 'string' ? (c as { text: string }).text : JSON.stringify(c),
      )
      .join('\n');
  return JSON.stringify(content ?? null);
}
