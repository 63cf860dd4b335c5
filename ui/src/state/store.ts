/**
 * The UI's store: a hand-written reducer over the event feed with index maps, in the manner of
 * mitmproxy's web UI store. Framework-free; React reads it through `useStoreVersion`.
 *
 * - Events are kept as given (no copies). Rows are built once and then mutated in place when a
 *   response, progress or cancellation folds into them; every change bumps `version` (and the
 *   row's `rev`), which is what `useSyncExternalStore` watches. Subscribers are called after
 *   every change, except a quiet ingest (`notify: false`), which waits for the next `notify()`.
 * - Ingest is O(1) amortized per event in the normal (wire-order) case. Events that arrive late
 *   (a gap filled from api/events after later events were already shown) are merged into the
 *   log and the derived state is rebuilt once for that batch. Duplicates (same seq) are ignored.
 * - Derived lists are computed on demand and memoized on `version`, each in its own module: the
 *   visible list with filters and search (`visibleRows`, visible-list.ts: filter results are
 *   cached per row, keyed on the row's `rev`, so a recompute after a live batch only re-evaluates
 *   the rows that changed), the waterfall (`waterfall`, waterfall.ts) and the SSE stream table
 *   (`streamOf`, stream-table.ts). This module holds the events (the seq-ordered log: event-log.ts),
 *   sessions, exchanges and rows (made in rows.ts, folded here); the version and its subscribers
 *   are subscribable.ts's.
 */
import type {
  ExchangeInfo,
  LogEvent,
  McpscopeEvent,
  MessageEvent,
  ModificationEvent,
  PausedEvent,
  ProblemEvent,
  SessionInfo,
} from '../../../proxy/core/model/events.js';
import type { CallRow, Filters, HttpRow, NotificationRow, Row, StoreStats, StreamEntry, Waterfall } from './types.js';
import { VisibleList } from './visible-list.js';
import { indexOfSeq, isSorted, mergeBySeq, validSeq } from './event-log.js';
import { callRow, httpRow, logRow, notificationRow, orphanRow, problemRow } from './rows.js';
import { SSE_CARRIERS, streamEntries, type ExchangeBucket } from './stream-table.js';
import { WaterfallBuilder } from './waterfall.js';
import { reduceHeld } from './breakpoints.js';
import { ViolationIndex, rowViolations } from './violations.js';
import { ModelTurns } from './model-turns.js';
import { Subscribable } from './subscribable.js';
import { httpRefusal } from '../../../proxy/core/model/call-state.js';

export type { StreamEntry, Bar, Waterfall, StoreStats } from './types.js';

export class TimelineStore extends Subscribable {
  // ---- raw state --------------------------------------------------------------------------
  /** Every kept event, in seq order. */
  private log: McpscopeEvent[] = [];
  private _lastSeq = 0;
  private droppedCount = 0;
  private refetchedCount = 0;

  // ---- derived state (rebuilt from `log` when needed) --------------------------------------
  private readonly _sessions = new Map<string, SessionInfo>();
  private readonly _exchanges = new Map<string, ExchangeInfo>();
  private readonly messagesBySeq = new Map<number, MessageEvent>();
  /** Top-level rows in seq order. */
  private rows: Row[] = [];
  private readonly rowByKey = new Map<string, Row>();
  private readonly callByRequestSeq = new Map<number, CallRow>();
  /** message seq → key of the row it is shown in (its own row, or the call it folded into). */
  private readonly rowKeyByMessage = new Map<number, string>();
  private readonly buckets = new Map<string, ExchangeBucket>();
  /** session id → GET / legacy SSE streams that carried messages, in first-seen order. */
  private readonly streamExchanges = new Map<string, Set<string>>();
  private _problems: ProblemEvent[] = [];
  /** Spec violations by the message they name (violations.ts): badges and the Spec tab, not rows. */
  private readonly violations = new ViolationIndex();
  /** Sessions with a spec violation at level error (--lint strict): their count in the session list is red. */
  private readonly _specErrorSessions = new Set<string>();
  private _logs: LogEvent[] = [];
  /** Messages held at a breakpoint now: pausedId → its `held` event (breakpoints.ts reduceHeld). */
  private readonly _held = new Map<string, PausedEvent>();
  private heldCache?: { version: number; value: PausedEvent[] };
  /** `session\0method` → the latest answer to a client request with that method (a session's tools/list, say). */
  private readonly latestAnswers = new Map<string, MessageEvent>();
  /** Latest event timestamp seen: the store's notion of "now" (deterministic per version). */
  private clock = 0;

