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
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  StreamableHTTPServerTransport,
  type EventId,
  type EventStore,
  type StreamId,
} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  isInitializeRequest,
  isJSONRPCRequest,
  LoggingLevelSchema,
  SetLevelRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';
import { isLoopbackHostname } from '../server/guards.js';

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

const SERVER_INFO = { name: 'mcpscope-demo', title: 'mcpscope demo server', version: '1.0.0' };

/** Largest POST body the demo accepts (the SDK's default bound as well). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Events kept per session for resumption; older ones are forgotten. */
const MAX_EVENTS_PER_SESSION = 2000;
/** A session with no HTTP request for this long is closed when the next session is created. */
const SESSION_IDLE_MS = 30 * 60 * 1000;
/** Hard cap on concurrent sessions; the least recently used one is closed beyond it. */
const MAX_SESSIONS = 200;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

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
// Small helpers for the tools
// ---------------------------------------------------------------------------------------------

/** Waits `ms`, rejecting early (and clearing the timer) when `signal` aborts. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason ?? new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

const LEVEL_ORDER = LoggingLevelSchema.options;

// ---------------------------------------------------------------------------------------------
// One session's MCP server
// ---------------------------------------------------------------------------------------------

/** Builds the McpServer of one session: tools, prompt, resources, logging. */
function createDemoMcpServer(): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: false },
      resources: { listChanged: false },
      logging: {},
    },
    instructions:
      'mcpscope demo server. Tools show typical MCP traffic: echo, add, slow_task (progress + logs), ' +
      'flaky (tool error), crash (JSON-RPC error), ask_llm (sampling), confirm_action (elicitation), ' +
      'random_delay (out-of-order completion) and toggle_bonus_tool (tools/list_changed).',
  });

  // Logging level chosen by the client with logging/setLevel (one server per session, so one value).
  // The SDK's own handler keeps the level privately; ours keeps it where the tools can read it.
  let minLevel: LoggingLevel | undefined;
  server.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    minLevel = request.params.level;
    return {};
  });
  const log = async (extra: Extra, level: LoggingLevel, logger: string, data: unknown): Promise<void> => {
    if (minLevel !== undefined && LEVEL_ORDER.indexOf(level) < LEVEL_ORDER.indexOf(minLevel)) return;
    // Sent through `extra` so it travels on the POST stream of the request that caused it.
    await extra.sendNotification({ method: 'notifications/message', params: { level, logger, data } });
  };

  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Returns the given text unchanged.',
      inputSchema: { text: z.string().describe('Text to send back') },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ text: value }) => text(value),
  );

  server.registerTool(
    'add',
    {
      title: 'Add two numbers',
      description: 'Adds a and b. The sum is returned as text and as structured content.',
      inputSchema: { a: z.number().describe('First addend'), b: z.number().describe('Second addend') },
      outputSchema: { sum: z.number().describe('a + b') },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: `${a} + ${b} = ${a + b}` }],
      structuredContent: { sum: a + b },
    }),
  );

  server.registerTool(
    'slow_task',
    {
      title: 'Slow task with progress',
      description:
        'Works through `steps` steps of `delayMs` each. For every step it sends notifications/progress ' +
        '(when the request carries a progressToken) and a notifications/message log line. Cancellable.',
      inputSchema: {
        steps: z.number().int().min(1).max(50).default(4).describe('Number of steps'),
        delayMs: z.number().int().min(0).max(10_000).default(300).describe('Time per step in milliseconds'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ steps, delayMs }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        await delay(delayMs, extra.signal);
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: step, total: steps, message: `step ${step} of ${steps}` },
          });
        }
        await log(extra, 'info', 'slow_task', `finished step ${step}/${steps}`);
      }
      return text(`done after ${steps} steps`);
    },
  );

  server.registerTool(
    'flaky',
    {
      title: 'Flaky upstream',
      description: 'Always fails the way a tool fails: a result with isError: true (not a JSON-RPC error).',
      annotations: { openWorldHint: true },
    },
    async (extra) => {
      await log(extra, 'warning', 'flaky', 'upstream answered 429 Too Many Requests');
      return {
        content: [{ type: 'text', text: 'upstream quota exceeded: 429 Too Many Requests (retry after 30s)' }],
        isError: true,
      };
    },
  );

  server.registerTool(
    'crash',
    {
      title: 'Crash',
      description: 'Fails with a JSON-RPC error response (-32603 Internal error), as a buggy server would.',
      annotations: { openWorldHint: false },
    },
    // Not reached over HTTP: answerCrashWithJsonRpcError() answers `crash` before McpServer sees it
    // (McpServer would turn this throw into an `isError: true` result).
    async () => {
      throw new Error(CRASH_MESSAGE);
    },
  );

  server.registerTool(
    'ask_llm',
    {
      title: 'Ask the client LLM',
      description: 'Sends sampling/createMessage to the client and returns what its model answered.',
      inputSchema: { question: z.string().describe('Question for the model') },
      annotations: { openWorldHint: true },
    },
    async ({ question }, extra) => {
      const result = await server.server.createMessage(
        {
          messages: [{ role: 'user', content: { type: 'text', text: question } }],
          systemPrompt: 'You are a concise assistant inside the mcpscope demo.',
          maxTokens: 200,
          temperature: 0.2,
        },
        // relatedRequestId: the request travels on this tools/call's POST stream (a parent link).
        { relatedRequestId: extra.requestId, signal: extra.signal },
      );
      const answer = result.content.type === 'text' ? result.content.text : `[${result.content.type} content]`;
      return text(`${result.model} says: ${answer}`);
    },
  );

  server.registerTool(
    'confirm_action',
    {
      title: 'Confirm an action',
      description: 'Asks the user (elicitation/create, form mode) whether to perform the action.',
      inputSchema: { action: z.string().describe('What would be done') },
      annotations: { destructiveHint: true, openWorldHint: false },
    },
    async ({ action }, extra) => {
      const result = await server.server.elicitInput(
        {
          mode: 'form',
          message: `Do you want to ${action}?`,
          requestedSchema: {
            type: 'object',
            properties: {
              confirm: { type: 'boolean', title: 'Confirm', description: `Perform "${action}"`, default: false },
            },
            required: ['confirm'],
          },
        },
        { relatedRequestId: extra.requestId, signal: extra.signal },
      );
      if (result.action !== 'accept') return text(`user chose to ${result.action}: nothing done`);
      return result.content?.confirm === true ? text(`confirmed: ${action}`) : text(`not confirmed: ${action}`);
    },
  );

  server.registerTool(
    'random_delay',
    {
      title: 'Random delay',
      description: 'Waits a random time up to maxMs, so concurrent calls complete out of order.',
      inputSchema: { maxMs: z.number().int().min(0).max(60_000).default(800).describe('Upper bound in milliseconds') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ maxMs }, extra) => {
      const waited = Math.floor(Math.random() * (maxMs + 1));
      await delay(waited, extra.signal);
      return text(`waited ${waited} ms`);
    },
  );

  // A tool that appears and disappears: each toggle makes McpServer send
  // notifications/tools/list_changed (on the standalone GET stream, as it relates to no request).
  const bonus = server.registerTool(
    'lucky_number',
    {
      title: 'Lucky number',
      description: 'Returns a lucky number. Only listed while toggle_bonus_tool has enabled it.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => text(String(1 + Math.floor(Math.random() * 99))),
  );
  bonus.disable();
  server.registerTool(
    'toggle_bonus_tool',
    {
      title: 'Toggle the bonus tool',
      description: 'Enables or disables the lucky_number tool; the server then sends notifications/tools/list_changed.',
      annotations: { openWorldHint: false },
    },
    async () => {
      if (bonus.enabled) bonus.disable();
      else bonus.enable();
      return text(`lucky_number is now ${bonus.enabled ? 'enabled' : 'disabled'}`);
    },
  );

  server.registerPrompt(
    'summarize',
    {
      title: 'Summarize text',
      description: 'Asks the model for a short summary of the given text.',
      argsSchema: {
        text: z.string().describe('Text to summarize'),
        style: z.string().optional().describe('Optional style, e.g. "one sentence" or "bullet points"'),
      },
    },
    ({ text: input, style }) => ({
      description: 'Summarize the text',
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: `Summarize the following${style ? ` as ${style}` : ''}:\n\n${input}` },
        },
      ],
    }),
  );

  server.registerResource(
    'readme',
    'demo://readme',
    { title: 'Demo README', description: 'What this demo server is for.', mimeType: 'text/markdown' },
    async (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'text/markdown',
          text:
            '# mcpscope demo server\n\nA tiny MCP server that produces realistic traffic for mcpscope to show: ' +
            'progress, logs, errors, sampling, elicitation and out-of-order responses.\n',
        },
      ],
    }),
  );

  server.registerResource(
    'note',
    new ResourceTemplate('demo://notes/{id}', {
      list: async () => ({
        resources: ['1', '2', '3'].map((id) => ({ uri: `demo://notes/${id}`, name: `note-${id}`, mimeType: 'text/plain' })),
      }),
    }),
    { title: 'Numbered note', description: 'A generated note for any id.', mimeType: 'text/plain' },
    async (uri, variables) => {
      const id = Array.isArray(variables.id) ? variables.id.join(',') : variables.id;
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Note ${id}: remember to check the progress bars.` }] };
    },
  );

  return server;
}

const CRASH_MESSAGE = 'demo crash: the tool handler threw (simulated server bug)';

/**
 * McpServer turns every error thrown by a tool into a `CallToolResult` with `isError: true`, so a
 * tool cannot produce a JSON-RPC error response by throwing. The `crash` tool must, so its calls are
 * answered at the transport boundary (public `Transport.onmessage`/`send`, set up by `connect()`)
 * with a -32603 error before the protocol layer dispatches them. Everything else passes through.
 */
function answerCrashWithJsonRpcError(transport: Transport): void {
  const dispatch = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message) && message.method === 'tools/call' && (message.params as { name?: unknown } | undefined)?.name === 'crash') {
      transport
        .send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: ErrorCode.InternalError, message: CRASH_MESSAGE, data: { tool: 'crash' } },
        })
        .catch((error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error))));
      return;
    }
    dispatch?.(message, extra);
  };
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
