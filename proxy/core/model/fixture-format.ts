/**
 * The mcpscope fixture format, version 1: one captured MCP session as a self-contained JSON
 * document that can be replayed as a mock server, verified against a live server, or loaded in
 * tests. Specified for people in docs/fixture-format.md and for machines in
 * docs/fixture.schema.json; keep all three in step.
 *
 * Design: the JSON-RPC messages are a flat list in wire order (the truth), each with the links
 * the correlator found (`pair`, `parent`). The HTTP layer (one entry per HTTP exchange) is kept
 * beside it and referenced by id, so a stdio session simply has none. Times are milliseconds
 * since the session started, so fixtures diff cleanly. Secrets are redacted on export.
 *
 * Versioning: within version 1 only optional fields are added; readers ignore fields they do not
 * know. Removing or renaming a field, or changing what one means, makes version 2.
 */
import type { Carrier, Direction, JsonRpcId, MessageKind, ModelCallLink, ModelTurnInfo, PeerInfo, TransportKind } from './events.js';

export const FIXTURE_FORMAT = 'mcpscope-fixture';
export const FIXTURE_VERSION = 1;

export interface Fixture {
  format: typeof FIXTURE_FORMAT;
  version: typeof FIXTURE_VERSION;
  /** "mcpscope 0.1.0" */
  generator: string;
  /** ISO 8601 time of export. */
  exportedAt: string;
  session: FixtureSession;
  /** HTTP exchanges in the order they started (empty for stdio). */
  exchanges: FixtureExchange[];
  /** Every JSON-RPC message in wire order. */
  messages: FixtureMessage[];
  /** Things the proxy changed on the wire (endpoint rewrites…), for the record. */
  modifications?: FixtureModification[];
  /** Problems recorded in the session (malformed frames, truncated streams…). */
  problems?: FixtureProblem[];
  /** The model turns of a model API's session (its `http` bucket), latest state, in the order they started. Replay and verify ignore them. */
  modelTurns?: FixtureModelTurn[];
  /** Settings for `mcpscope verify` kept with the recording; written by people, never by the exporter. */
  verify?: FixtureVerifySettings;
}

export interface FixtureVerifySettings {
  /**
   * Differences `mcpscope verify` does not count, for values that change on every run
   * (timestamps, random output): `[<call> › ]<path>` as verify prints them, e.g.
   * `tools/call random_delay › content[0].text` (docs/testing-with-fixtures.md#ignoring-volatile-values).
   */
  ignore?: string[];
}

export interface FixtureSession {
  /** mcpscope's id of the session when it was recorded (`s1`); informational. */
  id?: string;
  transport: TransportKind;
  /** The upstream URL or command (redacted). */
  target: string;
  protocolVersion?: string;
  clientInfo?: PeerInfo;
  serverInfo?: PeerInfo;
  clientCapabilities?: Record<string, unknown>;
  serverCapabilities?: Record<string, unknown>;
  instructions?: string;
  /** Epoch ms of the session's first byte; every `t` below is relative to it. */
  startedAt: number;
  durationMs?: number;
  closeReason?: string;
}

/** An SSE block of a response stream that carried no JSON-RPC message. */
export interface FixtureSseFrame {
  t: number;
  /** `comment` (keep-alive), `priming` (id/retry, empty data), `endpoint` (legacy handshake), `other` (a custom event type). */
  what: 'comment' | 'priming' | 'endpoint' | 'other';
  eventId?: string;
  /** The `event:` field, when the block had one. */
  eventType?: string;
  retry?: number;
  data?: string;
  /** Comment text (without the leading `:`). */
  comment?: string;
}

export interface FixtureExchange {
  /** Exchange id as recorded (`x12`). */
  id: string;
  t: number;
  /** Request start → response head, in ms. */
  waitMs?: number;
  /** Request start → end of the response body, in ms. */
  durationMs?: number;
  method: string;
  /** Path and query as the client sent them (redacted). */
  url: string;
  /** The URL the proxy forwarded the request to (redacted). */
  upstreamUrl?: string;
  status?: number;
  carrier?: Carrier;
  requestHeaders: Record<string, string | string[]>;
  responseHeaders?: Record<string, string | string[]>;
  /** Body bytes on the wire (as sent, before any content decoding). */
  requestBytes?: number;
  responseBytes?: number;
  /** Body of a response that carried no JSON-RPC (e.g. "Accepted"), first 4 KiB. */
  responsePreview?: string;
  requestPreview?: string;
  /** Legacy SSE endpoint announced on this stream. */
  endpoint?: string;
  /** SSE blocks that carried no message (priming, keep-alive, retry), for fidelity. */
  sse?: FixtureSseFrame[];
  resumes?: string;
  lastEventId?: string;
  aborted?: 'client' | 'upstream' | 'proxy';
  error?: string;
  /** A body was too large to keep in full: only a prefix was parsed. */
  truncated?: boolean;
}

export interface FixtureMessage {
  /** Recorded seq (wire order; not contiguous). */
  seq: number;
  t: number;
  dir: Direction;
  kind: MessageKind;
  carrier: Carrier;
  exchange?: string;
  /** SSE event id it arrived under. */
  eventId?: string;
  /** The JSON-RPC message itself (redacted). */
  message: Record<string, unknown>;
  /** Convenience copies: the JSON-RPC id, the method (a response's is its request's) and the tool/prompt/resource name. */
  id?: JsonRpcId;
  method?: string;
  name?: string;
  /** Response/error → its request's seq; progress → the request owning the token; cancellation → the cancelled request. */
  pair?: number;
  /** Server→client request/notification on a POST stream → that POST's request seq. */
  parent?: number;
  latencyMs?: number;
  /** Member of a JSON-RPC batch: its position and the batch size. */
  batch?: { index: number; size: number };
  /** Replayed copy (resumption) of this seq. Replays skip these. */
  replayOf?: number;
  /** A `tools/call` that carried out a tool call a model turn chose (the turn is in its model API's session). */
  modelCall?: ModelCallLink;
}

/**
 * A model turn (proxy/core/model/model-turn.ts) as the fixture keeps it: its times relative to the
 * session's start like everything else (`t` = startedAt), its session implied. Links to MCP
 * messages (`mcpCall`, `mcpResult`: another session's seqs) are kept for the record; a reader
 * of this one fixture drops them, the messages not being there.
 */
export interface FixtureModelTurn extends Omit<ModelTurnInfo, 'sessionId' | 'startedAt' | 'respondedAt' | 'firstTokenAt' | 'endedAt'> {
  t: number;
  /** Request start → response head, first content token, end of the response, in ms. */
  waitMs?: number;
  firstTokenMs?: number;
  durationMs?: number;
}

export interface FixtureModification {
  t?: number;
  exchange?: string;
  what: string;
  before: string;
  after: string;
  text?: string;
}

export interface FixtureProblem {
  t: number;
  exchange?: string;
  level?: 'warn' | 'error';
  code: string;
  text: string;
  // A spec violation (`code: "spec-violation"`, docs/spec-lint.md): the rule, where it comes from, the message's seq, where in it, what was expected.
  rule?: string;
  specRef?: string;
  message?: number;
  path?: string;
  expected?: string;
}