  // ---- caches -----------------------------------------------------------------------------
  /** The filtered, flattened lists and the search text (visible-list.ts). */
  private readonly list = new VisibleList(this);
  /** Model turns: latest upserts and their rows, which take their exchanges' HTTP rows' places (model-turns.ts). */
  readonly modelTurns = new ModelTurns({ rows: () => this.rows, rowByKey: this.rowByKey, list: this.list, touch: (r) => this.touch(r) });
  /** The waterfall's streams and bars (ui/src/state/waterfall.ts), memoized per version. */
  private readonly waterfallBuilder = new WaterfallBuilder({
    sessions: this._sessions,
    exchanges: this._exchanges,
    calls: () => this.callByRequestSeq.values(),
    streamExchanges: () => this.streamExchanges,
    messagesOf: (exchangeId) => this.buckets.get(exchangeId)?.messages,
    depthOf: (row) => this.depthOf(row),
    turns: () => this.modelTurns.rows(),
  });
  private statsCache?: { version: number; value: StoreStats };
  private sessionListCache?: { version: number; value: SessionInfo[] };

  /** Latest session upserts by id. */
  readonly sessions: ReadonlyMap<string, SessionInfo> = this._sessions;
  /** Latest exchange upserts by id. */
  readonly exchanges: ReadonlyMap<string, ExchangeInfo> = this._exchanges;

  /** Bumps the version; `notify: false` leaves calling the subscribers to a later `notify()`. */
  private changed(notify = true): void {
    this._version++;
    this.list.committed(this._version);
    if (notify) this.notify();
  }

  // ---- ingestion --------------------------------------------------------------------------

  /** Highest seq ingested so far (0 when empty). */
  get lastSeq(): number {
    return this._lastSeq;
  }

  /** Latest event timestamp seen (epoch ms), 0 when empty. */
  get lastTs(): number {
    return this.clock;
  }

  /** Whether an event with this seq is already in the store. O(log n). */
  has(seq: number): boolean {
    return indexOfSeq(this.log, seq) >= 0;
  }

  /**
   * Adds events. Wire order (increasing seq) is the fast path; anything else is sorted, duplicates
   * are skipped, and events older than the newest one kept are merged in (with one rebuild).
   * With `notify: false` the subscribers are not called (the caller calls `notify()` later): a
   * streaming snapshot is taken in without re-rendering for every chunk.
   */
  ingest(events: readonly McpscopeEvent[], { notify = true }: { notify?: boolean } = {}): void {
    if (!events || events.length === 0) return;
    let batch = events;
    if (!isSorted(batch)) batch = batch.filter(validSeq).sort((a, b) => a.seq - b.seq);
    let late: McpscopeEvent[] | undefined;
    let added = 0;
    for (const e of batch) {
      if (!validSeq(e)) continue;
      if (e.seq <= this._lastSeq) {
        if (this.has(e.seq)) continue;
        if (late && late.length > 0 && late[late.length - 1].seq === e.seq) continue;
        (late ??= []).push(e);
        added++;
        continue;
      }
      this.log.push(e);
      this._lastSeq = e.seq;
      added++;
      if (!late) this.apply(e);
    }
    if (added === 0) return;
    if (late) {
      this.log = mergeBySeq(this.log, late);
      this.rebuild();
    }
    this.changed(notify);
  }

  /** Recomputes every derived structure from the log. */
  private rebuild(): void {
    this.resetDerived();
    for (const e of this.log) this.apply(e);
  }

