/**
 * Fixtures in the UI, in a real headless Chromium (Debian's package, driven by playwright-core),
 * on real traffic: two SDK clients talk to the demo server through the proxy.
 *
 * - the header's Export menu downloads the selected session as a fixture (and everything as HAR),
 *   and copies it as the annotated log (`format=text`) to the clipboard;
 * - a capture dropped on the page (or picked with "Open…") is imported as a new session, which
 *   appears in the session list and is selected; a file that is not a capture says why;
 * - compare mode aligns the two sessions' calls and shows the echo whose argument changed, the
 *   tools/list drift, the call only one session made — and finds nothing to report between a
 *   session and its own exported-and-reimported fixture.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { launchBrowser } from '../support/browser.js';

const TOKEN = 'ui-fixtures-browser-token';
let demo: DemoServer;
let scope: Mcpscope;
let browser: Browser;
let context: BrowserContext;
let page: Page;

/** Session ids as the page shows them. */
let before = '';
let after = '';
/** The fixture the export menu downloaded (session `before`). */
let fixtureText = '';
/** The session the dropped fixture became. */
let imported = '';

async function runClient(name: string, script: (c: Client) => Promise<void>): Promise<void> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
  try {
    await script(client);
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
}

const sessionItems = (p: Page) => p.getByTestId('session-item');

async function sessionIdOf(clientName: string): Promise<string> {
  const item = sessionItems(page).filter({ hasText: clientName }).first();
  await item.waitFor();
  return (await item.getAttribute('data-session-id')) ?? '';
}

async function sessionIds(): Promise<string[]> {
  return (await sessionItems(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-session-id') ?? ''))).filter((id) => id !== '');
}

/** Drops a file on the page the way a browser does: dragenter, dragover, drop, with a DataTransfer holding it. */
async function dropFile(name: string, text: string, type = 'application/json'): Promise<void> {
  const dataTransfer = await page.evaluateHandle(
    ([n, t, ty]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], n, { type: ty }));
      return dt;
    },
    [name, text, type] as const,
  );
  await page.dispatchEvent('main', 'dragenter', { dataTransfer });
  await page.dispatchEvent('main', 'dragover', { dataTransfer });
  await page.getByTestId('drop-overlay').filter({ hasText: 'Drop a capture to open it' }).waitFor();
  await page.dispatchEvent('main', 'drop', { dataTransfer });
  await page.getByTestId('drop-overlay').waitFor({ state: 'detached' });
}

beforeAll(async () => {
  demo = await startDemoServer({ port: 0 });
  scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0, token: TOKEN });
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  await page.goto(scope.ui!.url);
  await page.getByTestId('status').filter({ hasText: /live/i }).waitFor();

  // "Before": list the tools, echo one text.
  await runClient('fixtures-before', async (c) => {
    await c.listTools();
    await c.callTool({ name: 'echo', arguments: { text: 'alpha-before' } });
  });
  // "After": the bonus tool is switched on first (so tools/list differs), then another text.
  await runClient('fixtures-after', async (c) => {
    await c.callTool({ name: 'toggle_bonus_tool', arguments: {} });
    await c.listTools();
    await c.callTool({ name: 'echo', arguments: { text: 'bravo-after' } });
  });
  before = await sessionIdOf('fixtures-before');
  after = await sessionIdOf('fixtures-after');
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await scope?.close();
  await demo?.close();
});

