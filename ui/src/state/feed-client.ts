/**
 * The WebSocket feed client: hello → snapshot → live batches into the store, batched once per
 * animation frame (at most INGEST_BUDGET_MS of ingesting per frame; while the snapshot streams
 * in, the UI hears of it at most every SNAPSHOT_NOTIFY_MS rather than every frame); reconnects by
 * itself (250 ms doubling to 5 s) with `?since=<last seq>`; notices a restarted mcpscope and
 * reloads; fills `dropped` gaps from api/events; pause holds events (bounded) without
 * disconnecting.
 */
import type { FeedMessage, McpscopeEvent } from '../../../proxy/core/model/events.js';
import { fromFeed } from '../../../proxy/core/model/feed-form.js';
import type { TimelineStore } from './store.js';
import type { FeedStatus } from './types.js';
import { apiPath, apiRequest, feedUrlFor } from './api.js';

export interface FeedClientOptions {
  /** Feed URL; default `ws` next to the page (`ws(s)://host/ws`; the page's cookie carries the token). */
  url?: string;
  onStatus?: (status: FeedStatus, detail?: string) => void;
  /** Runs a callback before the next paint; default: requestAnimationFrame (with a timer fallback for hidden tabs). */
  schedule?: (cb: () => void) => void;
  WebSocketImpl?: typeof WebSocket;
  fetchImpl?: typeof fetch;
  /** Most events held while paused (default MAX_HELD_EVENTS = 200,000). */
  maxHeld?: number;
  /** Milliseconds clock for the ingest budget and the snapshot's re-render rate; default performance.now. */
  now?: () => number;
}

/** The hello the server sent on the current connection. */
export interface FeedHello {
  schemaVersion: number;
  version: string;
  showSecrets: boolean;
  /** The server store's instance id (changes when mcpscope restarts). */
  instance?: string;
  firstSeq: number;
  lastSeq: number;
}

/** Most events held while paused; beyond this the oldest are let go and re-fetched on resume. */
export const MAX_HELD_EVENTS = 200_000;
const BACKOFF_INITIAL_MS = 250;
export const BACKOFF_MAX_MS = 5_000;
/** Most time one frame spends ingesting; what is left waits for the next frame. */
export const INGEST_BUDGET_MS = 10;
/** Events ingested between two looks at the clock. */
export const INGEST_SLICE = 1_000;
/**
 * While a snapshot streams in, the store's subscribers (the UI) hear of new events at most this
 * often — at once for the first chunk, and at once when the snapshot is done.
 */
export const SNAPSHOT_NOTIFY_MS = 200;

type ConnState = 'connecting' | 'live' | 'reconnecting' | 'offline';

function defaultSchedule(cb: () => void): void {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    cb();
  };
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(run);
  // rAF does not run in background tabs: a timer keeps the store current there (throttled by the browser).
  setTimeout(run, 100);
}

export class FeedClient {
  private readonly store: TimelineStore;
  private readonly options: FeedClientOptions;
  private readonly scheduleFn: (cb: () => void) => void;
  private readonly now: () => number;
  private ws: WebSocket | undefined;
  private stopped = true;
  private _paused = false;
  private conn: ConnState = 'offline';
  private connDetail: string | undefined;
  private lastStatus: string | undefined;
  /** Received, not yet ingested: `pending` from `pendingFrom` on (held while paused or while a gap is being fetched). */
  private pending: McpscopeEvent[] = [];
  private pendingFrom = 0;
  /** When (`now`) the store's subscribers were last told of ingested events on this connection. */
  private notifiedAt = -Infinity;
  private flushScheduled = false;
  /** Highest seq received from this server. */
  private seenSeq = 0;
  /** `since` the current connection was opened with. */
  private connectedSince = 0;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Gap fetches in flight (ingestion waits for them, to keep wire order). */
  private blocked = 0;
  /** Bumped on clear/restart: late fetch results of an older epoch are discarded. */
  private epoch = 0;
  /** Held events let go during a long pause: fetched again on resume. */
  private overflow: { from: number; to: number } | undefined;
  private _hello: FeedHello | undefined;
  /** Instance id of the server we last talked to (survives reconnects). */
  private lastInstance: string | undefined;
  private _snapshotDone = false;
  private _lastError: string | undefined;

