/**
 * Proxy overhead (issue 7, workloads 1–5): the same MCP client workloads DIRECT to an SDK server,
 * THROUGH mcpscope (from dist/, alone in a child process, see bench/support.ts) as a reverse proxy
 * and as a forward proxy (plain HTTP and HTTPS with TLS interception), and through
 * `mitmdump --mode reverse:…` when it is on PATH, interleaved round by round in one run.
 *
 *   npm run bench            (builds, runs, writes the Proxy overhead section of docs/performance.md)
 *   tsx bench/proxy.ts [--rounds N] [--write]
 *
 *   tsx bench/proxy.ts --only latency,streaming   (some workloads, for profiling; never with --write)
 *   tsx bench/proxy.ts --no-mitm                  (without mitmproxy; never with --write)
 *   BENCH_CPU_PROF=<dir> …                        (the mcpscope children write V8 CPU profiles there)
 *
 * Every party has its own process, as on a developer's machine: the upstream (bench/upstream.ts, a
 * minimal stateful SDK server on plain HTTP and, with a certificate from a throwaway CA, on HTTPS;
 * a request header picks JSON or SSE responses per session), the clients (this process: SDK Client
 * + StreamableHTTPClientTransport on undici's fetch, one dispatcher per path), each proxy, and a
 * UI-like feed consumer per mcpscope with a UI (bench/feed-consumer.mjs). Paths (set up in
 * bench/paths.ts):
 *   direct                   the client talks to the upstream
 *   mcpscope                 what a user runs as a reverse proxy: capture, recorder, store, UI server, the feed consumer connected
 *   mcpscope forward (HTTP)  what a user runs as a forward proxy (`forward`, no `target`), set up as mcpscope is (capture,
 *                            UI, its own feed consumer); the client keeps the upstream's URL and sends absolute-form requests
 *   mcpscope + breakpoint rule  the mcpscope path with one breakpoint rule that matches nothing: what having
 *                            breakpoints on costs, read against mcpscope (no rule)
 *   mcpscope --lint off      the mcpscope path without the spec linter: what linting every message costs, read against mcpscope
 *   mcpscope forward-only    the reverse proxy with capture off (`record: false`): the hop's own cost ("forward" as in
 *                            forwarding only, not forward mode)
 *   plain Node proxy         bench/node-proxy.mjs, node:http in and out, nothing else: what any Node proxy that sees HTTP costs here
 *   TCP relay                bench/tcp-relay.mjs, bytes between two sockets, no HTTP: what a process hop costs at all
 *   direct (TLS)             the client talks to the upstream's HTTPS listener (https://localhost:<port>, the throwaway CA trusted)
 *   mcpscope forward (TLS)   the forward mcpscope above (the same child), reached with CONNECT and TLS interception: the
 *                            client trusts mcpscope's CA (made in a temporary MCPSCOPE_HOME), mcpscope the throwaway CA
 *   TCP relay (TLS)          bench/tcp-relay.mjs in front of the HTTPS listener, TLS end to end: the floor of a hop for HTTPS
 *   mitmproxy                `mitmdump --mode reverse:…` with its defaults, when installed
 * Ratios are taken against direct, or against direct (TLS) for the TLS paths; mcpscope forward (HTTP)
 * is also compared with the TCP relay and with mcpscope, mcpscope forward (TLS) with the TCP relay (TLS).
 * Workloads 1–3 run every path; workload 4 (large results) the plain-HTTP reverse paths only;
 * workload 5 (capture cost) compares mcpscope with mcpscope forward-only, back to back. Then
 * "concurrent streams" (bench/streams.ts, `--only streams`): how many SSE streams one mcpscope
 * holds, its RSS per stream, and a call served meanwhile — a section of its own in the doc.
 */
import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { numberArg, startScopeChild, type ScopeChild } from './support.js';
import { startPaths, type Path } from './paths.js';
import { monotonicMs } from './clock.js';
import { concurrentStreams, streamsSection, writeStreamsSection } from './streams.js';

