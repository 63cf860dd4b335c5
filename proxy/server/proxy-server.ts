/**
 * The transparent reverse proxy (the hot path).
 *
 * fastify + @fastify/http-proxy route every method and path here; forwardUpstream sends each
 * request to the target's origin 1:1 with undici, once (no retries). This file's only jobs are:
 * forward bytes unchanged and unbuffered, push a capture record for each thing that crosses (a
 * reference to the chunk, nothing more), and apply the few documented modifications (the legacy
 * `endpoint` event, OAuth URLs). Parsing and correlation happen elsewhere, later.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import httpProxy from '@fastify/http-proxy';
import { Agent, type Dispatcher } from 'undici';
import { finished, PassThrough, Readable, Transform, type TransformCallback } from 'node:stream';
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HeaderMap, WireRecord } from '../capture/wire-records.js';
import { now } from '../capture/clock.js';
import { EndpointRewriter, originRewriter } from '../parse/endpoint-rewriter.js';
import { oauthMetadataKind, rewriteLocation, rewriteMetadataJson, rewriteWwwAuthenticate, type OAuthMetadataKind } from '../parse/oauth-rewrite.js';
import { isAllowedHost, isAllowedOrigin } from './guards.js';
import { FAULT_BODY_MAX, describeAction, describeMatch, rpcSummary, type FaultRegistry, type FaultRule } from '../faults/fault-rules.js';

export interface ProxyServerOptions {
  /** The upstream MCP URL (its origin is mirrored; paths pass 1:1). */
  target: string;
  /** A short name for this upstream when several are proxied into one UI. */
  name?: string;
  host?: string;
  port?: number;
  /** Receives every capture record, synchronously, on the hot path: must be O(1). */
  capture: (record: WireRecord) => void;
  /**
   * Map the upstream's origin to the proxy's where a client would otherwise leave the proxy: the
   * legacy `endpoint` event, OAuth `resource_metadata` challenges, OAuth metadata documents and
   * `Location` headers (docs/transparency.md). Default true; `--no-rewrite` sets it false.
   */
  rewrite?: boolean;
  /** Origins allowed besides loopback ones. */
  allowOrigins?: string[];
  /** Host names allowed besides loopback ones. */
  allowHosts?: string[];
  /** Fault injection rules (proxy/faults/fault-rules.ts); none = off, one size check per request. */
  faults?: FaultRegistry;
}

export interface ProxyServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** The target URL as reached through the proxy (same path and query). */
  url: string;
  port: number;
  app: FastifyInstance;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) are the only ones not forwarded as they are. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

function endToEndHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  // Per request and per response: a plain loop, and the Connection list parsed only when present.
  const connection = headers.connection;
  const listed = typeof connection === 'string' && connection !== 'keep-alive' && connection !== 'close' ? connection.toLowerCase().split(',').map((s) => s.trim()) : undefined;
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || (listed !== undefined && listed.includes(name))) continue;
    out[name] = value;
  }
  return out;
}

interface ExchangeContext {
  xid: string;
  /** The first bytes of the request body, kept only to name the JSON-RPC id in a 502 we must answer ourselves. */
  head: Buffer[];
  headBytes: number;
  abort: UpstreamAbort;
  responded: boolean;
  onEarlyClose?: () => void;
  /** A drop-stream fault to apply to this exchange's SSE response. */
  dropStream?: { rule: FaultRule; afterEvents: number };
}

const REQUEST_HEAD_KEEP = 64 * 1024;
/** OAuth metadata documents are held whole (to rewrite them) up to this size; bigger ones stream through untouched. */
export const METADATA_MAX_BYTES = 1024 * 1024;
const MAX_REMEMBERED_PATHS = 64;

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q >= 0 ? url.slice(0, q) : url;
}

function isJsonType(contentType: string): boolean {
  const media = contentType.split(';')[0].trim();
  return media === 'application/json' || media.endsWith('+json');
}

function isEncoded(headers: IncomingHttpHeaders): boolean {
  const enc = String(headers['content-encoding'] ?? '').trim().toLowerCase();
  return enc !== '' && enc !== 'identity';
}

declare module 'fastify' {
  interface FastifyRequest {
    mcpscope?: ExchangeContext;
  }
}

/**
 * Aborts one upstream request (undici takes an EventEmitter with `aborted` as its signal). Cheaper
 * per request than an AbortController, which would also build a DOMException on every abort.
 */
