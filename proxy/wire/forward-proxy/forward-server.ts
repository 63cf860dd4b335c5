/**
 * The forward proxy (`mcpscope --forward`, and what `mcpscope run` starts): the client keeps the
 * server's real URL and reaches it through this port, set as its HTTP(S) proxy — so nothing about
 * the server's identity (its origin, OAuth's `resource` and token audience) is rewritten. Three
 * ways in, all ending in the same hot path as the reverse proxy (wire/forwarder/forwarder.ts),
 * with no rewrites at all:
 * - absolute-form requests (`POST http://host:port/mcp HTTP/1.1`, RFC 9112 §3.2.2) for plain HTTP;
 * - `CONNECT host:port`, decrypted with mcpscope's CA (connect-handler.ts) or tunnelled blind;
 * - protocol upgrades (WebSocket) inside either, relayed blind (tunnel.ts).
 * A request in origin-form that did not come through a tunnel is not for a proxy (a browser page
 * reaching a loopback port, say): it is refused and recorded, never forwarded.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { buildConnector } from 'undici';
import type { WireRecord } from '../capture/wire-records.js';
import type { WireAddon } from '../stages.js';
import { createForwarder } from '../forwarder/forwarder.js';
import { createProxyApp, upstreamAgent } from '../forwarder/fastify-app.js';
import { captureUnforwardedRequest } from '../forwarder/exchange-ids.js';
import type { Route } from '../forwarder/exchange-context.js';
import { listenOrigin, TOKEN_COOKIE } from '../guards.js';
import { withoutCookie } from '../forwarder/headers.js';
import { upstreamTrust, VERIFY_UPSTREAM } from '../forwarder/upstream-tls.js';
import type { ProxyServer } from '../reverse-proxy/proxy-server.js';
import { LeafIssuer, type CaMaterial } from './ca.js';
import { createConnectHandler, TUNNEL, type TunnelledSocket } from './connect-handler.js';
import { parseInterceptPatterns } from './intercept.js';
import { blindTunnel } from './tunnel.js';
import { loopError, SelfGuard } from './self-address.js';

export interface ForwardServerOptions {
  host?: string;
  port?: number;
  capture: (record: WireRecord) => void;
  /** The addons' proxy-thread steps (breakpoints, faults: ../stages.ts), made for this server. */
  addons?: readonly WireAddon[];
  /** mcpscope's CA (proxy/wire/forward-proxy/ca.ts), which signs the leaf certificates. */
  ca: CaMaterial & { certPath: string };
  /** `--intercept` patterns; none: decrypt every host. */
  intercept?: string[];
  /** PEM certificates trusted for upstream servers besides the system's and NODE_EXTRA_CA_CERTS (`--upstream-ca`). */
  upstreamCa?: string[];
  /** How long a decrypted tunnel may take to bring its TLS handshake (connect-handler.ts's HANDSHAKE_TIMEOUT_MS unless given: tests). */
  handshakeTimeoutMs?: number;
}

const ABSOLUTE = Symbol('mcpscope.absolute');
type RoutedRequest = IncomingMessage & { [ABSOLUTE]?: AbsoluteTarget };

/** Where an absolute-form request goes: parsed once, when fastify rewrites its URL. */
interface AbsoluteTarget {
  origin: string;
  /** The authority as the Host header carries it. */
  host: string;
  /** The host name without brackets, and the port with the scheme's default filled in (the loop check). */
  hostname: string;
  port: number;
}

/** `http://host:port/path?q` → its origin, authority and the path exactly as sent (no normalisation). */
export function splitAbsoluteForm(url: string): (AbsoluteTarget & { path: string }) | undefined {
  const m = /^(https?):\/\/([^/?#]*)([^#]*)/i.exec(url);
  if (!m) return undefined;
  try {
    const u = new URL(`${m[1].toLowerCase()}://${m[2]}`);
    const rest = m[3];
    const path = rest === '' ? '/' : rest.startsWith('?') ? `/${rest}` : rest;
    const hostname = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
    return { origin: u.origin, host: u.host, hostname, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)), path };
  } catch {
    return undefined;
  }
}