const ROUNDS = numberArg('rounds', 5);
// --only latency,throughput,streaming,large,capture,streams: run some workloads (for profiling); never with --write.
const onlyArg = process.argv.indexOf('--only');
const ONLY = onlyArg >= 0 ? new Set(process.argv[onlyArg + 1]!.split(',')) : undefined;
const runs = (w: string) => !ONLY || ONLY.has(w);
if ((ONLY || process.argv.includes('--no-mitm')) && process.argv.includes('--write'))
  throw new Error('--only / --no-mitm and --write do not go together: the table would be partial');
const LAT_CALLS = 400;
const TP_CLIENTS = 20;
const TP_CALLS = 100;
const STREAM_EVENTS = 10_000;
/** Workload 5: back-to-back pairs (capture on, capture off) per round. */
const CAPTURE_PAIRS = 3;
/** The paced stream's rate (events/s): below saturation, so its delays are the path's, not a queue's. */
const STREAM_RATE = 5_000;
const MiB = 1024 * 1024;
const log = (s: string) => process.stderr.write(`${s}\n`);

// ---------------------------------------------------------------- the paths (bench/paths.ts)

// --no-mitm: leave mitmproxy out (its 100 MiB run alone takes a minute); never with --write.
const setup = await startPaths({ mitm: !process.argv.includes('--no-mitm') });
const { direct, mcpscope, mcpscopeBare, plainNode, upstreamOrigin, childScript, nodeArgs } = setup;
const paths = setup.all;
const hasMitm = paths.some((p) => p.name === 'mitmproxy');

// ---------------------------------------------------------------- helpers

/** An SDK client on `p`'s route (its fetch and dispatcher), at `url` (default: the path's own). */
async function connect(p: Path, json: boolean, url = p.url): Promise<Client> {
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { fetch: p.fetch, requestInit: { headers: json ? { 'x-bench-json': '1' } : {} } }),
  );
  return client;
}
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const median = (xs: number[]) => quantile(xs, 0.5);
const echo = (c: Client, i: number) => c.callTool({ name: 'echo', arguments: { text: `hello ${i}` } });

async function latency(p: Path, json: boolean): Promise<{ p50: number; p99: number }> {
  const c = await connect(p, json);
  for (let i = 0; i < 20; i++) await echo(c, i); // warm-up
  const ts: number[] = [];
  for (let i = 0; i < LAT_CALLS; i++) {
    const t = performance.now();
    await echo(c, i);
    ts.push(performance.now() - t);
  }
  await c.close();
  return { p50: quantile(ts, 0.5), p99: quantile(ts, 0.99) };
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times. */
const CLK_TCK = Number(execSync('getconf CLK_TCK').toString().trim()) || 100;
/** CPU time a process (or, with `tid`, one of its threads) has used so far, user + system, in µs (Linux). */
function procCpuUs(pid: number, tid?: number): number {
  const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLK_TCK;
}

/** Proxy CPU per call during the timed throughput runs (µs), by path; `feed consumer: <path>` for its UI-like consumer. */
const cpuPerCall: Record<string, number[]> = {};
/** False during the warm-up: its CPU figures are not kept. */
let timed = false;

async function throughput(p: Path): Promise<number> {
  const clients = await Promise.all(Array.from({ length: TP_CLIENTS }, () => connect(p, true)));
  await Promise.all(clients.map((c) => echo(c, 0)));
  const cpuPids = [p.pid, p.feed?.pid];
  const cpuBefore = cpuPids.map((pid) => (pid ? procCpuUs(pid) : 0));
  // mcpscope: its main thread (recorder, store, UI, feed) and its proxy thread, apart.
  const proxyTid = p.scope?.ready.proxyTid as number | undefined;
  const threadsBefore = p.pid && proxyTid ? [procCpuUs(p.pid, p.pid), procCpuUs(p.pid, proxyTid)] : undefined;
  const t = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      for (let i = 0; i < TP_CALLS; i++) await echo(c, i);
    }),
  );
  const s = (performance.now() - t) / 1000;
  // Read at once: what the proxy still does for these calls afterwards (the recorder catching up)
  // is not counted here; the capture-cost workload measures its effect on calls/s.
  const cpuAfter = cpuPids.map((pid) => (pid ? procCpuUs(pid) : 0));
  const threadsAfter = threadsBefore ? [procCpuUs(p.pid!, p.pid), procCpuUs(p.pid!, proxyTid)] : undefined;
  const calls = TP_CLIENTS * TP_CALLS;
  if (timed && threadsBefore && threadsAfter) {
    push(cpuPerCall, `${p.name}: main thread`, (threadsAfter[0]! - threadsBefore[0]!) / calls);
    push(cpuPerCall, `${p.name}: proxy thread`, (threadsAfter[1]! - threadsBefore[1]!) / calls);
  }
  if (timed && p.pid) push(cpuPerCall, p.name, (cpuAfter[0]! - cpuBefore[0]!) / calls);
  if (timed && cpuPids[1]) push(cpuPerCall, `feed consumer: ${p.name}`, (cpuAfter[1]! - cpuBefore[1]!) / calls);
  await Promise.all(clients.map((c) => c.close()));
  return calls / s;
}

