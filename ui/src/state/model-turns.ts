/**
 * Model turns in the UI: the latest upsert of each `model-turn` event (keyed by turn
 * id, like sessions and exchanges), its timeline row, and what the views read from them — the
 * chosen tools' MCP calls, the Context view's costs per agent, the search text of a turn.
 *
 * Owned by the store (store.ts), which hands it every `model-turn` event and every plain exchange
 * upsert: a turn's row takes the place of its exchange's plain HTTP row (one row per turn, where
 * the request went out in wire order), or is added where its first upsert came when there is none.
 */
import type { ModelTurnEvent, ModelTurnInfo, ToolOffered } from '../../../proxy/core/model/events.js';
import type { Row, TurnRow } from './types.js';
import { MEMO_INIT, type VisibleList } from './visible-list.js';

/** What the store lends: its top-level rows, its rows by key, its visible list, and how to mark a row changed. */
export interface TurnRowHost {
  rows(): Row[];
  readonly rowByKey: Map<string, Row>;
  readonly list: VisibleList;
  touch(row: Row): void;
}

/** The timeline key of a turn's row. */
export function turnKey(turnId: string): string {
  return `t${turnId}`;
}

function turnRow(seq: number, turn: ModelTurnInfo): TurnRow {
  return { type: 'turn', key: turnKey(turn.id), seq, sessionId: turn.sessionId, dir: 'c2s', turn, rev: 0, ...MEMO_INIT } as TurnRow;
}

export class ModelTurns {
  private readonly rowsById = new Map<string, TurnRow>();
  /** exchange id → turn id. */
  private readonly byExchange = new Map<string, string>();
  /** Rows in the order their turns first came. */
  private order: TurnRow[] = [];
  private searchCache = new WeakMap<ModelTurnInfo, string>();

  constructor(private readonly host: TurnRowHost) {}

  clear(): void {
    this.rowsById.clear();
    this.byExchange.clear();
    this.order = [];
  }

  /** A `model-turn` upsert: the latest one wins; the first makes the row. */
  apply(e: ModelTurnEvent): void {
    const turn = e.turn;
    if (!turn || typeof turn.id !== 'string') return;
    const row = this.rowsById.get(turn.id);
    if (row) {
      row.turn = turn;
      row.sessionId = turn.sessionId;
      this.host.touch(row);
      return;
    }
    const { rowByKey, list } = this.host;
    const rows = this.host.rows();
    // Where its exchange's plain HTTP row is (the request's place in wire order), else at the end.
    const http = typeof turn.exchangeId === 'string' ? rowByKey.get(`h${turn.exchangeId}`) : undefined;
    const at = http?.type === 'http' ? rows.lastIndexOf(http) : -1;
    const made = turnRow(at >= 0 ? http!.seq : e.seq, turn);
    if (at >= 0) {
      rows[at] = made;
      rowByKey.delete(http!.key);
    } else rows.push(made);
    rowByKey.set(made.key, made);
    list.added(made.key, at >= 0 ? at : rows.length - 1);
    this.rowsById.set(turn.id, made);
    if (typeof turn.exchangeId === 'string') this.byExchange.set(turn.exchangeId, turn.id);
    this.order.push(made);
  }

  /** A plain exchange was upserted: true when a turn's row stands for it (it gets no HTTP row of its own). */
  exchangeChanged(exchangeId: string): boolean {
    const id = this.byExchange.get(exchangeId);
    const row = id !== undefined ? this.rowsById.get(id) : undefined;
    if (!row) return false;
    this.host.touch(row);
    return true;
  }

  /** The latest upsert of a turn. */
  turn(id: string): ModelTurnInfo | undefined {
    return this.rowsById.get(id)?.turn;
  }

  rowOf(id: string): TurnRow | undefined {
    return this.rowsById.get(id);
  }

  /** Every turn's row, in the order the turns first came. */
  rows(): readonly TurnRow[] {
    return this.order;
  }

  get size(): number {
    return this.order.length;
  }

  /** How many turns each session holds (a model API's bucket). */
  countsBySession(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const row of this.order) counts.set(row.sessionId, (counts.get(row.sessionId) ?? 0) + 1);
    return counts;
  }

  /** Lower-cased text the filter bar's search looks in: model, API, client, agent, stop reason, status and the tools it chose. */
  searchText(turn: ModelTurnInfo): string {
    let text = this.searchCache.get(turn);
    if (text === undefined) {
      const parts = [turn.model, turn.api, turn.client, turn.agent, turn.endpoint, turn.stopReason, turn.status, turn.error];
      for (const c of turn.toolCalls ?? []) parts.push(c.name, c.server, c.tool);
      text = parts
        .filter((p) => typeof p === 'string')
        .join('\n')
        .toLowerCase();
      this.searchCache.set(turn, text);
    }
    return text;
  }

  /** The Context view: per agent, its latest turn that says what its tools cost (`sessionId` '' = every agent). */
  contextByAgent(sessionId = ''): AgentContext[] {
    const latest = new Map<string, ModelTurnInfo>();
    for (const row of this.order) {
      const t = row.turn;
      if (!t.context) continue;
      if (sessionId !== '' && t.sessionId !== sessionId && !t.context.servers.some((s) => s.sessionId === sessionId)) continue;
      const had = latest.get(t.agent);
      if (!had || t.startedAt >= had.startedAt) latest.set(t.agent, t);
    }
    return [...latest.values()].map(agentContext);
  }
}

