/**
 * The `mcpscope` command as a user runs it (the built CLI, `bin/mcpscope.js`): the embedded demo
 * with no arguments, `--target` in front of a real server, and plain-words errors.
 * Requires `npm run build` (npm test runs it first).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import type { McpscopeEvent } from '../../proxy/core/model/events.js';
import { feedUntil } from '../support/feed.js';
import { freePort } from '../support/free-port.js';
import { SUBCOMMANDS } from '../../proxy/app/cli-options.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));

interface Launched {
  child: ChildProcess;
  proxyUrl: string;
  uiUrl: string;
  stderr: () => string;
}

const children: ChildProcess[] = [];
let demo: DemoServer | undefined;
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await new Promise((r) => c.once('exit', r));
    }
  }
  await demo?.close();
  demo = undefined;
});

function run(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; stderr: () => string; stdout: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MCPSCOPE_TOKEN: '', ...env },
  });
  children.push(child);
  let err = '';
  let out = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, stderr: () => err, stdout: () => out, exit };
}

/** Starts the CLI and waits for the two URLs it prints on stderr. */
function launch(args: string[], env: Record<string, string> = {}): Promise<Launched> {
  const r = run(args, env);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mcpscope did not print its URLs:\n${r.stderr()}`)), 20_000);
    const check = () => {
      const proxy = /proxy\s+(http:\/\/\S+)/.exec(r.stderr());
      const ui = /UI\s+(http:\/\/\S+)/.exec(r.stderr());
      if (proxy && ui) {
        clearTimeout(timer);
        r.child.stderr!.off('data', check);
        resolve({ child: r.child, proxyUrl: proxy[1], uiUrl: ui[1], stderr: r.stderr });
      }
    };
    r.child.stderr!.on('data', check);
    r.child.once('exit', (code) => reject(new Error(`mcpscope exited (${code}) before printing its URLs:\n${r.stderr()}`)));
  });
}

describe('mcpscope CLI', () => {
  it('runs the embedded demo with no arguments: live traffic appears on the feed', async () => {
    const app = await launch(['--port', '0', '--ui-port', '0']);
    expect(app.stderr()).toContain('Demo mode');
    expect(app.uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{16,}$/);
    const events = await feedUntil(app.uiUrl, (ev) =>
      ev.some((e) => e.type === 'message' && e.kind === 'response' && e.method === 'tools/call' && e.name === 'slow_task'),
    );
    const messages = events.filter((e) => e.type === 'message');
    expect(messages.some((m) => m.method === 'notifications/progress' && m.pair !== undefined)).toBe(true);
    expect(events.some((e) => e.type === 'session' && e.session.serverInfo?.name === 'mcpscope-demo')).toBe(true);
    // The page itself is served (built UI) with the token.
    const page = await fetch(app.uiUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    app.child.kill('SIGTERM');
    expect(await new Promise((r) => app.child.once('exit', r))).toBe(0);
  });

  it('proxies --target and records the session', async () => {
    demo = await startDemoServer({ port: 0 });
    const app = await launch(['--target', demo.url, '--port', '0', '--ui-port', '0', '--token', 'cli-test-token-123']);
    expect(app.proxyUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(app.uiUrl).toContain('token=cli-test-token-123');
    const client = new Client({ name: 'cli-test', version: '1' }, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(app.proxyUrl));
    await client.connect(transport);
    const sum = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    expect(JSON.stringify(sum)).toContain('42');
    await transport.terminateSession();
    await client.close();
    const events = await feedUntil(app.uiUrl, (ev) =>
      ev.some((e) => e.type === 'session' && e.session.clientInfo?.name === 'cli-test' && e.session.status === 'closed'),
    );
    const session = events
      .filter((e) => e.type === 'session')
      .map((e) => (e as Extract<McpscopeEvent, { type: 'session' }>).session)
      .find((s) => s.clientInfo?.name === 'cli-test')!;
    const res = await fetch(`${new URL(app.uiUrl).origin}/api/sessions/${session.id}/messages`, {
      headers: { authorization: 'Bearer cli-test-token-123' },
    });
    const messages = (await res.json()) as { method?: string; kind: string }[];
    expect(messages.filter((m) => m.kind === 'request').map((m) => m.method)).toEqual(['initialize', 'tools/call']);
    app.child.kill('SIGINT');
    expect(await new Promise((r) => app.child.once('exit', r))).toBe(0);
  });

  it('proxies several named targets, each on its own port, into one UI', async () => {
    demo = await startDemoServer({ port: 0 });
    const second = await startDemoServer({ port: 0 });
    try {
      const r = run(['--target', `alpha=${demo.url}`, '--target', `beta=${second.url}`, '--port', '0', '--ui-port', '0']);
      const lines = await new Promise<string[]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(r.stderr())), 20_000);
        r.child.stderr!.on('data', () => {
          const found = r.stderr().match(/proxy\s+http:\/\/\S+\s+→\s+\S+\s+\((alpha|beta)\)/g) ?? [];
          if (found.length === 2 && /UI\s+http/.test(r.stderr())) {
            clearTimeout(timer);
            resolve(found);
          }
        });
      });
      expect(lines[0]).toContain(`→  ${demo.url}  (alpha)`);
      expect(lines[1]).toContain(`→  ${second.url}  (beta)`);
      const ports = lines.map((l) => /127\.0\.0\.1:(\d+)/.exec(l)![1]);
      expect(ports[0]).not.toBe(ports[1]);
      r.child.kill('SIGTERM');
      expect(await r.exit).toBe(0);
    } finally {
      await second.close();
    }
  });

  it.runIf(process.platform === 'linux')(
    'lowers every thread but the proxy thread (recorder, store, UI, V8 helpers) by 10 nice levels',
    async () => {
      const app = await launch(['--port', '0', '--ui-port', '0']);
      const pid = app.child.pid!;
      // /proc/<pid>/task/<tid>/stat: the nice value is the 19th field (the 17th after "comm) ").
      const niceOf = (tid: string) => Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
      expect(niceOf(String(pid))).toBe(10);
      const nices = readdirSync(`/proc/${pid}/task`).map(niceOf);
      expect(nices.length).toBeGreaterThan(3);
      // The proxy thread alone kept the priority it was born with.
      expect(nices.filter((n) => n === 0)).toHaveLength(1);
      expect(nices.filter((n) => n !== 0 && n !== 10)).toEqual([]);
    },
  );

  it('never prints the password in a --target URL: not in the banner, not in an error', async () => {
    demo = await startDemoServer({ port: 0 });
    const withUser = demo.url.replace('http://', 'http://alice:CLI-USERINFO-SECRET@');
    const app = await launch(['--target', `${withUser}?api_key=CLI-QUERY-SECRET`, '--port', '0', '--ui-port', '0']);
    expect(app.stderr()).toContain('alice:[redacted]@');
    expect(app.stderr()).not.toContain('CLI-USERINFO-SECRET');
    // The proxy URL keeps the query the client must send (the user copies it); the target it names does not.
    const targetLine = app.stderr().split('→')[1]!.split('\n')[0]!;
    expect(targetLine).toContain('api_key=[redacted]');
    expect(targetLine).not.toContain('CLI-QUERY-SECRET');
    app.child.kill('SIGTERM');
    await new Promise((r) => app.child.once('exit', r));

    const bad = run(['--target', 'ftp://bob:CLI-BAD-SECRET@example.com/']);
    expect(await bad.exit).toBe(2);
    expect(bad.stderr()).toContain('--target must be an http:// or https:// URL');
    expect(bad.stderr()).not.toContain('CLI-BAD-SECRET');
  });

  it('prints help, and refuses bad input in plain words', async () => {
    const help = run(['--help']);
    expect(await help.exit).toBe(0);
    expect(help.stdout()).toContain('mcpscope --target <mcp-url>');

    const bad = run(['--target', 'ftp://example.com']);
    expect(await bad.exit).toBe(2);
    expect(bad.stderr()).toContain('--target must be an http:// or https:// URL');

    const lint = run(['--lint', 'loud']);
    expect(await lint.exit).toBe(2);
    expect(lint.stderr()).toContain('--lint must be off, warn or strict, not "loud"');

    const unknown = run(['--frobnicate']);
    expect(await unknown.exit).toBe(2);
    expect(unknown.stderr()).toMatch(/Unknown option '--frobnicate'/);

    // --max-body is a number (it was taken as NaN), for the proxy and the stdio wrapper alike.
    for (const args of [
      ['--max-body', 'abc', '--target', 'http://127.0.0.1:9/mcp'],
      ['--max-body', '0', '--', process.execPath, '-e', ''],
    ]) {
      const body = run(args);
      expect(await body.exit, args.join(' ')).toBe(2);
      expect(body.stderr()).toContain(`--max-body must be a positive whole number, not "${args[1]}"`);
    }

    // `mcpscope help` and `mcpscope help <subcommand>`.
    const helpWord = run(['help']);
    expect(await helpWord.exit).toBe(0);
    expect(helpWord.stdout()).toBe(help.stdout());
    const helpWrap = run(['help', 'wrap']);
    expect(await helpWrap.exit).toBe(0);
    expect(helpWrap.stdout()).toContain('mcpscope wrap <config.json> [--write]');
    // `mcpscope help <subcommand>` is the subcommand's own --help, for every one of them.
    for (const sub of SUBCOMMANDS) {
      const word = run(['help', sub]);
      const flag = run([sub, '--help']);
      expect(await word.exit, sub).toBe(0);
      expect(await flag.exit, sub).toBe(0);
      expect(word.stdout(), sub).toBe(flag.stdout());
      expect(word.stdout(), sub).toMatch(new RegExp(`^mcpscope ${sub} — .*\n\nUsage\n`));
    }
    const helpNone = run(['help', 'nope']);
    expect(await helpNone.exit).toBe(2);
    expect(helpNone.stderr()).toContain('there is no subcommand "nope"');

    // An explicitly requested port that is taken is an error, not a silent change.
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const taken = run(['--target', 'http://127.0.0.1:9/mcp', '--port', String(port), '--ui-port', '0']);
      expect(await taken.exit).toBe(2);
      expect(taken.stderr()).toContain('already in use');
    } finally {
      blocker.close();
    }
  });

  it('--lint strict records spec violations as errors (the session report says so); --lint off records none', async () => {
    demo = await startDemoServer({ port: 0 });
    const levels: Record<string, unknown> = {};
    for (const mode of ['strict', 'off'] as const) {
      const token = `cli-lint-${mode}-token-0123456789`;
      const app = await launch(['--target', demo.url, '--port', '0', '--ui-port', '0', '--token', token, '--lint', mode]);
      const client = new Client({ name: `cli-lint-${mode}`, version: '1' }, { capabilities: {} });
      const transport = new StreamableHTTPClientTransport(new URL(app.proxyUrl));
      await client.connect(transport);
      await client.listTools();
      // A string where add's inputSchema wants a number: the server answers with a tool error, the linter flags it.
      await client.request({ method: 'tools/call', params: { name: 'add', arguments: { a: '2', b: 3 } } }, CallToolResultSchema);
      await transport.terminateSession();
      await client.close();
      const events = await feedUntil(app.uiUrl, (ev) =>
        ev.some((e) => e.type === 'session' && e.session.clientInfo?.name === `cli-lint-${mode}` && e.session.status === 'closed'),
      );
      const session = events
        .filter((e) => e.type === 'session')
        .map((e) => (e as Extract<McpscopeEvent, { type: 'session' }>).session)
        .find((s) => s.clientInfo?.name === `cli-lint-${mode}`)!;
      const res = await fetch(`${new URL(app.uiUrl).origin}/api/sessions/${session.id}/lint`, {
        headers: { authorization: `Bearer ${token}` },
      });
      levels[mode] = await res.json();
      app.child.kill('SIGINT');
      await new Promise((r) => app.child.once('exit', r));
    }
    expect(levels.strict).toMatchObject({ total: 1, rules: [{ rule: 'tools/arguments-schema', level: 'error', count: 1 }] });
    expect(levels.off).toMatchObject({ total: 0, rules: [] });
  });

  it('says in plain words which default port was busy and which one it uses instead', async () => {
    // The default ports are 6481/6480; a test cannot count on those being free or taken, so it
    // names two of its own as "the defaults" (MCPSCOPE_TEST_DEFAULT_PORTS) and occupies one.
    const defaults = { proxy: await freePort(), ui: await freePort() };
    const env = { MCPSCOPE_TEST_DEFAULT_PORTS: `${defaults.proxy},${defaults.ui}` };
    const portOf = (url: string) => Number(new URL(url).port);
    const occupy = async (port: number) => {
      const blocker = createServer();
      await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r));
      return () => new Promise<void>((r) => blocker.close(() => r()));
    };

    // The proxy's default port is busy: the proxy moves (and says where), the UI stays.
    let release = await occupy(defaults.proxy);
    try {
      const app = await launch(['--target', 'http://127.0.0.1:9/mcp'], env);
      expect(portOf(app.proxyUrl)).not.toBe(defaults.proxy);
      expect(portOf(app.uiUrl)).toBe(defaults.ui);
      expect(app.stderr()).toContain(
        `mcpscope: port ${defaults.proxy} (the default proxy port) is in use, so the proxy listens on a free port instead: ${app.proxyUrl}. Choose one with --port.`,
      );
      expect(app.stderr()).not.toContain('default UI port');
      app.child.kill('SIGINT');
      expect(await new Promise((r) => app.child.once('exit', r))).toBe(0);
    } finally {
      await release();
    }

    // The UI's default port is busy: the UI moves, the proxy stays.
    release = await occupy(defaults.ui);
    try {
      const app = await launch(['--target', 'http://127.0.0.1:9/mcp'], env);
      expect(portOf(app.proxyUrl)).toBe(defaults.proxy);
      expect(portOf(app.uiUrl)).not.toBe(defaults.ui);
      expect(app.stderr()).toContain(
        `mcpscope: port ${defaults.ui} (the default UI port) is in use, so the UI is on port ${portOf(app.uiUrl)} instead. Choose one with --ui-port`,
      );
      expect(app.stderr()).not.toContain('default proxy port');
      app.child.kill('SIGINT');
      expect(await new Promise((r) => app.child.once('exit', r))).toBe(0);
    } finally {
      await release();
    }
  });

  it('says once, in plain words, that the target is not reachable, however many calls fail', async () => {
    const closed = await freePort();
    const app = await launch(['--target', `http://127.0.0.1:${closed}/mcp`, '--port', '0', '--ui-port', '0']);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(app.proxyUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' }),
      });
      expect(res.status).toBe(502);
      await res.arrayBuffer();
    }
    const notice = `mcpscope: http://127.0.0.1:${closed}/mcp is not reachable`;
    await expect.poll(() => app.stderr().includes(notice)).toBe(true);
    expect(app.stderr().split(notice).length - 1).toBe(1);
    app.child.kill('SIGINT');
    expect(await new Promise((r) => app.child.once('exit', r))).toBe(0);
  });

  it('names the --record file in its startup banner', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpscope-cli-record-'));
    try {
      const file = join(dir, 'capture.ndjson');
      const app = await launch(['--target', 'http://127.0.0.1:9/mcp', '--port', '0', '--ui-port', '0', '--record', file]);
      await expect.poll(() => /^ {2}record (\S+)/m.exec(app.stderr())?.[1]).toBe(file);
      // In the banner, after the UI line.
      expect(app.stderr().indexOf('  record ')).toBeGreaterThan(app.stderr().indexOf('  UI     '));
      app.child.kill('SIGINT');
      expect(await new Promise((r) => app.child.once('exit', r))).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
