/**
 * What one model turn costs the recorder (issue 27, docs/performance.md "Model turns"), without
 * sockets: the real Recorder from dist/ (as `npm run bench` builds it) fed the wire records of model
 * API calls as the forward proxy captures them — a ~200 KiB request (a long Claude Code-like
 * conversation, its system prompt and 60 tools: 18 built-in, 42 of three MCP servers) answered by a
 * 500-event stream (text deltas, then one tool call whose arguments stream in fragments), the
 * stream's chunks handed over one per handle() as a model's paced stream arrives.
 *   tsx bench/model-turns.ts [--rounds N] [--warm K] [--keep M] [--only anthropic,openai-chat,gemini] [--write]
 * Each round records the same exchange twice, in alternating order: with model turns parsed (the
 * default) and with `modelTraffic: 'plain'` (the baseline: the same bytes as any plain HTTP
 * exchange), each into a recorder and store of its own. Five agents share the rounds (each its own
 * conversation, growing by the turn it answered), so the requests stay near 200 KiB.
 * Prints per turn: main-thread time inside recorder.handle() (request and stream apart), process
 * CPU over the same calls, the tokenizer thread's CPU (Linux: /proc/self/task; its first turn
 * apart, and how many texts later turns sent it: 0 when they hit its cache), and the heap kept per
 * turn after a GC (M further turns; the store's own estimate beside it). --write puts the table in
 * docs/performance.md between <!-- model-turns-bench:start/end -->.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Recorder as RecorderClass } from '../proxy/recorder/recorder.js';
import type { WorkerTokenCounter as CounterClass } from '../proxy/recorder/token-counter.js';
import type { EventStore as StoreClass } from '../proxy/recorder/store/event-store.js';
import type { createRedactor as RedactorFn } from '../proxy/recorder/redact/redact.js';
import { AgentWire } from '../test/support/scripted-agent.js';
import { numberArg } from './support.js';

// From dist/: the tokenizer thread then runs compiled, as in mcpscope (from source it would go through tsx).
const dist = (m: string) => import(new URL(`../dist/proxy/${m}`, import.meta.url).href);
const { Recorder } = (await dist('recorder/recorder.js')) as { Recorder: typeof RecorderClass };
const { WorkerTokenCounter } = (await dist('recorder/token-counter.js')) as { WorkerTokenCounter: typeof CounterClass };
const { EventStore } = (await dist('recorder/store/event-store.js')) as { EventStore: typeof StoreClass };
const { createRedactor } = (await dist('recorder/redact/redact.js')) as { createRedactor: typeof RedactorFn };

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ROUNDS = numberArg('rounds', 20);
const WARM = numberArg('warm', 5);
const KEEP = numberArg('keep', 20);
const AGENTS = 5;
const onlyArg = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1]!.split(',') : undefined;
if (onlyArg && process.argv.includes('--write')) throw new Error('--only and --write do not go together: the table would be partial');
const log = (s: string) => process.stderr.write(`${s}\n`);

// — the conversation and the tools, dialect-neutral —

const words = 'the of and to in is that for it with as was on be at by this had not are but from or have an they which one you were'.split(
  ' ',
);
let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const prose = (n: number) => Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(' ');
const code = (lines: number) =>
  Array.from(
    { length: lines },
    (_, i) => `  const v${i} = await handler${i % 7}(request.params, { timeout: ${i * 10} }); // ${prose(4)}`,
  ).join('\n');

interface Tool {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}
const BUILT_IN =
  'Bash Read Write Edit MultiEdit Glob Grep Task TodoWrite WebFetch WebSearch NotebookEdit BashOutput KillShell ExitPlanMode SlashCommand Skill ListMcpResources'.split(
    ' ',
  );
const MCP: [string, number][] = [
  ['fs', 14],
  ['gh', 20],
  ['db', 8],
];
const schema = (props: number) => ({
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: props }, (_, i) => [`param_${i}`, { type: i % 3 ? 'string' : 'number', description: prose(12) }]),
  ),
  required: ['param_0'],
  additionalProperties: false,
  $schema: 'http://json-schema.org/draft-07/schema#',
});
const TOOLS: Tool[] = [
  ...BUILT_IN.map((name, i) => ({ name, description: prose(250 + (i % 5) * 60), schema: schema(4 + (i % 4)) })),
  ...MCP.flatMap(([server, n]) =>
    Array.from({ length: n }, (_, i) => ({ name: `mcp__${server}__tool_${i}`, description: prose(40), schema: schema(3) })),
  ),
];
const SYSTEM = `You are Claude Code, an interactive CLI tool. ${prose(1800)}\n\n# MCP Server Instructions\n\n## fs\n${prose(40)}\n\n## gh\n${prose(40)}`;

/** One earlier step of the conversation: the assistant's text and tool call, the tool's result. */
interface Step {
  text: string;
  id: string;
  name: string;
  args: Record<string, unknown>;
  result: string;
}
const step = (i: number, resultLines: number): Step => ({
  text: prose(30),
  id: `toolu_${String(i).padStart(4, '0')}`,
  name: 'mcp__fs__tool_1',
  args: { param_0: `src/module_${i}.ts`, param_1: 'utf8' },
  result: code(resultLines),
});
const BASE = Array.from({ length: 43 }, (_, i) => step(i, 30));

