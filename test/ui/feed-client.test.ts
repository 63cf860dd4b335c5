/**
 * The feed client's state machine, driven by a fake WebSocket and a manual frame scheduler (the
 * real socket is covered by the E2E suite).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  BACKOFF_MAX_MS,
  FeedClient,
  INGEST_BUDGET_MS,
  INGEST_SLICE,
  MAX_HELD_EVENTS,
  SNAPSHOT_NOTIFY_MS,
} from '../../ui/src/state/feed-client';
import { TimelineStore } from '../../ui/src/state/store';
import { EMPTY_FILTERS, type FeedStatus } from '../../ui/src/state/types';
import type { FeedMessage, McpscopeEvent } from '../../proxy/core/model/events';
import { EventBuilder, scenario } from './fixtures';

class FakeWebSocket {
  static instances: FakeWebSocket[] = [];
  readonly url: string;
  readyState = 0;
  closed = false;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  constructor(url: string) {
    this.url = url;
    FakeWebSocket.instances.push(this);
  }
  close(): void {
    this.closed = true;
    this.readyState = 3;
  }
  send(): void {}
  // --- test helpers ---
  serverSends(msg: FeedMessage): void {
    if (this.closed) throw new Error('the client closed this socket');
    this.onmessage?.({ data: JSON.stringify(msg) });
  }
  serverCloses(): void {
    this.readyState = 3;
    this.onerror?.({});
    this.onclose?.({ code: 1006 });
  }
  get since(): string | null {
    return new URL(this.url).searchParams.get('since');
  }
}

const hello = (firstSeq: number, lastSeq: number, instance = 'boot-1'): FeedMessage => ({
  type: 'hello',
  schemaVersion: 1,
  version: '0.1.0',
  showSecrets: false,
  instance,
  firstSeq,
  lastSeq,
});

interface Harness {
  store: TimelineStore;
  client: FeedClient;
  frames: (() => void)[];
  runFrame(): void;
  statuses: [FeedStatus, string | undefined][];
  socket(): FakeWebSocket;
  fetchImpl: ReturnType<typeof vi.fn>;
}

function harness(opts: { maxHeld?: number; fetchImpl?: ReturnType<typeof vi.fn>; now?: () => number } = {}): Harness {
  FakeWebSocket.instances = [];
  const store = new TimelineStore();
  const frames: (() => void)[] = [];
  const statuses: [FeedStatus, string | undefined][] = [];
  const fetchImpl = opts.fetchImpl ?? vi.fn();
  const client = new FeedClient(store, {
    url: 'ws://127.0.0.1:6480/ws?token=t0k',
    onStatus: (s, d) => statuses.push([s, d]),
    schedule: (cb) => frames.push(cb),
    WebSocketImpl: FakeWebSocket as unknown as typeof WebSocket,
    fetchImpl: fetchImpl as unknown as typeof fetch,
    maxHeld: opts.maxHeld,
    now: opts.now,
  });
  return {
    store,
    client,
    frames,
    statuses,
    fetchImpl,
    runFrame: () => {
      for (const f of frames.splice(0)) f();
    },
    socket: () => FakeWebSocket.instances[FakeWebSocket.instances.length - 1],
  };
}

const jsonResponse = (body: unknown) => ({ ok: true, status: 200, json: async () => body }) as unknown as Response;
const flushPromises = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};
const keysOf = (store: TimelineStore) => store.visibleRows(EMPTY_FILTERS).map((r) => r.key);
const fullKeys = (events: McpscopeEvent[]) => {
  const s = new TimelineStore();
  s.ingest(events);
  return keysOf(s);
};

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('FeedClient: connecting and batching', () => {
  it('connects, goes live on hello, and ingests snapshot and live events once per frame', () => {
    const h = harness();
    const ingest = vi.spyOn(h.store, 'ingest');
    h.client.start();
    expect(h.statuses).toEqual([['connecting', undefined]]);
    expect(h.socket().url).toBe('ws://127.0.0.1:6480/ws?token=t0k');
    const { events } = scenario();
    h.socket().serverSends(hello(1, events[events.length - 1].seq));
    expect(h.client.status).toBe('live');
    expect(h.statuses.at(-1)).toEqual(['live', undefined]);
    expect(h.client.hello?.version).toBe('0.1.0');
    h.socket().serverSends({ type: 'snapshot', events: events.slice(0, 20), done: false });
    h.socket().serverSends({ type: 'snapshot', events: events.slice(20, 40), done: true });
    h.socket().serverSends({ type: 'events', events: events.slice(40) });
    expect(h.client.snapshotDone).toBe(true);
    // Nothing is ingested per message: one frame is scheduled for all three.
    expect(ingest).not.toHaveBeenCalled();
    expect(h.frames).toHaveLength(1);
    h.runFrame();
    expect(ingest).toHaveBeenCalledTimes(1);
    expect(ingest.mock.calls[0][0]).toHaveLength(events.length);
    expect(keysOf(h.store)).toEqual(fullKeys(events));
    expect(h.client.lastSeq).toBe(events[events.length - 1].seq);
    // The next message schedules the next frame.
    const b = new EventBuilder(1000);
    b.log('later');
    h.socket().serverSends({ type: 'events', events: b.events });
    expect(h.frames).toHaveLength(1);
    h.runFrame();
    expect(ingest).toHaveBeenCalledTimes(2);
    expect(h.store.logs.at(-1)?.text).toBe('later');
  });

  it('ignores malformed messages', () => {
    const h = harness();
    h.client.start();
    h.socket().onmessage?.({ data: 'not json' });
    h.socket().onmessage?.({ data: 'null' });
    h.socket().onmessage?.({ data: JSON.stringify({ type: 'events', events: null }) });
    h.socket().serverSends(hello(1, 0));
    expect(h.client.status).toBe('live');
  });
});

describe('FeedClient: ingest budget and snapshot notifications', () => {
  /** `n` log events from seq `from` on. */
  const logs = (n: number, from = 1) => {
    const b = new EventBuilder(from);
    for (let i = 0; i < n; i++) b.log(`line ${i}`);
    return b.events;
  };

  it(`ingests for at most INGEST_BUDGET_MS (${INGEST_BUDGET_MS} ms) per frame and the rest on the next frames, in order`, () => {
    let clock = 0;
    const h = harness({ now: () => clock });
    const ingest = h.store.ingest.bind(h.store);
    // Every slice takes 40 % of the budget: a frame ingests three slices.
    const slices = vi.spyOn(h.store, 'ingest').mockImplementation((events, options) => {
      ingest(events, options);
      clock += INGEST_BUDGET_MS * 0.4;
    });
    const listener = vi.fn();
    h.store.subscribe(listener);
    h.client.start();
    h.socket().serverSends(hello(1, 0));
    h.socket().serverSends({ type: 'snapshot', events: [], done: true });
    const events = logs(INGEST_SLICE * 5 + 7);
    h.socket().serverSends({ type: 'events', events });
    h.runFrame();
    expect(slices).toHaveBeenCalledTimes(3);
    expect(h.store.stats.events).toBe(INGEST_SLICE * 3);
    expect(h.client.held).toBe(INGEST_SLICE * 2 + 7);
    // Live (no snapshot streaming): what a frame ingested is shown in that frame.
    expect(listener).toHaveBeenCalledTimes(1);
    expect(h.frames).toHaveLength(1);
    h.runFrame();
    expect(h.store.stats.events).toBe(events.length);
    expect(h.client.held).toBe(0);
    expect(listener).toHaveBeenCalledTimes(2);
    expect(slices.mock.calls.map(([batch]) => batch.length)).toEqual([
      INGEST_SLICE,
      INGEST_SLICE,
      INGEST_SLICE,
      INGEST_SLICE,
      INGEST_SLICE,
      7,
    ]);
    expect(slices.mock.calls.flatMap(([batch]) => batch.map((e) => e.seq))).toEqual(events.map((e) => e.seq));
    // Nothing left: no more frames.
    expect(h.frames).toHaveLength(0);
  });

  it(`while the snapshot streams in, tells subscribers at once, then at most every SNAPSHOT_NOTIFY_MS (${SNAPSHOT_NOTIFY_MS} ms), then at once when done`, () => {
    let clock = 1000;
    const h = harness({ now: () => clock });
    const listener = vi.fn();
    h.store.subscribe(listener);
    h.client.start();
    const events = logs(50);
    h.socket().serverSends(hello(1, 50));
    // The first chunk is shown at once.
    h.socket().serverSends({ type: 'snapshot', events: events.slice(0, 10), done: false });
    h.runFrame();
    expect(listener).toHaveBeenCalledTimes(1);
    // The next one is ingested (the store has it) but not announced yet.
    clock += SNAPSHOT_NOTIFY_MS / 2;
    h.socket().serverSends({ type: 'snapshot', events: events.slice(10, 20), done: false });
    h.runFrame();
    expect(h.store.stats.events).toBe(20);
    expect(listener).toHaveBeenCalledTimes(1);
    // Frames keep coming until it is announced, even with nothing more received.
    clock += SNAPSHOT_NOTIFY_MS / 2 - 1;
    h.runFrame();
    expect(listener).toHaveBeenCalledTimes(1);
    clock += 1;
    h.runFrame();
    expect(listener).toHaveBeenCalledTimes(2);
    h.runFrame();
    expect(h.frames).toHaveLength(0);
    // The last chunk is announced at once.
    clock += 1;
    h.socket().serverSends({ type: 'snapshot', events: events.slice(20, 30), done: false });
    h.runFrame();
    expect(listener).toHaveBeenCalledTimes(2);
    h.socket().serverSends({ type: 'snapshot', events: events.slice(30, 40), done: true });
    h.runFrame();
    expect(listener).toHaveBeenCalledTimes(3);
    expect(h.store.stats.events).toBe(40);
    // Live events: every frame.
    h.socket().serverSends({ type: 'events', events: events.slice(40, 45) });
    h.runFrame();
    expect(listener).toHaveBeenCalledTimes(4);
    h.socket().serverSends({ type: 'events', events: events.slice(45) });
    h.runFrame();
    expect(listener).toHaveBeenCalledTimes(5);
    expect(h.frames).toHaveLength(0);
  });

  it('shows what a snapshot cut short by a dropped connection brought, without waiting', () => {
    const clock = 0;
    const h = harness({ now: () => clock });
    const listener = vi.fn();
    h.store.subscribe(listener);
    h.client.start();
    const events = logs(20);
    h.socket().serverSends(hello(1, 20));
    h.socket().serverSends({ type: 'snapshot', events: events.slice(0, 10), done: false });
    h.runFrame();
    h.socket().serverSends({ type: 'snapshot', events: events.slice(10), done: false });
    h.runFrame();
    expect(listener).toHaveBeenCalledTimes(1);
    h.socket().serverCloses();
    h.runFrame();
    expect(listener).toHaveBeenCalledTimes(2);
    expect(h.store.stats.events).toBe(20);
  });
});

