/**
 * Replay's matching and re-emission rules, and verify's diff wording, on small hand-built
 * fixtures (no sockets): which recorded call answers a request, the error when none does, what a
 * call re-emits and in which order, id and progress-token rewriting, waiting for the client's
 * reply to a server→client request, cancellation, and fixture validation.
 */
import { describe, expect, it } from 'vitest';
import { FIXTURE_FORMAT, FIXTURE_VERSION, type Fixture, type FixtureMessage } from '../../../proxy/core/model/fixture-format.js';
import { canonicalJson, diffJson, formatDifference, formatPath, normalizeVolatile } from '../../../proxy/core/model/json-diff.js';
import { buildReplayModel, callLabel, Matcher, matchKey } from '../../../proxy/files/replay/replay-matching.js';
import { ReplaySession, type JsonRpcMessage, type ReplaySink } from '../../../proxy/files/replay/replay-session.js';
import { compareOutcome } from '../../../proxy/files/replay/verify.js';
import { parseFixture, validateFixture } from '../../../proxy/files/import/load-fixture.js';
import { FixtureError } from '../../../proxy/core/model/errors.js';

// --- a small fixture builder ---------------------------------------------------------------------

type Msg = Omit<FixtureMessage, 'seq' | 't' | 'carrier'> & { carrier?: FixtureMessage['carrier'] };

function fixture(messages: Msg[], extra: Partial<Fixture> = {}): Fixture {
  return {
    format: FIXTURE_FORMAT,
    version: FIXTURE_VERSION,
    generator: 'test',
    exportedAt: '2026-01-01T00:00:00.000Z',
    session: {
      transport: 'streamable-http',
      target: 'http://upstream/mcp',
      startedAt: 0,
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'srv', version: '1' },
    },
    exchanges: [],
    ...extra,
    messages: messages.map((m, i) => ({ carrier: m.dir === 'c2s' ? 'post-body' : 'post-sse', ...m, seq: (i + 1) * 10, t: i * 5 })),
  };
}

const req = (id: number, method: string, params?: Record<string, unknown>): Msg => ({
  dir: 'c2s',
  kind: 'request',
  message: { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) },
});
const res = (pair: number, id: number, result: unknown): Msg => ({
  dir: 's2c',
  kind: 'response',
  pair,
  message: { jsonrpc: '2.0', id, result },
});

/** initialize (10/20), tools/list (30/40), echo "a" → "A1" (50/60), echo "a" → "A2" (70/80), echo "b" (90/100). */
function basic(): Fixture {
  return fixture([
    req(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rec', version: '1' } }),
    res(10, 0, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'srv', version: '1' } }),
    req(1, 'tools/list'),
    res(30, 1, { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] }),
    req(2, 'tools/call', { name: 'echo', arguments: { text: 'a', n: 1 } }),
    res(50, 2, { content: [{ type: 'text', text: 'A1' }] }),
    req(3, 'tools/call', { name: 'echo', arguments: { text: 'a', n: 1 } }),
    res(70, 3, { content: [{ type: 'text', text: 'A2' }] }),
    req(4, 'tools/call', { name: 'echo', arguments: { text: 'b', n: 1 } }),
    res(90, 4, { content: [{ type: 'text', text: 'B' }] }),
  ]);
}

/** A sink that records what was sent and lets a test await a message. */
function recordingSink(
  streaming = true,
): ReplaySink & { sent: JsonRpcMessage[]; next(pred: (m: JsonRpcMessage) => boolean): Promise<JsonRpcMessage>; close(): void } {
  const sent: JsonRpcMessage[] = [];
  const waiters: { pred: (m: JsonRpcMessage) => boolean; resolve: (m: JsonRpcMessage) => void }[] = [];
  const closeCbs: (() => void)[] = [];
  let closed = false;
  return {
    sent,
    streaming,
    get closed() {
      return closed;
    },
    send(m) {
      if (closed) return false;
      sent.push(m);
      for (const w of waiters.splice(0)) {
        if (w.pred(m)) w.resolve(m);
        else waiters.push(w);
      }
      return true;
    },
    onClose(cb) {
      closeCbs.push(cb);
    },
    next(pred) {
      const found = sent.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ pred, resolve }));
    },
    close() {
      closed = true;
      for (const cb of closeCbs) cb();
    },
  };
}

// --- matching -------------------------------------------------------------------------------------

