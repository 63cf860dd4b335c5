/**
 * Read views of the model turns the store holds (issue 27; docs/agent-view.md), for the API that
 * `mcpscope mcp` reads (proxy/app/serve/model-routes.ts):
 *
 * - `listModelTurns`: one compact line's worth per turn (model, tokens, stop reason, the tools it
 *   chose and the MCP calls that carried them out), newest first, filtered by agent or session;
 * - `modelTurnView`: one turn whole, with the MCP request and response of each of its tool calls;
 * - `contextCosts`: what the MCP servers' tools cost each agent's model, from its latest turn that
 *   has a context estimate: per server, its tools, ≈ tokens in every request, share of the input.
 *
 * Pure reads of the store's latest state (`store.turns`); bounded by `limit`.
 */
import type { ContextServerCost, MessageEvent, ModelToolCall, ModelTurnInfo, ModelUsage } from '../../core/model/events.js';
import type { EventStore } from './event-store.js';
import { McpscopeError } from '../../core/model/errors.js';

export const TURNS_DEFAULT_LIMIT = 20;
export const TURNS_MAX_LIMIT = 200;

export interface ModelTurnQuery {
  agent?: string;
  session?: string;
  limit?: number;
}

export interface TurnCallSummary {
  id: string;
  name: string;
  server?: string;
  tool?: string;
  /** The MCP tools/call request's and response's seqs, once joined; whether the call failed. */
  mcpCall?: ModelToolCall['mcpCall'];
  mcpResult?: ModelToolCall['mcpResult'];
  mcpFailed?: boolean;
  /** The turn that carried its result back to the model. */
  resultTurn?: string;
}

export interface TurnSummary {
  id: string;
  sessionId: string;
  exchangeId: string;
  agent: string;
  client: string;
  api: string;
  model?: string;
  status: ModelTurnInfo['status'];
  startedAt: number;
  durationMs?: number;
  firstTokenMs?: number;
  usage?: ModelUsage;
  stopReason?: string;
  error?: string;
  toolsOffered: number;
  toolCalls: TurnCallSummary[];
  toolResults: number;
  hints: number;
}

export interface TurnList {
  turns: TurnSummary[];
  /** Turns matching the query (before `limit`). */
  total: number;
  agents: string[];
}

export function parseTurnQuery(q: Record<string, unknown>): ModelTurnQuery {
  const str = (k: string) => (typeof q[k] === 'string' && q[k] !== '' ? (q[k] as string) : undefined);
  const out: ModelTurnQuery = { agent: str('agent'), session: str('session') };
  const limit = str('limit');
  if (limit !== undefined) {
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1)
      throw new McpscopeError('BAD_QUERY', `limit must be a whole number of at least 1 (got ${JSON.stringify(limit.slice(0, 40))}).`);
    out.limit = n;
  }
  return out;
}

function summary(t: ModelTurnInfo): TurnSummary {
  const out: TurnSummary = {
    id: t.id,
    sessionId: t.sessionId,
    exchangeId: t.exchangeId,
    agent: t.agent,
    client: t.client,
    api: t.api,
    status: t.status,
    startedAt: t.startedAt,
    toolsOffered: t.tools.length,
    toolCalls: t.toolCalls.map((c) => {
      const s: TurnCallSummary = { id: c.id, name: c.name };
      if (c.server !== undefined) s.server = c.server;
      if (c.tool !== undefined) s.tool = c.tool;
      if (c.mcpCall) s.mcpCall = c.mcpCall;
      if (c.mcpResult) s.mcpResult = c.mcpResult;
      if (c.mcpFailed) s.mcpFailed = true;
      if (c.resultTurn !== undefined) s.resultTurn = c.resultTurn;
      return s;
    }),
    toolResults: t.toolResults.length,
    hints: t.hints.length,
  };
  if (t.model !== undefined) out.model = t.model;
  if (t.endedAt !== undefined) out.durationMs = t.endedAt - t.startedAt;
  if (t.firstTokenAt !== undefined) out.firstTokenMs = t.firstTokenAt - t.startedAt;
  if (t.usage) out.usage = t.usage;
  if (t.stopReason !== undefined) out.stopReason = t.stopReason;
  if (t.error !== undefined) out.error = t.error;
  return out;
}

