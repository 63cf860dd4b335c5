/**
 * The in-memory event store: an append-only log of events in wire order plus index maps
 * (latest session and exchange by id, messages by session, message by seq), in the manner of
 * mitmproxy's flow store. Events are stamped with `seq` here. Listeners (the feed, the NDJSON
 * recorder, reachability) receive each committed batch once, each in its own try/catch: one that
 * throws never keeps the batch from the others, nor breaks the store; its first failure is said
 * in a `log` event (and a process warning), later ones are not.
 */
import type { ExchangeInfo, McpscopeEvent, MessageEvent, ModelTurnInfo, SessionInfo, UnsequencedEvent } from '../../core/model/events.js';
import type { StoreStats } from '../../core/model/api-stats.js';

type Listener = (batch: readonly McpscopeEvent[]) => void;

export interface EventStoreOptions {
  /** Most events kept (default 500,000). Past it the oldest are evicted (see `evict`). */
  maxEvents?: number;
  /** Approximate bytes kept (default 512 MiB), estimated as message size + a constant per event. */
  maxBytes?: number;
  /** Share of the cap freed at once when it is exceeded (default 0.1): eviction is amortized O(1) per event. */
  evictFraction?: number;
}

/** Fixed overhead counted per event on top of a message's size (object, index entries, hints). */
export const EVENT_OVERHEAD_BYTES = 512;

/** Cheap size estimate of an event: what its payload weighs plus a constant. */
function estimateEventBytes(e: McpscopeEvent): number {
  switch (e.type) {
    case 'message':
      // jsonrpc (parsed) and raw (text) both hold the payload.
      return EVENT_OVERHEAD_BYTES + e.size * (e.raw !== undefined ? 2 : 1);
    case 'log':
      return EVENT_OVERHEAD_BYTES + e.text.length;
    case 'problem':
      return EVENT_OVERHEAD_BYTES + e.text.length + (e.raw?.length ?? 0);
    default:
      return EVENT_OVERHEAD_BYTES;
  }
}

export class EventStore {
  /** Random id of this store: feed clients learn from it that mcpscope restarted. */
  readonly instance = Math.random().toString(36).slice(2, 10) + Date.now().toString(36);
  private log: McpscopeEvent[] = [];
  private seq = 0;
  private batch: McpscopeEvent[] = [];
  private listeners = new Map<Listener, { name: string; failed: boolean }>();
  /** Latest seq of each session/exchange upsert: older upserts are skipped in snapshots. */
  private latestUpsert = new Map<string, number>();
  readonly sessions = new Map<string, SessionInfo>();
  readonly exchanges = new Map<string, ExchangeInfo>();
  /** Model turns by id, latest state (docs/agent-view.md). */
  readonly turns = new Map<string, ModelTurnInfo>();
  private messagesBySession = new Map<string, MessageEvent[]>();
  private messagesBySeq = new Map<number, MessageEvent>();
  readonly maxEvents: number;
  readonly maxBytes: number;
  private readonly evictFraction: number;
  private bytes = 0;
  /** Events and estimated bytes per session (key '' for events of no session). */
  private perSession = new Map<string, { events: number; bytes: number }>();
  private evictedEvents = 0;
  private evictedSessions = 0;
  private evicting = false;
  /** Appends to wait before trying again when an eviction could not get under the cap (every event pinned). */
  private holdOff = 0;

  constructor(options: EventStoreOptions = {}) {
    this.maxEvents = Math.max(10, options.maxEvents ?? 500_000);
    this.maxBytes = Math.max(64 * 1024, options.maxBytes ?? 512 * 1024 * 1024);
    this.evictFraction = Math.min(0.9, Math.max(0.01, options.evictFraction ?? 0.1));
  }

  /** Counts for the UI (`/api/stats`). */
  stats(): StoreStats {
    return {
      events: this.log.length,
      bytes: this.bytes,
      evictedEvents: this.evictedEvents,
      evictedSessions: this.evictedSessions,
      maxEvents: this.maxEvents,
      maxBytes: this.maxBytes,
    };
  }

