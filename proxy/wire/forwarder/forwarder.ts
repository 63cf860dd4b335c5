/**
 * The hot path shared by the reverse and the forward proxy: sends one request to its route's
 * upstream 1:1 with undici (once, no retries), pushes a capture record for each thing that
 * crosses (a reference to the chunk, nothing more), and relays the answer unbuffered. Parsing and
 * correlation happen elsewhere, later (docs/architecture.md). The only byte changes are the
 * route's documented rewrites (reverse mode, rewrites.ts) and what the addons' steps do at the
 * wire stages (../stages.ts: breakpoints, faults), each off until a rule exists. It imports no feature.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { finished, Readable, Transform, type Duplex, type TransformCallback } from 'node:stream';
import { STATUS_CODES, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { HeaderMap, WireRecord } from '../capture/wire-records.js';
import { now } from '../capture/clock.js';
import { endToEndHeaders, pathOf, withoutCookie } from './headers.js';
import { REFUSAL_STATUS, REFUSAL_WORDS, REFUSED_HEADER, refusedHead, type HeadRefusal, type OverflowingHead } from './request-head.js';
import { TOKEN_COOKIE } from '../guards.js';
import { captureUnforwardedRequest, nextExchangeId } from './exchange-ids.js';
import { UpstreamAbort, type ExchangeContext, type Route } from './exchange-context.js';
import { CLIENT_CLOSED, clientAbort } from './drain.js';
import { describeUpstreamError, jsonRpcIdFrom, upstreamBrokeOff } from './upstream-errors.js';
import type { UpstreamResponse } from './rewrites.js';
import { isJsonType } from './headers.js';
import { firstActive, stageSteps, type RequestBodyStep, type LiveStream, type RequestVerdict, type WireSteps } from '../stages.js';

const REQUEST_HEAD_KEEP = 64 * 1024;

export interface ForwarderOptions {
  /** Receives every capture record, synchronously, on the hot path: must be O(1). */
  capture: (record: WireRecord) => void;
  /** The undici dispatcher every upstream request goes through (no timeouts, see the proxies). */
  agent: Dispatcher;
  /** The addons' steps at the wire stages (../stages.ts); with no rule each costs one check per exchange. */
  steps?: readonly WireSteps[];
}

export interface Forwarder {
  /** Records the request and sends it to `route`'s upstream; the answer is relayed to `reply`. */
  captureAndForward(request: FastifyRequest, reply: FastifyReply, route: Route): void;
  /**
   * A request whose head Node's parser gave up on (too many or too large header fields): answered
   * 431 on the socket in mcpscope's words, and recorded like refuseHead when `route` is known.
   */
  refuseOverflowingHead(head: OverflowingHead, socket: Duplex, route: Route | undefined): void;
}

