/**
 * A loaded model turn's links to other events, renumbered when the events it names get new seqs
 * and ids (appendImported in import-capture.ts; the fixture reader): the MCP calls and results
 * its tool calls joined (`{sessionId, seq}`), the turns they lead to and come from. A link to an
 * event that is not in the capture, or comes after the turn (the recorder only links what it has
 * seen), is dropped rather than left to point at whatever now has that seq: never a false link.
 */
import type { McpRef, ModelTurnInfo } from '../../core/model/events.js';
import { compact } from '../../core/model/compact.js';

export interface TurnIdMaps {
  /** Old seq → new seq of every event loaded before this turn. */
  seq: ReadonlyMap<number, number>;
  session: (id: string) => string;
  exchange: (id: string) => string;
  turn: (id: string) => string;
}

/** The turn with its ids and links renumbered (a copy; `turn` is not touched). */
export function remapTurn(turn: ModelTurnInfo, maps: TurnIdMaps): ModelTurnInfo {
  const ref = (r: McpRef | undefined): McpRef | undefined => {
    if (r === undefined) return undefined;
    const seq = maps.seq.get(r.seq);
    return seq === undefined ? undefined : { sessionId: maps.session(r.sessionId), seq };
  };
  return {
    ...turn,
    id: maps.turn(turn.id),
    sessionId: maps.session(turn.sessionId),
    exchangeId: maps.exchange(turn.exchangeId),
    toolCalls: turn.toolCalls.map((c) =>
      compact({
        ...c,
        mcpCall: ref(c.mcpCall),
        mcpResult: ref(c.mcpResult),
        resultTurn: c.resultTurn === undefined ? undefined : maps.turn(c.resultTurn),
      }),
    ),
    toolResults: turn.toolResults.map((t) =>
      compact({ ...t, mcpResult: ref(t.mcpResult), fromTurn: t.fromTurn === undefined ? undefined : maps.turn(t.fromTurn) }),
    ),
    context: turn.context && {
      ...turn.context,
      servers: turn.context.servers.map((s) =>
        compact({ ...s, sessionId: s.sessionId === undefined ? undefined : maps.session(s.sessionId) }),
      ),
    },
  };
}
