/**
 * A fixture's `modelTurns` (proxy/core/model/fixture-format.ts) back into `model-turn` events: times
 * made absolute again, the session the fixture's. A fixture holds one session, so the links of a
 * turn into MCP sessions (its tool calls' `mcpCall`/`mcpResult`, a server cost's `sessionId`)
 * name messages that are not in it: they are dropped (model-turn-links.ts), the turn kept. A turn
 * of the wrong shape refuses the file in plain words, as a broken message does.
 */
import type { ModelTurnInfo, UnsequencedEvent } from '../../core/model/events.js';
import type { FixtureModelTurn } from '../../core/model/fixture-format.js';
import { compact } from '../../core/model/compact.js';
import { CaptureFormatError } from '../../core/model/errors.js';
import { remapTurn } from './model-turn-links.js';
import { modelTurnProblem } from './model-turn-shape.js';

const NO_SEQS = new Map<number, number>();
const same = (id: string) => id;

export function fixtureTurnEvents(list: unknown, sid: string, start: number): UnsequencedEvent[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new CaptureFormatError('This fixture\'s "modelTurns" is not a list.');
  return list.map((item: unknown, i) => {
    const turn = fixtureTurn(item, sid, start);
    const problem = modelTurnProblem(turn);
    if (problem) throw new CaptureFormatError(`Model turn ${i + 1} of this fixture is not valid: it ${problem}.`);
    const remapped = remapTurn(turn as ModelTurnInfo, { seq: NO_SEQS, session: same, exchange: same, turn: same });
    if (remapped.context) remapped.context.servers = remapped.context.servers.map((s) => compact({ ...s, sessionId: undefined }));
    return { type: 'model-turn', ts: remapped.endedAt ?? remapped.startedAt, sessionId: sid, turn: remapped };
  });
}

/** The entry with absolute times (whatever its shape: modelTurnProblem judges the result). */
function fixtureTurn(item: unknown, sid: string, start: number): unknown {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
  const { t, waitMs, firstTokenMs, durationMs, ...rest } = item as FixtureModelTurn;
  if (typeof t !== 'number') return { ...rest, startedAt: undefined };
  const at = (d: unknown) => (typeof d === 'number' ? start + t + d : undefined);
  return compact({
    ...rest,
    sessionId: sid,
    startedAt: start + t,
    respondedAt: at(waitMs),
    firstTokenAt: at(firstTokenMs),
    endedAt: at(durationMs),
  });
}