/** One call streaming STREAM_EVENTS progress notifications; `rate` events/s, 0 = as fast as the server writes. */
async function streaming(p: Path, rate = 0): Promise<{ eps: number; p50: number; p99: number }> {
  const c = await connect(p, false);
  const delays: number[] = [];
  let first = 0;
  let last = 0;
  await c.callTool({ name: 'stream', arguments: { n: STREAM_EVENTS, rate } }, undefined, {
    timeout: 120_000,
    onprogress: (pr) => {
      const now = monotonicMs();
      if (!first) first = now;
      last = now;
      delays.push(now - Number(pr.message));
    },
  });
  await c.close();
  if (delays.length !== STREAM_EVENTS) throw new Error(`${p.name}: ${delays.length} progress events, expected ${STREAM_EVENTS}`);
  return { eps: (STREAM_EVENTS - 1) / ((last - first) / 1000), p50: quantile(delays, 0.5), p99: quantile(delays, 0.99) };
}

/** VmRSS / VmHWM of a process, in bytes (Linux). */
const procMem = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

/**
 * One big tool result. For mcpscope, a freshly started child (same options as the mcpscope path,
 * warmed by one echo session) so that earlier workloads' high-water mark cannot hide the growth:
 * its high-water mark is reset (`5` > /proc/<pid>/clear_refs) just before the call, and the growth
 * is VmHWM after the call minus VmRSS before it.
 */
async function large(p: Path, bytes: number): Promise<{ seconds: number; rssGrowth?: number }> {
  let url = p.url;
  let fresh: ScopeChild | undefined;
  if (p.scope) {
    fresh = await startScopeChild(`${upstreamOrigin}/mcp`, { script: childScript, nodeArgs, env: p.childEnv });
    url = `${fresh.proxy}/mcp`;
    const w = await connect(p, true, url);
    await echo(w, 0);
    await w.close();
    await fresh.ask('reset'); // a GC
  }
  let base = 0;
  if (fresh) {
    writeFileSync(`/proc/${fresh.pid}/clear_refs`, '5');
    base = procMem(fresh.pid, 'VmRSS');
  }
  const c = await connect(p, true, url);
  const t = performance.now();
  const r = (await c.callTool({ name: 'big', arguments: { bytes } }, undefined, { timeout: 120_000 })) as { content: { text: string }[] };
  const seconds = (performance.now() - t) / 1000;
  if (r.content[0]!.text.length !== bytes) throw new Error(`${p.name}: short big result`);
  await c.close();
  let rssGrowth: number | undefined;
  if (fresh) {
    rssGrowth = procMem(fresh.pid, 'VmHWM') - base;
    await fresh.close();
  }
  return { seconds, rssGrowth };
}

// ---------------------------------------------------------------- run, interleaved

const lat: Record<string, Record<string, { p50: number; p99: number }[]>> = { json: {}, sse: {} };
const tp: Record<string, number[]> = {};
const st: Record<string, { eps: number; p50: number; p99: number }[]> = {};
const sp: Record<string, { eps: number; p50: number; p99: number }[]> = {};
const big: Record<string, Record<number, { seconds: number; rssGrowth?: number }[]>> = {};
const push = <T>(o: Record<string, T[]>, k: string, v: T) => (o[k] ??= []).push(v);
// Untimed warm-up of every path (JIT, connection pools).
for (const p of paths) {
  await latency(p, true);
  await throughput(p);
}
const t0 = performance.now();
timed = true;

