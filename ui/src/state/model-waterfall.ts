/**
 * Model turns on the waterfall: each agent's calls to its model API as bars on the same
 * time axis as the MCP calls, in a lane group of their own at the top, one lane per agent labelled
 * by its model and agent. A turn's bar runs from its request to the end of its response, with a
 * mark where the first token came; a pending turn is drawn open-ended.
 */
import type { ModelTurnInfo } from '../../../proxy/core/model/events.js';
import type { Bar, CallStatus, Lane, TurnRow, Waterfall } from './types.js';
import { formatTokens } from './model-turns.js';

const STATUS: Record<ModelTurnInfo['status'], CallStatus> = { pending: 'pending', done: 'ok', error: 'error', cut: 'cancelled' };

/** A turn's bar label: `claude-sonnet-4-5 · 31,338 in / 61 out · tool_use`. */
export function turnBarLabel(turn: ModelTurnInfo): string {
  const parts = [turn.model ?? turn.api];
  if (turn.usage) parts.push(`${formatTokens(turn.usage.totalInputTokens)} in / ${formatTokens(turn.usage.outputTokens)} out`);
  if (turn.stopReason) parts.push(turn.stopReason);
  else if (turn.status !== 'done') parts.push(turn.status);
  return parts.join(' · ');
}

/** `wf` with the model turns of `sessionId` ('' = all) added: their lanes first, then the MCP streams. */
export function withModelTurns(wf: Waterfall, turns: readonly TurnRow[], sessionId: string): Waterfall {
  if (turns.length === 0) return wf;
  const lanes = new Map<string, Lane & { models: Set<string> }>();
  const bars: Bar[] = [];
  let { start, end } = wf.bars.length > 0 || wf.lanes.length > 0 ? wf : { start: Infinity, end: -Infinity };
  for (const row of turns) {
    const t = row.turn;
    if (sessionId !== '' && row.sessionId !== sessionId) continue;
    const key = `model:${t.agent}`;
    let lane = lanes.get(key);
    if (!lane) {
      lane = { key, sessionId: row.sessionId, label: t.agent, start: t.startedAt, end: t.endedAt, model: true, models: new Set() };
      lanes.set(key, lane);
    }
    if (t.model) lane.models.add(t.model);
    if (t.startedAt < lane.start) lane.start = t.startedAt;
    if (t.status === 'pending' || t.endedAt === undefined) lane.end = undefined;
    else if (lane.end !== undefined && t.endedAt > lane.end) lane.end = t.endedAt;
    bars.push({
      key: row.key,
      lane: key,
      start: t.startedAt,
      end: t.status === 'pending' ? undefined : (t.endedAt ?? t.startedAt),
      status: STATUS[t.status] ?? 'ok',
      label: turnBarLabel(t),
      depth: 0,
      sessionId: row.sessionId,
      mark: t.firstTokenAt,
      model: true,
    });
    if (t.startedAt < start) start = t.startedAt;
    const last = t.endedAt ?? t.startedAt;
    if (last > end) end = last;
  }
  if (bars.length === 0) return wf;
  const modelLanes: Lane[] = [...lanes.values()].map(({ models, ...lane }) => ({
    ...lane,
    label: models.size > 0 ? `${[...models].join(', ')} · ${lane.label}` : lane.label,
  }));
  return { lanes: [...modelLanes, ...wf.lanes], bars: [...bars, ...wf.bars], start, end: Math.max(end, start) };
}