export function createForwarder(options: ForwarderOptions): Forwarder {
  const { capture, agent } = options;
  const steps = stageSteps(options.steps ?? []);
  const watchingStreams = steps.responseStream.length > 0;

  function captureAndForward(request: FastifyRequest, reply: FastifyReply, route: Route): void {
    const refusal = refusedHead(request.raw.rawHeaders);
    if (refusal !== undefined) return refuseHead(request, reply, route, refusal);
    // request-body: off unless a rule exists (this check is its whole cost). A POST body is then
    // read whole before it goes on (the capture taps what the step lets through).
    const holder = request.method === 'POST' && request.body instanceof Readable ? firstActive(steps.requestBody) : undefined;
    if (holder)
      holder.hold(
        request,
        reply,
        () => request.mcpscope!,
        (v) => afterHold(holder, request, reply, v),
      );
    startCapture(request, reply, route);
    if (!holder) beforeUpstream(request, reply, 0);
  }

  /** before-upstream: each active step in turn, then the upstream. */
  function beforeUpstream(request: FastifyRequest, reply: FastifyReply, from: number): void {
    for (let i = from; i < steps.beforeUpstream.length; i++) {
      const step = steps.beforeUpstream[i]!;
      if (step.active()) return step.run(request, reply, () => beforeUpstream(request, reply, i + 1));
    }
    forwardUpstream(request, reply);
  }

  /** A POST body held at a request-body step was decided: forwarded (as it came or edited), answered by mcpscope, or dropped. */
  function afterHold(holder: RequestBodyStep, request: FastifyRequest, reply: FastifyReply, v: RequestVerdict): void {
    const ctx = request.mcpscope!;
    if (ctx.abort.aborted) return;
    if (v.go === 'forward') return beforeUpstream(request, reply, 0);
    if (v.go === 'answer') return holder.answer(request, reply, v.status, v.body);
    // Dropped: never answered; the client gives up when it will.
    ctx.responded = true;
    if (ctx.onEarlyClose) reply.raw.off('close', ctx.onEarlyClose);
    reply.hijack();
    reply.raw.once('close', () =>
      capture(clientAbort(ctx.xid, 'the client gave up waiting for the answer to a request dropped at a breakpoint')),
    );
  }

  /**
   * Sends the request upstream as it came: same method, path and query byte for byte, the
   * end-to-end headers (Host set to the route's when it names one), the body streamed. One
   * attempt only: what the upstream answers, or how it fails, is what the client gets.
   */
  function forwardUpstream(request: FastifyRequest, reply: FastifyReply): void {
    const ctx = request.mcpscope!;
    const route = ctx.route;
    const headers = endToEndHeaders(request.headers);
    if (route.upstreamHost !== undefined) headers.host = route.upstreamHost;
    if (route.forward) delete headers['proxy-authorization'];
    // mcpscope's UI cookie is host-scoped, so a browser sends it here too: never to the server.
    // (Node joins a request's Cookie fields into one string.)
    const cookie = request.headers.cookie;
    if (cookie !== undefined) stripOwnCookie(ctx.xid, headers, cookie);
    const body = request.body instanceof Readable ? request.body : null;
    const onAnswer = (err: Error | null, data?: Dispatcher.ResponseData) => {
      if (err || !data) return upstreamFailed(reply, err ?? new Error('no response'));
      if (ctx.abort.aborted) {
        // The client left just as the head arrived: nobody to relay it to.
        ctx.responded = true;
        capture(clientAbort(ctx.xid, 'the client went away before the upstream answered; mcpscope aborted the upstream request'));
        data.body.on('error', () => undefined);
        data.body.destroy();
        return;
      }
      relayResponse(request, reply, { statusCode: data.statusCode, headers: data.headers as IncomingHttpHeaders, stream: data.body });
    };
    try {
      agent.request(
        {
          origin: route.upstreamOrigin,
          path: request.url,
          method: request.method as Dispatcher.HttpMethod,
          headers,
          body,
          signal: ctx.abort,
        },
        onAnswer,
      );
    } catch (err) {
      // A request undici refuses to send (an `Expect` header, say): answered like an unreachable upstream.
      upstreamFailed(reply, err as Error);
    }
  }

  /** Takes mcpscope's UI token cookie out of the upstream request's Cookie header, and records it. */
  function stripOwnCookie(xid: string, headers: Record<string, string | string[]>, before: string): void {
    const after = withoutCookie(before, TOKEN_COOKIE);
    if (after === undefined) return;
    if (after === '') delete headers.cookie;
    else headers.cookie = after;
    // Names only: the values are credentials (the recorder redacts Cookie headers too).
    const names = (v: string) =>
      v === ''
        ? '(no Cookie header)'
        : `Cookie: ${v
            .split(';')
            .map((p) => p.split('=')[0]!.trim())
            .join('; ')}`;
    capture({
      t: 'modification',
      xid,
      ts: now(),
      what: 'cookie-strip',
      before: names(before),
      after: names(after),
      text: `mcpscope removed its own UI cookie (${TOKEN_COOKIE}) from the request: a browser sends it to every port of this host, and it must never reach a server.${after === '' ? ' It was the only cookie, so no Cookie header was sent.' : ' The other cookies were forwarded unchanged.'}`,
    });
  }

  /**
   * A request mcpscope will not forward (request-head.ts): answered 431/400 in the server's place,
   * recorded as its own answer (header x-mcpscope-refused), and the connection closed.
   */
  function refuseHead(request: FastifyRequest, reply: FastifyReply, route: Route, refusal: HeadRefusal): void {
    const { status, headers, text } = refusalAnswer(refusal);
    recordRefusal(request.method, request.url, request.headers as HeaderMap, route, status, headers, text);
    const body = request.body as { resume?: () => void } | undefined;
    body?.resume?.();
    void reply.code(status).headers(headers).send(text);
  }

  function refuseOverflowingHead(head: OverflowingHead, socket: Duplex, route: Route | undefined): void {
    const { status, headers, text } = refusalAnswer(head.refusal);
    if (route) recordRefusal(head.method, head.url, head.host === undefined ? {} : { host: head.host }, route, status, headers, text);
    let lines = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-length: ${Buffer.byteLength(text)}\r\n`;
    for (const [name, value] of Object.entries(headers)) lines += `${name}: ${value}\r\n`;
    if (socket.writable) socket.end(`${lines}\r\n${text}`);
    else socket.destroy();
  }

  function refusalAnswer(refusal: HeadRefusal): { status: number; headers: Record<string, string>; text: string } {
    const message = `mcpscope did not forward this request: ${REFUSAL_WORDS[refusal]}.`;
    return {
      status: REFUSAL_STATUS[refusal],
      headers: { 'content-type': 'application/json', [REFUSED_HEADER]: refusal, connection: 'close' },
      text: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }),
    };
  }

  function recordRefusal(
    method: string,
    url: string,
    requestHeaders: HeaderMap,
    route: Route,
    status: number,
    headers: HeaderMap,
    text: string,
  ): void {
    const { xid, ts } = captureUnforwardedRequest(
      capture,
      { method, url, headers: requestHeaders },
      { proxyOrigin: route.proxyOrigin, target: route.target, targetName: route.targetName },
    );
    capture({ t: 'request-end', xid, ts });
    capture({ t: 'response', xid, ts, status, headers });
    capture({ t: 'response-chunk', xid, ts, chunk: Buffer.from(text, 'utf8') });
    capture({ t: 'response-end', xid, ts });
  }

  function startCapture(request: FastifyRequest, reply: FastifyReply, route: Route): void {
    const xid = nextExchangeId();
    const ctx: ExchangeContext = { xid, route, head: [], headBytes: 0, abort: new UpstreamAbort(), responded: false };
    request.mcpscope = ctx;
    capture({
      t: 'request',
      xid,
      ts: now(),
      method: request.method,
      url: request.url,
      upstreamUrl: route.upstreamOrigin + request.url,
      headers: request.headers as HeaderMap,
      proxyOrigin: route.proxyOrigin,
      target: route.target,
      targetName: route.targetName,
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
        capture(clientAbort(xid, `the client stopped sending the request body (${err.message})`));
        tap.destroy(err);
      });
      (request as { body: unknown }).body = tap;
    } else {
      capture({ t: 'request-end', xid, ts: now() });
    }
  }

  function relayResponse(request: FastifyRequest, reply: FastifyReply, res: UpstreamResponse): void {
    const ctx = request.mcpscope!;
    ctx.responded = true;
    const xid = ctx.xid;
    const route = ctx.route;
    const rewrites = route.rewrites;
    capture({ t: 'response', xid, ts: now(), status: res.statusCode, headers: res.headers as HeaderMap });

    const headers = endToEndHeaders(res.headers);
    const contentType = String(res.headers['content-type'] ?? '').toLowerCase();
    const isSse = contentType.startsWith('text/event-stream');
    const stages: (Readable | Transform)[] = [res.stream];
    let pathname = '';
    if (rewrites) {
      pathname = pathOf(request.url);
      if (headers['www-authenticate'] !== undefined || headers['location'] !== undefined)
        rewrites.headers(xid, pathname, res.statusCode, headers, route.proxyOrigin);
      if (isSse && request.method === 'GET') {
        stages.push(rewrites.endpointStage(xid, request.url, route.proxyOrigin));
        // The body may change length; let Node frame it.
        delete headers['content-length'];
      }
    }

    reply.hijack();
    const raw: ServerResponse = reply.raw;
    if (ctx.onEarlyClose) raw.off('close', ctx.onEarlyClose);
    // fastify, the body relay and end-of-stream each watch 'close' on this one response.
    raw.setMaxListeners(32);

    // response-json (breakpoints): read whole, then sent (or not) as decided.
    if (!isSse && request.method === 'POST' && isJsonType(contentType)) {
      const step = firstActive(steps.responseJson);
      if (step && step.relay(request, raw, res.statusCode, headers, res)) return;
    }

    const tap = (chunk: Buffer) => capture({ t: 'response-chunk', xid, ts: now(), chunk });
    res.stream.on('data', tap);

    const metadataKind = rewrites ? rewrites.metadataKind(request.method, pathname, res, contentType) : null;
    if (metadataKind) {
      rewrites!.relayMetadata(xid, pathname, metadataKind, res, raw, headers, route.proxyOrigin, pipeBody);
      return;
    }

    raw.writeHead(res.statusCode, headers);
    // SSE: the client should see the stream open now, not when the first event comes.
    if (isSse) raw.flushHeaders();
    if (ctx.relayStream && isSse) {
      // A step relays it (a drop-stream fault cuts on what the client gets: after reverse mode's endpoint stage, when there is one).
      ctx.relayStream(chainStages(stages), raw);
      return;
    }
    pipeBody(xid, stages, raw, isSse && watchingStreams ? { ctx, request, tap } : undefined);
  }

  /**
   * The stages piped into one stream, for a relay that reads the last one (ctx.relayStream): an
   * error of one stage breaks the next, and the last one closing closes the upstream's body too.
   */
  function chainStages(stages: (Readable | Transform)[]): Readable {
    let last = stages[0] as Readable;
    for (let i = 1; i < stages.length; i++) {
      const prev = last;
      const next = stages[i] as Transform;
      prev.on('error', (err) => next.destroy(err));
      next.once('close', () => prev.destroy());
      last = prev.pipe(next);
    }
    return last;
  }

  /**
   * Streams the body stages into the client's response and records how it ended. What
   * pipeline() would do, by hand (it costs an AbortController per response): an upstream that
   * breaks off breaks the client's response; a client that goes away closes the upstream request.
   */
  function pipeBody(
    xid: string,
    stages: (Readable | Transform)[],
    raw: ServerResponse,
    live?: { ctx: ExchangeContext; request: FastifyRequest; tap: (chunk: Buffer) => void },
  ): void {
    let ended = false;
    let unwatch: (() => void)[] | undefined;
    const end = (record: WireRecord) => {
      if (ended) return;
      ended = true;
      if (unwatch) for (const u of unwatch) u();
      capture(record);
    };
    const source = stages[0] as Readable;
    let last: Readable = source;
    for (let i = 1; i < stages.length; i++) last = last.pipe(stages[i] as Transform);
    last.pipe(raw);
    const breakOff = (err: Error) => {
      end(upstreamBrokeOff(xid, err));
      for (const s of stages) s.destroy();
      raw.destroy();
    };
    // `on`, not `once`: a second error from a stage must not go unhandled (breakOff is idempotent).
    for (const s of stages) s.on('error', breakOff);
    // response-stream: an event stream, watched by the steps (breakpoints hold its events, now or once a rule exists).
    if (live) {
      const stream: LiveStream = {
        ctx: live.ctx,
        request: live.request,
        raw,
        source,
        splice(stage: Transform) {
          const after: NodeJS.WritableStream = (stages[1] as Transform | undefined) ?? raw;
          source.unpipe(after);
          // The capture records what goes on: the stage's output (edits included), not the upstream's bytes.
          source.off('data', live.tap);
          stage.on('data', (chunk: Buffer) => capture({ t: 'response-chunk', xid, ts: now(), chunk }));
          stage.on('error', breakOff);
          stages.splice(1, 0, stage);
          source.pipe(stage).pipe(after);
        },
      };
      unwatch = steps.responseStream.map((s) => s.watch(stream));
    }
    finished(raw, (err) => {
      if (!err) return end({ t: 'response-end', xid, ts: now() });
      // Closed before it finished: the client went away (unless the upstream broke off first).
      end(clientAbort(xid, CLIENT_CLOSED));
      for (const s of stages) {
        s.on('error', () => undefined);
        s.destroy();
      }
    });
  }

  function upstreamFailed(reply: FastifyReply, error: Error): void {
    const ctx = reply.request.mcpscope;
    const { code, cause } = describeUpstreamError(error);
    // (A client connection already destroyed — mcpscope shutting down — counts too: nobody would get a 502.)
    const clientGone = (ctx?.abort.aborted ?? false) || reply.raw.socket?.destroyed === true;
    const status = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' ? 504 : 502;
    const target = ctx?.route.target ?? '';
    // The URL this request was sent to (the target's origin and the path the client asked for).
    const url = ctx ? ctx.route.upstreamOrigin + reply.request.url : target;
    const message = clientGone
      ? 'the client went away before the upstream answered; mcpscope aborted the upstream request'
      : `mcpscope could not get a response from ${url}: ${cause}`;
    if (ctx) ctx.responded = true;
    if (clientGone || reply.sent || reply.raw.headersSent) {
      if (ctx)
        capture(clientGone ? clientAbort(ctx.xid, message) : { t: 'upstream-error', xid: ctx.xid, ts: now(), code, message, status });
      if (!reply.raw.writableEnded) reply.raw.destroy();
      return;
    }
    const id = ctx ? jsonRpcIdFrom(ctx.head) : null;
    const text = JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message, data: { target, url, cause: code } } });
    const headers = { 'content-type': 'application/json', 'x-mcpscope-error': code };
    if (ctx) {
      // mcpscope's answer is recorded as the response (its error pairs with the request), then why.
      const xid = ctx.xid;
      capture({ t: 'response', xid, ts: now(), status, headers });
      capture({ t: 'response-chunk', xid, ts: now(), chunk: Buffer.from(text, 'utf8') });
      capture({ t: 'upstream-error', xid, ts: now(), code, message, status });
    }
    void reply.code(status).headers(headers).send(text);
  }

  return { captureAndForward, refuseOverflowingHead };
}
