/**
 * The UI's store: a hand-written reducer over the event feed with index maps, in the manner of
 * mitmproxy's web UI store. Framework-free; React reads it through `useStoreVersion`.
 *
 * - Events are kept as given (no copies). Rows are built once and then mutated in place when a
 *   response, progress or cancellation folds into them; every change bumps `version` (and the
 *   row's `rev`), which is what `useSyncExternalStore` watches. Subscribers are called after
 *   every change, except a quiet ingest (`notify: false`), which waits for the next `notify()`.
 * - Ingest is O(1) amortized per event in the normal (wire-order) case. Events that arrive late
 *   (a gap filled from /api/events after later events were already shown) are merged into the
 *   log and the derived state is rebuilt once for that batch. Duplicates (same seq) are ignored.
 * - Derived lists (`visibleRows`, `waterfall`, `streamOf`) are computed on demand and memoized on
 *   `version`; filter results are cached per row (keyed on the row's `rev`), so a recompute after
 *   a live batch only re-evaluates the rows that changed.
 */
import type {
  Carrier,
  ExchangeInfo,
  LogEvent,
  McpscopeEvent,
  MessageEvent,
  ModificationEvent,
  ProblemEvent,
  SessionInfo,
  SseFrameEvent,
} from '../../../proxy/model/events.js';
import type {
  CallRow,
  Filters,
  HttpRow,
  LogRow,
  NotificationRow,
  OrphanRow,
  ProblemRow,
  Row,
  StoreStats,
  StreamEntry,
  Waterfall,
} from './types.js';
import { filtersKey, isEmptyFilters, matchesPrepared, prepareFilters, type PreparedFilters } from './filters.js';
import { jsonText, truncate } from './format.js';
import { WaterfallBuilder } from './waterfall.js';

export type { StreamEntry, Bar, Waterfall, StoreStats } from './types.js';

/** Per-exchange buckets. */
interface ExchangeBucket {
  messages: MessageEvent[];
  sse: SseFrameEvent[];
  problems: ProblemEvent[];
  modifications: ModificationEvent[];
  /** Bumped when the stream table of this exchange changes. */
  streamRev: number;
  streamCache?: { rev: number; entries: StreamEntry[] };
}

/**
 * Per-row filter memo, kept on the row object itself (the cheapest lookup at 100k rows) and
 * present from creation so every row of a type keeps one hidden class. Internal: not part of Row.
 */
interface MatchMemo {
  _fid: number;
  _frev: number;
  _fok: boolean;
}
const MEMO_INIT: MatchMemo = { _fid: 0, _frev: -1, _fok: false };

/** A computed visible list. */
interface FlatList {
  version: number;
  filters: Filters;
  key: string;
  rows: Row[];
  /** topPos[i]: index in `rows` where top-level row i's subtree starts (for suffix recomputes). */
  topPos: number[];
  index?: Map<string, number>;
}

let filterSerial = 0;

const SSE_CARRIERS: ReadonlySet<Carrier> = new Set<Carrier>(['post-sse', 'get-sse', 'legacy-sse']);
const NO_ROWS: readonly Row[] = Object.freeze([]) as readonly Row[];

/** Whether the batch is valid events in strictly increasing seq order (the fast path). */
function isSorted(events: readonly McpscopeEvent[]): boolean {
  let prev = -Infinity;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (!e || !(e.seq > prev)) return false;
    prev = e.seq;
  }
  return true;
}

function validSeq(e: McpscopeEvent | null | undefined): e is McpscopeEvent {
  return !!e && typeof e === 'object' && typeof e.seq === 'number' && Number.isFinite(e.seq);
}

export class TimelineStore {
  // ---- raw state --------------------------------------------------------------------------
  /** Every kept event, in seq order. */
  private log: McpscopeEvent[] = [];
  private _lastSeq = 0;
  private _version = 0;
  /** The version the subscribers were last called for. */
  private notifiedVersion = 0;
  private listeners = new Set<() => void>();
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
  private _logs: LogEvent[] = [];
  /** Latest event timestamp seen: the store's notion of "now" (deterministic per version). */
  private clock = 0;

