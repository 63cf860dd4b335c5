/**
 * Requests answered by HTTP alone (proxy/core/model/call-state.ts): when the exchange that carried
 * them ends with a status of 400 or more, or with no response at all, the requests of its body
 * still without a JSON-RPC answer are failed — counted in `counts.failed`, no longer pending. A
 * JSON-RPC error in the body paired with its request was read before (it is the answer); an id-null
 * error (the SDK's 400 "Server not initialized") answers none, so its request fails.
 */
import { httpRefusal } from '../core/model/call-state.js';
import type { ExchangeState, HttpExchanges } from './http-exchanges.js';

/** Called once the exchange's response is over (its body read), or it broke off. */
export function failRefused(http: HttpExchanges, ex: ExchangeState): void {
  const session = ex.session;
  if (!session || ex.requestSeqs.length === 0 || httpRefusal(ex.info) === undefined) return;
  const failed = http.ctx.correlator.failByHttp(session.id, ex.requestSeqs);
  if (failed.length === 0) return;
  session.counts.failed = (session.counts.failed ?? 0) + failed.length;
  // A closed session counts nothing pending (RecorderContext.closeSession).
  if (session.status === 'open') session.counts.pending = http.ctx.correlator.pendingCount(session.id);
  http.ctx.markSession(session);
}