/** One tool's cost, as the Context view draws it. */
export interface ToolCost {
  name: string;
  tool?: string;
  tokens: number;
  bytes: number;
  descriptionTokens: number;
  schemaTokens: number;
}

export interface ServerCost {
  server: string;
  /** How many tools it offered (the context's count), and those of the turn's tools that name it, largest first. */
  count: number;
  tools: ToolCost[];
  tokens: number;
  bytes: number;
  instructionsTokens?: number;
  share?: number;
  sessionId?: string;
}

export interface AgentContext {
  agent: string;
  model?: string;
  turn: ModelTurnInfo;
  encoding: string;
  /** The request's real input (usage.totalInputTokens), when the API reported it. */
  inputTokens?: number;
  toolsTokens: number;
  /** Largest first; each server's tools largest first. */
  servers: ServerCost[];
  /** The largest server's tokens (bars are drawn against it). */
  max: number;
}

const BUILT_IN = '(built-in)';

function toolCost(t: ToolOffered): ToolCost {
  return {
    name: t.name,
    tool: t.tool,
    tokens: (t.descriptionTokens ?? 0) + (t.schemaTokens ?? 0),
    bytes: (t.descriptionBytes ?? 0) + (t.schemaBytes ?? 0),
    descriptionTokens: t.descriptionTokens ?? 0,
    schemaTokens: t.schemaTokens ?? 0,
  };
}

const byTokens = <T extends { tokens: number }>(a: T, b: T) => b.tokens - a.tokens;

function agentContext(turn: ModelTurnInfo): AgentContext {
  const context = turn.context!;
  const toolsBy = new Map<string, ToolCost[]>();
  for (const t of turn.tools ?? []) {
    const server = t.server ?? BUILT_IN;
    let list = toolsBy.get(server);
    if (!list) toolsBy.set(server, (list = []));
    list.push(toolCost(t));
  }
  const servers: ServerCost[] = context.servers.map((s) => ({
    server: s.server,
    count: s.tools,
    tools: (toolsBy.get(s.server) ?? []).sort(byTokens),
    tokens: s.tokens + (s.instructionsTokens ?? 0),
    bytes: s.bytes,
    instructionsTokens: s.instructionsTokens,
    share: s.share,
    sessionId: s.sessionId,
  }));
  servers.sort(byTokens);
  return {
    agent: turn.agent,
    model: turn.model,
    turn,
    encoding: context.encoding,
    inputTokens: turn.usage?.totalInputTokens,
    toolsTokens: context.toolsTokens,
    servers,
    max: servers.reduce((m, s) => Math.max(m, s.tokens, ...s.tools.map((t) => t.tokens)), 0),
  };
}

/** How a turn stands, in words: what the timeline and the Model tab say next to its status. */
export function turnStatusText(turn: ModelTurnInfo): string {
  switch (turn.status) {
    case 'pending':
      return 'waiting for the model to answer';
    case 'cut':
      return `the response was cut off${turn.error ? `: ${turn.error}` : ''}`;
    case 'error':
      return `the API answered with an error${turn.error ? `: ${turn.error}` : ''}`;
    default:
      return turn.stopReason ? `stopped: ${turn.stopReason}` : 'done';
  }
}

/** `31,338` — token counts with thousands separators (the same in every locale: the screenshots and tests read them). */
export function formatTokens(n: number | undefined): string {
  return n === undefined || !Number.isFinite(n) ? '—' : Math.round(n).toLocaleString('en-US');
}

/** A share of input, 0..1, as `38 %` (one decimal under 10 %). */
export function formatShare(share: number | undefined): string {
  if (share === undefined || !Number.isFinite(share)) return '';
  const pct = share * 100;
  return `${pct < 10 ? pct.toFixed(1) : Math.round(pct)} %`;
}

/** The agent's name without the client prefix's noise: `claude-code:7f1c2d9e` stays, a long user agent is cut. */
export function agentLabel(agent: string): string {
  return agent.length > 48 ? `${agent.slice(0, 47)}…` : agent;
}

/** How much of a long request entry the Model tab shows before "show all". */
export const ENTRY_PREVIEW = { lines: 4, chars: 360 };

/**
 * The head of a long text (a real agent's request carries reminders and system texts of several
 * KB among its messages, which would push the model's answer far down the tab): its first
 * `lines` lines, at most `chars` characters; undefined when the text is short enough to show whole.
 */
export function entryPreview(text: string, o: { lines: number; chars: number } = ENTRY_PREVIEW): string | undefined {
  let end = -1;
  for (let i = 0; i < o.lines; i++) {
    end = text.indexOf('\n', end + 1);
    if (end === -1) break;
  }
  let cut = end === -1 ? Math.min(text.length, o.chars) : Math.min(end, o.chars);
  // Never half a surrogate pair.
  if (cut > 0 && cut < text.length && /[\uD800-\uDBFF]/.test(text[cut - 1])) cut -= 1;
  // Short enough: at most `lines` lines and `chars` characters (a trailing newline is no more text).
  if (cut >= text.replace(/\n+$/, '').length) return undefined;
  return text.slice(0, cut);
}