// — the answer: 500 events, text then one tool call —

const TEXT_DELTAS = 402;
const ARG_FRAGMENTS = 90;
const answerText = (turn: number, n = TEXT_DELTAS) => Array.from({ length: n }, (_, i) => `${words[(i + turn) % words.length]} `);
const answerArgs = (turn: number) => ({ param_0: `src/answer_${turn}.ts`, param_1: code(12).slice(0, 760) });
const argFragments = (args: unknown) => {
  const s = JSON.stringify(args);
  const size = Math.ceil(s.length / ARG_FRAGMENTS);
  return Array.from({ length: ARG_FRAGMENTS }, (_, i) => s.slice(i * size, (i + 1) * size));
};
const sse = (event: string | undefined, data: unknown) =>
  `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

interface Dialect {
  name: string;
  url: string;
  headers(agent: number): Record<string, string>;
  body(steps: Step[], user: string): unknown;
  /** The answer's events, 500. */
  events(turn: number): string[];
  /** The id of the tool call the answer of `turn` streams (the next request carries it back). */
  callId(turn: number): string;
}

const ANTHROPIC: Dialect = {
  name: 'Anthropic Messages',
  url: '/v1/messages?beta=true',
  callId: (turn) => `toolu_a${turn}`,
  headers: (agent) => ({
    'content-type': 'application/json',
    'anthropic-version': '2023-06-01',
    'x-api-key': 'sk-ant-api03-BENCHBENCHBENCHBENCH-abcdef',
    'user-agent': 'claude-cli/2.1.197 (external, sdk-cli)',
    'x-claude-code-session-id': `7f1c2d9e-0000-4000-8000-00000000000${agent}`,
  }),
  body: (steps, user) => ({
    model: 'claude-sonnet-4-5-20250929',
    max_tokens: 32000,
    stream: true,
    system: [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }],
    tools: TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.schema })),
    messages: [
      { role: 'user', content: [{ type: 'text', text: user }] },
      ...steps.flatMap((s) => [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: s.text },
            { type: 'tool_use', id: s.id, name: s.name, input: s.args },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: s.id, content: [{ type: 'text', text: s.result }] }] },
      ]),
    ],
  }),
  events: (turn) => {
    const block = (index: number, delta: unknown) => sse('content_block_delta', { type: 'content_block_delta', index, delta });
    const start = {
      type: 'message_start',
      message: {
        id: `msg_${turn}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 4, cache_creation_input_tokens: 900, cache_read_input_tokens: 61_000, output_tokens: 1 },
      },
    };
    return [
      sse('message_start', start),
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      sse('ping', { type: 'ping' }),
      ...answerText(turn).map((text) => block(0, { type: 'text_delta', text })),
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('content_block_start', {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: `toolu_a${turn}`, name: 'mcp__fs__tool_2', input: {} },
      }),
      ...argFragments(answerArgs(turn)).map((partial_json) => block(1, { type: 'input_json_delta', partial_json })),
      sse('content_block_stop', { type: 'content_block_stop', index: 1 }),
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: 480 },
      }),
      sse('message_stop', { type: 'message_stop' }),
    ];
  },
};

