/**
 * The annotated log's lines for model turns (issue 27; docs/terminal-log.md): one headline per
 * finished turn —
 *
 *   09:30:00.400 s2   <<< MODEL claude-sonnet-4-5 31,338 in / 61 out · tool_use mcp__se__echo  (m1, 300 ms)
 *
 * — and, on the MCP request that carried out one of its tool calls, a note naming the turn (made
 * by text-log.ts's message line: `← model turn m1 (mcp__se__echo)`).
 *
 * A turn is an upsert: it is printed on its first upsert whose status is not `pending`, once. A
 * pending turn prints nothing (its exchange's `>>> REQUEST` line is there already). Later upserts
 * only add links — the MCP call's line said so itself, just above — so they print nothing, but for
 * hints the turn did not have when it was printed (a tool call the client never made, a result
 * that changed on its way to the model): those follow as a short `... MODEL m1` entry.
 *
 * PURE like text-log.ts (no Node builtin). Peer text (model names, tool names, errors) goes out
 * through renderEntry's escaping like everything else.
 */
import type { Hint, ModelTurnEvent, ModelTurnInfo } from '../../core/model/events.js';
import { formatMs } from '../../core/model/units.js';
import type { LogEntry, Segment } from './text-log-render.js';

/** Turns remembered (what was printed of each): the newest this many. */
const MAX_TURNS = 50_000;

/** 31338 → "31,338" (the same on every machine: no locale). */
export function groupDigits(n: number): string {
  const s = String(Math.round(n));
  return s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `31,338 in / 61 out`, or what of it the API reported. */
export function tokenText(turn: ModelTurnInfo): string {
  const u = turn.usage;
  const input = u?.totalInputTokens ?? u?.inputTokens;
  const parts = [
    input !== undefined ? `${groupDigits(input)} in` : undefined,
    u?.outputTokens !== undefined ? `${groupDigits(u.outputTokens)} out` : undefined,
  ];
  return parts.filter((p) => p !== undefined).join(' / ');
}

export class ModelTurnLog {
  /** Turn id → the hint codes printed for it. */
  private readonly shown = new Map<string, Set<string>>();

  constructor(
    private readonly cut: (s: string) => string,
    private readonly hintLines: (hints: readonly Hint[]) => Segment[][],
  ) {}

  push(e: ModelTurnEvent, out: LogEntry[]): void {
    const t = e.turn;
    if (t.status === 'pending') return;
    const printed = this.shown.get(t.id);
    if (!printed) {
      if (this.shown.size >= MAX_TURNS) this.shown.delete(this.shown.keys().next().value as string);
      this.shown.set(t.id, new Set(t.hints.map((h) => h.code)));
      return void out.push(this.headline(e));
    }
    const fresh = t.hints.filter((h) => !printed.has(h.code));
    if (fresh.length === 0) return;
    for (const h of fresh) printed.add(h.code);
    out.push({
      ...this.base(e),
      correlation: `model turn ${t.id}: later hints`,
      hints: fresh,
      lines: [[['note', `... MODEL ${this.cut(t.id)}${t.model ? ` ${this.cut(t.model)}` : ''}`]], ...this.hintLines(fresh)],
    });
  }

  private base(e: ModelTurnEvent): Omit<LogEntry, 'lines' | 'hints'> {
    const t = e.turn;
    return { seq: e.seq, ts: t.endedAt ?? e.ts, session: e.sessionId, exchange: t.exchangeId, kind: 'model-turn', name: t.model };
  }

  private headline(e: ModelTurnEvent): LogEntry {
    const t = e.turn;
    const model = this.cut(t.model ?? '(model not named)');
    const tokens = tokenText(t);
    const chose = t.toolCalls.map((c) => c.name);
    const what = [tokens, [t.stopReason, ...chose].filter((s) => s !== undefined).join(' ')].filter((s) => s !== '').join(' · ');
    const took = t.endedAt !== undefined ? `, ${formatMs(t.endedAt - t.startedAt)}` : '';
    const ttft = t.firstTokenAt !== undefined ? `, first token ${formatMs(t.firstTokenAt - t.startedAt)}` : '';
    const failed = t.status !== 'done';
    const lines: Segment[][] = [
      [
        [failed ? 'error' : 'ok', failed ? `!!! MODEL ${t.status === 'cut' ? 'CUT' : 'ERROR'} ${model}` : `<<< MODEL ${model}`],
        ['plain', this.cut(what === '' ? '' : ` ${what}`)],
        ['note', `  (${this.cut(t.id)}${took}${ttft})`],
      ],
    ];
    if (t.error !== undefined) lines.push([['error', `  ${this.cut(t.error.replace(/\s+/g, ' '))}`]]);
    // Links already made when the turn is first printed (the text export of a history, a late first upsert).
    for (const c of t.toolCalls)
      if (c.mcpCall)
        lines.push([
          ['note', this.cut(`  ${c.name} → #${c.mcpCall.seq} tools/call${c.tool ? ` ${c.tool}` : ''} (${c.mcpCall.sessionId})`)],
        ]);
    lines.push(...this.hintLines(t.hints));
    const correlation = `model turn ${t.id}: ${t.status}${t.stopReason ? ` (${t.stopReason})` : ''}${chose.length > 0 ? `, chose ${chose.join(', ')}` : ''}`;
    return { ...this.base(e), correlation: this.cut(correlation), hints: t.hints, lines };
  }
}
