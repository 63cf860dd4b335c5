/**
 * Spec violations in a real headless Chromium (issue 19), from real traffic: the official SDK
 * client calls the demo server's `add` through mcpscope once as its inputSchema says ({a: 2, b: 3})
 * and once with a string where a number goes ({a: "2", b: 3}: rule tools/arguments-schema). The
 * invalid call's row has the spec badge and the valid one none; its Spec tab names the rule, links
 * its section of the 2025-11-25 specification, gives the path and what was expected, and marks
 * the argument in the message; "Violations only" leaves that row; the session list counts one
 * violation, whose lint report selects the row. Under `lint: 'strict'` the badge is red (error).
 * Requires `npm run build`.
 *
 * Set MCPSCOPE_UI_SHOTS=<dir> to keep the screenshots (a temp dir otherwise, removed afterwards).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { MessageEvent, ProblemEvent } from '../../proxy/core/model/events.js';
import type { LintMode } from '../../proxy/core/lint/linter.js';
import { launchBrowser } from '../support/browser.js';

const SPEC_URL = 'https://modelcontextprotocol.io/specification/2025-11-25/server/tools#calling-tools';
const KEEP = process.env.MCPSCOPE_UI_SHOTS;
const SHOTS = KEEP ?? mkdtempSync(join(tmpdir(), 'mcpscope-spec-shots-'));

let demo: DemoServer;
let browser: Browser;

beforeAll(async () => {
  demo = await startDemoServer({ port: 0 });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await demo?.close();
  if (!KEEP) rmSync(SHOTS, { recursive: true, force: true });
});

interface Run {
  scope: Mcpscope;
  page: Page;
  sessionId: string;
  /** The seqs of the two add requests. */
  valid: number;
  invalid: number;
  close(): Promise<void>;
}

