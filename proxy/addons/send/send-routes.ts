/**
 * The send API on the UI port (inside its token/Host/Origin guard):
 *
 *   POST /api/sessions/:id/send   { "message": <request or notification>, "keepId"?: true, "timeoutMs"?: n }
 *     200 { response, exchangeId, id }   a request's answer (as recorded: redacted like the rest of the API)
 *     200 { accepted: true, exchangeId } a notification, accepted
 *   A refusal is `{ error, code, … }` as every UI API error (proxy/core/model/errors.ts):
 *     400 BAD_SEND an invalid message, or a session that cannot be sent into; 404 NO_SESSION;
 *     501 CANNOT_SEND a stdio session without a stdio sender; 502 SEND_FAILED the server answered
 *     an HTTP error (`upstreamStatus`), or could not be reached; 504 SEND_FAILED no answer in time.
 *
 * The logic is session-send.ts.
 */
import type { FastifyInstance } from 'fastify';
import { SessionSender, type SessionSendDeps } from './session-send.js';

export function sendRoutes(deps: SessionSendDeps) {
  return (app: FastifyInstance): void => {
    const sender = new SessionSender(deps);
    app.addHook('onClose', async () => sender.close());
    app.post<{ Params: { id: string } }>('/api/sessions/:id/send', async (req, reply) => {
      const outcome = await sender.send(req.params.id, req.body);
      return reply.code(outcome.status).send(outcome.body);
    });
  };
}
