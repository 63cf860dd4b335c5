/**
 * The live feed: a snapshot then live events over WebSocket — never buffered without bound.
 * Nothing here can slow the proxy: the store hands batches over after the recorder ran, and a
 * slow socket only ever costs that socket its events (it is told how many with a `dropped`
 * message) or, past the limits below, its connection.
 *
 * Memory, per consumer and in total (docs/event-schema.md#the-websocket-feed):
 * - What a consumer has not been sent yet waits as references to the store's events (the rest of
 *   its snapshot, then live events in seq order), never as bytes. Bytes exist only for messages
 *   handed to its socket, and a message is handed over only while the socket's unsent bytes are
 *   under `maxBufferedBytes`; the next one waits for a write to complete (ws's send callback).
 *   A message holds at most `snapshotChunk` events and about `messageBytes` of JSON, so one
 *   consumer holds at most `maxBufferedBytes` + one message.
 * - Live events that arrive while a consumer is still being sent its snapshot (or is behind) are
 *   queued after it, in order; past `maxQueuedEvents` they are no longer queued but read again
 *   from the store by seq when the queue has drained. A consumer that reads is sent every event.
 * - A consumer blocked by `maxBufferedBytes` that completes no write for `stallMs` is stalled:
 *   its queued live events are dropped, and so are those that arrive until it reads again; then
 *   it is sent `{type:"dropped", count, fromSeq, toSeq}` and what came after.
 * - A consumer stalled for `cutOffMs`, or stalled while all consumers together hold more than
 *   `maxTotalBufferedBytes` unsent, is cut off: closed with FEED_CUT_OFF_CODE, its buffer freed.
 *   While the total is over that budget no consumer is sent more.
 * Serialization never throws out of here: an event that cannot be serialized is sent as a small
 * stub saying so (feed-form.ts `unserializableStub`), and the first failure is reported once.
 */
import type { WebSocket } from 'ws';
import type { FeedMessage, McpscopeEvent } from '../../core/model/events.js';
import { EVENT_SCHEMA_VERSION } from '../../core/model/events.js';
import type { EventStore } from '../../recorder/store/event-store.js';
import { toFeed, unserializableStub } from '../../core/model/feed-form.js';

const MiB = 1024 * 1024;

/** The WebSocket close code of a consumer cut off for not reading (docs/event-schema.md). */
export const FEED_CUT_OFF_CODE = 4008;

/** The limits when FeedOptions leaves them out; docs/event-schema.md states them (test/unit/feed.test.ts checks that it does). */
export const FEED_DEFAULTS = {
  maxBufferedBytes: 1 * MiB,
  maxTotalBufferedBytes: 64 * MiB,
  stallMs: 1000,
  cutOffMs: 30_000,
  flushMs: 25,
  snapshotChunk: 2000,
  messageBytes: 64 * 1024,
  maxQueuedEvents: 100_000,
} as const;

export interface FeedOptions {
  /** Unsent bytes one consumer's socket may hold before it is sent more. Default 1 MiB. */
  maxBufferedBytes?: number;
  /** Unsent bytes all consumers together may hold; past it no one is sent more and stalled consumers are cut off. Default 64 MiB. */
  maxTotalBufferedBytes?: number;
  /**
   * How long a consumer blocked by `maxBufferedBytes` may complete no write before it counts as
   * stalled (its live events are dropped until it reads). Default 1000 ms: a consumer busy for a
   * moment (a GC, a layout, a test process generating load) is not dropped from.
   */
  stallMs?: number;
  /** How long a consumer may stay stalled before it is cut off. Default 30 s. */
  cutOffMs?: number;
  /** Coalescing window for live events. Default 25 ms. */
  flushMs?: number;
  /** Most events per message. Default 2000. */
  snapshotChunk?: number;
  /** About the most JSON per message (it ends after the event that passes this). Default 64 KiB: small enough to be young garbage, so a fast consumer leaves little behind. */
  messageBytes?: number;
  /** Live events queued (as references) per consumer; past it they are read from the store again. Default 100,000. */
  maxQueuedEvents?: number;
  version: string;
  showSecrets: boolean;
}

/** In a consumer's queue: here it is told of the events dropped while it was stalled. */
class DroppedMark {
  constructor(
    public count: number,
    readonly fromSeq: number,
    public toSeq: number,
  ) {}
}

