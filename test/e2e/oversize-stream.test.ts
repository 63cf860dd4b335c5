/**
 * A 200 MB JSON tool result streams through mcpscope without being buffered: every byte reaches
 * the client, the proxy process's RSS grows by less than 50 MB, and the exchange is recorded as
 * truncated with the body's true size and SHA-256. mcpscope runs from dist/ in a child process
 * (test/support/scope-child.mjs) so that its memory is measured alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';

const CHILD = fileURLToPath(new URL('../support/scope-child.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist/proxy/app/mcpscope.js', import.meta.url));
const TOTAL = 200 * 1024 * 1024;
const MiB = 1024 * 1024;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The child mcpscope: send a command line, get its JSON answer. */
function startChild(target: string): Promise<{ proxy: string; ask(cmd: string): Promise<Record<string, unknown>>; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--expose-gc', CHILD, target], { stdio: ['pipe', 'pipe', 'inherit'] });
  cleanups.push(() => {
    if (child.exitCode === null) child.kill();
  });
  const lines = createInterface({ input: child.stdout! });
  const waiting: ((v: Record<string, unknown>) => void)[] = [];
  lines.on('line', (l) => waiting.shift()?.(JSON.parse(l) as Record<string, unknown>));
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      waiting.push(resolve);
      child.once('exit', (code) => reject(new Error(`scope child exited (${code})`)));
    });
  const ready = next();
  return ready.then((r) => ({
    proxy: r.proxy as string,
    child,
    ask(cmd: string) {
      const p = next();
      child.stdin!.write(`${cmd}\n`);
      return p;
    },
  }));
}

/** Streams a tools/call result whose text is `TOTAL` bytes of JSON, honouring backpressure; resolves with its hash. */
function bigResultUpstream(): Promise<{ u: ScriptedUpstream; sent: Promise<{ bytes: number; sha256: string }> }> {
  let done!: (v: { bytes: number; sha256: string }) => void;
  const sent = new Promise<{ bytes: number; sha256: string }>((r) => (done = r));
  return startScriptedUpstream({
    'POST /mcp': async (_req, res, body) => {
      const { id, params } = JSON.parse(body.toString()) as { id: number; params: { arguments: { bytes: number } } };
      const total = params.arguments.bytes;
      const head = Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"`);
      const tail = Buffer.from('"}]}}');
      const filler = Buffer.alloc(64 * 1024, 'abcdefghijklmnopqrstuvwxyz0123456789');
      const hash = createHash('sha256');
      res.writeHead(200, { 'content-type': 'application/json' });
      let bytes = 0;
      const write = (b: Buffer) => {
        hash.update(b);
        bytes += b.length;
        return res.write(b) ? Promise.resolve() : new Promise<void>((r) => res.once('drain', () => r()));
      };
      await write(head);
      const fillerBytes = total - head.length - tail.length;
      for (let left = fillerBytes; left > 0; left -= filler.length) await write(left >= filler.length ? filler : filler.subarray(0, left));
      await write(tail);
      res.end();
      if (total === TOTAL) done({ bytes, sha256: hash.digest('hex') });
    },
  }).then((u) => ({ u, sent }));
}

/** A client that POSTs a tools/call for `bytes` bytes and reads (counts, hashes) the answer. */
function call(proxy: string, bytes: number): Promise<{ bytes: number; sha256: string; status: number }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: bytes, method: 'tools/call', params: { name: 'big', arguments: { bytes } } });
    const req = request(
      `${proxy}/mcp`,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
      (res) => {
        const hash = createHash('sha256');
        let n = 0;
        res.on('data', (c: Buffer) => {
          n += c.length;
          hash.update(c);
        });
        res.on('end', () => resolve({ bytes: n, sha256: hash.digest('hex'), status: res.statusCode ?? 0 }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('a 200 MB response through the proxy', () => {
  it('passes through whole with RSS growth < 50 MB and is recorded truncated with size and hash', { timeout: 120_000 }, async () => {
    expect(existsSync(DIST), 'run `npm run build` first: this test runs mcpscope from dist/').toBe(true);
    const { u, sent } = await bigResultUpstream();
    cleanups.push(() => u.close());
    const scope = await startChild(`${u.origin}/mcp`);
    cleanups.push(async () => {
      await scope.ask('close').catch(() => undefined);
    });
    // Warm up (connections, JIT, a first oversize body) so that the growth measured is the big body's.
    expect((await call(scope.proxy, 16 * MiB + 1)).bytes).toBe(16 * MiB + 1);
    const before = (await scope.ask('reset')).rss as number;

    const received = await call(scope.proxy, TOTAL);
    const upstream = await sent;
    const stats = await scope.ask('stats');

    expect(received.status).toBe(200);
    expect(upstream.bytes).toBe(TOTAL);
    expect(received.bytes).toBe(TOTAL);
    expect(received.sha256).toBe(upstream.sha256);
    const growth = ((stats.peakRss as number) - before) / MiB;
    console.log(
      `200 MB through the proxy: RSS before ${(before / MiB).toFixed(1)} MiB, peak ${((stats.peakRss as number) / MiB).toFixed(1)} MiB, growth ${growth.toFixed(1)} MiB`,
      process.env.SCOPE_CHILD_DETAIL ? stats : '',
    );
    expect(growth).toBeLessThan(50);

    // The recorder may finish the last batch just after the client got its last byte.
    let ex: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && !ex?.bodySha256; i++) {
      const { exchanges } = (await scope.ask('exchanges')) as { exchanges: Record<string, unknown>[] };
      ex = exchanges.find((e) => e.method === 'POST' && e.responseBytes === TOTAL);
      if (!ex?.bodySha256) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ex).toMatchObject({
      truncated: true,
      truncatedBody: 'response',
      bodyBytes: TOTAL,
      bodySha256: upstream.sha256,
      responseBytes: TOTAL,
    });
  });
});
