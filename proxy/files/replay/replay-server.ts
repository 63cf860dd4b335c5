/**
 * `mcpscope replay`: a mock MCP server that answers from a fixture (matching and re-emission in
 * replay-matching.ts and replay-session.ts), over Streamable HTTP or stdio.
 *
 * The HTTP layer is written by hand on node:http rather than with the SDK's
 * StreamableHTTPServerTransport: replay must choose SSE or JSON per request (as the recording
 * did), put recorded frames on a given request's stream in recorded order with rewritten ids, and
 * answer requests no SDK `Server` would accept (any recorded method, recorded errors verbatim).
 * The SDK transport decides SSE-vs-JSON once per transport and routes messages through its own
 * request/response bookkeeping, which is exactly what replay needs to control. What the mock
 * implements of the transport (MCP 2025-03-26 … 2025-11-25 Streamable HTTP):
 * - POST on the recorded path: a JSON-RPC message or batch. Only notifications/responses → 202.
 *   Requests → an SSE stream (`text/event-stream`, one `event: message` per frame, closed after
 *   the last response) when the recording answered that request with SSE, else a JSON body
 *   (also when the client's Accept lacks text/event-stream).
 * - `initialize` creates a session with a fresh `Mcp-Session-Id` when the recorded server used
 *   session ids; later requests must carry it (400 without, 404 for an unknown or deleted one).
 * - GET opens the standalone SSE stream (one per session, 409 for a second; 405 when the
 *   recorded server refused it). No event ids are sent, so there is nothing to resume.
 * - DELETE ends the session.
 * - Bound to loopback, requests whose Host or Origin is not loopback are refused (403), as a
 *   DNS-rebinding guard.
 * Answers keep the recorded timing unless `timing` says otherwise (see replay-session.ts). A client
 * asking for an older protocol version than the recorded one gets it in `initialize`
 * (replay-version.ts); the requests that follow carry it in MCP-Protocol-Version, which the mock
 * does not compare with the recording.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Fixture } from '../../core/model/fixture-format.js';
import { isAllowedOrigin, isLoopbackHostname, splitHost } from '../../wire/guards.js';
import { parseJsonCapped } from '../../core/parse/json-depth.js';
import { buildReplayModel, type ReplayModel } from './replay-matching.js';
import {
  isRequest,
  ReplaySession,
  timingFactor,
  type JsonRpcMessage,
  type ReplaySink,
  type ReplaySessionOptions,
} from './replay-session.js';
import { firstHeader } from '../../core/model/headers.js';

export interface MockServerOptions extends ReplaySessionOptions {
  /** Port to listen on (default 0: any free port; read it from `url`). */
  port?: number;
  /** Interface (default 127.0.0.1). */
  host?: string;
  /** The endpoint path (default: the recorded one, else /mcp). */
  path?: string;
  /** HTTP only: `startStdioMock` serves stdio. */
  stdio?: false;
}

