/**
 * What every model-API dialect gives the recorder (issue 27; docs/agent-view.md): pure, I/O-free,
 * browser-safe. One module per wire format — anthropic-messages.ts, openai-chat.ts,
 * openai-responses.ts, gemini.ts — each exporting one `ModelApiDialect`; dialects.ts lists them.
 *
 * A dialect reads a request body once it has ended (a parsed JSON value: the recorder parses it,
 * within the body limit) and the response as it streams: one call per SSE event, in wire order,
 * or one call with a whole JSON body. It never throws on what a peer sent: a value of another
 * shape, an unknown event type, broken JSON in argument deltas, a stream cut anywhere — each is
 * kept as far as it went and said in `notes`, in plain words. Texts here are whole (the recorder
 * bounds and redacts them before anything is kept).
 */
import type { ModelApi, ModelUsage, TranscriptEntry } from '../model/model-turn.js';

/** A transcript entry before the recorder bounds it (`bytes`/`truncated` are the recorder's). */
export type RawEntry = Omit<TranscriptEntry, 'bytes' | 'truncated'>;

/** A tool definition as the client sent it: its name, description and JSON Schema(s) as text (`JSON.stringify` of what was sent). */
export interface RawTool {
  name: string;
  description: string;
  schemaText: string;
}

export interface ParsedRequest {
  model?: string;
  /** The response will be an event stream (Anthropic/OpenAI `stream: true`, Gemini `:streamGenerateContent`). */
  stream: boolean;
  /** The system prompt (Anthropic `system`, OpenAI system/developer messages or `instructions`, Gemini `systemInstruction`), its parts joined with blank lines. */
  system?: string;
  /** The conversation in order, one entry per content part (text, tool use, tool result, …). */
  messages: RawEntry[];
  /** How many messages (turns of the conversation, not parts) the request carried. */
  messageCount: number;
  /** Index in `messages` of the first entry of each message: `messages` of message i start at `messageStarts[i]`. */
  messageStarts: number[];
  tools: RawTool[];
  /** `auto`, `any`, `none`, `required`, or `tool:<name>`. */
  toolChoice?: string;
  maxTokens?: number;
  /** The tool results the request carries back (a view of `messages`' tool-result entries, with their full text). */
  toolResults: { callId: string; name?: string; text: string; isError?: boolean }[];
  /** What could not be read, in plain words (a message of an unknown shape, say). */
  notes: string[];
}

export interface ParsedToolCall {
  id: string;
  name: string;
  /** The arguments as they came (a JSON text; Gemini's `args` object serialized). */
  argumentsText: string;
  /** Parsed; absent when `argumentsText` is not valid JSON (`argumentsError` says why). */
  arguments?: unknown;
  argumentsError?: string;
}

export interface ResponseState {
  /** The model the response named (never the request's). */
  model?: string;
  /** Text, thinking and tool uses in order (a tool use's text is its arguments' JSON text). */
  output: RawEntry[];
  toolCalls: ParsedToolCall[];
  stopReason?: string;
  usage?: ModelUsage;
  /** An error the API answered or streamed (`error` event, an error body): type and message. */
  error?: string;
  /** The stream's own end was seen (`message_stop`, `[DONE]`, `response.completed`, a last chunk with a finish reason; a whole JSON body). */
  complete: boolean;
  notes: string[];
}

export interface ResponseParser {
  /**
   * One SSE event: its `event:` field (undefined when it had none) and its `data:` text. Returns
   * true when this event carried the response's first content (text, thinking or a tool call),
   * which dates the time to first token.
   */
  event(eventType: string | undefined, data: string): boolean;
  /** A whole JSON body (a non-streaming answer, or an error answer), parsed; `undefined` when it did not parse. */
  json(body: unknown): void;
  /** The state so far (tool calls complete so far included: a client may call a tool before the stream ends). */
  state(): ResponseState;
  /** The response ended (`cut`: it broke off): finishes what is open (a tool call's partial arguments) and says what was missing. */
  end(cut: boolean): ResponseState;
}

export interface ModelApiDialect {
  api: ModelApi;
  /** Whether a request path (no query; absolute-form already reduced to its path) is this API's endpoint. */
  matchesPath(path: string): boolean;
  /** Whether a parsed request body has this API's shape (so a JSON API of another shape at the same path is left alone). */
  matchesBody(body: unknown): boolean;
  /** `url` is the request's path and query (Gemini names its model and streaming there). */
  parseRequest(body: unknown, url: string): ParsedRequest;
  newResponse(request: ParsedRequest): ResponseParser;
}
