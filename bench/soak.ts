/**
 * Soak: 1,000,000 JSON-RPC frames through a running mcpscope with a small store cap, sampling
 * the proxy process's memory every 50,000 frames. mcpscope runs from dist/ alone in a child
 * process (test/support/scope-child.mjs, via bench/support.ts) so that its memory is measured in isolation; the
 * scripted upstream and the clients run here.
 *
 * Traffic: CONCURRENCY keep-alive clients, each running sessions of CALLS_PER_SESSION tools/call
 * POSTs (with an Mcp-Session-Id) whose answers are SSE streams of PROGRESS progress notifications
 * and the result, then a DELETE that closes the session (so eviction sees closed sessions).
 * A frame is one JSON-RPC message on the wire: each POST is 1 + PROGRESS + 1 frames.
 *
 *   npm run bench:soak            (builds, runs, writes the Soak section of docs/performance.md)
 *   tsx bench/soak.ts [--frames N] [--max-events N] [--write]
 */
import { createServer, Agent, request, type IncomingMessage } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { AddressInfo } from 'node:net';
import { numberArg, startScopeChild } from './support.js';

const FRAMES = numberArg('frames', 1_000_000);
const MAX_EVENTS = numberArg('max-events', 50_000);
const SAMPLE_EVERY = 50_000;
const CONCURRENCY = 16;
const CALLS_PER_SESSION = 10;
const PROGRESS = 98;
const FRAMES_PER_CALL = PROGRESS + 2;
const MiB = 1024 * 1024;

// ---------------------------------------------------------------- the scripted upstream

const upstream = createServer((req, res) => {
  if (req.method === 'DELETE') return void res.writeHead(200).end();
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const msg = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; params: { _meta: { progressToken: number } } };
    const token = msg.params._meta.progressToken;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let out = '';
    for (let i = 1; i <= PROGRESS; i++) {
      out += `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${token},"progress":${i},"total":${PROGRESS},"message":"step ${i}"}}\n\n`;
    }
    out += `data: {"jsonrpc":"2.0","id":${msg.id},"result":{"content":[{"type":"text","text":"done ${msg.id}"}]}}\n\n`;
    res.end(out);
  });
});
await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
const upstreamOrigin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

// ---------------------------------------------------------------- mcpscope, alone in a child

const scope = await startScopeChild(`${upstreamOrigin}/mcp`, { env: { SCOPE_CHILD_MAX_EVENTS: String(MAX_EVENTS) } });
const { proxy, ask } = scope;

// ---------------------------------------------------------------- clients

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
let frames = 0;
let calls = 0;
let sessions = 0;