  // ---- caches -----------------------------------------------------------------------------
  /** Lower-cased search text by message seq (a holey array: seqs are dense, lookups are cheap). */
  private searchText: string[] = [];
  private filterIds = new Map<string, number>();
  /** Flattened lists by filter key (a few, most recent last). */
  private flatCache = new Map<string, FlatList>();
  /** The list `visibleRows` returned last (fast path for repeated calls with the same filters object). */
  private lastVisible?: FlatList;
  /** row key → index in `rows` of its top-level ancestor. */
  private readonly topIndex = new Map<string, number>();
  /** Per change (version): the lowest top-level row index whose subtree changed (Infinity: none). */
  private touchLog: { version: number; top: number }[] = [];
  /** Versions up to this one are not covered by `touchLog`: lists older than it are recomputed fully. */
  private touchBase = 0;
  /** Lowest top-level index touched by the batch being ingested. */
  private batchTop = Infinity;
  /** The waterfall's streams and bars (ui/src/state/waterfall.ts), memoized per version. */
  private readonly waterfallBuilder = new WaterfallBuilder({
    sessions: this._sessions,
    exchanges: this._exchanges,
    calls: () => this.callByRequestSeq.values(),
    streamExchanges: () => this.streamExchanges,
    messagesOf: (exchangeId) => this.buckets.get(exchangeId)?.messages,
    depthOf: (row) => this.depthOf(row),
  });
  private statsCache?: { version: number; value: StoreStats };
  private sessionListCache?: { version: number; value: SessionInfo[] };

  /** Latest session upserts by id. */
  readonly sessions: ReadonlyMap<string, SessionInfo> = this._sessions;
  /** Latest exchange upserts by id. */
  readonly exchanges: ReadonlyMap<string, ExchangeInfo> = this._exchanges;

  // ---- subscription -----------------------------------------------------------------------

  /** Increments on every change. */
  get version(): number {
    return this._version;
  }

