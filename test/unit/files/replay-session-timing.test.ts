/**
 * Replay timing (issue 15, item 3), on hand-built fixtures with fake timers: by default every
 * message of a call goes out at its recorded offset from the request, so concurrent calls
 * complete in the recorded order and progress keeps its pace; `timing: 'fast'` answers at once;
 * a factor scales the recorded delays (0.5 = twice as fast); the older `speed` is its inverse.
 * After a server→client request the clock restarts at the client's reply; standalone-stream
 * messages keep their offsets too. And the CLI's `--timing` / `--speed` parsing.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIXTURE_FORMAT, FIXTURE_VERSION, type Fixture, type FixtureMessage } from '../../../proxy/core/model/fixture-format.js';
import { buildReplayModel } from '../../../proxy/files/replay/replay-matching.js';
import {
  ReplaySession,
  timingFactor,
  type JsonRpcMessage,
  type ReplaySessionOptions,
  type ReplaySink,
} from '../../../proxy/files/replay/replay-session.js';
import { parseTiming } from '../../../proxy/app/commands/replay.js';
import { readCommandLine } from '../../../proxy/app/cli-parse.js';

type Msg = Omit<FixtureMessage, 'seq' | 'carrier'> & { carrier?: FixtureMessage['carrier'] };

function fixture(messages: Msg[]): Fixture {
  return {
    format: FIXTURE_FORMAT,
    version: FIXTURE_VERSION,
    generator: 'test',
    exportedAt: '2026-01-01T00:00:00.000Z',
    session: { transport: 'streamable-http', target: 'http://upstream/mcp', startedAt: 0, protocolVersion: '2025-06-18' },
    exchanges: [],
    messages: messages.map((m, i) => ({ carrier: m.dir === 'c2s' ? 'post-body' : 'post-sse', ...m, seq: (i + 1) * 10 })),
  };
}

const call = (t: number, id: number, name: string, progress = false): Msg => ({
  t,
  dir: 'c2s',
  kind: 'request',
  message: {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: {}, ...(progress ? { _meta: { progressToken: `rec-${id}` } } : {}) },
  },
});
const result = (t: number, pair: number, id: number, text: string): Msg => ({
  t,
  dir: 's2c',
  kind: 'response',
  pair,
  message: { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } },
});
const progress = (t: number, pair: number, n: number): Msg => ({
  t,
  dir: 's2c',
  kind: 'notification',
  pair,
  parent: pair,
  message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'rec', progress: n, total: 2 } },
});

/**
 * A slow call (seq 10, t=100) with progress at +100 and +200 and its result at +300, and a fast
 * call sent 10 ms after it (seq 20, t=110) answered at +20: the fast one completed first.
 */
function concurrent(): Fixture {
  return fixture([
    call(100, 1, 'slow', true),
    call(110, 2, 'fast'),
    result(130, 20, 2, 'fast done'),
    progress(200, 10, 1),
    progress(300, 10, 2),
    result(400, 10, 1, 'slow done'),
  ]);
}

interface Stamped {
  at: number;
  what: string;
}

/** A sink noting when (fake ms since the test's start) and what was sent. */
function stampingSink(t0: number, out: Stamped[], tag: string): ReplaySink {
  return {
    streaming: true,
    closed: false,
    send(m: JsonRpcMessage) {
      const what =
        m.method === 'notifications/progress'
          ? `${tag} progress ${(m.params as { progress: number }).progress}`
          : m.method
            ? `${tag} ${String(m.method)}`
            : `${tag} response`;
      out.push({ at: Date.now() - t0, what });
      return true;
    },
    onClose() {},
  };
}

