/**
 * JSON-RPC correlation (pure, I/O-free).
 *
 * Fed every message in wire order, it links each one to what it belongs to:
 * - a response/error to its request, keyed by (session, requesting side, typed id): client→server
 *   and server→client ids are separate spaces, and `1` and `"1"` are different ids;
 * - `notifications/progress` to the request that carried the `progressToken` (tokens are per side);
 * - `notifications/cancelled` to the request it cancels (issued by the same side);
 * - a server→client message riding on a POST's SSE stream to that POST's request (its parent);
 * - a message replayed on a resumed stream (same SSE event id) to its first sighting;
 * - (2026-07-28) a retry to the attempt whose `input_required` result handed out the
 *   `requestState` it echoes in `params.requestState`: one chain per original request;
 * - (2026-07-28) a notification carrying `_meta["io.modelcontextprotocol/subscriptionId"]` to its
 *   `subscriptions/listen` request; a request whose response stream the client closed is cancelled;
 * - (2025-11-25 tasks) `tasks/get|result|cancel`, `notifications/tasks/status` and anything tagged
 *   `_meta["io.modelcontextprotocol/related-task"]` to the request whose `CreateTaskResult` named
 *   the task; progress on a task keeps its token (tokens are never forgotten after the response).
 * It also flags protocol mistakes it can see only across messages (duplicate in-flight id,
 * response to an unknown id, a second response, a response after cancellation).
 */
import type { Direction, Hint, TaskLink } from '../model/events.js';
import type { CorrelateInput, Correlation } from './correlation-types.js';
import { idKey } from '../parse/jsonrpc.js';
import { progressNotificationTokenOf, progressTokenOf } from '../parse/mcp-fields.js';

export type { CorrelateInput, Correlation } from './correlation-types.js';

interface RequestRecord {
  seq: number;
  ts: number;
  method: string;
  name?: string;
  exchangeId?: string;
  parent?: number;
  /** `failed`: answered by HTTP alone (failByHttp); an answer may still come on another stream. */
  state: 'pending' | 'answered' | 'cancelled' | 'failed';
  /** The request's place in an input_required retry chain (set on the first input_required answer of a first attempt). */
  chain?: { root: number; prev?: number; attempt: number };
  /** The task a `tasks/*` request (or a related-task request) is about. */
  task?: TaskLink;
  /** The request asked to run as a task (`params.task`). */
  taskAugmented?: boolean;
  /** The side that sent the request. */
  requester: Direction;
}

/** An input_required answer waiting for its retry. */
interface OpenChain {
  root: number;
  /** seq of the attempt that got the input_required answer. */
  prev: number;
  attempt: number;
  method: string;
  name?: string;
}

/** Bounds on per-session maps that grow with traffic (oldest entries go first). */
const MAX_OPEN_CHAINS = 1000;
const MAX_TASKS = 5000;

interface SessionState {
  /** Requests by `${requesterDir}|${idKey}`: the latest one with that id. */
  requests: Map<string, RequestRecord>;
  /**
   * Requests by `${exchangeId}|${requesterDir}|${idKey}`: a response on the exchange that carried its
   * request (a Streamable HTTP POST's answer) pairs with that one, whatever came later with the same
   * id — two clients of one name in a session of a server that assigns no session id both count from 0.
   * Bounded (MAX_BY_EXCHANGE, oldest first); an entry goes when its request is answered.
   */
  byExchange: Map<string, RequestRecord>;
  /** progress token → request seq, by `${requesterDir}|${tokenKey}`. */
  progress: Map<string, number>;
  /** SSE event id → seq of the message first seen under it. */
  sseEvents: Map<string, number>;
  /** input_required answers awaiting a retry: by `requestState`, or (none given) by `~method|name`. */
  chains: Map<string, OpenChain>;
  /** task id → the task and who requested it. */
  tasks: Map<string, { link: TaskLink; requester: Direction }>;
  /** progress-token owner seq → task it created (progress after the CreateTaskResult). */
  taskOfRequest: Map<number, TaskLink>;
  /** Requests still pending, by seq (for cancellation by stream close). */
  pendingBySeq: Map<number, RequestRecord>;
  pending: number;
}