interface Client {
  ws: WebSocket;
  /** What it has not been sent yet, in seq order: its snapshot's events, then live ones (and dropped marks). */
  pending: (McpscopeEvent | DroppedMark)[];
  /** Next index of `pending` to send. */
  pos: number;
  /** Index in `pending` where the snapshot ends; -1 once its `done` message went out. */
  snapshotEnd: number;
  /** Every event up to this seq is in `pending` (or was sent, or counted as dropped). */
  queuedTo: number;
  /** Live events past `queuedTo` were not queued (too many): read them from the store when `pending` drains. */
  behind: boolean;
  /** Live coalescing timer. */
  timer?: NodeJS.Timeout;
  /** While blocked: fires when it has completed no write for stallMs (then cutOffMs). */
  stallTimer?: NodeJS.Timeout;
  stalled: boolean;
  /** The live events dropped since it stalled, counted; queued as the `dropped` notice once it reads again. */
  drop?: DroppedMark;
  gone: boolean;
}

export class FeedHub {
  private clients = new Set<Client>();
  /** Consumers waiting for the total of unsent bytes to fall. */
  private waitingForTotal = new Set<Client>();
  private unsubscribe: () => void;
  private readonly maxBufferedBytes: number;
  private readonly maxTotalBufferedBytes: number;
  private readonly flushMs: number;
  private readonly stallMs: number;
  private readonly cutOffMs: number;
  private readonly snapshotChunk: number;
  private readonly messageBytes: number;
  private readonly maxQueuedEvents: number;
  private reportedUnserializable = false;
  private stallWaiters: (() => void)[] = [];

  constructor(
    private readonly store: EventStore,
    private readonly options: FeedOptions,
  ) {
    const d = FEED_DEFAULTS;
    this.maxBufferedBytes = options.maxBufferedBytes ?? d.maxBufferedBytes;
    this.maxTotalBufferedBytes = options.maxTotalBufferedBytes ?? d.maxTotalBufferedBytes;
    this.flushMs = options.flushMs ?? d.flushMs;
    this.stallMs = options.stallMs ?? d.stallMs;
    this.cutOffMs = Math.max(options.cutOffMs ?? d.cutOffMs, this.stallMs);
    this.snapshotChunk = Math.max(1, options.snapshotChunk ?? d.snapshotChunk);
    this.messageBytes = options.messageBytes ?? d.messageBytes;
    this.maxQueuedEvents = options.maxQueuedEvents ?? d.maxQueuedEvents;
    this.unsubscribe = store.subscribe((batch) => {
      for (const c of this.clients) this.take(c, batch);
    }, 'the live feed');
  }

  get size(): number {
    return this.clients.size;
  }

  /** Consumers now counted as stalled (their live events are being dropped). */
  get stalledCount(): number {
    let n = 0;
    for (const c of this.clients) if (c.stalled) n++;
    return n;
  }

  /** Resolves once a consumer is counted as stalled (at once if one is): lets a test wait for the drop rule without sleeping. */
  whenStalled(): Promise<void> {
    if (this.stalledCount > 0) return Promise.resolve();
    return new Promise((resolve) => this.stallWaiters.push(resolve));
  }

  /** Adopts an upgraded socket: hello, snapshot of everything after `since`, then live batches. */
  add(ws: WebSocket, since = 0): void {
    const snapshot: (McpscopeEvent | DroppedMark)[] = this.store.snapshot(since);
    const client: Client = {
      ws,
      pending: snapshot,
      pos: 0,
      snapshotEnd: snapshot.length,
      // The snapshot holds appended events the store has not committed yet: their batch is not queued again.
      queuedTo: this.store.lastSeq,
      behind: false,
      stalled: false,
      gone: false,
    };
    this.clients.add(client);
    ws.on('close', () => this.remove(client));
    ws.on('error', () => this.remove(client));
    // The UI may send {"type":"ping"}; nothing else is accepted from it.
    ws.on('message', () => undefined);
    this.sendControl(client, {
      type: 'hello',
      schemaVersion: EVENT_SCHEMA_VERSION,
      version: this.options.version,
      showSecrets: this.options.showSecrets,
      instance: this.store.instance,
      firstSeq: this.store.firstSeq,
      lastSeq: this.store.lastSeq,
    });
    this.pump(client);
  }

  /** Tell every client the store was cleared. */
  cleared(): void {
    for (const c of this.clients) {
      // A snapshot being sent ends here (empty), so that `cleared` comes after its `done`.
      if (c.snapshotEnd >= 0) this.sendControl(c, { type: 'snapshot', events: [], done: true });
      c.pending = [];
      c.pos = 0;
      c.snapshotEnd = -1;
      c.behind = false;
      c.queuedTo = this.store.lastSeq;
      c.drop = undefined;
      this.sendControl(c, { type: 'cleared' });
    }
  }

