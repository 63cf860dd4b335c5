/**
 * Timeline rows and the detail pane in a real headless Chromium (Debian's package, driven by
 * playwright-core), fed by real traffic: a wrapped stdio server (`mcpscope -- node server.js`,
 * the built CLI reporting to the UI started here) and SDK clients talking to the demo server
 * through the proxy. Requires `npm run build` (npm test runs it first).
 *
 * Set MCPSCOPE_UI_SHOTS=<dir> to keep screenshots of what these tests look at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { commandLine } from '../../proxy/core/model/command-line.js';
import type { SessionInfo } from '../../proxy/core/model/events.js';
import { everythingEntry } from '../support/peers.js';
import { launchBrowser } from '../support/browser.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const SHOTS = process.env.MCPSCOPE_UI_SHOTS;

let home: string;
const savedHome = process.env.MCPSCOPE_HOME;
let demo: DemoServer;
let scope: Mcpscope;
let browser: Browser;
let page: Page;
const httpClients: { client: Client; transport: StreamableHTTPClientTransport }[] = [];

async function shot(name: string, p: Page = page): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await p.screenshot({ path: join(SHOTS, `${name}.png`) });
}

async function httpClient(name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
  httpClients.push({ client, transport });
  return client;
}

/** Loads the UI in `p` and waits until its feed is live. */
async function gotoUi(p: Page): Promise<void> {
  await p.goto(scope.ui!.url);
  await p.getByTestId('status').filter({ hasText: /live/i }).waitFor();
}

async function openUi(viewport = { width: 1400, height: 900 }): Promise<Page> {
  const p = await browser.newPage({ viewport });
  await gotoUi(p);
  return p;
}

async function pickSession(p: Page, id: string): Promise<void> {
  const item = p.locator(`[data-testid="session-item"][data-session-id="${id}"]`);
  await item.waitFor();
  await item.click();
}

/** The session of a client, by its name, once the store has it. */
function sessionOf(clientName: string): Promise<SessionInfo> {
  return scope.waitFor((s) => [...s.sessions.values()].find((x) => x.clientInfo?.name === clientName));
}

/**
 * Words (runs of letters) inside `el` that the browser broke across lines: "captu|re",
 * "t|ext/event-stream", "no-transf|orm". A run of letters has no place to break but its ends.
 */
function brokenWords(el: Locator): Promise<string[]> {
  return el.evaluate((root) => {
    const broken: string[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const m of text.matchAll(/[A-Za-z]{2,}/g)) {
        const range = document.createRange();
        range.setStart(node, m.index!);
        range.setEnd(node, m.index! + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
    return broken;
  });
}

/** Elements (by class) inside `el` whose computed word-break is break-all. */
function breakAllIn(el: Locator): Promise<string[]> {
  return el.evaluate((root) =>
    [root, ...root.querySelectorAll('*')]
      .filter((e) => getComputedStyle(e).wordBreak === 'break-all')
      .map((e) => e.getAttribute('class') ?? e.tagName),
  );
}

/** Whether the row with this key is rendered and lies wholly inside the timeline's viewport (no waiting). */
/** The keys of the timeline rows wholly inside its viewport, top to bottom (1 px of slack, as rowInView). */
function rowKeysInView(p: Page): Promise<string[]> {
  return p.getByTestId('row').evaluateAll((els) => {
    const vp = document.querySelector('[data-testid="timeline-viewport"]')!.getBoundingClientRect();
    return els
      .filter((e) => {
        const r = e.getBoundingClientRect();
        return r.top >= vp.top - 1 && r.bottom <= vp.bottom + 1;
      })
      .map((e) => e.getAttribute('data-key')!);
  });
}

function rowInView(p: Page, key: string): Promise<boolean> {
  return p.evaluate((k) => {
    const vp = document.querySelector('[data-testid="timeline-viewport"]');
    const row = document.querySelector(`[data-testid="row"][data-key="${k}"]`);
    if (!vp || !row) return false;
    const a = vp.getBoundingClientRect();
    const b = row.getBoundingClientRect();
    return b.top >= a.top - 1 && b.bottom <= a.bottom + 1;
  }, key);
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcpscope-ui-rows-'));
  process.env.MCPSCOPE_HOME = home;
  demo = await startDemoServer({ port: 0 });
  // The UI "started earlier", announced in MCPSCOPE_HOME for the stdio wrapper to find.
  scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0, discoveryFile: true });
  browser = await launchBrowser();
  page = await openUi();
}, 60_000);