const OPENAI_CHAT: Dialect = {
  name: 'OpenAI Chat Completions',
  url: '/v1/chat/completions',
  callId: (turn) => `call_a${turn}`,
  headers: (agent) => ({
    'content-type': 'application/json',
    authorization: 'Bearer sk-proj-BENCHBENCHBENCHBENCHBENCH',
    'user-agent': 'OpenAI/JS 5.23.0',
    session_id: `agent-${agent}`,
  }),
  body: (steps, user) => ({
    model: 'gpt-4.1',
    stream: true,
    stream_options: { include_usage: true },
    tools: TOOLS.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.schema } })),
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: user },
      ...steps.flatMap((s) => [
        {
          role: 'assistant',
          content: s.text,
          tool_calls: [{ id: s.id, type: 'function', function: { name: s.name, arguments: JSON.stringify(s.args) } }],
        },
        { role: 'tool', tool_call_id: s.id, content: s.result },
      ]),
    ],
  }),
  events: (turn) => {
    const chunk = (delta: unknown, finish: string | null = null) =>
      sse(undefined, {
        id: `chatcmpl-${turn}`,
        object: 'chat.completion.chunk',
        created: 1_760_000_000,
        model: 'gpt-4.1-2025-04-14',
        choices: [{ index: 0, delta, finish_reason: finish }],
        usage: null,
      });
    return [
      chunk({ role: 'assistant', content: '' }),
      ...answerText(turn, 405).map((content) => chunk({ content })),
      chunk({ tool_calls: [{ index: 0, id: `call_a${turn}`, type: 'function', function: { name: 'mcp__fs__tool_2', arguments: '' } }] }),
      ...argFragments(answerArgs(turn)).map((a) => chunk({ tool_calls: [{ index: 0, function: { arguments: a } }] })),
      chunk({}, 'tool_calls'),
      sse(undefined, {
        id: `chatcmpl-${turn}`,
        object: 'chat.completion.chunk',
        created: 1_760_000_000,
        model: 'gpt-4.1-2025-04-14',
        choices: [],
        usage: { prompt_tokens: 61_900, completion_tokens: 480, total_tokens: 62_380, prompt_tokens_details: { cached_tokens: 61_000 } },
      }),
      sse(undefined, '[DONE]'),
    ];
  },
};

const GEMINI: Dialect = {
  name: 'Gemini',
  url: '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
  callId: (turn) => `fc_a${turn}`,
  headers: (agent) => ({
    'content-type': 'application/json',
    'x-goog-api-key': 'AIzaBENCHBENCHBENCHBENCHBENCHBENCHBENCH',
    'user-agent': 'GeminiCLI/0.34.0/gemini-2.5-pro (linux; x64)',
    'x-session-id': `agent-${agent}`,
  }),
  body: (steps, user) => ({
    systemInstruction: { parts: [{ text: SYSTEM }] },
    tools: [{ functionDeclarations: TOOLS.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.schema })) }],
    contents: [
      { role: 'user', parts: [{ text: user }] },
      ...steps.flatMap((s) => [
        { role: 'model', parts: [{ text: s.text }, { functionCall: { id: s.id, name: s.name, args: s.args } }] },
        { role: 'user', parts: [{ functionResponse: { id: s.id, name: s.name, response: { output: s.result } } }] },
      ]),
    ],
  }),
  events: (turn) => {
    const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) =>
      sse(undefined, { candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }], modelVersion: 'gemini-2.5-pro' });
    const text = answerText(turn, 498);
    return [
      ...text.map((t) => chunk([{ text: t }])),
      chunk([{ functionCall: { id: `fc_a${turn}`, name: 'mcp__fs__tool_2', args: answerArgs(turn) } }]),
      sse(undefined, {
        candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 61_900, candidatesTokenCount: 480, totalTokenCount: 62_380, cachedContentTokenCount: 61_000 },
        modelVersion: 'gemini-2.5-pro',
      }),
    ];
  },
};

// — measuring —