  /**
   * Says goodbye to every client. One that does not complete the close handshake within
   * `graceMs` (a frozen tab, a consumer that stopped reading) is cut off: without that, its
   * socket would hold the UI server — and mcpscope's shutdown — open for ws's 30 s close timeout.
   */
  close(graceMs = 500): Promise<void> {
    this.unsubscribe();
    const closing = [...this.clients].map((c) => {
      this.forget(c);
      return new Promise<void>((resolve) => {
        if (c.ws.readyState === c.ws.CLOSED) return resolve();
        const timer = setTimeout(() => c.ws.terminate(), graceMs);
        c.ws.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        c.ws.close(1001, 'mcpscope is shutting down');
      });
    });
    this.clients.clear();
    this.waitingForTotal.clear();
    return Promise.all(closing).then(() => undefined);
  }

  /** A committed batch: queued for the consumer (as references), counted as dropped, or left to be read from the store. */
  private take(c: Client, batch: readonly McpscopeEvent[]): void {
    let i = 0;
    while (i < batch.length && batch[i].seq <= c.queuedTo) i++;
    if (i === batch.length) return;
    const last = batch[batch.length - 1].seq;
    if (c.stalled) {
      this.countDropped(c, batch[i].seq, last, batch.length - i);
      c.queuedTo = last;
      return;
    }
    if (c.behind) return;
    const live = c.pending.length - Math.max(c.pos, c.snapshotEnd);
    if (live + batch.length - i > this.maxQueuedEvents) {
      c.behind = true;
      return;
    }
    for (; i < batch.length; i++) c.pending.push(batch[i]);
    c.queuedTo = last;
    this.schedule(c);
  }

  private countDropped(c: Client, fromSeq: number, toSeq: number, count: number): void {
    if (count <= 0) return;
    c.drop ??= new DroppedMark(0, fromSeq, toSeq);
    c.drop.count += count;
    c.drop.toSeq = toSeq;
  }

  private schedule(c: Client): void {
    if (c.timer) return;
    c.timer = setTimeout(() => {
      c.timer = undefined;
      this.pump(c);
    }, this.flushMs);
    c.timer.unref?.();
  }

  private hasWork(c: Client): boolean {
    return c.pos < c.pending.length || c.snapshotEnd >= 0 || c.behind;
  }

  private totalBuffered(): number {
    let total = 0;
    for (const c of this.clients) total += c.ws.bufferedAmount;
    return total;
  }

  /** Sends what it can: message after message while the socket (and all sockets together) are within their budgets. */
  private pump(c: Client): void {
    while (!c.gone && c.ws.readyState === c.ws.OPEN && this.hasWork(c)) {
      if (c.ws.bufferedAmount >= this.maxBufferedBytes) {
        // Blocked: a completed write (the send callback) pumps again; none for stallMs → stalled.
        if (c.stallTimer === undefined && !c.stalled) {
          c.stallTimer = setTimeout(() => this.onStall(c), this.stallMs);
          c.stallTimer.unref?.();
        }
        return;
      }
      if (this.totalBuffered() >= this.maxTotalBufferedBytes) {
        this.cutOffStalled();
        if (this.totalBuffered() >= this.maxTotalBufferedBytes) {
          this.waitingForTotal.add(c);
          return;
        }
      }
      this.sendNext(c);
    }
  }

  /** One message: the next snapshot chunk, live events, a dropped notice, or a refill from the store. */
  private sendNext(c: Client): void {
    if (c.pos >= c.pending.length && c.snapshotEnd < 0) {
      // behind: what was not queued is read from the store, after what was.
      c.pending = this.store.snapshot(c.queuedTo);
      c.pos = 0;
      c.queuedTo = this.store.lastSeq;
      c.behind = false;
      return;
    }
    const first = c.pending[c.pos];
    if (first instanceof DroppedMark) {
      c.pos++;
      this.sendControl(c, { type: 'dropped', count: first.count, fromSeq: first.fromSeq, toSeq: first.toSeq });
      return;
    }
    const inSnapshot = c.snapshotEnd >= 0;
    const end = inSnapshot ? c.snapshotEnd : c.pending.length;
    const parts: string[] = [];
    let bytes = 0;
    while (c.pos < end && parts.length < this.snapshotChunk && bytes < this.messageBytes) {
      const e = c.pending[c.pos];
      if (e instanceof DroppedMark) break;
      c.pos++;
      // An exchange/session upsert that a later one replaced is left out (the later one is queued
      // after it, or was in the snapshot): an exchange is upserted two or three times within ms.
      if (this.store.isSuperseded(e)) continue;
      const json = this.serialize(e);
      parts.push(json);
      bytes += json.length;
    }
    if (inSnapshot) {
      const done = c.pos >= c.snapshotEnd;
      if (done) c.snapshotEnd = -1;
      this.write(c, `{"type":"snapshot","events":[${parts.join(',')}],"done":${done}}`);
    } else if (parts.length > 0) {
      this.write(c, `{"type":"events","events":[${parts.join(',')}]}`);
    }
    // What was sent is let go of (references only, but they may be events the store evicted).
    if (c.pos >= 4096 && c.pos * 2 >= c.pending.length) {
      c.pending = c.pending.slice(c.pos);
      if (c.snapshotEnd >= 0) c.snapshotEnd -= c.pos;
      c.pos = 0;
    }
  }

