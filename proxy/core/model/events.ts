/**
 * The one typed event schema of mcpscope.
 *
 * Everything the recorder learns about the traffic becomes one of these events, in wire order,
 * each with a global, strictly increasing `seq`. The store keeps them, the WebSocket feed
 * streams them, NDJSON export writes them one per line, and the UI reduces them into its view.
 * Proxy and UI both import this module: it must stay free of Node-only imports.
 *
 * Events are append-only facts. Objects that evolve (a session, an HTTP exchange, a model turn) are
 * sent again in full on every change (`session`, `exchange`, `model-turn` events are upserts keyed
 * by `id`); messages never
 * change after they are emitted — a response points back at its request with `pair`, so the
 * request never needs to be rewritten.
 *
 * Documented in docs/event-schema.md — keep the two in step.
 */

import type { ModelCallLink, ModelTurnEvent } from './model-turn.js';

export type * from './model-turn.js';

export const EVENT_SCHEMA_VERSION = 1;

/** Who sent a frame: client→server or server→client. */
export type Direction = 'c2s' | 's2c';

/** JSON-RPC message kinds. A batch is split into its members, each its own message. */
export type MessageKind = 'request' | 'notification' | 'response' | 'error';

/**
 * How a session talks. `http` is not MCP: the bucket that groups the plain HTTP exchanges (OAuth,
 * `/.well-known/` metadata, any other non-JSON-RPC HTTP) sent to one origin; it counts exchanges
 * only — no messages, requests or errors.
 */
export type TransportKind = 'streamable-http' | 'legacy-sse' | 'stdio' | 'http';

/**
 * What carried a frame on the wire:
 * - `post-body`: the body of a client POST (requests, notifications, responses to the server);
 * - `post-json`: an `application/json` answer to a POST;
 * - `post-sse`: an SSE stream answering a POST;
 * - `get-sse`: the standalone GET stream of Streamable HTTP (also a resumed stream);
 * - `legacy-sse`: the long-lived GET stream of the 2024-11-05 HTTP+SSE transport;
 * - `stdio`: a line on a stdio process's stdin/stdout.
 */
export type Carrier = 'post-body' | 'post-json' | 'post-sse' | 'get-sse' | 'legacy-sse' | 'stdio';

/** A JSON-RPC id, kept with its type: `1` and `"1"` are different ids. */
export type JsonRpcId = string | number | null;

/** A short plain-language explanation attached to a message, an exchange or a session. */
export interface Hint {
  /** `info`: what this means; `warn`: suspicious or unusual; `error`: a protocol mistake or failure. */
  level: 'info' | 'warn' | 'error';
  /** Stable machine code, e.g. `accepted-202`, `duplicate-id`, `session-assigned`. */
  code: string;
  /** One or two sentences for a person. */
  text: string;
}

export interface PeerInfo {
  name: string;
  version?: string;
  title?: string;
}

export interface SessionCounts {
  messages: number;
  requests: number;
  /** Requests that have no response yet (and did not fail at the HTTP level: `failed`). */
  pending: number;
  /**
   * Requests answered by HTTP alone: a status of 400 or more and no JSON-RPC answer to them (a 401
   * challenge, a 400 "Server not initialized"), or no response at all (proxy/core/model/call-state.ts).
   * Present once there is one.
   */
  failed?: number;
  /** JSON-RPC errors, tool results with isError, protocol mistakes and parse errors. */
  errors: number;
  exchanges: number;
  /** Spec violations found by the linter (`problem` events with `code: "spec-violation"`); absent with `--lint off`. */
  violations?: number;
}

export interface SessionInfo {
  /** mcpscope's own id for the session (`s1`, `s2`, …): stable, never a secret. */
  id: string;
  transport: TransportKind;
  /** The upstream this session talks to: a URL, or a command line for stdio. */
  target: string;
  /** Its name, when several upstreams are proxied into one UI (`--target name=url`). */
  targetName?: string;
  /** The `Mcp-Session-Id` the server assigned (Streamable HTTP), shown as-is unless hashed by configuration. */
  mcpSessionId?: string;
  /** Legacy HTTP+SSE: the endpoint the client posts to, as the client sees it (through the proxy). */
  endpoint?: string;
  /** Stateless traffic (no session id): how requests were grouped into this session. */
  grouping?: string;
  protocolVersion?: string;
  clientInfo?: PeerInfo;
  serverInfo?: PeerInfo;
  clientCapabilities?: Record<string, unknown>;
  serverCapabilities?: Record<string, unknown>;
  instructions?: string;
  startedAt: number;
  endedAt?: number;
  status: 'open' | 'closed';
  /** Why it closed: `deleted` (HTTP DELETE), `stream-closed`, `expired` (404), `process-exited`, … */
  closeReason?: string;
  counts: SessionCounts;
}

