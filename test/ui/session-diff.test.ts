/**
 * Session diff (ui/src/state/session-diff.ts): alignment of two sessions' calls by method and name
 * in order of occurrence, path-level payload differences, tool-level schema drift, and what is
 * ignored (ids, _meta, progress tokens, timestamps, latency).
 */
import { describe, expect, it } from 'vitest';
import type { MessageEvent } from '../../proxy/core/model/events';
import { TimelineStore } from '../../ui/src/state/store';
import { describeDrift, diffSessions, jsonDiff, summarizeDiff, type DiffCache, type DiffRow } from '../../ui/src/state/session-diff';
import { EventBuilder } from './fixtures';

type Json = Record<string, unknown>;

/** A small client for the builder: requests with ids counting up, answered (or not). */
function sessionWriter(b: EventBuilder, sessionId: string, startId = 0) {
  let id = startId;
  b.session(sessionId);
  const request = (method: string, params: Json | undefined, opts: { name?: string; dir?: 'c2s' | 's2c'; parent?: number } = {}) => {
    const rid = id++;
    const dir = opts.dir ?? 'c2s';
    return b.message({
      sessionId,
      dir,
      kind: 'request',
      carrier: dir === 'c2s' ? 'post-body' : 'post-sse',
      id: rid,
      method,
      name: opts.name ?? (typeof params?.name === 'string' ? params.name : undefined),
      parent: opts.parent,
      jsonrpc: { jsonrpc: '2.0', id: rid, method, ...(params ? { params } : {}) },
    });
  };
  const answer = (req: MessageEvent, result: unknown, after = 5) =>
    b.message({
      sessionId,
      dir: req.dir === 'c2s' ? 's2c' : 'c2s',
      kind: 'response',
      carrier: req.dir === 'c2s' ? 'post-json' : 'post-body',
      id: req.id,
      method: req.method,
      name: req.name,
      pair: req.seq,
      parent: req.parent,
      after,
      jsonrpc: { jsonrpc: '2.0', id: req.id, result },
    });
  const fail = (req: MessageEvent, code: number, message: string) =>
    b.message({
      sessionId,
      dir: 's2c',
      kind: 'error',
      carrier: 'post-json',
      id: req.id,
      method: req.method,
      name: req.name,
      pair: req.seq,
      error: { code, message },
      jsonrpc: { jsonrpc: '2.0', id: req.id, error: { code, message } },
    });
  const call = (method: string, params: Json | undefined, result: unknown, after = 5) => {
    const req = request(method, params);
    answer(req, result, after);
    return req;
  };
  return { request, answer, fail, call };
}

const INIT_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: { sampling: {} },
  clientInfo: { name: 'diff-client', version: '1.0.0' },
};
const initResult = (version: string) => ({
  protocolVersion: '2025-11-25',
  capabilities: { tools: { listChanged: true } },
  serverInfo: { name: 'demo', version },
});
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
const echoTool = (type: string) => ({
  name: 'echo',
  description: 'Echoes',
  inputSchema: { type: 'object', properties: { text: { type } }, required: ['text'] },
});
const addTool = { name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } };
const multiplyTool = { name: 'multiply', inputSchema: { type: 'object', properties: { x: { type: 'number' } } } };

/**
 * s1 (before) and s2 (after a server change):
 *   initialize          same params; server version 1.0.0 → 1.1.0
 *   prompts/list        only in s2 (before tools/list)
 *   tools/list          echo's text type string → number, add removed, multiply added
 *   tools/call echo     "a" → "b" (different progress tokens, ids, latency)
 *   tools/call add #1   same (timestamps in the text differ, _meta differs)
 *   tools/call ask      same, with a nested sampling/createMessage (server→client) that differs
 *   tools/call add #2   ok → JSON-RPC error
 *   tools/call slow     only in s1
 */