class UpstreamAbort extends EventEmitter {
  aborted = false;
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}

let exchangeCounter = 0;
let exchangePrefix = 'x';
/** A fresh exchange id. Ids are process-wide (thread-wide) so several proxies can share one store. */
export function nextExchangeId(): string {
  exchangeCounter += 1;
  return `${exchangePrefix}${exchangeCounter}`;
}

/** Ids from here on start with `prefix` (a restarted proxy thread must not reuse its predecessor's). */
export function setExchangeIdPrefix(prefix: string): void {
  exchangePrefix = prefix;
}

function jsonRpcIdFrom(head: Buffer[]): string | number | null {
  try {
    const parsed = JSON.parse(Buffer.concat(head).toString('utf8')) as unknown;
    const first = Array.isArray(parsed) ? parsed[0] : parsed;
    if (first && typeof first === 'object' && 'id' in first) {
      const id = (first as { id: unknown }).id;
      if (typeof id === 'string' || typeof id === 'number') return id;
    }
  } catch {
    /* not JSON, or cut short: no id to echo */
  }
  return null;
}

function describeUpstreamError(err: unknown): { code: string; cause: string } {
  let e = err as { code?: unknown; name?: string; message?: string; cause?: unknown } | undefined;
  const isSocketCode = (c: unknown) => typeof c === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(c);
  // An error may wrap the socket's; the useful code is on a cause.
  while (e && !isSocketCode(e.code) && e.cause) e = e.cause as typeof e;
  const code = isSocketCode(e?.code) ? (e!.code as string) : e?.name === 'AbortError' ? 'UND_ERR_ABORTED' : 'UNKNOWN';
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused — is the server running on that port?',
    ENOTFOUND: 'host name not found',
    EAI_AGAIN: 'host name lookup failed',
    ECONNRESET: 'the upstream reset the connection',
    ETIMEDOUT: 'the connection timed out',
    EHOSTUNREACH: 'host unreachable',
    UND_ERR_SOCKET: 'the upstream closed the connection',
    UND_ERR_CONNECT_TIMEOUT: 'connecting to the upstream timed out',
    UND_ERR_HEADERS_TIMEOUT: 'the upstream sent no response headers in time',
    UND_ERR_ABORTED: 'the request was aborted',
  };
  return { code, cause: words[code] ?? e?.message ?? String(err) };
}

