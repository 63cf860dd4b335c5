/**
 * The waterfall in a real headless Chromium (Debian's package, driven by playwright-core), fed
 * by real MCP traffic through the proxy: the demo server, an SDK client that makes one call and
 * stays open, and the scripted demo client, whose first session is closed (DELETE) and whose next
 * one goes on well past it.
 *
 * - A closed session is drawn on its own time axis (first event → last event): its last call ends
 *   near the right edge, however long after it the traffic went on.
 * - Calls one after another share rows: far fewer rows than calls.
 * - An open session idle since its call runs on to the latest event; Fit brings its call back.
 * - Bars select their call; the keyboard moves the selection and the waterfall keeps it in view.
 *
 * A screenshot lands in $TMPDIR/mcpscope-waterfall.png; with MCPSCOPE_WRITE_SCREENSHOTS=1 also in
 * docs/images/waterfall.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startDemoClient, type DemoClient } from '../../proxy/app/demo/demo-client.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { SessionInfo } from '../../proxy/core/model/events.js';
import { launchBrowser } from '../support/browser.js';

const TOKEN = 'ui-waterfall-browser-test-token';
/** Writing the README's screenshot: the demo at a pace closer to `npm start`'s. */
const DOCS = process.env.MCPSCOPE_WRITE_SCREENSHOTS === '1';
let demo: DemoServer;
let scope: Mcpscope;
let browser: Browser;
let page: Page;
let idle: Client;
let idleTransport: StreamableHTTPClientTransport;
let demoClient: DemoClient | undefined;
/** mcpscope's ids: the idle SDK client's session, the demo client's first (closed) one. */
let idleId: string;
let closedId: string;

/** The Fit button (by its text, as a user finds it). */
const fitButton = (p: Page) => p.locator('.wf-toolbar button', { hasText: /^Fit$/ });

const sessions = () => scope.waitFor((s) => [...s.sessions.values()]);

beforeAll(async () => {
  demo = await startDemoServer({ port: 0 });
  scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0, token: TOKEN });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(scope.ui!.url);
  await page.getByTestId('status').filter({ hasText: /live/i }).waitFor();

  // One call, then nothing: this session stays open and idle while the others go on.
  idle = new Client({ name: 'ui-waterfall-idle', version: '1.0.0' }, { capabilities: {} });
  idleTransport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await idle.connect(idleTransport);
  await idle.callTool({ name: 'add', arguments: { a: 1, b: 2 } });

  // The demo client: two rounds in a first session (then DELETE), then a second session.
  demoClient = startDemoClient(
    scope.proxy.url,
    DOCS
      ? { intervalMs: 700, roundsPerSession: 3, slowStepMs: 300, randomDelayMaxMs: 800 }
      : { intervalMs: 150, roundsPerSession: 2, slowStepMs: 120, randomDelayMaxMs: 250 },
  );
  const first = await scope.waitFor(
    (s) => [...s.sessions.values()].find((x) => x.clientInfo?.name === 'mcpscope-demo-client' && x.status === 'closed'),
    60_000,
  );
  closedId = first.id;
  idleId = (await sessions()).find((x) => x.clientInfo?.name === 'ui-waterfall-idle')!.id;
  // The traffic goes on for twice as long as the closed session lasted (at least 4 s).
  const lasted = first.endedAt! - first.startedAt;
  await new Promise((resolve) => setTimeout(resolve, Math.max(4_000, 2 * lasted)));
  await demoClient.stop();
  demoClient = undefined;
  await scope.settle();
}, 120_000);

afterAll(async () => {
  await demoClient?.stop();
  await idleTransport?.terminateSession().catch(() => undefined);
  await idle?.close();
  await browser?.close();
  await scope?.close();
  await demo?.close();
});

/** Opens the waterfall of one session (by URL, as a shared link would). */
async function openWaterfall(p: Page, sessionId: string): Promise<void> {
  const url = new URL(p.url());
  url.search = `?session=${sessionId}&view=waterfall`;
  await p.goto(url.toString());
  await p.getByTestId('waterfall-bar').first().waitFor();
}

/** The plot's visible extent and where the rightmost bar ends in it (0 = left edge, 1 = right edge). */
async function rightmostBarEnd(p: Page): Promise<number> {
  return p.evaluate(() => {
    const scroller = document.querySelector<HTMLElement>('.wf-scroll')!;
    const left = document.querySelector<HTMLElement>('.wf-axis-label')!.getBoundingClientRect().right;
    const right = scroller.getBoundingClientRect().left + scroller.clientWidth - 24;
    const ends = [...document.querySelectorAll<HTMLElement>('[data-testid="waterfall-bar"]')].map((b) => b.getBoundingClientRect().right);
    return (Math.max(...ends) - left) / (right - left);
  });
}

