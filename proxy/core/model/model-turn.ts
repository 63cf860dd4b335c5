/**
 * The agent's side of the wire: one call of a client to its model API — a **model
 * turn** — as the event schema carries it. Shared by proxy, feed, API, exports and UI (no Node
 * imports). docs/event-schema.md ("Model turns") and docs/agent-view.md say what each field means.
 *
 * A turn is an upsert keyed by `id` (`m1`, `m2`, …), like sessions and exchanges: it is sent when
 * its request has been read, again when its response has ended (or was cut), and again whenever a
 * link is made later (the MCP call that carried out one of its tool calls, that call's result).
 * Everything in it is redacted and bounded: texts are cut (`truncated`), lists capped.
 */
import type { Hint } from './events.js';

/** Which wire format the exchange spoke: found by path and body shape, never by host name. */
export type ModelApi = 'anthropic-messages' | 'openai-chat' | 'openai-responses' | 'gemini';

/** Which client drove it, as far as its requests tell (headers, tool naming); `other` when they do not. */
export type AgentClient = 'claude-code' | 'gemini-cli' | 'codex' | 'other';

/** Token counts as the API reported them (never estimated here: `context` holds the estimates). */
export interface ModelUsage {
  /** Input tokens not read from or written to a cache (Anthropic `input_tokens`, OpenAI `prompt_tokens` less cached, Gemini `promptTokenCount` less cached). */
  inputTokens?: number;
  outputTokens?: number;
  /** Read from the provider's prompt cache (Anthropic `cache_read_input_tokens`, OpenAI `cached_tokens`, Gemini `cachedContentTokenCount`). */
  cacheReadTokens?: number;
  /** Written to the cache (Anthropic `cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
  /** Reasoning/thinking tokens, where the API counts them apart (OpenAI `reasoning_tokens`, Gemini `thoughtsTokenCount`). */
  reasoningTokens?: number;
  /** Everything the model read for this request: input + cache read + cache write. */
  totalInputTokens?: number;
}

/** One entry of the conversation as the model saw it (request) or wrote it (response). Text bounded. */
export interface TranscriptEntry {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  kind: 'text' | 'thinking' | 'tool-use' | 'tool-result' | 'image' | 'document' | 'other';
  /** The text, cut past the turn's per-entry bound (`truncated`); for a tool use, its arguments as JSON. */
  text: string;
  /** The entry's full size in bytes (UTF-8), before any cut. */
  bytes: number;
  truncated?: boolean;
  /** Tool use / tool result: the call id the two share (`tool_use_id`, `tool_call_id`, `call_id`). */
  callId?: string;
  /** Tool use (and Gemini's functionResponse): the tool's name as the client gave it to the model. */
  name?: string;
  /** Tool result flagged as an error by the client (`is_error`). */
  isError?: boolean;
}

/** A tool the client offered the model in this request, with what it costs. */
export interface ToolOffered {
  /** As the client named it to the model (`mcp__se__echo`). */
  name: string;
  /** The MCP server and tool it stands for, when the name tells (`mcp__<server>__<tool>`) or an MCP session lists it. */
  server?: string;
  tool?: string;
  /** Bytes of its description and of its JSON Schema(s) as sent. */
  descriptionBytes: number;
  schemaBytes: number;
  /** Estimated tokens (context.encoding) of description and schema. */
  descriptionTokens: number;
  schemaTokens: number;
}

/** Where an MCP message is: its session and seq. */
export interface McpRef {
  sessionId: string;
  seq: number;
}

/** A tool call the model chose in its response. */
export interface ModelToolCall {
  /** The provider's call id (`toolu_…`, `call_…`; Gemini has none: `gemini-<index>`). */
  id: string;
  name: string;
  server?: string;
  tool?: string;
  /** The arguments, parsed; `argumentsText` when they did not parse (`argumentsError` says why). */
  arguments?: unknown;
  argumentsText?: string;
  argumentsError?: string;
  /** The MCP `tools/call` request that carried it out, and its response, once seen. */
  mcpCall?: McpRef;
  mcpResult?: McpRef;
  /** The MCP result was a tool error (`isError`) or a JSON-RPC error. */
  mcpFailed?: boolean;
  /** The turn whose request carried this call's result back to the model. */
  resultTurn?: string;
}