function post(sessionId: string, id: number): Promise<void> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'work', arguments: { n: id }, _meta: { progressToken: id } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      `${proxy}/mcp`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
      },
      (res: IncomingMessage) => {
        let events = 0;
        res.setEncoding('utf8');
        let tail = '';
        res.on('data', (s: string) => {
          const parts = (tail + s).split('\n\n');
          tail = parts.pop()!;
          events += parts.length;
        });
        res.on('end', () => {
          if (events !== PROGRESS + 1) return reject(new Error(`expected ${PROGRESS + 1} SSE events, got ${events}`));
          resolve();
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function del(sessionId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${proxy}/mcp`, { method: 'DELETE', agent, headers: { 'mcp-session-id': sessionId } }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end();
  });
}

interface Sample {
  frames: number;
  seconds: number;
  rss: number;
  heapUsed: number;
  /** heap used right after a forced GC: what is really retained. */
  liveHeap: number;
  events: number;
  evictedEvents: number;
  evictedSessions: number;
}
const samples: Sample[] = [];
const t0 = performance.now();
let nextSample = SAMPLE_EVERY;
let sampling: Promise<void> = Promise.resolve();

function maybeSample(): void {
  while (frames >= nextSample) {
    const at = nextSample;
    nextSample += SAMPLE_EVERY;
    sampling = sampling.then(async () => {
      const s = (await ask('stats')) as {
        rss: number;
        heapUsed: number;
        store: { events: number; evictedEvents: number; evictedSessions: number };
      };
      const g = (await ask('gc')) as { heapUsed: number };
      samples.push({
        frames: at,
        seconds: (performance.now() - t0) / 1000,
        rss: s.rss,
        heapUsed: s.heapUsed,
        liveHeap: g.heapUsed,
        events: s.store.events,
        evictedEvents: s.store.evictedEvents,
        evictedSessions: s.store.evictedSessions,
      });
      process.stderr.write(
        `${at} frames: rss ${(s.rss / MiB).toFixed(1)} MiB, heap ${(s.heapUsed / MiB).toFixed(1)} MiB, after GC ${(g.heapUsed / MiB).toFixed(1)} MiB, ${s.store.events} events kept\n`,
      );
    });
  }
}

let id = 0;
async function worker(w: number): Promise<void> {
  while (frames < FRAMES) {
    sessions += 1;
    const sessionId = `soak-${w}-${sessions}`;
    for (let i = 0; i < CALLS_PER_SESSION && frames < FRAMES; i++) {
      await post(sessionId, ++id);
      calls += 1;
      frames += FRAMES_PER_CALL;
      maybeSample();
    }
    await del(sessionId);
  }
}

const baseline = (await ask('gc')) as { rss: number; heapUsed: number };
await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
const elapsed = (performance.now() - t0) / 1000;
await sampling;
await new Promise((r) => setTimeout(r, 500));
const after = (await ask('gc')) as { rss: number; heapUsed: number };
const final = (await ask('stats')) as { store: { events: number; bytes: number; evictedEvents: number; evictedSessions: number } };
await scope.close();
upstream.close();
agent.destroy();

// ---------------------------------------------------------------- report

const mib = (n: number) => (n / MiB).toFixed(1);
const rows = samples.map(
  (s) =>
    `| ${s.frames.toLocaleString('en-US')} | ${s.seconds.toFixed(1)} | ${mib(s.rss)} | ${mib(s.heapUsed)} | ${mib(s.liveHeap)} | ${s.events.toLocaleString('en-US')} | ${s.evictedEvents.toLocaleString('en-US')} | ${s.evictedSessions.toLocaleString('en-US')} |`,
);
const half = samples.filter((s) => s.frames >= FRAMES / 2);
const rssRange = half.length > 0 ? `${mib(Math.min(...half.map((s) => s.rss)))}–${mib(Math.max(...half.map((s) => s.rss)))}` : 'n/a';
const liveRange =
  half.length > 0 ? `${mib(Math.min(...half.map((s) => s.liveHeap)))}–${mib(Math.max(...half.map((s) => s.liveHeap)))}` : 'n/a';
const heapRange =
  half.length > 0 ? `${mib(Math.min(...half.map((s) => s.heapUsed)))}–${mib(Math.max(...half.map((s) => s.heapUsed)))}` : 'n/a';
const table = [
  '| frames | s | RSS MiB | heap used MiB | heap after GC MiB | events kept | evicted events | evicted sessions |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows,
].join('\n');
const summary = [
  `${frames.toLocaleString('en-US')} frames (${calls.toLocaleString('en-US')} tools/call POSTs answered by SSE streams of ${PROGRESS} progress notifications and the result, ${sessions.toLocaleString('en-US')} sessions closed by DELETE) over ${CONCURRENCY} keep-alive clients in ${elapsed.toFixed(1)} s (${Math.round(frames / elapsed).toLocaleString('en-US')} frames/s), store cap \`--max-events ${MAX_EVENTS}\`.`,
  `Proxy process after a GC: before ${mib(baseline.rss)} MiB RSS / ${mib(baseline.heapUsed)} MiB heap; after ${mib(after.rss)} MiB RSS / ${mib(after.heapUsed)} MiB heap. Over the second half of the run RSS stayed within ${rssRange} MiB and heap used within ${heapRange} MiB (sampled without forcing a GC); the heap left after a forced GC at each sample, what mcpscope really retains, stayed within ${liveRange} MiB.`,
  `At the end the store held ${final.store.events.toLocaleString('en-US')} events (≈${mib(final.store.bytes)} MiB estimated) and had evicted ${final.store.evictedEvents.toLocaleString('en-US')} events and ${final.store.evictedSessions.toLocaleString('en-US')} closed sessions.`,
].join('\n');
console.log(`${table}\n\n${summary}`);

const section = `<!-- soak:start -->
Measured on: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.

${summary}

${table}
<!-- soak:end -->`;

if (process.argv.includes('--write')) {
  const path = new URL('../docs/performance.md', import.meta.url);
  let doc = readFileSync(path, 'utf8');
  doc = doc.includes('<!-- soak:start -->')
    ? doc.replace(/<!-- soak:start -->[\s\S]*<!-- soak:end -->/, section)
    : `${doc.trimEnd()}\n\n## Soak\n\nWhat it measures: \`bench/soak.ts\` pushes 1,000,000 JSON-RPC frames through one mcpscope (from dist/, alone in a child process) with a small store cap, and samples the proxy process's memory every 50,000 frames. Flat means the store's eviction and the recorder's per-session state keep memory bounded however long mcpscope runs. Not a timed test: run \`npm run bench:soak\`.\n\n${section}\n`;
  writeFileSync(path, doc);
  console.log('docs/performance.md: Soak section written');
}
process.exit(0);
