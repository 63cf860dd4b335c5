/**
 * Graceful shutdown of the proxy ports (docs/architecture.md, "Shutdown"). On SIGTERM/SIGINT the
 * ports stop accepting connections and idle keep-alive connections are closed; calls in flight —
 * every request whose response has not finished, except GET event streams — get up to the grace
 * period to finish, each closing its connection when it does. GET event streams and blind tunnels
 * (CONNECT relays, upgrades: mcpscope cannot see what they carry) do not hold shutdown by
 * themselves: they are ended as soon as no call is left, or at the grace period's end, with the
 * calls still running (recorded as aborted by mcpscope's shutdown).
 *
 * Nothing here runs per request: connections are tracked as they open (one Set entry each), and
 * what each one is doing is read from Node's own state only when shutdown asks.
 */
import type { Server, ServerResponse, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { WireRecord } from '../capture/wire-records.js';
import { now as clock } from '../capture/clock.js';

/** What a connection is busy with, from Node's http server: its current response, if any. */
type HttpSocket = Socket & { _httpMessage?: (ServerResponse & { req?: IncomingMessage }) | null };

const tracked = new WeakMap<Server, Set<HttpSocket>>();

/** Keeps the set of a server's open connections (sockets emitted into it by CONNECT handling included). */
export function trackConnections(server: Server): void {
  const sockets = new Set<HttpSocket>();
  tracked.set(server, sockets);
  server.on('connection', (s: HttpSocket) => {
    if (sockets.has(s)) return;
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
}

export interface InFlight {
  /** Requests whose response has not finished (GET event streams aside). */
  calls: number;
  /** GET event streams and blind tunnels still open. */
  streams: number;
}

/** A GET that asked for an event stream: it may stay open for ever, so it does not hold shutdown. */
function isEventStream(req: IncomingMessage | undefined): boolean {
  if (!req || req.method !== 'GET') return false;
  const accept = req.headers.accept;
  return typeof accept === 'string' && accept.includes('text/event-stream');
}

/** Counts what the servers' connections are doing now; `watch` gets each call's response. */
function survey(servers: Server[], watch?: (res: ServerResponse) => void): InFlight {
  const now: InFlight = { calls: 0, streams: 0 };
  for (const server of servers) {
    for (const s of tracked.get(server) ?? []) {
      const res = s._httpMessage;
      if (res && !res.writableFinished) {
        if (isEventStream(res.req)) now.streams += 1;
        else {
          now.calls += 1;
          watch?.(res);
        }
      } else if (!(s as { parser?: unknown }).parser && !s.destroyed) {
        // Taken out of HTTP parsing: a CONNECT tunnel or an upgrade, relayed blind.
        now.streams += 1;
      }
    }
  }
  return now;
}

/**
 * Stops the servers accepting connections and resolves once no call is in flight, or after
 * `graceMs` with how many were still running (`cut`). Closing what is left is the caller's
 * (fastify's close). `started` gets the first count at once (the CLI says what it waits for).
 */
export function drainServers(servers: Server[], graceMs: number, started: (now: InFlight) => void): Promise<{ cut: number }> {
  // No new connections; Node closes the idle keep-alive ones.
  for (const server of servers) server.close();
  return new Promise((resolve) => {
    const watched = new WeakSet<ServerResponse>();
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (cut: number) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      resolve({ cut });
    };
    const check = (): InFlight => {
      // A connection whose call just finished is idle now: close it before it brings another.
      for (const server of servers) server.closeIdleConnections();
      const now = survey(servers, (res) => {
        if (watched.has(res)) return;
        watched.add(res);
        res.once('close', () => {
          if (!done && check().calls === 0) finish(0);
        });
      });
      return now;
    };
    const first = check();
    started(first);
    if (first.calls === 0) return finish(0);
    timer = setTimeout(() => finish(survey(servers).calls), graceMs);
  });
}

/**
 * Set once the drain is over and what is still open is about to be cut (the proxy thread, before
 * cutConnections): an exchange cut from then on is recorded as cut by mcpscope, not as a peer going away.
 */
let shutdownReason: string | undefined;
export function markShuttingDown(reason: string): void {
  shutdownReason = reason;
}

/** Why a response was cut when its client closed the connection in the middle of it. */
export const CLIENT_CLOSED = 'the client closed the connection; mcpscope closed the upstream request too';

/** Once mcpscope shuts down (markShuttingDown): the record of an exchange it cut; before that, undefined. */
export function cutByShutdown(xid: string): WireRecord | undefined {
  return shutdownReason === undefined ? undefined : { t: 'abort', xid, ts: clock(), side: 'proxy', reason: shutdownReason };
}

/**
 * The record of an exchange whose client connection closed before it was over: the client's
 * doing, or — once mcpscope shuts down and cuts it — mcpscope's. Every place that records a client
 * going away uses it, so that a shutdown is never recorded as a client abort.
 */
export function clientAbort(xid: string, reason: string): WireRecord {
  return cutByShutdown(xid) ?? { t: 'abort', xid, ts: clock(), side: 'client', reason };
}

/**
 * Cuts every connection of the servers still open (calls past the grace period, event streams,
 * tunnels) and resolves once each has closed, so that how each exchange ended is captured before
 * the proxy thread hands over its last records.
 */
export async function cutConnections(servers: Server[]): Promise<void> {
  const closing: Promise<void>[] = [];
  for (const server of servers) {
    for (const s of tracked.get(server) ?? []) {
      if (!s.closed) closing.push(new Promise<void>((resolve) => s.once('close', () => resolve())));
      s.destroy();
    }
  }
  await Promise.all(closing);
}
