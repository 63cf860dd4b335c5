/**
 * `mcpscope -- <command>`: the stdio wrapper as a desktop client runs it (the built CLI,
 * bin/mcpscope.js, in real processes), reporting to an mcpscope UI started earlier in this test
 * process (found through its discovery file in a temporary MCPSCOPE_HOME), or serving a UI itself.
 * Requires `npm run build` (npm test runs it first).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { startMcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';
import { startUiServer } from '../../proxy/app/serve/ui-server.js';
import { EventStore } from '../../proxy/recorder/store/event-store.js';
import { connectIngest } from '../../proxy/app/stdio/ingest-client.js';
import { encodeBatch } from '../../proxy/wire/capture/wire-codec.js';
import { ingestAuth, ingestProof } from '../../proxy/app/stdio/ingest-control.js';
import { randomBytes } from 'node:crypto';
import { commandLine } from '../../proxy/core/model/command-line.js';
import type { LogEvent, McpscopeEvent, MessageEvent, ProblemEvent, SessionInfo } from '../../proxy/core/model/events.js';
import { everythingEntry } from '../support/peers.js';
import { feedUntil } from '../support/feed.js';
import { freePort } from '../support/free-port.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));

// ---------------------------------------------------------------------------------------------
// A tiny line-based stdio server, written to a temp file. Every byte it writes to stdout is also
// appended to the file named by its first argument, so the test can compare.
//   {"method":"big"}   → a ~1 MB result line (multi-byte text), written in odd pieces
//   {"method":"ping"}  → {"result":{}}
//   {"method":"exit"}  → "bye" on stderr, one last CRLF-terminated line, then exit code 3
// With --banner it first prints a non-JSON line on stdout (the classic stdio mistake) and two
// stderr lines. It says "ready" on stderr once it reads stdin; stdin's end ends it (code 0).
// ---------------------------------------------------------------------------------------------
const SERVER_SCRIPT = `
import { appendFileSync, writeFileSync } from 'node:fs';
const copy = process.argv[2];
writeFileSync(copy, '');
function send(bytes, cb) {
  appendFileSync(copy, bytes);
  process.stdout.write(bytes, cb);
}
if (process.argv.includes('--banner')) {
  send(Buffer.from('Welcome to bad-server v1.0 (listening on stdio)\\n'));
  process.stderr.write('warming up\\nstill warming up\\n');
}
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));
function handle(m) {
  if (m.method === 'big') {
    const text = 'grüße 😀 '.repeat(80000);
    const b = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { text } }) + '\\n');
    send(b.subarray(0, 7));
    send(b.subarray(7, 70001));
    send(b.subarray(70001));
  } else if (m.method === 'ping') {
    send(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }) + '\\n'));
  } else if (m.method === 'exit') {
    process.stderr.write('bye\\n');
    send(Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"exiting"}}\\r\\n'), () => process.exit(3));
  }
}
process.stderr.write('ready\\n');
`;

let home: string;
let scriptPath: string;
let scope: McpscopeCore;
const savedHome = process.env.MCPSCOPE_HOME;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcpscope-stdio-home-'));
  process.env.MCPSCOPE_HOME = home;
  scriptPath = join(home, 'line-server.mjs');
  writeFileSync(scriptPath, SERVER_SCRIPT);
  // The UI "started earlier": no proxy, a UI on an OS-chosen port, announced in MCPSCOPE_HOME.
  scope = await startMcpscope({ uiPort: 0, discoveryFile: true });
});

afterAll(async () => {
  await scope?.close();
  if (savedHome === undefined) delete process.env.MCPSCOPE_HOME;
  else process.env.MCPSCOPE_HOME = savedHome;
  rmSync(home, { recursive: true, force: true });
});

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await new Promise((r) => c.once('exit', r));
    }
  }
});

interface Wrapped {
  child: ChildProcess;
  stdout: () => Buffer;
  stderr: () => string;
  /** Resolves with the exit code once the process has exited and its output was read. */
  closed: Promise<number | null>;
  /** Resolves when stderr matches. */
  stderrMatch(re: RegExp): Promise<RegExpExecArray>;
}

