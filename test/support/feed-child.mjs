// A mcpscope (from the built dist/, no proxy port: store + UI + feed) alone in its process, so
// that a test can measure what its WebSocket feed costs in memory.
//   node --expose-gc test/support/feed-child.mjs
// Prints one JSON line {ui, token} when ready; then answers stdin lines with one JSON line each:
//   fill <events> <bytes>  → appends <events> log events of about <bytes> of text each; {lastSeq}
//   live <events>          → appends <events> small log events ("live 1" …) in one batch; {lastSeq}
//   reset                  → {rss} after a GC, and restarts the peak
//   stats                  → {rss, peakRss, heapUsed, external, consumers} (peakRss sampled every 10 ms since the last reset)
//   close                  → closes and exits
import { createInterface } from 'node:readline';
import { startMcpscope } from '../../dist/proxy/app/mcpscope.js';

const scope = await startMcpscope({ uiPort: 0, discoveryFile: false, maxMemoryBytes: 2 * 1024 * 1024 * 1024 });
let peak = process.memoryUsage.rss();
setInterval(() => {
  const r = process.memoryUsage.rss();
  if (r > peak) peak = r;
}, 10).unref();
const say = (v) => process.stdout.write(`${JSON.stringify(v)}\n`);
say({ ui: scope.ui.origin, token: scope.token });
let live = 0;
for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, a, b] = line.trim().split(/\s+/);
  if (cmd === 'fill') {
    for (let i = 0; i < Number(a); i++) {
      // A flat string of its own per event (a template around one shared filler would be a rope
      // sharing it, flattened — and so allocated — only when first serialized).
      const text = Buffer.alloc(Number(b), 'x');
      text.write(`snapshot ${i} `);
      scope.store.append({ type: 'log', ts: Date.now(), source: 'mcpscope', text: text.toString('latin1') });
    }
    scope.store.commit();
    say({ lastSeq: scope.store.lastSeq });
  } else if (cmd === 'live') {
    for (let i = 0; i < Number(a); i++) scope.store.append({ type: 'log', ts: Date.now(), source: 'mcpscope', text: `live ${++live}` });
    scope.store.commit();
    say({ lastSeq: scope.store.lastSeq });
  } else if (cmd === 'reset') {
    globalThis.gc?.();
    peak = process.memoryUsage.rss();
    say({ rss: peak });
  } else if (cmd === 'stats') {
    const m = process.memoryUsage();
    say({ rss: m.rss, peakRss: Math.max(peak, m.rss), heapUsed: m.heapUsed, external: m.external, consumers: scope.ui.feed.size });
  } else if (cmd === 'close') {
    await scope.close();
    process.exit(0);
  }
}
// stdin closed: the test that started this process is gone; do not outlive it.
process.exit(0);