  /** The seq the next appended event will get. */
  peekSeq(): number {
    return this.seq + 1;
  }

  get lastSeq(): number {
    return this.seq;
  }

  get firstSeq(): number {
    return this.log.length > 0 ? this.log[0].seq : this.seq + 1;
  }

  get size(): number {
    return this.log.length;
  }

  /** Appends `event` (the store takes it over: its `seq` is set on the object itself, not on a copy). */
  append<E extends UnsequencedEvent>(event: E): E & { seq: number } {
    this.seq += 1;
    // Set in place: a spread copy of every event, of a dozen shapes, cost more than the rest of append.
    (event as E & { seq: number }).seq = this.seq;
    const e = event as unknown as McpscopeEvent;
    this.log.push(e);
    this.batch.push(e);
    switch (e.type) {
      case 'session':
        this.sessions.set(e.session.id, e.session);
        this.latestUpsert.set(`s:${e.session.id}`, e.seq);
        break;
      case 'exchange':
        this.exchanges.set(e.exchange.id, e.exchange);
        this.latestUpsert.set(`x:${e.exchange.id}`, e.seq);
        break;
      case 'model-turn':
        this.turns.set(e.turn.id, e.turn);
        this.latestUpsert.set(`t:${e.turn.id}`, e.seq);
        break;
      case 'message': {
        let list = this.messagesBySession.get(e.sessionId);
        if (!list) this.messagesBySession.set(e.sessionId, (list = []));
        list.push(e);
        this.messagesBySeq.set(e.seq, e);
        break;
      }
    }
    const size = estimateEventBytes(e);
    this.bytes += size;
    const key = eventSession(e) ?? '';
    let acc = this.perSession.get(key);
    if (!acc) this.perSession.set(key, (acc = { events: 0, bytes: 0 }));
    acc.events += 1;
    acc.bytes += size;
    if (this.holdOff > 0) this.holdOff -= 1;
    else if (!this.evicting && (this.log.length > this.maxEvents || this.bytes > this.maxBytes)) this.evict();
    return e as unknown as E & { seq: number };
  }

  /** Hands the events appended since the last commit to every listener. */
  commit(): void {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    let reported = false;
    for (const [listener, state] of this.listeners) {
      try {
        listener(batch);
      } catch (err) {
        if (state.failed) continue;
        state.failed = true;
        reported = true;
        const text = `mcpscope: ${state.name} failed on a batch of ${batch.length} event${batch.length === 1 ? '' : 's'} (${describeError(err)}). The recording and everything else that follows the events go on; further failures of ${state.name} are not reported again.`;
        process.emitWarning(text);
        this.append({ type: 'log', ts: Date.now(), source: 'mcpscope', text });
      }
    }
    // Hand the report on at once (a listener that fails again on it is not reported twice).
    if (reported) this.commit();
  }

  /** `name` says who it is in the plain-words report of its failure ("the live feed", "the --record file"). */
  subscribe(listener: Listener, name = 'a subscriber to the recorded events'): () => void {
    this.listeners.set(listener, { name, failed: false });
    return () => this.listeners.delete(listener);
  }

  message(seq: number): MessageEvent | undefined {
    return this.messagesBySeq.get(seq);
  }

  messages(sessionId: string): readonly MessageEvent[] {
    return this.messagesBySession.get(sessionId) ?? [];
  }

  /** Events of one session (and its exchanges), in wire order, latest upserts only. */
  sessionEvents(sessionId: string): McpscopeEvent[] {
    return this.snapshot().filter((e) => eventSession(e) === sessionId);
  }

  /**
   * Every event kept, in seq order, superseded session/exchange upserts included: what a listener
   * subscribed from the start saw (the annotated log's text export replays it, proxy/files/export/text-log.ts;
   * searches walk it, proxy/recorder/store/search.ts). The store's own array, not a copy: read it at once,
   * never keep it — appends and evictions change it.
   */
  history(): readonly McpscopeEvent[] {
    return this.log;
  }

