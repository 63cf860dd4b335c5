/**
 * The built UI (npm run build) under its Content-Security-Policy, in real Chromium: the policy is
 * sent and enforced, the page raises not one `securitypolicyviolation` while it loads, goes live
 * and shows real traffic (the feed's WebSocket, the API, the detail pane), whichever loopback name
 * it was opened by. Issue 16, finding 7.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { launchBrowser } from '../support/browser.js';

const TOKEN = 'ui-csp-browser-test-token';
let demo: DemoServer;
let scope: Mcpscope;
let browser: Browser;
let client: Client;
let transport: StreamableHTTPClientTransport;

beforeAll(async () => {
  demo = await startDemoServer({ port: 0 });
  scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0, token: TOKEN });
  browser = await launchBrowser();
  client = new Client({ name: 'ui-csp-test', version: '1.0.0' }, { capabilities: {} });
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

type Violation = { directive: string; blocked: string; sample: string };

/** A page that records every CSP violation from its first script on, and the policy it was served. */
async function openUi(url: string): Promise<{ page: Page; csp: string; violations: () => Promise<Violation[]> }> {
  const page = await browser.newPage({ viewport: { width: 1300, height: 850 } });
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: Violation[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.__csp.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample }),
    );
  });
  const res = await page.goto(url);
  expect(res?.status()).toBe(200);
  await page.getByTestId('status').filter({ hasText: /live/i }).waitFor();
  return {
    page,
    csp: (await res!.allHeaders())['content-security-policy'] ?? '',
    violations: () => page.evaluate(() => (window as unknown as { __csp: Violation[] }).__csp),
  };
}

describe('the UI under its Content-Security-Policy', () => {
  for (const name of ['127.0.0.1', 'localhost']) {
    it(`opened as ${name}: strict policy, zero violations, a working live timeline`, async () => {
      const url = `http://${name}:${scope.ui!.port}/?token=${TOKEN}`;
      const { page, csp, violations } = await openUi(url);
      try {
        const directives = new Map(
          csp
            .split(';')
            .map((d) => d.trim().split(/\s+/))
            .map(([k, ...v]) => [k!, v.join(' ')]),
        );
        expect(directives.get('default-src')).toBe("'self'");
        expect(directives.get('script-src')).toBe("'self'");
        expect(directives.get('style-src')).toBe("'self'");
        expect(directives.get('connect-src')).toBe(`'self' ws://${name}:${scope.ui!.port}`);
        expect(directives.get('img-src')).toBe("'self' data:");
        for (const d of ['frame-ancestors', 'base-uri', 'form-action', 'object-src']) expect(directives.get(d), d).toBe("'none'");

        // Live: a call made now appears, answered, and its detail opens.
        const text = `csp-${name}`;
        const calls = page.getByTestId('row').and(page.locator('[data-method="tools/call"]'));
        const keys = () => calls.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
        const before = await keys();
        await client.callTool({ name: 'echo', arguments: { text } });
        await expect.poll(async () => (await keys()).length).toBe(before.length + 1);
        const key = (await keys()).find((k) => !before.includes(k));
        const row = page.locator(`[data-testid="row"][data-key="${key}"]`);
        await expect.poll(() => row.getAttribute('data-status')).toBe('ok');
        await row.click();
        const detail = page.getByTestId('detail');
        await expect.poll(async () => (await detail.textContent()) ?? '').toContain(`"${text}"`);
        expect(await violations()).toEqual([]);

        // And the policy is enforced: an inline script is refused (and reported).
        await page.evaluate(() => {
          const s = document.createElement('script');
          s.textContent = 'window.__inlineRan = true';
          document.body.append(s);
        });
        await expect.poll(async () => (await violations()).length).toBe(1);
        expect((await violations())[0].directive).toBe('script-src-elem');
        expect(await page.evaluate(() => (window as unknown as { __inlineRan?: boolean }).__inlineRan)).toBeUndefined();
      } finally {
        await page.close();
      }
    });
  }

  it('API answers carry nosniff and no-referrer too', async () => {
    const res = await fetch(`${scope.ui!.origin}/api/sessions`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});