describe('match keys', () => {
  it('ignore key order, _meta (progress tokens and all) and the difference between no params and {}', () => {
    expect(matchKey('tools/call', { name: 'x', arguments: { a: 1, b: 2 } })).toBe(
      matchKey('tools/call', { arguments: { b: 2, a: 1 }, name: 'x', _meta: { progressToken: 7 } }),
    );
    expect(matchKey('tools/list', undefined)).toBe(matchKey('tools/list', {}));
    expect(matchKey('tools/list', { _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'c' } } })).toBe(
      matchKey('tools/list', undefined),
    );
    expect(matchKey('tools/call', { name: 'x', arguments: { a: 1 } })).not.toBe(
      matchKey('tools/call', { name: 'x', arguments: { a: '1' } }),
    );
    expect(matchKey('initialize', { protocolVersion: '2025-03-26', clientInfo: { name: 'anyone' } })).toBe('initialize');
    expect(canonicalJson({ b: [{ y: 1, x: 2 }], a: null })).toBe('{"a":null,"b":[{"x":2,"y":1}]}');
  });

  it('give the n-th identical call the n-th recorded answer, then repeat the last', () => {
    const m = new Matcher(buildReplayModel(basic()));
    const texts = [1, 2, 3].map(() => {
      const r = m.match('tools/call', { arguments: { n: 1, text: 'a' }, name: 'echo' });
      if ('error' in r) throw new Error(r.error.message);
      return (r.call.response!.message.result as { content: { text: string }[] }).content[0].text;
    });
    expect(texts).toEqual(['A1', 'A2', 'A2']);
    // Counting is per key: "b" has its own.
    const b = m.match('tools/call', { name: 'echo', arguments: { text: 'b', n: 1 } });
    expect('call' in b && b.call.request.seq).toBe(90);
    // …and per matcher (one per replay session).
    const fresh = new Matcher(buildReplayModel(basic())).match('tools/call', { name: 'echo', arguments: { text: 'a', n: 1 } });
    expect('call' in fresh && fresh.call.request.seq).toBe(50);
  });

  it('answer an unknown method with -32601 and a known one with other params with -32602 naming the closest recorded request and the difference', () => {
    const m = new Matcher(buildReplayModel(basic()));
    const unknown = m.match('prompts/list', {});
    expect('error' in unknown && unknown.error.code).toBe(-32601);
    expect('error' in unknown && unknown.error.message).toContain('prompts/list was never called');
    expect('error' in unknown && unknown.error.message).toContain('recorded methods: initialize, tools/list, tools/call');

    const miss = m.match('tools/call', { name: 'echo', arguments: { text: 'c', n: 1 } });
    if (!('error' in miss)) throw new Error('expected no match');
    expect(miss.error.code).toBe(-32602);
    // Closest: one differing path; the earliest recorded on a tie (text "a" at seq 50 before "b" at 90).
    expect(miss.error.message).toContain('Closest recorded: tools/call echo {"name":"echo","arguments":{"text":"a","n":1}} (seq 50)');
    expect(miss.error.message).toContain('arguments.text: recorded "a", got "c"');
    expect(miss.error.data?.closest?.differences).toEqual([{ path: 'arguments.text', recorded: 'a', received: 'c' }]);

    const extra = m.match('tools/call', { name: 'echo', arguments: { text: 'b', n: 2, loud: true } });
    if (!('error' in extra)) throw new Error('expected no match');
    expect(extra.error.message).toContain('(seq 90)');
    expect(extra.error.message).toContain('arguments.n: recorded 1, got 2');
    expect(extra.error.message).toContain('arguments.loud: not in the recording (got true)');
  });

  it('prefer a recorded call of the same tool as the closest one, and say when the tool was never called', () => {
    const f = fixture([
      req(1, 'tools/call', { name: 'a', arguments: { x: 1 } }),
      res(10, 1, {}),
      req(2, 'tools/call', { name: 'b', arguments: { x: 1, y: 2, z: 3 } }),
      res(30, 2, {}),
    ]);
    const m = new Matcher(buildReplayModel(f));
    const r = m.match('tools/call', { name: 'b', arguments: { x: 9 } });
    // Fewer differing paths to `a` (name, x) than to `b` (x, y, z), but `b` is the same tool.
    expect('error' in r && r.error.data?.closest?.seq).toBe(30);
    const other = m.match('tools/call', { name: 'c', arguments: { x: 1 } });
    expect('error' in other && other.error.message).toContain(
      'tools/call "c" was never called in the recorded session (recorded: tools/call a, tools/call b).',
    );
  });

  it('synthesise an initialize result from the session metadata when the recording has none', () => {
    const model = buildReplayModel(fixture([req(5, 'tools/list'), res(10, 5, { tools: [] })], {}));
    expect(model.initialize.response?.message.result).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: {},
      serverInfo: { name: 'srv', version: '1' },
    });
    const r = new Matcher(model).match('initialize', { clientInfo: { name: 'x' } });
    expect('call' in r && r.call).toBe(model.initialize);
  });

  it('label calls the way people name them', () => {
    expect(callLabel('tools/call', { name: 'echo' })).toBe('tools/call echo');
    expect(callLabel('resources/read', { uri: 'demo://readme' })).toBe('resources/read demo://readme');
    expect(callLabel('tools/list', {})).toBe('tools/list');
  });
});