describe('FeedClient: reconnecting', () => {
  it('reconnects with backoff 250 ms doubling to 5 s, asking for events since the last seq', () => {
    const h = harness();
    h.client.start();
    const { events } = scenario();
    const last = events[events.length - 1].seq;
    h.socket().serverSends(hello(1, last));
    h.socket().serverSends({ type: 'snapshot', events, done: true });
    h.runFrame();
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 7; attempt++) {
      const before = FakeWebSocket.instances.length;
      h.socket().serverCloses();
      expect(h.client.status).toBe('reconnecting');
      expect(h.statuses.at(-1)?.[1]).toMatch(new RegExp(`^attempt ${attempt}\\b`));
      let waited = 0;
      while (FakeWebSocket.instances.length === before) {
        vi.advanceTimersByTime(50);
        waited += 50;
        if (waited > 10_000) throw new Error('no reconnect');
      }
      delays.push(waited);
      expect(h.socket().since).toBe(String(last));
    }
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, BACKOFF_MAX_MS, BACKOFF_MAX_MS]);
    // A successful hello resets the backoff.
    h.socket().serverSends(hello(1, last));
    expect(h.client.status).toBe('live');
    expect(h.client.reconnectAttempt).toBe(0);
    const before = FakeWebSocket.instances.length;
    h.socket().serverCloses();
    vi.advanceTimersByTime(250);
    expect(FakeWebSocket.instances.length).toBe(before + 1);
  });

  it('picks up where it left off after a reconnect (no duplicates, nothing missed)', () => {
    const h = harness();
    const { events } = scenario();
    h.client.start();
    const cut = 30;
    h.socket().serverSends(hello(1, events[cut - 1].seq));
    h.socket().serverSends({ type: 'snapshot', events: events.slice(0, cut), done: true });
    h.runFrame();
    h.socket().serverCloses();
    vi.advanceTimersByTime(250);
    expect(h.socket().since).toBe(String(events[cut - 1].seq));
    h.socket().serverSends(hello(1, events[events.length - 1].seq));
    // A server may resend an event we have: it is ignored.
    h.socket().serverSends({ type: 'snapshot', events: events.slice(cut - 1), done: true });
    h.runFrame();
    expect(keysOf(h.store)).toEqual(fullKeys(events));
    expect(h.store.stats.events).toBe(events.length);
  });

  it('notices a restarted mcpscope (its lastSeq is below ours), clears and takes the full snapshot', () => {
    const h = harness();
    const old = scenario().events;
    h.client.start();
    h.socket().serverSends(hello(1, old[old.length - 1].seq));
    h.socket().serverSends({ type: 'snapshot', events: old, done: true });
    h.runFrame();
    h.socket().serverCloses();
    vi.advanceTimersByTime(250);
    const reconnect = h.socket();
    expect(reconnect.since).toBe(String(old[old.length - 1].seq));
    // The new mcpscope has seen only a few events.
    const b = new EventBuilder(1, Date.now());
    b.session('s1');
    b.message({
      exchangeId: 'x1',
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      id: 0,
      method: 'initialize',
      jsonrpc: { jsonrpc: '2.0', id: 0, method: 'initialize' },
    });
    reconnect.serverSends(hello(1, b.events.length));
    expect(reconnect.closed).toBe(true);
    expect(h.store.stats.events).toBe(0);
    const fresh = h.socket();
    expect(fresh).not.toBe(reconnect);
    expect(fresh.since).toBeNull();
    expect(h.client.status).toBe('connecting');
    expect(h.statuses.at(-1)?.[1]).toMatch(/restarted/);
    fresh.serverSends(hello(1, b.events.length));
    fresh.serverSends({ type: 'snapshot', events: b.events, done: true });
    h.runFrame();
    expect(keysOf(h.store)).toEqual(fullKeys(b.events));
    expect(h.client.lastSeq).toBe(b.events.length);
  });

  it('notices a restart that already got past our seq (same session id, another start time)', () => {
    const h = harness();
    const old = scenario().events;
    const last = old[old.length - 1].seq;
    h.client.start();
    h.socket().serverSends(hello(1, last));
    h.socket().serverSends({ type: 'snapshot', events: old, done: true });
    h.runFrame();
    h.socket().serverCloses();
    vi.advanceTimersByTime(250);
    const reconnect = h.socket();
    // The new server has more events than we had; its s1 started at another time.
    const b = new EventBuilder(last + 1, Date.now() + 1e6);
    b.session('s1');
    reconnect.serverSends(hello(1, last + 50));
    reconnect.serverSends({ type: 'snapshot', events: b.events, done: true });
    expect(reconnect.closed).toBe(true);
    expect(h.store.stats.events).toBe(0);
    expect(h.socket().since).toBeNull();
    expect(h.frames.length === 0 || (h.runFrame(), h.store.stats.events === 0)).toBe(true);
  });
});

