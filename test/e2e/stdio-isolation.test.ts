/**
 * The stdio wrapper's relay shares no event loop with recording (issue 26, finding 1, the stdio
 * half): the built CLI's wrapper serving its own UI (`--ui-port <free port> -- node <server>`)
 * between the official SDK client and a server whose tool's pattern backtracks (a linter on V8's
 * RegExp spun on it; on RE2 it answers at once: the acceptance bounds), and
 * with its recording thread blocked outright (the test-only MCPSCOPE_TEST_RECORDER_BLOCK_MS). The
 * server keeps answering through the wrapper within the acceptance bounds (pings within 100 ms),
 * the wrapper says on stderr what it cannot record, and SIGTERM ends it within the grace period.
 * Requires the built CLI (dist/).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { discoveryPath } from '../../proxy/app/serve/discovery.js';
import { DEFAULT_GRACE_MS } from '../../proxy/app/mcpscope.js';
import { freePort } from '../support/free-port.js';
import { watchText } from '../support/text-watch.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const SERVER = fileURLToPath(new URL('../support/stdio-redos-server.mjs', import.meta.url));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Wrapped {
  client: Client;
  transport: StdioClientTransport;
  home: string;
  port: number;
  stderr(): string;
  /** Resolves with the first match of `re` on the wrapper's stderr. */
  match(re: RegExp, ms?: number): Promise<RegExpExecArray>;
  closed: Promise<void>;
}

async function wrapped(env: Record<string, string> = {}): Promise<Wrapped> {
  const home = mkdtempSync(join(tmpdir(), 'mcpscope-stdio-isolation-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const port = await freePort();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--ui-port', String(port), '--', process.execPath, SERVER],
    env: { ...process.env, MCPSCOPE_HOME: home, MCPSCOPE_TOKEN: '', ...env } as Record<string, string>,
    stderr: 'pipe',
  });
  const err = watchText(transport.stderr!, "the wrapper's stderr");
  const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
  const client = new Client({ name: 'stdio-isolation', version: '1.0.0' });
  await client.connect(transport);
  cleanups.push(() => client.close().catch(() => undefined));
  return { client, transport, home, port, stderr: err.text, match: err.match, closed };
}

/** Pings through the wrapper for `ms`, one after another (50 ms apart); resolves with every round trip. */
async function pingFor(client: Client, ms: number): Promise<number[]> {
  const took: number[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const t = performance.now();
    await client.ping();
    took.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 50)); // the pace of the probe, not a synchronisation
  }
  return took;
}

/** SIGTERMs the wrapper and resolves with how long it took to exit (ms). */
async function terminate(w: Wrapped): Promise<number> {
  const t = performance.now();
  process.kill(w.transport.pid!, 'SIGTERM');
  await w.closed;
  return performance.now() - t;
}

describe('the stdio wrapper relays while its recorder is stuck', () => {
  it('the acceptance bounds with a tool whose pattern backtracks (^(a+)+$): pings within 100 ms, /api/stats within 200 ms, the violation recorded, SIGTERM within the grace period', async () => {
    const w = await wrapped();
    const [, url] = await w.match(/so this one serves it while .* runs: (http:\/\/\S+)/);
    const token = new URL(url).searchParams.get('token')!;
    await w.client.request(
      { method: 'tools/list', params: {} },
      (await import('@modelcontextprotocol/sdk/types.js')).ListToolsResultSchema,
    );
    // The request, not callTool: the SDK client checks structuredContent against the schema itself, with the same RegExp.
    const result = await w.client.request({ method: 'tools/call', params: { name: 'redos', arguments: {} } }, CallToolResultSchema);
    expect(result.structuredContent).toEqual({ s: `${'a'.repeat(40)}!` });

    const stats: number[] = [];
    let polling = true;
    const statsPoll = (async () => {
      while (polling) {
        const t = performance.now();
        const res = await fetch(`http://127.0.0.1:${w.port}/api/stats`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        stats.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const pings = await pingFor(w.client, 2_000);
    polling = false;
    await statsPoll;
    expect(pings.length).toBeGreaterThan(10);
    expect(Math.max(...pings)).toBeLessThan(100);
    expect(stats.length).toBeGreaterThan(5);
    expect(Math.max(...stats)).toBeLessThan(200);
    // The pattern ran (on RE2) and the value broke it: the violation is in the wrapper's own UI.
    const events = (await (
      await fetch(`http://127.0.0.1:${w.port}/api/events`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      type: string;
      code?: string;
      rule?: string;
    }[];
    expect(events.filter((e) => e.type === 'problem' && e.code === 'spec-violation').map((e) => e.rule)).toEqual([
      'tools/structured-content-schema',
    ]);
    expect(await terminate(w)).toBeLessThan(DEFAULT_GRACE_MS);
  });

  it('with its recording thread blocked (test-only MCPSCOPE_TEST_RECORDER_BLOCK_MS): relays, says it once, and SIGTERM does not wait for it', async () => {
    const w = await wrapped({ MCPSCOPE_TEST_RECORDER_BLOCK_MS: '60000' });
    await w.match(/so this one serves it while/);
    const file = discoveryPath(w.port, { MCPSCOPE_HOME: w.home });
    expect(existsSync(file)).toBe(true);
    // The first record after the link blocks the recording thread for a minute.
    const pings = await pingFor(w.client, 6_500);
    expect(Math.max(...pings)).toBeLessThan(100);
    await w.match(/mcpscope: the recorder thread has taken no records for 5 s \(it may be stuck on a message\): the server keeps running/);
    expect(w.stderr().match(/has taken no records/g)).toHaveLength(1);
    // The server ends at once; the recorder thread gets its bound (4 s), then is stopped.
    expect(await terminate(w)).toBeLessThan(DEFAULT_GRACE_MS + 1_000);
    expect(w.stderr()).toContain('mcpscope: the recorder thread did not finish within 4 s; it was stopped');
    expect(w.stderr()).toMatch(/mcpscope: \d+ bytes were relayed but not recorded/);
    // The UI it served is gone, and so is its announcement (removed for the stopped thread).
    expect(existsSync(file)).toBe(false);
  });
});