// --- which recorded messages belong to a call ------------------------------------------------------

/** A tool call with progress, a log line, a sampling round trip, then a list_changed on the GET stream. */
function withFollowers(): Fixture {
  return fixture([
    req(0, 'initialize', {}),
    res(10, 0, { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'srv', version: '1' } }),
    req(1, 'tools/call', { name: 'slow', arguments: {}, _meta: { progressToken: 'rec-token' } }), // 30
    {
      dir: 's2c',
      kind: 'notification',
      pair: 30,
      parent: 30,
      message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'rec-token', progress: 1, total: 2 } },
    }, // 40
    {
      dir: 's2c',
      kind: 'notification',
      parent: 30,
      message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'step 1' } },
    }, // 50
    {
      dir: 's2c',
      kind: 'request',
      parent: 30,
      message: { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
    }, // 60
    {
      dir: 'c2s',
      kind: 'response',
      pair: 60,
      parent: 30,
      message: { jsonrpc: '2.0', id: 0, result: { model: 'm', role: 'assistant', content: { type: 'text', text: 'yes' } } },
    }, // 70
    {
      dir: 's2c',
      kind: 'notification',
      pair: 30,
      parent: 30,
      message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'rec-token', progress: 2, total: 2 } },
    }, // 80
    res(30, 1, { content: [{ type: 'text', text: 'slow done' }] }), // 90
    { dir: 's2c', kind: 'notification', carrier: 'get-sse', message: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } }, // 100
    req(2, 'tools/list'), // 110
    res(110, 2, { tools: [] }), // 120
  ]);
}

describe('the replay model', () => {
  it('gives each call its recorded server→client messages in wire order, the response last, and GET-stream messages as background', () => {
    const model = buildReplayModel(withFollowers());
    const slow = model.calls.find((c) => c.method === 'tools/call')!;
    expect(slow.followers.map((f) => f.seq)).toEqual([40, 50, 60, 80, 90]);
    expect(slow.response?.seq).toBe(90);
    expect(slow.clientReplies.get(60)?.seq).toBe(70);
    expect(slow.background.map((m) => m.seq)).toEqual([100]);
    expect(slow.carrier).toBe('post-sse');
    expect(model.calls.find((c) => c.method === 'tools/list')!.background).toEqual([]);
  });

  it('attributes unlinked messages of a stdio recording to the only pending call', () => {
    const f = fixture(
      [
        { ...req(0, 'initialize', {}), carrier: 'stdio' },
        { ...res(10, 0, { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's' } }), carrier: 'stdio' },
        { ...req(1, 'tools/call', { name: 'x' }), carrier: 'stdio' }, // 30
        {
          dir: 's2c',
          kind: 'notification',
          carrier: 'stdio',
          message: { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'during' } },
        }, // 40
        { ...res(30, 1, {}), carrier: 'stdio' }, // 50
        {
          dir: 's2c',
          kind: 'notification',
          carrier: 'stdio',
          message: { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'after' } },
        }, // 60
      ],
      { session: { transport: 'stdio', target: 'node server.js', startedAt: 0 } },
    );
    const model = buildReplayModel(f);
    const call = model.calls[1];
    expect(call.followers.map((m) => m.seq)).toEqual([40, 50]);
    expect(call.background.map((m) => m.seq)).toEqual([60]);
    expect(model.defaultCarrier).toBe('stdio');
    expect(model.stateful).toBe(true);
  });

  it('reads the endpoint path, session use and GET support from the recorded HTTP exchanges', () => {
    const f = basic();
    f.messages[0].exchange = 'x1';
    f.exchanges = [
      { id: 'x1', t: 0, method: 'POST', url: '/v1/mcp?k=1', requestHeaders: {}, responseHeaders: {}, status: 200 },
      { id: 'x2', t: 1, method: 'GET', url: '/v1/mcp', requestHeaders: {}, status: 405 },
    ];
    const model = buildReplayModel(f);
    expect(model.path).toBe('/v1/mcp');
    expect(model.stateful).toBe(false);
    expect(model.noGetStream).toBe(true);
    f.exchanges[0].responseHeaders = { 'Mcp-Session-Id': 'abc' };
    expect(buildReplayModel(f).stateful).toBe(true);
  });
});

