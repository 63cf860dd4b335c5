/**
 * The UI API's one error handler: every error a route throws is answered `{ error, code }` with
 * one status, so a route says what went wrong (`throw new McpscopeError('NO_SESSION', …)`) and
 * never maps errors to statuses itself.
 *
 * - an McpscopeError (proxy/core/model/errors.ts): its status, its message, its code;
 * - fastify's own refusals (a body too large, JSON that does not parse, a wrong content type):
 *   their 4xx status, their message, their FST_ code;
 * - anything else is mcpscope's own fault: 500 and INTERNAL, in words that say so; the error goes
 *   to `log` (stderr), never to the caller (it may carry a path or a stack).
 *
 * Installed on the UI server only. The proxy's own fastify instance (wire/forwarder/) answers a
 * client in the upstream's words and has handlers of its own: an mcpscope-shaped error there would
 * break transparency.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { McpscopeError } from '../../core/model/errors.js';

export interface ErrorBody {
  error: string;
  /** A code of ERRORS, fastify's `FST_…` code for its own refusals, or BAD_REQUEST. */
  code: string;
}

/** What the UI API answers for `err`: a status and the `{ error, code }` body. */
export function errorAnswer(err: unknown): { status: number; body: ErrorBody; internal: boolean } {
  if (err instanceof McpscopeError) return { status: err.status, body: { error: err.message, code: err.code }, internal: false };
  const f = err as Partial<FastifyError> | undefined;
  const status = typeof f?.statusCode === 'number' ? f.statusCode : 0;
  if (status >= 400 && status < 500) {
    return {
      status,
      body: { error: String(f?.message ?? 'Bad request'), code: typeof f?.code === 'string' ? f.code : 'BAD_REQUEST' },
      internal: false,
    };
  }
  return {
    status: 500,
    body: { error: 'mcpscope failed while answering this request (its own fault; the details are in its log).', code: 'INTERNAL' },
    internal: true,
  };
}

export function installErrorHandler(app: FastifyInstance, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): void {
  app.setErrorHandler((err, req, reply) => {
    const answer = errorAnswer(err);
    if (answer.internal) log(`mcpscope: ${req.method} ${req.url.split('?')[0]} failed: ${(err as Error)?.stack ?? String(err)}`);
    void reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
  });
}
