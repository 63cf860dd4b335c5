/**
 * Depth safety for files mcpscope loads (`mcpscope open`, the UI's import, `replay`, `verify`):
 * a capture, fixture or HAR may hold JSON nested deep enough to overflow every recursive walk
 * and `JSON.stringify` (core/parse/json-depth.ts says why). Whoever wrote the file, it is cut on load
 * the way live traffic is cut where it is parsed:
 *
 * - a recorded JSON-RPC message (an event's `jsonrpc`, a fixture message's `message`) is cut to
 *   MAX_JSON_DEPTH and gets the same `too-deep` hint live traffic gets; its `raw` text, which
 *   the UI would parse back into the deep value, is dropped;
 * - everything else in the document is cut a few levels further down (the file's own envelope:
 *   events, fixture sessions/exchanges, HAR entries), so nothing loaded is deeper than that.
 *
 * Only a file whose text nests deeper than the cap pays anything beyond one scan of the text.
 */
import type { Hint, McpscopeEvent } from '../../core/model/events.js';
import { capJsonDepth, exceedsDepth, jsonValueDepth, MAX_JSON_DEPTH, tooDeepText } from '../../core/parse/json-depth.js';

/** Levels a file wraps around a message: a fixture's document → messages → entry → message is 3; HAR and events fewer. */
const FILE_ENVELOPE_DEPTH = 8;
/** Deepest anything loaded from a file may nest. */
export const MAX_FILE_DEPTH = MAX_JSON_DEPTH + FILE_ENVELOPE_DEPTH;

/** Messages cut on load, with the depth they had: their events get the too-deep hint. */
const cutMessages = new WeakMap<object, number>();

/** Whether a file's (or line's) text needs `capLoaded*` at all: one scan, none for a short text. */
export function fileTooDeep(text: string): boolean {
  return exceedsDepth(text, MAX_JSON_DEPTH);
}

/** `holder[key]`, a recorded JSON-RPC message, cut to MAX_JSON_DEPTH (in place) and remembered as cut. */
function capMessageAt(holder: Record<string, unknown>, key: string): boolean {
  const v = holder[key];
  if (typeof v !== 'object' || v === null) return false;
  const depth = jsonValueDepth(v);
  if (depth <= MAX_JSON_DEPTH) return false;
  const capped = capJsonDepth(v, MAX_JSON_DEPTH).value;
  holder[key] = capped;
  if (typeof capped === 'object' && capped !== null) cutMessages.set(capped, depth);
  return true;
}

/** One loaded event (an NDJSON line, an item of an event list), cut in place. */
export function capLoadedEvent(e: unknown): unknown {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) return capJsonDepth(e, MAX_FILE_DEPTH).value;
  const o = e as Record<string, unknown>;
  if (o.type === 'message') {
    capMessageAt(o, 'jsonrpc');
    // The UI parses `raw` back into the message: a deep raw text would bring the deep value back.
    if (typeof o.raw === 'string' && exceedsDepth(o.raw, MAX_JSON_DEPTH)) delete o.raw;
  }
  return capJsonDepth(o, MAX_FILE_DEPTH).value;
}

/** A parsed capture document (fixture, HAR, event list, one event), cut in place. */
export function capLoadedDocument(doc: unknown): unknown {
  if (Array.isArray(doc)) {
    for (let i = 0; i < doc.length; i++) doc[i] = capLoadedEvent(doc[i]);
    return capJsonDepth(doc, MAX_FILE_DEPTH).value;
  }
  if (typeof doc !== 'object' || doc === null) return doc;
  const o = doc as Record<string, unknown>;
  if (Array.isArray(o.messages)) {
    // A fixture: each entry's `message`.
    for (const m of o.messages)
      if (typeof m === 'object' && m !== null && !Array.isArray(m)) capMessageAt(m as Record<string, unknown>, 'message');
  } else if (typeof o.type === 'string') {
    return capLoadedEvent(o);
  }
  return capJsonDepth(o, MAX_FILE_DEPTH).value;
}

/** The too-deep hint on every loaded message event whose message was cut on load (once), its raw text dropped. */
export function noteCutMessages(events: readonly McpscopeEvent[]): void {
  for (const e of events) {
    if (e.type !== 'message' || typeof e.jsonrpc !== 'object' || e.jsonrpc === null) continue;
    const depth = cutMessages.get(e.jsonrpc);
    if (depth === undefined) continue;
    delete e.raw;
    const hints: Hint[] = Array.isArray(e.hints) ? e.hints : (e.hints = []);
    if (!hints.some((h) => h.code === 'too-deep')) hints.push({ level: 'warn', code: 'too-deep', text: tooDeepText(depth) });
  }
}