// --- re-emission ---------------------------------------------------------------------------------------

describe('a replay session', () => {
  it('re-emits progress with the client’s token, logs and sampling in recorded order; waits for the sampling reply; answers with the client’s id', async () => {
    const logs: string[] = [];
    const session = new ReplaySession(buildReplayModel(withFollowers()), { log: (l) => logs.push(l) });
    const sink = recordingSink();
    const done = session.handle(
      { jsonrpc: '2.0', id: 'client-7', method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: { progressToken: 99 } } },
      sink,
    );
    const sampling = await sink.next((m) => m.method === 'sampling/createMessage');
    // Until the client answers, nothing else is sent (let everything already runnable run first).
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.sent.map((m) => m.method ?? `response ${String(m.id)}`)).toEqual([
      'notifications/progress',
      'notifications/message',
      'sampling/createMessage',
    ]);
    expect(sink.sent[0].params).toEqual({ progressToken: 99, progress: 1, total: 2 });
    expect(sampling.id).toBe(0); // the recorded id, free in this session
    await session.handle(
      { jsonrpc: '2.0', id: 0, result: { model: 'other', role: 'assistant', content: { type: 'text', text: 'no' } } },
      recordingSink(),
    );
    await done;
    expect(sink.sent.map((m) => m.method ?? `response ${String(m.id)}`)).toEqual([
      'notifications/progress',
      'notifications/message',
      'sampling/createMessage',
      'notifications/progress',
      'response client-7',
    ]);
    expect(sink.sent[3].params).toEqual({ progressToken: 99, progress: 2, total: 2 });
    expect(sink.sent[4]).toEqual({ jsonrpc: '2.0', id: 'client-7', result: { content: [{ type: 'text', text: 'slow done' }] } });
    expect(logs.some((l) => l.includes('differs from the recording') && l.includes('result.content.text: "yes" → "no"'))).toBe(true);
  });

  it('sends no progress when the client asked for none, and the GET-stream messages once the stream is open', async () => {
    // (At once: with the recorded timing list_changed would follow the response 5 ms later.)
    const session = new ReplaySession(buildReplayModel(withFollowers()), { timing: 'fast' });
    const sink = recordingSink();
    const done = session.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: {} } }, sink);
    const sampling = await sink.next((m) => m.method === 'sampling/createMessage');
    await session.handle({ jsonrpc: '2.0', id: sampling.id, result: {} }, recordingSink());
    await done;
    expect(sink.sent.map((m) => m.method ?? 'response')).toEqual(['notifications/message', 'sampling/createMessage', 'response']);
    // list_changed was queued: no GET stream yet.
    const get = recordingSink();
    session.attachBackground(get);
    expect(get.sent).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
    // A repeat of the call does not send it again.
    const again = recordingSink();
    const done2 = session.handle({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } }, again);
    const s2 = await again.next((m) => m.method === 'sampling/createMessage');
    await session.handle({ jsonrpc: '2.0', id: s2.id, result: {} }, recordingSink());
    await done2;
    expect(get.sent).toHaveLength(1);
  });

  it('stops a call the client cancels: no response is sent', async () => {
    const session = new ReplaySession(buildReplayModel(withFollowers()));
    const sink = recordingSink();
    const done = session.handle({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow', arguments: {} } }, sink);
    await sink.next((m) => m.method === 'sampling/createMessage');
    await session.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } }, recordingSink());
    await done;
    expect(sink.sent.some((m) => m.id === 5)).toBe(false);
  });

  it('stops when the client’s stream goes away', async () => {
    const session = new ReplaySession(buildReplayModel(withFollowers()));
    const sink = recordingSink();
    const done = session.handle({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow', arguments: {} } }, sink);
    await sink.next((m) => m.method === 'sampling/createMessage');
    sink.close();
    await done;
    expect(sink.sent.some((m) => m.id === 5)).toBe(false);
  });

  it('answers ping without a recording, and unmatched requests with the JSON-RPC error', async () => {
    const session = new ReplaySession(buildReplayModel(basic()));
    const sink = recordingSink();
    await session.handle({ jsonrpc: '2.0', id: 1, method: 'ping' }, sink);
    await session.handle({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope' } }, sink);
    expect(sink.sent[0]).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(sink.sent[1]).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32602 } });
  });

  it('keeps the recorded pacing by default (the older speed option still scales it) and answers at once with timing fast', async () => {
    // Recorded: request at t=10, response at t=15 (5 ms later): speed 0.05 (= timing 20) stretches it to 100 ms.
    const session = new ReplaySession(buildReplayModel(basic()), { speed: 0.05 });
    const started = Date.now();
    await session.handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, recordingSink());
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    expect(new ReplaySession(buildReplayModel(basic())).factor).toBe(1);
    const instant = new ReplaySession(buildReplayModel(basic()), { timing: 'fast' });
    const t0 = Date.now();
    await instant.handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, recordingSink());
    expect(Date.now() - t0).toBeLessThan(90);
  });
});

