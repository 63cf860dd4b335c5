/**
 * One call, gathered (`GET /api/calls/:ref`, and `mcpscope mcp`'s `get_exchange` tool): a request
 * with its response or error, its progress notifications, its cancellation, the server→client
 * requests that rode on its stream (`parent`) with their answers, the HTTP exchanges that carried
 * all of it, and the problems found on the way (spec violations naming one of its messages, and
 * problems of its exchanges).
 *
 * Pure: reads an EventStore, changes nothing. `ref` is any message seq of the call (the request,
 * its response, a progress notification…) or an HTTP exchange id (`x12`: the first request it carried).
 */
import type { ExchangeInfo, McpscopeEvent, MessageEvent, ProblemEvent } from '../../core/model/events.js';
import type { EventStore } from './event-store.js';
import { McpscopeError } from '../../core/model/errors.js';
import { callState, cancelledFirst, httpRefusal } from '../../core/model/call-state.js';

/** Progress notifications kept in a view: the first and the last ones past this many. */
export const CALL_VIEW_MAX_PROGRESS = 50;
/** Nested server messages, spec violations and other problems kept in a view, the same way. */
export const CALL_VIEW_MAX_NESTED = 50;
export const CALL_VIEW_MAX_VIOLATIONS = 50;
export const CALL_VIEW_MAX_PROBLEMS = 50;

export interface NestedCall {
  request: MessageEvent;
  response?: MessageEvent;
}

export interface CallView {
  /** The request (or the lone notification) the view is about. */
  request: MessageEvent;
  response?: MessageEvent;
  /**
   * answered (a result), error (JSON-RPC error, or a tool result with isError), http-error (no
   * JSON-RPC answer, and the HTTP request that carried it was refused: status 400 or more, or no
   * response at all — core/model/call-state.ts), cancelled (before any answer), pending (no answer yet),
   * notification.
   */
  status: 'answered' | 'error' | 'http-error' | 'cancelled' | 'pending' | 'notification';
  latencyMs?: number;
  progress: MessageEvent[];
  /** Progress notifications left out of `progress` (first and last kept). */
  progressOmitted: number;
  cancellation: MessageEvent[];
  /** Server→client requests (sampling, elicitation, roots…) and notifications sent inside this call, with their answers. */
  nested: NestedCall[];
  nestedOmitted: number;
  /** The HTTP exchanges that carried the call's messages (none for stdio). */
  exchanges: ExchangeInfo[];
  /** `spec-violation` problems naming one of the call's messages. */
  violations: ProblemEvent[];
  violationsOmitted: number;
  /** Other problems of its exchanges (unparseable frames, cut streams, upstream failures). */
  problems: ProblemEvent[];
  problemsOmitted: number;
  /** The request that carried this one on its stream, when this is itself a nested server→client request. */
  parent?: number;
}

/** The index of the first item with seq > `seq` in a list in seq order (the store's history, a session's messages). */
export function firstAfterSeq(list: readonly { seq: number }[], seq: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].seq <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The exchange an event belongs to, if any. */
const exchangeOf = (e: McpscopeEvent): string | undefined =>
  e.type === 'exchange' ? e.exchange.id : e.type === 'message' || e.type === 'problem' ? e.exchangeId : undefined;

const isProgress = (m: MessageEvent) => m.method === 'notifications/progress';
const isCancel = (m: MessageEvent) => m.method === 'notifications/cancelled';

/** The request seq a message belongs to. */
function rootOf(store: EventStore, m: MessageEvent): MessageEvent {
  if (
    (m.kind === 'response' || m.kind === 'error' || (m.kind === 'notification' && (isProgress(m) || isCancel(m)))) &&
    m.pair !== undefined
  ) {
    return store.message(m.pair) ?? m;
  }
  return m;
}

