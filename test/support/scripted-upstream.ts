/**
 * A hand-scripted HTTP upstream on an OS-chosen loopback port, for wire behaviour no real MCP
 * server here produces on demand (other SDKs' dialects, exact chunking, timing, resets).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void | Promise<void>;

export interface ScriptedUpstream {
  origin: string;
  server: Server;
  /** Requests seen, in order. */
  seen: { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }[];
  close(): Promise<void>;
}

export async function startScriptedUpstream(routes: Record<string, Handler>): Promise<ScriptedUpstream> {
  const seen: ScriptedUpstream['seen'] = [];
  const sockets = new Set<Socket>();
  // A path some route serves with other methods answers 405, as a real server does (and as the
  // Streamable HTTP transport requires of a server that offers no GET stream) — not 404, which on a
  // request carrying Mcp-Session-Id means "this session expired" and makes mcpscope close it.
  const served = new Set(Object.keys(routes).map((k) => (k.includes(' ') ? k.slice(k.indexOf(' ') + 1) : k)));
  const missing = (res: ServerResponse, path: string) =>
    served.has(path)
      ? void res.writeHead(405, { allow: allowed(path) }).end('method not allowed')
      : void res.writeHead(404).end('no such route');
  const allowed = (path: string) =>
    Object.keys(routes)
      .filter((k) => k.endsWith(` ${path}`))
      .map((k) => k.slice(0, k.indexOf(' ')))
      .join(', ');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const path = (req.url ?? '').split('?')[0];
    const route = routes[`${req.method} ${path}`] ?? routes[path];
    // GET handlers start at once (a stream may need to start before any body); others get the body.
    if (req.method === 'GET' || req.method === 'HEAD') {
      seen.push({ method: req.method, url: req.url ?? '', headers: req.headers, body: Buffer.alloc(0) });
      if (!route) return missing(res, path);
      return void route(req, res, Buffer.alloc(0));
    }
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (!route) return missing(res, path);
      void route(req, res, body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    server,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Resolves when `emitter` emits `event` (rejects after `ms`, naming what was awaited). */
export function once<T = unknown>(register: (cb: (v: T) => void) => void, what: string, ms = 10_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    register((v) => {
      clearTimeout(timer);
      resolve(v);
    });
  });
}

/** A promise with its resolve function exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