/** A tool result the client sent back to the model in this request. */
export interface ModelToolResult {
  callId: string;
  /** The turn whose response asked for it. */
  fromTurn?: string;
  /** The MCP response it came from (through the call that `fromTurn` joined). */
  mcpResult?: McpRef;
  /** Bytes of the result as the model got it. */
  bytes: number;
  isError?: boolean;
  /** Whether it carries what the server answered: `same`, `changed` (the client reshaped or cut it: `note` says how), or not compared. */
  compared?: 'same' | 'changed';
  note?: string;
}

/** What the tools (and the servers' instructions) cost this request, per MCP server. */
export interface ContextServerCost {
  /** The MCP server as the client names it (`se` of `mcp__se__echo`); `(built-in)` for the client's own tools. */
  server: string;
  tools: number;
  bytes: number;
  /** Estimated tokens of its tools' descriptions and schemas (context.encoding). */
  tokens: number;
  descriptionTokens: number;
  schemaTokens: number;
  /** Estimated tokens of its `instructions`, when the client put them in the system prompt. */
  instructionsTokens?: number;
  /** tokens (+ instructionsTokens) over the request's real `totalInputTokens`, 0..1, when the API reported it. */
  share?: number;
  /** The MCP session it was joined to, once a call joined it. */
  sessionId?: string;
}

export interface ContextCost {
  /** The tokenizer of the estimates, e.g. `o200k_base (js-tiktoken)`: an estimate for every provider but OpenAI's. */
  encoding: string;
  /** Bytes of the whole request body, and of its tool definitions. */
  requestBytes: number;
  toolsBytes: number;
  toolsTokens: number;
  /** Largest first. */
  servers: ContextServerCost[];
}

export interface ModelTurnInfo {
  id: string;
  /** The plain HTTP exchange that carried it, and that exchange's session (the `http` bucket of the API's origin). */
  exchangeId: string;
  sessionId: string;
  api: ModelApi;
  client: AgentClient;
  /**
   * Which agent (one client process's conversation): `claude-code:<x-claude-code-session-id>`,
   * else the client's user agent and the proxy port it came through. Joins stay within one agent.
   */
  agent: string;
  /** `POST …/v1/messages` etc., path only (its query redacted). */
  endpoint: string;
  /** The model the request asked for. */
  model?: string;
  /** The model the response named, when it named one (Anthropic `message_start.message.model`, OpenAI `model`, Gemini `modelVersion`): often a dated version of `model`. */
  responseModel?: string;
  stream: boolean;
  startedAt: number;
  /** When the response head came, its first content token (time to first token = firstTokenAt - startedAt), and its end. */
  respondedAt?: number;
  firstTokenAt?: number;
  endedAt?: number;
  /** `pending` until the response ends; `cut` when it broke off; `error` for an API error answer. */
  status: 'pending' | 'done' | 'cut' | 'error';
  /** An API error's type and message (redacted, bounded), or what broke. */
  error?: string;
  stopReason?: string;
  usage?: ModelUsage;
  /** The request: system prompt (bounded), tool choice, output limit, how many messages it carried. */
  system?: TranscriptEntry;
  toolChoice?: string;
  maxTokens?: number;
  messageCount: number;
  /** The request's messages from `messagesFrom` on: the ones the agent's previous turn had not sent (the whole list for a first turn). */
  messagesFrom: number;
  messages: TranscriptEntry[];
  tools: ToolOffered[];
  /** The response: text, thinking and tool uses in order. */
  output: TranscriptEntry[];
  toolCalls: ModelToolCall[];
  toolResults: ModelToolResult[];
  context?: ContextCost;
  hints: Hint[];
}

export interface ModelTurnEvent {
  type: 'model-turn';
  seq: number;
  ts: number;
  /** The turn's session (the `http` bucket of the model API's origin). */
  sessionId: string;
  turn: ModelTurnInfo;
}

/** On an MCP `tools/call` request (and its response): the model turn and call that asked for it. */
export interface ModelCallLink {
  turn: string;
  callId: string;
  /** The name the model used (`mcp__se__echo`). */
  name: string;
}
