/**
 * `--log` as a user runs it (the built CLI, bin/mcpscope.js, real sockets on 127.0.0.1, OS-picked
 * ports): the annotated log on a piped stdout in front of an SDK server while an SDK client makes
 * calls, the same as the UI's text export; `--log-format json`; and the stdio wrapper, whose stdout
 * is the server's — a bare `--log` is refused in plain words before the server starts, and
 * `--log <file>` writes the file while stdout carries only the server's bytes.
 * Requires `npm run build` (npm test runs it first).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { startEverythingServer, type RunningPeer } from '../support/peers.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { freePort } from '../support/free-port.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL('../support/stdio-sdk-server.mjs', import.meta.url));
const TOKEN = 'log-cli-test-token-0123456789';

const children: ChildProcess[] = [];
const dirs: string[] = [];
let demo: DemoServer | undefined;
let everything: RunningPeer | undefined;
afterEach(async () => {
  await everything?.close();
  everything = undefined;
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await new Promise((r) => c.once('exit', r));
    }
  }
  await demo?.close();
  demo = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'mcpscope-log-cli-'));
  dirs.push(d);
  return d;
}

function run(args: string[], env: Record<string, string> = {}) {
  // Colour as a user without NO_COLOR / FORCE_COLOR gets it (the test runner may set them).
  const { NO_COLOR: _n, FORCE_COLOR: _f, ...inherited } = process.env;
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...inherited, MCPSCOPE_TOKEN: '', ...env },
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Resolves once `check()` holds, polling on each output chunk and every 50 ms; rejects with `what` after `ms`. */
async function until<T>(check: () => T | undefined | false, what: () => string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The log's entries (an entry starts with its time; continuation lines are indented) whose session column is `session`. */
function entriesOf(log: string, session: string): string {
  const entries: string[] = [];
  for (const line of log.split('\n')) {
    if (/^\d\d:\d\d:\d\d\.\d{3} /.test(line)) entries.push(`${line}\n`);
    else if (line !== '' && entries.length > 0) entries[entries.length - 1] += `${line}\n`;
  }
  return entries.filter((e) => e.slice(13, 13 + session.length + 1) === `${session} `).join('');
}

async function sdkCalls(proxyUrl: string): Promise<void> {
  const client = new Client({ name: 'log-cli-test', version: '1.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(proxyUrl), {
    requestInit: { headers: { authorization: 'Bearer sk-log-cli-secret-77' } },
  });
  await client.connect(transport);
  const sum = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
  expect(JSON.stringify(sum)).toContain('42');
  await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).resolves.toBeDefined();
  await transport.terminateSession();
  await client.close();
}

