/**
 * The sessions in a real headless Chromium (Debian's package, driven by playwright-core), fed by
 * real traffic through the reverse proxy to the official SDK's Streamable HTTP server (stateful):
 * two SDK clients whose calls interleave, told apart in the "All sessions" timeline by their
 * session badges (ui/src/components/SessionBadge.tsx) and filtered to one by a badge's click or a
 * typed `session:` term (ui/src/state/filters.ts); and a tools/list POSTed without initialize,
 * refused with HTTP 400 "Server not initialized", counted as failed — not pending — in the session
 * list, its row reading HTTP 400 (proxy/core/model/call-state.ts). Requires `npm run build` (the UI).
 *
 * Set MCPSCOPE_UI_SHOTS=<dir> to keep screenshots of what these tests look at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { SessionInfo } from '../../proxy/core/model/events.js';
import { startSdkServer, type SdkServer } from '../support/tls-peers.js';
import { launchBrowser } from '../support/browser.js';

const SHOTS = process.env.MCPSCOPE_UI_SHOTS;

let upstream: SdkServer;
let scope: Mcpscope;
let browser: Browser;
let page: Page;
const clients: { client: Client; transport: StreamableHTTPClientTransport }[] = [];
let alpha: SessionInfo;
let beta: SessionInfo;
let refused: SessionInfo;

async function shot(name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

async function connect(name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
  clients.push({ client, transport });
  return client;
}

/** The keys of the rows shown (the list is short: every row is rendered). */
const shownKeys = () => page.getByTestId('row').evaluateAll((els) => els.map((e) => e.getAttribute('data-key')!));
/** Each shown row's session badge: its session and its colour class ('' for a row without one). */
const badges = () =>
  page.getByTestId('row').evaluateAll((els) =>
    els.map((e) => {
      const b = e.querySelector('[data-testid="row-session"]');
      return b ? `${b.getAttribute('data-session')} ${[...b.classList].find((c) => c.startsWith('sess-c')) ?? ''}` : '';
    }),
  );

beforeAll(async () => {
  upstream = await startSdkServer();
  scope = await startMcpscope({ target: upstream.url, port: 0, uiPort: 0 });
  const a = await connect('alpha-client');
  const b = await connect('beta-client');
  for (let i = 0; i < 3; i++) {
    await a.callTool({ name: 'add', arguments: { a: i, b: 1 } });
    await b.callTool({ name: 'echo', arguments: { message: `hi ${i}` } });
  }
  // A client that skipped initialize: the SDK's stateful transport answers 400, its error with id null.
  const res = await fetch(scope.proxy.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(res.status).toBe(400);
  await scope.settle();
  const all = [...scope.store.sessions.values()];
  alpha = all.find((s) => s.clientInfo?.name === 'alpha-client')!;
  beta = all.find((s) => s.clientInfo?.name === 'beta-client')!;
  refused = all.find((s) => s.clientInfo === undefined && s.counts.requests === 1)!;
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
  await page.goto(scope.ui!.url);
  await page.getByTestId('status').filter({ hasText: /live/i }).waitFor();
}, 60_000);

afterAll(async () => {
  for (const { client, transport } of clients) {
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
  await browser?.close();
  await scope?.close();
  await upstream?.close();
});

describe('the "All sessions" timeline in Chromium', () => {
  it('badges each row with its session (id, client name, one colour per session) and filters to one by a click or session:', async () => {
    await page.locator(`[data-testid="row-session"][data-session="${refused.id}"]`).first().waitFor();
    const all = await shownKeys();
    const shown = await badges();
    // Every row is badged; the two clients' calls interleave, each session in one colour of its own.
    expect(shown.every((b) => b !== '')).toBe(true);
    const colourOf = new Map<string, Set<string>>();
    for (const b of shown) {
      const [id, colour] = b.split(' ');
      colourOf.set(id, (colourOf.get(id) ?? new Set()).add(colour));
    }
    expect([...colourOf.keys()].sort()).toEqual([alpha.id, beta.id, refused.id].sort());
    for (const set of colourOf.values()) expect(set.size).toBe(1);
    expect(new Set([...colourOf.values()].map((s) => [...s][0])).size).toBe(3);
    const ids = shown.map((b) => b.split(' ')[0]);
    const calls = ids.filter((id) => id !== refused.id);
    expect(calls.some((id, i) => i > 0 && id !== calls[i - 1] && calls.indexOf(id) < i)).toBe(true);
    const first = page.locator(`[data-testid="row-session"][data-session="${alpha.id}"]`).first();
    expect(await first.textContent()).toBe(`${alpha.id}alpha-client`);
    expect(await first.isVisible()).toBe(true);
    // The row keeps its height.
    expect((await page.getByTestId('row').first().boundingBox())!.height).toBe(28);
    await shot('all-sessions');

    // A click on a badge: only that session's rows, still the All sessions view (the column stays).
    await page.locator(`[data-testid="row-session"][data-session="${beta.id}"]`).first().click();
    await expect.poll(badges).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${beta.id} `))]));
    await expect.poll(async () => new Set((await badges()).map((b) => b.split(' ')[0]))).toEqual(new Set([beta.id]));
    expect(await page.getByTestId('search').inputValue()).toBe(`session:${beta.id}`);
    expect(new URL(page.url()).searchParams.get('q')).toBe(`session:${beta.id}`);
    expect(await page.getByTestId('row-count').textContent()).toBe(`${(await shownKeys()).length} of ${all.length}`);
    expect(await page.locator('[data-testid="detail"]').count()).toBe(0);
    await shot('all-sessions-filtered');
    // Again: all sessions.
    await page.locator(`[data-testid="row-session"][data-session="${beta.id}"]`).first().click();
    await expect.poll(shownKeys).toEqual(all);

    // Typed, by the client's name, with text to search in that session.
    await page.getByTestId('search').fill('session:alpha-client tools/call');
    await expect.poll(async () => new Set((await badges()).map((b) => b.split(' ')[0]))).toEqual(new Set([alpha.id]));
    expect(await page.locator('[data-testid="row"][data-method="tools/call"]').count()).toBe(3);
    await page.getByTestId('search').fill('');
    await expect.poll(shownKeys).toEqual(all);

    // A single session's view has no session column.
    await page.locator(`[data-testid="session-item"][data-session-id="${alpha.id}"]`).click();
    await expect.poll(badges).toEqual(expect.arrayContaining(['']));
    expect((await badges()).every((b) => b === '')).toBe(true);
    await page.locator('[data-testid="session-item"][data-session-id=""]').click();
    await expect.poll(shownKeys).toEqual(all);
  });

  it('counts the request refused with HTTP 400 as failed, not pending, and its row reads HTTP 400', async () => {
    const item = page.locator(`[data-testid="session-item"][data-session-id="${refused.id}"]`);
    await item.getByTestId('session-failed').waitFor();
    expect(await item.getByTestId('session-failed').textContent()).toBe('1 failed');
    expect(await item.textContent()).not.toContain('pending');
    expect(await page.locator('[data-testid="session-item"][data-session-id=""]').textContent()).toContain('1 failed');
    const row = page.locator(`[data-testid="row"][data-method="tools/list"]`);
    expect(await row.locator('.c-status').textContent()).toBe('HTTP 400');
    expect(await row.getAttribute('data-status')).toBe('error');
    await shot('refused-failed');
  });
});
