/** The UI says when mcpscope's bounded store has evicted old events. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { launchBrowser } from '../support/browser.js';

let demo: DemoServer;
let scope: Mcpscope;
let browser: Browser;

beforeAll(async () => {
  demo = await startDemoServer({ port: 0 });
  scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0, maxEvents: 60 });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await scope?.close();
  await demo?.close();
});

it('shows how many events the bounded store evicted', async () => {
  const page = await browser.newPage();
  await page.goto(scope.ui!.url);
  // Nothing evicted yet: no note.
  await page.getByTestId('status').filter({ hasText: /live/i }).waitFor();
  expect(await page.getByTestId('evicted').count()).toBe(0);
  for (let round = 0; round < 4; round++) {
    const client = new Client({ name: `evict-${round}`, version: '1' }, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
    await client.connect(transport);
    for (let i = 0; i < 5; i++) await client.callTool({ name: 'echo', arguments: { text: `r${round}-${i}` } });
    await transport.terminateSession();
    await client.close();
  }
  await scope.waitFor((s) => (s.stats().evictedEvents > 0 ? true : undefined));
  await page.reload();
  const note = page.getByTestId('evicted');
  await note.waitFor();
  expect(await note.textContent()).toMatch(/\d[\d,]* evicted/);
});