/** One HTTP request/response pair through the proxy (or a stdio process's lifetime). */
export interface ExchangeInfo {
  id: string;
  sessionId?: string;
  method: string;
  /** The path and query as the client sent it. */
  url: string;
  /** The upstream URL the request was forwarded to. */
  upstreamUrl?: string;
  requestHeaders: Record<string, string | string[]>;
  status?: number;
  responseHeaders?: Record<string, string | string[]>;
  /** How the response body is carried, once known. */
  carrier?: Carrier;
  /** Request body content type / response content type (lower-cased, parameters dropped). */
  requestType?: string;
  responseType?: string;
  startedAt: number;
  /** When the response head arrived. */
  respondedAt?: number;
  endedAt?: number;
  requestBytes: number;
  responseBytes: number;
  /** `client`: the client went away mid-response; `upstream`: the upstream closed or reset; `proxy`: we failed. */
  aborted?: 'client' | 'upstream' | 'proxy';
  /** A failure of the exchange itself (upstream unreachable, reset) in plain words. */
  error?: string;
  /**
   * 2026-07-28: seqs of the requests this exchange carried that were still pending when the client
   * closed the response stream, which cancels them (the protocol's cancellation on Streamable HTTP).
   */
  cancels?: number[];
  /** A `subscriptions/listen` stream: seq of the listen request, and `listenEnded` once the stream ended. */
  listen?: number;
  listenEnded?: 'client' | 'server' | 'upstream';
  /** Resumption: the exchange whose stream this one resumes (matched by Last-Event-ID). */
  resumes?: string;
  lastEventId?: string;
  /** The body was too large to keep in full: only a prefix was parsed. */
  truncated?: boolean;
  /**
   * A JSON/opaque body past the parse limit (`--max-body`): which one it was, its full size on the
   * wire and the SHA-256 (hex) of all its bytes, so that what the peer received can be checked
   * although only a prefix is kept. (The response's when both were.)
   */
  truncatedBody?: 'request' | 'response';
  bodyBytes?: number;
  bodySha256?: string;
  /** A body that carried no JSON-RPC (an OAuth form, an HTML error page, "Accepted"): its first bytes, redacted. */
  requestPreview?: string;
  responsePreview?: string;
  /**
   * Plain HTTP, not MCP (OAuth, `/.well-known/` metadata, any other HTTP): its bodies were kept as
   * redacted previews, never parsed as JSON-RPC, and its session is the `http` bucket of its
   * origin. See docs/event-schema.md for the rule that decides.
   */
  plain?: boolean;
  /**
   * mcpscope sent this request itself (it carries the `x-mcpscope-origin` header): a resend or a
   * tool called from the UI (`send`), or a user's answer to a server's request held at a
   * breakpoint (`respond`). Its messages carry `sentBy`.
   */
  sentBy?: 'send' | 'respond';
  hints: Hint[];
}

/** Where inside a stream a frame sat. */
export interface FrameLocation {
  /** Byte offset of the frame's first byte within its body (after any content decoding). */
  offset: number;
  /** Byte length of the raw frame (for SSE: the whole event including field names and line ends). */
  length: number;
  /** SSE only. */
  eventId?: string;
  eventType?: string;
}

export interface JsonRpcErrorInfo {
  code: number;
  message: string;
  /** What the code means, e.g. "Method not found: the receiver does not implement this method". */
  meaning?: string;
}