/** Runs `mcpscope <args>` with MCPSCOPE_HOME → `homeDir`. stdout is read only once `readStdout` is called (backpressure). */
function wrapper(args: string[], options: { homeDir?: string; readStdout?: boolean } = {}): Wrapped & { readStdout(): void } {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, MCPSCOPE_HOME: options.homeDir ?? home, MCPSCOPE_TOKEN: '' },
  });
  children.push(child);
  const out: Buffer[] = [];
  let err = '';
  const waiters: { re: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c: string) => {
    err += c;
    for (const w of [...waiters]) {
      const m = w.re.exec(err);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  const readStdout = () => child.stdout!.on('data', (c: Buffer) => out.push(c));
  if (options.readStdout !== false) readStdout();
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    stdout: () => Buffer.concat(out),
    stderr: () => err,
    closed,
    readStdout,
    stderrMatch(re: RegExp) {
      const m = re.exec(err);
      if (m) return Promise.resolve(m);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the wrapper's stderr did not match ${re} within 15 s:\n${err}`)), 15_000);
        waiters.push({
          re,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
        child.once('close', () => reject(new Error(`the wrapper exited before its stderr matched ${re}:\n${err}`)));
      });
    },
  };
}

const send = (w: Wrapped, v: unknown) => w.child.stdin!.write(`${JSON.stringify(v)}\n`);

/** The session of the earlier-started UI whose command line contains `needle`, once `ready` holds for its events. */
function sessionIn(store: EventStore, needle: string): SessionInfo | undefined {
  return [...store.sessions.values()].find((s) => s.transport === 'stdio' && s.target.includes(needle));
}

