import { afterEach, describe, expect, it, vi } from 'vitest';
import { CaptureQueue } from '../../../proxy/wire/capture/capture-queue.js';
import type { WireRecord } from '../../../proxy/wire/capture/wire-records.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

const req = (xid: string): WireRecord => ({
  t: 'request',
  xid,
  ts: 1,
  method: 'POST',
  url: '/mcp',
  upstreamUrl: 'http://u/mcp',
  headers: {},
  proxyOrigin: 'http://p',
  target: 'http://u/mcp',
});
const chunk = (xid: string, n: number, t: 'request-chunk' | 'response-chunk' = 'response-chunk'): WireRecord => ({
  t,
  xid,
  ts: 2,
  chunk: new Uint8Array(n),
});
const end = (xid: string): WireRecord => ({ t: 'response-end', xid, ts: 3 });

/** A compact view: type, xid and chunk size / dropped bytes. */
const view = (r: WireRecord) =>
  r.t === 'request-chunk' || r.t === 'response-chunk'
    ? `${r.t}:${r.xid}:${r.chunk.byteLength}`
    : r.t === 'overflow'
      ? `overflow:${r.xid}:${r.droppedBytes}`
      : `${r.t}:${r.xid}`;

afterEach(() => vi.restoreAllMocks());

describe('CaptureQueue: batching', () => {
  it('delivers nothing synchronously, then one batch per turn in push order', async () => {
    const batches: string[][] = [];
    const q = new CaptureQueue((b) => batches.push(b.map(view)));
    q.push(req('a'));
    q.push(chunk('a', 3, 'request-chunk'));
    q.push(req('b'));
    q.push(end('a'));
    expect(batches).toEqual([]);
    await tick();
    expect(batches).toEqual([['request:a', 'request-chunk:a:3', 'request:b', 'response-end:a']]);
    q.push(end('b'));
    await tick();
    expect(batches).toEqual([['request:a', 'request-chunk:a:3', 'request:b', 'response-end:a'], ['response-end:b']]);
  });

  it('with delayMs, waits that long after the first record and hands over everything pushed meanwhile in one batch', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      const batches: string[][] = [];
      const q = new CaptureQueue((b) => batches.push(b.map(view)), { delayMs: 5 });
      q.push(req('a'));
      await tick();
      vi.advanceTimersByTime(4);
      q.push(end('a'));
      expect(batches).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(batches).toEqual([['request:a', 'response-end:a']]);
      q.push(req('b'));
      q.flush(); // flush() does not wait
      expect(batches).toEqual([['request:a', 'response-end:a'], ['request:b']]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('hands over the very chunk objects (no copies)', async () => {
    let got: WireRecord[] = [];
    const q = new CaptureQueue((b) => (got = b));
    const r = chunk('a', 4);
    q.push(r);
    await tick();
    expect(got[0]).toBe(r);
  });

  it('flush() runs the consumer at once; an empty flush does not call it', async () => {
    const batches: string[][] = [];
    const q = new CaptureQueue((b) => batches.push(b.map(view)));
    q.flush();
    expect(batches).toEqual([]);
    q.push(req('a'));
    q.flush();
    expect(batches).toEqual([['request:a']]);
    await tick(); // the scheduled turn finds nothing left
    expect(batches).toEqual([['request:a']]);
  });

  it('a consumer that throws on the scheduled turn is reported, and later batches still flow', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    let calls = 0;
    const got: string[] = [];
    const q = new CaptureQueue((b) => {
      calls += 1;
      if (calls === 1) throw new Error('bad batch');
      got.push(...b.map(view));
    });
    q.push(req('a'));
    await tick();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toContain('bad batch');
    q.push(req('b'));
    await tick();
    expect(got).toEqual(['request:b']);
  });
});

describe('CaptureQueue: overflow', () => {
  it('drops chunk payloads past maxQueuedBytes and reports one overflow record per exchange', async () => {
    const batches: string[][] = [];
    const q = new CaptureQueue((b) => batches.push(b.map(view)), { maxQueuedBytes: 10 });
    q.push(req('a'));
    q.push(req('b'));
    q.push(chunk('a', 6)); // 6 queued
    q.push(chunk('a', 6)); // would be 12: dropped
    q.push(chunk('b', 5)); // dropped
    q.push(chunk('a', 1)); // dropped: a overflowed in this turn, the rest of its frames cannot be parsed
    q.push(chunk('b', 4)); // dropped
    vi.spyOn(Date, 'now').mockReturnValue(777);
    let raw: WireRecord[] = [];
    const q2 = new CaptureQueue((b) => (raw = b), { maxQueuedBytes: 1 });
    q2.push(chunk('z', 2));
    q2.flush();
    expect(raw).toEqual([{ t: 'overflow', xid: 'z', ts: 777, droppedBytes: 2 }]);
    await tick();
    expect(batches).toEqual([['request:a', 'request:b', 'response-chunk:a:6', 'overflow:a:7', 'overflow:b:9']]);
  });

  it('bytes handed over but not yet confirmed (pendingBytes) count against the cap, and free it once confirmed', async () => {
    const batches: string[][] = [];
    let pending = 0;
    const q = new CaptureQueue(
      (b) => {
        batches.push(b.map(view));
        for (const r of b) if (r.t === 'response-chunk') pending += r.chunk.byteLength; // "posted, not acked"
      },
      { maxQueuedBytes: 10, pendingBytes: () => pending },
    );
    q.push(chunk('a', 8));
    await tick(); // 8 bytes now in flight
    q.push(chunk('b', 3)); // 8 + 3 > 10: dropped
    await tick();
    pending = 0; // the other side confirmed
    q.push(chunk('c', 3));
    await tick();
    expect(batches).toEqual([['response-chunk:a:8'], ['overflow:b:3'], ['response-chunk:c:3']]);
  });

  it('non-chunk records are never dropped, however full the queue is', async () => {
    const batches: string[][] = [];
    const q = new CaptureQueue((b) => batches.push(b.map(view)), { maxQueuedBytes: 0 });
    q.push(req('a'));
    q.push(chunk('a', 1));
    q.push(end('a'));
    await tick();
    expect(batches).toEqual([['request:a', 'overflow:a:1', 'response-end:a']]);
  });

  it('the overflow record comes where the bytes went missing — before the exchange ends', async () => {
    // The recorder forgets an exchange at its response-end: an overflow record after it would be lost,
    // and chunks after a gap must not be parsed as if the stream were contiguous.
    const batches: string[][] = [];
    const q = new CaptureQueue((b) => batches.push(b.map(view)), { maxQueuedBytes: 4 });
    q.push(req('a'));
    q.push(chunk('a', 3));
    q.push(chunk('a', 3)); // dropped
    q.push(chunk('a', 1)); // after the gap: dropped too
    q.push(end('a'));
    q.push(chunk('b', 1)); // b did not overflow: it fits
    await tick();
    expect(batches).toEqual([['request:a', 'response-chunk:a:3', 'overflow:a:4', 'response-end:a', 'response-chunk:b:1']]);
  });

  it('request and response bodies of one exchange each get their own overflow record, in place', async () => {
    const batches: string[][] = [];
    const q = new CaptureQueue((b) => batches.push(b.map(view)), { maxQueuedBytes: 2 });
    q.push(req('a'));
    q.push(chunk('a', 3, 'request-chunk')); // dropped
    q.push(chunk('a', 1, 'request-chunk')); // dropped (after the gap)
    q.push({ t: 'request-end', xid: 'a', ts: 2 });
    q.push({ t: 'response', xid: 'a', ts: 2, status: 200, headers: {} });
    q.push(chunk('a', 2)); // fits: the response body is intact so far
    q.push(chunk('a', 5)); // dropped
    q.push(end('a'));
    await tick();
    expect(batches).toEqual([
      ['request:a', 'overflow:a:4', 'request-end:a', 'response:a', 'response-chunk:a:2', 'overflow:a:5', 'response-end:a'],
    ]);
  });

  it('the budget is per turn: after a drain chunks are queued again', async () => {
    const batches: string[][] = [];
    const q = new CaptureQueue((b) => batches.push(b.map(view)), { maxQueuedBytes: 4 });
    q.push(chunk('a', 4));
    q.push(chunk('a', 1)); // dropped
    await tick();
    q.push(chunk('a', 4));
    await tick();
    expect(batches).toEqual([['response-chunk:a:4', 'overflow:a:1'], ['response-chunk:a:4']]);
  });
});

describe('CaptureQueue: close', () => {
  it('flushes what is queued, then ignores further pushes', async () => {
    const batches: string[][] = [];
    const q = new CaptureQueue((b) => batches.push(b.map(view)));
    q.push(req('a'));
    q.close();
    expect(batches).toEqual([['request:a']]);
    q.push(req('b'));
    q.flush();
    await tick();
    expect(batches).toEqual([['request:a']]);
  });
});