function twoSessions() {
  const b = new EventBuilder();
  const L = sessionWriter(b, 's1', 0);
  L.call('initialize', INIT_PARAMS, initResult('1.0.0'));
  L.call('tools/list', {}, { tools: [echoTool('string'), addTool] });
  L.call('tools/call', { name: 'echo', arguments: { text: 'a' }, _meta: { progressToken: 11 } }, text('Echo: a'), 3);
  L.call('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, { ...text('3 at 2026-05-01T12:00:00.123Z'), _meta: { took: 1 } });
  const askL = L.request('tools/call', { name: 'ask', arguments: { q: 'sky?' } });
  const samplingL = L.request(
    'sampling/createMessage',
    { messages: [{ role: 'user', content: { type: 'text', text: 'sky?' } }], maxTokens: 10 },
    { dir: 's2c', parent: askL.seq },
  );
  L.answer(samplingL, { role: 'assistant', model: 'm1', content: { type: 'text', text: 'blue' } });
  L.answer(askL, text('m1 says: blue'));
  L.call('tools/call', { name: 'add', arguments: { a: 2, b: 2 } }, text('4'));
  L.call('tools/call', { name: 'slow', arguments: {} }, text('done'));

  const R = sessionWriter(b, 's2', 100);
  R.call('initialize', INIT_PARAMS, initResult('1.1.0'));
  R.call('prompts/list', {}, { prompts: [] });
  R.call('tools/list', {}, { tools: [echoTool('number'), multiplyTool] });
  R.call('tools/call', { name: 'echo', arguments: { text: 'b' }, _meta: { progressToken: 'tok-2' } }, text('Echo: b'), 40);
  R.call('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, { ...text('3 at 2026-06-02T08:30:00.999Z'), _meta: { took: 7 } });
  const askR = R.request('tools/call', { name: 'ask', arguments: { q: 'sky?' } });
  const samplingR = R.request(
    'sampling/createMessage',
    { messages: [{ role: 'user', content: { type: 'text', text: 'sky?' } }], maxTokens: 10 },
    { dir: 's2c', parent: askR.seq },
  );
  R.answer(samplingR, { role: 'assistant', model: 'm2', content: { type: 'text', text: 'blue' } });
  R.answer(askR, text('m1 says: blue'));
  const add2 = R.request('tools/call', { name: 'add', arguments: { a: 2, b: 2 } });
  R.fail(add2, -32603, 'adder crashed');

  const store = new TimelineStore();
  store.ingest(b.events);
  return store;
}

/** The rows as compact, readable facts. */
function picture(rows: DiffRow[]) {
  return rows.map((r) => ({ id: r.id, kind: r.kind, changes: r.changes.map((c) => c.text), drift: r.drift?.map(describeDrift) }));
}

describe('diffSessions', () => {
  it('aligns calls by method and name in order of occurrence and reports path-level differences', () => {
    const store = twoSessions();
    const rows = diffSessions(store, 's1', 's2');
    expect(picture(rows)).toEqual([
      { id: 'c2s initialize #1', kind: 'changed', changes: ['result.serverInfo.version: "1.0.0" → "1.1.0"'], drift: undefined },
      { id: 'c2s prompts/list #1', kind: 'only-right', changes: [], drift: undefined },
      {
        id: 'c2s tools/list #1',
        kind: 'changed',
        changes: [],
        drift: ['tool changed: echo (inputSchema.properties.text.type: "string" → "number")', 'tool removed: add', 'tool added: multiply'],
      },
      {
        id: 'c2s tools/call echo #1',
        kind: 'changed',
        changes: ['params.arguments.text: "a" → "b"', 'result.content[0].text: "Echo: a" → "Echo: b"'],
        drift: undefined,
      },
      { id: 'c2s tools/call add #1', kind: 'same', changes: [], drift: undefined },
      { id: 'c2s tools/call ask #1', kind: 'same', changes: [], drift: undefined },
      { id: 's2c sampling/createMessage #1', kind: 'changed', changes: ['result.model: "m1" → "m2"'], drift: undefined },
      {
        id: 'c2s tools/call add #2',
        kind: 'changed',
        changes: [
          'status: ok → error',
          'result: removed (was {"content":[{"type":"text","text":"4"}]})',
          'error: added {"code":-32603,"message":"adder crashed"}',
        ],
        drift: undefined,
      },
      { id: 'c2s tools/call slow #1', kind: 'only-left', changes: [], drift: undefined },
    ]);
    expect(summarizeDiff(rows)).toEqual({ rows: 9, same: 2, changed: 5, onlyLeft: 1, onlyRight: 1 });
  });

  it('says which call of each session a row is, with status and latency', () => {
    const store = twoSessions();
    const rows = diffSessions(store, 's1', 's2');
    const echo = rows.find((r) => r.id === 'c2s tools/call echo #1')!;
    expect(echo.left).toMatchObject({ sessionId: 's1', status: 'ok', latencyMs: 3 });
    expect(echo.right).toMatchObject({ sessionId: 's2', status: 'ok', latencyMs: 40 });
    expect(store.row(echo.left!.key)?.sessionId).toBe('s1');
    expect(store.row(echo.right!.key)?.sessionId).toBe('s2');
    const change = echo.changes[0];
    expect(change).toEqual({
      path: 'params.arguments.text',
      kind: 'changed',
      before: 'a',
      after: 'b',
      text: 'params.arguments.text: "a" → "b"',
    });
    const slow = rows.find((r) => r.kind === 'only-left')!;
    expect(slow.right).toBeUndefined();
    expect(slow.left?.sessionId).toBe('s1');
    const prompts = rows.find((r) => r.kind === 'only-right')!;
    expect(prompts.left).toBeUndefined();
    expect(prompts.right?.sessionId).toBe('s2');
  });

  it('mirrors when the sides are swapped', () => {
    const store = twoSessions();
    const rows = diffSessions(store, 's2', 's1');
    const kinds = Object.fromEntries(rows.map((r) => [r.id, r.kind]));
    expect(kinds['c2s prompts/list #1']).toBe('only-left');
    expect(kinds['c2s tools/call slow #1']).toBe('only-right');
    const list = rows.find((r) => r.id === 'c2s tools/list #1')!;
    expect(list.drift?.map(describeDrift)).toEqual([
      'tool changed: echo (inputSchema.properties.text.type: "number" → "string")',
      'tool removed: multiply',
      'tool added: add',
    ]);
    expect(rows.find((r) => r.id === 'c2s tools/call echo #1')?.changes[0].text).toBe('params.arguments.text: "b" → "a"');
  });

  it('finds a session identical to itself (and to a copy with other ids, tokens and times)', () => {
    const b = new EventBuilder();
    for (const [sid, base, token] of [
      ['s1', 0, 1],
      ['s1-i1', 500, 'abc'],
    ] as const) {
      const w = sessionWriter(b, sid, base);
      w.call('initialize', INIT_PARAMS, initResult('1.0.0'));
      w.call(
        'tools/call',
        { name: 'echo', arguments: { text: 'x' }, _meta: { progressToken: token } },
        text(`Echo: x (request ${crypto.randomUUID()})`),
        base + 1,
      );
      b.wait(60_000);
    }
    const store = new TimelineStore();
    store.ingest(b.events);
    for (const [l, r] of [
      ['s1', 's1'],
      ['s1', 's1-i1'],
    ]) {
      const rows = diffSessions(store, l, r);
      expect(rows.map((x) => x.kind)).toEqual(['same', 'same']);
    }
  });

  it('reports a changed status and progress count even when no response arrived', () => {
    const b = new EventBuilder();
    const L = sessionWriter(b, 's1');
    const slowL = L.request('tools/call', { name: 'slow', arguments: {} });
    for (let i = 1; i <= 2; i++)
      b.message({
        sessionId: 's1',
        dir: 's2c',
        kind: 'notification',
        carrier: 'post-sse',
        method: 'notifications/progress',
        pair: slowL.seq,
        progress: { progress: i, total: 4 },
        jsonrpc: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: i, total: 4 } },
      });
    L.answer(slowL, text('done'));
    const R = sessionWriter(b, 's2');
    R.request('tools/call', { name: 'slow', arguments: {} });
    const store = new TimelineStore();
    store.ingest(b.events);
    const [row] = diffSessions(store, 's1', 's2');
    expect(row.kind).toBe('changed');
    expect(row.changes.map((c) => c.text)).toEqual(['status: ok → pending', 'progress: 2 → 0 notifications']);
  });

  it('leaves large payloads (feed stubs) for later and compares them once loaded', () => {
    const b = new EventBuilder();
    const L = sessionWriter(b, 's1');
    const reqL = L.request('tools/call', { name: 'big', arguments: {} });
    const fullL = L.answer(reqL, text('x'.repeat(50) + 'LEFT'));
    const R = sessionWriter(b, 's2');
    const reqR = R.request('tools/call', { name: 'big', arguments: {} });
    const fullR = R.answer(reqR, text('x'.repeat(50) + 'RIGHT'));
    // What the feed sends for a large payload: a stub, marked elided.
    const stub = (m: MessageEvent): MessageEvent => ({
      ...m,
      elided: true,
      raw: undefined,
      jsonrpc: { jsonrpc: '2.0', id: m.id, note: 'elided' },
    });
    const events = b.events.map((e) => (e === fullL ? stub(fullL) : e === fullR ? stub(fullR) : e));
    const store = new TimelineStore();
    store.ingest(events);

    const before = diffSessions(store, 's1', 's2');
    expect(before).toHaveLength(1);
    expect(before[0].kind).toBe('same');
    expect(before[0].missing).toEqual([fullL.seq, fullR.seq]);

    const loaded = new Map([
      [fullL.seq, fullL],
      [fullR.seq, fullR],
    ]);
    const after = diffSessions(store, 's1', 's2', { resolve: (m) => loaded.get(m.seq) });
    expect(after[0].missing).toBeUndefined();
    expect(after[0].kind).toBe('changed');
    expect(after[0].changes.map((c) => c.path)).toEqual(['result.content[0].text']);
  });

  it('reuses per-pair results from a cache while the calls are unchanged', () => {
    const store = twoSessions();
    const cache: DiffCache = new Map();
    const first = diffSessions(store, 's1', 's2', { cache });
    expect(cache.size).toBe(7);
    const second = diffSessions(store, 's1', 's2', { cache });
    expect(second).toEqual(first);
    expect(second.find((r) => r.id === 'c2s tools/call echo #1')!.changes).toBe(
      first.find((r) => r.id === 'c2s tools/call echo #1')!.changes,
    );
  });

  it('is empty for sessions without calls, and lists every call when one side is unknown', () => {
    const store = twoSessions();
    expect(diffSessions(store, 'nope', 'nada')).toEqual([]);
    const rows = diffSessions(store, 's1', 'nope');
    expect(rows.map((r) => r.kind)).toEqual(Array(8).fill('only-left'));
  });
});