export interface MockServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:54321/mcp`. */
  url: string;
  /** Ends every session and stream and stops listening. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** A sink writing SSE `message` events to a response. */
function sseSink(res: ServerResponse): ReplaySink {
  const callbacks: (() => void)[] = [];
  let closed = false;
  const onClose = () => {
    if (closed) return;
    closed = true;
    for (const cb of callbacks.splice(0)) cb();
  };
  res.on('close', onClose);
  return {
    streaming: true,
    get closed() {
      return closed || res.writableEnded || res.destroyed;
    },
    send(message) {
      if (this.closed) return false;
      res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
      return true;
    },
    onClose(cb) {
      if (closed) cb();
      else callbacks.push(cb);
    },
  };
}

/** A sink collecting the responses of a JSON-answered POST. */
function jsonSink(res: ServerResponse): ReplaySink & { responses: JsonRpcMessage[] } {
  const callbacks: (() => void)[] = [];
  let closed = false;
  res.on('close', () => {
    if (!res.writableFinished) {
      closed = true;
      for (const cb of callbacks.splice(0)) cb();
    }
  });
  const responses: JsonRpcMessage[] = [];
  return {
    responses,
    streaming: false,
    get closed() {
      return closed;
    },
    send(message) {
      if (closed) return false;
      responses.push(message);
      return true;
    },
    onClose(cb) {
      if (closed) cb();
      else callbacks.push(cb);
    },
  };
}

interface HttpSession {
  id: string | undefined;
  replay: ReplaySession;
  getStream?: ServerResponse;
}

const headerValue = (req: IncomingMessage, name: string): string | undefined => firstHeader(req.headers, name);

function toModel(fixture: Fixture | ReplayModel): ReplayModel {
  return 'calls' in fixture && 'byKey' in fixture ? fixture : buildReplayModel(fixture);
}

/** Serves a fixture as a Streamable HTTP MCP server; resolves once it listens. */
export async function startMockServer(fixture: Fixture, options: MockServerOptions = {}): Promise<MockServer> {
  const model = toModel(fixture);
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? model.path;
  const loopbackOnly = isLoopbackHostname(host.replace(/^\[|\]$/g, ''));
  const sessions = new Map<string, HttpSession>();
  let statelessSession: HttpSession | undefined;
  const openResponses = new Set<ServerResponse>();
  const sessionOptions: ReplaySessionOptions = {
    timing: timingFactor(options),
    log: options.log,
    notice: options.notice,
    frameGapMs: options.frameGapMs,
  };

  const newSession = (): HttpSession => {
    const id = model.stateful ? randomUUID() : undefined;
    const s: HttpSession = { id, replay: new ReplaySession(model, sessionOptions) };
    if (id) sessions.set(id, s);
    return s;
  };
  const endSession = (s: HttpSession): void => {
    if (s.id) sessions.delete(s.id);
    s.replay.close();
    s.getStream?.end();
  };

  /** The session a non-initialize request belongs to, or an error already sent. */
  const sessionOf = (req: IncomingMessage, res: ServerResponse): HttpSession | undefined => {
    if (!model.stateful) return (statelessSession ??= newSession());
    const sid = headerValue(req, 'mcp-session-id');
    if (sid === undefined) {
      jsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      return undefined;
    }
    const s = sessions.get(sid);
    if (!s) jsonRpcError(res, 404, -32001, 'Session not found');
    return s;
  };

  const handlePost = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let body: unknown;
    try {
      body = parseJsonCapped((await readBody(req)).toString('utf8'));
    } catch (err) {
      if ((err as Error).message === 'too large') jsonRpcError(res, 413, -32000, 'Payload Too Large');
      else jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
      return;
    }
    const batch = Array.isArray(body);
    const messages = (batch ? body : [body]) as unknown[];
    if (messages.length === 0 || messages.some((m) => m === null || typeof m !== 'object' || Array.isArray(m))) {
      jsonRpcError(res, 400, -32600, 'Invalid Request: expected a JSON-RPC message or a batch of them');
      return;
    }
    const msgs = messages as JsonRpcMessage[];
    const initialize = msgs.some((m) => m.method === 'initialize' && isRequest(m));
    const session = initialize ? (model.stateful ? newSession() : (statelessSession ??= newSession())) : sessionOf(req, res);
    if (!session) return;
    const sessionHeader: Record<string, string> = session.id ? { 'mcp-session-id': session.id } : {};

    const requests = msgs.filter(isRequest);
    if (requests.length === 0) {
      for (const m of msgs) await session.replay.handle(m, jsonSink(res));
      res.writeHead(202, sessionHeader).end();
      return;
    }
    const accept = headerValue(req, 'accept') ?? '';
    const wantsSse =
      session.replay.carrierFor(requests[0]) !== 'post-json' &&
      (accept === '' || accept.includes('text/event-stream') || accept.includes('*/*'));
    if (wantsSse) {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        ...sessionHeader,
      });
      res.flushHeaders();
      const sink = sseSink(res);
      openResponses.add(res);
      res.on('close', () => openResponses.delete(res));
      await Promise.all(msgs.map((m) => session.replay.handle(m, sink)));
      res.end();
      return;
    }
    const sink = jsonSink(res);
    await Promise.all(msgs.map((m) => session.replay.handle(m, sink)));
    if (sink.closed) return;
    const payload = JSON.stringify(batch ? sink.responses : (sink.responses[0] ?? null));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...sessionHeader });
    res.end(payload);
  };

  const handleGet = (req: IncomingMessage, res: ServerResponse): void => {
    if (model.noGetStream) {
      jsonRpcError(res, 405, -32000, 'Method Not Allowed: the recorded server offered no standalone stream', { allow: 'POST, DELETE' });
      return;
    }
    const accept = headerValue(req, 'accept') ?? '';
    if (accept !== '' && !accept.includes('text/event-stream') && !accept.includes('*/*')) {
      jsonRpcError(res, 406, -32000, 'Not Acceptable: the client must accept text/event-stream');
      return;
    }
    const session = sessionOf(req, res);
    if (!session) return;
    if (session.getStream && !session.getStream.writableEnded && !session.getStream.destroyed) {
      jsonRpcError(res, 409, -32000, 'Conflict: only one standalone SSE stream is allowed per session');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      ...(session.id ? { 'mcp-session-id': session.id } : {}),
    });
    res.flushHeaders();
    session.getStream = res;
    openResponses.add(res);
    const sink = sseSink(res);
    session.replay.attachBackground(sink);
    res.on('close', () => {
      openResponses.delete(res);
      session.replay.detachBackground(sink);
      if (session.getStream === res) session.getStream = undefined;
    });
  };

  const handleDelete = (req: IncomingMessage, res: ServerResponse): void => {
    if (!model.stateful) {
      jsonRpcError(res, 405, -32000, 'Method Not Allowed: the recorded server had no sessions', { allow: 'GET, POST' });
      return;
    }
    const session = sessionOf(req, res);
    if (!session) return;
    endSession(session);
    res.writeHead(200).end();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://replay.invalid');
    if (url.pathname !== path) {
      jsonRpcError(res, 404, -32000, `Not Found: the recorded MCP endpoint is ${path}`);
      return;
    }
    if (loopbackOnly) {
      const hostHeader = headerValue(req, 'host');
      if (
        !hostHeader ||
        !isLoopbackHostname(splitHost(hostHeader).hostname.replace(/^\[|\]$/g, '')) ||
        !isAllowedOrigin(headerValue(req, 'origin'))
      ) {
        jsonRpcError(res, 403, -32000, 'Forbidden: Host/Origin is not a loopback address');
        return;
      }
    }
    switch (req.method) {
      case 'POST':
        return handlePost(req, res);
      case 'GET':
        return handleGet(req, res);
      case 'DELETE':
        return handleDelete(req, res);
      default:
        jsonRpcError(res, 405, -32000, 'Method Not Allowed', { allow: 'GET, POST, DELETE' });
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      options.log?.(`! internal error: ${(err as Error).stack ?? String(err)}`);
      jsonRpcError(res, 500, -32603, `Internal error in the mock: ${(err as Error).message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}${path}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const s of [...sessions.values(), ...(statelessSession ? [statelessSession] : [])]) endSession(s);
        for (const res of openResponses) res.end();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

