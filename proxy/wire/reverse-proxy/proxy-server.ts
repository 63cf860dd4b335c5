/**
 * The reverse proxy: one port in front of one target. fastify + @fastify/http-proxy route every
 * method and path (wire/forwarder/fastify-app.ts); each request is checked (Host and Origin, against
 * DNS rebinding and cross-site pages), then recorded and forwarded 1:1 to the target's origin by
 * the shared hot path (wire/forwarder/forwarder.ts). Where a client would otherwise leave the proxy,
 * the documented rewrites (wire/forwarder/rewrites.ts) map the target's origin to the one the client
 * used. Forward mode (proxy/forward/) is the other way in, and rewrites nothing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { WireRecord } from '../capture/wire-records.js';
import { isAllowedHost, isAllowedOrigin, listenOrigin } from '../guards.js';
import type { WireAddon, WireSteps } from '../stages.js';
import { createForwarder } from '../forwarder/forwarder.js';
import { createRewrites } from '../forwarder/rewrites.js';
import { createProxyApp, upstreamAgent } from '../forwarder/fastify-app.js';
import { upstreamTrust } from '../forwarder/upstream-tls.js';
import { captureUnforwardedRequest } from '../forwarder/exchange-ids.js';
import type { Route } from '../forwarder/exchange-context.js';

export interface ProxyServerOptions {
  /** The upstream MCP URL (its origin is mirrored; paths pass 1:1). */
  target: string;
  /** A short name for this upstream when several are proxied into one UI. */
  name?: string;
  host?: string;
  port?: number;
  /** Receives every capture record, synchronously, on the hot path: must be O(1). */
  capture: (record: WireRecord) => void;
  /**
   * Map the upstream's origin to the proxy's where a client would otherwise leave the proxy: the
   * legacy `endpoint` event, OAuth `resource_metadata` challenges, OAuth metadata documents and
   * `Location` headers (docs/transparency.md). Default true; `--no-rewrite` sets it false.
   */
  rewrite?: boolean;
  /** Origins allowed besides loopback ones. */
  allowOrigins?: string[];
  /** PEM certificates trusted for the upstream besides the system's and NODE_EXTRA_CA_CERTS (`--upstream-ca`). */
  upstreamCa?: string[];
  /** Host names allowed besides loopback ones. */
  allowHosts?: string[];
  /** The addons' proxy-thread steps (breakpoints, faults: ../stages.ts), made for this server. */
  addons?: readonly WireAddon[];
}

export interface ProxyServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** The target URL as reached through the proxy (same path and query). */
  url: string;
  port: number;
  app: FastifyInstance;
  /** The addons' steps on this server (the proxy thread tells them of rule changes). */
  steps: WireSteps[];
  close(): Promise<void>;
}

export async function startProxyServer(options: ProxyServerOptions): Promise<ProxyServer> {
  const target = new URL(options.target);
  const upstreamOrigin = target.origin;
  const capture = options.capture;
  const host = options.host ?? '127.0.0.1';
  const agent = upstreamAgent(upstreamTrust(options.upstreamCa));
  const steps = (options.addons ?? []).map((addon) => addon({ agent }));
  const forwarder = createForwarder({ capture, agent, steps });
  const rewrites = options.rewrite !== false ? createRewrites(upstreamOrigin, capture) : undefined;
  let boundPort = 0;
  let proxyOrigin = '';
  /** Per Host the client used (a handful of loopback spellings): the route, made once. */
  const routes = new Map<string, Route>();

  /** The route of a request: the target, with the origin the client addressed (its validated Host). */
  function routeFor(hostHeader: string | undefined): Route {
    const key = hostHeader ?? '';
    let route = routes.get(key);
    if (route === undefined) {
      route = {
        upstreamOrigin,
        upstreamHost: target.host,
        target: options.target,
        targetName: options.name,
        proxyOrigin: hostHeader ? `http://${hostHeader}` : proxyOrigin,
        rewrites,
      };
      if (routes.size < 64) routes.set(key, route);
    }
    return route;
  }

  const app = await createProxyApp({
    agent,
    forward(request, reply) {
      if (refusedByGuard(request, reply)) return;
      forwarder.captureAndForward(request, reply, routeFor(request.headers.host));
    },
    headOverflow: (head, socket) => forwarder.refuseOverflowingHead(head, socket, routeFor(head.host)),
  });

  /**
   * DNS rebinding / cross-site guard: the upstream trusts requests from the proxy's machine, so
   * the proxy must not let a web page reach it. Answers (and records) a 403 when the Host or
   * Origin header is not allowed; true if it did.
   */
  function refusedByGuard(request: FastifyRequest, reply: FastifyReply): boolean {
    const hostHeader = request.headers.host;
    const origin = request.headers.origin;
    let reason: string | undefined;
    if (!isAllowedHost(hostHeader, { port: boundPort, extraHosts: options.allowHosts })) {
      reason = `Host header ${JSON.stringify(hostHeader ?? '')} is not this proxy's loopback address (DNS rebinding protection). Use http://127.0.0.1:${boundPort}, or start mcpscope with --allow-host.`;
    } else if (!isAllowedOrigin(origin, options.allowOrigins)) {
      reason = `Origin ${JSON.stringify(origin)} is not a loopback origin (cross-site protection). Start mcpscope with --allow-origin ${origin} if this page is yours.`;
    }
    if (!reason) return false;
    const { xid, ts } = captureUnforwardedRequest(capture, request, { proxyOrigin, target: options.target, targetName: options.name });
    capture({ t: 'upstream-error', xid, ts, code: 'FORBIDDEN', message: reason, status: 403 });
    void reply
      .code(403)
      .header('content-type', 'application/json')
      .send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: `mcpscope: ${reason}` } }));
    return true;
  }

  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address() as AddressInfo;
  boundPort = address.port;
  proxyOrigin = listenOrigin(host, boundPort);

  return {
    origin: proxyOrigin,
    url: proxyOrigin + target.pathname + target.search,
    port: boundPort,
    app,
    steps,
    async close() {
      await app.close();
      // destroy, not close: close() would wait for open event streams to end.
      await agent.destroy().catch(() => undefined);
    },
  };
}
