import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventStore, eventSession } from '../../../proxy/recorder/store/event-store.js';
import type { ExchangeInfo, McpscopeEvent, SessionInfo, UnsequencedEvent } from '../../../proxy/core/model/events.js';

const session = (id: string, extra: Partial<SessionInfo> = {}): SessionInfo => ({
  id,
  transport: 'streamable-http',
  target: 't',
  startedAt: 0,
  status: 'open',
  counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 0 },
  ...extra,
});
const exchange = (id: string, sessionId?: string, extra: Partial<ExchangeInfo> = {}): ExchangeInfo => ({
  id,
  sessionId,
  method: 'POST',
  url: '/mcp',
  requestHeaders: {},
  startedAt: 0,
  requestBytes: 0,
  responseBytes: 0,
  hints: [],
  ...extra,
});
const message = (sessionId: string, id: number): UnsequencedEvent =>
  ({
    type: 'message',
    ts: 1,
    sessionId,
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    jsonrpc: { id },
    size: 1,
    id,
    hints: [],
  }) as UnsequencedEvent;

afterEach(() => vi.restoreAllMocks());

describe('EventStore: seq stamping', () => {
  it('stamps strictly increasing seqs from 1; peekSeq/lastSeq/firstSeq/size follow', () => {
    const s = new EventStore();
    expect(s.peekSeq()).toBe(1);
    expect(s.lastSeq).toBe(0);
    expect(s.firstSeq).toBe(1);
    expect(s.size).toBe(0);
    const a = s.append({ type: 'log', ts: 5, source: 'mcpscope', text: 'a' });
    const b = s.append({ type: 'log', ts: 6, source: 'mcpscope', text: 'b' });
    expect(a).toEqual({ type: 'log', ts: 5, source: 'mcpscope', text: 'a', seq: 1 });
    expect(b.seq).toBe(2);
    expect(s.peekSeq()).toBe(3);
    expect(s.lastSeq).toBe(2);
    expect(s.firstSeq).toBe(1);
    expect(s.size).toBe(2);
  });

  it('takes the appended object over: its seq is stamped on it, last, with no copy made', () => {
    const s = new EventStore();
    const ev = { type: 'log' as const, ts: 1, source: 'mcpscope' as const, text: 'x' };
    const stored = s.append(ev);
    expect(stored).toBe(ev);
    expect(Object.keys(stored)).toEqual(['type', 'ts', 'source', 'text', 'seq']);
    expect(s.snapshot()).toEqual([{ type: 'log', ts: 1, source: 'mcpscope', text: 'x', seq: 1 }]);
  });
});

describe('EventStore: indexes', () => {
  it('keeps the latest session and exchange by id', () => {
    const s = new EventStore();
    s.append({ type: 'session', ts: 0, session: session('s1') });
    s.append({ type: 'session', ts: 0, session: session('s1', { status: 'closed', closeReason: 'deleted' }) });
    s.append({ type: 'exchange', ts: 0, exchange: exchange('x1', 's1') });
    s.append({ type: 'exchange', ts: 0, exchange: exchange('x1', 's1', { status: 200 }) });
    expect(s.sessions.get('s1')?.closeReason).toBe('deleted');
    expect(s.exchanges.get('x1')?.status).toBe(200);
    expect(s.sessions.size).toBe(1);
    expect(s.exchanges.size).toBe(1);
  });

  it('indexes messages by session and by seq', () => {
    const s = new EventStore();
    s.append({ type: 'log', ts: 0, source: 'mcpscope', text: 'x' }); // 1
    s.append(message('s1', 10)); // 2
    s.append(message('s2', 20)); // 3
    s.append(message('s1', 11)); // 4
    expect(s.messages('s1').map((m) => [m.seq, m.id])).toEqual([
      [2, 10],
      [4, 11],
    ]);
    expect(s.messages('s2').map((m) => m.seq)).toEqual([3]);
    expect(s.messages('nope')).toEqual([]);
    expect(s.message(3)?.id).toBe(20);
    expect(s.message(1)).toBeUndefined(); // not a message
  });
});