  private resetDerived({ searchText = false }: { searchText?: boolean } = {}): void {
    this._sessions.clear();
    this._exchanges.clear();
    this.messagesBySeq.clear();
    this.rows = [];
    this.rowByKey.clear();
    this.callByRequestSeq.clear();
    this.rowKeyByMessage.clear();
    this.buckets.clear();
    this.streamExchanges.clear();
    this._problems = [];
    this.violations.clear();
    this._specErrorSessions.clear();
    this._logs = [];
    this._held.clear();
    this.latestAnswers.clear();
    this.modelTurns.clear();
    this.clock = 0;
    // Every list computed before now is stale as a whole.
    this.list.reset(this._version, { searchText });
    this.waterfallBuilder.reset();
  }

  /** Forgets everything (the server's `cleared`, a restarted server). */
  clear(): void {
    this.log = [];
    this._lastSeq = 0;
    this.droppedCount = 0;
    this.refetchedCount = 0;
    this.resetDerived({ searchText: true });
    this.changed();
  }

  /** The feed reported `count` events it did not send us. */
  noteDropped(count: number): void {
    if (!(count > 0)) return;
    this.droppedCount += count;
    this.changed();
  }

  /** `count` events were fetched from the API to fill a gap. */
  noteRefetched(count: number): void {
    if (!(count > 0)) return;
    this.refetchedCount += count;
    this.changed();
  }

  private bucket(exchangeId: string): ExchangeBucket {
    let b = this.buckets.get(exchangeId);
    if (!b) {
      b = { messages: [], sse: [], problems: [], modifications: [], streamRev: 0 };
      this.buckets.set(exchangeId, b);
    }
    return b;
  }

  private apply(e: McpscopeEvent): void {
    if (typeof e.ts === 'number' && e.ts > this.clock) this.clock = e.ts;
    switch (e.type) {
      case 'session':
        if (e.session && typeof e.session.id === 'string') this._sessions.set(e.session.id, e.session);
        break;
      case 'exchange':
        if (e.exchange && typeof e.exchange.id === 'string') {
          this._exchanges.set(e.exchange.id, e.exchange);
          this.waterfallBuilder.exchangeChanged(e.exchange.id);
          if (e.exchange.plain) this.applyPlain(e.seq, e.exchange);
          // 2026-07-28: the client closing a response stream cancels the requests it carried.
          for (const seq of e.exchange.cancels ?? []) {
            const call = this.callByRequestSeq.get(seq);
            if (call && call.status === 'pending') {
              call.status = 'cancelled';
              this.touch(call);
            }
          }
          // Refused at the HTTP layer (a 401 challenge, a 404 for an expired session, no response): its calls get no JSON-RPC answer.
          if (httpRefusal(e.exchange) !== undefined) {
            for (const m of this.buckets.get(e.exchange.id)?.messages ?? []) {
              const call = m.kind === 'request' ? this.callByRequestSeq.get(m.seq) : undefined;
              if (call) this.refuseIfRejected(call);
            }
          }
        }
        break;
      case 'message':
        this.applyMessage(e);
        break;
      case 'sse': {
        if (e.exchangeId === undefined) break;
        const b = this.bucket(e.exchangeId);
        b.sse.push(e);
        b.streamRev++;
        break;
      }
      case 'problem': {
        this._problems.push(e);
        if (e.code === 'spec-violation' && e.level === 'error' && e.sessionId !== undefined) this._specErrorSessions.add(e.sessionId);
        // A spec violation of a known message annotates that message's row (a badge) instead of making one.
        if (this.violations.link(e, (seq) => this.messagesBySeq.has(seq))) {
          const row = e.message !== undefined ? this.rowOfMessage(e.message) : undefined;
          if (row) this.touch(row);
          break;
        }
        if (e.exchangeId !== undefined) this.bucket(e.exchangeId).problems.push(e);
        this.addTopLevel(problemRow(e, e.sessionId ?? this.sessionOfExchange(e.exchangeId)));
        break;
      }
      case 'model-turn':
        this.modelTurns.apply(e);
        break;
      case 'modification':
        if (e.exchangeId !== undefined) this.bucket(e.exchangeId).modifications.push(e);
        break;
      case 'paused':
        // Not a timeline row: the header counts the held ones and the Paused panel lists them.
        reduceHeld(this._held, e);
        break;
      case 'log':
        this._logs.push(e);
        // A wrapped stdio server's stderr line: a row of its session (mcpscope's own notes are not).
        if (e.source === 'stderr' && typeof e.text === 'string') {
          this.addTopLevel(logRow(e));
        }
        break;
      default:
        // Unknown event types (a newer schema) are kept in the log and otherwise ignored.
        break;
    }
  }