/** Replays `concurrent()`: the slow call, then the fast one 10 ms later (as recorded); returns what went out when. */
async function replayConcurrent(options: ReplaySessionOptions): Promise<Stamped[]> {
  const session = new ReplaySession(buildReplayModel(concurrent()), options);
  const out: Stamped[] = [];
  const t0 = Date.now();
  const slow = session.handle(
    { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: { progressToken: 'live' } } },
    stampingSink(t0, out, 'slow'),
  );
  await vi.advanceTimersByTimeAsync(10);
  const fast = session.handle(
    { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'fast', arguments: {} } },
    stampingSink(t0, out, 'fast'),
  );
  await vi.advanceTimersByTimeAsync(5_000);
  await Promise.all([slow, fast]);
  return out;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('replay timing', () => {
  it('by default sends each message at its recorded offset from its request: the fast call completes first, progress keeps its pace', async () => {
    const out = await replayConcurrent({});
    expect(out).toEqual([
      { at: 30, what: 'fast response' }, // sent at 10, answered 20 ms later
      { at: 100, what: 'slow progress 1' },
      { at: 200, what: 'slow progress 2' },
      { at: 300, what: 'slow response' },
    ]);
    expect(await replayConcurrent({ timing: 'recorded' })).toEqual(out);
  });

  it('timing fast answers at once (the slow call, asked first, then completes first); a factor scales the delays', async () => {
    const fast = await replayConcurrent({ timing: 'fast' });
    expect(fast.map((s) => s.at)).toEqual([0, 0, 0, 10]);
    expect(fast.map((s) => s.what)).toEqual(['slow progress 1', 'slow progress 2', 'slow response', 'fast response']);

    expect(await replayConcurrent({ timing: 0.5 })).toEqual([
      { at: 20, what: 'fast response' },
      { at: 50, what: 'slow progress 1' },
      { at: 100, what: 'slow progress 2' },
      { at: 150, what: 'slow response' },
    ]);
    const half = await replayConcurrent({ timing: 2 });
    expect(half.map((s) => s.at)).toEqual([50, 200, 400, 600]);
  });

  it('keeps `speed` as the inverse alias: speed 2 = timing 0.5, speed 0 = fast, speed 1 = recorded', async () => {
    expect(timingFactor({ speed: 2 })).toBe(0.5);
    expect(timingFactor({ speed: 0 })).toBe(0);
    expect(timingFactor({ speed: 1 })).toBe(1);
    expect(timingFactor({})).toBe(1);
    expect(timingFactor({ timing: 'fast', speed: 1 })).toBe(0); // timing wins
    expect(() => timingFactor({ timing: -1 })).toThrow(RangeError);
    expect(() => timingFactor({ speed: Number.NaN })).toThrow(RangeError);
    expect((await replayConcurrent({ speed: 2 })).map((s) => s.at)).toEqual([20, 50, 100, 150]);
  });

  it('restarts the clock at the client’s reply to a server→client request, and paces standalone-stream messages', async () => {
    // tools/call at 0; sampling at +50; the recorded client answered at +60; the result followed
    // 40 ms after that; list_changed went on the GET stream 100 ms after the result.
    const f = fixture([
      call(0, 1, 'ask'),
      {
        t: 50,
        dir: 's2c',
        kind: 'request',
        parent: 10,
        message: { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
      },
      {
        t: 60,
        dir: 'c2s',
        kind: 'response',
        pair: 20,
        parent: 10,
        message: { jsonrpc: '2.0', id: 0, result: { role: 'assistant', model: 'm', content: { type: 'text', text: 'x' } } },
      },
      result(100, 10, 1, 'asked'),
      {
        t: 200,
        dir: 's2c',
        kind: 'notification',
        carrier: 'get-sse',
        message: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      },
    ]);
    const session = new ReplaySession(buildReplayModel(f));
    const out: Stamped[] = [];
    const t0 = Date.now();
    session.attachBackground(stampingSink(t0, out, 'get'));
    const done = session.handle(
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ask', arguments: {} } },
      stampingSink(t0, out, 'post'),
    );
    await vi.advanceTimersByTimeAsync(500); // the live client takes 450 ms to answer
    expect(out).toEqual([{ at: 50, what: 'post sampling/createMessage' }]);
    await session.handle(
      { jsonrpc: '2.0', id: 0, result: { role: 'assistant', model: 'm', content: { type: 'text', text: 'y' } } },
      stampingSink(t0, [], 'reply'),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    await done;
    expect(out).toEqual([
      { at: 50, what: 'post sampling/createMessage' },
      { at: 540, what: 'post response' }, // 40 ms after the live reply, not at once
      { at: 640, what: 'get notifications/tools/list_changed' },
    ]);
  });
});

describe('mcpscope replay --timing / --speed', () => {
  // The words themselves are checked by the option table (test/unit/app/cli-options.test.ts).
  const timing = (...argv: string[]) => {
    const { values } = readCommandLine('replay', ['f.json', ...argv]);
    return parseTiming(values.timing, values.speed);
  };
  it('parses recorded, fast and factors, keeps --speed as the inverse, and refuses nonsense', () => {
    expect(timing()).toEqual({ timing: 'recorded' });
    expect(timing('--timing', 'fast')).toEqual({ timing: 'fast' });
    expect(timing('--timing', 'recorded')).toEqual({ timing: 'recorded' });
    expect(timing('--timing', '0.5')).toEqual({ timing: 0.5 });
    expect(timing('--timing', '0')).toEqual({ timing: 'fast' });
    expect(timing('--speed', '2')).toEqual({ timing: 0.5 });
    expect(timing('--speed', '0')).toEqual({ timing: 'fast' });
    expect(() => timing('--timing', 'slow')).toThrow('--timing must be recorded, fast or a factor (0 or more), not "slow"');
    expect(() => timing('--timing=-1')).toThrow(/--timing must be/);
    expect(() => timing('--speed', 'x')).toThrow(/--speed must be a number/);
    expect(timing('--timing', '1', '--speed', '1')).toEqual({ error: expect.stringContaining('not both') });
  });
});
