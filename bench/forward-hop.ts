/**
 * Micro-bench for one design question (docs/architecture.md, "The proxy thread forwards with
 * undici directly"): the proxy's CPU per call when the hop is today's forwarder (undici from the
 * route's preHandler, proxy/wire/forwarder/forwarder.ts, capture to a no-op) versus @fastify/reply-from's
 * `reply.from` with per-request upstream selection (`getUpstream`) and retries off (`retryDelay`
 * answering null: `maxRetriesOn503: 0` is read as 10), fastify's default relay and no capture at all.
 * Both on the same fastify app (createProxyApp), alone in a child process; the upstream (plain
 * node:http, a small JSON answer) and the client (undici, 20 concurrent POSTs) in this one.
 *
 *   npx tsx bench/forward-hop.ts [--rounds 5] [--calls 4000]
 *
 * Rounds alternate the variants (A B, B A, …); the figure is the proxy child's user+system CPU per
 * call. On a shared, noisy machine compare the medians and the spread, not one round.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Pool, type Agent } from 'undici';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { numberArg } from './support.js';

type Variant = 'undici' | 'reply-from';

/**
 * @fastify/http-proxy as its README has it, on the same fastify settings: its own handler calls
 * `reply.from`. `upstream: ''` — with a fixed upstream, reply-from's undici hop sends every request
 * to that origin whatever getUpstream answers (lib/request.js: `origin: baseUrl || opts.url.origin`).
 */
async function replyFromApp(agent: Agent, upstream: string) {
  const { default: Fastify } = await import('fastify');
  const { default: httpProxy } = await import('@fastify/http-proxy');
  const { PROXY_FASTIFY_OPTIONS, PROXY_HTTP_METHODS } = await import('../proxy/wire/forwarder/fastify-app.js');
  const app = Fastify(PROXY_FASTIFY_OPTIONS);
  await app.register(httpProxy, {
    upstream: '',
    prefix: '/',
    httpMethods: PROXY_HTTP_METHODS,
    undici: agent,
    disableRequestLogging: true,
    internalRewriteLocationHeader: false,
    replyOptions: {
      getUpstream: () => upstream,
      // Retries off: `maxRetriesOn503: 0` is read as 10 (`opts.maxRetriesOn503 || 10`).
      retryDelay: () => null,
      // reply-from sets Host to the upstream's; today's path sends the client's.
      rewriteRequestHeaders: (req, headers) => ({ ...headers, host: req.headers.host }),
    },
  });
  return app;
}

async function proxyChild(variant: Variant, upstream: string): Promise<void> {
  const { createProxyApp, upstreamAgent } = await import('../proxy/wire/forwarder/fastify-app.js');
  const { createForwarder } = await import('../proxy/wire/forwarder/forwarder.js');
  const agent = upstreamAgent();
  const route = { upstreamOrigin: upstream, target: upstream, proxyOrigin: '' };
  const forwarder = createForwarder({ capture: () => undefined, agent });
  const app =
    variant === 'undici'
      ? await createProxyApp({
          agent,
          forward: (request: FastifyRequest, reply: FastifyReply) => forwarder.captureAndForward(request, reply, route),
        })
      : await replyFromApp(agent, route.upstreamOrigin);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  let last = process.cpuUsage();
  process.on('message', (m: string) => {
    if (m === 'mark') {
      last = process.cpuUsage();
      process.send!({ marked: true });
    } else if (m === 'cpu') {
      const d = process.cpuUsage(last);
      process.send!({ cpuUs: d.user + d.system });
    } else if (m === 'close') void app.close().then(() => process.exit(0));
  });
  process.send!({ port });
}

/** Sends `m` (if any) to the child and resolves with its next message. */
function ask(child: ChildProcess, m?: string): Promise<Record<string, number>> {
  const answer = new Promise<Record<string, number>>((resolve) => child.once('message', (v) => resolve(v as Record<string, number>)));
  if (m) child.send(m);
  return answer;
}

async function round(variant: Variant, upstream: string, calls: number): Promise<number> {
  const child = fork(fileURLToPath(import.meta.url), ['proxy', variant, upstream], { execArgv: process.execArgv });
  const { port } = await ask(child);
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 20 });
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'x'.repeat(120) } },
  });
  const run = async (n: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next++ < n) {
          const res = await pool.request({
            path: '/mcp',
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body,
          });
          const text = await res.body.text();
          if (res.statusCode !== 200) throw new Error(`${variant}: status ${res.statusCode} ${text}`);
        }
      }),
    );
  };
  await run(1000); // warm-up
  await ask(child, 'mark');
  await run(calls);
  const { cpuUs } = await ask(child, 'cpu');
  child.send('close');
  await pool.close();
  await new Promise((r) => child.once('exit', r));
  return cpuUs! / calls;
}

if (process.argv[2] === 'proxy') {
  await proxyChild(process.argv[3] as Variant, process.argv[4]!);
} else {
  const rounds = numberArg('rounds', 5);
  const calls = numberArg('calls', 4000);
  const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x'.repeat(120) }] } });
  const upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': 'bench' }).end(answer));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const figures: Record<Variant, number[]> = { undici: [], 'reply-from': [] };
  for (let r = 0; r < rounds; r++) {
    const order: Variant[] = r % 2 ? ['reply-from', 'undici'] : ['undici', 'reply-from'];
    for (const v of order) figures[v].push(await round(v, origin, calls));
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  for (const v of ['undici', 'reply-from'] as Variant[]) {
    console.log(
      `${v.padEnd(11)} proxy CPU per call: median ${median(figures[v]).toFixed(0)} µs  (rounds: ${figures[v].map((x) => x.toFixed(0)).join(', ')})`,
    );
  }
  upstream.close();
}
