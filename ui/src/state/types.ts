/**
 * The UI's view model: what the store derives from the event feed, and what components render.
 * Contract between the state layer (ui/src/state/*) and the components (ui/src/components/*).
 */
import type {
  Carrier,
  Direction,
  ExchangeInfo,
  LogEvent,
  McpscopeEvent,
  MessageEvent,
  MessageKind,
  ModelTurnInfo,
  ModificationEvent,
  ProblemEvent,
  SessionInfo,
  SseFrameEvent,
} from '../../../proxy/core/model/events.js';
import type { HttpRefusal } from '../../../proxy/core/model/call-state.js';

export type { McpscopeEvent, MessageEvent, SessionInfo, ExchangeInfo, ProblemEvent, SseFrameEvent, ModificationEvent, LogEvent };

/** Status of a call row. */
export type CallStatus = 'pending' | 'ok' | 'error' | 'tool-error' | 'cancelled';

/**
 * One row of the timeline. A request is one row with its response folded in; its progress
 * notifications are inside it; server→client requests and notifications that rode on its POST
 * stream are its children (rendered nested, one level down).
 */
export interface CallRow {
  type: 'call';
  /** Stable key: `c<request seq>`. */
  key: string;
  seq: number;
  sessionId: string;
  dir: Direction;
  request: MessageEvent;
  response?: MessageEvent;
  progress: MessageEvent[];
  cancel?: MessageEvent;
  /** seqs of child rows (server→client requests and notifications under this call). */
  children: string[];
  /** Key of the parent call row, for nested rows. */
  parentKey?: string;
  status: CallStatus;
  /** ms, once answered; for pending rows the UI computes a live timer from request.ts. */
  latencyMs?: number;
  /**
   * The request's exchange answered it by HTTP alone (proxy/core/model/call-state.ts): its status (≥ 400:
   * a 401 challenge, a 400 "Server not initialized"), or `failed` (no response at all), and no
   * JSON-RPC answer came: the call is then `error`, not pending for ever.
   */
  httpStatus?: HttpRefusal;
  /** Bumped whenever the store changes this row in place (rows are mutated, not copied): memoize row components on `(row, row.rev)`. */
  rev?: number;
}

export interface NotificationRow {
  type: 'notification';
  key: string; // `n<seq>`
  seq: number;
  sessionId: string;
  dir: Direction;
  message: MessageEvent;
  parentKey?: string;
  /** Bumped whenever the store changes this row in place (rows are mutated, not copied): memoize row components on `(row, row.rev)`. */
  rev?: number;
}

/** A response that matched no request (or another lone message), shown on its own. */
export interface OrphanRow {
  type: 'orphan';
  key: string; // `o<seq>`
  seq: number;
  sessionId: string;
  dir: Direction;
  message: MessageEvent;
  /** Bumped whenever the store changes this row in place (rows are mutated, not copied): memoize row components on `(row, row.rev)`. */
  rev?: number;
}

export interface ProblemRow {
  type: 'problem';
  key: string; // `p<seq>`
  seq: number;
  sessionId?: string;
  event: ProblemEvent;
  /** Bumped whenever the store changes this row in place (rows are mutated, not copied): memoize row components on `(row, row.rev)`. */
  rev?: number;
}

/**
 * A plain HTTP exchange (OAuth, `/.well-known/` metadata, any other HTTP that is not MCP): one row
 * per exchange, refreshed in place by its upserts. Its session is the `http` bucket of its origin.
 */
export interface HttpRow {
  type: 'http';
  key: string; // `h<exchange id>`
  /** seq of the exchange's first upsert that said it was plain. */
  seq: number;
  sessionId?: string;
  /** Client → server: the request, with its response folded in (as a call row). */
  dir: 'c2s';
  /** The latest upsert. */
  exchange: ExchangeInfo;
  /** Bumped whenever the store changes this row in place (rows are mutated, not copied): memoize row components on `(row, row.rev)`. */
  rev?: number;
}

/**
 * A line a wrapped stdio server wrote to stderr (a `log` event with `source: 'stderr'`), shown in
 * its session's timeline. Not a message: no direction, no method.
 */
export interface LogRow {
  type: 'log';
  key: string; // `l<seq>`
  seq: number;
  sessionId?: string;
  event: LogEvent;
  /** Bumped whenever the store changes this row in place (rows are mutated, not copied): memoize row components on `(row, row.rev)`. */
  rev?: number;
}

/**
 * A model turn: one call of a client to its model API, shown from its latest upsert
 * (ui/src/state/model-turns.ts). It takes the place of its exchange's plain HTTP row.
 */
