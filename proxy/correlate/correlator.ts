/**
 * JSON-RPC correlation (pure, I/O-free).
 *
 * Fed every message in wire order, it links each one to what it belongs to:
 * - a response/error to its request, keyed by (session, requesting side, typed id): client→server
 *   and server→client ids are separate spaces, and `1` and `"1"` are different ids;
 * - `notifications/progress` to the request that carried the `progressToken` (tokens are per side);
 * - `notifications/cancelled` to the request it cancels (issued by the same side);
 * - a server→client message riding on a POST's SSE stream to that POST's request (its parent);
 * - a message replayed on a resumed stream (same SSE event id) to its first sighting.
 * It also flags protocol mistakes it can see only across messages (duplicate in-flight id,
 * response to an unknown id, a second response, a response after cancellation).
 */
import type { Direction, Hint, JsonRpcId, MessageKind } from '../model/events.js';
import { idKey } from '../parse/jsonrpc.js';
import { progressNotificationTokenOf, progressTokenOf } from '../annotate/message-hints.js';

export interface CorrelateInput {
  sessionId: string;
  dir: Direction;
  kind: MessageKind;
  ts: number;
  id?: JsonRpcId;
  method?: string;
  params?: unknown;
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
  issues: Hint[];
}

interface RequestRecord {
  seq: number;
  ts: number;
  method: string;
  name?: string;
  exchangeId?: string;
  parent?: number;
  state: 'pending' | 'answered' | 'cancelled';
}

interface SessionState {
  /** Requests by `${requesterDir}|${idKey}`: the latest one with that id. */
  requests: Map<string, RequestRecord>;
  /** progress token → request seq, by `${requesterDir}|${tokenKey}`. */
  progress: Map<string, number>;
  /** SSE event id → seq of the message first seen under it. */
  sseEvents: Map<string, number>;
  pending: number;
}

const other = (dir: Direction): Direction => (dir === 'c2s' ? 's2c' : 'c2s');

const hint = (level: Hint['level'], code: string, text: string): Hint => ({ level, code, text });

export class Correlator {
  private sessions = new Map<string, SessionState>();
  /** exchange id → seq of the (single) request its POST body carried. */
  private streamParents = new Map<string, number>();

  private state(sessionId: string): SessionState {
    let s = this.sessions.get(sessionId);
    if (!s) {
      s = { requests: new Map(), progress: new Map(), sseEvents: new Map(), pending: 0 };
      this.sessions.set(sessionId, s);
    }
    return s;
  }

  /** Messages on this exchange's response stream belong under this request (the POST that opened it). */
  setStreamParent(exchangeId: string, requestSeq: number): void {
    this.streamParents.set(exchangeId, requestSeq);
  }

  streamParent(exchangeId: string | undefined): number | undefined {
    return exchangeId === undefined ? undefined : this.streamParents.get(exchangeId);
  }

  forgetExchange(exchangeId: string): void {
    this.streamParents.delete(exchangeId);
  }

  /** How many requests of the session still wait for a response. */
  pendingCount(sessionId: string): number {
    return this.sessions.get(sessionId)?.pending ?? 0;
  }

  /** Drops a session's state (its requests can no longer be answered). Returns how many were left pending. */
  closeSession(sessionId: string): number {
    const s = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    return s?.pending ?? 0;
  }

