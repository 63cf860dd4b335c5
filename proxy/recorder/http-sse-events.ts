/**
 * The events of an HTTP response's SSE stream (a POST's answer, a GET stream, a legacy HTTP+SSE
 * session stream): comments and priming events, the legacy `endpoint` event, custom events, and
 * messages, which take the shared message path (message-path.ts). A GET stream taken for a
 * stateless server's that turns out to be a legacy session stream becomes one here (toLegacy).
 */
import type { Carrier, SessionInfo } from '../core/model/events.js';
import { classifyPayload } from '../core/parse/jsonrpc.js';
import type { BodyFrame } from '../core/parse/body-reader.js';
import { pathAndQuery, targetOf } from './record-helpers.js';
import { emitFrame } from './message-path.js';
import { PREVIEW_BYTES } from './recorder-context.js';
import type { ExchangeState, HttpExchanges } from './http-exchanges.js';

export function onResponseFrame(http: HttpExchanges, ex: ExchangeState, f: BodyFrame, ts: number): void {
  // A model API's event stream (model-turns.ts): its events are the turn's, never JSON-RPC.
  if (ex.model) return http.ctx.modelTurns?.frame(ex, f, ts);
  const sse = f.sse;
  const carrier: Carrier = ex.info.carrier ?? 'post-sse';
  if (!sse) return;
  const session = ex.session;
  if (session && sse.id) http.ctx.registry.noteEventId(session, sse.id, ex.info.id);
  const location = { offset: f.offset, length: f.length, eventId: sse.id, eventType: sse.event };
  // Only the events stored as `sse` (not messages) keep the block's raw text: redacted then, not for every frame.
  const base = () => ({
    ts,
    sessionId: session?.id,
    exchangeId: ex.info.id,
    raw: http.ctx.redactor.text(sse.raw),
    eventType: sse.event,
    eventId: sse.id,
    location,
  });

  if (!sse.dispatch) {
    const comment = sse.comments.length > 0 && sse.id === undefined && sse.retry === undefined;
    http.ctx.store.append({
      type: 'sse',
      ...base(),
      what: comment ? 'comment' : 'priming',
      retry: sse.retry,
      comment: sse.comments.join('\n') || undefined,
      hints: comment
        ? [
            {
              level: 'info',
              code: 'keepalive',
              text: 'A comment line: servers send these to keep idle connections open. Clients ignore them.',
            },
          ]
        : [
            {
              level: 'info',
              code: 'priming',
              text: `Sets the last event id${sse.retry !== undefined ? ` and a ${sse.retry} ms reconnect delay` : ''} without an event: a client that loses the stream can resume from here with Last-Event-ID.`,
            },
          ],
    });
    return;
  }
  if (sse.event === 'endpoint') {
    if (session && session.transport !== 'legacy-sse' && ex.info.carrier === 'get-sse' && !session.mcpSessionId)
      return onResponseFrame(http, toLegacy(http, ex, session), f, ts);
    const endpoint = pathAndQuery(f.text.trim(), ex.proxyOrigin + ex.info.url);
    if (session && endpoint) {
      http.ctx.registry.mapEndpoint(session, endpoint);
      http.ctx.markSession(session);
    }
    http.ctx.store.append({
      type: 'sse',
      ...base(),
      what: 'endpoint',
      data: http.ctx.redactor.text(f.text),
      hints: [
        {
          level: 'info',
          code: 'endpoint',
          text: `Legacy HTTP+SSE handshake: the client will POST its messages to ${endpoint === undefined ? http.ctx.redactor.text(f.text) : http.ctx.redactor.url(endpoint)}; every answer comes back on this stream.`,
        },
      ],
    });
    return;
  }
  if (f.text.trim() === '') {
    http.ctx.store.append({
      type: 'sse',
      ...base(),
      what: 'priming',
      retry: sse.retry,
      data: '',
      hints: [
        {
          level: 'info',
          code: 'priming',
          text: 'An event with empty data: the server primes the stream with an event id so the client can resume after a disconnect.',
        },
      ],
    });
    return;
  }
  if (sse.event !== undefined && sse.event !== 'message') {
    http.ctx.store.append({
      type: 'sse',
      ...base(),
      what: 'other',
      data: http.ctx.redactor.text(f.text.slice(0, PREVIEW_BYTES)),
      hints: [
        {
          level: 'info',
          code: 'custom-event',
          text: `An SSE event of type "${http.ctx.redactor.text(sse.event)}", which MCP does not define; clients ignore it.`,
        },
      ],
    });
    return;
  }
  const cls = f.truncated ? undefined : classifyPayload(f.text);
  emitFrame(http.ctx, http.ownerOf(ex), 's2c', carrier, f, cls, ts, sse.id);
}

/** A GET stream taken for a stateless server's got the legacy `endpoint` event: it is a legacy HTTP+SSE session stream after all. */
function toLegacy(http: HttpExchanges, ex: ExchangeState, from: SessionInfo): ExchangeState {
  if (from.counts.exchanges === 1 && from.counts.messages === 0) {
    // Its session was opened for this stream: it becomes the legacy session.
    from.transport = 'legacy-sse';
    from.grouping = undefined;
    http.ctx.registry.unmarkHeaderless(from);
  } else {
    from.counts.exchanges -= 1;
    ex.session = undefined;
    http.attach(ex, http.ctx.newSession('legacy-sse', ex.target, ex.info.startedAt, targetOf(ex)));
  }
  http.ctx.markSession(from);
  ex.info.carrier = 'legacy-sse';
  ex.info.hints = ex.info.hints.filter((h) => h.code !== 'standalone-stream');
  return ex;
}