  private write(c: Client, text: string): void {
    c.ws.send(text, (err) => {
      if (!err) this.onWritten(c);
    });
  }

  /** A write completed: the consumer is reading. */
  private onWritten(c: Client): void {
    if (c.gone) return;
    clearTimeout(c.stallTimer);
    c.stallTimer = undefined;
    if (c.stalled) {
      c.stalled = false;
      if (c.drop) {
        // Told after everything queued before the gap, before anything after it.
        c.pending.push(c.drop);
        c.drop = undefined;
      }
    }
    this.pump(c);
    this.wakeWaiting();
  }

  private wakeWaiting(): void {
    if (this.waitingForTotal.size === 0) return;
    const waiting = [...this.waitingForTotal];
    this.waitingForTotal.clear();
    for (const w of waiting) this.pump(w);
  }

  /** Blocked, and no write completed for stallMs: drop its live events until it reads; cut it off if that goes on. */
  private onStall(c: Client): void {
    c.stallTimer = undefined;
    if (c.gone) return;
    if (c.ws.bufferedAmount < this.maxBufferedBytes) return this.pump(c);
    c.stalled = true;
    // Its queued live events (after the snapshot and what was sent) are dropped, and counted.
    const from = Math.max(c.pos, c.snapshotEnd);
    for (let i = from; i < c.pending.length; i++) {
      const e = c.pending[i];
      if (e instanceof DroppedMark) this.countDropped(c, e.fromSeq, e.toSeq, e.count);
      else this.countDropped(c, e.seq, e.seq, 1);
    }
    c.pending.length = from;
    if (c.behind) {
      this.countDropped(c, c.queuedTo + 1, this.store.lastSeq, this.store.lastSeq - c.queuedTo);
      c.queuedTo = this.store.lastSeq;
      c.behind = false;
    }
    for (const resolve of this.stallWaiters.splice(0)) resolve();
    if (this.totalBuffered() >= this.maxTotalBufferedBytes) return this.cutOff(c);
    c.stallTimer = setTimeout(() => this.cutOff(c), this.cutOffMs - this.stallMs);
    c.stallTimer.unref?.();
  }

  private cutOffStalled(): void {
    for (const c of this.clients) if (c.stalled) this.cutOff(c);
  }

  /** Closes a consumer that stopped reading, and frees what it held. */
  private cutOff(c: Client): void {
    if (c.gone) return;
    this.remove(c);
    const ws = c.ws;
    try {
      ws.close(FEED_CUT_OFF_CODE, 'mcpscope: this feed consumer stopped reading; reconnect with ?since=');
    } catch {
      /* already closing */
    }
    // It does not read, so it will not answer the close: its buffer is freed now.
    ws.terminate();
    this.wakeWaiting();
  }

  private forget(c: Client): void {
    c.gone = true;
    clearTimeout(c.timer);
    clearTimeout(c.stallTimer);
    c.timer = c.stallTimer = undefined;
    c.pending = [];
    c.pos = 0;
  }

  private remove(c: Client): void {
    if (c.gone) return;
    this.forget(c);
    this.clients.delete(c);
    this.waitingForTotal.delete(c);
  }

  /** An event's JSON in its feed form; a stub saying so if it cannot be serialized (never throws). */
  private serialize(e: McpscopeEvent): string {
    try {
      const json = JSON.stringify(toFeed(e));
      if (typeof json === 'string') return json;
      throw new Error('it serialized to nothing');
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (!this.reportedUnserializable) {
        this.reportedUnserializable = true;
        process.emitWarning(
          `mcpscope: event ${e.seq} (${String(e.type)}) could not be serialized for the UI feed (${reason}); it was sent as a short note saying so. Later failures of this kind are not reported again.`,
        );
      }
      try {
        return JSON.stringify(unserializableStub(e, reason));
      } catch {
        return JSON.stringify({
          type: 'log',
          seq: Number(e.seq) || 0,
          ts: Number(e.ts) || 0,
          source: 'mcpscope',
          text: 'mcpscope could not serialize this event for the UI feed.',
        });
      }
    }
  }

  /** hello, dropped, cleared, an empty last snapshot: small, sent whatever the socket holds. */
  private sendControl(c: Client, message: FeedMessage): void {
    if (c.ws.readyState !== c.ws.OPEN) return;
    this.write(c, JSON.stringify(message));
  }
}