async function api<T>(path: string, origin = scope.ui!.origin, token = scope.token): Promise<T> {
  const res = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

// ---------------------------------------------------------------------------------------------

describe('mcpscope -- <command> (stdio wrapper)', () => {
  it('gives the official SDK client identical results directly and through the wrapper, and the session shows in the earlier UI', async () => {
    async function exercise(transport: StdioClientTransport) {
      const client = new Client({ name: 'stdio-e2e', version: '1.0.0' });
      await client.connect(transport);
      const server = {
        version: client.getServerVersion(),
        capabilities: client.getServerCapabilities(),
        instructions: client.getInstructions(),
      };
      const tools = await client.listTools();
      const echo = await client.callTool({ name: 'echo', arguments: { message: 'héllo over stdio 😀' } });
      const sum = await client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } });
      const progress: Progress[] = [];
      const long = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, {
        onprogress: (p) => progress.push(p),
      });
      await client.close();
      return { server, tools, echo, sum, long, progress };
    }

    const direct = await exercise(
      new StdioClientTransport({ command: process.execPath, args: [everythingEntry, 'stdio'], stderr: 'pipe' }),
    );

    let wrapperStderr = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, '--ui-port', String(scope.ui!.port), '--', process.execPath, everythingEntry, 'stdio'],
      env: { ...process.env, MCPSCOPE_HOME: home, MCPSCOPE_TOKEN: '' } as Record<string, string>,
      stderr: 'pipe',
    });
    transport.stderr!.on('data', (c: Buffer) => (wrapperStderr += c.toString()));
    const wrapped = await exercise(transport);

    expect(direct.echo).toEqual({ content: [{ type: 'text', text: 'Echo: héllo over stdio 😀' }] });
    expect(JSON.stringify(direct.sum)).toContain('42');
    expect(direct.long).toEqual({ content: [{ type: 'text', text: expect.stringContaining('Long running operation completed') }] });
    // Progress: the server writes its last progress notification and the result back to back, and
    // the SDK client runs notification handlers a microtask late — after a result in the same read
    // has already removed the progress handler. So the last one reaches onprogress or not by the
    // timing of the reads, directly as well as through any relay (the wire carries all three; the UI
    // check below sees them). The first two, 100 ms before the result, always arrive.
    const steps = [
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ];
    for (const run of [direct, wrapped]) {
      expect(run.progress.length).toBeGreaterThanOrEqual(2);
      expect(run.progress).toEqual(steps.slice(0, run.progress.length));
    }
    expect({ ...wrapped, progress: wrapped.progress.slice(0, 2) }).toEqual({ ...direct, progress: direct.progress.slice(0, 2) });

    // The wrapper said where it records (one line) and relayed the server's stderr.
    const shown = commandLine(process.execPath, [everythingEntry, 'stdio']);
    expect(wrapperStderr).toContain(`mcpscope: recording ${shown} in the mcpscope UI at http://127.0.0.1:${scope.ui!.port}/\n`);
    expect(wrapperStderr).toContain('Starting default (STDIO) server...');

    // The earlier-started UI lists the process as a stdio session, closed when it exited.
    const closed = await scope.waitFor((s) => {
      const session = sessionIn(s, everythingEntry);
      return session?.status === 'closed' ? session : undefined;
    });
    const sessions = await api<SessionInfo[]>('/api/sessions');
    const session = sessions.find((s) => s.id === closed.id)!;
    expect(session).toMatchObject({
      transport: 'stdio',
      target: shown,
      serverInfo: { name: 'mcp-servers/everything' },
      clientInfo: { name: 'stdio-e2e', version: '1.0.0' },
      closeReason: 'process-exited',
      counts: { pending: 0, exchanges: 0 },
    });
    const messages = await api<MessageEvent[]>(`/api/sessions/${session.id}/messages`);
    expect(messages.every((m) => m.carrier === 'stdio' && m.exchangeId === undefined)).toBe(true);
    const requests = messages.filter((m) => m.kind === 'request' && m.dir === 'c2s');
    expect(requests.map((m) => m.method)).toEqual(['initialize', 'tools/list', 'tools/call', 'tools/call', 'tools/call']);
    // Every request is answered, and each answer points at its request.
    for (const r of requests) {
      const answers = messages.filter((m) => (m.kind === 'response' || m.kind === 'error') && m.pair === r.seq);
      expect(answers, `answer to ${r.method} #${r.seq}`).toHaveLength(1);
      expect(answers[0].dir).toBe('s2c');
    }
    const longCall = requests.find((m) => m.name === 'trigger-long-running-operation')!;
    const progress = messages.filter((m) => m.method === 'notifications/progress');
    expect(progress).toHaveLength(3);
    expect(progress.every((p) => p.pair === longCall.seq && p.seq > longCall.seq)).toBe(true);
    expect(messages.find((m) => m.kind === 'response' && m.name === 'echo')?.jsonrpc).toMatchObject({ result: direct.echo });
    // The server's stderr line is a log event of the session.
    const events = await api<McpscopeEvent[]>(`/api/sessions/${session.id}/events`);
    expect(events.some((e) => e.type === 'log' && e.source === 'stderr' && e.text === 'Starting default (STDIO) server...')).toBe(true);
  });

  it("carries exactly the server's bytes on stdout (a 1 MB line, under backpressure) and exits with its code", async () => {
    const copy = join(home, 'bytes-exact.out');
    const w = wrapper(['--ui-port', String(scope.ui!.port), '--', process.execPath, scriptPath, copy, 'exact-test'], { readStdout: false });
    await w.stderrMatch(/ready/);
    // Nobody reads the wrapper's stdout yet: the 1 MB answer backs up through the wrapper into the server.
    send(w, { jsonrpc: '2.0', id: 1, method: 'big' });
    send(w, { jsonrpc: '2.0', id: 2, method: 'exit' });
    await w.stderrMatch(/bye/);
    w.readStdout();
    expect(await w.closed).toBe(3);

    const written = readFileSync(copy);
    expect(written.length).toBeGreaterThan(1_000_000);
    expect(w.stdout().length).toBe(written.length);
    expect(w.stdout().equals(written)).toBe(true);

    // Recorded: the big answer paired with its request, the exit code, and the failure it means.
    const session = await scope.waitFor((s) => {
      const x = sessionIn(s, 'exact-test');
      return x?.status === 'closed' ? x : undefined;
    });
    const messages = scope.store.messages(session.id);
    expect(messages.map((m) => [m.dir, m.kind, m.method])).toEqual([
      ['c2s', 'request', 'big'],
      ['c2s', 'request', 'exit'],
      ['s2c', 'response', 'big'],
      ['s2c', 'notification', 'notifications/message'],
    ]);
    expect(messages[2].pair).toBe(messages[0].seq);
    expect(messages[2].size).toBe(written.indexOf(0x0a));
    const events = scope.store.sessionEvents(session.id);
    expect(events.filter((e): e is LogEvent => e.type === 'log').map((e) => e.text)).toContain(
      'The server process exited with code 3. 1 request was still waiting for an answer.',
    );
    expect(events.some((e) => e.type === 'problem' && e.code === 'process-failed')).toBe(true);
  });

  it('shows stderr lines as log events (still passing them to its stderr) and a stdout banner as a problem', async () => {
    const w = wrapper(['--ui-port', String(scope.ui!.port), '--', process.execPath, scriptPath, join(home, 'banner.out'), '--banner']);
    await w.stderrMatch(/ready/);
    send(w, { jsonrpc: '2.0', id: 1, method: 'ping' });
    w.child.stdin!.end();
    expect(await w.closed).toBe(0);
    // The bad line was relayed untouched — the client sees what the server wrote.
    expect(w.stdout().toString()).toBe('Welcome to bad-server v1.0 (listening on stdio)\n{"jsonrpc":"2.0","id":1,"result":{}}\n');
    expect(w.stderr()).toContain('warming up\nstill warming up\n');
    expect(w.stderr()).toContain('ready\n');

    const session = await scope.waitFor((s) => {
      const x = sessionIn(s, '--banner');
      return x?.status === 'closed' ? x : undefined;
    });
    const events = scope.store.sessionEvents(session.id);
    const stderrLines = events.filter((e): e is LogEvent => e.type === 'log' && e.source === 'stderr').map((e) => e.text);
    expect(stderrLines).toEqual(['warming up', 'still warming up', 'ready']);
    const problems = events.filter((e): e is ProblemEvent => e.type === 'problem');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'invalid-json', raw: 'Welcome to bad-server v1.0 (listening on stdio)' });
    expect(problems[0].text).toMatch(/stdout is reserved for JSON-RPC: a banner or log line printed there breaks clients/);
    const [ping, pong] = scope.store.messages(session.id);
    expect(pong.pair).toBe(ping.seq);
  });

  it('with no UI on the port, serves one itself while it lives (announced in MCPSCOPE_HOME)', async () => {
    const ownHome = mkdtempSync(join(tmpdir(), 'mcpscope-stdio-own-'));
    try {
      const port = await freePort();
      const w = wrapper(['--ui-port', String(port), '--', process.execPath, scriptPath, join(ownHome, 'own.out'), 'own-ui-test'], {
        homeDir: ownHome,
      });
      const [, url] = await w.stderrMatch(/no mcpscope UI was running on port \d+, so this one serves it while .* runs: (http:\/\/\S+)/);
      expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/\\?token=`));
      const token = new URL(url).searchParams.get('token')!;
      // Announced for the next wrappers: token and pid, readable by the user only.
      const file = join(ownHome, `ui-${port}.json`);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ token, pid: w.child.pid, url: `http://127.0.0.1:${port}/` });
      if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);

      await w.stderrMatch(/ready/);
      send(w, { jsonrpc: '2.0', id: 'a', method: 'ping' });
      const events = await feedUntil(url, (ev) => ev.some((e) => e.type === 'message' && e.kind === 'response' && e.id === 'a'));
      const sessions = await api<SessionInfo[]>('/api/sessions', `http://127.0.0.1:${port}`, token);
      expect(sessions).toHaveLength(1);
      expect(sessions[0]).toMatchObject({ transport: 'stdio', status: 'open' });
      expect(sessions[0].target).toContain('own-ui-test');
      const response = events.find((e): e is MessageEvent => e.type === 'message' && e.kind === 'response')!;
      expect(response.pair).toBe(events.find((e) => e.type === 'message' && e.kind === 'request')!.seq);

      w.child.stdin!.end();
      expect(await w.closed).toBe(0);
      // Gone with it: the UI and its announcement.
      expect(existsSync(file)).toBe(false);
      expect((await connectIngest('127.0.0.1', port, token)).ok).toBe(false);
    } finally {
      rmSync(ownHome, { recursive: true, force: true });
    }
  });

  it('takes over the port when the UI it reports to goes away, and keeps recording there', async () => {
    const otherHome = mkdtempSync(join(tmpdir(), 'mcpscope-stdio-takeover-'));
    process.env.MCPSCOPE_HOME = otherHome;
    const first = await startMcpscope({ uiPort: 0, discoveryFile: true });
    process.env.MCPSCOPE_HOME = home;
    try {
      const port = first.ui!.port;
      const w = wrapper(['--ui-port', String(port), '--', process.execPath, scriptPath, join(otherHome, 'takeover.out'), 'takeover-test'], {
        homeDir: otherHome,
      });
      await w.stderrMatch(/recording .* in the mcpscope UI at/);
      await w.stderrMatch(/ready/);
      send(w, { jsonrpc: '2.0', id: 1, method: 'ping' });
      await first.waitFor((s) => s.snapshot().some((e) => e.type === 'message' && e.kind === 'response'));
      await first.close();

      // The wrapper reconnects, finds nothing, and serves the UI on the same port with the same token.
      const [, url] = await w.stderrMatch(/so this one serves it while .* runs: (http:\/\/\S+)/);
      expect(new URL(url).port).toBe(String(port));
      expect(new URL(url).searchParams.get('token')).toBe(first.token);
      send(w, { jsonrpc: '2.0', id: 2, method: 'ping' });
      const events = await feedUntil(url, (ev) => ev.some((e) => e.type === 'message' && e.kind === 'response' && e.id === 2));
      const logs = events.filter((e): e is LogEvent => e.type === 'log').map((e) => e.text);
      expect(logs.some((t) => /started recording this process after it had started/.test(t))).toBe(true);
      w.child.stdin!.end();
      expect(await w.closed).toBe(0);
    } finally {
      await first.close();
      rmSync(otherHome, { recursive: true, force: true });
    }
  });

  it('forwards SIGTERM to the server and exits 128 + 15 when it dies of it', async () => {
    const w = wrapper(['--ui-port', String(scope.ui!.port), '--', process.execPath, scriptPath, join(home, 'signal.out'), 'signal-test']);
    await w.stderrMatch(/ready/);
    w.child.kill('SIGTERM');
    expect(await w.closed).toBe(143);
    const session = await scope.waitFor((s) => {
      const x = sessionIn(s, 'signal-test');
      return x?.status === 'closed' ? x : undefined;
    });
    expect(
      scope.store.sessionEvents(session.id).some((e) => e.type === 'log' && e.text === 'The server process was ended by SIGTERM.'),
    ).toBe(true);
  });

  it('exits 127 with a plain-words error when the command does not exist, writing nothing to stdout', async () => {
    const w = wrapper(['--ui-port', String(scope.ui!.port), '--', 'mcpscope-no-such-command-xyz', '--flag']);
    expect(await w.closed).toBe(127);
    expect(w.stderr()).toContain('mcpscope: cannot start "mcpscope-no-such-command-xyz": no such command');
    expect(w.stdout().length).toBe(0);
  });

  it('takes the server command without "--", as launchers store it (gemini mcp add, the Inspector), and with extra ones', async () => {
    for (const args of [
      // `gemini mcp add se mcpscope --ui-port <p> -- node server.js stdio` stores no "--".
      ['--ui-port', String(scope.ui!.port), process.execPath, everythingEntry, 'stdio', 'nodash'],
      ['--ui-port', String(scope.ui!.port), '--', '--', process.execPath, everythingEntry, 'stdio', 'threedash'],
    ]) {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, ...args],
        env: { ...process.env, MCPSCOPE_HOME: home, MCPSCOPE_TOKEN: '' } as Record<string, string>,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'no-dashes', version: '1.0.0' });
      await client.connect(transport);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
      // Recorded in the earlier UI, with the server's own command line (no "--" in it).
      const tag = args[args.length - 1];
      const listed = () => {
        const s = sessionIn(scope.store, tag);
        return s !== undefined && scope.store.messages(s.id).some((m) => m.method === 'tools/list' && m.kind === 'request');
      };
      await new Promise<void>((resolve) => {
        if (listed()) return resolve();
        const off = scope.store.subscribe(() => listed() && (off(), resolve()));
      });
      expect(sessionIn(scope.store, tag)!.target).not.toContain('--');
    }
  });

  it('says what to do when the first argument is neither a subcommand nor a command', async () => {
    const w = wrapper(['--ui-port', String(scope.ui!.port), 'opne', 'capture.json']);
    expect(await w.closed).toBe(2);
    expect(w.stderr()).toContain(
      '"opne" is neither an mcpscope subcommand (run, env, ca, open, replay, verify, wrap, unwrap, mcp) nor a command found on PATH',
    );
    expect(w.stderr()).toContain('mcpscope [options] [--] <command> [args…]');
    expect(w.stdout().length).toBe(0);
  });

  it('refuses bad command lines in plain words', async () => {
    const none = wrapper(['--ui-port', String(scope.ui!.port), '--']);
    expect(await none.closed).toBe(2);
    expect(none.stderr()).toContain('nothing to run after "--"');
    const target = wrapper(['--target', 'http://127.0.0.1:1/mcp', '--', 'node']);
    expect(await target.closed).toBe(2);
    expect(target.stderr()).toContain('--target does not apply when wrapping a stdio server');
    for (const w of [none, target]) expect(w.stdout().length).toBe(0);
  });
});