  /** A plain HTTP exchange: its row, made on its first plain upsert and refreshed by the later ones. */
  private applyPlain(seq: number, x: ExchangeInfo): void {
    if (this.modelTurns.exchangeChanged(x.id)) return;
    const key = `h${x.id}`;
    const row = this.rowByKey.get(key) as HttpRow | undefined;
    if (row) {
      row.exchange = x;
      row.sessionId = x.sessionId;
      this.touch(row);
      return;
    }
    this.addTopLevel(httpRow(seq, x));
  }

  private sessionOfExchange(exchangeId: string | undefined): string | undefined {
    return exchangeId === undefined ? undefined : this._exchanges.get(exchangeId)?.sessionId;
  }

  private addTopLevel(row: Row): void {
    const index = this.rows.length;
    this.rows.push(row);
    this.rowByKey.set(row.key, row);
    this.list.added(row.key, index);
  }

  /** A row changed in place: lists must re-judge its top-level subtree. */
  private touch(row: Row): void {
    row.rev = (row.rev ?? 0) + 1;
    this.list.touched(row.key);
  }

  /** Places a request/notification row under its parent call when there is one, else at top level. */
  private place(row: CallRow | NotificationRow, m: MessageEvent): void {
    const parent = m.parent !== undefined && m.parent < m.seq ? this.callByRequestSeq.get(m.parent) : undefined;
    if (parent) {
      row.parentKey = parent.key;
      parent.children.push(row.key);
      this.rowByKey.set(row.key, row);
      this.list.nested(row.key, parent.key);
      this.touch(parent);
    } else {
      this.addTopLevel(row);
    }
  }

  private applyMessage(m: MessageEvent): void {
    this.messagesBySeq.set(m.seq, m);
    if (m.exchangeId !== undefined) {
      const b = this.bucket(m.exchangeId);
      b.messages.push(m);
      if (SSE_CARRIERS.has(m.carrier)) {
        b.streamRev++;
        // GET and legacy streams get a waterfall lane even without calls on them (POST streams always carry their call).
        if (m.carrier !== 'post-sse' && m.sessionId !== undefined && m.replayOf === undefined) {
          let set = this.streamExchanges.get(m.sessionId);
          if (!set) this.streamExchanges.set(m.sessionId, (set = new Set()));
          set.add(m.exchangeId);
        }
      }
    }
    // A replayed copy (resumed stream) is kept for the stream table, but is not a new row.
    if (m.replayOf !== undefined) {
      const original = this.rowKeyByMessage.get(m.replayOf);
      if (original !== undefined) this.rowKeyByMessage.set(m.seq, original);
      return;
    }
    switch (m.kind) {
      case 'request': {
        const row = callRow(m);
        this.callByRequestSeq.set(m.seq, row);
        this.rowKeyByMessage.set(m.seq, row.key);
        this.place(row, m);
        this.refuseIfRejected(row);
        return;
      }
      case 'response':
      case 'error': {
        const call = m.pair !== undefined ? this.callByRequestSeq.get(m.pair) : undefined;
        if (call && !call.response) {
          call.response = m;
          if (m.kind === 'response' && call.dir === 'c2s' && call.request.method)
            this.latestAnswers.set(`${call.sessionId}\0${call.request.method}`, m);
          call.latencyMs = m.latencyMs ?? Math.max(0, m.ts - call.request.ts);
          // A call that was cancelled stays "cancelled" even if an answer arrives after all.
          if (call.status !== 'cancelled') call.status = m.kind === 'error' ? 'error' : m.isError ? 'tool-error' : 'ok';
          this.touch(call);
          this.rowKeyByMessage.set(m.seq, call.key);
          return;
        }
        // No request to fold into (unknown id, or a second answer): show it on its own.
        const row = orphanRow(m);
        this.rowKeyByMessage.set(m.seq, row.key);
        this.addTopLevel(row);
        return;
      }
      case 'notification':
      default: {
        if (m.pair !== undefined) {
          const call = this.callByRequestSeq.get(m.pair);
          if (call && m.method === 'notifications/progress') {
            call.progress.push(m);
            this.touch(call);
            this.rowKeyByMessage.set(m.seq, call.key);
            return;
          }
          if (call && m.method === 'notifications/cancelled' && !call.cancel) {
            call.cancel = m;
            if (call.status === 'pending') call.status = 'cancelled';
            this.touch(call);
            this.rowKeyByMessage.set(m.seq, call.key);
            return;
          }
        }
        const row = notificationRow(m);
        this.rowKeyByMessage.set(m.seq, row.key);
        this.place(row, m);
        return;
      }
    }
  }

