/**
 * UI performance check (not a test): loads N synthetic frames (default 100,000) into a real
 * mcpscope UI server, opens the timeline in headless Chromium, and measures
 *   - time to first render (navigation → first row painted) and to the whole snapshot ingested,
 *   - frame times while scrolling the virtualized list continuously for 3 s,
 *   - frame times while 5,000 frames/s arrive live for 5 s.
 * Prints a table; with --write, replaces the UI section of docs/performance.md.
 *
 *   npm run bench:ui            (FRAMES=20000 npm run bench:ui for a quick look)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { EventStore } from '../proxy/recorder/store/event-store.js';
import { startUiServer } from '../proxy/app/serve/ui-server.js';
import { UI_DIR, packageVersion } from '../proxy/app/mcpscope.js';
import type { McpscopeEvent, UnsequencedEvent } from '../proxy/core/model/events.js';
import { syntheticEvents } from './ui-synthetic.js';
import { launchBrowser } from '../test/support/browser.js';

const FRAMES = Number(process.env.FRAMES ?? 100_000);
const LIVE_RATE = 5_000; // frames per second
const LIVE_SECONDS = 5;
const TOKEN = 'ui-perf-token-0123456789';

function unsequenced(e: McpscopeEvent): UnsequencedEvent {
  const { seq: _seq, ...rest } = e;
  return rest as UnsequencedEvent;
}

function stats(intervals: number[]) {
  const s = [...intervals].sort((a, b) => a - b);
  const pct = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
  return {
    frames: s.length,
    p50: pct(50),
    p95: pct(95),
    max: s.at(-1) ?? 0,
    over33: s.filter((x) => x > 33.4).length,
    over50: s.filter((x) => x > 50).length,
  };
}

const store = new EventStore();
const genStart = performance.now();
const initial = syntheticEvents(FRAMES, { sessions: 4 });
for (const e of initial) store.append(unsequenced(e));
store.commit();
const genMs = performance.now() - genStart;
const messages = initial.filter((e) => e.type === 'message').length;

const ui = await startUiServer({ store, token: TOKEN, uiDir: UI_DIR, showSecrets: false, version: packageVersion() });
const browser = await launchBrowser();
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
// tsx/esbuild wraps functions passed to page.evaluate in a `__name` helper that only exists in Node.
await page.addInitScript('globalThis.__name = (f) => f');

// 1. Time to first render and to the full snapshot.
const t0 = performance.now();
await page.goto(ui.url);
await page.getByTestId('row').first().waitFor({ timeout: 180_000 });
const firstRowMs = performance.now() - t0;
await page
  .waitForFunction(
    (n) => {
      const text = document.querySelector('[data-testid="row-count"]')?.textContent ?? '';
      const nums = (text.match(/[\d,]+/g) ?? []).map((x) => Number(x.replace(/,/g, '')));
      return (
        nums.length > 0 &&
        Math.max(...nums) > 0 &&
        (window as unknown as { __mcpscopeStats?: () => { messages: number } }).__mcpscopeStats?.().messages === n
      );
    },
    messages,
    { timeout: 180_000, polling: 100 },
  )
  .catch(() => undefined);
const allMs = performance.now() - t0;
const domNodes = await page.evaluate(() => document.getElementsByTagName('*').length);
const rowCount = await page.getByTestId('row-count').textContent();

// 2. Scrolling: move the viewport every animation frame for 3 s and record frame intervals.
const scrollIntervals = await page.evaluate(async () => {
  const vp = document.querySelector('[data-testid="timeline-viewport"]') as HTMLElement;
  vp.scrollTop = 0;
  const out: number[] = [];
  return new Promise<number[]>((resolve) => {
    let last = performance.now();
    const end = last + 3000;
    const step = (t: number) => {
      out.push(t - last);
      last = t;
      vp.scrollTop += 700;
      if (vp.scrollTop + vp.clientHeight >= vp.scrollHeight - 1) vp.scrollTop = 0;
      if (t < end) requestAnimationFrame(step);
      else resolve(out.slice(1));
    };
    requestAnimationFrame(step);
  });
});

// 3. Live ingest at LIVE_RATE frames/s while the page records frame intervals.
const liveEvents = syntheticEvents(LIVE_RATE * LIVE_SECONDS, { seed: 7, startSeq: store.lastSeq + 1, startTs: Date.now(), sessions: 2 });
const framesDuringLive = page.evaluate(
  async (ms) => {
    const vp = document.querySelector('[data-testid="timeline-viewport"]') as HTMLElement;
    vp.scrollTop = vp.scrollHeight; // follow the live tail
    const out: number[] = [];
    return new Promise<number[]>((resolve) => {
      let last = performance.now();
      const end = last + ms;
      const step = (t: number) => {
        out.push(t - last);
        last = t;
        if (t < end) requestAnimationFrame(step);
        else resolve(out.slice(1));
      };
      requestAnimationFrame(step);
    });
  },
  LIVE_SECONDS * 1000 + 500,
);
const liveStart = performance.now();
const perTick = LIVE_RATE / 50; // every 20 ms
let sent = 0;
const liveMessages = liveEvents.filter((e) => e.type === 'message').length;
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    let frames = 0;
    while (sent < liveEvents.length && frames < perTick) {
      const e = liveEvents[sent++];
      store.append(unsequenced(e));
      if (e.type === 'message') frames += 1;
    }
    store.commit();
    if (sent >= liveEvents.length) {
      clearInterval(timer);
      resolve();
    }
  }, 20);
});
const liveSendMs = performance.now() - liveStart;
const liveIntervals = await framesDuringLive;
const liveSeen = await page
  .waitForFunction(
    (n) => (window as unknown as { __mcpscopeStats?: () => { messages: number } }).__mcpscopeStats?.().messages === n,
    messages + liveMessages,
    { timeout: 30_000, polling: 100 },
  )
  .then(() => true)
  .catch(() => false);

await browser.close();
await ui.close();

const scroll = stats(scrollIntervals);
const live = stats(liveIntervals);
const f = (n: number) => n.toFixed(1);
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, Chromium ${browser.version()}`;
const table = `| measurement | value |
|---|---|
| frames loaded (JSON-RPC messages) | ${messages.toLocaleString('en')} (${initial.length.toLocaleString('en')} events, generated in ${f(genMs)} ms) |
| time to first row painted | ${f(firstRowMs)} ms |
| time to whole snapshot ingested | ${f(allMs)} ms |
| DOM elements with everything loaded | ${domNodes} (row counter: "${rowCount?.trim()}") |
| scrolling 3 s: frame time p50 / p95 / max | ${f(scroll.p50)} / ${f(scroll.p95)} / ${f(scroll.max)} ms over ${scroll.frames} frames |
| scrolling: frames over 33 ms / over 50 ms | ${scroll.over33} / ${scroll.over50} |
| live ingest ${LIVE_RATE.toLocaleString('en')} frames/s for ${LIVE_SECONDS} s: frame time p50 / p95 / max | ${f(live.p50)} / ${f(live.p95)} / ${f(live.max)} ms over ${live.frames} frames |
| live ingest: frames over 33 ms / over 50 ms | ${live.over33} / ${live.over50} |
| live ingest: all ${liveMessages.toLocaleString('en')} frames shown | ${liveSeen ? 'yes' : 'NO'} (sent in ${f(liveSendMs)} ms) |`;

const section = `<!-- ui-perf:start -->
Measured by \`npm run bench:ui\` (bench/ui-timeline.ts) on ${new Date().toISOString().slice(0, 10)}: ${machine}; mcpscope ${packageVersion()}; headless Chromium frame times from requestAnimationFrame.

${table}
<!-- ui-perf:end -->`;

console.log(`\n${machine}\n\n${table}\n`);
if (process.argv.includes('--write')) {
  const path = new URL('../docs/performance.md', import.meta.url);
  let doc = '';
  try {
    doc = readFileSync(path, 'utf8');
  } catch {
    doc = '# Performance\n\n## Timeline UI\n\n';
  }
  doc = doc.includes('<!-- ui-perf:start -->')
    ? doc.replace(/<!-- ui-perf:start -->[\s\S]*<!-- ui-perf:end -->/, section)
    : `${doc.trimEnd()}\n\n## Timeline UI\n\n${section}\n`;
  writeFileSync(path, doc);
  console.log('docs/performance.md updated');
}
