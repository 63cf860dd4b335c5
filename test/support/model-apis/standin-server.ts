/**
 * The HTTP(S) server under every model-API stand-in: listens on 127.0.0.1, an OS-chosen port;
 * records each request (method, url, headers, raw and parsed body) before the stand-in answers;
 * writes SSE streams event by event (one write per event), with the script's faults (cut the
 * connection, an error event, extra events) applied on the way.
 *
 * HTTPS: pass `tls` (a leaf for `localhost`, e.g. `makeTestCa().leaf` from ../tls-peers.ts); the
 * origin is then `https://localhost:<port>` and a client (or mcpscope's `upstreamCa`) must trust that CA.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { CaMaterial } from '../../../proxy/wire/forward-proxy/ca.js';
import type { ExtraEvent, RecordedRequest, ScriptFault } from './script.js';

export interface StandinServer {
  /** `http://127.0.0.1:<port>` or `https://localhost:<port>` (no trailing slash). */
  origin: string;
  port: number;
  /** Every request received so far, in arrival order (probes and count_tokens included). */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type StandinHandler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface StandinServerOptions {
  /** Serve HTTPS with this leaf (for `localhost`). */
  tls?: CaMaterial;
}

async function readRequest(req: IncomingMessage): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const rawBody = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = rawBody ? JSON.parse(rawBody) : undefined;
  } catch {
    body = undefined;
  }
  const url = req.url ?? '/';
  const parsed = new URL(url, 'http://standin.invalid');
  return {
    method: req.method ?? '',
    url,
    path: parsed.pathname,
    query: Object.fromEntries(parsed.searchParams),
    headers: req.headers,
    rawBody,
    body,
  };
}

export async function startStandinServer(handler: StandinHandler, options: StandinServerOptions = {}): Promise<StandinServer> {
  const requests: RecordedRequest[] = [];
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const recorded = await readRequest(req);
      requests.push(recorded);
      await handler(recorded, res);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`stand-in failed: ${String(err)}`);
    });
  };
  const server: Server = options.tls
    ? createHttpsServer({ key: options.tls.keyPem, cert: options.tls.certPem }, onRequest)
    : createHttpServer(onRequest);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    origin: options.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    port,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** A JSON answer with the fault applied: `cut` sends half its bytes then closes the connection. */
export function sendJsonReply(
  res: ServerResponse,
  body: unknown,
  fault: ScriptFault | undefined,
  headers: Record<string, string> = {},
): void {
  if (fault?.kind !== 'cut') return sendJson(res, 200, body, headers);
  const text = Buffer.from(JSON.stringify(body));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length), ...headers });
  res.write(text.subarray(0, Math.floor(text.length / 2)), () => res.destroy());
}

export interface SseEvent {
  event?: string;
  /** A string is sent as is; anything else JSON-encoded. */
  data: unknown;
}

export function sseText(e: SseEvent): string {
  const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
  const lines = data.split('\n').map((l) => `data: ${l}`);
  return `${e.event !== undefined ? `event: ${e.event}\n` : ''}${lines.join('\n')}\n\n`;
}

/** `events` with `extra` spliced in (each before the event at its `at`). */
export function withExtraEvents(events: SseEvent[], extra: ExtraEvent[] = []): SseEvent[] {
  const out = [...events];
  for (const x of [...extra].sort((a, b) => b.at - a.at))
    out.splice(Math.min(Math.max(x.at, 0), out.length), 0, { event: x.event, data: x.data });
  return out;
}

function write(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve, reject) => res.write(text, (err) => (err ? reject(err) : resolve())));
}

/**
 * Writes `events` as an SSE stream, one write per event. `fault`: `cut` closes the connection after
 * `afterEvents` events (no terminating chunk: the client sees the stream end early); `error-event`
 * sends `errorEvent` after `afterEvents` events and ends the stream there.
 */
export async function sendSse(
  res: ServerResponse,
  events: SseEvent[],
  o: {
    fault?: ScriptFault;
    errorEvent?: (fault: Extract<ScriptFault, { kind: 'error-event' }>) => SseEvent;
    headers?: Record<string, string>;
  } = {},
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...o.headers });
  res.flushHeaders();
  const fault = o.fault;
  for (let i = 0; i <= events.length; i += 1) {
    if (fault?.kind === 'cut' && i === fault.afterEvents) {
      res.destroy();
      return;
    }
    if (fault?.kind === 'error-event' && i === fault.afterEvents && o.errorEvent) {
      await write(res, sseText(o.errorEvent(fault)));
      res.end();
      return;
    }
    if (i < events.length) await write(res, sseText(events[i]));
  }
  res.end();
}