describe('FeedClient: restart by instance id', () => {
  it('treats a hello from another mcpscope instance as a restart even when its seqs are ahead', () => {
    const h = harness();
    const old = scenario().events;
    const last = old[old.length - 1].seq;
    h.client.start();
    h.socket().serverSends(hello(1, last, 'boot-1'));
    h.socket().serverSends({ type: 'snapshot', events: old, done: true });
    h.runFrame();
    h.socket().serverCloses();
    vi.advanceTimersByTime(250);
    const reconnect = h.socket();
    reconnect.serverSends(hello(1, last + 1000, 'boot-2'));
    expect(reconnect.closed).toBe(true);
    expect(h.store.stats.events).toBe(0);
    const fresh = h.socket();
    expect(fresh.since).toBeNull();
    fresh.serverSends(hello(1, last + 1000, 'boot-2'));
    expect(fresh.closed).toBe(false);
    expect(h.client.status).toBe('live');
  });

  it('does not treat a reconnect to the same instance as a restart', () => {
    const h = harness();
    const old = scenario().events;
    const last = old[old.length - 1].seq;
    h.client.start();
    h.socket().serverSends(hello(1, last, 'boot-1'));
    h.socket().serverSends({ type: 'snapshot', events: old, done: true });
    h.runFrame();
    h.socket().serverCloses();
    vi.advanceTimersByTime(250);
    const reconnect = h.socket();
    reconnect.serverSends(hello(1, last + 5, 'boot-1'));
    expect(reconnect.closed).toBe(false);
    expect(h.store.stats.events).toBe(old.length);
  });
});

