/**
 * Concurrent streams (issue 16, finding 2): how many SSE streams one mcpscope holds open at once,
 * what each costs it in memory, and whether a normal call is still served meanwhile. Three
 * processes, so that each stays within the file-descriptor limit on its own: the upstream
 * (bench/stream-upstream.mjs: every GET stream sends one event, then stays open), mcpscope
 * (bench/scope-child.mjs from dist/, capture on, a reverse proxy) and the client
 * (bench/stream-client.mjs: one connection per stream). mcpscope needs two descriptors per
 * stream (client side and upstream side), the others one.
 *
 *   tsx bench/streams.ts [--streams N] [--write]   (npm run bench runs it too, after bench/proxy.ts's workloads)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startScopeChild } from './support.js';

const MiB = 1024 * 1024;
const log = (s: string) => process.stderr.write(`${s}\n`);

/** Descriptors left to mcpscope besides its two per stream (its own files, the UI, the thread's pipes, …). */
const FD_RESERVE = 256;

/** This process's soft and hard RLIMIT_NOFILE (children inherit them). */
function fdLimits(): { soft: number; hard: number } {
  try {
    const [soft, hard] = execSync('ulimit -Sn; ulimit -Hn', { shell: '/bin/bash', encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((v) => (v === 'unlimited' ? Infinity : Number(v)));
    return { soft: soft!, hard: hard! };
  } catch {
    return { soft: Infinity, hard: Infinity };
  }
}

export interface StreamsResult {
  target: number;
  asked: number;
  held: number;
  failed: number;
  stuck: number;
  firstError?: string;
  upstreamOpen: number;
  rssBefore: number;
  rssPeak: number;
  rssAfter: number;
  call: { status: number; ms: number; error?: string };
  fdLimit: { soft: number; hard: number };
  seconds: number;
}

/**
 * Opens `target` streams, or as many as mcpscope's descriptor limit allows (two per stream, and
 * FD_RESERVE for the rest: at the limit, anything in the process that opens a file fails).
 */
export async function concurrentStreams(target: number): Promise<StreamsResult> {
  const started = performance.now();
  const fdLimit = fdLimits();
  const streams = Math.min(target, Math.floor((fdLimit.soft - FD_RESERVE) / 2));
  const upstream = await startScopeChild('-', { script: new URL('./stream-upstream.mjs', import.meta.url), nodeArgs: [] });
  const scope = await startScopeChild(`${upstream.proxy}/mcp`, { script: new URL('./scope-child.mjs', import.meta.url) });
  const client = await startScopeChild(`${scope.proxy}/mcp`, { script: new URL('./stream-client.mjs', import.meta.url), nodeArgs: [] });
  try {
    // Warm: one stream and one call before the baseline.
    await client.ask('open 1');
    await client.ask('call');
    const before = (await scope.ask('reset')).rss as number;
    log(`concurrent streams: opening ${streams.toLocaleString('en-US')} …`);
    const opened = await client.ask(`open ${streams - 1}`);
    const during = await scope.ask('stats');
    const call = (await client.ask('call')) as StreamsResult['call'];
    const after = (await scope.ask('reset')).rss as number;
    const upstreamOpen = (await upstream.ask('count')).open as number;
    return {
      target,
      asked: streams,
      held: opened.held as number,
      failed: opened.failed as number,
      stuck: opened.stuck as number,
      firstError: opened.firstError as string | undefined,
      upstreamOpen,
      rssBefore: before,
      rssPeak: during.peakRss as number,
      rssAfter: after,
      call,
      fdLimit,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    client.process.kill();
    await scope.close().catch(() => undefined);
    upstream.process.kill();
  }
}

/** The docs/performance.md section for `r`. */
export function streamsSection(r: StreamsResult): string {
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
  const perStream = (r.rssAfter - r.rssBefore) / Math.max(1, r.held);
  const n = (v: number) => v.toLocaleString('en-US');
  const byFds =
    r.asked < r.target
      ? `the descriptor limit: mcpscope needs 2 per stream and ${FD_RESERVE} for itself, so a soft limit of ${n(r.fdLimit.soft)} allows ${n(r.asked)} of the ${n(r.target)} targeted`
      : `nothing up to the ${n(r.target)} targeted`;
  const limit =
    r.held >= r.asked
      ? `${byFds}; all ${n(r.asked)} asked for were held`
      : `${byFds}; ${n(r.asked - r.held)} of ${n(r.asked)} were not held (${n(r.failed)} failed, first: ${r.firstError ?? '—'}; ${n(r.stuck)} still waiting after 15 s without progress)`;
  const rows = [
    [
      'streams targeted / asked for / held open through mcpscope (first event received on each)',
      `${n(r.target)} / ${n(r.asked)} / ${n(r.held)}`,
    ],
    ['streams open at the upstream', r.upstreamOpen.toLocaleString('en-US')],
    ['what limited it', limit],
    ['file descriptors allowed per process (soft / hard)', `${n(r.fdLimit.soft)} / ${n(r.fdLimit.hard)}`],
    ['mcpscope RSS before (after a GC, 1 stream open)', `${(r.rssBefore / MiB).toFixed(1)} MiB`],
    ['mcpscope RSS with the streams open: peak / after a GC', `${(r.rssPeak / MiB).toFixed(1)} / ${(r.rssAfter / MiB).toFixed(1)} MiB`],
    ['mcpscope RSS per stream (after a GC)', `${(perStream / 1024).toFixed(1)} KiB`],
    [
      'a normal call (initialize, own connection) while they are open',
      r.call.status === 200 ? `answered 200 in ${r.call.ms.toFixed(1)} ms` : `NOT answered: ${r.call.error ?? `status ${r.call.status}`}`,
    ],
  ];
  return `<!-- streams-bench:start -->
Measured by \`npm run bench\` (bench/streams.ts) on: ${machine}; whole run ${r.seconds.toFixed(0)} s.

| measurement | value |
|---|---|
${rows.map(([k, v]) => `| ${k} | ${v} |`).join('\n')}
<!-- streams-bench:end -->`;
}

export function writeStreamsSection(section: string): void {
  const path = new URL('../docs/performance.md', import.meta.url);
  const doc = readFileSync(path, 'utf8');
  if (!doc.includes('<!-- streams-bench:start -->')) throw new Error('docs/performance.md has no streams-bench markers');
  writeFileSync(path, doc.replace(/<!-- streams-bench:start -->[\s\S]*<!-- streams-bench:end -->/, section));
  console.log('docs/performance.md: Concurrent streams section written');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const i = process.argv.indexOf('--streams');
  const r = await concurrentStreams(i >= 0 ? Number(process.argv[i + 1]) : 10_000);
  const section = streamsSection(r);
  console.log(section);
  if (process.argv.includes('--write')) writeStreamsSection(section);
  process.exit(0);
}
