/**
 * `mcpscope --log <file> -- <command>` (proxy/app/stdio/stdio-log.ts) numbers its lines as the UI it
 * records into does: the session label and every message number in the file are the ones that
 * UI's /api/sessions and /api/sessions/:id/messages give — with a UI that was running before (its
 * numbering well ahead: sessions and messages of its own already), and across a UI that goes
 * away mid-run (the wrapper takes its port over and serves the UI itself: from there on, that
 * UI's numbers, said in a line). The built CLI (bin/mcpscope.js) in real processes, an SDK stdio
 * server, UIs on OS-picked ports. Requires `npm run build` (npm test runs it first).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { startMcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';
import { ingestProof } from '../../proxy/app/stdio/ingest-control.js';
import type { MessageEvent, SessionInfo } from '../../proxy/core/model/events.js';
import { freePort } from '../support/free-port.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL('../support/stdio-sdk-server.mjs', import.meta.url));

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempHome(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcpscope-stdio-log-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A UI "started earlier" in MCPSCOPE_HOME `home` (its discovery file there), with two stdio sessions and their messages in it already. */
async function earlierUi(home: string): Promise<McpscopeCore> {
  const saved = process.env.MCPSCOPE_HOME;
  process.env.MCPSCOPE_HOME = home;
  const scope = await startMcpscope({ uiPort: 0, discoveryFile: true });
  if (saved === undefined) delete process.env.MCPSCOPE_HOME;
  else process.env.MCPSCOPE_HOME = saved;
  cleanups.push(() => scope.close());
  const line = (v: unknown) => new TextEncoder().encode(`${JSON.stringify(v)}\n`);
  for (const xid of ['before-1', 'before-2']) {
    scope.capture({ t: 'stdio-start', xid, ts: Date.now(), command: 'earlier-server', args: [xid], cwd: '/' });
    scope.capture({ t: 'stdio-chunk', xid, ts: Date.now(), dir: 'c2s', chunk: line({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    scope.capture({ t: 'stdio-chunk', xid, ts: Date.now(), dir: 's2c', chunk: line({ jsonrpc: '2.0', id: 1, result: {} }) });
  }
  await scope.settle();
  expect([...scope.store.sessions.keys()]).toEqual(['s1', 's2']);
  return scope;
}

interface Wrapper {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
  send(v: unknown): void;
  /** Resolves once `check` holds on stdout or stderr (looked at on each chunk). */
  until(check: () => boolean, what: string): Promise<void>;
}

function wrap(home: string, args: string[]): Wrapper {
  const child = spawn(process.execPath, [BIN, ...args, '--', process.execPath, STDIO_SERVER], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, MCPSCOPE_HOME: home, MCPSCOPE_TOKEN: '' },
  });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
  });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  const look = () => {
    for (const w of [...waiters]) w();
  };
  child.stdout!.on('data', (c: Buffer) => ((out += c.toString('utf8')), look()));
  child.stderr!.on('data', (c: Buffer) => ((err += c.toString('utf8')), look()));
  const exit = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exit,
    send: (v) => child.stdin!.write(`${JSON.stringify(v)}\n`),
    until(check, what) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`timed out waiting for ${what}:\nstdout: ${out}\nstderr: ${err}`));
        }, 15_000);
        const w = () => {
          if (!check()) return;
          clearTimeout(timer);
          waiters.delete(w);
          resolve();
        };
        waiters.add(w);
        w();
      });
    },
  };
}

async function api<T>(origin: string, token: string, path: string): Promise<T> {
  const res = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

/** The stdio session of this test's server in a UI, and its messages. */
async function uiSessions(origin: string, token: string): Promise<{ session: SessionInfo; messages: MessageEvent[] }[]> {
  const sessions = (await api<SessionInfo[]>(origin, token, '/api/sessions')).filter((s) => s.target.includes('stdio-sdk-server'));
  return Promise.all(
    sessions.map(async (session) => ({
      session,
      messages: await api<MessageEvent[]>(origin, token, `/api/sessions/${session.id}/messages`),
    })),
  );
}

/** The log's message headlines: `#seq` and direction, per session column, in file order. */
function logMessages(log: string): { session: string; seq: number; dir: 'c2s' | 's2c'; text: string }[] {
  const out: { session: string; seq: number; dir: 'c2s' | 's2c'; text: string }[] = [];
  for (const line of log.split('\n')) {
    const m = /^\d\d:\d\d:\d\d\.\d{3} (\S+) +#(\d+) (C→S|S→C) (.*)$/.exec(line);
    if (m) out.push({ session: m[1], seq: Number(m[2]), dir: m[3] === 'C→S' ? 'c2s' : 's2c', text: m[4] });
  }
  return out;
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'log-numbers', version: '0.1' } },
};
const echo = (id: number, text: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });

describe('the stdio wrapper’s --log numbers', () => {
  it('are the numbers of the UI it records into: its session label and every message’s #seq, with that UI’s numbering well ahead', async () => {
    const home = tempHome();
    const ui = await earlierUi(home);
    const logFile = join(home, 'wrapper.log');
    const w = wrap(home, ['--ui-port', String(ui.ui!.port), '--log', logFile]);
    await w.until(() => /recording .* in the mcpscope UI at/.test(w.stderr()) && w.stderr().includes('ready'), 'the wrapper to link');
    w.send(initialize);
    await w.until(() => w.stdout().includes('"id":1'), 'the initialize result');
    w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    w.send(echo(2, 'numbered'));
    await w.until(() => w.stdout().includes('echo: numbered'), 'the echo result');
    w.child.stdin!.end();
    expect(await w.exit).toBe(0);

    const [{ session, messages }, ...others] = await uiSessions(ui.ui!.origin, ui.token);
    expect(others).toHaveLength(0);
    expect(session.id).toBe('s3');
    await ui.waitFor((s) => s.sessions.get(session.id)?.status === 'closed');
    const log = readFileSync(logFile, 'utf8');
    // The session as the UI lists it, opened and closed.
    expect(log).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} s3 +=== SESSION s3 stdio → `, 'm'));
    expect(log).toMatch(/=== SESSION s3 closed \(process-exited\)/);
    expect(log).not.toMatch(/SESSION s1\b/);
    // Every message line: the UI's seq and direction, in the UI's order, in the UI's session.
    const lines = logMessages(log);
    expect(lines.map((l) => [l.session, l.seq, l.dir])).toEqual(messages.map((m) => [session.id, m.seq, m.dir]));
    // And what they refer to: the echo's answer names the UI's number of its request.
    const call = messages.find((m) => m.kind === 'request' && m.method === 'tools/call')!;
    const answer = messages.find((m) => m.kind === 'response' && m.pair === call.seq)!;
    expect(lines.find((l) => l.seq === answer.seq)?.text).toMatch(new RegExp(`^response to #${call.seq} tools/call echo \\(id 2\\)`));
    // The UI's numbering was ahead: these are not numbers the wrapper could have made up.
    expect(call.seq).toBeGreaterThan(8);
    expect(log).toMatch(new RegExp(`mcpscope: recording into the mcpscope UI at http://127\\.0\\.0\\.1:${ui.ui!.port}/`));
  });

  it('are the numbers of the UI it serves itself when none was running', async () => {
    const home = tempHome();
    const logFile = join(home, 'wrapper.log');
    const w = wrap(home, ['--ui-port', String(await freePort()), '--log', logFile]);
    const serving = /so this one serves it while .* runs: (http:\/\/\S+)/;
    await w.until(() => serving.test(w.stderr()) && w.stderr().includes('ready'), 'the wrapper to serve a UI');
    const url = new URL(serving.exec(w.stderr())![1]);
    w.send(initialize);
    w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    w.send(echo(2, 'own'));
    await w.until(() => w.stdout().includes('echo: own'), 'the echo result');
    let own: { session: SessionInfo; messages: MessageEvent[] } | undefined;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      own = (await uiSessions(url.origin, url.searchParams.get('token')!))[0];
      if (own?.messages.length === 5) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(own?.messages).toHaveLength(5);
    w.child.stdin!.end();
    expect(await w.exit).toBe(0);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain(`mcpscope: recording into the mcpscope UI at ${url.origin}/ (this wrapper serves it): `);
    expect(log).toMatch(new RegExp(`=== SESSION ${own!.session.id} stdio → `));
    expect(logMessages(log).map((l) => [l.session, l.seq, l.dir])).toEqual(own!.messages.map((m) => [own!.session.id, m.seq, m.dir]));
  });

  it('follow the UI that takes over when the one it recorded into goes away, and say so in the file', async () => {
    const home = tempHome();
    const first = await earlierUi(home);
    const port = first.ui!.port;
    const logFile = join(home, 'wrapper.log');
    const w = wrap(home, ['--ui-port', String(port), '--log', logFile]);
    await w.until(() => /recording .* in the mcpscope UI at/.test(w.stderr()) && w.stderr().includes('ready'), 'the wrapper to link');
    w.send(initialize);
    await w.until(() => w.stdout().includes('"id":1'), 'the initialize result');
    w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    w.send(echo(2, 'before'));
    await w.until(() => w.stdout().includes('echo: before'), 'the first echo');
    await first.waitFor((s) => s.messages('s3').length === 5);
    const before = (await uiSessions(first.ui!.origin, first.token))[0];
    await first.close();

    // The wrapper finds the port free and serves the UI there itself, with the same token.
    await w.until(() => /so this one serves it while .* runs/.test(w.stderr()), 'the wrapper to serve the UI');
    w.send(echo(3, 'after'));
    await w.until(() => w.stdout().includes('echo: after'), 'the second echo');
    const origin = `http://127.0.0.1:${port}`;
    let after: { session: SessionInfo; messages: MessageEvent[] } | undefined;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      after = (await uiSessions(origin, first.token))[0];
      if (after?.messages.some((m) => m.kind === 'response' && m.id === 3)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(after?.messages.some((m) => m.kind === 'response' && m.id === 3)).toBe(true);
    w.child.stdin!.end();
    expect(await w.exit).toBe(0);

    const log = readFileSync(logFile, 'utf8');
    const lines = logMessages(log);
    const expected = [
      ...before.messages.map((m) => [before.session.id, m.seq, m.dir]),
      ...after!.messages.map((m) => [after!.session.id, m.seq, m.dir]),
    ];
    expect(lines.map((l) => [l.session, l.seq, l.dir])).toEqual(expected);
    // The seam is said where it is: the lines below it are the new UI's.
    const seam = log.indexOf(
      `mcpscope: the link to the UI ended; recording again into the mcpscope UI at ${origin}/ (this wrapper serves it): `,
      log.indexOf('echo: before'),
    );
    expect(seam).toBeGreaterThan(0);
    expect(log.indexOf(`=== SESSION ${after!.session.id} stdio → `, seam)).toBeGreaterThan(seam);
  });

  it('are its own, said in the file, when the UI it records into is older and sends no numbers back', async () => {
    // An mcpscope UI from before `recorded`: it proves the token and takes the records, nothing more.
    const token = 'older-ui-token-0123456789';
    const server = createServer((_req, res) => res.writeHead(404).end());
    const wss = new WebSocketServer({ noServer: true });
    let batches = 0;
    server.on('upgrade', (req, socket, head) =>
      wss.handleUpgrade(req, socket, head, (ws) =>
        ws.on('message', (data) => {
          const text = data.toString();
          if (text.startsWith('[')) return void (batches += 1);
          const m = JSON.parse(text) as { type?: string; nonce?: string };
          if (m.type === 'hello') ws.send(JSON.stringify({ type: 'proof', hmac: ingestProof(token, m.nonce!), nonce: 'u'.repeat(43) }));
        }),
      ),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(async () => {
      for (const c of wss.clients) c.terminate();
      wss.close();
      await new Promise((r) => server.close(r));
    });
    const port = (server.address() as AddressInfo).port;
    const home = tempHome();
    const logFile = join(home, 'wrapper.log');
    const w = wrap(home, ['--ui-port', String(port), '--token', token, '--log', logFile]);
    await w.until(() => /recording .* in the mcpscope UI at/.test(w.stderr()) && w.stderr().includes('ready'), 'the wrapper to link');
    w.send(initialize);
    await w.until(() => w.stdout().includes('"id":1'), 'the initialize result');
    w.send(echo(2, 'older'));
    await w.until(() => w.stdout().includes('echo: older'), 'the echo result');
    w.child.stdin!.end();
    expect(await w.exit).toBe(0);
    expect(batches).toBeGreaterThan(0);
    const log = readFileSync(logFile, 'utf8');
    expect(log.split('\n')[0]).toBe(
      `mcpscope: the mcpscope UI at http://127.0.0.1:${port}/ is older than this wrapper and does not send back its numbers: from here on this log numbers the session and its messages itself, not as any UI does`,
    );
    // The whole process, from its start, in the wrapper's own numbers.
    expect(log).toMatch(/=== SESSION s1 stdio → /);
    expect(log).not.toMatch(/started recording this process after it had started/);
    expect(logMessages(log).map((l) => `${l.session} ${l.dir} ${l.text.replace(/, \d.*$/, '')}`)).toEqual([
      's1 c2s request initialize (id 1)',
      expect.stringMatching(/^s1 s2c response to #\d+ initialize \(id 1\)$/),
      's1 c2s request tools/call echo (id 2)',
      expect.stringMatching(/^s1 s2c response to #\d+ tools\/call echo \(id 2\)$/),
    ]);
  });
});