describe('mcpscope --log', () => {
  it('prints the annotated log on a piped stdout, the same as the text export', async () => {
    demo = await startDemoServer({ port: 0 });
    const app = run(['--target', demo.url, '--port', '0', '--ui-port', '0', '--token', TOKEN, '--log']);
    const [, proxyUrl] = await until(
      () => /proxy\s+(http:\/\/\S+)/.exec(app.stderr()) ?? undefined,
      () => app.stderr(),
    );
    const [, uiUrl] = await until(
      () => /UI\s+(http:\/\/\S+)/.exec(app.stderr()) ?? undefined,
      () => app.stderr(),
    );
    expect(app.stderr()).toMatch(/log {4}stdout/);
    await sdkCalls(proxyUrl);

    const out = await until(
      () => /=== SESSION (s\d+) closed \(deleted\)/.test(app.stdout()) && app.stdout(),
      () => app.stdout(),
    );
    // Piped: no colour.
    expect(out).not.toContain('\x1b[');
    expect(out).toMatch(/>>> REQUEST POST http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(out).toMatch(/<<< RESPONSE 200 OK \(POST http:\/\/127\.0\.0\.1:\d+\/mcp\) \d+(\.\d+)? ms/);
    expect(out).toMatch(/<<< RESPONSE 202 Accepted/);
    expect(out).toMatch(/#(\d+) C→S request tools\/call add \(id \d+\)/);
    const call = /#(\d+) C→S request tools\/call add/.exec(out)![1];
    expect(out).toMatch(new RegExp(`S→C response to #${call} tools/call add \\(id \\d+\\), \\d+(\\.\\d+)? ms`));
    expect(out).toMatch(/↳ The client calls the tool "add"/);
    expect(out).toContain('authorization: Bearer [redacted]');
    expect(out).not.toContain('sk-log-cli-secret-77');
    expect(out).not.toContain(TOKEN);
    // Nothing but the log on stdout: every line is an entry or one of its indented lines.
    for (const line of out.split('\n').filter(Boolean)) expect(line).toMatch(/^(\d\d:\d\d:\d\d\.\d{3} \S+ +| {20})/);

    // The UI's "Copy as annotated log": the session's export is the live log's lines for it
    // (polled: the GET stream's end may still be on its way to both).
    const session = /=== SESSION (s\d+) closed \(deleted\)/.exec(out)![1];
    const origin = new URL(uiUrl).origin;
    let exported = '';
    const deadline = Date.now() + 10_000;
    for (;;) {
      const res = await fetch(`${origin}/api/sessions/${session}/export?format=text`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(res.headers.get('content-disposition')).toMatch(new RegExp(`filename="mcpscope-${session}-\\d{8}-\\d{6}\\.log"`));
      exported = await res.text();
      if (exported === entriesOf(app.stdout(), session) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(exported).toBe(entriesOf(app.stdout(), session));
    app.child.kill('SIGTERM');
    expect(await app.exit).toBe(0);
  });

  it('prints a legacy HTTP+SSE session: the endpoint event, the 202s, the answers on the stream', async () => {
    everything = await startEverythingServer('sse');
    const app = run(['--target', everything.url, '--port', '0', '--ui-port', '0', '--log']);
    const [, proxyUrl] = await until(
      () => /proxy\s+(http:\/\/\S+)/.exec(app.stderr()) ?? undefined,
      () => app.stderr(),
    );
    expect(proxyUrl).toMatch(/\/sse$/);
    const client = new Client({ name: 'log-cli-legacy', version: '1.0.0' }, { capabilities: {} });
    await client.connect(new SSEClientTransport(new URL(proxyUrl)));
    const echoed = await client.callTool({ name: 'echo', arguments: { message: 'legacy hello' } });
    expect(JSON.stringify(echoed)).toContain('legacy hello');
    await client.close();
    const out = await until(
      () => /S→C response to #\d+ tools\/call echo/.test(app.stdout()) && app.stdout(),
      () => app.stdout(),
    );
    expect(out).toMatch(/=== SESSION s\d+ legacy-sse → http:\/\/127\.0\.0\.1:\d+\/sse/);
    expect(out).toMatch(/>>> REQUEST GET http:\/\/127\.0\.0\.1:\d+\/sse/);
    expect(out).toMatch(/SSE << event: endpoint\n\s+SSE << data: \/message\?sessionId=\S+\n\s+↳ Legacy HTTP\+SSE handshake/);
    expect(out).toMatch(/<<< RESPONSE 202 Accepted \(POST http:\/\/127\.0\.0\.1:\d+\/message\?sessionId=\S+\)/);
    const call = /#(\d+) C→S request tools\/call echo \(id \d+\)/.exec(out);
    expect(call, out).not.toBeNull();
    expect(out).toMatch(new RegExp(`#\\d+ SSE << S→C response to #${call![1]} tools/call echo \\(id \\d+\\), \\d+(\\.\\d+)? ms`));
    app.child.kill('SIGTERM');
    expect(await app.exit).toBe(0);
  });

  it('--log-format json prints one JSON object per line', async () => {
    demo = await startDemoServer({ port: 0 });
    const app = run(['--target', demo.url, '--port', '0', '--ui-port', '0', '--log-format', 'json']);
    const [, proxyUrl] = await until(
      () => /proxy\s+(http:\/\/\S+)/.exec(app.stderr()) ?? undefined,
      () => app.stderr(),
    );
    await sdkCalls(proxyUrl);
    const out = await until(
      () => /"kind":"session"[^\n]*closed \(deleted\)/.test(app.stdout()) && app.stdout(),
      () => app.stdout(),
    );
    const objects = out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const call = objects.find((o) => o.kind === 'message' && o.method === 'tools/call' && o.name === 'add' && o.dir === 'c2s');
    expect(call).toMatchObject({
      session: expect.stringMatching(/^s\d+$/),
      correlation: expect.stringMatching(/^request tools\/call add/),
    });
    expect(call!.message).toMatchObject({ method: 'tools/call', params: { name: 'add', arguments: { a: 20, b: 22 } } });
    const answer = objects.find(
      (o) =>
        o.kind === 'message' &&
        o.dir === 's2c' &&
        typeof o.correlation === 'string' &&
        o.correlation.startsWith(`response to #${call!.seq} tools/call add`),
    );
    expect(answer).toBeDefined();
    expect(typeof answer!.latencyMs).toBe('number');
    expect(objects.some((o) => o.kind === 'response' && o.status === 202)).toBe(true);
    expect(out).not.toContain('sk-log-cli-secret-77');
    app.child.kill('SIGTERM');
    await app.exit;
  });
});

describe('mcpscope --log on a terminal', () => {
  const SCRIPT = '/usr/bin/script';
  /** The CLI on a pseudo-terminal (util-linux `script`): stdout and stderr arrive merged, as a terminal shows them. */
  function onTerminal(args: string[], env: Record<string, string> = {}) {
    const { NO_COLOR: _n, FORCE_COLOR: _f, ...inherited } = process.env;
    const line = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn(SCRIPT, ['-qfec', line, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...inherited, MCPSCOPE_TOKEN: '', ...env },
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    return { child, output: () => out };
  }

  it.skipIf(!existsSync(SCRIPT))('is coloured, and plain with NO_COLOR', async () => {
    demo = await startDemoServer({ port: 0 });
    for (const noColor of [false, true]) {
      const app = onTerminal(['--target', demo.url, '--port', '0', '--ui-port', '0', '--log'], noColor ? { NO_COLOR: '1' } : {});
      const [, proxyUrl] = await until(
        () => /proxy\s+(http:\/\/\S+)/.exec(app.output()) ?? undefined,
        () => app.output(),
      );
      await sdkCalls(proxyUrl);
      const out = await until(
        () => /SESSION[^\n]* s\d+ closed/.test(app.output().replace(/\x1b\[[0-9;]*m/g, '')) && app.output(),
        () => app.output(),
      );
      if (noColor) expect(out).not.toContain('\x1b[');
      else {
        expect(out).toContain('\x1b[1;34m>>> REQUEST POST');
        expect(out).toMatch(/\x1b\[1;32m<<< RESPONSE 200 OK\x1b\[0m/);
      }
      expect(out).toMatch(/C→S (\x1b\[0m)?request tools\/call add/);
      app.child.kill('SIGKILL');
      await new Promise((r) => app.child.once('exit', r));
    }
  });
});

describe('--log /dev/stderr', () => {
  const SCRIPT = '/usr/bin/script';

  it.skipIf(!existsSync(SCRIPT))('writes the log to the terminal stderr is: a terminal is not a file mcpscope keeps', async () => {
    demo = await startDemoServer({ port: 0 });
    const { NO_COLOR: _n, FORCE_COLOR: _f, ...inherited } = process.env;
    const line = [process.execPath, BIN, '--target', demo.url, '--port', '0', '--ui-port', '0', '--log', '/dev/stderr']
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    // stdout, stderr and stdin on a pseudo-terminal (util-linux `script`).
    const child = spawn(SCRIPT, ['-qfec', line, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...inherited, MCPSCOPE_TOKEN: '' },
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const [, proxyUrl] = await until(
      () => /proxy\s+(http:\/\/\S+)/.exec(out) ?? undefined,
      () => out,
    );
    expect(out).toMatch(/log\s+\/dev\/stderr/);
    await sdkCalls(proxyUrl);
    await until(
      () => /SESSION[^\n]* s\d+ closed/.test(out),
      () => out,
    );
    expect(out).toMatch(/C→S request tools\/call add/);
    expect(out).not.toContain('will not write');
  });

  it('refuses it in plain words when stderr is a pipe or a socket (it was called a symbolic link)', async () => {
    // Node's spawn gives a child a socket pair for each 'pipe' (as a Node client such as Claude Code gives a server).
    for (const args of [
      ['--target', 'http://127.0.0.1:9/mcp', '--port', '0', '--ui-port', '0', '--log', '/dev/stderr'],
      ['--log', '/dev/stderr', '--', process.execPath, '-e', ''],
    ]) {
      const app = run(args, { MCPSCOPE_HOME: tempDir() });
      expect(await app.exit).toBe(2);
      expect(app.stderr()).toMatch(
        /^mcpscope: will not write to the log file "\/dev\/stderr": it leads to a (pipe|socket), not a file or a terminal — give a file, or a terminal such as \/dev\/tty\n$/,
      );
    }
  });
});

describe('the stdio wrapper with --log', () => {
  it('refuses a bare --log in plain words, before starting the server', async () => {
    const dir = tempDir();
    const marker = join(dir, 'started');
    const app = run(['--log', '--', process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`], {
      MCPSCOPE_HOME: dir,
    });
    expect(await app.exit).toBe(2);
    expect(app.stderr()).toMatch(
      /stdout is the server's JSON-RPC channel .* give a file, e\.g\. mcpscope --log mcpscope\.log -- <command>/,
    );
    expect(app.stdout()).toBe('');
    expect(existsSync(marker)).toBe(false);
  });

  it('with --log <file> writes the annotated log to the file, and stdout carries only the server', async () => {
    const dir = tempDir();
    const logFile = join(dir, 'wrapper.log');
    const uiPort = await freePort();
    const app = run(['--ui-port', String(uiPort), '--log', logFile, '--', process.execPath, STDIO_SERVER], { MCPSCOPE_HOME: dir });
    await until(
      () => app.stderr().includes('ready'),
      () => app.stderr(),
    );
    const send = (m: unknown) => app.child.stdin!.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-client', version: '0.1' } },
    });
    await until(
      () => app.stdout().includes('"id":1'),
      () => app.stdout(),
    );
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello log' } } });
    await until(
      () => app.stdout().includes('echo: hello log'),
      () => app.stdout(),
    );
    app.child.stdin!.end();
    expect(await app.exit).toBe(0);

    // stdout: the server's JSON-RPC lines, nothing else.
    const lines = app.stdout().split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(JSON.parse(l)).toMatchObject({ jsonrpc: '2.0' });

    expect(statSync(logFile).mode & 0o777).toBe(0o600);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toMatch(/=== SESSION s1 stdio → /);
    expect(log).toMatch(/#\d+ C→S request initialize \(id 1\)/);
    const call = /#(\d+) C→S request tools\/call echo \(id 2\)/.exec(log);
    expect(call, log).not.toBeNull();
    expect(log).toMatch(new RegExp(`#\\d+ S→C response to #${call![1]} tools/call echo \\(id 2\\), \\d+(\\.\\d+)? ms`));
    expect(log).toContain('"text": "echo: hello log"');
    expect(log).toMatch(/stderr: ready/);
    expect(log).toMatch(/=== SESSION s1 closed \(process-exited\)/);
  });
});
