/**
 * The embedded demo MCP server.
 *
 * A small but realistic Streamable HTTP server built with the official SDK, so that a newcomer who
 * runs `mcpscope` without an upstream of their own still sees every interesting kind of traffic:
 * plain tool calls, structured results, progress notifications and log lines on a POST stream,
 * tool errors (`isError: true`), JSON-RPC errors, server→client requests (sampling and
 * elicitation), out-of-order completion of concurrent calls, cancellation, prompts, resources,
 * `notifications/tools/list_changed`, session termination and SSE resumption.
 *
 * Shape: a plain `node:http` server with one endpoint (`/mcp`, POST/GET/DELETE), stateful sessions
 * (one `McpServer` + `StreamableHTTPServerTransport` per `Mcp-Session-Id`), and a per-session
 * in-memory event store so a client can resume a broken SSE stream with `Last-Event-ID`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  StreamableHTTPServerTransport,
  type EventId,
  type EventStore,
  type StreamId,
} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isLoopbackHostname } from '../../wire/guards.js';
import { answerCrashWithJsonRpcError, createDemoMcpServer } from './demo-tools.js';

export interface DemoServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:54321/mcp`. */
  url: string;
  /** Closes every session (their open streams end) and the HTTP server. */
  close(): Promise<void>;
}

export interface DemoServerOptions {
  /** Port to listen on; default 0 (the OS picks one — read it from `url`). */
  port?: number;
  /** Interface to bind; default `127.0.0.1`. */
  host?: string;
}

/** The path of the single MCP endpoint. */
export const DEMO_MCP_PATH = '/mcp';

/** Largest POST body the demo accepts (the SDK's default bound as well). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Events kept per session for resumption; older ones are forgotten. */
const MAX_EVENTS_PER_SESSION = 2000;
/** A session with no HTTP request for this long is closed when the next session is created. */
const SESSION_IDLE_MS = 30 * 60 * 1000;
/** Hard cap on concurrent sessions; the least recently used one is closed beyond it. */
const MAX_SESSIONS = 200;

// ---------------------------------------------------------------------------------------------
// Event store (resumability)
// ---------------------------------------------------------------------------------------------

/**
 * Per-session in-memory event store. Event ids are `<counter>` strings, unique within the session
 * (the store belongs to one session, so ids never need to be global). Replays only the events of
 * the stream the given id belongs to, and skips the SDK's priming placeholders (stored as `{}`,
 * not JSON-RPC), which must never be re-sent as `data: {}`.
 *
 * Deliberately no `getStreamIdForEventId`: with it the SDK answers 409 when the resumed stream
 * still looks connected — which it does for a moment after a client drops a connection and
 * reconnects at once. Without it the SDK replays and then replaces the predecessor stream. Unknown
 * ids are answered 400 by the HTTP layer (see `has`) before the transport sees them.
 */
class SessionEventStore implements EventStore {
  private readonly events = new Map<EventId, { streamId: StreamId; message: JSONRPCMessage; seq: number }>();
  private seq = 0;

  has(eventId: EventId): boolean {
    return this.events.has(eventId);
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const seq = ++this.seq;
    const eventId = String(seq);
    this.events.set(eventId, { streamId, message, seq });
    if (this.events.size > MAX_EVENTS_PER_SESSION) {
      // Maps iterate in insertion order: the first key is the oldest event.
      const oldest = this.events.keys().next();
      if (!oldest.done) this.events.delete(oldest.value);
    }
    return eventId;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const last = this.events.get(lastEventId);
    if (!last) throw new Error(`Unknown Last-Event-ID ${JSON.stringify(lastEventId)}`);
    // The live map, not a snapshot: events stored while the replay awaits are replayed too.
    for (const [eventId, event] of this.events) {
      if (event.seq <= last.seq || event.streamId !== last.streamId) continue;
      if (!isJsonRpcMessage(event.message)) continue; // priming event placeholder
      await send(eventId, event.message);
    }
    return last.streamId;
  }
}

function isJsonRpcMessage(message: unknown): message is JSONRPCMessage {
  return typeof message === 'object' && message !== null && (message as { jsonrpc?: unknown }).jsonrpc === '2.0';
}

// ---------------------------------------------------------------------------------------------
// HTTP plumbing
// ---------------------------------------------------------------------------------------------

