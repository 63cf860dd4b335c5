/** The feed's back-pressure rule, with a fake socket whose unsent bytes the test sets. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FeedHub } from '../../proxy/server/feed.js';
import { EventStore } from '../../proxy/store/event-store.js';
import type { FeedMessage } from '../../proxy/model/events.js';

class FakeSocket {
  readonly OPEN = 1;
  readonly CLOSED = 3;
  readyState = 1;
  bufferedAmount = 0;
  sent: FeedMessage[] = [];
  /** What each send adds to bufferedAmount. */
  perSend = 0;
  on() {}
  once() {}
  send(data: string) {
    this.sent.push(JSON.parse(data) as FeedMessage);
    this.bufferedAmount += this.perSend;
  }
  close() {}
  terminate() {}
}

const LIMIT = 1000;
afterEach(() => vi.useRealTimers());

function setup(stallMs = 0) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const store = new EventStore();
  const hub = new FeedHub(store, { version: 't', showSecrets: false, maxBufferedBytes: LIMIT, flushMs: 5, stallMs });
  const ws = new FakeSocket();
  hub.add(ws as never);
  ws.sent = [];
  let n = 0;
  const burst = () => {
    store.append({ type: 'log', ts: 1, source: 'mcpscope', text: `event ${++n}` });
    store.commit();
    vi.advanceTimersByTime(5);
  };
  const kinds = () => ws.sent.map((m) => m.type);
  return { ws, burst, kinds };
}

describe('FeedHub: who is dropped from', () => {
  it('a consumer over the limit that read nothing since the last send: its events are dropped, then it is told how many', () => {
    const { ws, burst, kinds } = setup();
    ws.perSend = 600;
    burst(); // 0 → 600: sent
    burst(); // 600 ≤ limit: sent → 1200
    burst(); // 1200 > limit, no progress: dropped
    burst(); // dropped
    expect(kinds()).toEqual(['events', 'events']);
    ws.bufferedAmount = 0; // it read everything
    burst();
    expect(kinds()).toEqual(['events', 'events', 'dropped', 'events']);
    expect(ws.sent[2]).toMatchObject({ type: 'dropped', count: 2 });
  });

  it('a consumer over the limit that is reading is sent to, up to four times the limit', () => {
    const { ws, burst, kinds } = setup();
    ws.perSend = 1500; // each batch alone is bigger than the limit
    burst(); // 0 → 1500
    for (let i = 0; i < 3; i++) {
      ws.bufferedAmount -= 500; // it read some since the last send
      burst(); // over the limit but progressing: sent
    }
    expect(kinds()).toEqual(['events', 'events', 'events', 'events']);
    expect(ws.bufferedAmount).toBe(4500); // > 4 × limit from here on
    ws.bufferedAmount -= 100;
    burst(); // progressing, but past four times the limit: dropped
    expect(kinds()).toEqual(['events', 'events', 'events', 'events']);
  });
});

describe('FeedHub: the stall window', () => {
  it('sends to a consumer over the limit (under four times it) that reads nothing for less than stallMs, then drops from it until it reads', () => {
    const { ws, burst, kinds } = setup(100);
    ws.bufferedAmount = 1500; // over the limit, under 4 × limit; it never reads
    for (let i = 0; i < 19; i++) burst(); // 5 … 95 ms since it was last seen within the limit
    expect(kinds()).toEqual(Array(19).fill('events'));
    burst(); // 100 ms: stalled
    burst();
    expect(ws.sent).toHaveLength(19);
    ws.bufferedAmount = 900; // it read
    burst();
    expect(kinds().slice(19)).toEqual(['dropped', 'events']);
    expect(ws.sent[19]).toMatchObject({ type: 'dropped', count: 2 });
  });
});

describe('FeedHub: live batches', () => {
  it('send only the latest upsert of an exchange or session within a batch, and every other event', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const store = new EventStore();
    const hub = new FeedHub(store, { version: 't', showSecrets: false, flushMs: 5 });
    const ws = new FakeSocket();
    hub.add(ws as never);
    ws.sent = [];
    const exchange = (id: string, extra: Record<string, unknown> = {}) =>
      store.append({ type: 'exchange', ts: 1, exchange: { id, method: 'POST', url: '/mcp', requestHeaders: {}, startedAt: 1, requestBytes: 0, responseBytes: 0, hints: [], ...extra } });
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
});