  /** Calls `fn` after every change; returns the unsubscribe function. (Bound: safe to pass around.) */
  readonly subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  };

  /** For `useSyncExternalStore`'s getSnapshot. (Bound.) */
  readonly getVersion = (): number => this._version;

  /** Whether the store changed since its subscribers were last called (after a quiet `ingest`). */
  get notifyPending(): boolean {
    return this.notifiedVersion !== this._version;
  }

  /** Calls the subscribers if the store changed since they were last called. */
  notify(): void {
    if (this.notifiedVersion === this._version) return;
    this.notifiedVersion = this._version;
    for (const fn of [...this.listeners]) {
      try {
        fn();
      } catch (err) {
        // A failing listener must not break ingestion or the other listeners.
        console.error('mcpscope: a store listener failed', err);
      }
    }
  }

  /** Bumps the version; `notify: false` leaves calling the subscribers to a later `notify()`. */
  private changed(notify = true): void {
    this._version++;
    if (this.batchTop !== Infinity) {
      this.touchLog.push({ version: this._version, top: this.batchTop });
      this.batchTop = Infinity;
      if (this.touchLog.length > 4096) {
        const cut = this.touchLog.length - 2048;
        this.touchBase = this.touchLog[cut - 1].version;
        this.touchLog = this.touchLog.slice(cut);
      }
    }
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
    return this.indexOfSeq(seq) >= 0;
  }

  private indexOfSeq(seq: number): number {
    const log = this.log;
    let lo = 0;
    let hi = log.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const s = log[mid].seq;
      if (s === seq) return mid;
      if (s < seq) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
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
      this.mergeLate(late);
      this.rebuild();
    }
    this.changed(notify);
  }

  /** Merges sorted, unique, not-yet-kept events into the log. */
  private mergeLate(late: McpscopeEvent[]): void {
    const out: McpscopeEvent[] = new Array(this.log.length + late.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < this.log.length && j < late.length) out[k++] = this.log[i].seq < late[j].seq ? this.log[i++] : late[j++];
    while (i < this.log.length) out[k++] = this.log[i++];
    while (j < late.length) out[k++] = late[j++];
    this.log = out;
  }

  /** Recomputes every derived structure from the log. */
  private rebuild(): void {
    this.resetDerived();
    for (const e of this.log) this.apply(e);
  }

  private resetDerived(): void {
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
    this._logs = [];
    this.clock = 0;
    this.topIndex.clear();
    this.flatCache.clear();
    this.lastVisible = undefined;
    this.touchLog = [];
    // Every list computed before now is stale as a whole.
    this.touchBase = this._version + 1;
    this.batchTop = Infinity;
    this.waterfallBuilder.reset();
  }

  /** Forgets everything (the server's `cleared`, a restarted server). */
  clear(): void {
    this.log = [];
    this._lastSeq = 0;
    this.droppedCount = 0;
    this.refetchedCount = 0;
    this.searchText = [];
    this.resetDerived();
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
          // Refused at the HTTP layer (a 401 challenge, a 404 for an expired session): its calls get no JSON-RPC answer.
          if (e.exchange.status !== undefined && e.exchange.status >= 400) {
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
        if (e.exchangeId !== undefined) this.bucket(e.exchangeId).problems.push(e);
        const row = { type: 'problem', key: `p${e.seq}`, seq: e.seq, sessionId: e.sessionId ?? this.sessionOfExchange(e.exchangeId), event: e, rev: 0, ...MEMO_INIT } as ProblemRow;
        this.addTopLevel(row);
        break;
      }
      case 'modification':
        if (e.exchangeId !== undefined) this.bucket(e.exchangeId).modifications.push(e);
        break;
      case 'log':
        this._logs.push(e);
        // A wrapped stdio server's stderr line: a row of its session (mcpscope's own notes are not).
        if (e.source === 'stderr' && typeof e.text === 'string') {
          this.addTopLevel({ type: 'log', key: `l${e.seq}`, seq: e.seq, sessionId: e.sessionId, event: e, rev: 0, ...MEMO_INIT } as LogRow);
        }
        break;
      default:
        // Unknown event types (a newer schema) are kept in the log and otherwise ignored.
        break;
    }
  }

  /** A plain HTTP exchange: its row, made on its first plain upsert and refreshed by the later ones. */
  private applyPlain(seq: number, x: ExchangeInfo): void {
    const key = `h${x.id}`;
    const row = this.rowByKey.get(key) as HttpRow | undefined;
    if (row) {
      row.exchange = x;
      row.sessionId = x.sessionId;
      this.touch(row);
      return;
    }
    this.addTopLevel({ type: 'http', key, seq, sessionId: x.sessionId, dir: 'c2s', exchange: x, rev: 0, ...MEMO_INIT } as HttpRow);
  }

  private sessionOfExchange(exchangeId: string | undefined): string | undefined {
    return exchangeId === undefined ? undefined : this._exchanges.get(exchangeId)?.sessionId;
  }

  private addTopLevel(row: Row): void {
    const index = this.rows.length;
    this.rows.push(row);
    this.rowByKey.set(row.key, row);
    this.topIndex.set(row.key, index);
    if (index < this.batchTop) this.batchTop = index;
  }

  /** A row changed in place: lists must re-judge its top-level subtree. */
  private touch(row: Row): void {
    row.rev = (row.rev ?? 0) + 1;
    const top = this.topIndex.get(row.key);
    if (top !== undefined && top < this.batchTop) this.batchTop = top;
  }

  /** Places a request/notification row under its parent call when there is one, else at top level. */
  private place(row: CallRow | NotificationRow, m: MessageEvent): void {
    const parent = m.parent !== undefined && m.parent < m.seq ? this.callByRequestSeq.get(m.parent) : undefined;
    if (parent) {
      row.parentKey = parent.key;
      parent.children.push(row.key);
      this.rowByKey.set(row.key, row);
      const top = this.topIndex.get(parent.key);
      if (top !== undefined) this.topIndex.set(row.key, top);
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
        const row: CallRow = {
          type: 'call',
          key: `c${m.seq}`,
          seq: m.seq,
          sessionId: m.sessionId,
          dir: m.dir,
          request: m,
          // Declared up front (not added later) so call rows keep one hidden class.
          response: undefined,
          progress: [],
          cancel: undefined,
          children: [],
          status: 'pending',
          latencyMs: undefined,
          httpStatus: undefined,
          rev: 0,
          parentKey: undefined,
          ...MEMO_INIT,
        } as CallRow;
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
          call.latencyMs = m.latencyMs ?? Math.max(0, m.ts - call.request.ts);
          // A call that was cancelled stays "cancelled" even if an answer arrives after all.
          if (call.status !== 'cancelled') call.status = m.kind === 'error' ? 'error' : m.isError ? 'tool-error' : 'ok';
          this.touch(call);
          this.rowKeyByMessage.set(m.seq, call.key);
          return;
        }
        // No request to fold into (unknown id, or a second answer): show it on its own.
        const row = { type: 'orphan', key: `o${m.seq}`, seq: m.seq, sessionId: m.sessionId, dir: m.dir, message: m, rev: 0, ...MEMO_INIT } as OrphanRow;
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
        const row = { type: 'notification', key: `n${m.seq}`, seq: m.seq, sessionId: m.sessionId, dir: m.dir, message: m, rev: 0, parentKey: undefined, ...MEMO_INIT } as NotificationRow;
        this.rowKeyByMessage.set(m.seq, row.key);
        this.place(row, m);
        return;
      }
    }
  }

  /** A pending call whose exchange was answered with an HTTP error and no JSON-RPC response: `error`, with that status. */
  private refuseIfRejected(call: CallRow): void {
    if (call.status !== 'pending' || call.response || call.request.exchangeId === undefined) return;
    const status = this._exchanges.get(call.request.exchangeId)?.status;
    if (status === undefined || status < 400) return;
    call.status = 'error';
    call.httpStatus = status;
    this.touch(call);
  }

  // ---- lookups ----------------------------------------------------------------------------

  row(key: string): Row | undefined {
    return this.rowByKey.get(key);
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
        value: { rows: this.rowByKey.size, messages: this.messagesBySeq.size, events: this.log.length, dropped: this.droppedCount, refetched: this.refetchedCount },
      };
    }
    return this.statsCache.value;
  }

  // ---- search text (lazy, cached) ----------------------------------------------------------

  /**
   * Lower-cased search text of a message — its method, its name and its JSON (the raw frame when
   * kept, else the parsed message stringified) — computed once per message, the first time a
   * search needs it.
   */
  searchTextOf(m: MessageEvent): string {
    let text = this.searchText[m.seq];
    if (text === undefined) {
      let json: string;
      if (m.raw !== undefined) json = m.raw;
      else {
        try {
          json = JSON.stringify(m.jsonrpc) ?? '';
        } catch {
          json = jsonText(m.jsonrpc);
        }
      }
      text = `${m.method ?? ''}\n${m.name ?? ''}\n${json}`.toLowerCase();
      this.searchText[m.seq] = text;
    }
    return text;
  }

  // ---- the visible list -------------------------------------------------------------------

  /**
   * The flattened, filtered list for the virtual list: top-level rows in seq order, each call
   * followed by its (matching) children. Memoized on (version, filter contents): calling it
   * several times per render is free. After a live batch only the part of the list from the
   * oldest changed top-level row on is recomputed, so following a live feed stays cheap at 100k
   * rows; the result is a new array whenever rows changed. Do not mutate the result.
   */
  visibleRows(filters: Filters): Row[] {
    const last = this.lastVisible;
    if (last && last.filters === filters && last.version === this._version) return last.rows;
    const key = filtersKey(filters);
    let list = this.flatCache.get(key);
    if (!list || list.version !== this._version) {
      list = this.computeList(filters, key, list);
      this.flatCache.delete(key);
      this.flatCache.set(key, list);
      if (this.flatCache.size > 6) this.flatCache.delete(this.flatCache.keys().next().value!);
    }
    list.filters = filters;
    this.lastVisible = list;
    return list.rows;
  }

  /** Index of a row in `visibleRows(filters)`, or -1 (memoized per list). */
  visibleIndex(filters: Filters, key: string): number {
    const rows = this.visibleRows(filters);
    const list = this.lastVisible!;
    if (!list.index) {
      const index = new Map<string, number>();
      for (let i = 0; i < rows.length; i++) index.set(rows[i].key, i);
      list.index = index;
    }
    return list.index.get(key) ?? -1;
  }

  /** Lowest top-level index touched after `version` (0: unknown, recompute all; Infinity: nothing). */
  private dirtyFrom(version: number): number {
    if (version < this.touchBase) return 0;
    let top = Infinity;
    for (let i = this.touchLog.length - 1; i >= 0; i--) {
      const t = this.touchLog[i];
      if (t.version <= version) break;
      if (t.top < top) top = t.top;
    }
    return top;
  }

  private computeList(f: Filters, key: string, previous: FlatList | undefined): FlatList {
    const empty = isEmptyFilters(f);
    let fid = 0;
    if (!empty) {
      fid = this.filterIds.get(key) ?? 0;
      if (fid === 0) {
        if (this.filterIds.size > 256) this.filterIds.clear();
        fid = ++filterSerial;
        this.filterIds.set(key, fid);
      }
    }
    // A pending call's waiting time grows with the clock: latency filters are recomputed in full.
    const timeDependent = f.minLatencyMs > 0;
    let from = 0;
    if (previous && !timeDependent) {
      from = this.dirtyFrom(previous.version);
      if (from === Infinity) return { ...previous, version: this._version, index: previous.index };
    }
    let out: Row[];
    let topPos: number[];
    if (previous && from > 0) {
      const keep = Math.min(from, previous.topPos.length);
      const cut = keep < previous.topPos.length ? previous.topPos[keep] : previous.rows.length;
      out = previous.rows.slice(0, cut);
      topPos = previous.topPos.slice(0, keep);
      from = keep;
    } else {
      // Typing more of a search: only the rows that matched the shorter text can match.
      const narrowed = !timeDependent ? this.narrowedSearch(f, key) : undefined;
      if (narrowed) return narrowed;
      out = [];
      topPos = [];
      from = 0;
    }
    const rows = this.rows;
    const filter = empty ? undefined : prepareFilters(f);
    for (let i = from; i < rows.length; i++) {
      topPos.push(out.length);
      const r = rows[i];
      if (!filter || this.matches(r, filter, fid)) out.push(r);
      if (r.type === 'call' && r.children.length > 0) this.pushChildren(r, out, filter, fid, 0);
    }
    return { version: this._version, filters: f, key, rows: out, topPos };
  }

  /**
   * If a list for the same filters with a shorter search text (contained in this one) is current,
   * the new list is that one's rows that still match — no need to look at every row again.
   */
  private narrowedSearch(f: Filters, key: string): FlatList | undefined {
    const needle = f.text.trim().toLowerCase();
    if (needle === '') return undefined;
    const fid = this.filterIds.get(key)!;
    for (const list of this.flatCache.values()) {
      if (list.version !== this._version || list.key === key) continue;
      const g = list.filters;
      const old = g.text.trim().toLowerCase();
      if (old === '' || !needle.includes(old)) continue;
      if (filtersKey({ ...g, text: f.text }) !== key) continue;
      // topPos must be rebuilt: walk the old rows, tracking top-level boundaries.
      const out: Row[] = [];
      const prepared = prepareFilters(f);
      for (const r of list.rows) if (this.matches(r, prepared, fid)) out.push(r);
      return { version: this._version, filters: f, key, rows: out, topPos: this.topPositions(out) };
    }
    return undefined;
  }

  /** For each top-level row index, the position in `rows` where its subtree starts (or would start). */
  private topPositions(out: Row[]): number[] {
    const topPos: number[] = new Array(this.rows.length);
    let p = 0;
    for (let i = 0; i < this.rows.length; i++) {
      while (p < out.length && (this.topIndex.get(out[p].key) ?? 0) < i) p++;
      topPos[i] = p;
    }
    return topPos;
  }

  private pushChildren(call: CallRow, out: Row[], f: PreparedFilters | undefined, fid: number, depth: number): void {
    if (depth > 16) return;
    for (const key of call.children) {
      const child = this.rowByKey.get(key);
      if (!child) continue;
      if (!f || this.matches(child, f, fid)) out.push(child);
      if (child.type === 'call' && child.children.length > 0) this.pushChildren(child, out, f, fid, depth + 1);
    }
  }

  private matches(row: Row, f: PreparedFilters, fid: number): boolean {
    const memo = row as Row & MatchMemo;
    const rev = row.rev ?? 0;
    if (memo._fid === fid && memo._frev === rev) return memo._fok;
    const ok = matchesPrepared(row, f, this);
    // A pending call's latency grows with time: do not memoize it under a latency filter.
    if (!(f.minLatencyMs > 0 && row.type === 'call' && row.status === 'pending')) {
      memo._fid = fid;
      memo._frev = rev;
      memo._fok = ok;
    }
    return ok;
  }

  // ---- SSE stream table -------------------------------------------------------------------

  /** Every SSE block of an exchange's response stream, in offset order (DevTools' EventStream table). */
  streamOf(exchangeId: string): StreamEntry[] {
    const b = this.buckets.get(exchangeId);
    if (!b) return [];
    if (b.streamCache && b.streamCache.rev === b.streamRev) return b.streamCache.entries;
    const entries: StreamEntry[] = [];
    for (const m of b.messages) {
      if (!SSE_CARRIERS.has(m.carrier)) continue;
      entries.push({
        seq: m.seq,
        ts: m.ts,
        what: 'message',
        eventId: m.location?.eventId,
        eventType: m.location?.eventType,
        summary: messageSummary(m),
        offset: m.location?.offset ?? -1,
        length: m.location?.length ?? m.size,
        messageSeq: m.seq,
        kind: m.kind,
        method: m.method,
        replayOf: m.replayOf,
      });
    }
    for (const s of b.sse) {
      entries.push({
        seq: s.seq,
        ts: s.ts,
        what: s.what,
        eventId: s.eventId,
        eventType: s.eventType,
        retry: s.retry,
        summary: sseSummary(s),
        offset: s.location?.offset ?? -1,
        length: s.location?.length ?? s.raw?.length ?? 0,
      });
    }
    entries.sort((a, c) => a.offset - c.offset || a.seq - c.seq);
    b.streamCache = { rev: b.streamRev, entries };
    return entries;
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

function messageSummary(m: MessageEvent): string {
  let text = m.raw;
  if (text === undefined) {
    try {
      text = JSON.stringify(m.jsonrpc) ?? '';
    } catch {
      text = jsonText(m.jsonrpc, 200);
    }
  }
  return truncate(text, 200);
}

function sseSummary(s: SseFrameEvent): string {
  switch (s.what) {
    case 'comment':
      return `: ${s.comment ?? ''}`.trimEnd();
    case 'priming': {
      const parts: string[] = [];
      if (s.eventId !== undefined) parts.push(`id: ${s.eventId}`);
      if (s.retry !== undefined) parts.push(`retry: ${s.retry}`);
      return parts.length > 0 ? parts.join(' ') : 'priming event';
    }
    case 'endpoint':
      return truncate(s.data ?? '', 200);
    default:
      return truncate(`${s.eventType ? `${s.eventType}: ` : ''}${s.data ?? s.raw ?? ''}`, 200);
  }
}

/** An empty, frozen row list (handy default for components). */
export const EMPTY_ROWS = NO_ROWS;