export interface ProgressInfo {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * 2026-07-28 multi round-trip: one attempt of a request that the server answered with
 * `resultType: "input_required"`, retried by the client under a new id with the `requestState`.
 */
export interface ChainLink {
  /** seq of the first attempt's request (the chain's id). */
  root: number;
  /** A retry request: seq of the previous attempt's request. Absent on the first attempt. */
  prev?: number;
  /** 1 for the first attempt, 2 for the first retry, … (copied onto the attempt's response). */
  attempt: number;
  /** Responses only: `input-required` (the chain continues with a retry) or `final` (the chain ends here). */
  step?: 'input-required' | 'final';
}

/** 2025-11-25 tasks: the task a message belongs to. */
export interface TaskLink {
  /** The task id the receiver assigned (`CreateTaskResult.task.taskId`). */
  id: string;
  /** seq of the task-augmented request that created the task; absent when its creation was not seen. */
  origin?: number;
}

export interface MessageEvent {
  type: 'message';
  seq: number;
  ts: number;
  sessionId: string;
  exchangeId?: string;
  dir: Direction;
  kind: MessageKind;
  carrier: Carrier;
  /** The parsed message (secrets redacted). */
  jsonrpc: unknown;
  /** Exact frame text when it differs from nothing but whitespace; omitted when redaction changed it or when too large. */
  raw?: string;
  /** Byte size of the frame on the wire (the JSON text; for a batch member, its share of the batch). */
  size: number;
  /** Set when the payload was too large to keep: `jsonrpc` is a stub, `raw` a prefix. */
  truncated?: boolean;
  /**
   * Feed only: the payload is large, so the feed sent a stub in `jsonrpc` (method, id, and a note)
   * and no `raw`. The full message is at `GET /api/messages/:seq`.
   */
  elided?: boolean;
  id?: JsonRpcId;
  method?: string;
  /** Tool, prompt or resource the request is about (for a response: copied from its request). */
  name?: string;
  /** Response/error: seq of its request. Progress: seq of the request owning the token. Cancellation: seq of the cancelled request. */
  pair?: number;
  /** Response/error: time since its request was seen, in ms. */
  latencyMs?: number;
  /** A server→client request (or its notifications) that rode on a POST's SSE stream: seq of that POST's request. */
  parent?: number;
  progressToken?: string | number;
  progress?: ProgressInfo;
  error?: JsonRpcErrorInfo;
  /** A tool result with `isError: true`. */
  isError?: boolean;
  /** Position in a JSON-RPC batch. */
  batch?: { index: number; size: number };
  location?: FrameLocation;
  /** A replayed copy (resumption) of the message with this seq: not counted again in correlation. */
  replayOf?: number;
  /** 2026-07-28 `input_required` retry chain this request or response is part of. */
  chain?: ChainLink;
  /** 2025-11-25 task this message belongs to (task handle, `tasks/*`, status, related-task, progress). */
  task?: TaskLink;
  /** Edited at a breakpoint: this is the message as sent; the seq of the `modification` event holding the original. */
  edited?: number;
  /** Sent by mcpscope itself (a resend, a tool called from the UI, an answer given at a breakpoint), not by the client. */
  sentBy?: 'mcpscope';
  /** A `tools/call` (and its response) that carried out a tool call a model turn chose (docs/agent-view.md). */
  modelCall?: ModelCallLink;
  hints: Hint[];
}

/** An SSE event that carried no JSON-RPC message: the priming event, a comment/keep-alive, `retry`, a non-JSON data event. */
export interface SseFrameEvent {
  type: 'sse';
  seq: number;
  ts: number;
  sessionId?: string;
  exchangeId: string;
  /** `comment`, `priming` (id/retry with empty data), `endpoint` (legacy endpoint event), `other`. */
  what: 'comment' | 'priming' | 'endpoint' | 'other';
  raw: string;
  eventType?: string;
  eventId?: string;
  retry?: number;
  data?: string;
  comment?: string;
  location: FrameLocation;
  hints: Hint[];
}

/** Something went wrong that is not a JSON-RPC message: unparseable frame, truncated stream, upstream down. */
export interface ProblemEvent {
  type: 'problem';
  seq: number;
  ts: number;
  sessionId?: string;
  exchangeId?: string;
  level: 'warn' | 'error';
  /** e.g. `invalid-json`, `not-jsonrpc`, `truncated-stream`, `upstream-unreachable`, `upstream-reset`, `proxy-failed`, `capture-overflow`. */
  code: string;
  text: string;
  /** The offending bytes (a bounded prefix), when there are any. */
  raw?: string;
  location?: FrameLocation;
  // Spec linting, `code: "spec-violation"` (and its notes, `code: "lint-not-checked"`: what it could not check) only:
  /** The rule broken: a stable id, e.g. `schema/tools-call-result`, `lifecycle/request-before-initialized`. */
  rule?: string;
  /** Where the rule comes from: the specification version and section, e.g. `2025-06-18 basic/lifecycle#operation`. */
  specRef?: string;
  /** The seq of the message that broke it. */
  message?: number;
  /** Where in that message (a JSON pointer, `/params/arguments/count`), when it is one part of it. */
  path?: string;
  /** What was expected there, in plain words. */
  expected?: string;
}

/** Something the proxy changed on the wire, with before and after. */
export interface ModificationEvent {
  type: 'modification';
  seq: number;
  ts: number;
  sessionId?: string;
  /** The HTTP exchange changed; absent for a stdio session's (stdio has no exchanges: a breakpoint's change to a line). */
  exchangeId?: string;
  /** `endpoint-rewrite`, `oauth-metadata-rewrite`, `location-rewrite`, `fault-injection`, … */
  what: string;
  before: string;
  after: string;
  text: string;
  /**
   * Breakpoints: the held message this modification acted on (its `pausedId`). For an edit,
   * `before` is the original message and the message event that follows carries `edited`.
   */
  pausedId?: string;
}

/**
 * Breakpoints: a message held at a breakpoint (`held`), and later how it went on
 * (`released`, with `outcome`). Two facts per held message; the UI counts those still held.
 */
export interface PausedEvent {
  type: 'paused';
  seq: number;
  ts: number;
  /** The held message's id (`/api/paused/:id`). */
  pausedId: string;
  state: 'held' | 'released';
  /** `released` only: resumed unchanged, sent edited, dropped, answered by the user, released by its time limit, or gone (its stream or client went away). */
  outcome?: 'resumed' | 'edited' | 'dropped' | 'responded' | 'timed-out' | 'gone';
  sessionId?: string;
  exchangeId?: string;
  dir: Direction;
  carrier: Carrier;
  kind: MessageKind | 'batch';
  method?: string;
  name?: string;
  /** The rule that held it. */
  rule: string;
  since: number;
  /** When it resumes by itself, unchanged. */
  expiresAt: number;
  /** The held message, redacted and bounded (8 KiB). The API (`GET /api/paused`) gives it as it came, to edit. */
  preview?: string;
}

export interface SessionEvent {
  type: 'session';
  seq: number;
  ts: number;
  session: SessionInfo;
}

export interface ExchangeEvent {
  type: 'exchange';
  seq: number;
  ts: number;
  exchange: ExchangeInfo;
}

/** A line the upstream process wrote to stderr (stdio), or a note from mcpscope itself. */
export interface LogEvent {
  type: 'log';
  seq: number;
  ts: number;
  sessionId?: string;
  source: 'stderr' | 'mcpscope';
  text: string;
}

export type McpscopeEvent =
  SessionEvent | ExchangeEvent | MessageEvent | SseFrameEvent | ProblemEvent | ModificationEvent | LogEvent | PausedEvent | ModelTurnEvent;

export type McpscopeEventType = McpscopeEvent['type'];

/** An event before the store stamps it with `seq`. */
export type UnsequencedEvent = McpscopeEvent extends infer E ? (E extends { seq: number } ? Omit<E, 'seq'> : never) : never;

/** Messages on the WebSocket feed (server → UI). */
export type FeedMessage =
  | {
      type: 'hello';
      schemaVersion: number;
      version: string;
      /** Whether secrets are shown (the UI shows a banner). */
      showSecrets: boolean;
      /** Random per store (per mcpscope launch): a different one means mcpscope restarted and seqs started over. */
      instance: string;
      /** Events kept by the store; the snapshot that follows holds those with seq > since. */
      firstSeq: number;
      lastSeq: number;
    }
  | { type: 'snapshot'; events: McpscopeEvent[]; done: boolean }
  | { type: 'events'; events: McpscopeEvent[] }
  /** This consumer was too slow: `count` events were not sent to it. Re-fetch from the API to fill the gap. */
  | { type: 'dropped'; count: number; fromSeq: number; toSeq: number }
  | { type: 'cleared' };