describe('FeedClient: dropped events', () => {
  it('fetches the gap from /api/events and ingests it in order before what came after', async () => {
    const { events } = scenario();
    const fetchImpl = vi.fn();
    let resolveFetch!: (r: Response) => void;
    fetchImpl.mockReturnValue(new Promise<Response>((r) => (resolveFetch = r)));
    const h = harness({ fetchImpl });
    h.client.start();
    h.socket().serverSends(hello(1, events[9].seq));
    h.socket().serverSends({ type: 'snapshot', events: events.slice(0, 10), done: true });
    h.runFrame();
    // Events 10..29 were not sent to us.
    const from = events[10].seq;
    const to = events[29].seq;
    h.socket().serverSends({ type: 'dropped', count: 20, fromSeq: from, toSeq: to });
    h.socket().serverSends({ type: 'events', events: events.slice(30) });
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    const [url, init] = fetchImpl.mock.calls[0] as [string, RequestInit];
    expect(url).toBe(`http://127.0.0.1:6480/api/events?token=t0k&since=${from - 1}`);
    expect(init.credentials).toBe('same-origin');
    expect(h.store.stats.dropped).toBe(20);
    // Later events wait for the gap.
    h.runFrame();
    expect(h.store.stats.events).toBe(10);
    // The API returns everything after since: the gap and what we already have.
    resolveFetch(jsonResponse(events.slice(10)));
    await flushPromises();
    h.runFrame();
    expect(keysOf(h.store)).toEqual(fullKeys(events));
    expect(h.store.stats.events).toBe(events.length);
    expect(h.store.stats.refetched).toBe(20);
  });

  it('does not get stuck when the gap cannot be fetched', async () => {
    const { events } = scenario();
    const fetchImpl = vi.fn().mockResolvedValue({ ok: false, status: 401, json: async () => ({}) });
    const h = harness({ fetchImpl });
    h.client.start();
    h.socket().serverSends(hello(1, 0));
    h.socket().serverSends({ type: 'dropped', count: 5, fromSeq: 1, toSeq: 5 });
    h.socket().serverSends({ type: 'events', events: events.slice(5) });
    await flushPromises();
    h.runFrame();
    expect(h.store.stats.events).toBe(events.length - 5);
    expect(h.client.lastError).toMatch(/401/);
  });
});

