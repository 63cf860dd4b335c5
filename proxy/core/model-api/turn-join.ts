/**
 * The join between the model's side and the MCP wire (issue 27; docs/agent-view.md, "The join"):
 * pure state, fed in wire order by the recorder.
 *
 * - A model turn's response chose tool calls (`offer`): each waits, per agent, for the MCP
 *   `tools/call` that carries it out.
 * - A `tools/call` request (`matchCall`) is joined to the oldest waiting call of the same tool with
 *   the same arguments (compared as canonical JSON), of the agent its MCP session already belongs
 *   to; a session that belongs to none yet joins the one agent waiting for that call (two agents
 *   waiting for the very same call: no join, `ambiguous`). The first join binds the MCP session to that agent, and the client's server name
 *   (`se` of `mcp__se__echo`) to that session: later calls of another agent, or of a tool that
 *   names another server, are never joined to it. A session new to the agent (the server
 *   reconnected, or a second run of a client under the same agent key) takes the name over. Arguments that differ are no join: a false link
 *   is worse than none.
 * - The call's response (`callResult`) is kept with the join, its text for the comparison.
 * - The agent's next request (`results`) carries the tool results back: each is linked to the call
 *   and the MCP response, and compared with what the server answered. What did not match is said.
 *
 * Every map is bounded: agents, waiting calls per agent, joins kept for their results.
 */
import type { McpRef } from '../model/model-turn.js';
import { canonicalJson } from '../parse/canonical-json.js';

const MAX_AGENTS = 256;
const MAX_WAITING = 256;
const MAX_JOINS = 4096;
const MAX_SESSIONS = 4096;
/** Result text kept per join for the comparison with what the model got. */
export const MAX_RESULT_TEXT = 64 * 1024;

export interface OfferedCall {
  turnId: string;
  callId: string;
  /** As the model named it. */
  name: string;
  /** The MCP server and tool the name stands for, as far as the name tells. */
  server?: string;
  tool?: string;
  arguments: unknown;
  /** Set when `arguments` did not parse: such a call joins by name only if it is the only candidate. */
  unparsed?: boolean;
}

export interface Join {
  agent: string;
  turnId: string;
  callId: string;
  name: string;
  server?: string;
  mcpCall: McpRef;
  mcpResult?: McpRef;
  failed?: boolean;
  /** What the server answered, as text (bounded), to compare with the tool result the model got. */
  resultText?: string;
  resultTruncated?: boolean;
}

export interface ResultLink {
  callId: string;
  /** The turn that asked for it (known when that turn's response was seen). */
  fromTurn?: string;
  /** The call as the model made it, when known. */
  call?: OfferedCall;
  join?: Join;
}

interface Waiting extends OfferedCall {
  canon?: string;
}

interface AgentState {
  waiting: Waiting[];
  /** Client server name → the MCP session it was joined to. */
  servers: Map<string, string>;
  /** Every call offered by this agent's turns, by call id (bounded with the joins). */
  calls: Map<string, OfferedCall>;
  /** Calls whose result came back (bounded with the joins). */
  answered: Set<string>;
}

function bounded<K, V>(map: Map<K, V>, max: number): void {
  while (map.size > max) map.delete(map.keys().next().value as K);
}

export class TurnJoin {
  private readonly agents = new Map<string, AgentState>();
  /** MCP session → the agent whose calls it carried. */
  private readonly sessionAgent = new Map<string, string>();
  /** tools/call request seq → its join; call id (per agent) → its join. */
  private readonly bySeq = new Map<number, Join>();
  private readonly byCall = new Map<string, Join>();

  private agent(key: string): AgentState {
    let a = this.agents.get(key);
    if (!a) {
      a = { waiting: [], servers: new Map(), calls: new Map(), answered: new Set() };
      this.agents.set(key, a);
      bounded(this.agents, MAX_AGENTS);
    } else {
      // Most recently used last, so the bound drops the agent idle the longest.
      this.agents.delete(key);
      this.agents.set(key, a);
    }
    return a;
  }

  /** The agent an MCP session's calls were joined to, if any. */
  agentOf(sessionId: string): string | undefined {
    return this.sessionAgent.get(sessionId);
  }

  /** The MCP session an agent's server name was joined to, if any. */
  sessionOf(agent: string, server: string): string | undefined {
    return this.agents.get(agent)?.servers.get(server);
  }

  /** A turn's response chose these calls (called as each completes: a client may start a call before the stream ends). */
  offer(agent: string, call: OfferedCall): void {
    const a = this.agent(agent);
    const had = a.calls.get(call.callId);
    if (had?.turnId === call.turnId) return;
    // Gemini's ids (`gemini-0`…) start over in every turn: the newest call of an id is the one a result answers.
    if (had) a.calls.delete(call.callId);
    a.calls.set(call.callId, call);
    bounded(a.calls, MAX_JOINS);
    a.waiting.push({ ...call, canon: call.unparsed ? undefined : canonicalJson(call.arguments) });
    if (a.waiting.length > MAX_WAITING) a.waiting.shift();
  }