interface Session {
  id: string;
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  events: SessionEventStore;
  lastSeen: number;
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

class BodyTooLargeError extends Error {}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
      reject(new BodyTooLargeError());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const isLoopbackBind = isLoopbackHostname;

/** `Host` (and `Origin`, when present) must name a loopback host: a DNS-rebinding guard. */
function isLoopbackRequest(req: IncomingMessage): boolean {
  const hostHeader = req.headers.host;
  if (!hostHeader) return false;
  let hostname: string;
  try {
    hostname = new URL(`http://${hostHeader}`).hostname;
  } catch {
    return false;
  }
  if (!isLoopbackHostname(hostname)) return false;
  const origin = req.headers.origin;
  if (origin === undefined || origin === 'null') return origin === undefined;
  try {
    const originHost = new URL(origin).hostname;
    return isLoopbackHostname(originHost);
  } catch {
    return false;
  }
}

/** Starts the demo server; resolves once it listens. */
export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const host = options.host ?? '127.0.0.1';
  const sessions = new Map<string, Session>();
  let closing = false;

  const closeSession = async (session: Session): Promise<void> => {
    sessions.delete(session.id);
    await session.server.close().catch(() => undefined); // closes the transport and its streams
  };

  const sweepSessions = (): void => {
    const now = Date.now();
    const byAge = [...sessions.values()].sort((a, b) => a.lastSeen - b.lastSeen);
    byAge.forEach((session, index) => {
      if (now - session.lastSeen > SESSION_IDLE_MS || byAge.length - index >= MAX_SESSIONS) void closeSession(session);
    });
  };

  const createSession = async (): Promise<StreamableHTTPServerTransport> => {
    sweepSessions();
    const server = createDemoMcpServer();
    const events = new SessionEventStore();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: events,
      onsessioninitialized: (id) => {
        sessions.set(id, { id, server, transport, events, lastSeen: Date.now() });
      },
    });
    // Runs on DELETE, on close() and on a transport error that closes the session.
    server.server.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && sessions.get(id)?.transport === transport) sessions.delete(id);
    };
    await server.connect(transport);
    answerCrashWithJsonRpcError(transport);
    return transport;
  };

  const handlePost = async (req: IncomingMessage, res: ServerResponse, sessionId: string | undefined): Promise<void> => {
    let body: unknown;
    try {
      const raw = await readBody(req);
      body = JSON.parse(raw.toString('utf8'));
    } catch (error) {
      if (error instanceof BodyTooLargeError) sendJsonRpcError(res, 413, -32000, 'Payload Too Large');
      else sendJsonRpcError(res, 400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON');
      return;
    }
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) {
        sendJsonRpcError(res, 404, -32001, 'Session not found');
        return;
      }
      session.lastSeen = Date.now();
      await session.transport.handleRequest(req, res, body);
      return;
    }
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((message) => isInitializeRequest(message))) {
      sendJsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required (initialize first)');
      return;
    }
    const transport = await createSession();
    await transport.handleRequest(req, res, body);
    // An initialize the transport rejected (e.g. a bad Accept header) leaves no session behind.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await transport.close();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== DEMO_MCP_PATH) {
      sendJsonRpcError(res, 404, -32000, `Not Found: the MCP endpoint is ${DEMO_MCP_PATH}`);
      return;
    }
    if (isLoopbackBind(host) && !isLoopbackRequest(req)) {
      sendJsonRpcError(res, 403, -32000, 'Forbidden: Host/Origin is not a loopback address');
      return;
    }
    if (closing) {
      sendJsonRpcError(res, 503, -32000, 'Server is shutting down', { connection: 'close' });
      return;
    }
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    switch (req.method) {
      case 'POST':
        await handlePost(req, res, sessionId);
        return;
      case 'GET':
      case 'DELETE': {
        if (sessionId === undefined) {
          sendJsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
          return;
        }
        const session = sessions.get(sessionId);
        if (!session) {
          sendJsonRpcError(res, 404, -32001, 'Session not found');
          return;
        }
        session.lastSeen = Date.now();
        const lastEventId = req.headers['last-event-id'];
        if (req.method === 'GET' && typeof lastEventId === 'string' && !session.events.has(lastEventId)) {
          sendJsonRpcError(res, 400, -32000, 'Bad Request: unknown Last-Event-ID (nothing to resume from)');
          return;
        }
        await session.transport.handleRequest(req, res);
        return;
      }
      default:
        sendJsonRpcError(res, 405, -32000, 'Method Not Allowed', { allow: 'GET, POST, DELETE' });
    }
  };

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      sendJsonRpcError(res, 500, ErrorCode.InternalError, `Internal server error: ${message}`);
    });
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}${DEMO_MCP_PATH}`,
    close() {
      closed ??= (async () => {
        closing = true;
        await Promise.all([...sessions.values()].map((session) => closeSession(session)));
        await new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}