// --- diffs -----------------------------------------------------------------------------------------------

describe('path-level diffs', () => {
  it('compare named things by name and report schema drift at the deepest path', () => {
    const before = { tools: [{ name: 'echo', inputSchema: { properties: { message: { type: 'string' } } } }, { name: 'old' }] };
    const after = { tools: [{ name: 'new' }, { name: 'echo', inputSchema: { properties: { message: { type: 'number' } } } }] };
    const lines = compareOutcome('tools/list', 1, { result: before }, { result: after }).map((d) => d.text);
    expect(lines).toEqual([
      'tools/list › tools[name=echo].inputSchema.properties.message.type: "string" → "number"',
      'tools/list › tools[name=old]: removed (was {"name":"old"})',
      'tools/list › tools[name=new]: added {"name":"new"}',
    ]);
  });

  it('ignore _meta and volatile values (UUIDs, timestamps, epoch ms) but not real changes', () => {
    const a = {
      _meta: { x: 1 },
      session: '3d952c02-872a-462d-ba91-bfa4a99cc2ef',
      at: 'Started 2026-01-01T10:00:00.123Z',
      ms: 1763780011234,
      n: 1,
    };
    const b = {
      _meta: { x: 2 },
      session: '9b004b8e-2ce9-40e7-962a-9e8695f2821d',
      at: 'Started 2027-05-05T11:11:11Z',
      ms: 1763780099999,
      n: 2,
    };
    expect(diffJson(a, b, { ignoreVolatile: true }).map((d) => formatDifference(d))).toEqual(['n: 1 → 2']);
    expect(diffJson(a, b).length).toBe(4);
    expect(normalizeVolatile('id 3d952c02-872a-462d-ba91-bfa4a99cc2ef at Sun, 22 Nov 2026 03:45:30 GMT')).toBe('id <uuid> at <time>');
  });

  it('word errors and their disappearance plainly', () => {
    expect(
      compareOutcome('tools/call echo', 1, { result: { content: [] } }, { error: { code: -32601, message: 'Method not found' } })[0],
    ).toMatchObject({
      kind: 'new-error',
      text: 'tools/call echo › new error -32601 "Method not found" (the recording has a result)',
    });
    expect(compareOutcome('x', 1, { error: { code: -32602, message: 'bad' } }, { result: {} })[0].kind).toBe('error-gone');
    expect(compareOutcome('x', 1, { error: { code: -32602, message: 'bad' } }, { error: { code: -32602, message: 'bad' } })).toEqual([]);
    expect(formatPath(['a', 0, { key: 'uri', value: 'demo://x' }, 'odd key'])).toBe('a[0][uri=demo://x]["odd key"]');
  });
});

// --- loading -----------------------------------------------------------------------------------------------

describe('fixture validation', () => {
  it('accepts a fixture and explains what is wrong with anything else', () => {
    expect(validateFixture(JSON.parse(JSON.stringify(basic()))).messages).toHaveLength(10);
    const bad = (doc: unknown) => {
      try {
        validateFixture(doc, 'f.json');
      } catch (err) {
        expect(err).toBeInstanceOf(FixtureError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad({ ...basic(), version: 2 })).toBe(
      'f.json: fixture version 2 is not supported by this mcpscope (it reads version 1); upgrade mcpscope to read it',
    );
    expect(bad({ ...basic(), format: 'other' })).toContain('not an mcpscope fixture ("format" is "other"');
    expect(bad({ log: { entries: [] } })).toContain('this is a HAR file');
    expect(bad({ ...basic(), messages: [{ seq: 1, dir: 'up', kind: 'request', message: {} }] })).toContain(
      'messages[0].dir must be "c2s" or "s2c"',
    );
    expect(() => parseFixture('{"type":"session","seq":1}\n{"type":"message","seq":2}\n', 'rec.ndjson')).toThrow(/NDJSON event log/);
    expect(() => parseFixture('nope', 'x.json')).toThrow(/x.json: not valid JSON/);
  });
});
