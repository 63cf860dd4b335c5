/**
 * Plain HTTP exchanges (OAuth, metadata, anything not MCP; plain-http.ts tells which): never parsed
 * as JSON-RPC, recorded with redacted previews and hints in the `http` bucket of their origin. An
 * exchange whose kind was not known when its request body ended goes its way here (decide).
 */
import { classifyPayload } from '../core/parse/jsonrpc.js';
import type { BodyEnd } from '../core/parse/body-reader.js';
import { plainHttpHints } from '../core/annotate/oauth-hints.js';
import { originOf, parseJson, readRequestBody, type ExchangeKind } from './plain-http.js';
import { targetOf } from './record-helpers.js';
import { PLAIN_PREVIEW_BYTES, PREVIEW_BYTES, TRUNCATED_PREFIX_BYTES } from './recorder-context.js';
import { BodyReader } from '../core/parse/body-reader.js';
import { declaredLength, firstHeader, type HeaderMap } from '../wire/capture/wire-records.js';
import type { ExchangeState, HttpExchanges } from './http-exchanges.js';

/** The exchange is MCP or plain HTTP after all: a request body held back goes its way now. */
export function decide(http: HttpExchanges, ex: ExchangeState, kind: ExchangeKind): void {
  const held = ex.deferred;
  ex.deferred = undefined;
  ex.kind = kind;
  if (kind === 'plain') toPlain(http, ex);
  if (!held) return;
  if (kind === 'plain') plainRequestBody(http, ex, held.end, held.ts);
  else {
    const frame = held.end.frames[0];
    http.mcpRequestBody(ex, held.end, frame && !frame.truncated ? classifyPayload(frame.text) : undefined, held.ts);
  }
}

/** Plain HTTP: no JSON-RPC parse, redacted previews and hints, in the `http` bucket of its origin (never an MCP session). */
export function toPlain(http: HttpExchanges, ex: ExchangeState): void {
  ex.kind = 'plain';
  ex.info.plain = true;
  ex.info.carrier = undefined;
  ex.plainBodies ??= {};
  const origin = originOf(ex.info.upstreamUrl, ex.target);
  let bucket = http.httpBuckets.get(origin);
  if (!bucket) {
    bucket = http.ctx.newSession('http', origin, ex.info.startedAt, { ...targetOf(ex), grouping: `HTTP traffic to ${origin}` }, [
      {
        level: 'info',
        code: 'plain-http',
        text: `HTTP traffic to ${origin} that is not MCP (OAuth, metadata, …): recorded as HTTP exchanges, not parsed as JSON-RPC.`,
      },
    ]);
    http.httpBuckets.set(origin, bucket);
  }
  http.attach(ex, bucket);
  annotatePlain(http, ex);
}

export function plainRequestBody(http: HttpExchanges, ex: ExchangeState, end: BodyEnd, ts: number): void {
  const text = end.frames[0]?.text ?? end.text;
  if (text === undefined) return;
  const read = readRequestBody(text, ex.info.requestType);
  // A model API call (model-turns.ts) is read as a turn; its hints are not OAuth's.
  const model = http.ctx.modelTurns?.request(ex, read.requestJson, end.bytes, ts) === true;
  if (!model) Object.assign((ex.plainBodies ??= {}), read);
  ex.info.requestPreview = http.ctx.previewOf(text, ex.info.requestType, PLAIN_PREVIEW_BYTES);
  annotatePlain(http, ex);
  http.ctx.markExchange(ex);
}

/** The response head of a plain exchange: its body is read for a preview (or, for a model turn, in full: model-turns.ts). */
export function plainResponseHead(http: HttpExchanges, ex: ExchangeState, ts: number, headers: HeaderMap, isJson: boolean): void {
  const encoding = firstHeader(headers, 'content-encoding');
  ex.resReader =
    http.ctx.modelTurns?.responseReader(ex, ts, encoding) ??
    new BodyReader({
      framing: isJson ? 'json' : 'opaque',
      encoding,
      maxBytes: isJson ? http.ctx.maxBodyBytes : PREVIEW_BYTES,
      truncatedPrefixBytes: TRUNCATED_PREFIX_BYTES,
      declaredBytes: declaredLength(headers),
    });
  annotatePlain(http, ex);
  http.ctx.markExchange(ex);
}

export function plainResponseBody(http: HttpExchanges, ex: ExchangeState, end: BodyEnd): void {
  if (ex.model) http.ctx.modelTurns?.body(ex, end);
  const text = end.frames[0]?.text ?? end.text;
  if (text === undefined || end.bytes === 0) return;
  const frame = end.frames[0];
  if (frame && !frame.truncated) (ex.plainBodies ??= {}).responseJson = parseJson(text);
  ex.info.responsePreview = http.ctx.previewOf(text, ex.info.responseType, PLAIN_PREVIEW_BYTES);
  annotatePlain(http, ex);
  if (ex.plainBodies) ex.plainBodies = undefined; // the exchange is done with its bodies
}

export function annotatePlain(http: HttpExchanges, ex: ExchangeState): void {
  const info = ex.info;
  const hints = plainHttpHints({
    method: info.method,
    url: info.url,
    requestType: info.requestType,
    requestHeaders: info.requestHeaders,
    ...ex.plainBodies,
    status: info.status,
    responseType: info.responseType,
    responseHeaders: info.responseHeaders,
  });
  // A tunnel says why it was not decrypted (its bytes each way are the request and response sizes).
  if (ex.tunnel !== undefined)
    hints.unshift({
      level: 'info',
      code: 'tunnel',
      text: `${info.method === 'CONNECT' ? `CONNECT ${info.url}` : `${info.method} ${info.url}`}: ${ex.tunnel}`,
    });
  info.hints = http.ctx.redactHints(hints);
  http.ctx.markExchange(ex);
}
