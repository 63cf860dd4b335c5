/**
 * A call's state, decided in one place for the proxy and the UI: the recorder's session counts
 * (`counts.pending`, `counts.failed`), `/api/calls` and `/api/search` (proxy/recorder/store/call-view.ts,
 * search.ts), `mcpscope mcp` (proxy/agent/), an imported fixture's counts (proxy/import/), and the
 * UI's rows (ui/src/state/store.ts).
 *
 * A request is pending until something ends it: its JSON-RPC answer (a result, an error, a tool
 * result with isError), its cancellation, or an HTTP exchange that answered it by HTTP alone — a
 * status of 400 or more with no JSON-RPC answer to it in the body (a 401 challenge, the SDK's
 * 400 "Server not initialized", whose error has id null and answers no request), or a request that
 * failed before any response head (the server unreachable, the connection reset, the client gone).
 * Then it is `failed`, not pending: no answer can come on that exchange. Not failures: a 202
 * Accepted (a notification's or a response's), a 200 SSE stream that is still to carry the answer,
 * and a stream cut after its head (a client may resume it with Last-Event-ID; in 2026-07-28 a client
 * closing it cancels the request). A 4xx whose body is a JSON-RPC error paired with the request is
 * that error: an answer.
 *
 * Pure and browser-safe: no Node builtin.
 */
import type { ExchangeInfo, MessageEvent } from './events.js';

/** How an HTTP exchange answered the requests it carried by HTTP alone: its status (400 or more), or `failed` (no response head). */
export type HttpRefusal = number | 'failed';

/**
 * What an exchange says about the requests it carried that got no JSON-RPC answer: the status it
 * was refused with (≥ 400), `failed` when it ended without any response head, or undefined (no
 * status yet, a 2xx or 3xx: the answer may still come).
 */
export function httpRefusal(x: Pick<ExchangeInfo, 'status' | 'error' | 'aborted'> | undefined): HttpRefusal | undefined {
  if (!x) return undefined;
  if (x.status !== undefined) return x.status >= 400 ? x.status : undefined;
  return x.error !== undefined || x.aborted !== undefined ? 'failed' : undefined;
}

/**
 * `answered` (a result), `error` (a JSON-RPC error), `tool-error` (a tool result with isError),
 * `cancelled`, `failed` (answered by HTTP alone: httpRefusal) or `pending`.
 */
export type CallState = 'pending' | 'answered' | 'error' | 'tool-error' | 'cancelled' | 'failed';

export interface CallFacts {
  /** The request's JSON-RPC answer, when one came. */
  answer?: Pick<MessageEvent, 'kind' | 'isError'>;
  /** It was cancelled (notifications/cancelled; 2026-07-28: its stream closed by the client) before any answer came. */
  cancelled?: boolean;
  /** httpRefusal of the exchange that carried the request. */
  refusal?: HttpRefusal;
}

/** The state of a request from what is known of it. A cancellation before the answer stays a cancellation; an answer beats a refusal. */
export function callState(c: CallFacts): CallState {
  if (c.cancelled) return 'cancelled';
  if (c.answer) return c.answer.kind === 'error' ? 'error' : c.answer.isError ? 'tool-error' : 'answered';
  if (c.refusal !== undefined) return 'failed';
  return 'pending';
}

/**
 * Whether a request counts as cancelled (CallFacts.cancelled): its first `notifications/cancelled`
 * (`cancelSeq`) came before its answer (`answerSeq`), or, with no answer, the client closed the
 * stream it was carried on (2026-07-28: `streamClosed`, the exchange's `cancels` naming it).
 */
export function cancelledFirst(cancelSeq: number | undefined, answerSeq: number | undefined, streamClosed: boolean): boolean {
  if (cancelSeq !== undefined && (answerSeq === undefined || cancelSeq < answerSeq)) return true;
  return answerSeq === undefined && streamClosed;
}

/** A refusal in words: `HTTP 400`, or `failed` (no response). */
export function refusalText(r: HttpRefusal): string {
  return r === 'failed' ? 'failed' : `HTTP ${r}`;
}
