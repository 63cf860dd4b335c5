/**
 * The bench's upstream: a minimal stateful MCP server on the official SDK (McpServer +
 * StreamableHTTPServerTransport, one per session), alone in its process as a real server is.
 * A request header picks JSON or SSE responses per session. Started by bench/proxy.ts through
 * bench/support.ts: prints {"proxy": origin} (the line protocol's field name) when listening and
 * exits on `close`. With BENCH_TLS_KEY and BENCH_TLS_CERT (PEM; bench/proxy.ts makes them from a
 * throwaway CA) the same server also listens over HTTPS on a second port, and the line carries
 * {"tls": "https://localhost:<port>"} too.
 *
 * Tools: echo {text}; stream {n} (n progress notifications, each carrying its write time on the
 * machine's monotonic clock, process.hrtime, in ms, as `message`); big {bytes}.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { monotonicMs } from './clock.js';

const log = (s: string) => process.stderr.write(`${s}\n`);

function benchMcpServer(): McpServer {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  // rate 0: as fast as the server can write (yielding every 10 events); rate > 0: that many events
  // a second — on each timer tick (about 1 ms) the events that are due are written back to back.
  server.registerTool('stream', { inputSchema: { n: z.number().int(), rate: z.number().optional() } }, async ({ n, rate = 0 }, extra) => {
    const token = extra._meta?.progressToken;
    const start = monotonicMs();
    for (let i = 1; i <= n; i++) {
      if (rate > 0) {
        const due = start + ((i - 1) * 1000) / rate;
        if (monotonicMs() < due) await new Promise((r) => setTimeout(r, Math.max(1, due - monotonicMs())));
      }
      // The write time travels in the message, on the clock every process of the machine shares.
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: n, message: String(monotonicMs()) },
        });
      if (rate === 0 && i % 10 === 0) await new Promise((r) => setImmediate(r));
    }
    return { content: [{ type: 'text', text: `sent ${n}` }] };
  });
  server.registerTool('big', { inputSchema: { bytes: z.number().int() } }, async ({ bytes }) => ({
    content: [{ type: 'text', text: 'x'.repeat(bytes) }],
  }));
  return server;
}

const transports = new Map<string, StreamableHTTPServerTransport>();
async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
}
function handle(req: IncomingMessage, res: ServerResponse): void {
  void (async () => {
    const sid = req.headers['mcp-session-id'] as string | undefined;
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    let t = sid ? transports.get(sid) : undefined;
    if (!t && req.method === 'POST' && isInitializeRequest(body)) {
      const json = req.headers['x-bench-json'] === '1';
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (id) => void transports.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await benchMcpServer().connect(transport);
      t = transport;
    }
    if (!t) return void res.writeHead(404).end();
    await t.handleRequest(req, res, body);
  })().catch((e) => {
    log(`upstream: ${(e as Error).message}`);
    if (!res.headersSent) res.writeHead(500).end();
  });
}
const upstream = createServer(handle);
await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
// The same server over HTTPS (one process, one set of sessions): for the TLS paths.
const key = process.env.BENCH_TLS_KEY;
const cert = process.env.BENCH_TLS_CERT;
const tlsServer = key && cert ? createHttpsServer({ key, cert }, handle) : undefined;
if (tlsServer) await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
const tls = tlsServer ? `https://localhost:${(tlsServer.address() as AddressInfo).port}` : undefined;
process.stdout.write(`${JSON.stringify({ proxy: origin, tls })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === 'close') {
    for (const s of [upstream, tlsServer]) {
      s?.closeAllConnections();
      s?.close();
    }
    process.exit(0);
  }
}
// stdin closed: the bench that started this process is gone (even if it was killed outright); do not outlive it.
process.exit(0);