/** Finds the message a ref names: a seq (`12`, `#12`) or an exchange id. Throws McpscopeError NO_CALL (404) or BAD_CALL_REF (400). */
export function resolveCallRef(store: EventStore, ref: string): MessageEvent {
  const r = ref.trim().replace(/^#/, '');
  if (/^\d+$/.test(r)) {
    const m = store.message(Number(r));
    if (!m)
      throw new McpscopeError(
        'NO_CALL',
        `No message #${r} (it may have been evicted, or the seq names an event that is not a JSON-RPC message).`,
      );
    return rootOf(store, m);
  }
  if (r === '' || r.length > 200)
    throw new McpscopeError('BAD_CALL_REF', 'Name a call by a message seq (e.g. 12) or an HTTP exchange id (e.g. x3).');
  const x = store.exchanges.get(r);
  if (!x) throw new McpscopeError('NO_CALL', `No message seq or exchange ${JSON.stringify(r)}.`);
  const carried = x.sessionId !== undefined ? store.messages(x.sessionId).filter((m) => m.exchangeId === r) : [];
  const first = carried.find((m) => m.kind === 'request' && m.dir === 'c2s') ?? carried.find((m) => m.kind === 'request') ?? carried[0];
  if (!first)
    throw new McpscopeError(
      'NO_CALL',
      `Exchange ${r} carried no JSON-RPC message (${x.method} ${x.url}${x.status ? ` → ${x.status}` : ''}).`,
    );
  return rootOf(store, first);
}

function bounded<T>(list: T[], max: number): { kept: T[]; omitted: number } {
  if (list.length <= max) return { kept: list, omitted: 0 };
  const head = Math.ceil(max / 2);
  return { kept: [...list.slice(0, head), ...list.slice(list.length - (max - head))], omitted: list.length - max };
}

export function callView(store: EventStore, ref: string): CallView {
  const request = resolveCallRef(store, ref);
  const seq = request.seq;
  const messages = store.messages(request.sessionId);
  let response: MessageEvent | undefined;
  const progress: MessageEvent[] = [];
  const cancellation: MessageEvent[] = [];
  const nestedReq = new Map<number, NestedCall>();
  const nestedOrder: NestedCall[] = [];
  for (let i = firstAfterSeq(messages, seq); i < messages.length; i++) {
    const m = messages[i];
    if (m.pair === seq) {
      if (m.kind === 'response' || m.kind === 'error') response ??= m;
      else if (isProgress(m)) progress.push(m);
      else if (isCancel(m)) cancellation.push(m);
      continue;
    }
    if ((m.kind === 'response' || m.kind === 'error') && m.pair !== undefined) {
      // An answer to a server request made inside this call (it may carry `parent` too).
      const n = nestedReq.get(m.pair);
      if (n && !n.response) n.response = m;
      continue;
    }
    if (m.parent === seq) {
      const n: NestedCall = { request: m };
      if (m.kind === 'request') nestedReq.set(m.seq, n);
      nestedOrder.push(n);
    }
  }

  const seqs = new Set<number>([seq]);
  const exchangeIds: string[] = [];
  const addX = (m: MessageEvent | undefined) => {
    if (!m) return;
    seqs.add(m.seq);
    if (m.exchangeId !== undefined && !exchangeIds.includes(m.exchangeId)) exchangeIds.push(m.exchangeId);
  };
  addX(request);
  addX(response);
  for (const m of [...progress, ...cancellation]) addX(m);
  for (const n of nestedOrder) {
    addX(n.request);
    addX(n.response);
  }
  const exchangeSet = new Set(exchangeIds);
  const violations: ProblemEvent[] = [];
  const problems: ProblemEvent[] = [];
  // The store's own array (no copies); seqs and exchange ids are unique, so no session filter is needed.
  // From the request on: violations come after the message they name, and a problem of the request's
  // own frame (too deep) just before it, among its exchange's events; what a long-lived stream
  // reported before the request is not about this call.
  const history = store.history();
  let from = firstAfterSeq(history, seq - 1);
  if (request.exchangeId !== undefined) while (from > 0 && exchangeOf(history[from - 1]) === request.exchangeId) from -= 1;
  for (let i = from; i < history.length; i++) {
    const e = history[i];
    if (e.type !== 'problem') continue;
    if (e.code === 'spec-violation') {
      if (e.message !== undefined && seqs.has(e.message)) violations.push(e);
    } else if (e.exchangeId !== undefined && exchangeSet.has(e.exchangeId)) problems.push(e);
  }

  const carrier = request.exchangeId !== undefined ? store.exchanges.get(request.exchangeId) : undefined;
  const refusal = httpRefusal(carrier);
  const p = bounded(progress, CALL_VIEW_MAX_PROGRESS);
  const n = bounded(nestedOrder, CALL_VIEW_MAX_NESTED);
  const v = bounded(violations, CALL_VIEW_MAX_VIOLATIONS);
  const pr = bounded(problems, CALL_VIEW_MAX_PROBLEMS);
  // One rule for the proxy and the UI (core/model/call-state.ts): a cancellation before the answer stays one.
  const state = callState({
    answer: response,
    cancelled: cancelledFirst(cancellation[0]?.seq, response?.seq, carrier?.cancels?.includes(seq) === true),
    refusal,
  });
  const status: CallView['status'] =
    request.kind !== 'request' ? 'notification' : state === 'failed' ? 'http-error' : state === 'tool-error' ? 'error' : state;
  const view: CallView = {
    request,
    status,
    progress: p.kept,
    progressOmitted: p.omitted,
    cancellation,
    nested: n.kept,
    nestedOmitted: n.omitted,
    exchanges: exchangeIds.map((id) => store.exchanges.get(id)).filter((x): x is ExchangeInfo => x !== undefined),
    violations: v.kept,
    violationsOmitted: v.omitted,
    problems: pr.kept,
    problemsOmitted: pr.omitted,
  };
  if (response) view.response = response;
  if (response?.latencyMs !== undefined) view.latencyMs = response.latencyMs;
  if (request.parent !== undefined) view.parent = request.parent;
  return view;
}