  /** All events with seq > since, skipping session/exchange upserts that a later one superseded. */
  snapshot(since = 0): McpscopeEvent[] {
    const out: McpscopeEvent[] = [];
    for (const e of this.log) {
      if (e.seq <= since) continue;
      const key = upsertKey(e);
      if (key !== undefined && this.latestUpsert.get(key) !== e.seq) continue;
      out.push(e);
    }
    return out;
  }

  /**
   * Frees `evictFraction` of the cap in one pass (so the O(n) pass is amortized over the many
   * appends it makes room for): whole closed sessions first, oldest first, then the oldest events
   * of open sessions (keeping every session's latest upsert, and an exchange's until it ended). Says so in a `log` event.
   */
  private evict(): void {
    this.evicting = true;
    try {
      const targetEvents = Math.floor(this.maxEvents * (1 - this.evictFraction));
      const targetBytes = Math.floor(this.maxBytes * (1 - this.evictFraction));
      const bytesBefore = this.bytes;
      let events = this.log.length;
      let bytes = this.bytes;
      const over = () => events > targetEvents || bytes > targetBytes;
      const why =
        this.log.length > this.maxEvents ? `more than ${this.maxEvents} events` : `more than ${Math.round(this.maxBytes / 1048576)} MiB`;
      // 1. Closed sessions, oldest first (Map order = creation order).
      const dropSessions = new Set<string>();
      for (const [id, s] of this.sessions) {
        if (!over()) break;
        if (s.status !== 'closed') continue;
        const acc = this.perSession.get(id);
        if (!acc) continue;
        dropSessions.add(id);
        events -= acc.events;
        bytes -= acc.bytes;
      }
      // 2. Still over: the oldest remaining events, whatever their session.
      let dropFront = 0;
      if (over()) {
        for (const e of this.log) {
          if (!over()) break;
          const sid = eventSession(e);
          if (sid !== undefined && dropSessions.has(sid)) continue;
          if (this.isPinned(e)) continue;
          const size = estimateEventBytes(e);
          dropFront += 1;
          events -= 1;
          bytes -= size;
        }
      }
      if (dropSessions.size === 0 && dropFront === 0) return;

      const kept: McpscopeEvent[] = [];
      const touched = new Set<string>();
      let removed = 0;
      let frontLeft = dropFront;
      for (const e of this.log) {
        const sid = eventSession(e);
        let drop = sid !== undefined && dropSessions.has(sid);
        if (!drop && frontLeft > 0 && !this.isPinned(e)) {
          drop = true;
          frontLeft -= 1;
          if (e.type === 'exchange' && this.isLatestUpsert(e)) {
            // An ended exchange's last state goes with its events.
            this.exchanges.delete(e.exchange.id);
            this.latestUpsert.delete(`x:${e.exchange.id}`);
          }
          if (e.type === 'model-turn' && this.isLatestUpsert(e)) {
            this.turns.delete(e.turn.id);
            this.latestUpsert.delete(`t:${e.turn.id}`);
          }
          const size = estimateEventBytes(e);
          const acc = this.perSession.get(sid ?? '');
          if (acc) {
            acc.events -= 1;
            acc.bytes -= size;
          }
          this.bytes -= size;
          if (e.type === 'message') touched.add(e.sessionId);
        }
        if (!drop) {
          kept.push(e);
          continue;
        }
        removed += 1;
        if (e.type === 'message') this.messagesBySeq.delete(e.seq);
      }
      this.log = kept;
      for (const id of dropSessions) {
        const acc = this.perSession.get(id);
        if (acc) this.bytes -= acc.bytes;
        this.perSession.delete(id);
        this.sessions.delete(id);
        this.latestUpsert.delete(`s:${id}`);
        this.messagesBySession.delete(id);
      }
      if (dropSessions.size > 0) {
        for (const [xid, x] of this.exchanges) {
          if (x.sessionId !== undefined && dropSessions.has(x.sessionId)) {
            this.exchanges.delete(xid);
            this.latestUpsert.delete(`x:${xid}`);
          }
        }
        for (const [tid, t] of this.turns) {
          if (dropSessions.has(t.sessionId)) {
            this.turns.delete(tid);
            this.latestUpsert.delete(`t:${tid}`);
          }
        }
      }
      for (const id of touched) {
        const list = this.messagesBySession.get(id);
        if (list)
          this.messagesBySession.set(
            id,
            list.filter((m) => this.messagesBySeq.has(m.seq)),
          );
      }
      this.evictedEvents += removed;
      this.evictedSessions += dropSessions.size;
      const parts = [
        ...(dropSessions.size > 0 ? [`${dropSessions.size} closed session${dropSessions.size === 1 ? '' : 's'}`] : []),
        ...(dropFront > 0 ? [`the ${dropFront} oldest events of open sessions`] : []),
      ];
      this.append({
        type: 'log',
        ts: Date.now(),
        source: 'mcpscope',
        text: `mcpscope evicted ${removed} events (${parts.join(' and ')}, about ${Math.round((bytesBefore - this.bytes) / 1024)} KiB) because the store held ${why} (--max-events ${this.maxEvents}, --max-memory ${Math.round(this.maxBytes / 1048576)}). The traffic itself was forwarded in full.`,
      } as UnsequencedEvent);
    } finally {
      this.evicting = false;
      if (this.log.length > this.maxEvents || this.bytes > this.maxBytes) this.holdOff = Math.ceil(this.maxEvents * this.evictFraction);
    }
  }

