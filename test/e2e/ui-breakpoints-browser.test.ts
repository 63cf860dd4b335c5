/**
 * Breakpoints, the Paused panel and the tool form in a real headless Chromium (issue 18), against
 * a live mcpscope in front of the demo SDK server. Held messages are added to mcpscope's own
 * registry of held messages (`scope.paused.add`, as the proxy thread reports one) with a holder
 * that records what the panel asks of it: the header's count, the countdown, the live check of the
 * editor, "Send edited", "Respond" with its template, and the Breakpoints form all go through the
 * real API and feed. The tool form calls a real tool through `POST api/sessions/:id/send` (skipped,
 * and said so, where this mcpscope has no send API yet).
 *
 * Set MCPSCOPE_UI_SHOTS=<dir> to keep screenshots of what these tests look at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { PausedAction } from '../../proxy/core/rules/breakpoint-types.js';
import { launchBrowser } from '../support/browser.js';

const SHOTS = process.env.MCPSCOPE_UI_SHOTS;

let demo: DemoServer;
let scope: Mcpscope;
let browser: Browser;
let page: Page;
let client: Client;
let transport: StreamableHTTPClientTransport;
let sessionId: string;

async function shot(name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

beforeAll(async () => {
  demo = await startDemoServer({ port: 0 });
  scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0 });
  client = new Client({ name: 'bp-client', version: '1.0.0' }, { capabilities: {} });
  transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  await scope.settle();
  sessionId = [...scope.store.sessions.values()].find((s) => s.clientInfo?.name === 'bp-client')!.id;
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(scope.ui!.url);
  await page.getByTestId('status').filter({ hasText: /live/i }).waitFor();
}, 60_000);

afterAll(async () => {
  await transport?.terminateSession().catch(() => undefined);
  await client?.close().catch(() => undefined);
  await browser?.close();
  await scope?.close();
  await demo?.close();
});

describe('the Paused panel', () => {
  it('counts held messages in the header, and resumes edited, answers and drops them through the API', async () => {
    const actions: { id: string; action: PausedAction }[] = [];
    const holder = {
      act: (id: string, action: PausedAction) => {
        actions.push({ id, action });
        const outcome =
          action.action === 'drop' ? 'dropped' : action.action === 'respond' ? 'responded' : action.message ? 'edited' : 'resumed';
        scope.paused.released('h', id, outcome);
      },
    };
    const now = Date.now();
    const call = { jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'echo', arguments: { text: 'secret plan' } } };
    const sampling = {
      jsonrpc: '2.0',
      id: 7,
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 50 },
    };
    const base = { xid: 'x-test', carrier: 'post-json' as const, kind: 'request' as const, rule: 'bp-1', since: now };
    scope.paused.add('h', holder, {
      ...base,
      id: '1',
      dir: 'c2s',
      method: 'tools/call',
      name: 'echo',
      text: JSON.stringify(call),
      expiresAt: now + 5 * 60_000,
    });
    scope.paused.add('h', holder, {
      ...base,
      id: '2',
      dir: 's2c',
      carrier: 'post-sse',
      method: 'sampling/createMessage',
      text: JSON.stringify(sampling),
      expiresAt: now + 90_000,
    });

    const badge = page.getByTestId('held-badge');
    await page.locator('[data-testid="held-badge"][data-held="2"]').waitFor();
    expect(await badge.textContent()).toContain('2 held');
    await badge.click();
    const cards = page.getByTestId('held-card');
    await cards.nth(1).waitFor();
    expect(await cards.count()).toBe(2);
    const first = page.locator('[data-testid="held-card"][data-paused-id="h1"]');
    // Prefilled with the message as it came (the API's copy), and a countdown to the time limit.
    const editor = first.getByTestId('held-editor');
    expect(JSON.parse(await editor.inputValue())).toEqual(call);
    expect(await first.getByTestId('held-timer').textContent()).toMatch(/resumes in [45]:\d\d/);
    const second = page.locator('[data-testid="held-card"][data-paused-id="h2"]');
    expect(await second.getByTestId('held-timer').textContent()).toMatch(/resumes in 1:[23]\d/);

    // Nothing changed: "Send edited" is off. Broken JSON and non-JSON-RPC are explained in words.
    expect(await first.getByTestId('held-send-edited').isDisabled()).toBe(true);
    await editor.fill('{"jsonrpc": "2.0", "id": 41, "method": ');
    expect(await first.getByTestId('held-editor-problem').textContent()).toMatch(/^Not valid JSON/);
    expect(await first.getByTestId('held-send-edited').isDisabled()).toBe(true);
    await editor.fill('{"jsonrpc": "1.0", "id": 41, "method": "tools/call"}');
    expect(await first.getByTestId('held-editor-problem').textContent()).toBe('it needs "jsonrpc": "2.0"');
    const edited = { ...call, params: { name: 'echo', arguments: { text: 'edited plan' } } };
    await editor.fill(JSON.stringify(edited, null, 2));
    await first.getByTestId('held-editor-problem').waitFor({ state: 'detached' });
    await shot('paused-panel');
    await first.getByTestId('held-send-edited').click();
    await first.waitFor({ state: 'detached' });
    expect(actions[0]).toEqual({ id: '1', action: { action: 'resume', message: edited } });
    await page.locator('[data-testid="held-badge"][data-held="1"]').waitFor();

    // A server's sampling request: "Respond…" offers an answer with role, content and model.
    await second.getByTestId('held-respond').click();
    const answer = second.getByTestId('held-answer');
    const template = JSON.parse(await answer.inputValue());
    expect(template).toMatchObject({ jsonrpc: '2.0', id: 7, result: { role: 'assistant', content: { type: 'text' } } });
    expect(typeof template.result.model).toBe('string');
    await answer.fill(JSON.stringify({ ...template, id: 8 }));
    expect(await second.getByTestId('held-answer-problem').textContent()).toContain("the answer's id must be the request's id");
    expect(await second.getByTestId('held-send-answer').isDisabled()).toBe(true);
    template.result.content.text = 'Hello from the debugger';
    await answer.fill(JSON.stringify(template));
    await second.getByTestId('held-send-answer').click();
    await second.waitFor({ state: 'detached' });
    expect(actions[1]).toEqual({ id: '2', action: { action: 'respond', message: template } });
    await page.locator('[data-testid="held-badge"][data-held="0"]').waitFor();
    expect(await badge.textContent()).toContain('Breakpoints');
    await page.getByTestId('paused-empty').waitFor();
  });

  it('adds a breakpoint for the selected session and removes it', async () => {
    const form = page.getByTestId('breakpoint-form');
    await form.getByTestId('bp-method').fill('tools/call');
    await form.getByTestId('bp-tool').fill('echo');
    await form.getByTestId('bp-session').fill(sessionId);
    await form.getByTestId('bp-once').check();
    await form.getByTestId('bp-add').click();
    const rule = page.getByTestId('breakpoint-rule');
    await rule.waitFor();
    expect(await rule.locator('.bp-text').textContent()).toBe(`client→server tools/call · echo in ${sessionId} (once)`);
    expect(scope.breakpoints.list()).toEqual([
      expect.objectContaining({ match: { dir: 'c2s', method: 'tools/call', tool: 'echo', session: sessionId }, once: true }),
    ]);
    await rule.getByTestId('breakpoint-remove').click();
    await rule.waitFor({ state: 'detached' });
    expect(scope.breakpoints.list()).toEqual([]);
    await page.keyboard.press('Escape');
    await page.getByTestId('paused-panel').waitFor({ state: 'detached' });
  });

  it('a real call held by the proxy: counted, edited in the panel, answered as edited, marked edited in the timeline with the original one click away', async () => {
    const res = await fetch(`${scope.ui!.origin}/api/breakpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${scope.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ match: { dir: 'c2s', method: 'tools/call', tool: 'echo' }, once: true }),
    });
    expect(res.status).toBe(201);
    const call = client.callTool({ name: 'echo', arguments: { text: 'typed by the client' } });
    await page.locator('[data-testid="held-badge"][data-held="1"]').waitFor();
    await page.getByTestId('held-badge').click();
    const card = page.getByTestId('held-card').first();
    const editor = card.getByTestId('held-editor');
    const asHeld = await editor.inputValue();
    expect(asHeld).toContain('typed by the client');
    await editor.fill(asHeld.replace('typed by the client', 'rewritten in the panel'));
    await card.getByTestId('held-send-edited').click();
    expect(((await call) as { content: { text: string }[] }).content[0]!.text).toBe('rewritten in the panel');
    await page.getByTestId('paused-empty').waitFor();
    await page.keyboard.press('Escape');
    const edited = page
      .getByTestId('row')
      .filter({ has: page.getByTestId('row-edited') })
      .first();
    await edited.waitFor();
    await shot('real-hold-edited');
    await edited.click();
    await page.getByText('Original (before edit)').first().click();
    await page.getByText('typed by the client').first().waitFor();
  });

  it('"Break on this" in the detail pane adds a rule for the selected message', async () => {
    const row = page.getByTestId('row').filter({ hasText: 'echo' }).first();
    await row.click();
    await page.getByTestId('break-on-this').click();
    await page.getByTestId('break-on-this').filter({ hasText: 'Breakpoint added' }).waitFor();
    expect(scope.breakpoints.list().map((r) => r.match)).toEqual([{ dir: 'c2s', method: 'tools/call', tool: 'echo' }]);
    for (const r of scope.breakpoints.list()) scope.breakpoints.remove(r.id);
  });
});

describe('the tool form', () => {
  it('lists the session tools and calls one through the send API', async (ctx) => {
    const probe = await fetch(new URL(`api/sessions/${sessionId}/send`, scope.ui!.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; '),
      },
      body: '{}',
    });
    if (probe.status === 404) {
      console.warn('ui-breakpoints-browser: this mcpscope has no POST api/sessions/:id/send yet; the tool form call is not tested');
      ctx.skip();
    }
    await page.getByTestId('tools-open').click();
    const drawer = page.getByTestId('tools-drawer');
    await drawer.getByTestId('tool-item').first().waitFor();
    await drawer.locator('[data-testid="tool-item"][data-tool="add"]').click();
    const form = drawer.locator('[data-testid="tool-form"][data-tool="add"]');
    expect(await form.getByTestId('tool-form-problems').textContent()).toContain('arguments.a is required');
    await form.locator('[data-arg="a"]').fill('2');
    await form.locator('[data-arg="b"]').fill('40');
    await form.getByTestId('tool-call').click();
    const result = form.getByTestId('send-result');
    await result.waitFor();
    await shot('tool-form');
    expect(await result.getAttribute('data-ok')).toBe('true');
    expect(await result.textContent()).toContain('42');
    await form.getByTestId('send-open-row').click();
    await page.locator('[data-testid="detail"]').getByTestId('sent-note').waitFor();
  });
});
