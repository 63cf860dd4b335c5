/**
 * Search and call views on the UI port (registered through startUiServer's `plugins`, so behind
 * the same token and Host/Origin guards as every other route):
 *
 *   GET /api/search?text=&session=&method=&tool=&dir=&errorsOnly=&minLatencyMs=&since=&before=&order=&limit=
 *       compact hits, newest first by default: { hits, more, query, lastSeq } (proxy/recorder/store/search.ts)
 *   GET /api/calls/:ref
 *       one call gathered: request, response, progress, cancellation, nested server requests,
 *       exchanges, spec violations, problems (proxy/recorder/store/call-view.ts); ref = a message seq or an exchange id
 *
 * `mcpscope mcp` (proxy/agent/) reads both, and the model-turn routes this plugin registers too
 * (model-routes.ts: /api/model-turns, /api/context).
 */
import type { FastifyInstance } from 'fastify';
import type { EventStore } from '../../recorder/store/event-store.js';
import { parseSearchQuery, searchMessages, SearchQueryError } from '../../recorder/store/search.js';
import { callView, CallViewError } from '../../recorder/store/call-view.js';
import { modelRoutes } from './model-routes.js';

export function searchRoutes(options: { store: EventStore }): (app: FastifyInstance) => void {
  const { store } = options;
  const models = modelRoutes({ store });
  return (app) => {
    models(app);
    app.get('/api/search', async (req, reply) => {
      let query;
      try {
        query = parseSearchQuery((req.query ?? {}) as Record<string, unknown>);
      } catch (err) {
        if (err instanceof SearchQueryError) return reply.code(400).send({ error: err.message });
        throw err;
      }
      return searchMessages(store, query);
    });
    app.get<{ Params: { ref: string } }>('/api/calls/:ref', async (req, reply) => {
      try {
        return callView(store, req.params.ref);
      } catch (err) {
        if (err instanceof CallViewError) return reply.code(err.status).send({ error: err.message });
        throw err;
      }
    });
  };
}