describe('FeedClient: cleared, pause, stop', () => {
  it('clears the store on `cleared`, dropping anything not yet ingested', () => {
    const h = harness();
    const { events } = scenario();
    h.client.start();
    h.socket().serverSends(hello(1, 20));
    h.socket().serverSends({ type: 'snapshot', events: events.slice(0, 20), done: true });
    h.runFrame();
    h.socket().serverSends({ type: 'events', events: events.slice(20, 25) });
    h.socket().serverSends({ type: 'cleared' });
    h.runFrame();
    expect(h.store.stats.events).toBe(0);
    expect(h.store.sessions.size).toBe(0);
    const b = new EventBuilder(events[events.length - 1].seq + 1);
    b.log('after clear');
    h.socket().serverSends({ type: 'events', events: b.events });
    h.runFrame();
    expect(h.store.stats.events).toBe(1);
  });

  it('pause holds events while the socket stays open; resume ingests them', () => {
    const h = harness();
    const { events } = scenario();
    h.client.start();
    h.socket().serverSends(hello(1, 0));
    h.client.pause();
    expect(h.client.paused).toBe(true);
    expect(h.client.status).toBe('paused');
    h.socket().serverSends({ type: 'events', events: events.slice(0, 30) });
    h.socket().serverSends({ type: 'events', events: events.slice(30) });
    h.runFrame();
    expect(h.store.stats.events).toBe(0);
    expect(h.client.held).toBe(events.length);
    expect(h.socket().closed).toBe(false);
    h.client.resume();
    expect(h.client.status).toBe('live');
    h.runFrame();
    expect(keysOf(h.store)).toEqual(fullKeys(events));
    expect(h.client.held).toBe(0);
  });

  it('holds at most maxHeld events while paused and re-fetches the ones let go on resume', async () => {
    expect(MAX_HELD_EVENTS).toBe(200_000);
    const { events } = scenario();
    const fetchImpl = vi.fn().mockResolvedValue(jsonResponse(events));
    const h = harness({ maxHeld: 10, fetchImpl });
    h.client.start();
    h.socket().serverSends(hello(1, 0));
    h.client.pause();
    h.socket().serverSends({ type: 'events', events: events.slice(0, 15) });
    h.socket().serverSends({ type: 'events', events: events.slice(15, 25) });
    expect(h.client.held).toBe(10);
    expect(fetchImpl).not.toHaveBeenCalled();
    h.client.resume();
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    expect(fetchImpl.mock.calls[0][0]).toBe(`http://127.0.0.1:6480/api/events?token=t0k&since=${events[0].seq - 1}`);
    h.runFrame();
    expect(h.store.stats.events).toBe(0);
    await flushPromises();
    h.runFrame();
    expect(h.store.stats.events).toBe(25);
    expect(keysOf(h.store)).toEqual(fullKeys(events.slice(0, 25)));
    expect(h.store.stats.refetched).toBe(15);
  });

  it('stop closes the socket, reports offline and does not reconnect', () => {
    const h = harness();
    h.client.start();
    const ws = h.socket();
    ws.serverSends(hello(1, 0));
    h.client.stop();
    expect(ws.closed).toBe(true);
    expect(h.client.status).toBe('offline');
    expect(h.statuses.at(-1)).toEqual(['offline', undefined]);
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
    // start() again connects anew.
    h.client.start();
    expect(FakeWebSocket.instances).toHaveLength(2);
  });

  it('stop during a reconnect wait cancels the retry', () => {
    const h = harness();
    h.client.start();
    h.socket().serverCloses();
    expect(h.client.status).toBe('reconnecting');
    h.client.stop();
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(h.client.status).toBe('offline');
  });
});

describe('FeedClient: URLs', () => {
  it('derives the API URL from the feed URL (wss → https, keeps the token)', () => {
    const store = new TimelineStore();
    const a = new FeedClient(store, { url: 'wss://example.test:8443/base/ws?token=abc' });
    expect(a.apiUrl('/api/events', { since: 5 })).toBe('https://example.test:8443/base/api/events?token=abc&since=5');
    const b = new FeedClient(store, { url: 'ws://127.0.0.1:6480/ws' });
    expect(b.apiUrl('/api/events', { since: 0 })).toBe('http://127.0.0.1:6480/api/events?since=0');
  });
});
