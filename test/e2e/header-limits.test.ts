/**
 * Request heads mcpscope will not forward (proxy/wire/forwarder/request-head.ts), in both proxy modes:
 * more than 1,000 header fields get a 431 from mcpscope (Node 20's parser used to keep the first 1,000
 * and forward the request cut, without a word; Node 22's refuses them itself, which mcpscope answers
 * and records the same way), a head past Node's 16 KiB limit a 431 in mcpscope's words, and two
 * Host headers a 400 (Node kept the first);
 * neither reaches the upstream, and each is recorded as mcpscope's own answer. Issue 16, finding 7.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { once } from 'node:events';
import type { McpscopeCore } from '../../proxy/app/mcpscope.js';
import { startBothModes, type BothModes } from '../support/both-modes.js';
import { MAX_REQUEST_HEADERS } from '../../proxy/wire/forwarder/request-head.js';

let upstreamPort = 0;
/** Requests the upstream got: path → how many filler fields (`x<n>`) they carried. */
const hits = new Map<string, number>();
let reverse: McpscopeCore;
let forward: McpscopeCore;

let both: BothModes;
beforeAll(async () => {
  both = await startBothModes(
    (req, res) => {
      hits.set(req.url ?? '', req.rawHeaders.filter((h, i) => i % 2 === 0 && /^x\d+$/.test(h)).length);
      req.resume();
      req.on('end', () => res.end('{"jsonrpc":"2.0","id":1,"result":{}}'));
    },
    (server) => (server.maxHeadersCount = 0),
  );
  ({ upstreamPort, reverse, forward } = both);
});

afterAll(() => both?.close());

/** Sends a raw request head (and body) and reads the whole answer (mcpscope closes after a refusal). */
async function raw(port: number, head: string, body = ''): Promise<{ status: number; headers: string; body: string }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  // write, not end: a half-closed client is a client gone away, for Node's server. `connection: close` ends it.
  socket.write(`${head}\r\n${body}`);
  let text = '';
  socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
  await once(socket, 'close');
  const [headers, ...rest] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(headers)?.[1] ?? 0), headers, body: rest.join('\r\n\r\n') };
}

const BODY = '{"jsonrpc":"2.0","id":7,"method":"ping"}';
function head(mode: 'reverse' | 'forward', path: string, fields: string[]): string {
  const target = mode === 'reverse' ? path : `http://127.0.0.1:${upstreamPort}${path}`;
  return `POST ${target} HTTP/1.1\r\n${fields.map((f) => `${f}\r\n`).join('')}`;
}
const hostOf = (mode: 'reverse' | 'forward') => (mode === 'reverse' ? `127.0.0.1:${reverse.proxy!.port}` : `127.0.0.1:${upstreamPort}`);
const portOf = (mode: 'reverse' | 'forward') => (mode === 'reverse' ? reverse.proxy!.port : forward.forwardProxy!.port);
const common = [`content-type: application/json`, `content-length: ${BODY.length}`, 'connection: close'];
// Short fields: 1,500 of them stay under Node's 16 KiB head limit (past it Node answers 431 itself).
const filler = (n: number) => Array.from({ length: n }, (_, i) => `x${i}: 1`);

for (const mode of ['reverse', 'forward'] as const) {
  describe(`${mode} mode`, () => {
    const scope = () => (mode === 'reverse' ? reverse : forward);

    /** A refusal: mcpscope's answer (`refusal`), the upstream never asked, the exchange recorded with mcpscope's hint. */
    async function expectRefused(res: { status: number; headers: string }, path: string, status: number, refusal: string, hint: string) {
      expect(res.status, path).toBe(status);
      expect(res.headers.toLowerCase()).toContain(`x-mcpscope-refused: ${refusal}`);
      expect(hits.has(path)).toBe(false);
      await scope().settle();
      const x = [...scope().store.exchanges.values()].find((e) => e.url === path || e.url.endsWith(path));
      expect(x?.status).toBe(status);
      expect(x?.hints.some((h) => h.code === 'answered-by-mcpscope' && h.text.includes(hint))).toBe(true);
      return x;
    }

    it(`forwards a request with exactly ${MAX_REQUEST_HEADERS} header fields, all of them`, async () => {
      const path = `/mcp/${mode}-max`;
      const fields = [`host: ${hostOf(mode)}`, ...common];
      const n = MAX_REQUEST_HEADERS - fields.length;
      const res = await raw(portOf(mode), head(mode, path, [...fields, ...filler(n)]), BODY);
      expect(res.status).toBe(200);
      expect(hits.get(path)).toBe(n);
    });

    it(`answers 431 to ${MAX_REQUEST_HEADERS + 1}+ header fields, never forwards it cut, and records mcpscope's answer`, async () => {
      for (const extra of [1, 500]) {
        const path = `/mcp/${mode}-over-${extra}`;
        const fields = [`host: ${hostOf(mode)}`, ...common];
        const res = await raw(portOf(mode), head(mode, path, [...fields, ...filler(MAX_REQUEST_HEADERS - fields.length + extra)]), BODY);
        expect(JSON.parse(res.body).error.message).toContain('more than 1,000 header fields');
        await expectRefused(res, path, 431, 'too-many-headers', 'header fields');
      }
    });

    it("answers 431 in its own words to a head larger than Node's parser takes, and records it", async () => {
      const path = `/mcp/${mode}-huge`;
      // One 20 KiB field: past Node's 16 KiB head limit, so the parser gives up before any route runs.
      const res = await raw(portOf(mode), head(mode, path, [`host: ${hostOf(mode)}`, ...common, `x-big: ${'b'.repeat(20 * 1024)}`]), BODY);
      expect(JSON.parse(res.body).error.message).toContain('larger than Node');
      const x = await expectRefused(res, path, 431, 'head-too-large', 'larger than');
      expect(x?.method).toBe('POST');
      // The connection was closed after the refusal; the next request works as ever.
      expect((await raw(portOf(mode), head(mode, `/mcp/${mode}-after-huge`, [`host: ${hostOf(mode)}`, ...common]), BODY)).status).toBe(200);
    });

    it('answers 400 to two Host headers (the upstream never sees it) and records it', async () => {
      for (const [i, hosts] of [
        [hostOf(mode), 'evil.example'],
        [hostOf(mode), hostOf(mode)],
      ].entries()) {
        const path = `/mcp/${mode}-dup-host-${i}`;
        const res = await raw(portOf(mode), head(mode, path, [`Host: ${hosts[0]}`, ...common, `HOST: ${hosts[1]}`]), BODY);
        await expectRefused(res, path, 400, 'duplicate-host', 'more than one Host');
      }
      // The connection was closed after the refusal; the next request works as ever.
      const ok = await raw(portOf(mode), head(mode, `/mcp/${mode}-after`, [`host: ${hostOf(mode)}`, ...common]), BODY);
      expect(ok.status).toBe(200);
    });
  });
}
