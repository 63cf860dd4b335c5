/**
 * `CONNECT host:port` (RFC 9110 §9.3.6): how the forward proxy sees inside HTTPS. A host that
 * `--intercept` covers is answered 200 at once; the client's first bytes are then read without
 * consuming them (HTTP Toolkit's read-tls-client-hello):
 * - a TLS ClientHello offering HTTP/1.1 (or no ALPN): TLS is terminated with a leaf certificate
 *   for the host the client asked for (SNI, else the CONNECT host), signed by mcpscope's CA, and
 *   the decrypted connection is handed to the proxy's HTTP server, whose requests are forwarded
 *   over a new, verified TLS connection to the real server;
 * - plain HTTP (what undici's ProxyAgent sends for http:// URLs): handed to the HTTP server as it is;
 * - anything else (HTTP/2 only, an unreadable hello, another protocol): tunnelled blind.
 * Hosts outside `--intercept` are tunnelled blind from the start (proxy/wire/forward-proxy/tunnel.ts).
 *
 * Bounded at every stage (issue 26, findings 3 and 9): a client that hangs up is noticed whether
 * mcpscope is resolving its host, waiting for its ClientHello, making a certificate or in the TLS
 * handshake, and its socket closed at once; a tunnel mcpscope decrypts must bring its TLS
 * handshake (or its first plain-HTTP request) within `handshakeTimeoutMs` of the CONNECT, else it
 * is closed and recorded; a CONNECT to mcpscope itself (by address, self-address.ts) is answered
 * 508, and so is a CONNECT nested more than MAX_TUNNEL_DEPTH tunnels deep.
 */
import { TLSSocket, createSecureContext, type SecureContext } from 'node:tls';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { NonTlsError, getExtensionData, readTlsClientHello } from 'read-tls-client-hello';
import type { WireRecord } from '../capture/wire-records.js';
import { now } from '../capture/clock.js';
import { captureUnforwardedRequest, nextExchangeId } from '../forwarder/exchange-ids.js';
import type { LeafIssuer } from './ca.js';
import { intercepts, type InterceptRule } from './intercept.js';
import { blindTunnel } from './tunnel.js';
import { watchForClose } from './close-watch.js';
import type { SelfGuard } from './self-address.js';

/** Set on a connection handed to the HTTP server from a CONNECT: where its requests go. */
export const TUNNEL = Symbol('mcpscope.tunnel');

export interface TunnelInfo {
  /** https://host:port or http://host:port: the origin the client tunnelled to. */
  origin: string;
  /** How many CONNECTs this connection is inside (1: a tunnel on the client's own connection). */
  depth: number;
}

/**
 * The longest a tunnel mcpscope decrypts may take from its CONNECT to a finished TLS handshake (or
 * to its first plain-HTTP bytes). Clients send their ClientHello as soon as the 200 arrives; a
 * handshake takes a few round trips.
 */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/** CONNECTs nested deeper than this (a tunnel inside a decrypted tunnel inside …) are refused. */
export const MAX_TUNNEL_DEPTH = 3;

export type TunnelledSocket = Duplex & { [TUNNEL]?: TunnelInfo };

export interface ConnectHandlerOptions {
  server: Server;
  capture: (record: WireRecord) => void;
  issuer: LeafIssuer;
  rules: InterceptRule[];
  /** Where the CA certificate is, for the message when a client refuses mcpscope's certificate. */
  caPath: string;
  /** Refuses CONNECTs to the proxy itself (a loop), by address (self-address.ts). */
  self: SelfGuard;
  /** HANDSHAKE_TIMEOUT_MS unless given (tests). */
  handshakeTimeoutMs?: number;
}

/** Splits an authority-form target (`host:port`, `[v6]:port`); undefined when it is not one. */
export function parseAuthority(target: string | undefined): { host: string; hostname: string; port: number } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:/?#@[\]]+):(\d{1,5})$/.exec(target ?? '');
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  const hostname = m[1].startsWith('[') ? m[1].slice(1, -1) : m[1];
  return { host: m[1].toLowerCase(), hostname: hostname.toLowerCase(), port };
}

