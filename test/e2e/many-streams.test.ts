/**
 * Issue 16, finding 2: many concurrent SSE streams through the reverse and the forward proxy. The upstream holds
 * every GET stream open after its first event; all 600 must reach their client, and a plain
 * `initialize` must still be answered while they are open. With a connection cap on the
 * proxy's upstream agent (it was 256), the streams past the cap and every later request to that
 * upstream waited for a free connection (both proxies build their agent with upstreamAgent) — forever, with no error. The waits below are bounded
 * so that such a hang fails with a count, not with the test file's timeout.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { startMcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';

const STREAMS = 600;
/** How long the streams may take to all answer on a busy 2-core machine; a hang fails here. */
const WAIT_MS = 15_000;

let upstream: ScriptedUpstream | undefined;
let scope: McpscopeCore | undefined;
const clients: ClientRequest[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  await scope?.close();
  await upstream?.close();
  scope = undefined;
  upstream = undefined;
});

/** Resolves with `promise`, or rejects after `ms` with `what()`'s account of how far it got. */
function within<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what()} after ${ms / 1000} s`)), ms);
    promise.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e: unknown) => (clearTimeout(timer), reject(e as Error)),
    );
  });
}

describe('many concurrent SSE streams through the proxy', () => {
  it.each(['reverse', 'forward'] as const)(
    `%s proxy: holds ${STREAMS} open streams (first event on each) and still answers an initialize meanwhile`,
    { timeout: 60_000 },
    async (mode) => {
      let open = 0;
      upstream = await startScriptedUpstream({
        'GET /mcp': (_req, res) => {
          const n = ++open;
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          // The first event at once; then the stream stays open until the client goes away.
          res.write(
            `id: ${n}\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"stream ${n}"}}\n\n`,
          );
        },
        'POST /mcp': (_req, res, body) => {
          const { id } = JSON.parse(body.toString()) as { id: number };
          res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'many-streams' });
          res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id,
              result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'many-streams', version: '1' } },
            }),
          );
        },
      });
      const target = `${upstream.origin}/mcp`;
      // Reverse: the proxy's own URL. Forward: the server's real URL in absolute form, sent to the proxy.
      let proxy: URL;
      if (mode === 'reverse') {
        const reverse = await startMcpscope({ target, port: 0, uiPort: false });
        scope = reverse;
        proxy = new URL(reverse.proxy.url);
      } else {
        scope = await startMcpscope({ forward: { port: 0 }, uiPort: false });
        proxy = new URL(scope.forwardProxy!.origin);
      }
      const via = { host: proxy.hostname, port: proxy.port, path: mode === 'reverse' ? proxy.pathname : target };

      let firstEvents = 0;
      const allOpen = new Promise<void>((resolve, reject) => {
        for (let i = 0; i < STREAMS; i++) {
          // agent: false: one connection per stream, as independent clients would have.
          const req = request(
            { ...via, headers: { accept: 'text/event-stream', 'mcp-session-id': 'many-streams' }, agent: false },
            (res: IncomingMessage) => {
              if (res.statusCode !== 200) return reject(new Error(`stream ${i}: status ${res.statusCode}`));
              let text = '';
              const onData = (chunk: Buffer) => {
                text += chunk.toString();
                if (!text.includes('\n\n')) return;
                res.off('data', onData);
                res.resume();
                if (++firstEvents === STREAMS) resolve();
              };
              res.on('data', onData);
            },
          );
          req.on('error', (err) => reject(new Error(`stream ${i}: ${err.message}`)));
          req.end();
          clients.push(req);
        }
      });
      await within(
        allOpen,
        WAIT_MS,
        () => `only ${firstEvents} of ${STREAMS} streams received their first event (the upstream saw ${open})`,
      );
      expect(firstEvents).toBe(STREAMS);

      // All streams still open: a plain initialize is answered.
      const init = new Promise<{ status?: number; body: { id: number; result?: unknown } }>((resolve, reject) => {
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        });
        const req = request(
          {
            ...via,
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            agent: false,
          },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) as { id: number; result?: unknown } }));
          },
        );
        req.on('error', reject);
        req.end(body);
        clients.push(req);
      });
      const answer = await within(init, WAIT_MS, () => `initialize was not answered while ${STREAMS} streams were open`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ id: 1, result: { serverInfo: { name: 'many-streams' } } });
      expect(open).toBe(STREAMS);
    },
  );
});