  /**
   * An MCP `tools/call` request on `sessionId` for `tool` with `args`: the waiting call it carries
   * out, or undefined. `nameMatches(call)` says whether a waiting call's name can stand for this
   * tool (the recorder knows the client's naming and the session's tools).
   */
  matchCall(
    sessionId: string,
    seq: number,
    tool: string,
    args: unknown,
    nameMatches: (call: OfferedCall) => boolean,
  ): Join | 'ambiguous' | undefined {
    const canon = canonicalJson(args ?? {});
    const bound = this.sessionAgent.get(sessionId);
    const picks: { key: string; a: AgentState; pick: Waiting }[] = [];
    for (const [key, a] of this.agents) {
      // A session bound to an agent is that agent's: only the bound agent may use it.
      if (bound !== undefined && key !== bound) continue;
      // The sessions this agent's other server names were joined to.
      const others = new Set(a.servers.values());
      const candidates = a.waiting.filter((w) => {
        if (!nameMatches(w)) return false;
        // The client's server name was joined to another session: not this call if this session is
        // another server's of this agent. A session new to the agent is the same server reconnected
        // or a new process under the same agent key (a second run of a client): joined, and rebound.
        const known = w.server !== undefined ? a.servers.get(w.server) : undefined;
        if (known === undefined || known === sessionId) return true;
        return !others.has(sessionId);
      });
      let pick = candidates.find((w) => w.canon !== undefined && w.canon === canon);
      // Arguments the model sent as broken JSON cannot be compared: joined only when nothing else could be meant.
      if (!pick && candidates.length === 1 && candidates[0].unparsed) pick = candidates[0];
      if (pick) picks.push({ key, a, pick });
    }
    if (picks.length === 0) return undefined;
    // Two agents waiting for the very same call, and nothing yet tells which agent this session is:
    // no join (a false link is worse than none).
    if (picks.length > 1) return 'ambiguous';
    const { key, a, pick } = picks[0];
    a.waiting.splice(a.waiting.indexOf(pick), 1);
    if (!this.sessionAgent.has(sessionId)) {
      this.sessionAgent.set(sessionId, key);
      bounded(this.sessionAgent, MAX_SESSIONS);
    }
    if (pick.server !== undefined && a.servers.get(pick.server) !== sessionId) {
      a.servers.delete(pick.server);
      a.servers.set(pick.server, sessionId);
    }
    const join: Join = {
      agent: key,
      turnId: pick.turnId,
      callId: pick.callId,
      name: pick.name,
      server: pick.server,
      mcpCall: { sessionId, seq },
    };
    this.bySeq.set(seq, join);
    bounded(this.bySeq, MAX_JOINS);
    this.byCall.set(`${key}\u0000${pick.callId}`, join);
    bounded(this.byCall, MAX_JOINS);
    return join;
  }

  /** The join of a tools/call request (by its seq), if it was joined. */
  joinOfRequest(seq: number): Join | undefined {
    return this.bySeq.get(seq);
  }

  /** The response (or error) to a joined tools/call request. */
  callResult(requestSeq: number, result: McpRef, failed: boolean, text: string | undefined): Join | undefined {
    const join = this.bySeq.get(requestSeq);
    if (!join) return undefined;
    join.mcpResult = result;
    if (failed) join.failed = true;
    if (text !== undefined) {
      join.resultTruncated = text.length > MAX_RESULT_TEXT || undefined;
      join.resultText = text.length > MAX_RESULT_TEXT ? text.slice(0, MAX_RESULT_TEXT) : text;
    }
    return join;
  }

  /**
   * The agent's next request: the tool results it carries back. Each is linked to the call that
   * asked for it and to the MCP response it came from. The calls still waiting are dropped: the
   * client has moved on, and a later MCP call cannot be theirs.
   */
  results(agent: string, callIds: string[], asCalled?: (callId: string) => { name: string; arguments: unknown } | undefined): ResultLink[] {
    const a = this.agents.get(agent);
    if (!a) return callIds.map((callId) => ({ callId }));
    const ids = callIds.map((callId) => (a.calls.has(callId) ? callId : (this.sameCall(a, asCalled?.(callId)) ?? callId)));
    const answered = new Set(ids);
    a.waiting = a.waiting.filter((w) => !answered.has(w.callId));
    return ids.map((callId) => {
      const call = a.calls.get(callId);
      const join = this.byCall.get(`${agent}\u0000${callId}`);
      if (call) a.answered.add(callId);
      if (a.answered.size > MAX_JOINS) a.answered.delete(a.answered.values().next().value as string);
      return { callId, fromTurn: call?.turnId, call, join };
    });
  }

  /**
   * A result under an id the model never gave: Gemini's calls come without ids (mcpscope names them
   * `gemini-<n>`), and Gemini CLI gives each its own in the next request (`mcp_se_echo_<ms>_0`). The
   * request's history shows that call's name and arguments: it is the newest call of this agent with
   * the same name and arguments whose result has not come yet.
   */
  private sameCall(a: AgentState, called: { name: string; arguments: unknown } | undefined): string | undefined {
    if (!called) return undefined;
    const canon = canonicalJson(called.arguments ?? {});
    const calls = [...a.calls.values()];
    for (let i = calls.length - 1; i >= 0; i--) {
      const c = calls[i];
      if (c.name === called.name && !a.answered.has(c.callId) && !c.unparsed && canonicalJson(c.arguments ?? {}) === canon) return c.callId;
    }
    return undefined;
  }
}
