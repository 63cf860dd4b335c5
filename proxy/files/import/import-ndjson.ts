/** Reads NDJSON mcpscope events (`mcpscope --record`, the NDJSON export), one event per line (import-capture.ts). */
import type { McpscopeEvent } from '../../core/model/events.js';
import { capLoadedEvent, fileTooDeep } from './capture-depth.js';
import { NOT_A_CAPTURE, type CaptureImport } from './import-capture-format.js';
import { CaptureFormatError } from '../../core/model/errors.js';
import { modelCallProblem, modelTurnProblem } from './model-turn-shape.js';

const EVENT_TYPES = new Set(['session', 'exchange', 'message', 'sse', 'problem', 'modification', 'log', 'model-turn']);

export function ndjsonImport(text: string, deep: boolean): CaptureImport {
  const lines = text.split(/\r?\n/);
  const endsWithNewline = /\n\s*$/.test(text);
  let lastContent = lines.length - 1;
  while (lastContent >= 0 && lines[lastContent].trim() === '') lastContent--;
  const events: McpscopeEvent[] = [];
  const warnings: string[] = [];
  for (let i = 0; i <= lastContent; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (i === lastContent && !endsWithNewline && events.length > 0) {
        warnings.push(
          `The last line (line ${i + 1}) is incomplete, probably because the recording was cut off in the middle of a write (mcpscope killed?). It was skipped; the ${events.length} events before it were loaded.`,
        );
        break;
      }
      if (i === 0)
        throw new CaptureFormatError(`This is neither valid JSON nor NDJSON: line 1 does not parse (${jsonError(line)}). ${NOT_A_CAPTURE}`);
      throw new CaptureFormatError(
        `Line ${i + 1} of this NDJSON file is not valid JSON (${jsonError(line)}); lines before it were fine. Only the last line of a recording may be cut short.`,
      );
    }
    if (deep && fileTooDeep(line)) value = capLoadedEvent(value);
    const problem = eventProblem(value);
    if (problem) {
      if (i === 0) throw new CaptureFormatError(`Line 1 is JSON but not an mcpscope event: it ${problem}. ${NOT_A_CAPTURE}`);
      throw new CaptureFormatError(`Line ${i + 1} of this NDJSON file is not an mcpscope event: it ${problem}.`);
    }
    events.push(value as McpscopeEvent);
  }
  return { kind: 'ndjson', events, warnings };
}

/** Why `v` is not an event (undefined when it is one). */
export function eventProblem(v: unknown): string | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'is not a JSON object';
  const e = v as Record<string, unknown>;
  if (typeof e.type !== 'string' || !EVENT_TYPES.has(e.type)) return `has no known "type" (${JSON.stringify(e.type)})`;
  if (typeof e.seq !== 'number' || !Number.isFinite(e.seq)) return 'has no numeric "seq"';
  if (typeof e.ts !== 'number') return 'has no numeric "ts"';
  switch (e.type) {
    case 'session': {
      const s = e.session as Record<string, unknown> | undefined;
      if (!s || typeof s.id !== 'string') return 'is a session event without session.id';
      break;
    }
    case 'exchange': {
      const x = e.exchange as Record<string, unknown> | undefined;
      if (!x || typeof x.id !== 'string') return 'is an exchange event without exchange.id';
      break;
    }
    case 'message':
      if (typeof e.sessionId !== 'string' || (e.dir !== 'c2s' && e.dir !== 's2c') || typeof e.kind !== 'string')
        return 'is a message event without sessionId, dir or kind';
      if (e.modelCall !== undefined) return modelCallProblem(e.modelCall);
      break;
    case 'sse':
      if (typeof e.exchangeId !== 'string') return 'is an sse event without exchangeId';
      break;
    case 'model-turn': {
      const problem = modelTurnProblem(e.turn);
      if (problem) return `is a model-turn event whose turn ${problem}`;
      if (typeof e.sessionId !== 'string') return 'is a model-turn event without sessionId';
      break;
    }
    default:
      break;
  }
  return undefined;
}

export function jsonError(text: string): string {
  try {
    JSON.parse(text);
    return 'no error';
  } catch (err) {
    return (err as Error).message;
  }
}
