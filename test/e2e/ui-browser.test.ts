/**
 * The timeline UI in a real headless Chromium (Debian's package, driven by playwright-core),
 * fed by real MCP traffic through the proxy: an SDK client talking to the demo server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { launchBrowser } from '../support/browser.js';

const TOKEN = 'ui-browser-test-token';
let demo: DemoServer;
let scope: Mcpscope;
let browser: Browser;
let page: Page;
let client: Client;
let transport: StreamableHTTPClientTransport;

beforeAll(async () => {
  demo = await startDemoServer({ port: 0 });
  scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0, token: TOKEN });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(scope.ui!.url);
  await page.getByTestId('status').filter({ hasText: /live/i }).waitFor();
  client = new Client({ name: 'ui-browser-test', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    model: 'm',
    content: { type: 'text', text: 'blue' },
  }));
  transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await transport?.terminateSession().catch(() => undefined);
  await client?.close();
  await browser?.close();
  await scope?.close();
  await demo?.close();
});

const rows = (p: Page) => p.getByTestId('row');

describe('timeline UI in Chromium', () => {
  it('shows real traffic live, and strips the token from the address bar', async () => {
    await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    const row = rows(page).and(page.locator('[data-method="tools/call"]')).first();
    await row.waitFor();
    await expect.poll(() => row.getAttribute('data-status')).toBe('ok');
    expect(page.url()).not.toContain(TOKEN);
    await page.getByTestId('session-item').first().waitFor();
  });

  it('shows a long-running call with its progress and latency', async () => {
    await client.callTool({ name: 'slow_task', arguments: { steps: 4, delayMs: 60 } }, undefined, { onprogress: () => undefined });
    const progress = page.getByTestId('row-progress').and(page.locator('[data-progress="4/4"]'));
    await progress.first().waitFor();
    const row = page.locator('[data-testid="row"]', { has: progress.first() });
    expect(await row.getAttribute('data-status')).toBe('ok');
    const latency = await row.getByTestId('row-latency').textContent();
    expect(latency).toMatch(/\d+(\.\d+)?\s*(ms|s)/);
  });

  it('animates only what the compositor can draw alone while the feed is live and a call is pending, and nothing under prefers-reduced-motion', async () => {
    // A paint-triggering animation (box-shadow, background-position) made an idle page with one
    // pending call cost headless Chromium ≈ 25 % of a core; opacity/transform in steps ≈ 8 %.
    const call = client.callTool({ name: 'slow_task', arguments: { steps: 2, delayMs: 400 } }, undefined, { onprogress: () => undefined });
    try {
      await page.locator('.pulse').first().waitFor();
      // Endless animations only: a transition (the progress bar's width, 0.25 s per update) ends.
      const animated = await page.evaluate(() =>
        document
          .getAnimations()
          .filter((a) => a.effect?.getComputedTiming().iterations === Infinity)
          .map((a) => {
            const effect = a.effect as KeyframeEffect;
            const target = effect.target as Element;
            return {
              on: `${target.className}${effect.pseudoElement ?? ''}`,
              properties: [...new Set(effect.getKeyframes().flatMap((k) => Object.keys(k)))],
            };
          }),
      );
      // Both kinds are running: the live dot's ring and the pending row's pulse.
      expect(animated.map((a) => a.on)).toEqual(expect.arrayContaining(['status-dot::after', 'pulse']));
      const bookkeeping = new Set(['offset', 'computedOffset', 'easing', 'composite']);
      const paintTriggering = animated.flatMap((a) =>
        a.properties.filter((p) => !bookkeeping.has(p) && !['opacity', 'transform', 'visibility'].includes(p)).map((p) => `${a.on}: ${p}`),
      );
      expect(paintTriggering).toEqual([]);
      // A user who asks for less motion gets none.
      await page.emulateMedia({ reducedMotion: 'reduce' });
      expect(
        await page.evaluate(() => document.getAnimations().filter((a) => a.effect?.getComputedTiming().iterations === Infinity).length),
      ).toBe(0);
    } finally {
      await page.emulateMedia({ reducedMotion: null });
      await call;
    }
  });

  it('nests a server→client request under the call that caused it', async () => {
    await client.callTool({ name: 'ask_llm', arguments: { question: 'sky colour?' } });
    const nested = rows(page).and(page.locator('[data-method="sampling/createMessage"]')).first();
    await nested.waitFor();
    expect(await nested.getAttribute('data-depth')).toBe('1');
  });

  it('opens the detail pane with the request and response', async () => {
    const row = rows(page).and(page.locator('[data-method="tools/call"]')).first();
    await row.click();
    const detail = page.getByTestId('detail');
    await detail.waitFor();
    await detail.getByTestId('json-view').first().waitFor();
    expect(await detail.textContent()).toContain('tools/call');
  });

  it('sends a large payload as a stub on the feed and loads it in full when opened', async () => {
    const big = `${'x'.repeat(400 * 1024)}END-OF-BIG-PAYLOAD`;
    await client.callTool({ name: 'echo', arguments: { text: big } });
    // On the feed the message is a stub: the browser's store holds no 400 KB string.
    const seq = await scope.waitFor(
      (s) => [...s.sessions.values()].flatMap((x) => s.messages(x.id)).find((m) => m.kind === 'response' && m.size > 400 * 1024)?.pair,
    );
    // Open that row by link (a shared view URL names the selected row).
    const loaded = page.waitForResponse((r) => r.url().includes('/api/messages/'));
    const url = new URL(page.url());
    url.searchParams.set('row', `c${seq}`);
    await page.goto(url.toString());
    const full = await loaded;
    expect(full.status()).toBe(200);
    expect(await full.text()).toContain('END-OF-BIG-PAYLOAD');
    const detail = page.getByTestId('detail');
    await expect
      .poll(async () => (await detail.textContent())?.includes('open this message to load it in full'), { timeout: 15_000 })
      .toBe(false);
    expect(await detail.textContent()).toContain('xxxxxxxx');
    const response = await page.evaluate((n) => {
      const store = (
        window as unknown as {
          __mcpscope: { store: { row(k: string): { response?: { elided?: boolean; jsonrpc: unknown } } | undefined } };
        }
      ).__mcpscope.store;
      const r = store.row(`c${n}`)?.response;
      return r ? { elided: r.elided, length: JSON.stringify(r.jsonrpc).length } : undefined;
    }, seq!);
    expect(response?.elided).toBe(true);
    expect(response!.length).toBeLessThan(1000);
  });

  it('narrows the list with filters and keeps them in the URL', async () => {
    const before = await rows(page).count();
    await page.getByTestId('filter-method').fill('sampling');
    await expect
      .poll(async () => {
        const methods = await rows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-method')));
        return methods.length > 0 && methods.every((m) => m?.includes('sampling'));
      })
      .toBe(true);
    expect(await rows(page).count()).toBeLessThan(before);
    expect(page.url()).toContain('method=sampling');
    await page.getByTestId('filter-method').fill('');
    await expect.poll(() => rows(page).count()).toBeGreaterThanOrEqual(before);
  });

  it('shows plain HTTP (OAuth metadata) as an HTTP row and its origin bucket, labelled legibly', async () => {
    const res = await fetch(`${scope.proxy.origin}/.well-known/oauth-protected-resource/mcp`);
    await res.arrayBuffer();
    const bucket = page.getByTestId('session-http').first();
    await bucket.waitFor();
    // The label spans the item's width (it once sat in the peers grid's 14 px arrow column: "H.").
    const label = bucket.locator('span').first();
    expect(await label.evaluate((el) => el.getBoundingClientRect().width)).toBeGreaterThan(120);
    expect(await label.textContent()).toContain('HTTP traffic to http://127.0.0.1:');
  });

  it('keeps the DOM small (virtualized) after thousands of frames', async () => {
    // 1,400, not 1,500: Node's fetch keeps one abort listener per request on the SDK transport's one
    // AbortSignal until the request is garbage-collected, and past 1,500 (with this file's earlier
    // calls) Node printed ten MaxListenersExceededWarning lines into every `npm test`.
    const CALLS = 1400;
    for (let i = 0; i < CALLS; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => client.callTool({ name: 'echo', arguments: { text: `n${i + j}` } })));
    }
    await expect
      .poll(
        async () =>
          Number(
            ((await page.getByTestId('row-count').textContent()) ?? '')
              .replace(/[^\d ]/g, ' ')
              .trim()
              .split(/\s+/)
              .at(-1),
          ),
        { timeout: 20_000 },
      )
      .toBeGreaterThanOrEqual(CALLS);
    const rendered = await rows(page).count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(150);
    const domSize = await page.evaluate(() => document.getElementsByTagName('*').length);
    expect(domSize).toBeLessThan(5000);
  });

  it('says it is reconnecting when mcpscope goes away, and goes live again when it is back', async () => {
    const uiPort = scope.ui!.port;
    await transport.terminateSession().catch(() => undefined);
    await client.close();
    await scope.close();
    await page
      .getByTestId('status')
      .filter({ hasText: /reconnecting/i })
      .waitFor({ timeout: 15_000 });
    scope = await startMcpscope({ target: demo.url, port: 0, uiPort, token: TOKEN });
    await page.getByTestId('status').filter({ hasText: /live/i }).waitFor({ timeout: 15_000 });
    // Fresh traffic after the restart shows up without a reload.
    client = new Client({ name: 'ui-browser-test-2', version: '1.0.0' }, { capabilities: {} });
    transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
    await client.connect(transport);
    await client.callTool({ name: 'echo', arguments: { text: 'after restart' } });
    await page.getByTestId('session-item').filter({ hasText: 'ui-browser-test-2' }).waitFor({ timeout: 15_000 });
  });
});