/** mcpscope in front of the demo server, the SDK client through it (valid and invalid add), and the UI open in Chromium. */
async function run(lint: LintMode): Promise<Run> {
  const scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0, token: `spec-lint-${lint}-token`, lint });
  const client = new Client({ name: `spec-${lint}`, version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
  await client.listTools();
  const ok = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  expect(ok.isError).toBeFalsy();
  expect(ok.structuredContent).toEqual({ sum: 5 });
  // client.request sends it as it is (no client-side check); the server refuses it as a tool error.
  const bad = await client.request({ method: 'tools/call', params: { name: 'add', arguments: { a: '2', b: 3 } } }, CallToolResultSchema);
  expect(bad.isError).toBe(true);
  await scope.settle();

  const calls = await scope.waitFor((s) => {
    const adds = s
      .snapshot()
      .filter((e): e is MessageEvent => e.type === 'message' && e.kind === 'request' && e.method === 'tools/call' && e.name === 'add');
    return adds.length === 2 ? adds : undefined;
  });
  const [valid, invalid] = calls;
  expect((invalid.jsonrpc as { params: { arguments: unknown } }).params.arguments).toEqual({ a: '2', b: 3 });
  // The linter flagged the invalid call, and only it.
  const violations = await scope.waitFor((s) => {
    const v = s.snapshot().filter((e): e is ProblemEvent => e.type === 'problem' && e.code === 'spec-violation');
    return v.length > 0 ? v : undefined;
  });
  expect(violations.map((v) => [v.rule, v.message])).toEqual([['tools/arguments-schema', invalid.seq]]);

  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(scope.ui!.url);
  await page.getByTestId('status').filter({ hasText: /live/i }).waitFor();
  return {
    scope,
    page,
    sessionId: invalid.sessionId,
    valid: valid.seq,
    invalid: invalid.seq,
    async close() {
      await page.close();
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
      await scope.close();
    },
  };
}

const rowOf = (page: Page, seq: number) => page.locator(`[data-testid="row"][data-key="c${seq}"]`);

describe('spec violations in the UI (lint: warn)', () => {
  let r: Run;
  beforeAll(async () => {
    r = await run('warn');
  }, 60_000);
  afterAll(async () => {
    await r?.close();
  });

  it('badges the invalid call and not the valid one', async () => {
    const { page } = r;
    const invalid = rowOf(page, r.invalid);
    await invalid.waitFor();
    const badge = invalid.getByTestId('row-spec');
    await badge.waitFor();
    expect(await badge.textContent()).toBe('spec');
    expect(await badge.getAttribute('data-level')).toBe('warn');
    expect(await badge.getAttribute('data-count')).toBe('1');
    expect(await badge.getAttribute('title')).toContain('tools/arguments-schema');
    expect(await rowOf(page, r.valid).count()).toBe(1);
    expect(await rowOf(page, r.valid).getByTestId('row-spec').count()).toBe(0);
    // Only one row in the whole timeline has one.
    expect(await page.getByTestId('row-spec').count()).toBe(1);
  });

  it('shows the Spec tab: the rule, its section linked, the path, what was expected, and the argument marked in the message', async () => {
    const { page } = r;
    await rowOf(page, r.invalid).click();
    const detail = page.getByTestId('detail');
    await detail.waitFor();
    expect(await detail.getAttribute('data-key')).toBe(`c${r.invalid}`);
    expect(await detail.getByTestId('spec-note').textContent()).toBe('Breaks the MCP specification: tools/arguments-schema');
    await detail.getByTestId('detail-tab-spec').click();
    const tab = detail.getByTestId('spec-tab');
    await tab.waitFor();
    const items = tab.getByTestId('spec-violation');
    expect(await items.count()).toBe(1);
    expect(await items.getAttribute('data-rule')).toBe('tools/arguments-schema');
    expect(await tab.getByTestId('spec-rule').textContent()).toBe('tools/arguments-schema');
    const ref = tab.getByTestId('spec-ref');
    expect(await ref.getAttribute('href')).toBe(SPEC_URL);
    expect(await ref.textContent()).toBe('2025-11-25 server/tools#calling-tools');
    expect(await ref.getAttribute('target')).toBe('_blank');
    expect(await tab.getByTestId('spec-path').textContent()).toBe('/params/arguments/a');
    expect(await tab.getByTestId('spec-expected').textContent()).toBe('a number');
    const hl = tab.getByTestId('jv-hl');
    expect(await hl.count()).toBe(1);
    expect(await hl.getAttribute('data-path')).toBe('/params/arguments/a');
    expect(await hl.textContent()).toBe('"a": "2",');
    await hl.scrollIntoViewIfNeeded();
    expect(await hl.isVisible()).toBe(true);
    // The marked line stands out: a background of its own, unlike its neighbour's.
    const backgrounds = await tab
      .locator('.jv-line')
      .evaluateAll((lines) =>
        lines
          .filter((l) => /^"[ab]": /.test(l.textContent ?? ''))
          .map((l) => [l.textContent, getComputedStyle(l).backgroundColor, l.classList.contains('jv-hl')] as const),
      );
    expect(backgrounds.map(([text, , marked]) => [text, marked])).toEqual([
      ['"a": "2",', true],
      ['"b": 3', false],
    ]);
    expect(backgrounds[0][1]).not.toBe(backgrounds[1][1]);

    const file = join(SHOTS, 'spec-tab.png');
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: file });
    expect(statSync(file).size).toBeGreaterThan(10_000);
  });

  it('"Violations only" leaves exactly the invalid call (spec=1 in the URL)', async () => {
    const { page } = r;
    const rowsBefore = await page.getByTestId('row').count();
    expect(rowsBefore).toBeGreaterThan(2);
    await page.getByTestId('filter-violations').check();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('spec') === '1');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="row"]').length === 1);
    expect(await page.getByTestId('row').getAttribute('data-key')).toBe(`c${r.invalid}`);
    expect(await page.getByTestId('row-count').textContent()).toMatch(/^1 of \d+$/);
    await page.getByTestId('filter-violations').uncheck();
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="row"]').length === n, rowsBefore);
  });

  it('counts "1 spec" in the session list; its lint report counts the rule once and selects the row', async () => {
    const { page } = r;
    // Somewhere else first, so that the report's link is what selects the invalid call.
    await rowOf(page, r.valid).click();
    await page.locator(`[data-testid="detail"][data-key="c${r.valid}"]`).waitFor();
    const count = page.locator(`[data-testid="session-item"][data-session-id="${r.sessionId}"]`).getByTestId('session-spec');
    expect(await count.textContent()).toBe('1 spec');
    await count.click();
    const drawer = page.getByTestId('lint-drawer');
    await drawer.waitFor();
    const report = drawer.getByTestId('lint-report');
    expect(await report.getAttribute('data-session-id')).toBe(r.sessionId);
    expect(await report.getByTestId('lint-total').textContent()).toBe('1 violation of 1 rule');
    const rules = report.getByTestId('lint-rule');
    expect(await rules.count()).toBe(1);
    expect(await rules.getAttribute('data-rule')).toBe('tools/arguments-schema');
    expect(await rules.getAttribute('data-level')).toBe('warn');
    expect(await rules.getByTestId('lint-count').textContent()).toBe('1');
    expect(await rules.getByTestId('lint-ref').getAttribute('href')).toBe(SPEC_URL);
    await page.screenshot({ path: join(SHOTS, 'lint-report.png') });
    const first = rules.getByTestId('lint-first');
    expect(await first.textContent()).toBe(`#${r.invalid}`);
    await first.click();
    await drawer.waitFor({ state: 'detached' });
    await page.locator(`[data-testid="detail"][data-key="c${r.invalid}"]`).waitFor();
    expect(await rowOf(page, r.invalid).getAttribute('aria-selected')).toBe('true');
  });
});

