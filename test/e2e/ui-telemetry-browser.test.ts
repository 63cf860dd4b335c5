/**
 * The header says how the OTLP export goes (ui/src/components/LiveStats.tsx over /api/stats):
 * spans a real OTLP/HTTP receiver accepted, quietly; then, with the receiver answering 503, the
 * dropped count in amber and the collector's error in its tooltip. Real Chromium, the demo
 * server, an SDK client. The screenshot (in $MCPSCOPE_SCREENSHOTS, else the temp folder) is for a person's look.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { resolveOtlpOptions } from '../../proxy/addons/telemetry/otlp-options.js';
import { launchBrowser } from '../support/browser.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';

/** Where the screenshot goes (a person looks at it; nothing compares it). */
const SHOTS = process.env.MCPSCOPE_SCREENSHOTS ?? tmpdir();

let demo: DemoServer;
let receiver: OtlpReceiver;
let scope: Mcpscope;
let browser: Browser;

beforeAll(async () => {
  demo = await startDemoServer({ port: 0 });
  receiver = await startOtlpReceiver();
  const otlp = resolveOtlpOptions({ url: receiver.url }, { OTEL_BSP_SCHEDULE_DELAY: '20', OTEL_EXPORTER_OTLP_TIMEOUT: '300' });
  scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0, otlp });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await scope?.close();
  await receiver?.close();
  await demo?.close();
});

async function calls(name: string, n: number): Promise<void> {
  const client = new Client({ name, version: '1' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
  for (let i = 0; i < n; i++) await client.callTool({ name: 'echo', arguments: { text: `${name}-${i}` } });
  await client.close();
}

it('shows the spans the collector took, then the dropped ones in amber with its error', async () => {
  await calls('otlp-ui-ok', 3);
  await expect.poll(() => scope.telemetry!.stats().spansExported, { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
  const page = await browser.newPage({ viewport: { width: 1280, height: 400 } });
  await page.goto(scope.ui!.url);
  const note = page.getByTestId('telemetry');
  await note.waitFor();
  expect(await note.textContent()).toMatch(/^OTLP \d+ spans$/);
  expect(await note.getAttribute('class')).toBe('muted');
  expect(await note.getAttribute('title')).toContain(`${receiver.url}/v1/traces`);

  receiver.setMode('unavailable');
  await calls('otlp-ui-down', 3);
  await expect.poll(() => scope.telemetry!.stats().spansDropped, { timeout: 10_000 }).toBeGreaterThan(0);
  await page.reload();
  await note.filter({ hasText: 'dropped' }).waitFor();
  expect(await note.textContent()).toMatch(/^OTLP \d+ spans · \d+ dropped$/);
  expect(await note.getAttribute('class')).toBe('warn-text');
  expect(await note.getAttribute('title')).toMatch(/last error: .+/);
  await page.locator('header').screenshot({ path: join(SHOTS, 'ui-telemetry-header.png') });
});
