/**
 * Model turns on the UI port (issue 27), for `mcpscope mcp` (proxy/app/agent/agent-model-tools.ts):
 *
 *   GET /api/model-turns?agent=&session=&limit=   compact turns, newest first: { turns, total, agents }
 *   GET /api/model-turns/:id                      one turn whole, with its tool calls' MCP request and response
 *   GET /api/context?agent=                       per agent, its latest turn's context cost per MCP server
 *
 * Registered by searchRoutes (search-routes.ts), so wherever the search API is served these are,
 * behind the same token and Host/Origin guards as every route of startUiServer's `plugins`. The
 * views are proxy/recorder/store/model-views.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { EventStore } from '../../recorder/store/event-store.js';
import { contextCosts, listModelTurns, modelTurnView, parseTurnQuery } from '../../recorder/store/model-views.js';

export function modelRoutes(options: { store: EventStore }): (app: FastifyInstance) => void {
  const { store } = options;
  // Their McpscopeErrors (BAD_QUERY, NO_MODEL_TURN) are answered by error-handler.ts.
  return (app) => {
    app.get('/api/model-turns', async (req) => listModelTurns(store, parseTurnQuery((req.query ?? {}) as Record<string, unknown>)));
    app.get<{ Params: { id: string } }>('/api/model-turns/:id', async (req) => modelTurnView(store, req.params.id));
    app.get('/api/context', async (req) => {
      const agent = (req.query as Record<string, unknown> | undefined)?.agent;
      return contextCosts(store, { agent: typeof agent === 'string' && agent !== '' ? agent : undefined });
    });
  };
}