export interface StdioMockOptions extends ReplaySessionOptions {
  stdin: Readable;
  stdout: Writable;
}

/** Default pause after a notification on stdio (see ReplaySessionOptions.frameGapMs). */
export const STDIO_FRAME_GAP_MS = 10;

export interface StdioMock {
  /** Resolves when stdin has ended and every answer has been written. */
  done: Promise<void>;
  close(): Promise<void>;
}

/** Serves a fixture over newline-delimited JSON-RPC (the MCP stdio transport). */
export function startStdioMock(fixture: Fixture, options: StdioMockOptions): StdioMock {
  const model = toModel(fixture);
  const replay = new ReplaySession(model, {
    timing: timingFactor(options),
    log: options.log,
    notice: options.notice,
    frameGapMs: options.frameGapMs ?? STDIO_FRAME_GAP_MS,
  });
  let closed = false;
  const closeCallbacks: (() => void)[] = [];
  const sink: ReplaySink = {
    streaming: true,
    get closed() {
      return closed || options.stdout.writableEnded || options.stdout.destroyed;
    },
    send(message) {
      if (this.closed) return false;
      options.stdout.write(`${JSON.stringify(message)}\n`);
      return true;
    },
    onClose(cb) {
      if (closed) cb();
      else closeCallbacks.push(cb);
    },
  };
  replay.attachBackground(sink);
  const pending = new Set<Promise<void>>();
  const lines = createInterface({ input: options.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = parseJsonCapped(line);
    } catch {
      sink.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not valid JSON' } });
      return;
    }
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcMessage[];
    for (const m of messages) {
      if (m === null || typeof m !== 'object') continue;
      const p = replay.handle(m, sink).catch((err: unknown) => options.log?.(`! internal error: ${(err as Error).stack ?? String(err)}`));
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }
  });
  const done = new Promise<void>((resolve) => {
    lines.once('close', () => {
      void Promise.all([...pending]).then(() => resolve());
    });
  });
  return {
    done,
    async close() {
      closed = true;
      for (const cb of closeCallbacks.splice(0)) cb();
      replay.close();
      lines.close();
    },
  };
}
