/**
 * `mcpscope mcp`'s tools for the model side of the wire (issue 27; docs/agent-mcp.md): the model
 * turns a client's agent loop made, one turn with the MCP calls it caused, and what the MCP
 * servers' tools cost the model's context. They read the running mcpscope's API
 * (proxy/app/serve/model-routes.ts) and format with agent-model-format.ts; failures are tool results
 * with plain words, as for every tool (agent-tools.ts `guarded`).
 */
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ContextCostView, ModelTurnView, TurnList } from '../../recorder/store/model-views.js';
import { FRAME_NOTE } from './agent-frame.js';
import { formatContextCosts, formatTurnList, formatTurnView } from './agent-model-format.js';
import { agentRedactor, guarded, ok, qs, READ } from './agent-tools.js';
import type { UiClient } from './ui-client.js';

export function registerModelTools(server: McpServer, client: UiClient): void {
  server.registerTool(
    'list_model_turns',
    {
      title: 'List model turns (calls of a client to its model API)',
      description:
        'Lists the model turns mcpscope recorded — each call an MCP client (Claude Code, Gemini CLI, Codex, an SDK agent) made ' +
        'to its model API through this proxy — newest first: id (m1, m2…), model, tokens in/out (cache reads and writes apart), ' +
        'stop reason, the tools the model chose and the MCP tools/call that carried each out (its seq: get_exchange shows it), ' +
        'agent and session. Use it to see why the model called (or did not call) a tool; then get_model_turn with an id. ' +
        FRAME_NOTE,
      inputSchema: {
        agent: z.string().max(500).optional().describe('Only this agent (an agent id from a previous result).'),
        session: z.string().max(200).optional().describe("Only turns of this session (the model API's session id)."),
        limit: z.number().int().min(1).optional().describe('Most turns (default 20, at most 200).'),
      },
      outputSchema: z.looseObject({ turns: z.array(z.looseObject({ id: z.string(), status: z.string() })), total: z.number() }),
      annotations: READ,
    },
    async (args) =>
      guarded(client, async () => ok(formatTurnList(await client.json<TurnList>(`/api/model-turns${qs(args)}`), agentRedactor(client)))),
  );

  server.registerTool(
    'get_model_turn',
    {
      title: 'Show one model turn with its MCP calls',
      description:
        'Shows one model turn as mcpscope recorded it: model, usage, timing, the system prompt and the messages the agent added ' +
        'since its previous turn (bounded), the tools offered, what the model answered (text, tool uses with arguments), and for ' +
        'each tool use the MCP tools/call request and result that carried it out, and how the result went back to the model. ' +
        'id is a turn id from list_model_turns, e.g. "m3". ' +
        FRAME_NOTE,
      inputSchema: { id: z.string().min(1).max(200).describe('A model turn id, e.g. "m1".') },
      outputSchema: z.looseObject({ turn: z.looseObject({ id: z.string() }), calls: z.array(z.looseObject({ callId: z.string() })) }),
      annotations: READ,
    },
    async ({ id }) =>
      guarded(client, async () =>
        ok(formatTurnView(await client.json<ModelTurnView>(`/api/model-turns/${encodeURIComponent(id)}`), agentRedactor(client))),
      ),
  );

  server.registerTool(
    'context_cost',
    {
      title: "What the MCP tools cost the model's context",
      description:
        'Per agent, from its latest model request: per MCP server, how many tools the client offered the model, about how many ' +
        'tokens their descriptions and schemas take in every request (and the server instructions, if the client put them in the ' +
        "prompt), and their share of the request's real input tokens. Largest first. Token counts are estimates with the " +
        'tokenizer named; shares use the input the API reported. ' +
        FRAME_NOTE,
      inputSchema: { agent: z.string().max(500).optional().describe('Only this agent.') },
      outputSchema: z.looseObject({ agents: z.array(z.looseObject({ agent: z.string() })) }),
      annotations: READ,
    },
    async (args) =>
      guarded(client, async () =>
        ok(formatContextCosts(await client.json<ContextCostView>(`/api/context${qs(args)}`), agentRedactor(client))),
      ),
  );
}