  /**
   * A pending call whose exchange answered it by HTTP alone (core/model/call-state.ts: `failed`): `error`,
   * with that status. Pending means neither answered nor cancelled, so the refusal alone decides.
   */
  private refuseIfRejected(call: CallRow): void {
    if (call.status !== 'pending' || call.response || call.request.exchangeId === undefined) return;
    const refusal = httpRefusal(this._exchanges.get(call.request.exchangeId));
    if (refusal === undefined) return;
    call.status = 'error';
    call.httpStatus = refusal;
    this.touch(call);
  }

  // ---- lookups ----------------------------------------------------------------------------

  row(key: string): Row | undefined {
    return this.rowByKey.get(key);
  }

  /** Any kept event by seq (a `modification` an edited message names, say). O(log n). */
  event(seq: number): McpscopeEvent | undefined {
    const i = indexOfSeq(this.log, seq);
    return i >= 0 ? this.log[i] : undefined;
  }

  /** Messages held at a breakpoint now (their `held` events, oldest first; memoized per version). */
  held(): readonly PausedEvent[] {
    if (this.heldCache?.version !== this._version) this.heldCache = { version: this._version, value: [...this._held.values()] };
    return this.heldCache.value;
  }

  /** The latest response to a client→server request with this method in a session (its last `tools/list` result, say). */
  latestAnswer(sessionId: string, method: string): MessageEvent | undefined {
    return this.latestAnswers.get(`${sessionId}\0${method}`);
  }

  message(seq: number): MessageEvent | undefined {
    return this.messagesBySeq.get(seq);
  }

  /** The row a message is shown in: its own row, or the call it folded into (response, progress, cancel). */
  rowOfMessage(seq: number): Row | undefined {
    const key = this.rowKeyByMessage.get(seq);
    return key === undefined ? undefined : this.rowByKey.get(key);
  }

  childrenOf(row: CallRow): Row[] {
    const out: Row[] = [];
    for (const key of row.children) {
      const child = this.rowByKey.get(key);
      if (child) out.push(child);
    }
    return out;
  }

  /** Nesting depth of a row (0 = top level). */
  depthOf(row: Row): number {
    let depth = 0;
    let key = 'parentKey' in row ? row.parentKey : undefined;
    while (key !== undefined && depth < 16) {
      depth++;
      const parent = this.rowByKey.get(key);
      key = parent && 'parentKey' in parent ? parent.parentKey : undefined;
    }
    return depth;
  }

  /** Top-level rows in seq order (unfiltered, children not included). Do not mutate. */
  topLevelRows(): readonly Row[] {
    return this.rows;
  }

