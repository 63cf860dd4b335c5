// A mcpscope from the built dist/, alone in its process, so that a test can measure its memory.
//   node --expose-gc test/support/scope-child.mjs <target> [maxBodyBytes]
// Prints one JSON line {proxy} when ready; then answers stdin lines:
//   reset    → {rss} after a GC, and restarts the peak
//   stats    → {rss, peakRss, heapUsed, store} (peakRss sampled every 10 ms since the last reset;
//              store = EventStore.stats())
// Env: SCOPE_CHILD_MAX_EVENTS, SCOPE_CHILD_MAX_MIB (the store cap), SCOPE_CHILD_DETAIL (peak heap/buffers).
//   exchanges→ {exchanges: ExchangeInfo[]} (latest state of each)
//   close    → closes and exits
import { createInterface } from 'node:readline';
import { startMcpscope } from '../../dist/proxy/app/mcpscope.js';

const [target, maxBody] = process.argv.slice(2);
const env = process.env;
const scope = await startMcpscope({
  target,
  port: 0,
  uiPort: false,
  maxBodyBytes: maxBody ? Number(maxBody) : undefined,
  maxEvents: env.SCOPE_CHILD_MAX_EVENTS ? Number(env.SCOPE_CHILD_MAX_EVENTS) : undefined,
  maxMemoryBytes: env.SCOPE_CHILD_MAX_MIB ? Number(env.SCOPE_CHILD_MAX_MIB) * 1024 * 1024 : undefined,
});
let peak = process.memoryUsage.rss();
let peakBuffers = 0;
let peakHeap = 0;
setInterval(() => {
  const r = process.memoryUsage.rss();
  if (r > peak) peak = r;
  if (process.env.SCOPE_CHILD_DETAIL) {
    const m = process.memoryUsage();
    peakBuffers = Math.max(peakBuffers, m.arrayBuffers);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }
}, 10).unref();
const say = (v) => process.stdout.write(`${JSON.stringify(v)}\n`);
say({ proxy: scope.proxy.origin });
for await (const line of createInterface({ input: process.stdin })) {
  const cmd = line.trim();
  if (cmd === 'reset') {
    globalThis.gc?.();
    peak = process.memoryUsage.rss();
    peakBuffers = peakHeap = 0;
    say({ rss: peak });
  } else if (cmd === 'stats') {
    const m = process.memoryUsage();
    say({ rss: m.rss, peakRss: Math.max(peak, m.rss), heapUsed: m.heapUsed, peakBuffers, peakHeap, store: scope.store.stats() });
  } else if (cmd === 'exchanges') {
    scope.flush();
    say({ exchanges: [...scope.store.exchanges.values()] });
  } else if (cmd === 'gc') {
    globalThis.gc?.();
    const m = process.memoryUsage();
    say({ rss: m.rss, heapUsed: m.heapUsed });
  } else if (cmd === 'close') {
    await scope.close();
    process.exit(0);
  }
}
// stdin closed: the bench that started this process is gone (even if it was killed outright); do not outlive it.
process.exit(0);