/** The store's turns in the order they started (ties: in the order they were first recorded). */
function turnsInOrder(store: EventStore): ModelTurnInfo[] {
  return [...store.turns.values()]
    .map((t, i) => ({ t, i }))
    .sort((a, b) => a.t.startedAt - b.t.startedAt || a.i - b.i)
    .map((x) => x.t);
}

export function listModelTurns(store: EventStore, query: ModelTurnQuery = {}): TurnList {
  const all = turnsInOrder(store);
  const agents = [...new Set(all.map((t) => t.agent))];
  const picked = all.filter(
    (t) => (query.agent === undefined || t.agent === query.agent) && (query.session === undefined || t.sessionId === query.session),
  );
  const limit = Math.min(TURNS_MAX_LIMIT, query.limit ?? TURNS_DEFAULT_LIMIT);
  return { turns: picked.slice(-limit).reverse().map(summary), total: picked.length, agents };
}

export interface TurnCallMessages {
  callId: string;
  name: string;
  request?: MessageEvent;
  response?: MessageEvent;
}

export interface ModelTurnView {
  turn: ModelTurnInfo;
  /** Each tool call's MCP request and response, where joined and still in the store. */
  calls: TurnCallMessages[];
}

export function modelTurnView(store: EventStore, id: string): ModelTurnView {
  const ref = id.trim();
  const turn = store.turns.get(ref);
  if (!turn)
    throw new McpscopeError(
      'NO_MODEL_TURN',
      `No model turn ${JSON.stringify(ref.slice(0, 80))} in this capture (list_model_turns lists them).`,
    );
  const calls = turn.toolCalls.map((c) => {
    const out: TurnCallMessages = { callId: c.id, name: c.name };
    const request = c.mcpCall ? store.message(c.mcpCall.seq) : undefined;
    const response = c.mcpResult ? store.message(c.mcpResult.seq) : undefined;
    if (request) out.request = request;
    if (response) out.response = response;
    return out;
  });
  return { turn, calls };
}

export interface AgentContextCost {
  agent: string;
  client: string;
  /** The turn the figures come from (the agent's latest with a context estimate). */
  turn: string;
  model?: string;
  at: number;
  /** The request's real input (input + cache) when the API reported it. */
  totalInputTokens?: number;
  encoding: string;
  requestBytes: number;
  toolsTokens: number;
  servers: ContextServerCost[];
}

export interface ContextCostView {
  agents: AgentContextCost[];
}

/** Per agent (or the one asked for), newest first: its latest turn's context cost. */
export function contextCosts(store: EventStore, query: { agent?: string } = {}): ContextCostView {
  const latest = new Map<string, ModelTurnInfo>();
  for (const t of turnsInOrder(store)) if (t.context && (query.agent === undefined || t.agent === query.agent)) latest.set(t.agent, t);
  const agents = [...latest.values()]
    .sort((a, b) => b.startedAt - a.startedAt)
    .map((t): AgentContextCost => {
      const c = t.context!;
      const out: AgentContextCost = {
        agent: t.agent,
        client: t.client,
        turn: t.id,
        at: t.startedAt,
        encoding: c.encoding,
        requestBytes: c.requestBytes,
        toolsTokens: c.toolsTokens,
        servers: [...c.servers].sort((a, b) => b.tokens + (b.instructionsTokens ?? 0) - (a.tokens + (a.instructionsTokens ?? 0))),
      };
      if (t.model !== undefined) out.model = t.model;
      if (t.usage?.totalInputTokens !== undefined) out.totalInputTokens = t.usage.totalInputTokens;
      return out;
    });
  return { agents };
}