/**
 * The upstream agent's connector: undici's own, certificates always verified (upstream-tls.ts),
 * and a connection that reached mcpscope's own forward proxy after all (a name that resolved
 * elsewhere when the request came and here when it connected) cut with EPROXYLOOP, a 502 naming it.
 * Per new upstream connection: one port comparison.
 */
export function upstreamConnector(trust: { ca: string[] } | undefined, self: SelfGuard): buildConnector.connector {
  const connect = buildConnector({ ...trust, ...VERIFY_UPSTREAM });
  return (options, callback) =>
    connect(options, (...result) => {
      const socket = result[1] as Socket | null;
      if (socket && self.isSelfSocket(socket)) {
        socket.destroy();
        return callback(loopError(options.hostname, Number(options.port)), null);
      }
      callback(...result);
    });
}

export async function startForwardServer(options: ForwardServerOptions): Promise<ProxyServer> {
  const capture = options.capture;
  const host = options.host ?? '127.0.0.1';
  const rules = parseInterceptPatterns(options.intercept);
  const trust = upstreamTrust(options.upstreamCa);
  /** The forward proxy's own port, once bound (the loop guard's; one array, read per check). */
  const ownPorts: number[] = [];
  const self = new SelfGuard(() => ownPorts);
  const agent = upstreamAgent(upstreamConnector(trust, self));
  const steps = (options.addons ?? []).map((addon) => addon({ agent }));
  const forwarder = createForwarder({ capture, agent, steps });
  let proxyOrigin = '';
  /**
   * One route per upstream origin (forward mode: no rewrites), in two maps so that the lookup key
   * is the origin itself: requests from a tunnel keep their Host, absolute-form ones get the
   * origin's authority as Host (RFC 9112 §3.2.2), which is the same bytes as the origin's host.
   */
  const tunnelRoutes = new Map<string, Route>();
  const absoluteRoutes = new Map<string, Route>();
  const routeTo = (origin: string, upstreamHost?: string): Route => {
    const routes = upstreamHost === undefined ? tunnelRoutes : absoluteRoutes;
    let route = routes.get(origin);
    if (!route) {
      route = { upstreamOrigin: origin, upstreamHost, target: origin, proxyOrigin: origin, forward: true };
      if (routes.size < 1000) routes.set(origin, route);
    }
    return route;
  };

  const app: FastifyInstance = await createProxyApp({
    agent,
    // Absolute-form: route by its origin; the router and the upstream see the path as it came.
    rewriteUrl(req) {
      const url = req.url ?? '/';
      if (url.startsWith('/')) return url;
      const abs = splitAbsoluteForm(url);
      if (!abs) return url;
      (req as RoutedRequest)[ABSOLUTE] = abs;
      return abs.path;
    },
    forward(request, reply) {
      const tunnel = (request.raw.socket as TunnelledSocket)[TUNNEL];
      if (tunnel) return forwarder.captureAndForward(request, reply, routeTo(tunnel.origin));
      const abs = (request.raw as RoutedRequest)[ABSOLUTE];
      if (abs) {
        const loop = () => refuse(request, reply, 508, 'LOOP', `a request to the proxy itself (${abs.origin}) would loop.`);
        // RFC 9112 §3.2.2: a proxy replaces Host with the request-target's authority (normally the same bytes).
        const go = () => forwarder.captureAndForward(request, reply, routeTo(abs.origin, abs.host));
        if (!self.watches(abs.port)) return go();
        // mcpscope's own port: refused if the host is this machine, however it is spelt or named.
        void self.isSelf(abs.hostname, abs.port).then((itself) => (itself ? loop() : go()));
        return;
      }
      refuse(
        request,
        reply,
        400,
        'NOT_PROXY_REQUEST',
        `this port is mcpscope's forward proxy: clients use it as their HTTP(S) proxy (HTTPS_PROXY=${proxyOrigin}, or \`mcpscope run -- <command>\`) and keep the server's own URL. A request for ${request.url} addressed to the proxy itself is not forwarded.`,
      );
    },
    headOverflow(head, socket) {
      const tunnel = (socket as TunnelledSocket)[TUNNEL];
      const abs = tunnel ? undefined : splitAbsoluteForm(head.url);
      forwarder.refuseOverflowingHead(
        head,
        socket,
        tunnel ? routeTo(tunnel.origin) : abs && !self.isSelfLiteral(abs.hostname, abs.port) ? routeTo(abs.origin, abs.host) : undefined,
      );
    },
  });

  /** Answers (and records) a request the forward proxy will not forward. */
  function refuse(request: FastifyRequest, reply: FastifyReply, status: number, code: string, text: string): void {
    const { xid, ts } = captureUnforwardedRequest(capture, request, { proxyOrigin, target: proxyOrigin });
    capture({ t: 'upstream-error', xid, ts, code, message: `Refused by mcpscope: ${text}`, status });
    const body = request.body as { resume?: () => void } | undefined;
    body?.resume?.();
    void reply.code(status).header('content-type', 'text/plain; charset=utf-8').send(`mcpscope: ${text}\n`);
  }

  const server = app.server;
  server.on(
    'connect',
    createConnectHandler({
      server,
      capture,
      issuer: new LeafIssuer(options.ca),
      rules,
      caPath: options.ca.certPath,
      self,
      handshakeTimeoutMs: options.handshakeTimeoutMs,
    }),
  );
  // Upgrades (WebSocket) are relayed blind to the server the request was for.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    const tunnel = (socket as TunnelledSocket)[TUNNEL];
    const abs = splitAbsoluteForm(req.url ?? '');
    const origin = tunnel?.origin ?? abs?.origin;
    if (!origin) return socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    const u = new URL(origin);
    const hostname = u.hostname.replace(/^\[|\]$/g, '');
    const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
    const path = abs ? abs.path : (req.url ?? '/');
    let headLines = `${req.method} ${path} HTTP/${req.httpVersion}\r\n`;
    let cookieStripped = false;
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      let value = req.rawHeaders[i + 1];
      // mcpscope's UI cookie never reaches a server, upgrades included (the removal is said in the tunnel's hint).
      if (req.rawHeaders[i].length === 6 && req.rawHeaders[i].toLowerCase() === 'cookie') {
        const kept = withoutCookie(value, TOKEN_COOKIE);
        if (kept !== undefined) {
          cookieStripped = true;
          if (kept === '') continue;
          value = kept;
        }
      }
      headLines += `${req.rawHeaders[i]}: ${value}\r\n`;
    }
    const first = Buffer.concat([Buffer.from(`${headLines}\r\n`, 'latin1'), head]);
    blindTunnel(
      socket,
      {
        method: req.method ?? 'GET',
        url: path,
        headers: req.headers,
        host: hostname,
        port,
        tls: u.protocol === 'https:' ? { servername: hostname, ...(trust ?? {}) } : undefined,
        target: origin,
        why: `a protocol upgrade (${String(req.headers.upgrade ?? 'unknown')}): relayed without parsing${cookieStripped ? `; mcpscope removed its own UI cookie (${TOKEN_COOKIE}) from the request's Cookie header` : ''}`,
        first,
        answerConnect: false,
        answerFailure: true,
        isLoop: (s) => self.isSelfSocket(s),
      },
      capture,
    );
  });

  await app.listen({ host, port: options.port ?? 0 });
  const boundPort = (server.address() as AddressInfo).port;
  ownPorts.push(boundPort);
  proxyOrigin = listenOrigin(host, boundPort);
  return {
    origin: proxyOrigin,
    url: proxyOrigin,
    port: boundPort,
    app,
    steps,
    async close() {
      await app.close();
      await agent.destroy().catch(() => undefined);
    },
  };
}