function refuse(socket: Duplex, status: string, text: string): void {
  const body = `${text}\n`;
  socket.end(
    `HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export function createConnectHandler(o: ConnectHandlerOptions): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const contexts = new Map<string, Promise<SecureContext>>();
  const contextFor = (name: string): Promise<SecureContext> => {
    let c = contexts.get(name);
    if (!c) {
      c = o.issuer.leafFor(name).then((leaf) => createSecureContext({ key: leaf.keyPem, cert: leaf.certPem }));
      c.catch(() => contexts.delete(name));
      if (contexts.size >= 1000) contexts.delete(contexts.keys().next().value as string);
      contexts.set(name, c);
    }
    return c;
  };

  const capture = o.capture;
  const timeoutMs = o.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
  const within = `within ${timeoutMs / 1000} s of its CONNECT`;
  const advice = `it does not trust mcpscope's CA. Start the client with \`mcpscope run -- <command>\`, or trust ${o.caPath} (see \`mcpscope ca\`).`;
  /** Records a CONNECT that failed before any request went through it. */
  const recordFailure = (req: IncomingMessage, target: string, side: 'client' | 'proxy', reason: string) => {
    const xid = nextExchangeId();
    capture({
      t: 'request',
      xid,
      ts: now(),
      method: 'CONNECT',
      url: req.url ?? '',
      upstreamUrl: target,
      headers: req.headers,
      proxyOrigin: target,
      target,
      tunnel: reason,
    });
    capture({ t: 'request-end', xid, ts: now() });
    capture({ t: 'abort', xid, ts: now(), side, reason });
  };
  /** Answers (and records) a CONNECT mcpscope will not open. */
  const refuseLoop = (req: IncomingMessage, socket: Duplex, target: string, code: string, text: string) => {
    const where = { proxyOrigin: target, target };
    const { xid, ts } = captureUnforwardedRequest(capture, { method: 'CONNECT', url: req.url ?? '', headers: req.headers }, where);
    capture({ t: 'upstream-error', xid, ts, code, message: `Refused by mcpscope: ${text}`, status: 508 });
    refuse(socket, '508 Loop Detected', `mcpscope: ${text}`);
  };

  return (req, socket, head) => {
    socket.on('error', () => undefined);
    const authority = parseAuthority(req.url);
    if (!authority) return refuse(socket, '400 Bad Request', `mcpscope: CONNECT needs a host:port target, not ${JSON.stringify(req.url)}.`);
    const { host, hostname, port } = authority;
    // Origins as URLs write them (no default port), so a session's target reads as the client's URL does.
    const httpsOrigin = new URL(`https://${host}:${port}`).origin;
    const depth = ((socket as TunnelledSocket)[TUNNEL]?.depth ?? 0) + 1;
    if (depth > MAX_TUNNEL_DEPTH)
      return refuseLoop(
        req,
        socket,
        httpsOrigin,
        'TUNNEL_DEPTH',
        `a CONNECT to ${host}:${port} inside ${depth - 1} tunnels through mcpscope: mcpscope nests tunnels at most ${MAX_TUNNEL_DEPTH} deep, so it did not open this one.`,
      );

    /** The socket a time-out closes: the CONNECT's, then the TLS socket on it. */
    let current: Duplex = socket;
    /** What the deadline's record says mcpscope was waiting for. */
    let waitingFor = '';
    /** Set once how it failed is recorded (a time-out, a hang-up): nothing more is. */
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (side: 'client' | 'proxy', reason: string): boolean => {
      if (settled) return false;
      settled = true;
      stopClock();
      recordFailure(req, httpsOrigin, side, reason);
      return true;
    };
    const stopClock = () => clearTimeout(timer);
    const startClock = () => {
      timer = setTimeout(() => {
        if (settle('proxy', `${waitingFor}: mcpscope closed the connection.`)) current.destroy();
      }, timeoutMs);
      socket.once('close', stopClock);
    };
    const hungUp = (reason: string) => () => {
      if (settle('client', reason)) current.destroy();
    };
    const tunnelTo = (why: string, answerConnect: boolean, first?: Buffer) => {
      stopClock();
      blindTunnel(
        socket,
        {
          method: 'CONNECT',
          url: req.url!,
          headers: req.headers,
          host: hostname,
          port,
          target: httpsOrigin,
          why,
          first,
          answerConnect,
          isLoop: (s) => o.self.isSelfSocket(s),
        },
        capture,
      );
    };

    const open = () => {
      if (!intercepts(o.rules, hostname, port))
        return tunnelTo(`${host} matches no --intercept pattern: tunnelled without decrypting`, true, head);
      if (timer === undefined) startClock();
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) socket.unshift(head);
      waitingFor = `The client sent no TLS ClientHello (nor an HTTP request) ${within}`;
      // A client that hangs up before its first bytes are complete: the look at them would wait for ever.
      const closedBeforeHello = hungUp('The client closed the tunnel before it had sent a whole TLS ClientHello or HTTP request.');
      const onEnd = () => socket.destroy();
      socket.once('end', onEnd);
      readTlsClientHello(socket).then(
        (hello) => {
          socket.off('end', onEnd);
          if (socket.destroyed) return closedBeforeHello();
          const sni = getExtensionData(hello, 'sni')?.serverName;
          const alpn = getExtensionData(hello, 'alpn')?.protocols;
          if (alpn && alpn.length > 0 && !alpn.includes('http/1.1')) {
            return tunnelTo(
              `the client offered only ${alpn.join(', ')} (ALPN); mcpscope decrypts HTTP/1.1, so this tunnel is relayed without decrypting`,
              false,
            );
          }
          const name = sni ?? hostname;
          waitingFor = `mcpscope could not make a certificate for ${name} ${within}`;
          const stopWatching = watchForClose(
            socket,
            hungUp(`The client closed the tunnel while mcpscope made its certificate for ${name}.`),
          );
          contextFor(name).then(
            (secureContext) => {
              stopWatching();
              if (!settled && !socket.destroyed) terminate(secureContext, name);
            },
            (err: Error) => {
              stopWatching();
              if (settle('proxy', `mcpscope could not make a certificate for ${name}: ${err.message}`)) socket.destroy();
            },
          );
        },
        (err: Error) => {
          socket.off('end', onEnd);
          if (socket.destroyed) return closedBeforeHello();
          if (!(err instanceof NonTlsError))
            return tunnelTo(`mcpscope could not read the TLS ClientHello (${err.message}); relayed without decrypting`, false);
          const first = (socket as Socket).read?.(Math.min((socket as Socket).readableLength, 16)) as Buffer | null;
          if (first) socket.unshift(first);
          if (first && /^[A-Z]{3,10} \S/.test(first.toString('latin1'))) {
            // Plain HTTP inside the tunnel (undici's ProxyAgent tunnels http:// URLs too).
            stopClock();
            (socket as TunnelledSocket)[TUNNEL] = { origin: new URL(`http://${host}:${port}`).origin, depth };
            o.server.emit('connection', socket);
            return;
          }
          tunnelTo('neither TLS nor HTTP: relayed without decrypting', false);
        },
      );
    };

    const terminate = (secureContext: SecureContext, name: string): void => {
      const tlsSocket = new TLSSocket(socket as Socket, { isServer: true, secureContext, ALPNProtocols: ['http/1.1'] }) as TLSSocket & {
        [TUNNEL]?: TunnelInfo;
      };
      current = tlsSocket;
      waitingFor = `The TLS handshake with the client did not finish ${within}`;
      tlsSocket[TUNNEL] = { origin: httpsOrigin, depth };
      let secure = false;
      tlsSocket.once('secure', () => {
        secure = true;
        stopClock();
        if (!settled) o.server.emit('connection', tlsSocket);
      });
      tlsSocket.on('error', (err: Error & { code?: string }) => {
        if (secure) return;
        const refused = /alert|certificate|unknown ca|bad certificate/i.test(err.message);
        const reason = refused
          ? `The client refused mcpscope's certificate for ${name} (${err.message.trim()}): ${advice}`
          : `The TLS handshake with the client failed (${err.message.trim()}).`;
        if (settle('client', reason)) tlsSocket.destroy();
      });
      // The TLS socket inherits the CONNECT socket's allowHalfOpen (the HTTP server's: true), so a
      // client that hangs up before the handshake is done would leave it half open for ever.
      tlsSocket.once('end', () => {
        if (!secure) tlsSocket.destroy();
      });
      // A Node.js client that rejects the certificate sends no TLS alert: it hangs up in the middle
      // of the (TLS 1.3) handshake, so neither 'secure' nor 'error' comes. Recorded as that refusal.
      // (A connection that closes after the handshake without a request is not: clients do that.)
      tlsSocket.once('close', () => {
        if (secure) return;
        settle(
          'client',
          `The client refused mcpscope's certificate for ${name}, it seems: it hung up during the TLS handshake without a TLS alert, as Node.js clients do when they reject a certificate, so ${advice}`,
        );
      });
    };

    if (!o.self.watches(port)) return open();
    // A CONNECT to the port mcpscope listens on: whether the host is this machine decides, before
    // anything is answered (a client hanging up meanwhile is noticed; the deadline bounds the lookup).
    waitingFor = `mcpscope could not tell ${within} whether ${host} is this machine (the CONNECT names mcpscope's own port and the name did not resolve in time)`;
    startClock();
    const stopWatching = watchForClose(socket, hungUp('The client closed the connection before mcpscope answered its CONNECT.'));
    void o.self.isSelf(hostname, port).then((self) => {
      stopWatching();
      if (settled || socket.destroyed) return;
      if (!self) return open();
      stopClock();
      settled = true;
      refuseLoop(req, socket, httpsOrigin, 'LOOP', `a CONNECT to the proxy itself (${host}:${port}) would loop.`);
    });
  };
}
