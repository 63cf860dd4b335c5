/**
 * A hostile capture in a real headless Chromium (Debian's package, driven by playwright-core):
 * `mcpscope open` serves an NDJSON capture holding a tool named `run\u202Ehs.exe` (a right-to-left
 * override: it reads `runexe.sh` when drawn raw) and a response nested 10,000 levels deep (in its
 * `raw` text too, which the page parses itself). The page must keep working: no uncaught error, the
 * rows there, the name drawn with a ⟨U+202E⟩ badge, the deep JSON opened down to the level where
 * it turns into a "show as text" node, the waterfall drawn.
 * Requires `npm run build`. Set MCPSCOPE_UI_SHOTS=<dir> to keep the screenshots.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.js';
import { startOpenCli } from '../support/fixture-cli.js';
import { EventBuilder } from '../ui/fixtures.js';

const TOKEN = 'ui-hostile-browser-token-0123';
const SHOTS = process.env.MCPSCOPE_UI_SHOTS;
const TOOL = 'run\u202Ehs.exe';
const DEPTH = 10_000;
const PLACEHOLDER = '"__DEEP__"';

/** The capture: one session, a spoofed tool call answered with a deep result, and a plain call after it. */
function hostileCapture(): string {
  const b = new EventBuilder();
  b.session('s1', { clientInfo: { name: 'client\u200B', version: '1.0' }, serverInfo: { name: 'evil-server', version: '6.6\u202E6' } });
  b.exchange('x1', 's1', { carrier: 'post-json', status: 200, endedAt: b.ts + 5 });
  const req = b.message({
    exchangeId: 'x1',
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    id: 1,
    method: 'tools/call',
    name: TOOL,
    jsonrpc: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: TOOL, arguments: {} } },
  });
  b.message({
    exchangeId: 'x1',
    dir: 's2c',
    kind: 'response',
    carrier: 'post-json',
    id: 1,
    pair: req.seq,
    jsonrpc: { jsonrpc: '2.0', id: 1, result: { deep: '__DEEP__' } },
  });
  b.exchange('x2', 's1', { carrier: 'post-json', status: 200, endedAt: b.ts + 5 });
  const ping = b.message({
    exchangeId: 'x2',
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    id: 2,
    method: 'ping',
    jsonrpc: { jsonrpc: '2.0', id: 2, method: 'ping' },
  });
  b.message({
    exchangeId: 'x2',
    dir: 's2c',
    kind: 'response',
    carrier: 'post-json',
    id: 2,
    pair: ping.seq,
    jsonrpc: { jsonrpc: '2.0', id: 2, result: {} },
  });
  const deep = `${'['.repeat(DEPTH)}1${']'.repeat(DEPTH)}`;
  // JSON.stringify cannot write the deep value: put it in as text, in `jsonrpc` and in `raw` (a JSON string, where brackets need no escape).
  return b.events
    .map((e) => `${JSON.stringify(e).replace(PLACEHOLDER, deep).replace(JSON.stringify(PLACEHOLDER).slice(1, -1), deep)}\n`)
    .join('');
}

let opened: Awaited<ReturnType<typeof startOpenCli>> | undefined;
let uiUrl: string;
let browser: Browser;

beforeAll(async () => {
  opened = await startOpenCli('hostile.ndjson', hostileCapture(), TOKEN);
  uiUrl = opened.uiUrl;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await opened?.stop();
});

/** A page that records every uncaught error and console error. */
async function openPage(url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 820 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  await page.goto(url);
  return { page, errors };
}

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

describe('a hostile capture in Chromium', () => {
  it('shows the spoofed name with its badge and opens the deep response without an error', async () => {
    const { page, errors } = await openPage(uiUrl);
    try {
      await page.getByTestId('row').first().waitFor();
      expect(await page.getByTestId('row').count()).toBe(2);
      const row = page.locator('[data-testid="row"][data-method="tools/call"]');
      expect(await row.locator('.m-name').textContent()).toBe('run⟨U+202E⟩hs.exe');
      expect(await row.getByTestId('invisible-mark').count()).toBe(1);
      expect(await page.locator('[data-testid="session-item"][data-session-id="s1"]').textContent()).toContain('6.6⟨U+202E⟩6');

      await row.click();
      const response = page.locator('.jv-response');
      await response.waitFor();
      // Open one level after another down to the one drawn as text (each level has one child).
      for (let i = 0; i < 80 && (await response.getByTestId('jv-deep').count()) === 0; i++) {
        const collapsed = response.locator('.jv-collapsed');
        if ((await collapsed.count()) === 0) break;
        await collapsed.last().click();
      }
      const deep = response.getByTestId('jv-deep');
      expect(await deep.count()).toBe(1);
      expect(await deep.textContent()).toContain('nested deeper than 64 levels — show as text');
      await deep.click();
      expect(await response.getByTestId('jv-deep-text').textContent()).toMatch(/^\[\[\[/);
      await response.getByTestId('jv-deep-text').evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await shot(page, 'hostile-detail');

      await page.getByTestId('detail-tab-raw').click();
      await page.locator('.raw').first().waitFor();
      expect(await page.locator('.raw').count()).toBe(2);

      // Another view and back: the page still answers.
      await page.goto(`${uiUrl}${uiUrl.includes('?') ? '&' : '?'}session=s1&view=waterfall`);
      await page.getByTestId('waterfall-bar').first().waitFor();
      expect(await page.locator('.wf-lane-label, .wf-bar-label, [data-testid="waterfall-bar-label"]').allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining('⟨U+202E⟩')]),
      );
      await shot(page, 'hostile-waterfall');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