  constructor(store: TimelineStore, options: FeedClientOptions = {}) {
    this.store = store;
    this.options = options;
    this.scheduleFn = options.schedule ?? defaultSchedule;
    this.now = options.now ?? (() => performance.now());
  }

  // ---- public API -------------------------------------------------------------------------

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.attempt = 0;
    this.connect('connecting');
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.dropSocket();
    this.setConn('offline');
  }

  pause(): void {
    if (this._paused) return;
    this._paused = true;
    this.emitStatus();
  }

  resume(): void {
    if (!this._paused) return;
    this._paused = false;
    if (this.overflow) {
      const { from, to } = this.overflow;
      this.overflow = undefined;
      this.fillGap(from, to);
    }
    this.scheduleFlush();
    this.emitStatus();
  }

  get paused(): boolean {
    return this._paused;
  }

  /** The status last reported to `onStatus`. */
  get status(): FeedStatus {
    return this.effectiveStatus();
  }

  /** Events received but not yet in the store (held while paused). */
  get held(): number {
    return this.pending.length - this.pendingFrom;
  }

  /** The server's hello on the current connection (version, showSecrets…). */
  get hello(): FeedHello | undefined {
    return this._hello;
  }

  /** Whether the snapshot of the current connection has been received completely. */
  get snapshotDone(): boolean {
    return this._snapshotDone;
  }

  /** Highest seq received so far (what the next reconnect asks `since`). */
  get lastSeq(): number {
    return this.seenSeq;
  }

  /** Reconnect attempts since the last successful hello. */
  get reconnectAttempt(): number {
    return this.attempt;
  }

  /** The last gap-fetch failure, if any. */
  get lastError(): string | undefined {
    return this._lastError;
  }

  // ---- status -----------------------------------------------------------------------------

  private effectiveStatus(): FeedStatus {
    return this.conn === 'live' && this._paused ? 'paused' : this.conn;
  }

  private setConn(conn: ConnState, detail?: string): void {
    this.conn = conn;
    this.connDetail = detail;
    this.emitStatus();
  }

  private emitStatus(): void {
    const status = this.effectiveStatus();
    const detail = status === 'paused' ? (this.held > 0 ? `${this.held} events held` : undefined) : this.connDetail;
    const key = `${status}\u0000${detail ?? ''}`;
    if (key === this.lastStatus) return;
    this.lastStatus = key;
    this.options.onStatus?.(status, detail);
  }

  // ---- connection -------------------------------------------------------------------------

  private feedUrl(since: number): string {
    const base = this.options.url ?? (typeof location !== 'undefined' ? feedUrlFor(location.href) : 'ws://127.0.0.1/ws');
    const url = new URL(base, typeof location !== 'undefined' ? location.href : undefined);
    if (since > 0) url.searchParams.set('since', String(since));
    else url.searchParams.delete('since');
    return url.toString();
  }

  /** Same-origin API URL (`apiPath`) derived from the feed URL (keeps a `token` parameter if the feed URL has one). */
  apiUrl(path: string, query: Record<string, string | number> = {}): string {
    const ws = new URL(this.feedUrl(0));
    const proto = ws.protocol === 'wss:' ? 'https:' : ws.protocol === 'ws:' ? 'http:' : ws.protocol;
    const prefix = ws.pathname.replace(/\/ws\/?$/, '');
    const params = new URLSearchParams();
    const token = ws.searchParams.get('token');
    if (token !== null) params.set('token', token);
    for (const [k, v] of Object.entries(query)) params.set(k, String(v));
    const qs = params.toString();
    return `${proto}//${ws.host}${prefix}/${apiPath(path)}${qs ? `?${qs}` : ''}`;
  }

  private connect(state: ConnState, detail?: string): void {
    if (this.stopped) return;
    this.retryTimer = undefined;
    this.setConn(state, detail);
    const since = this.seenSeq;
    const Impl = this.options.WebSocketImpl ?? (typeof WebSocket !== 'undefined' ? WebSocket : undefined);
    if (!Impl) {
      this.setConn('offline', 'WebSocket is not available');
      return;
    }
    let ws: WebSocket;
    try {
      ws = new Impl(this.feedUrl(since));
    } catch (err) {
      this._lastError = (err as Error).message;
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    this.connectedSince = since;
    this._hello = undefined;
    this._snapshotDone = false;
    this.notifiedAt = -Infinity;
    ws.onmessage = (ev: { data: unknown }) => {
      if (this.ws === ws) this.onFeedMessage(ev.data);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = undefined;
      this.scheduleReconnect();
    };
    ws.onerror = () => {
      // A close event follows; nothing to do here.
    };
  }

  private dropSocket(): void {
    const ws = this.ws;
    this.ws = undefined;
    if (!ws) return;
    ws.onmessage = null;
    ws.onclose = null;
    ws.onerror = null;
    try {
      ws.close();
    } catch {
      // already closed
    }
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    this.attempt++;
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * 2 ** Math.min(this.attempt - 1, 16));
    this.setConn('reconnecting', `attempt ${this.attempt}, retrying in ${delay < 1000 ? `${delay} ms` : `${delay / 1000} s`}`);
    this.retryTimer = setTimeout(() => this.connect('reconnecting', `attempt ${this.attempt}`), delay);
  }

  /** mcpscope restarted (its seqs started over): forget everything and take its full snapshot. */
  private restarted(): void {
    this.epoch++;
    this.pending = [];
    this.pendingFrom = 0;
    this.overflow = undefined;
    this.blocked = 0;
    this.seenSeq = 0;
    this.store.clear();
    this.dropSocket();
    this.connect('connecting', 'mcpscope restarted: reloading');
  }

  // ---- feed messages ----------------------------------------------------------------------

  private onFeedMessage(data: unknown): void {
    let msg: FeedMessage;
    try {
      msg = JSON.parse(typeof data === 'string' ? data : String(data)) as FeedMessage;
    } catch {
      return;
    }
    if (!msg || typeof msg !== 'object') return;
    switch (msg.type) {
      case 'hello': {
        // A different instance id (or, from an older server, seqs that went backwards) means
        // mcpscope restarted: what we hold is from another life.
        const otherInstance = this.lastInstance !== undefined && msg.instance !== undefined && msg.instance !== this.lastInstance;
        if (this.connectedSince > 0 && (otherInstance || msg.lastSeq < this.connectedSince)) {
          this.lastInstance = msg.instance;
          this.restarted();
          return;
        }
        this.lastInstance = msg.instance;
        this._hello = {
          schemaVersion: msg.schemaVersion,
          version: msg.version,
          showSecrets: msg.showSecrets,
          instance: msg.instance,
          firstSeq: msg.firstSeq,
          lastSeq: msg.lastSeq,
        };
        this.attempt = 0;
        this.setConn('live');
        return;
      }
      case 'snapshot':
        if (this.receive(msg.events) && msg.done) this._snapshotDone = true;
        return;
      case 'events':
        this.receive(msg.events);
        return;
      case 'dropped':
        this.store.noteDropped(msg.count);
        this.fillGap(msg.fromSeq, msg.toSeq);
        return;
      case 'cleared':
        this.epoch++;
        this.pending = [];
        this.pendingFrom = 0;
        this.overflow = undefined;
        this.blocked = 0;
        this.store.clear();
        this.emitStatus();
        return;
      default:
        return;
    }
  }

  /** Buffers events for the next frame. Returns false when they revealed a restarted server. */
  private receive(events: McpscopeEvent[] | undefined): boolean {
    if (!Array.isArray(events) || events.length === 0) return true;
    const checkRestart = this.connectedSince > 0;
    for (const e of events) {
      if (!e || typeof e.seq !== 'number') continue;
      // Ids restart with the server (s1, x1…): a known id with another start time means a new mcpscope.
      if (checkRestart && this.looksRestarted(e)) {
        this.restarted();
        return false;
      }
      if (e.seq > this.seenSeq) this.seenSeq = e.seq;
      this.pending.push(fromFeed(e));
    }
    if (this._paused) {
      this.trimHeld();
      this.emitStatus();
    } else this.scheduleFlush();
    return true;
  }

  private looksRestarted(e: McpscopeEvent): boolean {
    if (e.type === 'session' && e.session) {
      const known = this.store.sessions.get(e.session.id);
      return known !== undefined && known.startedAt !== e.session.startedAt;
    }
    if (e.type === 'exchange' && e.exchange) {
      const known = this.store.exchanges.get(e.exchange.id);
      return known !== undefined && known.startedAt !== e.exchange.startedAt;
    }
    return false;
  }

  /** While paused: keep at most MAX_HELD_EVENTS, the newest; remember what was let go. */
  private trimHeld(): void {
    const excess = this.held - (this.options.maxHeld ?? MAX_HELD_EVENTS);
    if (excess <= 0) return;
    const gone = this.takePending(excess);
    let from = Infinity;
    let to = -Infinity;
    for (const e of gone) {
      if (e.seq < from) from = e.seq;
      if (e.seq > to) to = e.seq;
    }
    if (this.overflow) {
      from = Math.min(from, this.overflow.from);
      to = Math.max(to, this.overflow.to);
    }
    this.overflow = { from, to };
  }

  /** Fetches events fromSeq..toSeq from the API and queues those the store lacks. */
  private fillGap(fromSeq: number, toSeq: number): void {
    if (!(toSeq >= fromSeq)) return;
    const fetchImpl = this.options.fetchImpl ?? (typeof fetch !== 'undefined' ? fetch.bind(globalThis) : undefined);
    if (!fetchImpl) return;
    const epoch = this.epoch;
    this.blocked++;
    const url = this.apiUrl('events', { since: Math.max(0, fromSeq - 1) });
    let finished = false;
    const finish = () => {
      if (finished || epoch !== this.epoch) return;
      finished = true;
      this.blocked = Math.max(0, this.blocked - 1);
      this.scheduleFlush();
    };
    let request: Promise<Response>;
    try {
      request = apiRequest(url, { headers: { accept: 'application/json' } }, fetchImpl);
    } catch (err) {
      this._lastError = `could not fetch missed events: ${(err as Error).message}`;
      finish();
      return;
    }
    request
      .then(async (res) => {
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        return (await res.json()) as McpscopeEvent[];
      })
      .then((events) => {
        if (epoch !== this.epoch || !Array.isArray(events)) return;
        let n = 0;
        for (const e of events) {
          if (e && typeof e.seq === 'number' && e.seq >= fromSeq && e.seq <= toSeq && !this.store.has(e.seq)) {
            this.pending.push(e);
            n++;
          }
        }
        this.store.noteRefetched(n);
      })
      .catch((err: unknown) => {
        this._lastError = `could not fetch missed events: ${(err as Error)?.message ?? String(err)}`;
      })
      .finally(finish);
  }

  // ---- batching ---------------------------------------------------------------------------

  /** Whether there are events to ingest and nothing holds them back. */
  private canIngest(): boolean {
    return !this._paused && this.blocked === 0 && this.held > 0;
  }

  /** Whether the snapshot of the current connection is still streaming in. */
  private loadingSnapshot(): boolean {
    return this.ws !== undefined && this._hello !== undefined && !this._snapshotDone;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || !(this.canIngest() || this.store.notifyPending)) return;
    this.flushScheduled = true;
    this.scheduleFn(() => this.flush());
  }

  /**
   * One frame's work: ingests what was received, for at most INGEST_BUDGET_MS (the rest is left
   * for the next frame), then tells the store's subscribers — while the snapshot streams in, at
   * most every SNAPSHOT_NOTIFY_MS.
   */
  private flush(): void {
    this.flushScheduled = false;
    const start = this.now();
    if (this.canIngest()) {
      do this.store.ingest(this.takePending(INGEST_SLICE), { notify: false });
      while (this.canIngest() && this.now() - start < INGEST_BUDGET_MS);
    }
    if (this.store.notifyPending && (!this.loadingSnapshot() || start - this.notifiedAt >= SNAPSHOT_NOTIFY_MS)) {
      this.notifiedAt = start;
      this.store.notify();
    }
    this.scheduleFlush();
  }

  /** Removes and returns the `n` oldest pending events. */
  private takePending(n: number): McpscopeEvent[] {
    const taken = this.pending.slice(this.pendingFrom, this.pendingFrom + n);
    this.pendingFrom += taken.length;
    if (this.pendingFrom === this.pending.length) {
      this.pending = [];
      this.pendingFrom = 0;
    } else if (this.pendingFrom > this.pending.length / 2) {
      // Let go of the taken ones once they are half the array (amortized O(1) per event).
      this.pending = this.pending.slice(this.pendingFrom);
      this.pendingFrom = 0;
    }
    return taken;
  }
}
