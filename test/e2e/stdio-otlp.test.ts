/**
 * OTLP export from the stdio wrapper (`mcpscope --otlp <url> -- <server>`, the built CLI): when no
 * UI runs, the wrapper serves one and that one exports — so wrappers alone, as a desktop client
 * launches them, send spans. Linked to a UI started without --otlp, the wrapper says once that
 * nothing is exported. An official SDK client spawns the wrapper over stdio; a real OTLP/HTTP
 * receiver (test/support/otlp-receiver.ts) takes the spans.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Readable } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startMcpscope } from '../../proxy/app/mcpscope.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { freePort } from '../support/free-port.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL('../support/stdio-sdk-server.mjs', import.meta.url));
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An SDK client that spawns `mcpscope <args> -- node stdio-sdk-server.mjs`; its stderr is collected. */
async function wrapped(args: string[], env: Record<string, string> = {}) {
  const home = mkdtempSync(join(tmpdir(), 'mcpscope-stdio-otlp-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('OTEL_') && e[0] !== 'MCPSCOPE_TOKEN',
    ),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args, '--', process.execPath, STDIO_SERVER],
    env: { ...clean, MCPSCOPE_HOME: home, OTEL_BSP_SCHEDULE_DELAY: '20', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as Readable).setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const client = new Client({ name: 'stdio-otlp-test', version: '1' }, { capabilities: {} });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, stderr: () => stderr };
}

it('a wrapper that serves the UI itself exports the spans of its server', async () => {
  const receiver = await startOtlpReceiver();
  cleanups.push(() => receiver.close());
  const uiPort = await freePort();
  const { client, stderr } = await wrapped(['--ui-port', String(uiPort), '--otlp', receiver.url]);
  const result = await client.callTool({ name: 'echo', arguments: { text: 'traced' } });
  expect(result.content).toEqual([{ type: 'text', text: 'echo: traced' }]);
  const span = await receiver.until((r) => r.spans.find((s) => s.name === 'tools/call echo'));
  expect(span.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'network.transport': 'pipe' });
  expect(stderr()).toContain(`no mcpscope UI was running on port ${uiPort}`);
  expect(stderr()).not.toContain('exports no OpenTelemetry');
});

it('a wrapper joining a UI that does not export says so once, and the calls go on', async () => {
  const receiver = await startOtlpReceiver();
  cleanups.push(() => receiver.close());
  const uiPort = await freePort();
  const token = 'stdio-otlp-shared-ui-token-0123456789';
  const shared = await startMcpscope({ uiPort, token });
  cleanups.push(() => shared.close());
  const { client, stderr } = await wrapped(['--ui-port', String(uiPort), '--token', token, '--otlp', receiver.url]);
  await client.callTool({ name: 'echo', arguments: { text: 'joined' } });
  await shared.waitFor((s) => s.snapshot().some((e) => e.type === 'message' && e.name === 'echo' && e.kind === 'request'));
  await expect.poll(stderr, { timeout: 10_000 }).toContain('exports no OpenTelemetry data: start that one with --otlp');
  expect(stderr().match(/exports no OpenTelemetry/g)).toHaveLength(1);
  expect(receiver.spans).toEqual([]);
});

it('a wrapper serving the UI says once on stderr when the collector cannot be reached, and the calls go on', async () => {
  const dead = `http://127.0.0.1:${await freePort()}`;
  const uiPort = await freePort();
  const { client, stderr } = await wrapped(['--ui-port', String(uiPort), '--otlp', dead], { OTEL_EXPORTER_OTLP_TIMEOUT: '300' });
  for (let i = 0; i < 3; i++) await client.callTool({ name: 'echo', arguments: { text: `lost ${i}` } });
  await expect.poll(stderr, { timeout: 10_000 }).toContain(`mcpscope: cannot send OpenTelemetry data to ${dead}/v1/traces`);
  await client.callTool({ name: 'echo', arguments: { text: 'still fine' } });
  expect(stderr().match(/cannot send OpenTelemetry data/g)).toHaveLength(1);
});
