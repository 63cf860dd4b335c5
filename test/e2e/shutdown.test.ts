/**
 * Shutting the `mcpscope` CLI down (bin/mcpscope.js; needs `npm run build`) while calls are in
 * flight: SIGTERM stops new connections and lets them finish (`--grace`, default 5 s), then the
 * capture is flushed into the `--record` file (0600) and mcpscope exits; a second signal quits at
 * once; an open GET event stream does not hold it. Issue 16, finding 6 (SIGTERM used to cut all 20
 * calls within 32 ms — "socket hang up" — and record them as 502s no client received).
 * Synchronised on what the processes say and do, never on sleeps: the upstream holds the calls
 * until mcpscope says on stderr that it is waiting for them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExchangeInfo, McpscopeEvent } from '../../proxy/core/model/events.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));

/** The upstream: holds every POST until told to answer; GETs get an event stream that stays open. */
let upstream: Server;
let upstreamUrl = '';
let held: { id: number; res: ServerResponse }[] = [];
let onHeld: (() => void) | undefined;
let streams = 0;
let onStream: (() => void) | undefined;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      streams += 1;
      onStream?.();
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      held.push({ id: (JSON.parse(body) as { id: number }).id, res });
      onHeld?.();
    });
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  upstream.closeAllConnections();
  upstream.close();
});

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await once(c, 'exit');
    }
  }
  for (const h of held.splice(0)) h.res.destroy();
  held = [];
  upstream.closeAllConnections();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Cli {
  child: ChildProcess;
  proxyPort: number;
  record: string;
  stderr(): string;
  /** Resolves when stderr has matched `re`. */
  says(re: RegExp): Promise<RegExpExecArray>;
  exit: Promise<{ code: number | null; at: number }>;
}

async function startCli(extra: string[] = []): Promise<Cli> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpscope-shutdown-'));
  dirs.push(dir);
  const record = join(dir, 'record.ndjson');
  const child = spawn(process.execPath, [BIN, '--target', upstreamUrl, '--port', '0', '--ui-port', '0', '--record', record, ...extra], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, MCPSCOPE_TOKEN: '' },
  });
  children.push(child);
  let err = '';
  const waiters: { re: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
    for (const w of [...waiters]) {
      const m = w.re.exec(err);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  const exit = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, at: performance.now() })),
  );
  const says = (re: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const m = re.exec(err);
      if (m) return resolve(m);
      waiters.push({ re, resolve });
      void exit.then(() => reject(new Error(`mcpscope exited before saying ${re}:\n${err}`)));
    });
  const proxy = await says(/proxy\s+http:\/\/127\.0\.0\.1:(\d+)\//);
  await says(/UI\s+http/);
  return { child, proxyPort: Number(proxy[1]), record, stderr: () => err, says, exit };
}

/** One tools/call through the proxy, on its own connection: the answer, or the error it got. */
function call(port: number, id: number): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/mcp',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res: IncomingMessage) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', (e) => resolve({ error: e.message }));
      },
    );
    req.on('error', (e) => resolve({ error: e.message }));
    req.end(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: {} } }));
  });
}

function heldCount(n: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (held.length >= n) {
        onHeld = undefined;
        resolve();
      }
    };
    onHeld = check;
    check();
  });
}

/** The last state of every exchange in the record file. */
function recordedExchanges(file: string): ExchangeInfo[] {
  const last = new Map<string, ExchangeInfo>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as McpscopeEvent;
    if (e.type === 'exchange') last.set(e.exchange.id, e.exchange);
  }
  return [...last.values()];
}