describe('EventStore: snapshot', () => {
  function filled() {
    const s = new EventStore();
    s.append({ type: 'session', ts: 0, session: session('s1') }); // 1 superseded by 5
    s.append({ type: 'exchange', ts: 0, exchange: exchange('x1', 's1') }); // 2 superseded by 6
    s.append(message('s1', 1)); // 3
    s.append({ type: 'session', ts: 0, session: session('s2') }); // 4
    s.append({ type: 'session', ts: 0, session: session('s1', { status: 'closed' }) }); // 5
    s.append({ type: 'exchange', ts: 0, exchange: exchange('x1', 's1', { status: 202 }) }); // 6
    s.append({ type: 'problem', ts: 0, sessionId: 's2', level: 'warn', code: 'c', text: 't' }); // 7
    return s;
  }

  it('skips session/exchange upserts that a later one superseded; keeps wire order', () => {
    expect(
      filled()
        .snapshot()
        .map((e) => e.seq),
    ).toEqual([3, 4, 5, 6, 7]);
  });

  it('since: only events after it', () => {
    const s = filled();
    expect(s.snapshot(4).map((e) => e.seq)).toEqual([5, 6, 7]);
    expect(s.snapshot(7)).toEqual([]);
  });

  it('sessionEvents: one session with its exchanges and messages, latest upserts only', () => {
    const s = filled();
    expect(s.sessionEvents('s1').map((e) => e.seq)).toEqual([3, 5, 6]);
    expect(s.sessionEvents('s2').map((e) => e.seq)).toEqual([4, 7]);
  });

  it('eventSession finds the session of each event type', () => {
    const s = filled();
    const byType = Object.fromEntries(s.snapshot().map((e) => [e.type + e.seq, eventSession(e)]));
    expect(byType).toEqual({ message3: 's1', session4: 's2', session5: 's1', exchange6: 's1', problem7: 's2' });
    expect(eventSession({ type: 'log', seq: 1, ts: 0, source: 'mcpscope', text: '' })).toBeUndefined();
  });
});

describe('EventStore: commit and subscribe', () => {
  it('hands each listener the events appended since the last commit, once', () => {
    const s = new EventStore();
    const got: number[][] = [];
    s.subscribe((batch) => got.push(batch.map((e) => e.seq)));
    s.append({ type: 'log', ts: 0, source: 'mcpscope', text: 'a' });
    s.append({ type: 'log', ts: 0, source: 'mcpscope', text: 'b' });
    expect(got).toEqual([]);
    s.commit();
    s.commit(); // nothing new: no call
    s.append({ type: 'log', ts: 0, source: 'mcpscope', text: 'c' });
    s.commit();
    expect(got).toEqual([[1, 2], [3]]);
  });

  it('every listener gets the batch; unsubscribe stops delivery', () => {
    const s = new EventStore();
    const a: number[] = [];
    const b: number[] = [];
    const offA = s.subscribe((batch) => a.push(...batch.map((e) => e.seq)));
    s.subscribe((batch) => b.push(...batch.map((e) => e.seq)));
    s.append({ type: 'log', ts: 0, source: 'mcpscope', text: 'a' });
    s.commit();
    offA();
    s.append({ type: 'log', ts: 0, source: 'mcpscope', text: 'b' });
    s.commit();
    expect(a).toEqual([1]);
    expect(b).toEqual([1, 2]);
  });

  it('a throwing listener is reported once, in a log event and a warning, and never stops the others or the store', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const s = new EventStore();
    const seen: number[][] = [];
    s.subscribe(() => {
      throw new RangeError('Maximum call stack size exceeded');
    }, 'the live feed');
    s.subscribe((batch) => seen.push(batch.map((e) => e.seq)));
    for (let i = 0; i < 3; i++) {
      s.append({ type: 'log', ts: 0, source: 'mcpscope', text: `a${i}` });
      expect(() => s.commit()).not.toThrow();
    }
    // The other listener got every batch, and the report (seq 2) right after the first.
    expect(seen).toEqual([[1], [2], [3], [4]]);
    const logs = s.snapshot().filter((e) => e.type === 'log' && e.text.includes('failed'));
    expect(logs).toHaveLength(1);
    const text = (logs[0] as { text: string }).text;
    expect(text).toContain('the live feed failed');
    expect(text).toContain('RangeError: Maximum call stack size exceeded');
    expect(text).not.toMatch(/\n\s+at /); // no stack trace
    expect(warn).toHaveBeenCalledTimes(1);
    // The store itself keeps working.
    s.append({ type: 'log', ts: 0, source: 'mcpscope', text: 'after' });
    s.commit();
    expect(s.snapshot().at(-1)).toMatchObject({ text: 'after' });
  });
});

describe('EventStore: clear', () => {
  it('empties the log, indexes and the pending batch, but seqs keep increasing', () => {
    const s = new EventStore();
    const got: McpscopeEvent[][] = [];
    s.subscribe((b) => got.push([...b]));
    s.append({ type: 'session', ts: 0, session: session('s1') });
    s.append({ type: 'exchange', ts: 0, exchange: exchange('x1', 's1') });
    s.append(message('s1', 1));
    s.clear();
    expect(s.size).toBe(0);
    expect(s.snapshot()).toEqual([]);
    expect(s.sessions.size).toBe(0);
    expect(s.exchanges.size).toBe(0);
    expect(s.messages('s1')).toEqual([]);
    expect(s.message(3)).toBeUndefined();
    s.commit();
    expect(got).toEqual([]); // the uncommitted events were dropped with the log
    expect(s.lastSeq).toBe(3);
    expect(s.firstSeq).toBe(4);
    expect(s.append({ type: 'log', ts: 0, source: 'mcpscope', text: 'after' }).seq).toBe(4);
    expect(s.firstSeq).toBe(4);
  });
});