export interface TurnRow {
  type: 'turn';
  key: string; // `t<turn id>`
  /** seq of the turn's first upsert, or of the plain HTTP row of its exchange it took the place of. */
  seq: number;
  sessionId: string;
  /** The client asked its model API: client → server. */
  dir: 'c2s';
  /** The latest upsert. */
  turn: ModelTurnInfo;
  /** Bumped whenever the store changes this row in place (rows are mutated, not copied): memoize row components on `(row, row.rev)`. */
  rev?: number;
}

export type Row = CallRow | NotificationRow | OrphanRow | ProblemRow | HttpRow | LogRow | TurnRow;

/** What the kind filter picks: a JSON-RPC kind, or `log` (a stdio server's stderr lines). */
export type RowKind = MessageKind | 'log';

export interface Filters {
  /** '' = all sessions. */
  session: string;
  /** Substring match on method (e.g. "tools/"). */
  method: string;
  dir: '' | Direction;
  /** A JSON-RPC kind, or `log`: only a stdio server's stderr lines. */
  kind: '' | RowKind;
  /** Only rows with an error, tool error or protocol problem. */
  errorsOnly: boolean;
  /** Only rows that broke the MCP specification: messages with spec violations, and violations naming no message. */
  violationsOnly?: boolean;
  /** Only calls at least this slow (ms). 0 = off. */
  minLatencyMs: number;
  /** Free text searched across method, name and payload JSON (case-insensitive). */
  text: string;
}

export const EMPTY_FILTERS: Filters = { session: '', method: '', dir: '', kind: '', errorsOnly: false, minLatencyMs: 0, text: '' };

/** A lane of the waterfall: one HTTP stream (POST response stream, GET stream, legacy stream, stdio). */
export interface Lane {
  key: string; // exchange id, or session id for stdio
  sessionId?: string;
  label: string;
  exchange?: ExchangeInfo;
  start: number;
  end?: number;
  /** What the lane's stream is: `post-sse`, `get-sse`, `legacy-sse`, `post-json` (shared lane of JSON answers), `stdio`, or `post-body` (a POST whose answer has not started yet). */
  carrier?: Carrier;
  /** A lane of model turns (one agent's calls to its model API: model-waterfall.ts). */
  model?: boolean;
}

/** Connection state of the feed, shown in the status indicator. */
export type FeedStatus = 'connecting' | 'live' | 'paused' | 'reconnecting' | 'offline';

/** One block of an exchange's SSE response stream (the DevTools EventStream table). */
export interface StreamEntry {
  seq: number;
  ts: number;
  what: 'message' | 'comment' | 'priming' | 'endpoint' | 'other';
  eventId?: string;
  eventType?: string;
  retry?: number;
  /** The data (or comment) of the block, cut to about 200 characters. */
  summary: string;
  /** Byte offset and length of the block in the stream (-1 when the frame carried no location). */
  offset: number;
  length: number;
  /** For `what: 'message'`: the message's seq (see `TimelineStore.message`). */
  messageSeq?: number;
  /** For a message: its JSON-RPC kind and method (handy for the table's data column). */
  kind?: MessageKind;
  method?: string;
  /** A replayed copy (resumed stream) of the message with this seq. */
  replayOf?: number;
}

/** One call drawn on the waterfall. */
export interface Bar {
  /** Row key (`c<seq>`). */
  key: string;
  /** Lane key (see `Lane.key`). */
  lane: string;
  start: number;
  /** Undefined while pending: draw it open-ended up to "now". */
  end?: number;
  status: CallStatus;
  label: string;
  /** 0 for a top-level call, 1 for a server→client request nested under a call. */
  depth: number;
  sessionId: string;
  /** Fraction 0..1 of the latest progress notification with a total, if any. */
  progress?: number;
  /** A model turn's bar: when its first token came (time to first token = mark - start). */
  mark?: number;
  /** A model turn (row key `t<id>`), not an MCP call. */
  model?: boolean;
}

export interface Waterfall {
  lanes: Lane[];
  bars: Bar[];
  /** Earliest start and latest known time across lanes and bars (0 when empty). */
  start: number;
  end: number;
}

export interface StoreStats {
  /** All rows (top-level and nested). */
  rows: number;
  messages: number;
  /** Events kept (every type). */
  events: number;
  /** Feed events the server reported as dropped for this consumer (see FeedMessage `dropped`). */
  dropped: number;
  /** Events fetched from /api/events to fill such gaps (or a pause overflow). */
  refetched: number;
}
