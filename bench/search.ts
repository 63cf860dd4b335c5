/**
 * What a search or a call view costs mcpscope's main thread (GET /api/search, /api/calls/:ref, the
 * `mcpscope mcp` tools): each is one pass over the kept events, on request only.
 *   tsx bench/search.ts [--exchanges N] [--runs R]
 * Fills a store with N tools/call exchanges (2N message events; the tool name every 50th call is
 * `rare`) and times, median of R runs each: a search by method, by tool, unfiltered (newest 20),
 * errors only, a free text found nowhere (every message's JSON text is looked at), an agent's poll
 * for what is new (since = the last seq: nothing is), and the call views of the oldest and the newest call. Prints ms per query. For docs/performance.md; not part of `npm run bench`.
 */
import type { MessageEvent } from '../proxy/core/model/events.js';
import { EventStore } from '../proxy/recorder/store/event-store.js';
import { searchMessages, type SearchQuery } from '../proxy/recorder/store/search.js';
import { callView } from '../proxy/recorder/store/call-view.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const EXCHANGES = arg('exchanges', 100_000);
const RUNS = arg('runs', 7);

const store = new EventStore({ maxEvents: EXCHANGES * 2 + 10, maxBytes: 4 * 1024 * 1024 * 1024 });
store.append({
  type: 'session',
  ts: 0,
  session: {
    id: 's1',
    transport: 'streamable-http',
    target: 'http://127.0.0.1:3001/mcp',
    protocolVersion: '2025-11-25',
    startedAt: 0,
    status: 'open',
    counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 0 },
  },
});
let firstRequest = 0;
let lastRequest = 0;
for (let i = 0; i < EXCHANGES; i++) {
  const name = i % 50 === 0 ? 'rare' : 'echo';
  const base = { type: 'message' as const, sessionId: 's1', size: 100, hints: [], name, id: i };
  const req = store.append({
    ...base,
    ts: i,
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    method: 'tools/call',
    jsonrpc: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name, arguments: { text: `hello ${i}` } } },
  } as Omit<MessageEvent, 'seq'>) as MessageEvent;
  if (i === 0) firstRequest = req.seq;
  lastRequest = req.seq;
  store.append({
    ...base,
    ts: i + 0.4,
    dir: 's2c',
    kind: 'response',
    carrier: 'post-json',
    pair: req.seq,
    latencyMs: 0.4,
    jsonrpc: { jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: `hello ${i}` }] } },
  } as Omit<MessageEvent, 'seq'>);
  if (i % 1000 === 999) store.commit();
}
store.commit();

function median(f: () => void): number {
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = process.hrtime.bigint();
    f();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const queries: [string, SearchQuery][] = [
  ['by method (tools/call, newest 20)', { method: 'tools/call' }],
  ['by tool (rare, every 50th call; newest 20)', { tool: 'rare' }],
  ['unfiltered (newest 20)', {}],
  ['errors only (there are none: the whole store)', { errorsOnly: true }],
  ['free text found nowhere (the whole store)', { text: 'no-such-text-anywhere' }],
  ['poll: since=lastSeq (nothing new, newest first)', { since: store.lastSeq }],
  ['poll: since=lastSeq (nothing new, oldest first)', { since: store.lastSeq, order: 'oldest' }],
];
console.log(`${EXCHANGES} exchanges (${EXCHANGES * 2} messages) kept; median of ${RUNS} runs`);
for (const [what, q] of queries) console.log(`  search ${what}: ${median(() => searchMessages(store, q)).toFixed(2)} ms`);
console.log(`  call view of the oldest call: ${median(() => callView(store, String(firstRequest))).toFixed(2)} ms`);
console.log(`  call view of the newest call: ${median(() => callView(store, String(lastRequest))).toFixed(2)} ms`);
