// A mcpscope from the built dist/, alone in its process, for bench/proxy.ts (via bench/support.ts).
//   node --expose-gc bench/scope-child.mjs <target>
// Env: SCOPE_CHILD_UI=1 also runs the UI server (and so its WebSocket feed) on a free port with
// token "bench". SCOPE_CHILD_RECORD=0 turns capture off (forwarding only). SCOPE_CHILD_FORWARD=1 starts
// a forward proxy instead of a reverse one (no target; `proxy` is then the forward proxy's origin and
// `caPem` mcpscope's CA, made under $MCPSCOPE_HOME/ca: the bench points that at a temporary directory);
// SCOPE_CHILD_UPSTREAM_CA=<PEM> is trusted for upstream servers (`upstreamCa`). SCOPE_CHILD_BREAKPOINT=1
// adds one breakpoint rule that matches nothing (what having breakpoints on costs).
// Prints {proxy, ui?, token?, proxyTid, caPem?} when ready; then answers stdin lines:
//   reset → {rss} after a GC, restarting the peak; stats → {rss, peakRss} (peak sampled every 5 ms between the two);
//   close → closes and exits.
import { createInterface } from 'node:readline';
import { startMcpscope } from '../dist/proxy/app/mcpscope.js';
import { yieldCpuToProxyThread } from '../dist/proxy/wire/thread/proxy-thread.js';

const [target] = process.argv.slice(2);
const withUi = process.env.SCOPE_CHILD_UI === '1';
const forward = process.env.SCOPE_CHILD_FORWARD === '1';
const upstreamCa = process.env.SCOPE_CHILD_UPSTREAM_CA ? [process.env.SCOPE_CHILD_UPSTREAM_CA] : undefined;
const scope = await startMcpscope({
  ...(forward ? { forward: { port: 0, upstreamCa } } : { target, port: 0 }),
  uiPort: withUi ? 0 : false,
  token: 'bench',
  record: process.env.SCOPE_CHILD_RECORD !== '0',
  // SCOPE_CHILD_LINT=off|warn|strict: the spec linter (default warn, as the CLI).
  ...(process.env.SCOPE_CHILD_LINT ? { lint: process.env.SCOPE_CHILD_LINT } : {}),
});
if (process.env.SCOPE_CHILD_BREAKPOINT === '1') {
  scope.breakpoints.add({ id: 'bench', match: { dir: 's2c', method: 'bench/never-sent' } });
  await scope.settle();
}
// As the CLI does: every thread but the proxy thread (recorder, store, UI, V8's helpers) yields the CPU to it.
// SCOPE_CHILD_NICE=0 leaves it as is (to measure the difference).
if (process.env.SCOPE_CHILD_NICE !== '0') yieldCpuToProxyThread(scope.proxyThread, Number(process.env.SCOPE_CHILD_NICE ?? 10));
// The RSS sampler runs only between `reset` and `stats`, so that it costs nothing elsewhere.
let peak = process.memoryUsage.rss();
let sampler;
const say = (v) => process.stdout.write(`${JSON.stringify(v)}\n`);
say({
  proxy: (forward ? scope.forwardProxy : scope.proxy).origin,
  ui: scope.ui?.origin,
  token: withUi ? 'bench' : undefined,
  proxyTid: scope.proxyThread?.tid,
  caPem: forward ? scope.ca.certPem : undefined,
});
for await (const line of createInterface({ input: process.stdin })) {
  const cmd = line.trim();
  if (cmd === 'reset') {
    globalThis.gc?.();
    peak = process.memoryUsage.rss();
    clearInterval(sampler);
    sampler = setInterval(() => {
      const r = process.memoryUsage.rss();
      if (r > peak) peak = r;
    }, 5);
    say({ rss: peak });
  } else if (cmd === 'stats') {
    clearInterval(sampler);
    const rss = process.memoryUsage.rss();
    say({ rss, peakRss: Math.max(peak, rss) });
  } else if (cmd === 'close') {
    await scope.close();
    process.exit(0);
  }
}
// stdin closed: the bench that started this process is gone (even if it was killed outright); do not outlive it.
process.exit(0);
