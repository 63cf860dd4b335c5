/** What the correlator (correlator.ts) is fed per message, and what it says of it. */
import type { ChainLink, Direction, Hint, JsonRpcId, MessageKind, TaskLink } from '../model/events.js';

export interface CorrelateInput {
  sessionId: string;
  dir: Direction;
  kind: MessageKind;
  ts: number;
  id?: JsonRpcId;
  method?: string;
  params?: unknown;
  /** A response's `result` (input_required, CreateTaskResult, related-task `_meta`). */
  result?: unknown;
  /** Tool/prompt/resource name of a request. */
  name?: string;
  exchangeId?: string;
  /** SSE event id the message arrived under, for resumption de-duplication. */
  sseEventId?: string;
  /** Position in a JSON-RPC batch: members of one batch share their SSE event id. */
  batchIndex?: number;
}

export interface Correlation {
  pair?: number;
  latencyMs?: number;
  parent?: number;
  /** For a response: the method and name of its request. */
  requestMethod?: string;
  name?: string;
  progressToken?: string | number;
  replayOf?: number;
  chain?: ChainLink;
  task?: TaskLink;
  /** This answer came to a request that had failed at the HTTP level (failByHttp): it is no longer failed. */
  answersFailed?: boolean;
  issues: Hint[];
}
