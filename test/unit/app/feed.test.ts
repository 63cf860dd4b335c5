/**
 * The feed's memory rules (proxy/app/serve/feed.ts), with a fake socket whose unsent bytes the test
 * controls: each send adds its length to `bufferedAmount`; `drain()` is the consumer reading
 * everything (the writes complete, their callbacks run).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { FEED_CUT_OFF_CODE, FEED_DEFAULTS, FeedHub, type FeedOptions } from '../../../proxy/app/serve/feed.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';
import type { FeedMessage, McpscopeEvent } from '../../../proxy/core/model/events.js';

class FakeSocket {
  readonly OPEN = 1;
  readonly CLOSED = 3;
  readyState = 1;
  bufferedAmount = 0;
  sent: FeedMessage[] = [];
  closedWith?: number;
  terminated = false;
  private callbacks: (() => void)[] = [];
  on() {}
  once() {}
  send(data: string, cb?: (err?: Error) => void) {
    this.sent.push(JSON.parse(data) as FeedMessage);
    this.bufferedAmount += data.length;
    if (cb) this.callbacks.push(() => cb());
  }
  /** The consumer reads everything sent so far. */
  drain() {
    this.bufferedAmount = 0;
    for (const cb of this.callbacks.splice(0)) cb();
  }
  close(code?: number) {
    this.closedWith = code;
    this.readyState = 2;
  }
  terminate() {
    this.terminated = true;
    this.readyState = 3;
  }
  events(): McpscopeEvent[] {
    return this.sent.flatMap((m) => (m.type === 'snapshot' || m.type === 'events' ? m.events : []));
  }
  kinds(): string[] {
    return this.sent.map((m) => m.type);
  }
}

afterEach(() => vi.useRealTimers());

function setup(options: Partial<FeedOptions> = {}) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const store = new EventStore();
  const hub = new FeedHub(store, { version: 't', showSecrets: false, flushMs: 5, ...options });
  let n = 0;
  const log = (count = 1, text = 'event') => {
    for (let i = 0; i < count; i++) store.append({ type: 'log', ts: 1, source: 'mcpscope', text: `${text} ${++n}` });
    store.commit();
  };
  const connect = (since = 0) => {
    const ws = new FakeSocket();
    hub.add(ws as never, since);
    return ws;
  };
  /** Lets the consumer read until nothing more is sent (live batches included). */
  const readAll = (ws: FakeSocket) => {
    for (let i = 0; i < 10_000; i++) {
      const before = ws.sent.length;
      ws.drain();
      vi.advanceTimersByTime(5);
      if (ws.sent.length === before && ws.bufferedAmount === 0) return;
    }
  };
  return { store, hub, log, connect, readAll };
}

