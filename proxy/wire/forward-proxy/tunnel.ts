/**
 * Blind tunnels: bytes relayed between the client's socket and a new connection to the server,
 * neither read nor changed. Used for a CONNECT to a host that `--intercept` leaves alone, for
 * TLS the proxy cannot take part in (a client offering only HTTP/2, a ClientHello it cannot
 * read) and for protocol upgrades (WebSocket) inside a decrypted tunnel. Each is recorded as one
 * exchange: the request line, 200 once the server's side is connected, the bytes each way (as
 * `*-skip` records: forwarded, not parsed) and how it ended. Byte counts come from the sockets'
 * own counters at the end, so relaying costs nothing per chunk.
 *
 * Until the server's side is connected the client's socket is watched (close-watch.ts): a client
 * that hangs up meanwhile ends the attempt at once instead of leaving its socket in CLOSE_WAIT. A
 * connection that reached mcpscope's own forward proxy (`isLoop`, by the socket's address) is
 * cut and answered 508. TLS to the server is verified whatever NODE_TLS_REJECT_UNAUTHORIZED says.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { HeaderMap, WireRecord } from '../capture/wire-records.js';
import { now } from '../capture/clock.js';
import { nextExchangeId } from '../forwarder/exchange-ids.js';
import { describeUpstreamError } from '../forwarder/upstream-errors.js';
import { clientAbort, cutByShutdown } from '../forwarder/drain.js';
import { VERIFY_UPSTREAM } from '../forwarder/upstream-tls.js';
import { watchForClose } from './close-watch.js';

export interface TunnelRequest {
  /** Recorded as the exchange's request line. */
  method: string;
  url: string;
  headers: HeaderMap;
  /** The server to connect to (no brackets on IPv6 literals). */
  host: string;
  port: number;
  /** Connect with TLS (verifying the server as any client would), for an upgrade inside a decrypted tunnel. */
  tls?: ConnectionOptions;
  /** The recorded target/origin of the session it belongs to (e.g. https://host:443). */
  target: string;
  /** Why it is tunnelled blind, in plain words (recorded). */
  why: string;
  /** Bytes to send to the server first (an upgrade request's head, bytes read past it). */
  first?: Buffer;
  /** The CONNECT is still unanswered: answer 200 once connected, 502 if the server cannot be reached. */
  answerConnect: boolean;
  /** The client waits for an HTTP answer (an upgrade request): a 502 if the server cannot be reached. */
  answerFailure?: boolean;
  /** True for a connected socket that leads back to mcpscope's own forward proxy (self-address.ts). */
  isLoop?(server: Socket): boolean;
}

function answer(client: Duplex, status: string, code: string, message: string): void {
  const body = `${message}\n`;
  client.end(
    `HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-mcpscope-error: ${code}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export function blindTunnel(client: Duplex, t: TunnelRequest, capture: (r: WireRecord) => void): void {
  const xid = nextExchangeId();
  capture({
    t: 'request',
    xid,
    ts: now(),
    method: t.method,
    url: t.url,
    upstreamUrl: t.target,
    headers: t.headers,
    proxyOrigin: t.target,
    target: t.target,
    tunnel: t.why,
  });
  capture({ t: 'request-end', xid, ts: now() });
  const server: Socket = t.tls
    ? tlsConnect({ ...t.tls, ...VERIFY_UPSTREAM, host: t.host, port: t.port })
    : netConnect({ host: t.host, port: t.port });
  let connected = false;
  let done = false;
  const finish = (record?: WireRecord) => {
    if (done) return;
    done = true;
    stopWatching();
    if (connected) {
      if (server.bytesWritten > 0) capture({ t: 'request-skip', xid, ts: now(), bytes: server.bytesWritten - (t.first?.length ?? 0) });
      if (server.bytesRead > 0) capture({ t: 'response-skip', xid, ts: now(), bytes: server.bytesRead });
    }
    capture(record ?? { t: 'response-end', xid, ts: now() });
    client.destroy();
    server.destroy();
  };
  // While the server's side connects, a client that hangs up ends it (its bytes meanwhile are kept).
  const stopWatching = watchForClose(client, () =>
    finish(clientAbort(xid, 'the client closed the connection before the tunnel to the server was open')),
  );
  server.once(t.tls ? 'secureConnect' : 'connect', () => {
    if (done) return;
    stopWatching();
    if (t.isLoop?.(server)) {
      const message = `mcpscope: ${t.host}:${t.port} is mcpscope's own forward proxy: a tunnel there would loop, so mcpscope did not open it.`;
      capture({ t: 'upstream-error', xid, ts: now(), code: 'LOOP', message, status: 508 });
      done = true;
      server.destroy();
      if ((t.answerConnect || t.answerFailure) && !client.destroyed) answer(client, '508 Loop Detected', 'LOOP', message);
      else client.destroy();
      return;
    }
    connected = true;
    capture({ t: 'response', xid, ts: now(), status: 200, headers: {} });
    if (t.answerConnect) client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (t.first && t.first.length > 0) server.write(t.first);
    client.pipe(server);
    server.pipe(client);
  });
  server.on('error', (err) => {
    const { code, cause } = describeUpstreamError(err);
    if (done) return;
    if (!connected) {
      const message = `mcpscope could not open a tunnel to ${t.host}:${t.port}: ${cause}`;
      capture({ t: 'upstream-error', xid, ts: now(), code, message, status: 502 });
      done = true;
      stopWatching();
      if ((t.answerConnect || t.answerFailure) && !client.destroyed) answer(client, '502 Bad Gateway', code, message);
      else client.destroy();
      return;
    }
    finish({ t: 'abort', xid, ts: now(), side: 'upstream', reason: `the server broke off the tunnel (${cause})` });
  });
  client.on('error', () => finish(clientAbort(xid, 'the client broke off the tunnel')));
  // Either side closing ends the tunnel for both, as a direct connection would end; mcpscope's
  // shutdown cutting the client's side is recorded as that.
  server.on('close', () => finish());
  client.on('close', () => finish(cutByShutdown(xid)));
}