  /** Correlates one message, whose seq the caller has already assigned. */
  observe(seq: number, m: CorrelateInput): Correlation {
    const s = this.state(m.sessionId);
    const issues: Hint[] = [];
    const out: Correlation = { issues };

    if (m.sseEventId !== undefined && m.sseEventId !== '') {
      // A batch's members share one event id: key each by its position (NUL never occurs in an SSE id).
      const eventKey = m.batchIndex ? `${m.sseEventId}\u0000${m.batchIndex}` : m.sseEventId;
      const first = s.sseEvents.get(eventKey);
      if (first !== undefined) {
        out.replayOf = first;
        issues.push(hint('info', 'replayed', `Replayed after a reconnect (SSE event id ${m.sseEventId}); first seen as #${first}.`));
        return out;
      }
      s.sseEvents.set(eventKey, seq);
    }

    // Server→client requests and notifications riding on a POST's SSE stream belong under that
    // POST's request. (A response's place is given by `pair`; its parent is its request's.)
    if (m.dir === 's2c' && (m.kind === 'request' || m.kind === 'notification')) {
      out.parent = this.streamParent(m.exchangeId);
    }

    switch (m.kind) {
      case 'request': {
        // A request without a usable id can never be answered by id: nothing to track.
        if (m.id === null || m.id === undefined) break;
        const key = `${m.dir}|${idKey(m.id)}`;
        const prev = s.requests.get(key);
        if (prev && prev.state === 'pending') {
          issues.push(
            hint('error', 'duplicate-id', `Request id ${JSON.stringify(m.id)} is already in flight (#${prev.seq}, ${prev.method}): ids must be unique per sender while a request is pending.`),
          );
        } else {
          s.pending += 1;
        }
        s.requests.set(key, { seq, ts: m.ts, method: m.method ?? '', name: m.name, exchangeId: m.exchangeId, parent: out.parent, state: 'pending' });
        const token = progressTokenOf(m.params);
        if (token !== undefined) {
          out.progressToken = token;
          s.progress.set(`${m.dir}|${idKey(token)}`, seq);
        }
        break;
      }
      case 'response':
      case 'error': {
        if (m.id === null || m.id === undefined) {
          if (m.kind === 'error') {
            issues.push(hint('warn', 'error-without-id', 'An error with id null answers a request that could not be read (parse error or invalid request), so it cannot be paired.'));
          }
          break;
        }
        const req = s.requests.get(`${other(m.dir)}|${idKey(m.id)}`);
        if (!req) {
          issues.push(
            hint('error', 'unknown-id', `Response to id ${JSON.stringify(m.id)}, but no ${m.dir === 's2c' ? 'client' : 'server'} request with that id (and that type) was seen in this session.`),
          );
          break;
        }
        out.pair = req.seq;
        out.latencyMs = Math.max(0, m.ts - req.ts);
        out.requestMethod = req.method;
        out.name = req.name;
        if (req.state === 'answered') {
          issues.push(hint('error', 'duplicate-response', `Request #${req.seq} (${req.method}) was already answered: a request gets exactly one response.`));
        } else {
          if (req.state === 'cancelled') {
            issues.push(hint('info', 'answered-after-cancel', `This answers a request that was cancelled (#${req.seq}); the receiver may ignore it.`));
          } else {
            s.pending -= 1;
          }
          req.state = 'answered';
        }
        // The answer to a server→client request belongs under the same parent as the request.
        if (req.parent !== undefined && out.parent === undefined) out.parent = req.parent;
        break;
      }
      case 'notification': {
        if (m.method === 'notifications/progress') {
          const token = progressNotificationTokenOf(m.params);
          if (token !== undefined) {
            out.progressToken = token;
            // Progress flows opposite to the request that asked for it.
            const owner = s.progress.get(`${other(m.dir)}|${idKey(token)}`);
            if (owner !== undefined) out.pair = owner;
            else issues.push(hint('warn', 'unknown-progress-token', `Progress for token ${JSON.stringify(token)}, which no request in this session carried.`));
          }
        } else if (m.method === 'notifications/cancelled') {
          const requestId = (m.params as { requestId?: unknown } | undefined)?.requestId;
          if (typeof requestId === 'string' || typeof requestId === 'number') {
            // A side cancels its own request.
            const req = s.requests.get(`${m.dir}|${idKey(requestId)}`);
            if (req) {
              out.pair = req.seq;
              out.name = req.name;
              if (req.state === 'pending') {
                req.state = 'cancelled';
                s.pending -= 1;
              }
            } else {
              issues.push(hint('warn', 'cancel-unknown', `Cancels request id ${JSON.stringify(requestId)}, which this side never sent in this session.`));
            }
          }
        }
        break;
      }
    }
    return out;
  }
}
