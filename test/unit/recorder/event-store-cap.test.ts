import { describe, expect, it } from 'vitest';
import { EVENT_OVERHEAD_BYTES, EventStore } from '../../../proxy/recorder/store/event-store.js';
import type { ExchangeInfo, McpscopeEvent, SessionInfo, UnsequencedEvent } from '../../../proxy/core/model/events.js';

const session = (id: string, status: 'open' | 'closed' = 'open'): SessionInfo => ({
  id,
  transport: 'streamable-http',
  target: 't',
  startedAt: 0,
  status,
  counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 0 },
});
const exchange = (id: string, sessionId: string): ExchangeInfo => ({
  id,
  sessionId,
  method: 'POST',
  url: '/mcp',
  requestHeaders: {},
  startedAt: 0,
  requestBytes: 0,
  responseBytes: 0,
  hints: [],
});
const message = (sessionId: string, id: number, size = 1): UnsequencedEvent =>
  ({
    type: 'message',
    ts: 1,
    sessionId,
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    jsonrpc: { id },
    size,
    id,
    hints: [],
  }) as UnsequencedEvent;

function fill(s: EventStore, sessionId: string, n: number, size = 1): void {
  for (let i = 0; i < n; i++) s.append(message(sessionId, i, size));
}
const evictionLogs = (s: EventStore) =>
  s.snapshot().filter((e): e is Extract<McpscopeEvent, { type: 'log' }> => e.type === 'log' && /evicted/.test(e.text));

