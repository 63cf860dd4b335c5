/**
 * The fastify app both proxies are built on: no timeouts of any kind (streams stay open as long
 * as both peers want them), connections closed on shutdown, paths taken as they come, and
 * @fastify/http-proxy's routes for every method with its raw body pass-through. Forwarding
 * starts in the route's preHandler (`forward`), so @fastify/http-proxy's own handler — which
 * re-encodes the query and answers dot-segment paths with a 400 of its own — is never reached: the
 * server, not the proxy, answers every path. A path fastify's router cannot decode (`/mcp%zz`)
 * comes through `frameworkErrors` to the same `forward`.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import httpProxy, { type FastifyHttpProxyOptions } from '@fastify/http-proxy';
import { Agent, type Dispatcher } from 'undici';
import type { Duplex } from 'node:stream';
import { MAX_REQUEST_HEADERS, readOverflowingHead, type OverflowingHead } from './request-head.js';
import { trackConnections } from './drain.js';
import { VERIFY_UPSTREAM } from './upstream-tls.js';

/**
 * An agent for upstream requests (the reverse and the forward proxy each have one): no idle,
 * header or body timeouts (streams last as long as the peers want), and no cap on connections per
 * origin. An event stream holds its connection for as long as it is open, so a cap (it was 256)
 * made every stream past it — and every other request to that upstream, an `initialize` included —
 * wait for a free connection, forever and without an error. The client already holds
 * one connection to the proxy per request in flight; the upstream gets one per request too, as it
 * would without the proxy. Upstream certificates are always verified (`rejectUnauthorized: true`,
 * whatever NODE_TLS_REJECT_UNAUTHORIZED says: upstream-tls.ts).
 */
export function upstreamAgent(connect?: Agent.Options['connect']): Agent {
  // TLS verification is mcpscope's own (upstream-tls.ts): a connector function must set it itself.
  const tls = typeof connect === 'function' ? connect : { ...connect, ...VERIFY_UPSTREAM };
  return new Agent({ bodyTimeout: 0, headersTimeout: 0, connections: null, pipelining: 1, connect: tls });
}

/**
 * How long a connection may take to bring a whole request head, from its opening (or from the
 * first byte of its next request): then Node answers `408 Request Timeout` and closes it (its
 * connection check runs every 30 s, so 60–90 s). Node's own default, set explicitly so that it
 * stays what docs/transparency.md says. It bounds what a client that opens connections and sends
 * nothing, or half a head, can hold; it never applies to a body or a response (requestTimeout is
 * 0), so no call or stream is cut.
 */
export const REQUEST_HEAD_TIMEOUT_MS = 60_000;

/** The fastify settings of the proxy apps (bench/forward-hop.ts builds its reply-from variant on them too). */
export const PROXY_FASTIFY_OPTIONS = {
  logger: false,
  requestTimeout: 0,
  connectionTimeout: 0,
  keepAliveTimeout: 72_000,
  forceCloseConnections: true,
  // Paths are forwarded as received; fastify must not 404 on long ones.
  routerOptions: { maxParamLength: 10_000 },
} as const;

/** Every method @fastify/http-proxy routes. */
export const PROXY_HTTP_METHODS: FastifyHttpProxyOptions['httpMethods'] = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT', 'OPTIONS'];

export interface ProxyAppOptions {
  agent: Dispatcher;
  /** Runs for every request, routed or not: guard, capture and forward. */
  forward(request: FastifyRequest, reply: FastifyReply): void;
  rewriteUrl?: FastifyServerOptions['rewriteUrl'];
  /**
   * A request head Node's parser refused as too large (`HPE_HEADER_OVERFLOW`: more than 16 KiB of
   * fields, or — Node 22 — more than maxHeadersCount of them): answer and record it. Otherwise
   * fastify's own 431 would answer, unrecorded and in nobody's words.
   */
  headOverflow?(head: OverflowingHead, socket: Duplex): void;
}

export async function createProxyApp(options: ProxyAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...PROXY_FASTIFY_OPTIONS,
    rewriteUrl: options.rewriteUrl,
    // A path fastify's router cannot take (a malformed percent-encoding such as `/mcp%zz`, a
    // segment past maxParamLength) would get fastify's own 400 without any hook running: the
    // upstream never asked, nothing recorded. It is forwarded like any other request instead.
    frameworkErrors: (_err: Error, request: FastifyRequest, reply: FastifyReply) => {
      // No route ran, so no body parser either: a request that declares a body streams it raw.
      const h = request.headers;
      if (h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0'))
        (request as { body: unknown }).body = request.raw;
      options.forward(request, reply);
    },
  });
  // Node's parser keeps 1,000 header fields and drops the rest silently: one more is parsed, so
  // that a request past the limit is seen, and refused with a 431 (request-head.ts), not cut.
  app.server.maxHeadersCount = MAX_REQUEST_HEADERS + 1;
  app.server.headersTimeout = REQUEST_HEAD_TIMEOUT_MS;
  const { headOverflow } = options;
  if (headOverflow) {
    // fastify's handler stays for every other client error (a malformed request line: its 400).
    const fastifys = app.server.listeners('clientError') as ((err: Error, socket: Duplex) => void)[];
    app.server.removeAllListeners('clientError');
    app.server.on('clientError', (err: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex) => {
      if (err.code === 'HPE_HEADER_OVERFLOW' && !socket.destroyed) return headOverflow(readOverflowingHead(err.rawPacket), socket);
      for (const listener of fastifys) listener.call(app.server, err, socket);
    });
  }
  // Shutdown waits for the calls in flight on these connections (drain.ts).
  trackConnections(app.server);
  const proxyOptions: FastifyHttpProxyOptions = {
    // Required by @fastify/http-proxy, but only its handler and reply-from use it, and neither runs:
    // each request's upstream is its route's (forwarder.ts).
    upstream: 'http://mcpscope.invalid',
    prefix: '/',
    httpMethods: PROXY_HTTP_METHODS,
    // reply-from (registered by @fastify/http-proxy) is never called (docs/architecture.md, "The
    // proxy thread forwards with undici directly"); given the agent so that it makes none of its own.
    undici: options.agent,
    disableRequestLogging: true,
    internalRewriteLocationHeader: false,
    // @fastify/http-proxy provides the routes for every method and the raw body pass-through. The
    // request is forwarded from this hook, which never calls done: the route's handler (which
    // would call reply.from) is not reached.
    preHandler: (request, reply) => options.forward(request, reply),
  };
  await app.register(httpProxy, proxyOptions);
  return app;
}
