/**
 * What mcpscope itself puts on the wire for a breakpoint (proxy thread): its answer to a held
 * client request (the user's response, or 202 for a dropped notification), and the user's answer
 * to a held server request, POSTed upstream as the client would. Both are captured as they go.
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import type { HeaderMap, WireRecord } from '../../../wire/capture/wire-records.js';
import { now } from '../../../wire/capture/clock.js';
import type { ExchangeContext } from '../../../wire/forwarder/exchange-context.js';
import { endToEndHeaders } from '../../../wire/forwarder/headers.js';
import { nextExchangeId } from '../../../wire/forwarder/exchange-ids.js';
import { SENT_BY_HEADER } from '../../../core/rules/breakpoint-types.js';

/** The data of an `endpoint` event at the start of a legacy stream's first chunk, if there is one. */
export function firstEndpoint(chunk: Buffer): string | undefined {
  const head = chunk.subarray(0, 4096).toString('utf8');
  const m = /(?:^|[\r\n])event: ?endpoint\r?\n(?:[^\r\n]*\r?\n)*?data: ?([^\r\n]*)/.exec(head);
  return m?.[1];
}

/** mcpscope answers a held request itself (the user's answer, or 202 for a dropped notification). */
export function answerClient(
  request: FastifyRequest,
  reply: FastifyReply,
  capture: (record: WireRecord) => void,
  status: number,
  body: string,
): void {
  const ctx = request.mcpscope!;
  ctx.responded = true;
  const raw = reply.raw;
  if (ctx.onEarlyClose) raw.off('close', ctx.onEarlyClose);
  const b = request.body;
  if (b instanceof Readable) b.resume();
  reply.hijack();
  const out = Buffer.from(body, 'utf8');
  const headers: Record<string, string> = {
    'content-length': String(out.length),
    'x-mcpscope-breakpoint': status === 202 ? 'dropped' : 'answered',
  };
  if (out.length > 0) headers['content-type'] = 'application/json';
  capture({ t: 'response', xid: ctx.xid, ts: now(), status, headers });
  if (out.length > 0) capture({ t: 'response-chunk', xid: ctx.xid, ts: now(), chunk: out });
  raw.writeHead(status, headers);
  raw.end(out, () => capture({ t: 'response-end', xid: ctx.xid, ts: now() }));
}

/**
 * The user's answer to a server→client request goes to the server as the client's would: a
 * POST to the session's endpoint (the MCP endpoint; legacy: the stream's endpoint) with the
 * carrying request's headers and `x-mcpscope-origin: respond`. Recorded as an exchange of its own.
 */
export function sendAnswerUpstream(
  agent: Dispatcher,
  capture: (record: WireRecord) => void,
  ctx: ExchangeContext,
  request: FastifyRequest,
  answer: string,
): void {
  const route = ctx.route;
  const path = ctx.legacyEndpoint ?? request.url;
  const headers = endToEndHeaders(request.headers);
  for (const h of ['content-length', 'last-event-id', 'accept-encoding']) delete headers[h];
  headers['content-type'] = 'application/json';
  headers.accept = 'application/json, text/event-stream';
  headers[SENT_BY_HEADER] = 'respond';
  if (route.upstreamHost !== undefined) headers.host = route.upstreamHost;
  if (route.forward) delete headers['proxy-authorization'];
  const body = Buffer.from(answer, 'utf8');
  headers['content-length'] = String(body.length);
  const xid = nextExchangeId();
  capture({
    t: 'request',
    xid,
    ts: now(),
    method: 'POST',
    url: path,
    upstreamUrl: route.upstreamOrigin + path,
    headers: headers as HeaderMap,
    proxyOrigin: route.proxyOrigin,
    target: route.target,
    targetName: route.targetName,
  });
  capture({ t: 'request-chunk', xid, ts: now(), chunk: body });
  capture({ t: 'request-end', xid, ts: now() });
  agent.request({ origin: route.upstreamOrigin, path, method: 'POST', headers, body }, (err, data) => {
    if (err || !data) {
      capture({
        t: 'upstream-error',
        xid,
        ts: now(),
        code: (err as { code?: string } | null)?.code ?? 'ERROR',
        message: `mcpscope could not send the user's answer to the server: ${err?.message ?? 'no response'}`,
        status: 502,
      });
      return;
    }
    capture({ t: 'response', xid, ts: now(), status: data.statusCode, headers: data.headers as HeaderMap });
    data.body.on('data', (chunk: Buffer) => capture({ t: 'response-chunk', xid, ts: now(), chunk }));
    data.body.on('end', () => capture({ t: 'response-end', xid, ts: now() }));
    data.body.on('error', (e) => capture({ t: 'abort', xid, ts: now(), side: 'upstream', reason: e.message }));
  });
}