describe('/ingest on the UI port', () => {
  it('accepts only the token (presented, or proven over the socket), no Origin, and only where a recorder is attached', async () => {
    const port = scope.ui!.port;
    // Without the token in the upgrade, nor the challenge header: 401 as on every route.
    const plain = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ingest`);
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('open', () => resolve(101));
      ws.on('error', () => undefined);
    });
    expect(plain).toBe(401);
    // The wrapper's way (the challenge): with no token or the wrong one, the UI's proof does not check out.
    expect(await connectIngest('127.0.0.1', port, undefined)).toMatchObject({ ok: false, unproven: true });
    expect(await connectIngest('127.0.0.1', port, 'wrong-token-wrong-token')).toMatchObject({
      ok: false,
      unproven: true,
      wrongProof: true,
    });
    // A browser page (any Origin, even the UI's own) may not ingest.
    const fromPage = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ingest`, {
        headers: { authorization: `Bearer ${scope.token}` },
        origin: `http://127.0.0.1:${port}`,
      });
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('open', () => resolve(101));
      ws.on('error', () => undefined);
    });
    expect(fromPage).toBe(403);
    // A UI without a recorder (browsing a saved capture) has no /ingest.
    const bare = await startUiServer({
      store: new EventStore(),
      token: 'bare-ui-token-123456',
      port: 0,
      showSecrets: false,
      version: 'test',
    });
    try {
      expect(await connectIngest('127.0.0.1', bare.port, 'bare-ui-token-123456')).toMatchObject({ ok: false, status: 404 });
    } finally {
      await bare.close();
    }
    const ok = await connectIngest('127.0.0.1', port, scope.token);
    expect(ok.ok).toBe(true);
    if (ok.ok) ok.ws.close();
  });

  it("answers a wrapper's hello with the proof that it knows the token, and closes on a second hello", async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${scope.ui!.port}/ingest`, { headers: { authorization: `Bearer ${scope.token}` } });
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    const nonce = randomBytes(32).toString('base64url');
    const first = new Promise<string>((resolve) => ws.once('message', (d) => resolve(d.toString())));
    ws.send(JSON.stringify({ type: 'hello', nonce }));
    // The proof, whether this mcpscope exports OpenTelemetry (it does not: no --otlp), and that it sends back what it records when asked (--log).
    expect(JSON.parse(await first)).toEqual({ type: 'proof', hmac: ingestProof(scope.token, nonce), exports: false, records: true });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(JSON.stringify({ type: 'hello', nonce }));
    expect(await closed).toBe(1008);
  });

  it('a socket that proves the token (no token sent) gets nothing read until its auth is right; a wrong one is closed', async () => {
    const open = async () => {
      const ws = new WebSocket(`ws://127.0.0.1:${scope.ui!.port}/ingest`, { headers: { 'x-mcpscope-ingest-auth': 'challenge' } });
      await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
      const nonce = randomBytes(32).toString('base64url');
      const proof = new Promise<{ type: string; hmac: string; nonce: string }>((resolve) =>
        ws.once('message', (d) => resolve(JSON.parse(d.toString()))),
      );
      ws.send(JSON.stringify({ type: 'hello', nonce }));
      const p = await proof;
      expect(p).toEqual({
        type: 'proof',
        hmac: ingestProof(scope.token, nonce),
        nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        exports: false,
        records: true,
      });
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      return { ws, uiNonce: p.nonce, closed };
    };
    const start = (xid: string) => encodeBatch([{ t: 'stdio-start', xid, ts: Date.now(), command: 'unproven', args: [], pid: 1 }]);
    const sessions = () => [...scope.store.sessions.values()].filter((x) => x.target === 'unproven');
    // Records before the auth: closed, nothing recorded.
    const early = await open();
    early.ws.send(start('early'));
    expect(await early.closed).toBe(1008);
    // A wrong auth (the UI's own proof played back): closed.
    const wrong = await open();
    wrong.ws.send(JSON.stringify({ type: 'auth', hmac: ingestProof(scope.token, wrong.uiNonce) }));
    wrong.ws.send(start('wrong'));
    expect(await wrong.closed).toBe(1008);
    await scope.settle();
    expect(sessions()).toEqual([]);
    // The right one: its records are taken.
    const right = await open();
    right.ws.send(JSON.stringify({ type: 'auth', hmac: ingestAuth(scope.token, right.uiNonce) }));
    right.ws.send(start('right'));
    for (const deadline = Date.now() + 5_000; sessions().length === 0 && Date.now() < deadline;) {
      await scope.settle();
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(sessions()).toHaveLength(1);
    right.ws.close();
  });

  it('keeps two wrappers apart even when they use the same xid, and closes a process whose wrapper vanished', async () => {
    const a = await connectIngest('127.0.0.1', scope.ui!.port, scope.token);
    const b = await connectIngest('127.0.0.1', scope.ui!.port, scope.token);
    if (!a.ok || !b.ok) throw new Error('ingest refused');
    const start = (name: string) => ({ t: 'stdio-start' as const, xid: 'p', ts: Date.now(), command: name, args: [] });
    const line = (dir: 'c2s' | 's2c', v: unknown) => ({
      t: 'stdio-chunk' as const,
      xid: 'p',
      ts: Date.now(),
      dir,
      chunk: Buffer.from(`${JSON.stringify(v)}\n`),
    });
    a.ws.send(encodeBatch([start('ingest-a'), line('c2s', { jsonrpc: '2.0', id: 1, method: 'ping' })]));
    b.ws.send(encodeBatch([start('ingest-b'), line('c2s', { jsonrpc: '2.0', id: 1, method: 'ping' })]));
    a.ws.send(
      encodeBatch([
        line('s2c', { jsonrpc: '2.0', id: 1, result: {} }),
        { t: 'stdio-exit', xid: 'p', ts: Date.now(), code: 0, signal: null },
      ]),
    );
    b.ws.terminate(); // no exit record: the wrapper was killed
    const [sa, sb] = await scope.waitFor((s) => {
      const x = sessionIn(s, 'ingest-a');
      const y = sessionIn(s, 'ingest-b');
      return x?.status === 'closed' && y?.status === 'closed' ? [x, y] : undefined;
    });
    expect(sa.closeReason).toBe('process-exited');
    expect(sb.closeReason).toBe('wrapper-disconnected');
    const [req, res] = scope.store.messages(sa.id);
    expect(res.pair).toBe(req.seq);
    expect(scope.store.messages(sb.id).map((m) => m.kind)).toEqual(['request']);
    a.ws.close();
  });

  it('closes the connection on a malformed batch', async () => {
    const c = await connectIngest('127.0.0.1', scope.ui!.port, scope.token);
    if (!c.ok) throw new Error('ingest refused');
    const closed = new Promise<[number, string]>((resolve) => c.ws.once('close', (code, reason) => resolve([code, reason.toString()])));
    c.ws.send(JSON.stringify([{ t: 'request', xid: 'x', ts: 1 }]));
    const [code, reason] = await closed;
    expect(code).toBe(1007);
    expect(reason).toMatch(/cannot be ingested/);
  });
});
