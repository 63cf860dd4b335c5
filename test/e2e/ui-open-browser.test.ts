/**
 * `mcpscope open <file>` in a real headless Chromium (Debian's package, driven by playwright-core):
 * the built CLI serves a saved capture, and the page shows what it is — the file name and
 * "capture" — with none of a live mcpscope's controls (the live badge, Pause, Clear, Faults), and
 * never asks for the live-only endpoints (/api/stats, /api/faults), which `open` does not have.
 * A live mcpscope, next to it, keeps its controls.
 * Requires `npm run build` (npm test runs it first).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { exportNdjson } from '../../proxy/files/export/export-ndjson.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { launchBrowser } from '../support/browser.js';
import { startOpenCli } from '../support/fixture-cli.js';
import { recordScriptedCapture } from '../support/scripted-session.js';

const TOKEN = 'ui-open-browser-token-0123';
/** Where the screenshots go (a person looks at them; nothing compares them). */
const SHOTS = process.env.MCPSCOPE_SCREENSHOTS ?? tmpdir();

let opened: Awaited<ReturnType<typeof startOpenCli>> | undefined;
let uiUrl: string;
let browser: Browser;

beforeAll(async () => {
  opened = await startOpenCli('weather-bug.ndjson', exportNdjson(recordScriptedCapture().store), TOKEN);
  uiUrl = opened.uiUrl;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await opened?.stop();
});

/** Opens `url` in a fresh page, recording the path of every request the page makes. */
async function openPage(url: string): Promise<{ page: Page; paths: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 700 } });
  const paths: string[] = [];
  page.on('request', (r) => paths.push(new URL(r.url()).pathname));
  await page.goto(url);
  return { page, paths };
}

describe('mcpscope open <file> in Chromium', () => {
  it('shows the file name and "capture", no live controls, and asks for no live-only endpoint', async () => {
    const { page, paths } = await openPage(uiUrl);
    try {
      await page.getByTestId('row').first().waitFor();
      const header = page.locator('header.app-header');
      await header.getByTestId('capture-file').waitFor();
      expect(await header.getByTestId('capture-file').textContent()).toBe('weather-bug.ndjson');
      expect(await header.getByTestId('status').getAttribute('data-status')).toBe('capture');
      expect(await header.getByTestId('status').textContent()).toContain('capture');
      expect(await header.textContent()).not.toMatch(/\blive\b/);
      for (const id of ['pause', 'clear', 'faults']) expect(await page.getByTestId(id).count(), id).toBe(0);
      // Still there: what a capture can do.
      expect(await page.getByTestId('export').count()).toBe(1);
      expect(await page.getByTestId('import').count()).toBe(1);
      // The header used to poll /api/stats at once and every 5 s: give it the time to.
      await page.waitForTimeout(6_000);
      expect(paths).toContain('/api/info');
      expect(paths.filter((p) => p === '/api/stats' || p.startsWith('/api/faults'))).toEqual([]);
      await header.screenshot({ path: join(SHOTS, 'mcpscope-open-header.png') });
      await page.screenshot({ path: join(SHOTS, 'mcpscope-open-page.png') });
    } finally {
      await page.close();
    }
  });
});

describe('a live mcpscope in Chromium, for contrast', () => {
  let scope: Mcpscope;
  beforeAll(async () => {
    scope = await startMcpscope({ target: 'http://127.0.0.1:9/mcp', port: 0, uiPort: 0, token: TOKEN });
  });
  afterAll(async () => {
    await scope?.close();
  });

  it('keeps the live badge, Pause, Clear and Faults, and polls /api/stats', async () => {
    const { page, paths } = await openPage(scope.ui!.url);
    try {
      await page.getByTestId('status').and(page.locator('[data-status="live"]')).waitFor();
      for (const id of ['pause', 'clear', 'faults']) await page.getByTestId(id).waitFor();
      expect(await page.getByTestId('capture-file').count()).toBe(0);
      await expect.poll(() => paths.includes('/api/stats')).toBe(true);
      expect(paths).toContain('/api/info');
      await page.locator('header.app-header').screenshot({ path: join(SHOTS, 'mcpscope-live-header.png') });
    } finally {
      await page.close();
    }
  });
});