const seqs = (events: McpscopeEvent[]) => events.map((e) => e.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('FeedHub: the snapshot is streamed, not queued', () => {
  it('hands the socket more only while it holds less than maxBufferedBytes, in chunks of messageBytes, and the consumer gets it all in order', () => {
    const { log, connect, readAll } = setup({ maxBufferedBytes: 10_000, messageBytes: 2_000 });
    log(1000, 'x'.repeat(200));
    const ws = connect();
    // hello, then chunks until the socket holds the limit: a fraction of the ≈ 230 KB snapshot.
    expect(ws.bufferedAmount).toBeGreaterThanOrEqual(10_000);
    expect(ws.bufferedAmount).toBeLessThan(10_000 + 2_000 + 300);
    const early = ws.sent.length;
    expect(early).toBeLessThan(10);
    readAll(ws);
    expect(ws.kinds()[0]).toBe('hello');
    const snapshots = ws.sent.filter((m) => m.type === 'snapshot');
    expect(snapshots.length).toBeGreaterThan(50);
    expect(snapshots.map((m) => m.type === 'snapshot' && m.done)).toEqual(snapshots.map((_, i) => i === snapshots.length - 1));
    expect(seqs(ws.events())).toEqual(range(1, 1000));
  });

  it('queues live events that arrive during the snapshot after it, in order, and sends every one to a consumer that reads', () => {
    const { log, connect, readAll } = setup({ maxBufferedBytes: 5_000, messageBytes: 1_000 });
    log(300, 'x'.repeat(100));
    const ws = connect();
    log(20, 'live');
    vi.advanceTimersByTime(5);
    log(20, 'live');
    readAll(ws);
    expect(seqs(ws.events())).toEqual(range(1, 340));
    const kinds = ws.kinds();
    const done = ws.sent.findIndex((m) => m.type === 'snapshot' && m.done);
    expect(kinds.slice(done + 1).every((k) => k === 'events')).toBe(true);
    expect(ws.events()[300]).toMatchObject({ type: 'log', text: 'live 301' });
  });

  it('past maxQueuedEvents, reads the live events it did not queue from the store again: none lost, none twice', () => {
    const { log, connect, readAll } = setup({ maxBufferedBytes: 5_000, messageBytes: 1_000, maxQueuedEvents: 10 });
    log(200, 'x'.repeat(100));
    const ws = connect();
    for (let i = 0; i < 30; i++) log(3, 'live');
    readAll(ws);
    expect(seqs(ws.events())).toEqual(range(1, 290));
    expect(ws.kinds()).not.toContain('dropped');
  });

  it('an empty snapshot is one message marked done; `since` past the end too', () => {
    const { log, connect } = setup();
    log(3);
    const ws = connect(3);
    expect(ws.sent.slice(1)).toEqual([{ type: 'snapshot', events: [], done: true }]);
  });
});

describe('FeedHub: a consumer that stops reading', () => {
  it('stalled (blocked, no write completed for stallMs): its live events are dropped, then it is told how many, before newer ones', () => {
    const { log, connect, readAll } = setup({ maxBufferedBytes: 2_000, stallMs: 100 });
    const ws = connect();
    readAll(ws);
    ws.sent = [];
    log(1, 'x'.repeat(3_000)); // 1: sent, and the socket is over the limit
    vi.advanceTimersByTime(5);
    log(5); // 2–6: queued
    vi.advanceTimersByTime(99);
    expect(seqs(ws.events())).toEqual([1]);
    vi.advanceTimersByTime(1); // stalled: 2–6 dropped
    log(4); // 7–10: dropped too
    vi.advanceTimersByTime(5);
    expect(ws.kinds()).toEqual(['events']);
    ws.drain(); // it reads again
    log(2); // 11–12
    readAll(ws);
    expect(ws.kinds()).toEqual(['events', 'dropped', 'events']);
    expect(ws.sent[1]).toEqual({ type: 'dropped', count: 9, fromSeq: 2, toSeq: 10 });
    expect(seqs(ws.events())).toEqual([1, 11, 12]);
  });

  it('a consumer blocked for less than stallMs loses nothing', () => {
    const { log, connect, readAll } = setup({ maxBufferedBytes: 2_000, stallMs: 100 });
    const ws = connect();
    readAll(ws);
    log(1, 'x'.repeat(3_000));
    vi.advanceTimersByTime(5);
    for (let i = 0; i < 9; i++) {
      log(3);
      vi.advanceTimersByTime(10);
    }
    readAll(ws);
    expect(seqs(ws.events())).toEqual(range(1, 28));
  });

  it('stalled for cutOffMs: cut off with the documented close code, and forgotten', () => {
    const { hub, log, connect } = setup({ maxBufferedBytes: 2_000, messageBytes: 500, stallMs: 100, cutOffMs: 1_000 });
    log(50, 'x'.repeat(100));
    const ws = connect();
    expect(hub.size).toBe(1);
    vi.advanceTimersByTime(999);
    expect(ws.terminated).toBe(false);
    vi.advanceTimersByTime(1);
    expect(ws.closedWith).toBe(FEED_CUT_OFF_CODE);
    expect(ws.terminated).toBe(true);
    expect(hub.size).toBe(0);
  });

  it('all consumers together stay within maxTotalBufferedBytes: a stalled one is cut off at once when the total is over it, and a reading one is then sent the rest', () => {
    const { hub, log, connect, readAll } = setup({
      maxBufferedBytes: 4_000,
      maxTotalBufferedBytes: 6_000,
      messageBytes: 1_000,
      stallMs: 100,
      cutOffMs: 60_000,
    });
    log(100, 'x'.repeat(100));
    const stuck = connect();
    expect(stuck.bufferedAmount).toBeGreaterThanOrEqual(4_000);
    const reader = connect();
    // The reader got what fits in the total; it waits for the rest.
    const total = () => stuck.bufferedAmount + reader.bufferedAmount;
    expect(total()).toBeLessThan(6_000 + 1_200);
    reader.drain();
    expect(hub.size).toBe(2);
    vi.advanceTimersByTime(100); // the stuck one stalls while the total is over budget: cut off
    expect(stuck.closedWith).toBe(FEED_CUT_OFF_CODE);
    expect(hub.size).toBe(1);
    readAll(reader);
    expect(seqs(reader.events())).toEqual(range(1, 100));
  });
});

describe('FeedHub: serialization never throws out of the feed', () => {
  it('an event that cannot be serialized is sent as a stub saying so; the failure is reported once; the rest flows', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const { store, connect, readAll } = setup();
      const ws = connect();
      readAll(ws);
      const cyclic: Record<string, unknown> = { jsonrpc: '2.0', method: 'x' };
      cyclic.self = cyclic;
      const message = (id: number) =>
        store.append({
          type: 'message',
          ts: 1,
          sessionId: 's',
          dir: 'c2s',
          kind: 'notification',
          carrier: 'post-json',
          jsonrpc: cyclic,
          size: 10,
          method: 'x',
          id,
          hints: [],
        } as never);
      message(1);
      store.append({ type: 'log', ts: 1, source: 'mcpscope', text: 'fine', big: 10n } as never);
      message(2);
      store.append({ type: 'log', ts: 1, source: 'mcpscope', text: 'after' });
      store.commit();
      readAll(ws);
      const events = ws.events();
      expect(seqs(events)).toEqual([1, 2, 3, 4]);
      expect(events[0]).toMatchObject({ type: 'message', elided: true, method: 'x', id: 1, hints: [{ code: 'feed-unserializable' }] });
      expect(events[1]).toMatchObject({ type: 'log', source: 'mcpscope' });
      expect((events[1] as { text: string }).text).toMatch(/could not serialize this log event/);
      expect(events[3]).toMatchObject({ type: 'log', text: 'after' });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/event 1 \(message\) could not be serialized for the UI feed/);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('FeedHub: live batches', () => {
  it('send only the latest upsert of an exchange or session within a batch, and every other event', () => {
    const { store, connect, readAll } = setup();
    const ws = connect();
    readAll(ws);
    ws.sent = [];
    const exchange = (id: string, extra: Record<string, unknown> = {}) =>
      store.append({
        type: 'exchange',
        ts: 1,
        exchange: {
          id,
          method: 'POST',
          url: '/mcp',
          requestHeaders: {},
          startedAt: 1,
          requestBytes: 0,
          responseBytes: 0,
          hints: [],
          ...extra,
        },
      });
    exchange('x1');
    store.append({ type: 'log', ts: 1, source: 'mcpscope', text: 'between' });
    exchange('x1', { status: 200 });
    exchange('x2');
    exchange('x1', { status: 200, endedAt: 2 });
    store.commit();
    vi.advanceTimersByTime(5);
    expect(ws.sent).toHaveLength(1);
    const sent = ws.sent[0].type === 'events' ? ws.sent[0].events : [];
    expect(sent.map((e) => (e.type === 'exchange' ? `${e.exchange.id}@${e.seq}` : e.type))).toEqual(['log', 'x2@4', 'x1@5']);
    expect(sent.at(-1)).toMatchObject({ exchange: { endedAt: 2 } });

    // An upsert whose successor comes in a later batch is left out of this one; the later one is sent then.
    exchange('x3');
    store.commit();
    exchange('x3', { status: 202 });
    vi.advanceTimersByTime(5);
    store.commit();
    vi.advanceTimersByTime(5);
    const later = ws.sent.slice(1).flatMap((m) => (m.type === 'events' ? m.events : []));
    expect(later.map((e) => (e.type === 'exchange' ? `${e.exchange.id}@${e.seq}` : e.type))).toEqual(['x3@7']);
  });

  it('cleared during a snapshot: the snapshot ends (done) before `cleared`, and only later events follow', () => {
    const { store, hub, log, connect, readAll } = setup({ maxBufferedBytes: 2_000, messageBytes: 500 });
    log(100, 'x'.repeat(100));
    const ws = connect();
    store.clear();
    hub.cleared();
    log(2);
    readAll(ws);
    const kinds = ws.kinds();
    const cleared = kinds.indexOf('cleared');
    expect(ws.sent[cleared - 1]).toMatchObject({ type: 'snapshot', done: true });
    expect(kinds.filter((k) => k === 'cleared')).toHaveLength(1);
    expect(seqs(ws.sent.slice(cleared).flatMap((m) => (m.type === 'events' ? m.events : [])))).toEqual([101, 102]);
  });
});

describe('FeedHub: the limits docs/event-schema.md states', () => {
  it('are the defaults and the close code', () => {
    const doc = readFileSync(new URL('../../../docs/event-schema.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const d = FEED_DEFAULTS;
    const MiB = 1024 * 1024;
    const n = (x: number) => x.toLocaleString('en-US');
    expect(d.stallMs).toBe(1000); // the doc says "a second"
    for (const claim of [
      `coalesced over ${d.flushMs} ms`,
      `past ${n(d.maxQueuedEvents)} of them`,
      `at most ${n(d.snapshotChunk)} events, about ${d.messageBytes / 1024} KiB of JSON`,
      `holds less than ${d.maxBufferedBytes / MiB} MiB unsent`,
      `completes no write for a second`,
      `stalled for ${d.cutOffMs / 1000} s`,
      `more than ${d.maxTotalBufferedBytes / MiB} MiB unsent`,
      `closed with code **${FEED_CUT_OFF_CODE}**`,
    ])
      expect(doc).toContain(claim);
  });
});