describe('mcpscope CLI shutdown', () => {
  it("SIGTERM with 20 calls in flight: all 20 get the server's answer, all 20 are in the record as answered, the record is 0600", async () => {
    const cli = await startCli();
    const calls = Array.from({ length: 20 }, (_, i) => call(cli.proxyPort, i + 1));
    await heldCount(20);
    const signalled = performance.now();
    cli.child.kill('SIGTERM');
    await cli.says(/waiting up to 5 s for 20 calls in flight; .* to quit now/);
    // A new connection is refused now.
    expect(await call(cli.proxyPort, 99)).toEqual({ error: expect.stringMatching(/ECONNREFUSED/) });
    for (const h of held)
      h.res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: h.id, result: { content: [{ type: 'text', text: `answer ${h.id}` }] } }));
    const results = await Promise.all(calls);
    results.forEach((r, i) => {
      expect(r, `call ${i + 1}`).toEqual({ status: 200, body: expect.stringContaining(`"answer ${i + 1}"`) });
    });
    const exit = await cli.exit;
    expect(exit.code).toBe(0);
    console.log(`shutdown with 20 calls in flight: exited ${Math.round(exit.at - signalled)} ms after SIGTERM`);
    expect(cli.stderr()).toContain('every call in flight finished');
    const posts = recordedExchanges(cli.record).filter((x) => x.method === 'POST');
    expect(posts).toHaveLength(20);
    for (const x of posts) {
      expect(x.status, x.id).toBe(200);
      expect(x.aborted, x.id).toBeUndefined();
      expect(x.endedAt, x.id).toBeDefined();
    }
    expect(statSync(cli.record).mode & 0o777).toBe(0o600);
  });

  it('a second SIGTERM quits at once, whatever --grace says', async () => {
    const cli = await startCli(['--grace', '60000']);
    const calls = Array.from({ length: 3 }, (_, i) => call(cli.proxyPort, i + 1));
    await heldCount(3);
    cli.child.kill('SIGTERM');
    await cli.says(/waiting up to 60 s for 3 calls in flight/);
    const again = performance.now();
    cli.child.kill('SIGTERM');
    const exit = await cli.exit;
    expect(exit.code).toBe(143);
    expect(exit.at - again).toBeLessThan(2000);
    expect(cli.stderr()).toContain('SIGTERM again: quitting now');
    for (const r of await Promise.all(calls)) expect(r).toHaveProperty('error');
  });

  it('calls still running when --grace ends are cut, and recorded as cut by mcpscope (not as 502s)', async () => {
    const cli = await startCli(['--grace', '200']);
    const calls = Array.from({ length: 2 }, (_, i) => call(cli.proxyPort, i + 1));
    await heldCount(2);
    cli.child.kill('SIGTERM');
    await cli.says(/waiting up to 0\.2 s for 2 calls in flight/);
    expect((await cli.exit).code).toBe(0);
    expect(cli.stderr()).toContain('2 calls still in flight after 0.2 s were cut off');
    for (const r of await Promise.all(calls)) expect(r).toHaveProperty('error');
    const posts = recordedExchanges(cli.record).filter((x) => x.method === 'POST');
    expect(posts).toHaveLength(2);
    for (const x of posts) {
      expect(x.status).toBeUndefined();
      expect(x.aborted).toBe('proxy');
      expect(x.error).toContain('mcpscope shut down (SIGTERM)');
    }
  });

  it('an open GET event stream with no call in flight does not hold shutdown', async () => {
    const cli = await startCli(['--grace', '60000']);
    const before = streams;
    const opened = new Promise<void>((resolve) => (onStream = () => streams > before && resolve()));
    const get = httpRequest({
      host: '127.0.0.1',
      port: cli.proxyPort,
      method: 'GET',
      path: '/mcp',
      agent: false,
      headers: { accept: 'text/event-stream' },
    });
    get.on('error', () => undefined);
    get.end();
    const [res] = (await once(get, 'response')) as [IncomingMessage];
    expect(res.statusCode).toBe(200);
    res.on('error', () => undefined);
    res.resume();
    await opened;
    const signalled = performance.now();
    cli.child.kill('SIGTERM');
    const exit = await cli.exit;
    expect(exit.code).toBe(0);
    expect(exit.at - signalled).toBeLessThan(10_000);
    expect(cli.stderr()).toContain('shutting down (no calls in flight)');
    const gets = recordedExchanges(cli.record).filter((x) => x.method === 'GET');
    expect(gets).toHaveLength(1);
    expect(gets[0].aborted).toBe('proxy');
  });
});