export async function startProxyServer(options: ProxyServerOptions): Promise<ProxyServer> {
  const target = new URL(options.target);
  const upstreamOrigin = target.origin;
  const upstreamHost = target.host;
  const capture = options.capture;
  const rewrite = options.rewrite !== false;
  /** Paths a rewritten `resource_metadata` pointed at (metadata need not live under /.well-known). */
  const metadataPaths = new Set<string>();
  const host = options.host ?? '127.0.0.1';
  const faults = options.faults;

  const agent = new Agent({
    // Streams stay open as long as both peers want them: no idle or body timeouts.
    bodyTimeout: 0,
    headersTimeout: 0,
    connections: 256,
    pipelining: 1,
  });

  const app = Fastify({
    logger: false,
    requestTimeout: 0,
    connectionTimeout: 0,
    keepAliveTimeout: 72_000,
    forceCloseConnections: true,
    // Paths are forwarded as received; fastify must not 404 on long ones.
    routerOptions: { maxParamLength: 10_000 },
    // A path fastify's router cannot take (a malformed percent-encoding such as `/mcp%zz`, a
    // segment past maxParamLength) would get fastify's own 400 without any hook running: the
    // upstream never asked, nothing recorded. It is forwarded like any other request instead.
    frameworkErrors: (_err: Error, request: FastifyRequest, reply: FastifyReply) => {
      if (refusedByGuard(request, reply)) return;
      // No route ran, so no body parser either: a request that declares a body streams it raw.
      const h = request.headers;
      if (h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0')) (request as { body: unknown }).body = request.raw;
      captureAndForward(request, reply);
    },
  });

  let boundPort = 0;
  let proxyOrigin = '';

  // DNS rebinding / cross-site guard: the upstream trusts requests from the proxy's machine,
  // so the proxy must not let a web page reach it.
  app.addHook('onRequest', (request, reply, done) => {
    if (!refusedByGuard(request, reply)) done();
  });

  /** Answers (and records) a 403 when the Host or Origin header is not allowed; true if it did. */
  function refusedByGuard(request: FastifyRequest, reply: FastifyReply): boolean {
    const hostHeader = request.headers.host;
    const origin = request.headers.origin;
    let reason: string | undefined;
    if (!isAllowedHost(hostHeader, { port: boundPort, extraHosts: options.allowHosts })) {
      reason = `Host header ${JSON.stringify(hostHeader ?? '')} is not this proxy's loopback address (DNS rebinding protection). Use http://127.0.0.1:${boundPort}, or start mcpscope with --allow-host.`;
    } else if (!isAllowedOrigin(origin, options.allowOrigins)) {
      reason = `Origin ${JSON.stringify(origin)} is not a loopback origin (cross-site protection). Start mcpscope with --allow-origin ${origin} if this page is yours.`;
    }
    if (!reason) return false;
    const xid = nextExchangeId();
    const ts = now();
    capture({ t: 'request', xid, ts, method: request.method, url: request.url, upstreamUrl: '', headers: request.headers, proxyOrigin, target: options.target, targetName: options.name });
    capture({ t: 'upstream-error', xid, ts, code: 'FORBIDDEN', message: reason, status: 403 });
    void reply
      .code(403)
      .header('content-type', 'application/json')
      .send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: `mcpscope: ${reason}` } }));
    return true;
  }

  await app.register(httpProxy, {
    upstream: upstreamOrigin,
    prefix: '/',
    httpMethods: ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT', 'OPTIONS'],
    // reply-from (registered by @fastify/http-proxy) gets the same agent, but forwarding is ours
    // (forwardUpstream): reply-from would retry a GET answered 503 up to ten times, and its
    // header copying and URL cache cost a quarter of the hop's CPU for nothing we use.
    undici: agent as never,
    disableRequestLogging: true,
    internalRewriteLocationHeader: false,
    // The request is forwarded from this hook, and @fastify/http-proxy's route handler is never
    // reached: that handler re-encodes the query and answers paths with dot segments (`/a/../mcp`,
    // `%2e%2e`) with a 400 of its own, which a debugging proxy in front of one server must not do
    // (the server is what should see and answer them), and its URL checks cost ≈ 25 µs a request.
    // @fastify/http-proxy still provides the routes for every method and the body pass-through.
    preHandler: (request: FastifyRequest, reply: FastifyReply) => captureAndForward(request, reply),
    handler: () => {
      throw new Error('mcpscope forwards from its preHandler; this handler is never reached');
    },
  } as never);

  function captureAndForward(request: FastifyRequest, reply: FastifyReply): void {
    startCapture(request, reply);
    // Fault injection is off unless a rule exists: this check is the whole cost.
    if (faults === undefined || faults.size === 0) return forwardUpstream(request, reply);
    decideFault(request, reply, faults, () => forwardUpstream(request, reply));
  }

  /**
   * Sends the request upstream as it came: same method, path and query byte for byte, the
   * end-to-end headers with Host set to the upstream's, the body streamed. One attempt only: what
   * the upstream answers, or how it fails, is what the client gets.
   */
  function forwardUpstream(request: FastifyRequest, reply: FastifyReply): void {
    const ctx = request.mcpscope!;
    const headers = endToEndHeaders(request.headers);
    headers.host = upstreamHost;
    const body = request.body instanceof Readable ? request.body : null;
    const onAnswer = (err: Error | null, data?: Dispatcher.ResponseData) => {
      if (err || !data) return upstreamFailed(reply, err ?? new Error('no response'));
      if (ctx.abort.aborted) {
        // The client left just as the head arrived: nobody to relay it to.
        ctx.responded = true;
        capture({ t: 'abort', xid: ctx.xid, ts: now(), side: 'client', reason: 'the client went away before the upstream answered; mcpscope aborted the upstream request' });
        data.body.on('error', () => undefined);
        data.body.destroy();
        return;
      }
      relayResponse(request, reply, { statusCode: data.statusCode, headers: data.headers as IncomingHttpHeaders, stream: data.body });
    };
    try {
      agent.request({ origin: upstreamOrigin, path: request.url, method: request.method as Dispatcher.HttpMethod, headers, body, signal: ctx.abort }, onAnswer);
    } catch (err) {
      // A request undici refuses to send (an `Expect` header, say): answered like an unreachable upstream.
      upstreamFailed(reply, err as Error);
    }
  }

  function startCapture(request: FastifyRequest, reply: FastifyReply): void {
    const xid = nextExchangeId();
    const ctx: ExchangeContext = { xid, head: [], headBytes: 0, abort: new UpstreamAbort(), responded: false };
    request.mcpscope = ctx;
    capture({
      t: 'request',
      xid,
      ts: now(),
      method: request.method,
      url: request.url,
      upstreamUrl: upstreamOrigin + request.url,
      headers: request.headers as HeaderMap,
      proxyOrigin,
      target: options.target,
      targetName: options.name,
    });

    // The client went away before the upstream's response head arrived (a long JSON tool call,
    // say): abort the upstream request. After the head, the response pipeline does it.
    ctx.onEarlyClose = () => {
      if (!ctx.responded) ctx.abort.abort();
    };
    reply.raw.once('close', ctx.onEarlyClose);

    const body = request.body;
    if (body instanceof Readable) {
      const tap = new Transform({
        transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
          capture({ t: 'request-chunk', xid, ts: now(), chunk });
          if (ctx.headBytes < REQUEST_HEAD_KEEP) {
            ctx.head.push(chunk);
            ctx.headBytes += chunk.length;
          }
          cb(null, chunk);
        },
        flush(cb: TransformCallback) {
          capture({ t: 'request-end', xid, ts: now() });
          cb();
        },
      });
      // pipe + finished rather than pipeline(): the same outcome without an AbortController per request.
      body.pipe(tap);
      finished(body, (err) => {
        if (!err) return;
        capture({ t: 'abort', xid, ts: now(), side: 'client', reason: `the client stopped sending the request body (${err.message})` });
        tap.destroy(err);
      });
      (request as { body: unknown }).body = tap;
    } else {
      capture({ t: 'request-end', xid, ts: now() });
    }
  }

  function relayResponse(
    request: FastifyRequest,
    reply: FastifyReply,
    res: { statusCode: number; headers: IncomingHttpHeaders; stream: Readable },
  ): void {
    const ctx = request.mcpscope!;
    ctx.responded = true;
    const xid = ctx.xid;
    const upstreamHeaders = res.headers as HeaderMap;
    capture({ t: 'response', xid, ts: now(), status: res.statusCode, headers: upstreamHeaders });

    const headers = endToEndHeaders(res.headers);
    const contentType = String(res.headers['content-type'] ?? '').toLowerCase();
    const isSse = contentType.startsWith('text/event-stream');
    const pathname = pathOf(request.url);
    if (rewrite && proxyOrigin && (headers['www-authenticate'] !== undefined || headers['location'] !== undefined)) rewriteAuthHeaders(xid, pathname, res.statusCode, headers);

    const stages: (Readable | Transform)[] = [res.stream];
    if (isSse && rewrite && request.method === 'GET' && proxyOrigin) {
      stages.push(endpointRewriteStage(xid, request.url));
      // The body may change length; let Node frame it.
      delete headers['content-length'];
    }

    reply.hijack();
    const raw: ServerResponse = reply.raw;
    if (ctx.onEarlyClose) raw.off('close', ctx.onEarlyClose);
    // fastify, the body relay and end-of-stream each watch 'close' on this one response.
    raw.setMaxListeners(32);

    res.stream.on('data', (chunk: Buffer) => {
      capture({ t: 'response-chunk', xid, ts: now(), chunk });
    });

    const metadataKind = rewrite && proxyOrigin && request.method === 'GET' && res.statusCode === 200 && isJsonType(contentType) && !isEncoded(res.headers)
      ? oauthMetadataKind(pathname) ?? (metadataPaths.has(pathname) ? 'protected-resource' : null)
      : null;
    if (metadataKind) {
      relayMetadata(xid, pathname, metadataKind, res, raw, headers);
      return;
    }

    raw.writeHead(res.statusCode, headers);
    // SSE: the client should see the stream open now, not when the first event comes.
    if (isSse) raw.flushHeaders();
    if (ctx.dropStream && isSse && stages.length === 1) {
      dropStreamAfter(ctx, res.stream, raw, ctx.dropStream);
      return;
    }
    pipeBody(xid, stages, raw);
  }

  /**
   * Streams the body stages into the client's response and records how it ended. What
   * pipeline() would do, by hand (it costs an AbortController per response): an upstream that
   * breaks off breaks the client's response; a client that goes away closes the upstream request.
   */
  function pipeBody(xid: string, stages: (Readable | Transform)[], raw: ServerResponse): void {
    let ended = false;
    const end = (record: WireRecord) => {
      if (ended) return;
      ended = true;
      capture(record);
    };
    const source = stages[0] as Readable;
    let last: Readable = source;
    for (const stage of stages.slice(1)) last = last.pipe(stage as Transform);
    last.pipe(raw);
    const breakOff = (err: Error) => {
      end({ t: 'abort', xid, ts: now(), side: 'upstream', reason: `the upstream broke off the response (${describeUpstreamError(err).cause})` });
      for (const s of stages) s.destroy();
      raw.destroy();
    };
    // `on`, not `once`: a second error from a stage must not go unhandled (breakOff is idempotent).
    for (const s of stages) s.on('error', breakOff);
    finished(raw, (err) => {
      if (!err) return end({ t: 'response-end', xid, ts: now() });
      // Closed before it finished: the client went away (unless the upstream broke off first).
      end({ t: 'abort', xid, ts: now(), side: 'client', reason: 'the client closed the connection; mcpscope closed the upstream request too' });
      for (const s of stages) {
        s.on('error', () => undefined);
        s.destroy();
      }
    });
  }

  /**
   * `WWW-Authenticate: … resource_metadata="<upstream URL>"` on a 401/403 and an absolute
   * upstream-origin `Location` point the client at the proxy's origin instead (headers only: no buffering).
   */
  function rewriteAuthHeaders(xid: string, pathname: string, status: number, headers: Record<string, string | string[]>): void {
    const map = originRewriter(upstreamOrigin, proxyOrigin);
    const www = headers['www-authenticate'];
    if ((status === 401 || status === 403) && www !== undefined) {
      const values = Array.isArray(www) ? www : [www];
      let changed = false;
      const next = values.map((v) => {
        const after = rewriteWwwAuthenticate(v, map);
        if (after === null) return v;
        changed = true;
        capture({
          t: 'modification',
          xid,
          ts: now(),
          what: 'www-authenticate-rewrite',
          before: v,
          after,
          text: `The ${status} from ${pathname} named its OAuth protected-resource metadata on the upstream's origin (resource_metadata); mcpscope pointed it at its own origin so the client's OAuth discovery goes through the proxy.`,
        });
        rememberMetadataPaths(after);
        return after;
      });
      if (changed) headers['www-authenticate'] = Array.isArray(www) ? next : next[0];
    }
    const location = headers['location'];
    if (typeof location === 'string') {
      const after = rewriteLocation(location, map);
      if (after !== null) {
        headers['location'] = after;
        capture({
          t: 'modification',
          xid,
          ts: now(),
          what: 'location-rewrite',
          before: location,
          after,
          text: `The ${status} from ${pathname} redirected to the upstream's own origin; mcpscope pointed the Location at its own origin so the client keeps going through the proxy.`,
        });
      }
    }
  }

  /** Paths that a rewritten resource_metadata named: their JSON is metadata wherever it lives. */
  function rememberMetadataPaths(wwwAuthenticate: string): void {
    for (const m of wwwAuthenticate.matchAll(/resource_metadata\s*=\s*"((?:[^"\\]|\\.)*)"/gi)) {
      try {
        const u = new URL(m[1].replace(/\\(.)/g, '$1'));
        if (u.origin !== new URL(proxyOrigin).origin) continue;
        if (metadataPaths.size >= MAX_REMEMBERED_PATHS) metadataPaths.delete(metadataPaths.values().next().value as string);
        metadataPaths.add(u.pathname);
      } catch {
        /* not a URL */
      }
    }
  }

  /**
   * An OAuth metadata document (small JSON): held whole (up to METADATA_MAX_BYTES), its
   * upstream-origin URLs mapped to the proxy's, `Content-Length` fixed, then forwarded. Past the
   * bound, or when the upstream breaks off, what was held is forwarded as it came.
   */
  function relayMetadata(
    xid: string,
    pathname: string,
    kind: OAuthMetadataKind,
    res: { statusCode: number; headers: IncomingHttpHeaders; stream: Readable },
    raw: ServerResponse,
    headers: Record<string, string | string[]>,
  ): void {
    const held: Buffer[] = [];
    let size = 0;
    let settled = false;
    const source = res.stream;
    const cleanup = () => {
      source.off('data', onData);
      source.off('end', onEnd);
      // onError stays: it ignores errors once settled, and keeps a late one from going unhandled.
      raw.off('close', onClientClose);
    };
    const onData = (chunk: Buffer) => {
      held.push(chunk);
      size += chunk.length;
      if (size > METADATA_MAX_BYTES) {
        // Too big for a metadata document: forward it untouched, streaming from here on.
        settled = true;
        cleanup();
        source.pause();
        const prefix = new PassThrough();
        prefix.write(Buffer.concat(held));
        raw.writeHead(res.statusCode, headers);
        pipeBody(xid, [source, prefix], raw);
      }
    };
    const onEnd = () => {
      if (settled) return;
      settled = true;
      cleanup();
      const body = Buffer.concat(held);
      const text = body.toString('utf8');
      // Only a document that is valid UTF-8 (it round-trips) is rewritten.
      const result = Buffer.from(text, 'utf8').equals(body)
        ? rewriteMetadataJson(text, originRewriter(upstreamOrigin, proxyOrigin))
        : null;
      let out = body;
      if (result) {
        out = Buffer.from(result.text, 'utf8');
        headers['content-length'] = String(out.length);
        const kindText = kind === 'protected-resource' ? 'protected-resource metadata' : 'authorization-server metadata';
        capture({
          t: 'modification',
          xid,
          ts: now(),
          what: 'oauth-metadata-rewrite',
          before: text,
          after: result.text,
          text: `The OAuth ${kindText} at ${pathname} named URLs on the upstream's origin (${result.rewrites.map((r) => r.before).join(', ')}); mcpscope mapped them to its own origin so the client accepts the resource and keeps its OAuth flow going through the proxy. Content-Length was adjusted.`,
        });
      }
      raw.writeHead(res.statusCode, headers);
      raw.end(out, () => capture({ t: 'response-end', xid, ts: now() }));
    };
    const onError = (err: Error) => {
      if (settled) return;
      settled = true;
      cleanup();
      capture({ t: 'abort', xid, ts: now(), side: 'upstream', reason: `the upstream broke off the response (${describeUpstreamError(err).cause})` });
      // What the client would have seen directly: the head, the bytes so far, a broken connection.
      if (!raw.headersSent) raw.writeHead(res.statusCode, headers);
      if (size > 0) raw.write(Buffer.concat(held));
      raw.destroy();
    };
    const onClientClose = () => {
      if (settled) return;
      settled = true;
      cleanup();
      capture({ t: 'abort', xid, ts: now(), side: 'client', reason: 'the client closed the connection; mcpscope closed the upstream request too' });
      source.destroy();
    };
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('error', onError);
    raw.once('close', onClientClose);
  }

  function endpointRewriteStage(xid: string, requestUrl: string): Transform {
    const rewriter = new EndpointRewriter({ rewriteUrl: originRewriter(upstreamOrigin, proxyOrigin) });
    return new Transform({
      transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
        if (rewriter.passthrough) return cb(null, chunk);
        const { out, rewrite } = rewriter.push(chunk);
        if (rewrite) {
          capture({
            t: 'modification',
            xid,
            ts: now(),
            what: 'endpoint-rewrite',
            before: rewrite.before,
            after: rewrite.after,
            text: `The legacy SSE stream at ${requestUrl} named an absolute endpoint on the upstream's origin; mcpscope rewrote it to its own origin so the client keeps posting through the proxy.`,
          });
        }
        for (const piece of out) this.push(piece);
        cb();
      },
      flush(cb: TransformCallback) {
        for (const piece of rewriter.end()) this.push(piece);
        cb();
      },
    });
  }

  // ------------------------------------------------------------------ fault injection (off by default)

  /**
   * Decides whether a fault rule applies to this request, then carries it out. When a rule names a
   * JSON-RPC method or tool, the POST body is held first (up to FAULT_BODY_MAX) to read it; the held
   * bytes are then forwarded unchanged, followed by the rest of the body.
   */
  function decideFault(request: FastifyRequest, reply: FastifyReply, registry: FaultRegistry, done: () => void): void {
    const path = pathOf(request.url);
    const hasSession = typeof request.headers['mcp-session-id'] === 'string';
    const body = request.body;
    if (!registry.needsBody || request.method !== 'POST' || !(body instanceof Readable)) {
      const rule = registry.take({ httpMethod: request.method, path }, hasSession);
      if (!rule) return done();
      return applyFault(request, reply, rule, done);
    }
    const held: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (ended: boolean, err?: Error) => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      if (!ended) body.pause();
      const rest = new PassThrough();
      for (const c of held) rest.write(c);
      if (err) rest.destroy(err);
      else if (ended) rest.end();
      else body.pipe(rest);
      (request as { body: unknown }).body = rest;
      const rpc = ended && !err ? rpcSummary(Buffer.concat(held)) : undefined;
      const rule = registry.take({ httpMethod: request.method, path, rpc }, hasSession);
      if (!rule) return done();
      applyFault(request, reply, rule, done);
    };
    const onData = (chunk: Buffer) => {
      held.push(chunk);
      size += chunk.length;
      if (size >= FAULT_BODY_MAX) settle(false);
    };
    const onEnd = () => settle(true);
    const onError = (err: Error) => settle(true, err);
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
  }

  function recordFault(xid: string, rule: FaultRule, after: string, text: string): void {
    capture({
      t: 'modification',
      xid,
      ts: now(),
      what: 'fault-injection',
      before: `rule ${rule.id}: ${describeMatch(rule.match)} → ${describeAction(rule.action)}${rule.once ? ' (once)' : ''}`,
      after,
      text,
    });
  }

  function applyFault(request: FastifyRequest, reply: FastifyReply, rule: FaultRule, done: () => void): void {
    const ctx = request.mcpscope!;
    const what = `${request.method} ${pathOf(request.url)}`;
    const action = rule.action;
    switch (action.type) {
      case 'delay': {
        recordFault(ctx.xid, rule, `forwarded after ${action.ms} ms`, `Fault injection (rule ${rule.id}): mcpscope held ${what} for ${action.ms} ms before forwarding it to the upstream.`);
        const onClose = () => {
          // The client gave up while the request was held: forward nothing.
          clearTimeout(timer);
          ctx.responded = true;
          capture({ t: 'abort', xid: ctx.xid, ts: now(), side: 'client', reason: 'the client went away while mcpscope held the request (fault injection: delay); it was not forwarded' });
        };
        const timer = setTimeout(() => {
          reply.raw.off('close', onClose);
          done();
        }, action.ms);
        reply.raw.once('close', onClose);
        return;
      }
      case 'drop-stream':
        ctx.dropStream = { rule, afterEvents: action.afterEvents };
        return done();
      case 'status': {
        const id = jsonRpcIdFrom(ctx.head);
        const body = action.body ?? JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: `mcpscope fault injection: HTTP ${action.status} (rule ${rule.id})` } });
        recordFault(ctx.xid, rule, `HTTP ${action.status}: ${body}`, `Fault injection (rule ${rule.id}): mcpscope answered ${what} with HTTP ${action.status} itself; the request was not forwarded to the upstream.`);
        return answerLocally(request, reply, action.status, body);
      }
      case 'expire-session': {
        const id = jsonRpcIdFrom(ctx.head);
        const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message: 'Session not found' } });
        recordFault(ctx.xid, rule, `HTTP 404: ${body}`, `Fault injection (rule ${rule.id}): mcpscope answered ${what} with 404 for its session id (Mcp-Session-Id), as a server does for an expired session; the request was not forwarded. A client should start a new session (initialize again).`);
        return answerLocally(request, reply, 404, body);
      }
    }
  }

  /** mcpscope answers the request itself (a fault): the body is read and recorded, nothing is forwarded. */
  function answerLocally(request: FastifyRequest, reply: FastifyReply, status: number, text: string): void {
    const ctx = request.mcpscope!;
    ctx.responded = true;
    const raw = reply.raw;
    if (ctx.onEarlyClose) raw.off('close', ctx.onEarlyClose);
    const body = request.body;
    if (body instanceof Readable) body.resume();
    reply.hijack();
    const out = Buffer.from(text, 'utf8');
    const headers = { 'content-type': 'application/json', 'content-length': String(out.length), 'x-mcpscope-fault': 'injected' };
    capture({ t: 'response', xid: ctx.xid, ts: now(), status, headers });
    capture({ t: 'response-chunk', xid: ctx.xid, ts: now(), chunk: out });
    raw.writeHead(status, headers);
    raw.end(out, () => capture({ t: 'response-end', xid: ctx.xid, ts: now() }));
  }

  /** Forwards an SSE response until `afterEvents` events have passed, then ends it (and the upstream request). */
  function dropStreamAfter(ctx: ExchangeContext, source: Readable, raw: ServerResponse, drop: { rule: FaultRule; afterEvents: number }): void {
    const xid = ctx.xid;
    let events = 0;
    let atLineStart = false;
    let lastCr = false;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      source.off('data', onData);
      source.off('end', onEnd);
      raw.off('close', onClientClose);
      recordFault(
        xid,
        drop.rule,
        `stream ended after ${events} event${events === 1 ? '' : 's'}`,
        `Fault injection (rule ${drop.rule.id}): mcpscope ended this SSE response after ${drop.afterEvents} event${drop.afterEvents === 1 ? '' : 's'}, as a dropped connection or proxy timeout would; it closed the upstream request too.`,
      );
      raw.end(() => capture({ t: 'response-end', xid, ts: now() }));
      source.on('error', () => undefined);
      ctx.abort.abort();
      source.destroy();
    };
    /** Index just past the blank line that ends event number `afterEvents`, or -1. */
    const cutIn = (chunk: Buffer): number => {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i];
        if (b === 0x0a && lastCr) {
          lastCr = false;
          continue;
        }
        lastCr = b === 0x0d;
        if (b === 0x0a || b === 0x0d) {
          if (atLineStart) {
            events += 1;
            atLineStart = false;
            if (events >= drop.afterEvents) return b === 0x0d && chunk[i + 1] === 0x0a ? i + 2 : i + 1;
          } else atLineStart = true;
        } else atLineStart = false;
      }
      return -1;
    };
    const onData = (chunk: Buffer) => {
      const cut = cutIn(chunk);
      if (cut < 0) {
        if (!raw.write(chunk)) {
          source.pause();
          raw.once('drain', () => source.resume());
        }
        return;
      }
      raw.write(chunk.subarray(0, cut));
      finish();
    };
    const onEnd = () => {
      if (finished) return;
      finished = true;
      raw.off('close', onClientClose);
      raw.end(() => capture({ t: 'response-end', xid, ts: now() }));
    };
    const onClientClose = () => {
      if (finished) return;
      finished = true;
      capture({ t: 'abort', xid, ts: now(), side: 'client', reason: 'the client closed the connection; mcpscope closed the upstream request too' });
      source.on('error', () => undefined);
      source.destroy();
    };
    source.on('error', (err) => {
      if (finished) return;
      finished = true;
      capture({ t: 'abort', xid, ts: now(), side: 'upstream', reason: `the upstream broke off the response (${describeUpstreamError(err).cause})` });
      raw.destroy();
    });
    if (drop.afterEvents === 0) return finish();
    source.on('data', onData);
    source.on('end', onEnd);
    raw.once('close', onClientClose);
  }

  function upstreamFailed(reply: FastifyReply, error: Error): void {
    const ctx = reply.request.mcpscope;
    const { code, cause } = describeUpstreamError(error);
    const clientGone = ctx?.abort.aborted ?? false;
    const status = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' ? 504 : 502;
    const message = clientGone
      ? 'the client went away before the upstream answered; mcpscope aborted the upstream request'
      : `mcpscope could not get a response from ${options.target}: ${cause}`;
    if (ctx) {
      ctx.responded = true;
      if (clientGone) capture({ t: 'abort', xid: ctx.xid, ts: now(), side: 'client', reason: message });
      else capture({ t: 'upstream-error', xid: ctx.xid, ts: now(), code, message, status });
    }
    if (clientGone || reply.sent || reply.raw.headersSent) {
      if (!reply.raw.writableEnded) reply.raw.destroy();
      return;
    }
    const id = ctx ? jsonRpcIdFrom(ctx.head) : null;
    void reply
      .code(status)
      .header('content-type', 'application/json')
      .header('x-mcpscope-error', code)
      .send(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message, data: { target: options.target, cause: code } } }));
  }

  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address() as AddressInfo;
  boundPort = address.port;
  const originHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  proxyOrigin = `http://${originHost}:${boundPort}`;

  return {
    origin: proxyOrigin,
    url: proxyOrigin + target.pathname + target.search,
    port: boundPort,
    app,
    async close() {
      await app.close();
      // destroy, not close: close() would wait for open event streams to end.
      await agent.destroy().catch(() => undefined);
    },
  };
}
