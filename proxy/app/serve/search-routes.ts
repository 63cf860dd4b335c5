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
import { parseSearchQuery, searchMessages } from '../../recorder/store/search.js';
import { callView } from '../../recorder/store/call-view.js';
import { modelRoutes } from './model-routes.js';

export function searchRoutes(options: { store: EventStore }): (app: FastifyInstance) => void {
  const { store } = options;
  const models = modelRoutes({ store });
  return (app) => {
    models(app);
    // Their McpscopeErrors (BAD_QUERY, BAD_CALL_REF, NO_CALL) are answered by error-handler.ts.
    app.get('/api/search', async (req) => searchMessages(store, parseSearchQuery((req.query ?? {}) as Record<string, unknown>)));
    app.get<{ Params: { ref: string } }>('/api/calls/:ref', async (req) => callView(store, req.params.ref));
  };
}