describe('spec violations in the UI (lint: strict)', () => {
  it('makes the badge, the Spec tab and the report red (level error)', async () => {
    const r = await run('strict');
    try {
      const { page } = r;
      const badge = rowOf(page, r.invalid).getByTestId('row-spec');
      await badge.waitFor();
      expect(await badge.getAttribute('data-level')).toBe('error');
      expect(await rowOf(page, r.valid).getByTestId('row-spec').count()).toBe(0);
      // Red, not the warning's amber.
      const colour = await badge.evaluate((el) => getComputedStyle(el).color);
      await rowOf(page, r.invalid).click();
      await page.getByTestId('detail-tab-spec').click();
      expect(await page.getByTestId('spec-violation').getAttribute('data-level')).toBe('error');
      expect(await page.getByTestId('spec-violation').locator('.spec-level').textContent()).toBe('error');
      // The session list's count says error too (red), not the warning's amber.
      const sessionCount = page.locator(`[data-testid="session-item"][data-session-id="${r.sessionId}"]`).getByTestId('session-spec');
      expect(await sessionCount.getAttribute('data-level')).toBe('error');
      const countColour = await sessionCount.evaluate((el) => getComputedStyle(el).color);
      await page.screenshot({ path: join(SHOTS, 'spec-tab-strict.png') });
      const warn = await run('warn');
      try {
        const amber = await rowOf(warn.page, warn.invalid)
          .getByTestId('row-spec')
          .evaluate((el) => getComputedStyle(el).color);
        expect(colour).not.toBe(amber);
        const warnCount = warn.page
          .locator(`[data-testid="session-item"][data-session-id="${warn.sessionId}"]`)
          .getByTestId('session-spec');
        expect(await warnCount.getAttribute('data-level')).toBe('warn');
        expect(countColour).not.toBe(await warnCount.evaluate((el) => getComputedStyle(el).color));
      } finally {
        await warn.close();
      }
    } finally {
      await r.close();
    }
  }, 60_000);
});