  /** What front eviction never removes: a session's latest state, and an exchange's until it ended. */
  private isPinned(e: McpscopeEvent): boolean {
    if (e.type === 'session') return this.latestUpsert.get(`s:${e.session.id}`) === e.seq;
    if (e.type === 'exchange') return e.exchange.endedAt === undefined && this.latestUpsert.get(`x:${e.exchange.id}`) === e.seq;
    if (e.type === 'model-turn') return e.turn.status === 'pending' && this.latestUpsert.get(`t:${e.turn.id}`) === e.seq;
    return false;
  }

  /**
   * A session or exchange upsert that a later upsert of the same session or exchange replaced.
   * The feed leaves these out of a live batch (the later one is in the same batch or a later one),
   * as the snapshot does: an exchange is upserted two or three times within milliseconds.
   */
  isSuperseded(e: McpscopeEvent): boolean {
    const key = upsertKey(e);
    const latest = key === undefined ? undefined : this.latestUpsert.get(key);
    return latest !== undefined && latest > e.seq;
  }

  private isLatestUpsert(e: McpscopeEvent): boolean {
    const key = upsertKey(e);
    return key !== undefined && this.latestUpsert.get(key) === e.seq;
  }

  clear(): void {
    this.bytes = 0;
    this.perSession.clear();
    this.log = [];
    this.batch = [];
    this.latestUpsert.clear();
    this.sessions.clear();
    this.exchanges.clear();
    this.turns.clear();
    this.messagesBySession.clear();
    this.messagesBySeq.clear();
  }
}

function describeError(err: unknown): string {
  try {
    const text = err instanceof Error ? `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}` : String(err);
    return text.length > 300 ? `${text.slice(0, 299)}…` : text;
  } catch {
    return 'an error that could not be described';
  }
}

/** The key of an upsert event (session, exchange, model turn): later ones with the same key supersede it. */
export function upsertKey(e: McpscopeEvent): string | undefined {
  switch (e.type) {
    case 'session':
      return `s:${e.session.id}`;
    case 'exchange':
      return `x:${e.exchange.id}`;
    case 'model-turn':
      return `t:${e.turn.id}`;
    default:
      return undefined;
  }
}

export function eventSession(e: McpscopeEvent): string | undefined {
  switch (e.type) {
    case 'session':
      return e.session.id;
    case 'exchange':
      return e.exchange.sessionId;
    default:
      return e.sessionId;
  }
}
