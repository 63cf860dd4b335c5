/**
 * The last-resort policy in the real CLI (proxy/wire/last-resort.ts; issue 26, finding 14): an
 * exception nothing catches, in a callback of one connection — on the main thread or on the proxy
 * thread — no longer ends every proxied connection. Provoked through the test-only hook
 * (MCPSCOPE_TEST_THROW, a request carrying x-mcpscope-test-throw); SDK clients through the built
 * CLI in front of the demo server; the other client's calls keep being forwarded, the process keeps
 * running, the error is said once on stderr and recorded as a problem event.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import type { McpscopeEvent, ProblemEvent } from '../../proxy/core/model/events.js';
import { TEST_THROW_HEADER } from '../../proxy/wire/last-resort.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const TOKEN = 'last-resort-test-token-0123456789';

let demo: DemoServer | undefined;
const children: ChildProcess[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const c of children.splice(0))
    if (c.exitCode === null && c.signalCode === null) {
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
    }
  await demo?.close();
  demo = undefined;
});

/** The CLI in front of the demo server, with the test hook for `thread`; resolves once it printed its proxy URL. */
async function launch(thread: 'main-thread' | 'proxy-thread') {
  demo = await startDemoServer({ port: 0 });
  const child = spawn(process.execPath, [BIN, '--target', demo.url, '--port', '0', '--ui-port', '0', '--token', TOKEN], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MCPSCOPE_TOKEN: '', MCPSCOPE_TEST_THROW: thread },
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const urls = await new Promise<{ proxy: string; ui: string }>((resolve, reject) => {
    const check = () => {
      const proxy = /proxy\s+(http:\/\/\S+)/.exec(stderr);
      const ui = /UI\s+(http:\/\/\S+)/.exec(stderr);
      if (proxy && ui) resolve({ proxy: proxy[1], ui: new URL(ui[1]).origin });
    };
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`mcpscope exited (${code}) before printing its URLs:\n${stderr}`)));
  });
  return { child, urls, stderr: () => stderr };
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'last-resort-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

/** Polls the UI's events until `pick` finds something (or the deadline passes). */
async function eventually<T>(ui: string, pick: (events: McpscopeEvent[]) => T | undefined): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const events = (await (await fetch(`${ui}/api/events`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as McpscopeEvent[];
    const found = pick(events);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error('not recorded in time');
    await new Promise<void>((r) => setImmediate(r));
  }
}

describe.each(['main-thread', 'proxy-thread'] as const)('an exception in a callback of one connection (%s)', (thread) => {
  it('is said and recorded, and every other call keeps being forwarded', async () => {
    const app = await launch(thread);
    const other = await connect(app.urls.proxy);
    expect(JSON.stringify(await other.callTool({ name: 'add', arguments: { a: 1, b: 2 } }))).toContain('3');

    // The client whose requests throw: its own calls are answered too.
    const faulty = await connect(app.urls.proxy, { [TEST_THROW_HEADER]: '1' });
    const where = thread === 'main-thread' ? "mcpscope's main thread" : "mcpscope's proxy thread";
    const problem = await eventually(app.urls.ui, (events) =>
      events.find((e): e is ProblemEvent => e.type === 'problem' && e.code === 'internal-error'),
    );
    expect(problem.level).toBe('error');
    expect(problem.text).toMatch(
      new RegExp(
        `^an unexpected error in ${where}: Error: test hook: thrown in a callback of exchange \\S+ \\(MCPSCOPE_TEST_THROW=${thread}\\) \\(at .+\\)\\. mcpscope keeps running and forwarding`,
      ),
    );
    for (let i = 0; i < 5; i++)
      expect(JSON.stringify(await other.callTool({ name: 'add', arguments: { a: i, b: 40 } }))).toContain(String(i + 40));
    expect(JSON.stringify(await faulty.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toContain('still here');

    expect(app.child.exitCode).toBeNull();
    const said = app
      .stderr()
      .split('\n')
      .filter((l) => l.includes('an unexpected error in'));
    expect(said.length).toBeGreaterThanOrEqual(1);
    expect(said[0]).toMatch(new RegExp(`^mcpscope: an unexpected error in ${where}: Error: test hook`));
    // Not the restart of a dead proxy thread: nothing was cut off.
    expect(app.stderr()).not.toMatch(/proxy thread failed/);
    const exited = new Promise<number | null>((r) => app.child.once('exit', (code) => r(code)));
    app.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
