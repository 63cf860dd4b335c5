/**
 * `npm run screenshots`: retakes the README's screenshots from the current UI in Debian's
 * Chromium (test/support/browser.ts): docs/images/timeline.png and timeline-dark.png (the demo
 * through the reverse proxy, slow_task selected) and docs/images/forward-oauth.png (an SDK OAuth
 * client through the forward proxy against a strict RFC 8707 authorization server, the token
 * request selected). docs/images/waterfall.png comes from test/e2e/ui-waterfall-browser.test.ts
 * with MCPSCOPE_WRITE_SCREENSHOTS=1. docs/images/breakpoints.png (a held tools/call and a held
 * sampling request in the Paused panel, one being edited) and docs/images/tool-form.png (the
 * Tools panel's form for the demo's `add`, called, with its answer), docs/images/spec-violation.png (the
 * Spec tab of the demo's `add` called with a string), lint-report.png (that session's lint report) and
 * export-menu.png (the Export menu: fixture, HAR, NDJSON, annotated log, "Copy as annotated log"),
 * and docs/images/lint-not-checked.png (a linter note: a 3,000-property outputSchema not checked).
 * The agent view's images (agent-loop.png, agent-context.png) come from a real Claude Code run:
 * scripts/agent-screenshots.ts.
 * Needs `npm run build` (the UI is served from dist/).
 * `npx tsx scripts/screenshots.ts <dir>` writes them to <dir> instead, to compare before replacing.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProxyAgent, fetch as undiciFetch } from 'undici';
import { startDemoServer } from '../proxy/app/demo/demo-server.js';
import { startDemoClient } from '../proxy/app/demo/demo-client.js';
import { startMcpscope } from '../proxy/app/mcpscope.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { launchBrowser } from '../test/support/browser.js';
import { startStrictOAuthWorld } from '../test/support/strict-auth-server.js';
import { startHostileSchemaServer } from '../test/support/hostile-schema-server.js';
import { TestOAuthClient, connectWithOAuth } from '../test/support/oauth-test-client.js';

const images = process.argv[2] ? resolve(process.argv[2]) : fileURLToPath(new URL('../docs/images/', import.meta.url));
mkdirSync(images, { recursive: true });
// Never the user's own ~/.mcpscope (the forward proxy makes a CA there).
process.env.MCPSCOPE_HOME = mkdtempSync(join(tmpdir(), 'mcpscope-screenshots-'));
const browser = await launchBrowser();

// The timeline, light and dark: the demo client's traffic, live.
{
  const demo = await startDemoServer({ port: 0 });
  const scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0 });
  const client = startDemoClient(scope.proxy.url, { log: () => undefined });
  await new Promise((r) => setTimeout(r, 9_000));
  for (const scheme of ['light', 'dark'] as const) {
    const page = await browser.newPage({ viewport: { width: 1500, height: 900 }, colorScheme: scheme });
    await page.goto(scope.ui!.url);
    const row = page.locator('[data-testid="row"][data-method="tools/call"][data-status="ok"]').filter({ hasText: 'slow_task' }).first();
    await row.waitFor();
    await row.scrollIntoViewIfNeeded();
    await row.click();
    await page.waitForTimeout(700);
    await page.screenshot({ path: join(images, scheme === 'light' ? 'timeline.png' : 'timeline-dark.png') });
    await page.close();
  }
  await client.stop();
  await scope.close();
  await demo.close();
}

// OAuth through the forward proxy.
{
  const world = await startStrictOAuthWorld();
  const scope = await startMcpscope({ forward: { port: 0 }, uiPort: 0 });
  const dispatcher = new ProxyAgent({ uri: scope.forwardProxy!.origin, proxyTunnel: false });
  const via = (url: string | URL, init?: RequestInit) =>
    undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
  const client = await connectWithOAuth(world.serverUrl, new TestOAuthClient({ name: 'my agent', browser: via }), {
    clientName: 'my-agent',
    fetchFn: via,
  });
  await client.listTools();
  await client.callTool({ name: 'whoami', arguments: { greeting: 'hello' } });
  await scope.settle();
  const page = await browser.newPage({ viewport: { width: 1400, height: 820 } });
  await page.goto(scope.ui!.url);
  await page.getByTestId('row').first().waitFor();
  await page.getByTestId('row').filter({ hasText: 'POST /token' }).first().click();
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(images, 'forward-oauth.png') });
  await page.close();
  await client.close();
  await scope.close();
  await world.close();
}

// Breakpoints and the tool form (issue 18): held messages in the Paused panel, then the Tools form.
{
  const demo = await startDemoServer({ port: 0 });
  const scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0 });
  const client = new Client({ name: 'screenshot-client', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  await scope.settle();
  // Two held messages, as the proxy thread reports them (the holder only releases them at the end).
  const now = Date.now();
  const holder = { act: (id: string) => scope.paused.released('h', id, 'resumed') };
  const base = { xid: 'screenshot', kind: 'request' as const, rule: 'bp-1', since: now };
  const call = { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text: 'deploy to staging' } } };
  scope.paused.add('h', holder, {
    ...base,
    id: '1',
    dir: 'c2s',
    carrier: 'post-json',
    method: 'tools/call',
    name: 'echo',
    text: JSON.stringify(call),
    expiresAt: now + 272_000,
  });
  const sampling = {
    jsonrpc: '2.0',
    id: 0,
    method: 'sampling/createMessage',
    params: { messages: [{ role: 'user', content: { type: 'text', text: 'Summarize the release notes' } }], maxTokens: 200 },
  };
  scope.paused.add('h', holder, {
    ...base,
    id: '2',
    dir: 's2c',
    carrier: 'post-sse',
    method: 'sampling/createMessage',
    text: JSON.stringify(sampling),
    expiresAt: now + 95_000,
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(scope.ui!.url);
  await page.locator('[data-testid="held-badge"][data-held="2"]').click();
  const first = page.locator('[data-testid="held-card"][data-paused-id="h1"]');
  const editor = first.getByTestId('held-editor');
  await editor.fill(JSON.stringify({ ...call, params: { name: 'echo', arguments: { text: 'deploy to production' } } }, null, 2));
  await page.locator('[data-testid="held-card"][data-paused-id="h2"]').getByTestId('held-respond').click();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(images, 'breakpoints.png') });
  await page.keyboard.press('Escape');
  await page.getByTestId('tools-open').click();
  await page.locator('[data-testid="tool-item"][data-tool="add"]').click();
  const form = page.locator('[data-testid="tool-form"][data-tool="add"]');
  await form.locator('[data-arg="a"]').fill('20');
  await form.locator('[data-arg="b"]').fill('22');
  // Called through POST api/sessions/:id/send: the image shows the form and the tool's answer.
  await form.getByTestId('tool-call').click();
  await page.getByText('20 + 22 = 42').first().waitFor();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(images, 'tool-form.png') });
  await page.close();
  for (const p of scope.paused.list()) scope.paused.released('h', p.id.slice(1), 'resumed');
  await transport.terminateSession().catch(() => undefined);
  await client.close();
  await scope.close();
  await demo.close();
}

// Spec violations: the demo client's `add` with a string argument, its Spec tab; then the session's lint report.
{
  const demo = await startDemoServer({ port: 0 });
  const scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0 });
  // One whole round (the client stopped between rounds: nothing cut off in flight).
  let roundDone!: () => void;
  const round = new Promise<void>((r) => (roundDone = r));
  const client = startDemoClient(scope.proxy.url, { log: () => undefined, onRound: () => roundDone() });
  await round;
  await client.stop();
  await scope.settle();
  const page = await browser.newPage({ viewport: { width: 1500, height: 900 } });
  await page.goto(scope.ui!.url);
  const row = page
    .locator('[data-testid="row"]')
    .filter({ has: page.locator('[data-testid="row-spec"]') })
    .first();
  await row.waitFor();
  await row.scrollIntoViewIfNeeded();
  await row.click();
  await page.locator('[data-testid="detail-tab-spec"]').click();
  await page.locator('[data-testid="spec-violation"]').first().waitFor();
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(images, 'spec-violation.png') });
  await page.locator('[data-testid="session-spec"]').first().click();
  await page.locator('[data-testid="lint-report"]').waitFor();
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(images, 'lint-report.png') });
  // The Export menu, with the annotated log's download and "Copy as annotated log".
  await page.keyboard.press('Escape');
  await page.locator('[data-testid="lint-report"]').waitFor({ state: 'detached' });
  await page.locator('[data-testid="export"]').click();
  await page.locator('[data-testid="export-menu"]').waitFor();
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(images, 'export-menu.png') });
  await page.close();
  await scope.close();
  await demo.close();
}

// A linter note (issue 26): the hostile-schema server's 3,000-property outputSchema, not checked.
{
  const server = await startHostileSchemaServer();
  const scope = await startMcpscope({ target: server.url, port: 0, uiPort: 0 });
  const client = new Client({ name: 'screenshot-client', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(scope.proxy.url)));
  // Plain requests: callTool would check the outputSchemas itself (with a backtracking RegExp).
  await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
  for (const name of ['redos', 'wide', 'fine'])
    await client.request({ method: 'tools/call', params: { name, arguments: {} } }, CallToolResultSchema);
  await scope.settle();
  const page = await browser.newPage({ viewport: { width: 1400, height: 640 } });
  await page.goto(scope.ui!.url);
  await page.getByTestId('row').filter({ hasText: 'wide' }).first().click();
  await page.getByTestId('detail-tab-spec').click();
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(images, 'lint-not-checked.png') });
  await page.close();
  await client.close();
  await scope.close();
  await server.close();
}

// The agent's side of the wire (issue 27): a model turn's Model tab, and the Context view.

await browser.close();
console.log(`screenshots written to ${images}`);