describe('EventStore cap: eviction', () => {
  it('keeps everything under the cap', () => {
    const s = new EventStore({ maxEvents: 100 });
    s.append({ type: 'session', ts: 0, session: session('s1') });
    fill(s, 's1', 99);
    expect(s.size).toBe(100);
    expect(s.stats()).toMatchObject({ events: 100, evictedEvents: 0, evictedSessions: 0, maxEvents: 100 });
  });

  it('evicts the oldest closed session whole (events, index entries, exchanges) before touching open ones', () => {
    const s = new EventStore({ maxEvents: 100 });
    s.append({ type: 'session', ts: 0, session: session('old') });
    s.append({ type: 'exchange', ts: 0, exchange: exchange('x1', 'old') });
    fill(s, 'old', 30);
    s.append({ type: 'session', ts: 0, session: session('old', 'closed') });
    s.append({ type: 'session', ts: 0, session: session('live') });
    fill(s, 'live', 66);
    expect(s.size).toBe(100);
    const oldSeq = s.messages('old')[0].seq;
    s.append(message('live', 1000)); // 101 > 100
    expect(s.sessions.has('old')).toBe(false);
    expect(s.exchanges.has('x1')).toBe(false);
    expect(s.messages('old')).toHaveLength(0);
    expect(s.message(oldSeq)).toBeUndefined();
    expect(s.sessionEvents('old')).toHaveLength(0);
    // the open session is intact
    expect(s.messages('live')).toHaveLength(67);
    expect(s.sessions.has('live')).toBe(true);
    const st = s.stats();
    expect(st.evictedSessions).toBe(1);
    expect(st.evictedEvents).toBe(33); // two session upserts, the exchange, 30 messages
    expect(st.events).toBeLessThanOrEqual(100);
    const logs = evictionLogs(s);
    expect(logs).toHaveLength(1);
    expect(logs[0].source).toBe('mcpscope');
    expect(logs[0].text).toMatch(/33 events \(1 closed session/);
    expect(logs[0].text).toMatch(/more than 100 events/);
  });

  it('then evicts the oldest events of open sessions, keeping the latest session/exchange upserts', () => {
    const s = new EventStore({ maxEvents: 100 });
    s.append({ type: 'session', ts: 0, session: session('a') });
    s.append({ type: 'exchange', ts: 0, exchange: exchange('xa', 'a') });
    fill(s, 'a', 200);
    expect(s.size).toBeLessThanOrEqual(100);
    expect(s.sessions.get('a')).toBeDefined();
    const snap = s.snapshot();
    expect(snap.some((e) => e.type === 'session' && e.session.id === 'a')).toBe(true);
    expect(snap.some((e) => e.type === 'exchange' && e.exchange.id === 'xa')).toBe(true);
    // The newest messages survive, the oldest went, and the index agrees with the log.
    const msgs = s.messages('a');
    expect(msgs.at(-1)!.id).toBe(199);
    expect(msgs[0].id).toBeGreaterThan(0);
    for (const m of msgs) expect(s.message(m.seq)).toBe(m);
    expect(msgs.length).toBe(snap.filter((e) => e.type === 'message').length);
    expect(s.stats().evictedSessions).toBe(0);
    expect(s.stats().evictedEvents).toBeGreaterThan(100);
    expect(evictionLogs(s)[0].text).toMatch(/oldest events of open sessions/);
  });

  it("an ended exchange's last upsert goes with old events (and its index entry); an unfinished one stays", () => {
    const s = new EventStore({ maxEvents: 100 });
    s.append({ type: 'session', ts: 0, session: session('a') });
    s.append({ type: 'exchange', ts: 0, exchange: { ...exchange('done', 'a'), endedAt: 5 } });
    s.append({ type: 'exchange', ts: 0, exchange: exchange('running', 'a') });
    fill(s, 'a', 150);
    expect(s.exchanges.has('done')).toBe(false);
    expect(s.exchanges.has('running')).toBe(true);
    expect(
      s
        .snapshot()
        .filter((e) => e.type === 'exchange')
        .map((e) => (e as Extract<McpscopeEvent, { type: 'exchange' }>).exchange.id),
    ).toEqual(['running']);
  });

  it('evicts in chunks: ~10 % of the cap per pass, not one event per append', () => {
    const s = new EventStore({ maxEvents: 1000 });
    fill(s, 'a', 5000);
    // every pass frees >= 100 events (and adds one log line): at most ~ (5000-1000)/100 passes
    const passes = evictionLogs(s).length;
    expect(passes).toBeGreaterThan(0);
    expect(passes).toBeLessThanOrEqual(45);
    expect(s.size).toBeLessThanOrEqual(1000);
  });

  it('enforces the byte cap from message sizes', () => {
    const maxBytes = 1024 * 1024;
    const s = new EventStore({ maxBytes });
    s.append({ type: 'session', ts: 0, session: session('a') });
    fill(s, 'a', 200, 64 * 1024); // ~12.9 MiB estimated
    const st = s.stats();
    expect(st.bytes).toBeLessThanOrEqual(maxBytes);
    expect(st.bytes).toBeGreaterThan(0);
    expect(st.evictedEvents).toBeGreaterThan(150);
    expect(evictionLogs(s)[0].text).toMatch(/more than 1 MiB/);
    // the byte count equals the sum over kept events
    const sum = s.snapshot().length; // latest upserts only; no superseded upserts in this test
    expect(st.events).toBe(sum);
    expect(st.bytes).toBe(
      st.events * EVENT_OVERHEAD_BYTES +
        s.messages('a').reduce((n, m) => n + m.size, 0) +
        evictionLogs(s).reduce((n, l) => n + l.text.length, 0),
    );
  });

  it('amortized: 200k appends under a 10k cap stay fast and bounded', () => {
    const s = new EventStore({ maxEvents: 10_000 });
    const t0 = performance.now();
    fill(s, 'a', 200_000);
    const ms = performance.now() - t0;
    expect(s.size).toBeLessThanOrEqual(10_000);
    // O(n) per append would be ~2e9 steps; generous bound, not a timing test of the happy path
    expect(ms).toBeLessThan(5000);
  });

  it('a store pinned by upserts does not rescan on every append', () => {
    const s = new EventStore({ maxEvents: 10 });
    for (let i = 0; i < 100; i++) s.append({ type: 'session', ts: 0, session: session(`s${i}`) });
    // 100 open sessions' latest upserts cannot go; the store stays over cap without looping
    expect(s.size).toBeGreaterThan(10);
    expect(evictionLogs(s).length).toBeLessThan(20);
  });
});