/** Requests kept by exchange per session at most (correlator.ts SessionState.byExchange). */
const MAX_BY_EXCHANGE = 10_000;
/** Closed sessions whose requests in flight can still be answered on their own exchange (Correlator.closed). */
const MAX_CLOSED = 256;

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

function objOf(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The `requestState` a 2026-07-28 retry echoes: `params.requestState` (InputResponseRequestParams). */
function retryStateOf(params: unknown): string | undefined {
  const p = objOf(params);
  const v = p?.requestState;
  return typeof v === 'string' ? v : undefined;
}

function isRetry(params: unknown): boolean {
  const p = objOf(params);
  return p !== undefined && (typeof p.requestState === 'string' || objOf(p.inputResponses) !== undefined);
}

function relatedTaskOf(container: unknown): string | undefined {
  const id = objOf(objOf(objOf(container)?._meta)?.[RELATED_TASK])?.taskId;
  return typeof id === 'string' ? id : undefined;
}

function setBounded<K, V>(m: Map<K, V>, k: K, v: V, max: number): void {
  m.delete(k);
  m.set(k, v);
  while (m.size > max) m.delete(m.keys().next().value as K);
}

function newState(): SessionState {
  return {
    requests: new Map(),
    byExchange: new Map(),
    progress: new Map(),
    sseEvents: new Map(),
    chains: new Map(),
    tasks: new Map(),
    taskOfRequest: new Map(),
    pendingBySeq: new Map(),
    pending: 0,
  };
}

/** SessionState's maps (reopenSession merges them). */
const STATE_MAPS = ['requests', 'byExchange', 'progress', 'sseEvents', 'chains', 'tasks', 'taskOfRequest', 'pendingBySeq'] as const;

const other = (dir: Direction): Direction => (dir === 'c2s' ? 's2c' : 'c2s');

const hint = (level: Hint['level'], code: string, text: string): Hint => ({ level, code, text });

export class Correlator {
  private sessions = new Map<string, SessionState>();
  /**
   * Sessions closed while requests were in flight (a 404 on another request said the session
   * expired; a DELETE crossed a call): a response that comes back on the exchange that carried its
   * request still pairs with it — that pairing is unambiguous whatever the session's state. The
   * newest MAX_CLOSED (closeSession); an expired one's whole state, which reopenSession brings back.
   */
  private closed = new Map<string, SessionState>();
  /** exchange id → seq of the (single) request its POST body carried. */
  private streamParents = new Map<string, number>();

  private state(sessionId: string): SessionState {
    let s = this.sessions.get(sessionId);
    if (!s) {
      s = newState();
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

  /**
   * The client closed the response stream of these requests (2026-07-28: that is their
   * cancellation). Marks the pending ones cancelled and returns their seqs.
   */
  cancelByClose(sessionId: string, requestSeqs: readonly number[]): number[] {
    return this.settle(this.sessions.get(sessionId), requestSeqs, 'cancelled', (req) => req.state === 'pending');
  }

  /**
   * The HTTP exchange that carried these requests answered them by HTTP alone (a status of 400 or
   * more, or no response: proxy/core/model/call-state.ts): the pending ones are failed, no longer
   * pending. Returns their seqs. A late answer (on another stream) still pairs with them. A 404
   * that closed the session as expired refused the request that carried it too: closed ones count.
   */
  failByHttp(sessionId: string, requestSeqs: readonly number[]): number[] {
    const s = this.sessions.get(sessionId) ?? this.closed.get(sessionId);
    return this.settle(s, requestSeqs, 'failed', (req) => req.state === 'pending');
  }

  /**
   * A `subscriptions/listen` stream ended without a response (an abrupt close carries none): the
   * listen request is over. Returns the seqs of the listen requests that were still open.
   */
  endListen(sessionId: string, requestSeqs: readonly number[]): number[] {
    return this.settle(this.sessions.get(sessionId), requestSeqs, 'answered', (req) => req.method === 'subscriptions/listen');
  }

  /** Ends the still-waiting requests among `requestSeqs` that `which` accepts, in `state`; returns their seqs. */
  private settle(
    s: SessionState | undefined,
    requestSeqs: readonly number[],
    state: RequestRecord['state'],
    which: (req: RequestRecord) => boolean,
  ): number[] {
    if (!s) return [];
    const out: number[] = [];
    for (const seq of requestSeqs) {
      const req = s.pendingBySeq.get(seq);
      if (!req || !which(req)) continue;
      req.state = state;
      s.pendingBySeq.delete(seq);
      s.pending -= 1;
      out.push(seq);
    }
    return out;
  }

  /** Whether the request with this seq is still waiting for its response. */
  isPending(sessionId: string, seq: number): boolean {
    return this.sessions.get(sessionId)?.pendingBySeq.has(seq) ?? false;
  }

  /**
   * Drops a session's state (its requests can no longer be answered). Returns how many were left
   * pending. What answers to its requests in flight need (`byExchange`, `pendingBySeq`) is kept for
   * the newest MAX_CLOSED closed sessions; with `mayReopen` (an expired session the server may serve
   * again: reopenSession) the whole state is.
   */
  closeSession(sessionId: string, mayReopen = false): number {
    const s = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    if (s && (mayReopen || s.byExchange.size > 0)) {
      const kept = mayReopen ? s : { ...newState(), byExchange: s.byExchange, pendingBySeq: s.pendingBySeq, pending: s.pending };
      setBounded(this.closed, sessionId, kept, MAX_CLOSED);
    }
    return s?.pending ?? 0;
  }

  /**
   * A closed session goes on after all: its state comes back (its progress tokens, requests in
   * flight, SSE event ids), with what was observed in it since the close on top.
   */
  reopenSession(sessionId: string): void {
    const old = this.closed.get(sessionId);
    if (!old) return;
    this.closed.delete(sessionId);
    const since = this.sessions.get(sessionId);
    if (since) {
      for (const key of STATE_MAPS) for (const [k, v] of since[key] as Map<unknown, unknown>) (old[key] as Map<unknown, unknown>).set(k, v);
      old.pending += since.pending;
    }
    this.sessions.set(sessionId, old);
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
        // Pending under the same id but on another exchange (its answer will come on that one): two requests, both pending.
        const alongside =
          prev?.state === 'pending' && prev.exchangeId !== undefined && m.exchangeId !== undefined && prev.exchangeId !== m.exchangeId;
        if (prev && prev.state === 'pending') {
          issues.push(
            hint(
              'error',
              'duplicate-id',
              `Request id ${JSON.stringify(m.id)} is already in flight (#${prev.seq}, ${prev.method}): ids must be unique per sender while a request is pending.`,
            ),
          );
        }
        if (!(prev && prev.state === 'pending') || alongside) s.pending += 1;
        const rec: RequestRecord = {
          seq,
          ts: m.ts,
          method: m.method ?? '',
          name: m.name,
          exchangeId: m.exchangeId,
          parent: out.parent,
          state: 'pending',
          requester: m.dir,
        };
        if (prev && prev.state === 'pending' && !alongside) s.pendingBySeq.delete(prev.seq);
        s.pendingBySeq.set(seq, rec);
        s.requests.set(key, rec);
        if (m.exchangeId !== undefined) {
          s.byExchange.set(`${m.exchangeId}|${key}`, rec);
          if (s.byExchange.size > MAX_BY_EXCHANGE) s.byExchange.delete(s.byExchange.keys().next().value as string);
        }
        const token = progressTokenOf(m.params);
        if (token !== undefined) {
          out.progressToken = token;
          s.progress.set(`${m.dir}|${idKey(token)}`, seq);
        }
        if (objOf(objOf(m.params)?.task) !== undefined) rec.taskAugmented = true;
        if (m.dir === 'c2s' && isRetry(m.params)) this.linkRetry(s, m, rec, out);
        // tasks/get|result|cancel name their task in params.taskId (the source of truth); others may tag it in _meta.
        const taskId =
          m.method?.startsWith('tasks/') && typeof objOf(m.params)?.taskId === 'string'
            ? (objOf(m.params)?.taskId as string)
            : relatedTaskOf(m.params);
        if (taskId !== undefined) {
          out.task = this.taskLink(s, taskId, m.dir, out.issues, m.method?.startsWith('tasks/') === true);
          rec.task = out.task;
        }
        break;
      }
      case 'response':
      case 'error': {
        if (m.id === null || m.id === undefined) {
          if (m.kind === 'error') {
            issues.push(
              hint(
                'warn',
                'error-without-id',
                'An error with id null answers a request that could not be read (parse error or invalid request), so it cannot be paired.',
              ),
            );
          }
          break;
        }
        const requestKey = `${other(m.dir)}|${idKey(m.id)}`;
        const exchangeKey = m.exchangeId !== undefined ? `${m.exchangeId}|${requestKey}` : undefined;
        let req = (exchangeKey !== undefined ? s.byExchange.get(exchangeKey) : undefined) ?? s.requests.get(requestKey);
        // The session was closed while this request was in flight: its answer on its own exchange still pairs.
        let owner = s;
        if (!req && exchangeKey !== undefined) {
          const closed = this.closed.get(m.sessionId);
          req = closed?.byExchange.get(exchangeKey);
          if (closed && req) owner = closed;
        }
        if (!req) {
          issues.push(
            hint(
              'error',
              'unknown-id',
              `Response to id ${JSON.stringify(m.id)}, but no ${m.dir === 's2c' ? 'client' : 'server'} request with that id (and that type) was seen in this session.`,
            ),
          );
          break;
        }
        out.pair = req.seq;
        out.latencyMs = Math.max(0, m.ts - req.ts);
        out.requestMethod = req.method;
        out.name = req.name;
        if (req.state === 'answered') {
          issues.push(
            hint(
              'error',
              'duplicate-response',
              `Request #${req.seq} (${req.method}) was already answered: a request gets exactly one response.`,
            ),
          );
        } else {
          if (req.state === 'cancelled') {
            issues.push(
              hint('info', 'answered-after-cancel', `This answers a request that was cancelled (#${req.seq}); the receiver may ignore it.`),
            );
          } else if (req.state === 'failed') {
            out.answersFailed = true;
          } else {
            owner.pending -= 1;
          }
          req.state = 'answered';
        }
        owner.pendingBySeq.delete(req.seq);
        if (req.exchangeId !== undefined) owner.byExchange.delete(`${req.exchangeId}|${requestKey}`);
        // The answer to a server→client request belongs under the same parent as the request.
        if (req.parent !== undefined && out.parent === undefined) out.parent = req.parent;
        this.onAnswer(owner, m, req, out);
        break;
      }
      case 'notification': {
        if (m.method === 'notifications/progress') {
          const token = progressNotificationTokenOf(m.params);
          if (token !== undefined) {
            out.progressToken = token;
            // Progress flows opposite to the request that asked for it.
            const owner = s.progress.get(`${other(m.dir)}|${idKey(token)}`);
            if (owner !== undefined) {
              out.pair = owner;
              // Progress of a task-augmented request goes on after its CreateTaskResult: same token, same task.
              const task = s.taskOfRequest.get(owner);
              if (task) out.task = task;
            } else
              issues.push(
                hint(
                  'warn',
                  'unknown-progress-token',
                  `Progress for token ${JSON.stringify(token)}, which no request in this session carried.`,
                ),
              );
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
                s.pendingBySeq.delete(req.seq);
                s.pending -= 1;
              }
            } else {
              issues.push(
                hint(
                  'warn',
                  'cancel-unknown',
                  `Cancels request id ${JSON.stringify(requestId)}, which this side never sent in this session.`,
                ),
              );
            }
          }
        } else if (m.method === 'notifications/tasks/status') {
          const taskId = objOf(m.params)?.taskId;
          // The receiver of the task reports its status: the task was requested by the other side.
          if (typeof taskId === 'string') out.task = this.taskLink(s, taskId, other(m.dir), issues, true);
        }
        if (out.task === undefined) {
          const related = relatedTaskOf(m.params);
          if (related !== undefined) out.task = this.taskLink(s, related, other(m.dir), issues, false);
        }
        // 2026-07-28: notifications of a subscriptions/listen stream name the listen request's id.
        if (out.parent === undefined && m.dir === 's2c') {
          const sub = objOf(objOf(m.params)?._meta)?.[SUBSCRIPTION_ID];
          if (typeof sub === 'string' || typeof sub === 'number') {
            const listen = s.requests.get(`c2s|${idKey(sub)}`);
            if (listen && listen.method === 'subscriptions/listen') out.parent = listen.seq;
          }
        }
        break;
      }
    }
    return out;
  }

  /** A 2026-07-28 retry: link it to the attempt whose input_required answer it follows. */
  private linkRetry(s: SessionState, m: CorrelateInput, rec: RequestRecord, out: Correlation): void {
    const state = retryStateOf(m.params);
    const key = state !== undefined ? `=${state}` : `~${m.method ?? ''}|${m.name ?? ''}`;
    const open = s.chains.get(key);
    if (!open) {
      out.issues.push(
        hint(
          'info',
          'retry-unmatched',
          state !== undefined
            ? 'A retry carrying a requestState that no input_required answer in this session handed out (it may have gone by before mcpscope was watching, or on another connection grouped elsewhere).'
            : 'A retry with input responses, but no earlier input_required answer to the same request was seen in this session.',
        ),
      );
      return;
    }
    s.chains.delete(key);
    if (open.method !== rec.method || (open.name !== undefined && rec.name !== undefined && open.name !== rec.name)) {
      out.issues.push(
        hint(
          'warn',
          'retry-mismatch',
          `This retry echoes the requestState of ${open.method}${open.name !== undefined ? ` ${JSON.stringify(open.name)}` : ''} (#${open.prev}) but is a different request; requestState must only be used to retry the original request.`,
        ),
      );
    }
    rec.chain = { root: open.root, prev: open.prev, attempt: open.attempt + 1 };
    out.chain = { ...rec.chain };
    out.issues.push(
      hint(
        'info',
        'retry-of',
        `Attempt ${rec.chain.attempt} of the request first sent as #${open.root}: it retries #${open.prev} with the input the server asked for, under a new id.`,
      ),
    );
  }

  /** Links a response to its chain and its task. */
  private onAnswer(s: SessionState, m: CorrelateInput, req: RequestRecord, out: Correlation): void {
    const result = m.kind === 'response' ? objOf(m.result) : undefined;
    if (result?.resultType === 'input_required') {
      const link = req.chain ?? { root: req.seq, attempt: 1 };
      req.chain = link;
      out.chain = { ...link, step: 'input-required' };
      const state = typeof result.requestState === 'string' ? result.requestState : undefined;
      const open: OpenChain = { root: link.root, prev: req.seq, attempt: link.attempt, method: req.method, name: req.name };
      setBounded(s.chains, state !== undefined ? `=${state}` : `~${req.method}|${req.name ?? ''}`, open, MAX_OPEN_CHAINS);
    } else if (req.chain) {
      out.chain = { ...req.chain, step: 'final' };
    }

    if (req.task) {
      out.task = req.task;
    } else {
      const created = objOf(result?.task)?.taskId;
      if (typeof created === 'string' && !req.method.startsWith('tasks/')) {
        const link: TaskLink = { id: created, origin: req.seq };
        setBounded(s.tasks, created, { link, requester: req.requester }, MAX_TASKS);
        s.taskOfRequest.set(req.seq, link);
        while (s.taskOfRequest.size > MAX_TASKS) s.taskOfRequest.delete(s.taskOfRequest.keys().next().value as number);
        out.task = link;
        if (!req.taskAugmented) {
          out.issues.push(
            hint(
              'warn',
              'task-not-requested',
              `The receiver answered with a task, but request #${req.seq} did not ask to run as a task (no params.task).`,
            ),
          );
        }
      } else {
        const related = relatedTaskOf(result);
        if (related !== undefined) out.task = this.taskLink(s, related, req.requester, out.issues, false);
      }
    }
  }

  /** The link for a task id seen in a message; `requester` is the side that requested the task. */
  private taskLink(s: SessionState, taskId: string, requester: Direction, issues: Hint[], noteUnknown: boolean): TaskLink {
    const known = s.tasks.get(taskId);
    if (known) {
      if (known.requester !== requester) {
        issues.push(
          hint(
            'info',
            'task-other-side',
            `Task ${JSON.stringify(taskId)} was requested by the ${known.requester === 'c2s' ? 'client' : 'server'}, but this message treats the other side as its requester.`,
          ),
        );
      }
      return known.link;
    }
    if (noteUnknown)
      issues.push(
        hint('info', 'unknown-task', `Task ${JSON.stringify(taskId)}: mcpscope did not see the request that created it in this session.`),
      );
    return { id: taskId };
  }
}