describe('jsonDiff', () => {
  it('gives path-level differences, skipping _meta and progress tokens and volatile values', () => {
    expect(
      jsonDiff(
        {
          result: { content: [{ type: 'text', text: 'Echo: a' }], _meta: { a: 1 } },
          params: { progressToken: 1 },
          at: '2026-01-01T00:00:00Z',
        },
        {
          result: { content: [{ type: 'text', text: 'Echo: b' }], _meta: { a: 2 } },
          params: { progressToken: 2 },
          at: '2026-02-02T10:00:00Z',
        },
      ).map((c) => c.text),
    ).toEqual(['result.content[0].text: "Echo: a" → "Echo: b"']);
  });

  it('takes other keys to ignore', () => {
    expect(jsonDiff({ a: 1, b: 1 }, { a: 2, b: 2 }, ['a']).map((c) => c.path)).toEqual(['b']);
    expect(jsonDiff({ _meta: 1 }, { _meta: 2 }, []).map((c) => c.text)).toEqual(['_meta: 1 → 2']);
  });

  it('compares named items by name: an insertion is one difference', () => {
    const a = { tools: [{ name: 'a' }, { name: 'b', x: 1 }] };
    const b = { tools: [{ name: 'z' }, { name: 'a' }, { name: 'b', x: 2 }] };
    expect(jsonDiff(a, b).map((c) => c.text)).toEqual(['tools[name=b].x: 1 → 2', 'tools[name=z]: added {"name":"z"}']);
  });
});