  /** Sessions sorted by start time (memoized per version). */
  sessionList(): SessionInfo[] {
    if (this.sessionListCache?.version !== this._version) {
      const value = [...this._sessions.values()].sort((a, b) => a.startedAt - b.startedAt || (a.id < b.id ? -1 : 1));
      this.sessionListCache = { version: this._version, value };
    }
    return this.sessionListCache.value;
  }

  /** Every problem event, in seq order. */
  get problems(): readonly ProblemEvent[] {
    return this._problems;
  }

  /** The sessions that have a spec violation at level error (recorded with --lint strict). */
  get specErrorSessions(): ReadonlySet<string> {
    return this._specErrorSessions;
  }

  /** The spec violations naming this message, in seq order; undefined when none. */
  violationsOf(messageSeq: number): readonly ProblemEvent[] | undefined {
    return this.violations.of(messageSeq);
  }

  /** The spec violations (and linter notes) of every message a row shows (a call: its request, progress, cancellation and response). */
  violationsOfRow(row: Row): ProblemEvent[] {
    return this.violations.empty ? [] : rowViolations(row, (seq) => this.violations.of(seq));
  }

  /** Every log event (mcpscope notes, stdio stderr lines), in seq order. */
  get logs(): readonly LogEvent[] {
    return this._logs;
  }

  problemsOf(exchangeId: string): readonly ProblemEvent[] {
    return this.buckets.get(exchangeId)?.problems ?? [];
  }

  modificationsOf(exchangeId: string): readonly ModificationEvent[] {
    return this.buckets.get(exchangeId)?.modifications ?? [];
  }

  /** Every message of an exchange (request body, JSON answer, stream), in seq order. */
  messagesOfExchange(exchangeId: string): readonly MessageEvent[] {
    return this.buckets.get(exchangeId)?.messages ?? [];
  }

  get stats(): StoreStats {
    if (this.statsCache?.version !== this._version) {
      this.statsCache = {
        version: this._version,
        value: {
          rows: this.rowByKey.size,
          messages: this.messagesBySeq.size,
          events: this.log.length,
          dropped: this.droppedCount,
          refetched: this.refetchedCount,
        },
      };
    }
    return this.statsCache.value;
  }

  // ---- search text and the visible list (visible-list.ts) ---------------------------------

  /** Lower-cased search text of a message (its method, name and JSON), computed once per message. */
  searchTextOf(m: MessageEvent): string {
    return this.list.searchTextOf(m);
  }

  /**
   * The flattened, filtered list for the virtual list: top-level rows in seq order, each call
   * followed by its (matching) children. Memoized on (version, filter contents): calling it
   * several times per render is free. After a live batch only the part of the list from the
   * oldest changed top-level row on is recomputed, so following a live feed stays cheap at 100k
   * rows; the result is a new array whenever rows changed. Do not mutate the result.
   */
  visibleRows(filters: Filters): Row[] {
    return this.list.rows(filters);
  }

  /** Index of a row in `visibleRows(filters)`, or -1 (memoized per list). */
  visibleIndex(filters: Filters, key: string): number {
    return this.list.indexOf(filters, key);
  }

  // ---- SSE stream table -------------------------------------------------------------------

  /** Every SSE block of an exchange's response stream, in offset order (DevTools' EventStream table). */
  streamOf(exchangeId: string): StreamEntry[] {
    const b = this.buckets.get(exchangeId);
    return b ? streamEntries(b) : [];
  }

  // ---- waterfall --------------------------------------------------------------------------

  /**
   * Calls as bars on a time axis, one lane per stream: each POST response stream, the GET stream,
   * the legacy SSE stream; JSON answers to POSTs share a "POST JSON" lane per session; stdio
   * sessions have one lane. A call sits on the lane of the stream that carried the server's side
   * of it (the response of a client request; the request of a server→client request), or of its
   * request's exchange while pending. `sessionId` '' = all sessions. Memoized per version. The
   * rows the waterfall draws pack these streams (`packWaterfall` in waterfall.ts).
   */
  waterfall(sessionId: string): Waterfall {
    return this.waterfallBuilder.waterfall(sessionId, this._version);
  }
}
