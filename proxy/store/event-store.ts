/**
 * The in-memory event store: an append-only log of events in wire order plus index maps
 * (latest session and exchange by id, messages by session, message by seq), in the manner of
 * mitmproxy's flow store. Events are stamped with `seq` here. Listeners (the feed, the NDJSON
 * recorder) receive each committed batch once.
 */
import type {
  ExchangeInfo,
  McpscopeEvent,
  MessageEvent,
  SessionInfo,
  UnsequencedEvent,
} from '../model/events.js';

type Listener = (batch: readonly McpscopeEvent[]) => void;

export class EventStore {
  /** Random id of this store: feed clients learn from it that mcpscope restarted. */
  readonly instance = Math.random().toString(36).slice(2, 10) + Date.now().toString(36);
  private log: McpscopeEvent[] = [];
  private seq = 0;
  private batch: McpscopeEvent[] = [];
  private listeners = new Set<Listener>();
  /** Latest seq of each session/exchange upsert: older upserts are skipped in snapshots. */
  private latestUpsert = new Map<string, number>();
  readonly sessions = new Map<string, SessionInfo>();
  readonly exchanges = new Map<string, ExchangeInfo>();
  private messagesBySession = new Map<string, MessageEvent[]>();
  private messagesBySeq = new Map<number, MessageEvent>();

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

  append<E extends UnsequencedEvent>(event: E): E & { seq: number } {
    this.seq += 1;
    const e = { ...event, seq: this.seq } as unknown as McpscopeEvent;
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
      case 'message': {
        let list = this.messagesBySession.get(e.sessionId);
        if (!list) this.messagesBySession.set(e.sessionId, (list = []));
        list.push(e);
        this.messagesBySeq.set(e.seq, e);
        break;
      }
    }
    return e as unknown as E & { seq: number };
  }

  /** Hands the events appended since the last commit to every listener. */
  commit(): void {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    for (const listener of this.listeners) {
      try {
        listener(batch);
      } catch (err) {
        process.emitWarning(`mcpscope: an event listener failed: ${(err as Error).message}`);
      }
    }
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
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

  /** All events with seq > since, skipping session/exchange upserts that a later one superseded. */
  snapshot(since = 0): McpscopeEvent[] {
    const out: McpscopeEvent[] = [];
    for (const e of this.log) {
      if (e.seq <= since) continue;
      if (e.type === 'session' && this.latestUpsert.get(`s:${e.session.id}`) !== e.seq) continue;
      if (e.type === 'exchange' && this.latestUpsert.get(`x:${e.exchange.id}`) !== e.seq) continue;
      out.push(e);
    }
    return out;
  }

  clear(): void {
    this.log = [];
    this.batch = [];
    this.latestUpsert.clear();
    this.sessions.clear();
    this.exchanges.clear();
    this.messagesBySession.clear();
    this.messagesBySeq.clear();
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