afterAll(async () => {
  for (const { client, transport } of httpClients) {
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
  await browser?.close();
  await scope?.close();
  await demo?.close();
  if (savedHome === undefined) delete process.env.MCPSCOPE_HOME;
  else process.env.MCPSCOPE_HOME = savedHome;
  rmSync(home, { recursive: true, force: true });
});

describe('timeline rows in Chromium', () => {
  it("shows a wrapped stdio server's stderr lines as rows of its session (kind filter, search) and its command line on the card", async () => {
    // A real wrapped server: the everything server's stdio entry says "Starting default (STDIO) server..." on stderr.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, '--ui-port', String(scope.ui!.port), '--', process.execPath, everythingEntry, 'stdio'],
      env: { ...process.env, MCPSCOPE_HOME: home, MCPSCOPE_TOKEN: '' } as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'rows-stdio', version: '1.0.0' });
    await client.connect(transport);
    await client.callTool({ name: 'echo', arguments: { message: 'over stdio' } });
    await client.close();
    const session = await scope.waitFor((s) =>
      [...s.sessions.values()].find((x) => x.transport === 'stdio' && x.status === 'closed' && x.clientInfo?.name === 'rows-stdio'),
    );
    const shown = commandLine(process.execPath, [everythingEntry, 'stdio']);
    expect(session.target).toBe(shown);

    // The card shows the command line, not only in a tooltip.
    const card = page.locator(`[data-testid="session-item"][data-session-id="${session.id}"]`);
    await card.waitFor();
    const command = card.getByTestId('session-command');
    await command.waitFor({ timeout: 5000 });
    expect(await command.textContent()).toContain(shown);
    expect(await command.isVisible()).toBe(true);

    await pickSession(page, session.id);
    const stderrRow = page.locator('[data-testid="row"][data-kind="log"]').filter({ hasText: 'Starting default (STDIO) server...' });
    await stderrRow.first().waitFor({ timeout: 5000 });
    expect(await stderrRow.first().textContent()).toContain('stderr');
    await shot('stdio-stderr-rows');

    // The kind filter includes them (stderr lines only) and excludes them (requests).
    const kinds = () => page.getByTestId('row').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
    await page.getByTestId('filter-kind').selectOption('log');
    await expect.poll(kinds).toContain('log');
    expect(new Set(await kinds())).toEqual(new Set(['log']));
    expect(page.url()).toContain('kind=log');
    await page.getByTestId('filter-kind').selectOption('request');
    await expect.poll(kinds).not.toContain('log');
    expect((await kinds()).length).toBeGreaterThan(0);
    await page.getByTestId('filter-kind').selectOption('');

    // Text search matches the line.
    await page.getByTestId('search').fill('default (stdio) server');
    await expect.poll(kinds).toEqual(['log']);
    await page.getByTestId('search').fill('');
    await expect.poll(kinds).toContain('call');

    // Its detail says what it is.
    await stderrRow.first().click();
    const detail = page.getByTestId('detail');
    await detail.waitFor();
    expect(await detail.textContent()).toContain('Starting default (STDIO) server...');
    await shot('stdio-stderr-detail');
    await page.keyboard.press('Escape');
  });

  it('keeps header values whole in the detail pane: no word broken mid-way (text/event-stream, no-transform)', async () => {
    const client = await httpClient('rows-headers');
    await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    const session = await sessionOf('rows-headers');
    await pickSession(page, session.id);
    const row = page.locator('[data-testid="row"][data-method="tools/call"]').first();
    await row.waitFor();
    await row.click();
    await page.getByTestId('detail-tab-http').click();
    const valueOf = (name: string) =>
      page
        .locator('.headers-table tr')
        .filter({ has: page.locator('td.h-name', { hasText: new RegExp(`^${name}$`) }) })
        .locator('td.h-value')
        .first();
    // The client's Accept: application/json, text/event-stream; the server's Cache-Control: no-cache, no-transform.
    await valueOf('accept').waitFor();
    expect(await valueOf('accept').textContent()).toContain('text/event-stream');
    expect(await valueOf('cache-control').textContent()).toContain('no-transform');
    await shot('detail-http-headers');
    const detail = page.getByTestId('detail');
    expect(await brokenWords(detail)).toEqual([]);
    expect(await breakAllIn(detail)).toEqual([]);
    // The raw frames too.
    await page.getByTestId('detail-tab-raw').click();
    expect(await breakAllIn(detail)).toEqual([]);
    await page.keyboard.press('Escape');
  });

  it('does not break words in the compare view', async () => {
    const a = await httpClient('rows-compare-a');
    const b = await httpClient('rows-compare-b');
    await a.callTool({ name: 'echo', arguments: { text: 'capture the difference between the two sessions, '.repeat(8) } });
    await b.callTool({ name: 'echo', arguments: { text: 'capture another difference between these sessions, '.repeat(8) } });
    const left = await sessionOf('rows-compare-a');
    const right = await sessionOf('rows-compare-b');
    const url = new URL(page.url());
    url.search = '';
    url.searchParams.append('compare', left.id);
    url.searchParams.append('compare', right.id);
    await page.goto(url.toString());
    await page.getByTestId('status').filter({ hasText: /live/i }).waitFor();
    const view = page.locator('section.diff').first();
    await view.waitFor();
    await page.locator('.dc-value').first().waitFor();
    await shot('compare-view');
    expect(await brokenWords(view)).toEqual([]);
    expect(await breakAllIn(view)).toEqual([]);
    await gotoUi(page);
  });

  it('keeps the selected row in view when the detail pane opens (following the tail, wide window)', async () => {
    const client = await httpClient('rows-scroll');
    for (let i = 0; i < 60; i += 20)
      await Promise.all(Array.from({ length: 20 }, (_, j) => client.callTool({ name: 'add', arguments: { a: i + j, b: 1 } })));
    const session = await sessionOf('rows-scroll');
    const p = await openUi({ width: 1400, height: 900 });
    try {
      await pickSession(p, session.id);
      await expect.poll(() => p.locator('[data-testid="row"][data-method="tools/call"]').count()).toBeGreaterThan(20);
      // At the tail (following): pick the first row wholly in view, at the top.
      const viewport = p.getByTestId('timeline-viewport');
      await viewport.evaluate((el) => (el.scrollTop = el.scrollHeight));
      await p.waitForTimeout(100);
      const key = (await rowKeysInView(p))[0]!;
      await p.locator(`[data-testid="row"][data-key="${key}"]`).click();
      await p.getByTestId('detail').waitFor();
      // Let the layout settle (the filter bar wraps in the narrower centre column: the list gets shorter).
      await p.waitForTimeout(300);
      await shot('detail-open-wide', p);
      expect(await rowInView(p, key)).toBe(true);
    } finally {
      await p.close();
    }
  });

  it('keeps the selected row in view when the detail pane opens below the list (narrow window)', async () => {
    const session = await sessionOf('rows-scroll');
    const p = await openUi({ width: 1000, height: 800 });
    try {
      await pickSession(p, session.id);
      await expect.poll(() => p.locator('[data-testid="row"][data-method="tools/call"]').count()).toBeGreaterThan(20);
      const viewport = p.getByTestId('timeline-viewport');
      await viewport.evaluate((el) => {
        el.scrollTop = 0;
        el.dispatchEvent(new Event('scroll'));
      });
      await p.waitForTimeout(100);
      // The last row wholly in view, at the bottom: the pane opening below takes half the height.
      const key = (await rowKeysInView(p)).at(-1)!;
      await p.locator(`[data-testid="row"][data-key="${key}"]`).click();
      await p.getByTestId('detail').waitFor();
      await p.waitForTimeout(300);
      await shot('detail-open-narrow', p);
      expect(await rowInView(p, key)).toBe(true);
    } finally {
      await p.close();
    }
  });
});