for (let r = 1; r <= ROUNDS; r++) {
  const order = r % 2 ? paths : [...paths].reverse();
  if (runs('latency'))
    for (const mode of ['json', 'sse'] as const) for (const p of order) push(lat[mode]!, p.name, await latency(p, mode === 'json'));
  if (runs('throughput')) for (const p of order) push(tp, p.name, await throughput(p));
  // Several pairs per round: a pair's difference is small beside this machine's noise, so the median needs more of them.
  if (runs('capture'))
    for (let k = 0; k < CAPTURE_PAIRS; k++)
      for (const p of (r + k) % 2 ? [mcpscopeBare, mcpscope] : [mcpscope, mcpscopeBare]) push(tp, `cap:${p.name}`, await throughput(p));
  if (runs('streaming')) for (const p of order) push(st, p.name, await streaming(p));
  if (runs('streaming')) for (const p of order) push(sp, p.name, await streaming(p, STREAM_RATE));
  log(`round ${r}/${ROUNDS} done at ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
for (const bytes of runs('large') ? [10 * MiB, 100 * MiB] : []) {
  for (let r = 0; r < 2; r++) {
    for (const p of setup.reverse) {
      big[p.name] ??= {};
      (big[p.name]![bytes] ??= []).push(await large(p, bytes));
    }
  }
  log(`large ${bytes / MiB} MiB done at ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
const elapsed = (performance.now() - t0) / 1000;
const feedMessages = await setup.feedCounts();

// ---------------------------------------------------------------- report

const f = (n: number, d = 2) => n.toFixed(d);
/**
 * Paired by round: the median of `op(path, baseline)` over the rounds, and its range. Rounds are
 * interleaved, so a slow spell of the machine affects both sides of a pair; a ratio of the two
 * medians would mix rounds and carry that drift.
 */
function paired(
  xs: number[],
  base: number[],
  op: (x: number, b: number) => number = (x, b) => x / b,
): { mid: number; lo: number; hi: number } {
  const vs = xs.map((x, i) => op(x, base[i]!)).filter((v) => Number.isFinite(v));
  return { mid: median(vs), lo: Math.min(...vs), hi: Math.max(...vs) };
}
const ratio = (r: { mid: number; lo: number; hi: number }) => `${f(r.mid)}× (${f(r.lo)}–${f(r.hi)})`;
const signed = (v: number, d = 3) => `${v >= 0 ? '+' : '−'}${f(Math.abs(v), d)}`;
const delta = (r: { mid: number; lo: number; hi: number }) => `${signed(r.mid)} ms (${signed(r.lo)} … ${signed(r.hi)})`;
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
const rows: string[] = [];
const row = (...c: string[]) => rows.push(`| ${c.join(' | ')} |`);
const others = paths.filter((p) => p !== direct);
/** A row's path: its name, and its baseline when that is not direct (the TLS paths: direct (TLS)). */
const label = (p: Path, b = p.base!) => (b === direct ? p.name : `${p.name} vs ${b.name}`);

for (const mode of runs('latency') ? (['json', 'sse'] as const) : []) {
  for (const q of ['p50', 'p99'] as const) {
    const limit = q === 'p50' ? 1.1 : 1.25;
    const at = (p: Path) => lat[mode]![p.name]!.map((x) => x[q]);
    for (const p of others) {
      const r = paired(at(p), at(p.base!));
      row(
        `1 latency ${mode.toUpperCase()} ${q} (ms)`,
        label(p),
        f(median(at(p.base!)), 3),
        f(median(at(p)), 3),
        ratio(r),
        `≤ ${f(limit)}×`,
        p === mcpscope ? verdict(r.mid <= limit) : '—',
      );
      for (const b of p.vs ?? [])
        row(
          `1 latency ${mode.toUpperCase()} ${q} (ms)`,
          label(p, b),
          f(median(at(b)), 3),
          f(median(at(p)), 3),
          ratio(paired(at(p), at(b))),
          '—',
          '—',
        );
    }
  }
}
for (const p of runs('throughput') ? others : []) {
  const r = paired(tp[p.name]!, tp[p.base!.name]!);
  row(
    '2 throughput 20×100 (calls/s)',
    label(p),
    f(median(tp[p.base!.name]!), 0),
    f(median(tp[p.name]!), 0),
    ratio(r),
    '≥ 0.85×',
    p === mcpscope ? verdict(r.mid >= 0.85) : '—',
  );
  for (const b of p.vs ?? [])
    row(
      '2 throughput 20×100 (calls/s)',
      label(p, b),
      f(median(tp[b.name]!), 0),
      f(median(tp[p.name]!), 0),
      ratio(paired(tp[p.name]!, tp[b.name]!)),
      '—',
      '—',
    );
}
// CPU per call: the hop's own cost, read from /proc (all threads), steadier than calls/s on a busy machine.
const cpuBase = cpuPerCall[plainNode.name] ? median(cpuPerCall[plainNode.name]!) : NaN;
for (const p of runs('throughput') || runs('capture') ? others : []) {
  const xs = cpuPerCall[p.name];
  if (!xs) continue;
  const v = median(xs);
  row('2 proxy CPU per call, all its threads (µs)', p.name, f(cpuBase, 0), f(v, 0), `${f(v / cpuBase)}× plain Node`, '—', '—');
  const main = cpuPerCall[`${p.name}: main thread`];
  const proxy = cpuPerCall[`${p.name}: proxy thread`];
  if (main && proxy) {
    const m = median(main);
    const t = median(proxy);
    row(
      '2 … of which proxy thread / main thread / other threads (µs)',
      p.name,
      '—',
      `${f(t, 0)} / ${f(m, 0)} / ${f(Math.max(0, v - t - m), 0)}`,
      '—',
      '—',
      '—',
    );
  }
  const feed = cpuPerCall[`feed consumer: ${p.name}`];
  if (feed) row('2 UI-like feed consumer CPU per call (µs)', p.name, '—', f(median(feed), 0), '—', '—', '—');
}
const mitmTp = tp.mitmproxy ? median(tp.mitmproxy) : undefined;
if (mitmTp !== undefined) {
  const r = paired(tp[mcpscope.name]!, tp.mitmproxy!);
  row('2 throughput vs mitmproxy', 'mcpscope', f(mitmTp, 0), f(median(tp[mcpscope.name]!), 0), ratio(r), '> 1×', verdict(r.mid > 1));
}
for (const p of runs('streaming') ? others : []) {
  const s = st[p.name]!;
  const sd = st[p.base!.name]!;
  const er = paired(
    s.map((x) => x.eps),
    sd.map((x) => x.eps),
  );
  row(
    '3 streaming 10k progress, flat out (events/s)',
    label(p),
    f(median(sd.map((x) => x.eps)), 0),
    f(median(s.map((x) => x.eps)), 0),
    ratio(er),
    '≥ 0.90×',
    p === mcpscope ? verdict(er.mid >= 0.9) : '—',
  );
  for (const q of ['p50', 'p99'] as const) {
    const dq = median(sd.map((x) => x[q]));
    const v = median(s.map((x) => x[q]));
    row(
      `3 flat out: delay write→receipt ${q} (ms)`,
      label(p),
      f(dq, 3),
      f(v, 3),
      delta(
        paired(
          s.map((x) => x[q]),
          sd.map((x) => x[q]),
          (x, b) => x - b,
        ),
      ),
      '—',
      '—',
    );
  }
  const paced = sp[p.name]!;
  const spd = sp[p.base!.name]!;
  for (const q of ['p50', 'p99'] as const) {
    const dq = median(spd.map((x) => x[q]));
    const v = median(paced.map((x) => x[q]));
    const dr = paired(
      paced.map((x) => x[q]),
      spd.map((x) => x[q]),
      (x, b) => x - b,
    );
    row(
      `3 paced ${STREAM_RATE / 1000}k/s: delay write→receipt ${q} (ms)`,
      label(p),
      f(dq, 3),
      f(v, 3),
      delta(dr),
      q === 'p99' ? 'added ≤ 2 ms' : '—',
      p === mcpscope && q === 'p99' ? verdict(dr.mid <= 2) : '—',
    );
  }
}
for (const bytes of runs('large') ? [10 * MiB, 100 * MiB] : []) {
  const d = median(big[direct.name]![bytes]!.map((x) => x.seconds));
  for (const p of setup.reverse.filter((x) => x !== direct)) {
    const xs = big[p.name]![bytes]!;
    const v = median(xs.map((x) => x.seconds));
    row(`4 ${bytes / MiB} MiB result (s)`, p.name, f(d, 3), f(v, 3), `${f(v / d)}×`, '—', '—');
    if (p.scope) {
      const g = median(xs.map((x) => x.rssGrowth!)) / MiB;
      row(
        `4 ${bytes / MiB} MiB proxy peak RSS growth (MiB)`,
        p.name,
        '—',
        f(g, 1),
        '—',
        bytes > 10 * MiB ? '≤ 50 MiB' : '—',
        bytes > 10 * MiB ? verdict(g <= 50) : '—',
      );
    }
  }
}
if (runs('capture')) {
  const offs = tp[`cap:${mcpscopeBare.name}`]!;
  const ons = tp[`cap:${mcpscope.name}`]!;
  const c = paired(ons, offs, (on, off) => (1 - on / off) * 100);
  const pct = (v: number) => `${v >= 0 ? '' : '−'}${f(Math.abs(v), 1)} %`;
  row(
    '5 capture cost: capture+UI+feed consumer vs forward-only (calls/s)',
    'mcpscope',
    f(median(offs), 0),
    f(median(ons), 0),
    `${pct(c.mid)} cost (${pct(c.lo)} … ${pct(c.hi)})`,
    '≤ 10 %',
    verdict(c.mid <= 10),
  );
}

const table = ['| workload | path | baseline | this path | ratio | target | verdict |', '|---|---|---:|---:|---:|---|---|', ...rows].join(
  '\n',
);
const sdkVersion = JSON.parse(readFileSync(new URL('../node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'))
  .version as string;
const scopeVersion = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version as string;
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}, mcpscope ${scopeVersion}, @modelcontextprotocol/sdk ${sdkVersion}, mitmproxy: ${setup.mitmVersion}, ${new Date().toISOString().slice(0, 10)}`;
const summary = [
  `Medians of ${ROUNDS} interleaved rounds after an untimed warm-up of every path (workloads 1–3, 5; path order alternating per round); workload 5: ${CAPTURE_PAIRS} back-to-back pairs per round (${ROUNDS * CAPTURE_PAIRS} in all); workload 4: 2 runs at 10 MiB and at 100 MiB, plain-HTTP reverse paths only. Whole run ${elapsed.toFixed(0)} s. Ratios and differences are taken per round (each round runs every path back to back) and their median is shown, with the range over the rounds in brackets; the baseline and this-path columns are the plain medians. Baseline = direct, except for mcpscope forward (TLS) and TCP relay (TLS) (baseline = direct (TLS), said in the path column), the rows "X vs Y" (baseline = path Y: mcpscope forward (HTTP) against the TCP relay and against mcpscope, mcpscope + breakpoint rule (one rule that matches nothing: POST bodies and JSON answers read whole before they go on, SSE streams event by event) against mcpscope, mcpscope --lint off (the spec linter off) against mcpscope, mcpscope forward (TLS) against the TCP relay (TLS)), workload 5 (baseline = mcpscope forward-only: the same proxy with capture off), the streaming delay rows (difference to the baseline, not a ratio) and the CPU rows (baseline = the plain Node proxy: CPU time of the proxy's process, all threads, from /proc/<pid>/stat over the timed throughput and capture-cost runs, per call; recorder work still queued when a run ends is not counted).`,
  `Every party in its own process: upstream = a stateful SDK server (bench/upstream.ts; StreamableHTTPServerTransport, JSON or SSE responses per session); clients = SDK Client + StreamableHTTPClientTransport in the bench process, on undici's fetch with one dispatcher per path (bench/paths.ts); "mcpscope" = the reverse proxy from dist/ with its UI on and a UI-like consumer (bench/feed-consumer.mjs, its own process, as a browser tab is) parsing every feed message (${feedMessages[mcpscope.name]!.toLocaleString('en-US')} received); "mcpscope forward-only" = the same with capture off (a reverse proxy: "forward" as in forwarding only, not forward mode); "mcpscope forward (HTTP)" = mcpscope's forward proxy (\`forward\` instead of \`target\`), set up as "mcpscope" is (capture, UI, its own UI-like consumer: ${feedMessages['mcpscope forward']!.toLocaleString('en-US')} messages), the client keeping the upstream's real URL and sending absolute-form requests to it (undici ProxyAgent, \`proxyTunnel: false\`); "direct (TLS)" = the same upstream process on a second, HTTPS listener (https://localhost:<port>, a certificate from a throwaway CA made at bench start, which the client trusts); "mcpscope forward (TLS)" = the same forward mcpscope (one child for both forward paths) reached with CONNECT and TLS interception: the client trusts mcpscope's CA (made in a temporary MCPSCOPE_HOME), mcpscope trusts the throwaway CA (\`upstreamCa\`) and opens its own TLS connection to the upstream; "TCP relay (TLS)" = bench/tcp-relay.mjs in front of the HTTPS listener, the client's TLS end to end through it; "plain Node proxy" = bench/node-proxy.mjs (node:http in and out, bodies piped): the cost of any Node proxy that parses HTTP, as mcpscope must (Host and Origin checks, rewrites, one record per exchange); "TCP relay" = bench/tcp-relay.mjs (bytes copied between two sockets, no HTTP parsing): the cost of an extra process on the path at all. Throughput and capture cost use JSON responses; streaming uses SSE. Streaming "flat out": the server writes 10,000 progress notifications as fast as it can (yielding every 10), so its delays are queueing in whichever process is slowest; "paced": ${STREAM_RATE.toLocaleString('en-US')} events/s (due events written on each ~1 ms timer tick), below saturation, so the delay is what the path adds. Delays are measured on CLOCK_MONOTONIC, which all processes share. Workload 4 uses a freshly started mcpscope per call (same options, warmed by one echo session, no feed consumer) so that earlier workloads' high-water mark cannot hide the growth; RSS growth = its VmHWM after the call (reset via /proc/<pid>/clear_refs just before) minus its VmRSS before the call, after a GC.`,
  hasMitm
    ? "mitmproxy runs with its defaults: it holds each response body until it is complete (no `stream_large_bodies`), so SSE events reach the client only when the stream ends — its streaming events/s counts a burst at the end, and its delays are the stream's length."
    : '',
  hasMitm ? '' : 'mitmproxy: not installed (apt-get install mitmproxy) — no mitmproxy column in this run.',
]
  .filter(Boolean)
  .join('\n');
console.log(`${machine}\n\n${table}\n\n${summary}`);

const section = `<!-- proxy-bench:start -->
Measured on: ${machine}.

${summary}

${table}
<!-- proxy-bench:end -->`;
if (process.argv.includes('--write')) {
  const path = new URL('../docs/performance.md', import.meta.url);
  let doc = readFileSync(path, 'utf8');
  doc = doc.includes('<!-- proxy-bench:start -->')
    ? doc.replace(/<!-- proxy-bench:start -->[\s\S]*<!-- proxy-bench:end -->/, section)
    : `${doc.trimEnd()}\n\n## Proxy overhead\n\nWhat it measures: \`bench/proxy.ts\` runs the same MCP client workloads (issue 7, workloads 1–5) direct to an SDK server, through mcpscope (from dist/, in a child process) as a reverse and as a forward proxy (plain HTTP and HTTPS), and through \`mitmdump --mode reverse:…\` when installed, interleaved in one run, and compares them with the targets. Not a timed test: run \`npm run bench\`.\n\n${section}\n`;
  writeFileSync(path, doc);
  console.log('docs/performance.md: Proxy overhead section written');
}

await setup.close();

// Concurrent streams (bench/streams.ts): its own upstream, mcpscope and client processes, after
// the workloads above are closed; its own section of docs/performance.md.
if (runs('streams')) {
  const streams = streamsSection(await concurrentStreams(10_000));
  console.log(`\n${streams}`);
  if (process.argv.includes('--write')) writeStreamsSection(streams);
}
process.exit(0);
