/**
 * Peers for the forward-proxy tests: a test CA of their own (made like mcpscope's, in a temp
 * directory, so that it is NOT mcpscope's CA), an official-SDK Streamable HTTP server over
 * `node:https` (or plain `node:http`) with a few tools that let a test see streaming and
 * disconnects from the server's side, and small raw-socket helpers for CONNECT.
 *
 * Everything listens on 127.0.0.1 on an OS-chosen port; servers are addressed as `localhost`
 * (the name their leaf certificate is for). No sleeps: every wait is on an event.
 */
import { EventEmitter, once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, ProxyAgent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { z } from 'zod';
import { LeafIssuer, loadOrCreateCa, x509, type CaMaterial, type LocalCa } from '../../proxy/wire/forward-proxy/ca.js';
import { freePort } from './free-port.js';

export interface TestCa {
  ca: LocalCa;
  /** A leaf for `localhost`, signed by this CA. */
  leaf: CaMaterial;
  issuer: LeafIssuer;
  /** The CA's subject common name (to recognise a certificate it issued). */
  commonName: string;
  remove(): void;
}

/** A CA that is not mcpscope's: made with mcpscope's own code, in a temp MCPSCOPE_HOME. */
export async function makeTestCa(): Promise<TestCa> {
  const home = mkdtempSync(join(tmpdir(), 'mcpscope-test-ca-'));
  const ca = await loadOrCreateCa({ env: { MCPSCOPE_HOME: home } });
  const issuer = new LeafIssuer(ca);
  const leaf = await issuer.leafFor('localhost');
  const commonName = new x509.X509Certificate(ca.certPem).subjectName.getField('CN')[0];
  return { ca, leaf, issuer, commonName, remove: () => rmSync(home, { recursive: true, force: true }) };
}

function deferred<T = void>(): { promise: Promise<T>; resolve(v: T): void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export interface ClosedEarly {
  method: string;
  url: string;
  /** The JSON-RPC method of the request body, when it had one. */
  rpcMethod?: string;
}

export interface SdkServer {
  /** `https://localhost:<port>/mcp` (or http://…). */
  url: string;
  /** `https://localhost:<port>`. */
  origin: string;
  port: number;
  /** HTTP requests seen so far (method and url). */
  seen: { method: string; url: string }[];
  /**
   * Emits `closed-early` (ClosedEarly) when a response closed before it finished (the client, or
   * the proxy on its behalf, went away), `get-stream` (the session id) once a standalone GET SSE
   * stream's head was written (the stream is registered by then), `hang-started` when the
   * `hang` tool runs.
   */
  events: EventEmitter;
  /** Session ids whose standalone GET stream is open. */
  getStreams: Set<string>;
  /** The McpServer of a session. */
  serverOf(sessionId: string): McpServer | undefined;
  /** Lets the pending `progress-then-wait` call answer. */
  release(): void;
  close(): Promise<void>;
}

/** Resolves with the first `name` event whose argument passes `accept`. */
export function nextEvent<T>(emitter: EventEmitter, name: string, accept: (value: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve) => {
    const on = (value: T) => {
      if (!accept(value)) return;
      emitter.off(name, on);
      resolve(value);
    };
    emitter.on(name, on);
  });
}

/**
 * An official-SDK Streamable HTTP server (stateful; SSE responses, or JSON ones with `json`) with tools:
 * `add` {a,b}; `echo` {message}; `slow` {ms}: one progress notification (when the call has a
 * progressToken), then the answer after `ms`; `progress-then-wait`: sends one progress
 * notification, then waits for `release()`; `hang`: never answers; and what `extend` registers.
 */
export async function startSdkServer(
  options: {
    tls?: CaMaterial;
    json?: boolean;
    /** Answer every GET with 404 "Cannot GET /mcp", as an app with only a POST route does (the spec wants 405). */
    noGetRoute?: boolean;
    /** The server's `instructions` in its initialize result. */
    instructions?: string;
    /** Registers more tools (or resources, prompts) on each session's McpServer. */
    extend?: (mcp: McpServer) => void;
  } = {},
): Promise<SdkServer> {
  const events = new EventEmitter();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const servers = new Map<string, McpServer>();
  const getStreams = new Set<string>();
  const seen: { method: string; url: string }[] = [];
  let gate = deferred();

  const newSession = async (): Promise<StreamableHTTPServerTransport> => {
    const mcp = new McpServer(
      { name: 'tls-peer', version: '1.2.3' },
      { capabilities: { logging: {} }, ...(options.instructions !== undefined ? { instructions: options.instructions } : {}) },
    );
    const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: options.json ?? false,
      onsessioninitialized: (id) => {
        transports.set(id, t);
        servers.set(id, mcp);
      },
    });
    mcp.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }));
    mcp.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({
      content: [{ type: 'text', text: `echo: ${message}` }],
    }));
    mcp.registerTool('slow', { inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
      const token = extra._meta?.progressToken;
      if (token !== undefined)
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } });
      await new Promise((r) => setTimeout(r, ms));
      return { content: [{ type: 'text', text: `slept ${ms}` }] };
    });
    mcp.registerTool('progress-then-wait', {}, async (extra) => {
      const held = (gate = deferred());
      const token = extra._meta?.progressToken;
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1, total: 2, message: 'waiting for the test' },
        });
      await held.promise;
      return { content: [{ type: 'text', text: 'released' }] };
    });
    mcp.registerTool('hang', {}, async () => {
      events.emit('hang-started');
      return new Promise<never>(() => undefined);
    });
    options.extend?.(mcp);
    await mcp.connect(t);
    return t;
  };

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '' });
    if (options.noGetRoute && req.method === 'GET') {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('Cannot GET /mcp');
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const rpcMethod = (body as { method?: string } | undefined)?.method;
    res.on('close', () => {
      if (!res.writableFinished)
        events.emit('closed-early', { method: req.method ?? '', url: req.url ?? '', rpcMethod } satisfies ClosedEarly);
    });
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'GET' && typeof sid === 'string') {
      const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
      (res as { writeHead: unknown }).writeHead = (...a: unknown[]) => {
        const r = writeHead(...a);
        if (res.statusCode === 200) {
          getStreams.add(sid);
          res.on('close', () => getStreams.delete(sid));
          events.emit('get-stream', sid);
        }
        return r;
      };
    }
    let t = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (!t) {
      if (typeof sid === 'string') {
        res.writeHead(404).end();
        return;
      }
      t = await newSession();
    }
    await t.handleRequest(req, res, body);
  };
  const server: Server = options.tls
    ? createHttpsServer({ key: options.tls.keyPem, cert: options.tls.certPem }, (q, s) => void handler(q, s))
    : createHttpServer((q, s) => void handler(q, s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const origin = `${options.tls ? 'https' : 'http'}://localhost:${port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    port,
    seen,
    events,
    getStreams,
    serverOf: (id) => servers.get(id),
    release: () => gate.resolve(),
    async close() {
      gate.resolve();
      for (const t of transports.values()) await t.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A port that nothing listens on (bound by the OS, then closed). */
export const closedPort = freePort;

export interface ConnectResult {
  status: number;
  headers: IncomingMessage['headers'];
  socket: Socket;
  head: Buffer;
}

/** Sends `CONNECT <authority>` to the proxy and resolves with its answer and the raw socket. */
export function connectThrough(proxyOrigin: string, authority: string): Promise<ConnectResult> {
  const u = new URL(proxyOrigin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: Number(u.port), method: 'CONNECT', path: authority, headers: { host: authority } });
    req.once('connect', (res: IncomingMessage, socket: Socket, head: Buffer) =>
      resolve({ status: res.statusCode ?? 0, headers: res.headers, socket, head }),
    );
    req.once('error', reject);
    req.end();
  });
}

/** Reads a socket to its end (after `head`), as text. */
export async function readToEnd(socket: Socket, head: Buffer = Buffer.alloc(0)): Promise<string> {
  const chunks: Buffer[] = [head];
  socket.on('data', (c: Buffer) => chunks.push(c));
  await Promise.race([once(socket, 'end'), once(socket, 'close')]);
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes `text` to host:port on a new TCP connection and returns everything read until it closes. */
export async function rawExchange(port: number, text: string): Promise<string> {
  const socket = netConnect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write(text);
  const out = await readToEnd(socket);
  socket.destroy();
  return out;
}

export interface ClientFetch {
  dispatcher: Dispatcher;
  /** A fetch for the SDK client's transport (`{ fetch }`) and for raw requests. */
  fetch: FetchLike;
  close(): Promise<void>;
}

function fetchVia(dispatcher: Dispatcher): ClientFetch {
  const fetch = ((url: string | URL, init?: RequestInit) =>
    undiciFetch(url, { ...(init as object), dispatcher } as never)) as unknown as FetchLike;
  return { dispatcher, fetch, close: () => dispatcher.close() };
}

/**
 * A client using `proxyOrigin` as its HTTP(S) proxy (undici's ProxyAgent): `tunnel: false` sends
 * http:// requests in absolute-form, otherwise everything goes through CONNECT; `ca`: the only
 * CA the client trusts for the server's (or mcpscope's) certificate, else Node's roots.
 */
export function viaProxy(proxyOrigin: string, o: { tunnel?: boolean; ca?: string } = {}): ClientFetch {
  return fetchVia(
    new ProxyAgent({ uri: proxyOrigin, proxyTunnel: o.tunnel ?? true, ...(o.ca !== undefined ? { requestTls: { ca: o.ca } } : {}) }),
  );
}

/** A client connecting directly, trusting `ca` (or Node's roots). */
export function direct(ca?: string): ClientFetch {
  return fetchVia(new Agent(ca !== undefined ? { connect: { ca } } : {}));
}
