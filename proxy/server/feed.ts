/**
 * The live feed: a snapshot then live events over WebSocket, batched, and dropped — never
 * buffered without bound — for a consumer that does not keep up. Nothing here can slow the
 * proxy: the store hands batches over after the recorder ran, and a slow socket only ever
 * costs that socket its events (it is told how many with a `dropped` message).
 */
import type { WebSocket } from 'ws';
import type { FeedMessage, McpscopeEvent } from '../model/events.js';
import { EVENT_SCHEMA_VERSION } from '../model/events.js';
import type { EventStore } from '../store/event-store.js';
import { toFeed } from '../model/feed-form.js';

export interface FeedOptions {
  /**
   * Stop sending to a socket whose unsent bytes exceed this and that has read nothing for
   * `stallMs` (or that holds four times this); its events are dropped meanwhile. Default 8 MiB.
   */
  maxBufferedBytes?: number;
  /**
   * How long a socket over `maxBufferedBytes` may go without reading before it counts as stalled.
   * Default 1000 ms: a consumer busy for a moment (a GC, a layout, a test process generating load)
   * is not dropped from; 0 drops from one that read nothing since the last send.
   */
  stallMs?: number;
  /** Coalescing window for live events. Default 25 ms. */
  flushMs?: number;
  /** Events per snapshot message. Default 2000. */
  snapshotChunk?: number;
  version: string;
  showSecrets: boolean;
}

interface Client {
  ws: WebSocket;
  queue: McpscopeEvent[];
  timer?: NodeJS.Timeout;
  dropped: number;
  dropFrom: number;
  dropTo: number;
  /** The socket's unsent bytes right after the last send: less now means it is reading. */
  sentBuffered: number;
  /** When it was last seen reading (or within the limit). */
  progressAt: number;
}

export class FeedHub {
  private clients = new Set<Client>();
  private unsubscribe: () => void;
  private readonly maxBufferedBytes: number;
  private readonly flushMs: number;
  private readonly stallMs: number;
  private readonly snapshotChunk: number;

  constructor(
    private readonly store: EventStore,
    private readonly options: FeedOptions,
  ) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? 8 * 1024 * 1024;
    this.flushMs = options.flushMs ?? 25;
    this.stallMs = options.stallMs ?? 1000;
    this.snapshotChunk = options.snapshotChunk ?? 2000;
    this.unsubscribe = store.subscribe((batch) => {
      for (const c of this.clients) {
        for (const e of batch) c.queue.push(e);
        this.schedule(c);
      }
    });
  }

  get size(): number {
    return this.clients.size;
  }

  /** Adopts an upgraded socket: hello, snapshot of everything after `since`, then live batches. */
  add(ws: WebSocket, since = 0): void {
    const client: Client = { ws, queue: [], dropped: 0, dropFrom: 0, dropTo: 0, sentBuffered: 0, progressAt: Date.now() };
    this.clients.add(client);
    ws.on('close', () => this.remove(client));
    ws.on('error', () => this.remove(client));
    // The UI may send {"type":"ping"}; nothing else is accepted from it.
    ws.on('message', () => undefined);
    this.send(client, {
      type: 'hello',
      schemaVersion: EVENT_SCHEMA_VERSION,
      version: this.options.version,
      showSecrets: this.options.showSecrets,
      instance: this.store.instance,
      firstSeq: this.store.firstSeq,
      lastSeq: this.store.lastSeq,
    });
    const events = this.store.snapshot(since);
    for (let i = 0; i < events.length || i === 0; i += this.snapshotChunk) {
      const part = events.slice(i, i + this.snapshotChunk);
      this.send(client, { type: 'snapshot', events: part.map((e) => toFeed(e)), done: i + this.snapshotChunk >= events.length });
    }
  }

  /** Tell every client the store was cleared. */
  cleared(): void {
    for (const c of this.clients) {
      c.queue = [];
      this.send(c, { type: 'cleared' });
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
      clearTimeout(c.timer);
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
    return Promise.all(closing).then(() => undefined);
  }

  private remove(c: Client): void {
    clearTimeout(c.timer);
    this.clients.delete(c);
  }

  private schedule(c: Client): void {
    if (c.timer) return;
    c.timer = setTimeout(() => {
      c.timer = undefined;
      this.flush(c);
    }, this.flushMs);
    c.timer.unref?.();
  }

  private flush(c: Client): void {
    if (c.queue.length === 0) return;
    const events = c.queue;
    c.queue = [];
    // Over the limit, a consumer is dropped from if it has read nothing for stallMs (stalled), or
    // if it is over four times the limit whatever it does (too slow): one that is reading, or was
    // busy for a moment, but was handed a big batch (the server's own thread was busy) is not.
    const buffered = c.ws.bufferedAmount;
    const now = Date.now();
    const progressing = buffered < c.sentBuffered || buffered <= this.maxBufferedBytes;
    if (progressing) c.progressAt = now;
    const stalled = !progressing && now - c.progressAt >= this.stallMs;
    if (buffered > this.maxBufferedBytes && (stalled || buffered > 4 * this.maxBufferedBytes)) {
      if (c.dropped === 0) c.dropFrom = events[0].seq;
      c.dropped += events.length;
      c.dropTo = events[events.length - 1].seq;
      return;
    }
    if (c.dropped > 0) {
      this.send(c, { type: 'dropped', count: c.dropped, fromSeq: c.dropFrom, toSeq: c.dropTo });
      c.dropped = 0;
    }
    // An exchange is upserted on its request, its response head and its end, often within one
    // batch: only the latest upsert goes out (the snapshot skips superseded ones the same way).
    const live: McpscopeEvent[] = [];
    for (const e of events) if (!this.store.isSuperseded(e)) live.push(toFeed(e));
    if (live.length > 0) this.send(c, { type: 'events', events: live });
    c.sentBuffered = c.ws.bufferedAmount;
  }

  private send(c: Client, message: FeedMessage): void {
    if (c.ws.readyState !== c.ws.OPEN) return;
    c.ws.send(JSON.stringify(message));
  }
}