describe('waterfall in Chromium', () => {
  it('draws a closed session on its own time axis, its calls packed into a few rows', async () => {
    const closed = (await sessions()).find((x) => x.id === closedId) as SessionInfo;
    const clock = await scope.waitFor((s) => Math.max(...[...s.sessions.values()].map((x) => x.endedAt ?? 0)));
    // The traffic went on long after this session closed…
    expect(clock - closed.endedAt!).toBeGreaterThan(closed.endedAt! - closed.startedAt);
    await openWaterfall(page, closedId);
    // …yet its last call ends near the right edge of the axis (on the old axis, running to the
    // latest event, it ended before the middle).
    await expect.poll(() => rightmostBarEnd(page)).toBeGreaterThan(0.85);
    const axis = page.getByTestId('waterfall-axis');
    const span = Number(await axis.getAttribute('data-end')) - Number(await axis.getAttribute('data-start'));
    expect(span).toBeLessThanOrEqual(closed.endedAt! - closed.startedAt + 500);
    // Nothing runs on in a closed session: no "now" line.
    expect(await page.locator('.wf-now').count()).toBe(0);
    // The calls fill the view: Fit has nothing to do.
    expect(await fitButton(page).isDisabled()).toBe(true);

    const calls = await page.getByTestId('waterfall-bar').count();
    const lanes = await page.getByTestId('waterfall-lane').count();
    expect(calls).toBeGreaterThan(20);
    expect(lanes).toBeLessThan(calls / 3);
    // POST streams share rows; the GET stream keeps one of its own.
    const kinds = await page
      .getByTestId('waterfall-lane')
      .evaluateAll((els) => els.map((e) => [e.getAttribute('data-kind'), Number(e.getAttribute('data-streams'))] as const));
    expect(kinds.filter(([k]) => k === 'get').every(([, n]) => n === 1)).toBe(true);
    expect(Math.max(...kinds.filter(([k]) => k === 'post').map(([, n]) => n))).toBeGreaterThan(5);
    // Calls are named on or beside their bars where there is room, mostly in full; every bar's
    // tooltip names its call.
    const labels = page.locator('.wf-bar-label, [data-testid="waterfall-bar-label"]');
    const names = await labels.allTextContents();
    expect(names.length).toBeGreaterThan(5);
    expect(names.some((n) => n.startsWith('tools/call '))).toBe(true);
    const clipped = await labels.evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).length);
    expect(clipped).toBeLessThan(names.length / 2);
    const titles = await page.getByTestId('waterfall-bar').evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? ''));
    expect(titles.every((t) => /^\S+\/\S+|^\S+/.test(t))).toBe(true);
    expect(titles.some((t) => t.startsWith('tools/call slow_task\n'))).toBe(true);
  });

  it('runs an idle open session on to the latest event, and Fit brings its call back into view', async () => {
    await openWaterfall(page, idleId);
    await expect.poll(() => rightmostBarEnd(page)).toBeLessThan(0.2);
    const fit = fitButton(page);
    expect(await fit.isEnabled()).toBe(true);
    await fit.click();
    await expect.poll(() => rightmostBarEnd(page)).toBeGreaterThan(0.8);
    await expect.poll(() => fit.isDisabled()).toBe(true);
  });

  it('selects a call from its bar, and keeps the keyboard selection in view', async () => {
    await openWaterfall(page, closedId);
    const slow = page.getByTestId('waterfall-bar').and(page.locator('[title^="tools/call slow_task"]')).first();
    await slow.click();
    const detail = page.getByTestId('detail');
    await detail.waitFor();
    expect(await detail.textContent()).toContain('slow_task');
    expect(await slow.getAttribute('class')).toContain('selected');
    await page.screenshot({ path: join(tmpdir(), 'mcpscope-waterfall.png') });
    if (process.env.MCPSCOPE_WRITE_SCREENSHOTS === '1') await page.screenshot({ path: 'docs/images/waterfall.png' });

    // j / k move the selection through the calls; the selected bar stays in the waterfall's view.
    let seen = 0;
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('j');
      const inView = await page.evaluate(() => {
        const bar = document.querySelector('.wf-bar.selected');
        if (!bar) return undefined;
        const r = bar.getBoundingClientRect();
        const v = document.querySelector('.wf-scroll')!.getBoundingClientRect();
        return r.bottom > v.top && r.top < v.bottom && r.right > v.left && r.left < v.right;
      });
      if (inView === undefined) continue;
      seen++;
      expect(inView).toBe(true);
    }
    expect(seen).toBeGreaterThan(10);
  });
});