/** utime+stime of each thread of this process, in clock ticks (Linux; empty elsewhere). */
function threadTicks(): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), Number(f[11]) + Number(f[12]));
    }
  } catch {
    /* not Linux */
  }
  return out;
}
const TICK_MS = 10; // USER_HZ 100 on Linux
const ticksOf = (tids: number[]) => {
  const now = threadTicks();
  return tids.reduce((sum, t) => sum + (now.get(t) ?? 0), 0);
};
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const range = (xs: number[], f: (x: number) => string) => `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
const ms = (x: number) => `${x.toFixed(2)} ms`;
const kib = (x: number) => `${(x / 1024).toFixed(0)} KiB`;

interface Side {
  recorder: RecorderClass;
  store: StoreClass;
  counter?: CounterClass;
  /** Texts sent to the tokenizer thread (not already in its cache). */
  sent: number;
  /** The main thread's CPU over the timed turns (/proc ticks). */
  mainTicks: number;
  request: number[];
  stream: number[];
  cpu: number[];
}
function side(mode: 'parse' | 'plain'): Side {
  const store = new EventStore({ maxEvents: 1_000_000, maxBytes: 8 * 1024 ** 3 });
  const s: Side = { recorder: undefined as never, store, sent: 0, mainTicks: 0, request: [], stream: [], cpu: [] };
  if (mode === 'parse') {
    const counter = new WorkerTokenCounter();
    const want = counter.want.bind(counter);
    counter.want = (texts) => {
      s.sent += texts.filter((t) => counter.count(t) === undefined).length;
      want(texts);
    };
    s.counter = counter;
  }
  s.recorder = new Recorder({ store, redactor: createRedactor({}), modelTraffic: mode, tokenCounter: s.counter ?? null });
  return s;
}

/** The records of one turn: the request (its body in 64 KiB chunks), then the stream's chunks two events each. */
function turnRecords(d: Dialect, agent: number, steps: Step[], turn: number, w: AgentWire) {
  const body = JSON.stringify(d.body(steps, `Refactor the request handlers (turn ${turn}).`));
  const events = d.events(turn);
  const chunks: string[] = [];
  for (let i = 0; i < events.length; i += 2) chunks.push(events.slice(i, i + 2).join(''));
  const from = w.records.length;
  w.exchange({ origin: 'https://api.example.com', url: d.url, headers: d.headers(agent), body, type: 'text/event-stream', chunks });
  const records = w.records.slice(from);
  const cut = records.findIndex((r) => r.t === 'response');
  return { bytes: Buffer.byteLength(body), events: events.length, request: records.slice(0, cut), stream: records.slice(cut) };
}

/** Feeds one turn: the request's records in one handle(), then each stream chunk in its own. */
async function feed(s: Side, t: ReturnType<typeof turnRecords>, timed: boolean): Promise<void> {
  const cpu0 = process.cpuUsage();
  const main0 = ticksOf([process.pid]);
  let t0 = performance.now();
  s.recorder.handle(t.request);
  const request = performance.now() - t0;
  let stream = 0;
  for (let i = 0; i < t.stream.length; i++) {
    t0 = performance.now();
    s.recorder.handle([t.stream[i]!]);
    stream += performance.now() - t0;
  }
  const cpu = cpuMs(process.cpuUsage(cpu0));
  const main = ticksOf([process.pid]) - main0;
  if (timed) {
    s.mainTicks += main;
    s.request.push(request);
    s.stream.push(stream);
    s.cpu.push(cpu);
  }
  await s.counter?.settled();
  await new Promise((r) => setImmediate(r));
}

interface Result {
  dialect: string;
  bytes: number[];
  events: number;
  parse: Side;
  plain: Side;
  firstTurnTokenizer: { ms: number; cpuMs: number; texts: number };
  laterSent: number;
  /** Events appended per turn: model-turn upserts, exchange upserts. */
  upserts: { turn: number; exchange: number };
  heapPerTurn: { parse: number; plain: number };
  storePerTurn: { parse: number; plain: number };
}

async function run(d: Dialect): Promise<Result> {
  seed = 7;
  const parse = side('parse');
  const plain = side('plain');
  const conversations = Array.from({ length: AGENTS }, () => [...BASE]);
  const w = new AgentWire();
  const bytes: number[] = [];
  let turn = 0;
  const next = () => {
    const agent = turn % AGENTS;
    const t = turnRecords(d, agent, conversations[agent]!, turn, w);
    const args = answerArgs(turn);
    // What the client sends back next time: this turn's answer and the tool's (short) result.
    conversations[agent]!.push({ text: answerText(turn).join(''), id: d.callId(turn), name: 'mcp__fs__tool_2', args, result: code(6) });
    turn += 1;
    return t;
  };
  // The first turn: the tokenizer thread starts, loads its encoding and counts the tool list.
  const before = new Set(threadTicks().keys());
  const first = next();
  bytes.push(first.bytes);
  const t0 = performance.now();
  await feed(parse, first, false);
  const firstMs = performance.now() - t0;
  const workerTids = [...threadTicks().keys()].filter((t) => !before.has(t));
  const firstCpu = ticksOf(workerTids) * TICK_MS;
  const firstTexts = parse.sent;
  await feed(plain, first, false);
  for (let i = 1; i < WARM; i++) {
    const t = next();
    await feed(parse, t, false);
    await feed(plain, t, false);
  }
  const sentBefore = parse.sent;
  const workerTicks0 = ticksOf(workerTids);
  for (let i = 0; i < ROUNDS; i++) {
    const t = next();
    bytes.push(t.bytes);
    const order = i % 2 ? [plain, parse] : [parse, plain];
    for (const s of order) await feed(s, t, true);
  }
  const laterSent = parse.sent - sentBefore;
  if (ticksOf(workerTids) !== workerTicks0) log(`${d.name}: the tokenizer thread ran during the timed rounds`);
  // Memory kept: KEEP more turns into each side alone, a GC before and after.
  const kept = async (s: Side, records: ReturnType<typeof turnRecords>[]) => {
    gc();
    const h0 = process.memoryUsage().heapUsed;
    const b0 = s.store.stats().bytes;
    for (const t of records) await feed(s, t, false);
    gc();
    return { heap: (process.memoryUsage().heapUsed - h0) / records.length, store: (s.store.stats().bytes - b0) / records.length };
  };
  const more = Array.from({ length: KEEP }, next);
  const typeCount = (type: string) => parse.store.history().filter((e) => e.type === type).length;
  const turns0 = typeCount('model-turn');
  const exchanges0 = typeCount('exchange');
  const a = await kept(parse, more);
  const upserts = { turn: (typeCount('model-turn') - turns0) / KEEP, exchange: (typeCount('exchange') - exchanges0) / KEEP };
  const b = await kept(plain, more);
  more.length = 0;
  parse.recorder.close();
  plain.recorder.close();
  return {
    dialect: d.name,
    bytes,
    events: first.events,
    parse,
    plain,
    firstTurnTokenizer: { ms: firstMs, cpuMs: firstCpu, texts: firstTexts },
    laterSent,
    upserts,
    heapPerTurn: { parse: a.heap, plain: b.heap },
    storePerTurn: { parse: a.store, plain: b.store },
  };
}

const dialects = [ANTHROPIC, OPENAI_CHAT, GEMINI].filter(
  (d) => !onlyArg || onlyArg.some((o) => d.name.toLowerCase().replace(/ /g, '-').startsWith(o)),
);
const results: Result[] = [];
for (const d of dialects) {
  log(`${d.name}: ${WARM} warm-up and ${ROUNDS} timed rounds, then ${KEEP} turns for memory`);
  results.push(await run(d));
}

const cpuModel = cpus()[0]?.model.trim() ?? 'unknown CPU';
const rows = results.map((r) => {
  const added = r.parse.request.map((x, i) => x + r.parse.stream[i]! - r.plain.request[i]! - r.plain.stream[i]!);
  return [
    `| ${r.dialect} | ${kib(Math.min(...r.bytes))}–${kib(Math.max(...r.bytes))}, ${r.events} events | request ${range(r.parse.request, ms)}, stream ${range(r.parse.stream, ms)} | request ${range(r.plain.request, ms)}, stream ${range(r.plain.stream, ms)} | +${range(added, ms)} | ${ms((r.parse.mainTicks * TICK_MS) / ROUNDS)} / ${ms((r.plain.mainTicks * TICK_MS) / ROUNDS)}; process ${ms(median(r.parse.cpu))} / ${ms(median(r.plain.cpu))} | ${kib(r.heapPerTurn.parse)} / ${kib(r.heapPerTurn.plain)} (store's estimate ${kib(r.storePerTurn.parse)} / ${kib(r.storePerTurn.plain)}) | ${r.upserts.turn.toFixed(1)} / ${r.upserts.exchange.toFixed(1)} |`,
  ].join('');
});
const tok = results.map(
  (r) =>
    `${r.dialect}: first turn ${r.firstTurnTokenizer.texts} texts counted in ${r.firstTurnTokenizer.ms.toFixed(0)} ms (the thread's CPU ${r.firstTurnTokenizer.cpuMs} ms, its start and the encoding's load included); ${r.laterSent} texts sent in the ${ROUNDS} timed rounds`,
);
const table = [
  `${nowDate()}, ${cpus().length} cores (${cpuModel}), Node ${process.version}; ${ROUNDS} timed rounds after ${WARM} warm-up, parse and plain alternating; medians (range):`,
  '',
  '| dialect | request, answer | main thread in handle(), parsed | main thread in handle(), plain | added per turn | main-thread CPU per turn (mean, /proc), parsed / plain; process CPU (median) | heap kept per turn, parsed / plain | events per turn: model-turn / exchange upserts (parsed) |',
  '|---|---|---|---|---|---|---|---|',
  ...rows,
  '',
  ...tok.map((t) => `- tokenizer thread, ${t}.`),
].join('\n');
console.log(table);

function nowDate(): string {
  return new Date().toISOString().slice(0, 10);
}

if (process.argv.includes('--write')) {
  const path = new URL('../docs/performance.md', import.meta.url);
  const doc = readFileSync(path, 'utf8');
  const section = `<!-- model-turns-bench:start -->\n${table}\n<!-- model-turns-bench:end -->`;
  if (!doc.includes('<!-- model-turns-bench:start -->')) throw new Error('docs/performance.md has no model-turns-bench markers');
  writeFileSync(path, doc.replace(/<!-- model-turns-bench:start -->[\s\S]*<!-- model-turns-bench:end -->/, section));
  console.log('docs/performance.md: Model turns table written');
}
process.exit(0);