describe('fixtures in the UI (Chromium)', () => {
  it('exports the selected session as a fixture from the Export menu', async () => {
    expect(before).not.toBe('');
    await sessionItems(page)
      .and(page.locator(`[data-session-id="${before}"]`))
      .click();
    await page.getByTestId('export').click();
    const menu = page.getByTestId('export-menu');
    await menu.waitFor();
    expect(await menu.textContent()).toContain(before);
    expect(await page.getByTestId('export-har').getAttribute('href')).toBe(`api/sessions/${before}/export?format=har`);
    expect(await page.getByTestId('export-ndjson').getAttribute('href')).toBe(`api/sessions/${before}/export?format=ndjson`);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-fixture').click()]);
    // The server's content-disposition name, not one the page made up.
    expect(download.suggestedFilename()).toMatch(new RegExp(`^mcpscope-${before}-\\d{8}-\\d{6}\\.json$`));
    fixtureText = await readFile((await download.path())!, 'utf8');
    const fixture = JSON.parse(fixtureText);
    expect(fixture.format).toBe('mcpscope-fixture');
    expect(fixture.version).toBe(1);
    expect(fixture.session.clientInfo.name).toBe('fixtures-before');
    expect(fixtureText).toContain('alpha-before');
    expect(fixtureText).not.toContain('bravo-after');
    expect(fixtureText).not.toContain(TOKEN);
    // The menu closed after the choice.
    await menu.waitFor({ state: 'detached' });
  });

  it('offers HAR and NDJSON (not a fixture) of everything when all sessions are shown', async () => {
    await sessionItems(page).and(page.locator('[data-session-id=""]')).click();
    await page.getByTestId('export').click();
    expect(await page.getByTestId('export-fixture').getAttribute('aria-disabled')).toBe('true');
    expect(await page.getByTestId('export-fixture').getAttribute('href')).toBeNull();
    expect(await page.getByTestId('export-ndjson').getAttribute('href')).toBe('api/export?format=ndjson');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-har').click()]);
    expect(download.suggestedFilename()).toMatch(/^mcpscope-all-\d{8}-\d{6}\.har$/);
    const har = JSON.parse(await readFile((await download.path())!, 'utf8'));
    expect(har.log.version).toBe('1.2');
    const bodies = JSON.stringify(har.log.entries);
    expect(bodies).toContain('alpha-before');
    expect(bodies).toContain('bravo-after');
    // Escape closes the menu.
    await page.getByTestId('export').click();
    await page.getByTestId('export-menu').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('export-menu').waitFor({ state: 'detached' });
  });

  it('copies the selected session as an annotated log (the format=text export) and says so', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(scope.ui!.url).origin });
    await sessionItems(page)
      .and(page.locator(`[data-session-id="${before}"]`))
      .click();
    await page.getByTestId('export').click();
    expect(await page.getByTestId('export-text').getAttribute('href')).toBe(`api/sessions/${before}/export?format=text`);
    await page.getByTestId('copy-annotated-log').click();
    await page.getByTestId('export-menu').waitFor({ state: 'detached' });
    await page
      .getByTestId('export-note')
      .filter({ hasText: /Annotated log copied \(\d+ lines\)/ })
      .waitFor();
    if (process.env.MCPSCOPE_SCREENSHOT) await page.screenshot({ path: process.env.MCPSCOPE_SCREENSHOT });
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const exported = await (await page.request.get(new URL(`/api/sessions/${before}/export?format=text`, scope.ui!.url).toString())).text();
    expect(copied).toBe(exported);
    expect(copied).toMatch(/#\d+ C→S request tools\/call echo \(id \d+\)/);
    expect(copied).toContain('alpha-before');
    expect(copied).not.toContain('bravo-after');
    expect(copied).not.toContain(TOKEN);
  });

  it('imports a fixture dropped on the page as a new session, and selects it', async () => {
    expect(fixtureText).not.toBe('');
    const idsBefore = await sessionIds();
    await dropFile('before-session.json', fixtureText);

    const toast = page.getByTestId('toast').filter({ hasText: 'Opened before-session.json' });
    await toast.waitFor();
    expect(await toast.getAttribute('data-kind')).toBe('ok');
    await expect.poll(async () => (await sessionIds()).length).toBe(idsBefore.length + 1);
    imported = (await sessionIds()).find((id) => !idsBefore.includes(id)) ?? '';
    // The id it had (`s1`) belongs to a live session: the import is renamed, not merged.
    expect(imported).toMatch(new RegExp(`^${before}-i\\d+$`));
    expect(await toast.textContent()).toContain(imported);
    const item = sessionItems(page).and(page.locator(`[data-session-id="${imported}"]`));
    expect(await item.textContent()).toContain('fixtures-before');
    await expect.poll(() => item.getAttribute('aria-selected')).toBe('true');
    // Its calls are on the timeline, with the recorded echo.
    const echo = page.getByTestId('row').and(page.locator('[data-method="tools/call"]')).filter({ hasText: 'echo' }).first();
    await echo.waitFor();
    expect(await echo.getAttribute('data-status')).toBe('ok');
  });

  it('says in plain words why a dropped file is not a capture, and imports nothing', async () => {
    const idsBefore = await sessionIds();
    await dropFile('notes.txt', 'hello, these are my notes', 'text/plain');
    const toast = page.getByTestId('toast').filter({ hasText: 'Could not open notes.txt' });
    await toast.waitFor();
    expect(await toast.getAttribute('data-kind')).toBe('error');
    if (process.env.MCPSCOPE_SCREENSHOT_REFUSED) await page.screenshot({ path: process.env.MCPSCOPE_SCREENSHOT_REFUSED });
    // The server's own explanation.
    expect(await toast.textContent()).toContain('This is not JSON or NDJSON');
    expect(await toast.textContent()).toContain('mcpscope-fixture');
    await toast.getByRole('button', { name: 'Dismiss' }).click();
    await toast.waitFor({ state: 'detached' });
    expect(await sessionIds()).toEqual(idsBefore);
  });

  it('opens a capture with the "Open…" file picker too', async () => {
    const idsBefore = await sessionIds();
    const ndjson = await (await page.request.get(new URL(`/api/sessions/${after}/export?format=ndjson`, scope.ui!.url).toString())).text();
    expect(ndjson.split('\n').length).toBeGreaterThan(5);
    await page
      .getByTestId('import-input')
      .setInputFiles({ name: 'after.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(ndjson) });
    await page.getByTestId('toast').filter({ hasText: 'Opened after.ndjson' }).waitFor();
    await expect.poll(async () => (await sessionIds()).length).toBe(idsBefore.length + 1);
    const id = (await sessionIds()).find((x) => !idsBefore.includes(x))!;
    expect(
      await sessionItems(page)
        .and(page.locator(`[data-session-id="${id}"]`))
        .textContent(),
    ).toContain('fixtures-after');
  });

  it('compares two sessions: the changed echo, the tools/list drift and the call only one made', async () => {
    await page.getByTestId('compare').click();
    const view = page.getByTestId('diff-view');
    await view.waitFor();
    await page.getByTestId('diff-left').selectOption(before);
    await page.getByTestId('diff-right').selectOption(after);
    expect(page.url()).toContain(`compare=${before}&compare=${after}`);

    const echo = page.locator('[data-testid="diff-row"][data-method="tools/call"][data-name="echo"]');
    await echo.waitFor();
    expect(await echo.getAttribute('data-diff')).toBe('changed');
    const echoText = (await echo.textContent()) ?? '';
    expect(echoText).toContain('params.arguments.text');
    expect(echoText).toContain('"alpha-before"');
    expect(echoText).toContain('"bravo-after"');
    expect(echoText).toContain('result.content[0].text');

    const list = page.locator('[data-testid="diff-row"][data-method="tools/list"]');
    expect(await list.getAttribute('data-diff')).toBe('changed');
    const added = list.locator('[data-drift="added"]');
    expect(await added.getAttribute('data-name')).toBe('lucky_number');
    expect(await list.locator('[data-drift]').count()).toBe(1);

    const toggle = page.locator('[data-testid="diff-row"][data-name="toggle_bonus_tool"]');
    expect(await toggle.getAttribute('data-diff')).toBe('only-right');
    // The two clients have different names: initialize differs in clientInfo only.
    const init = page.locator('[data-testid="diff-row"][data-method="initialize"]');
    expect(await init.getAttribute('data-diff')).toBe('changed');
    expect(await init.locator('[data-path]').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))).toEqual([
      'params.clientInfo.name',
    ]);

    // Swapping the sides mirrors the row.
    await page.getByTestId('diff-swap').click();
    await expect.poll(() => toggle.getAttribute('data-diff')).toBe('only-left');
  });

  it('finds no difference between a session and its exported-and-reimported fixture', async () => {
    expect(imported).not.toBe('');
    await page.getByTestId('diff-left').selectOption(before);
    await page.getByTestId('diff-right').selectOption(imported);
    const rows = page.getByTestId('diff-row');
    await expect
      .poll(async () => (await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-method')))).join(','))
      .toBe('initialize,tools/list,tools/call');
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-diff')))).toEqual(['same', 'same', 'same']);
    await page.getByTestId('diff-changes-only').check();
    await page.getByTestId('diff-view').getByText('No differences').waitFor();
  });

  it('opens a call of the comparison in the timeline', async () => {
    await page.getByTestId('diff-changes-only').uncheck();
    await page.getByTestId('diff-left').selectOption(before);
    await page.getByTestId('diff-right').selectOption(after);
    const echo = page.locator('[data-testid="diff-row"][data-name="echo"]');
    await echo.locator('[data-side="B"] button').click();
    await page.getByTestId('diff-view').waitFor({ state: 'detached' });
    const detail = page.getByTestId('detail');
    await detail.waitFor();
    expect(await detail.textContent()).toContain('bravo-after');
    expect(
      await sessionItems(page)
        .and(page.locator(`[data-session-id="${after}"]`))
        .getAttribute('aria-selected'),
    ).toBe('true');
    expect(page.url()).not.toContain('compare=');
  });
});
