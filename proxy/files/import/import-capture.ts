/**
 * A saved capture → events: what `mcpscope open FILE` and the UI's drag-and-drop import load.
 *
 * Three inputs are recognised by their content (never by the file name):
 * - a fixture (JSON with `"format": "mcpscope-fixture"`, docs/fixture-format.md): its session,
 *   exchanges and messages become events again, links (`pair`, `parent`) kept;
 * - NDJSON events (`mcpscope --record`, the NDJSON export, one event per line), or a JSON array of
 *   events (`/api/events`). A last line cut short (mcpscope killed mid-write) is skipped with a
 *   warning;
 * - a HAR file (any HAR 1.2: mcpscope's export, Chrome DevTools, HTTP Toolkit…): each entry's
 *   request and response (and `_eventSourceMessages` timing for SSE) is replayed through the real
 *   Recorder as wire records, so parsing, sessions and correlation are exactly the live ones.
 *
 * Anything else is refused with an error in plain words.
 */
import type { McpscopeEvent, UnsequencedEvent } from '../../core/model/events.js';
import { EventStore } from '../../recorder/store/event-store.js';
import { FIXTURE_FORMAT } from '../../core/model/fixture-format.js';
import { capLoadedDocument, fileTooDeep, noteCutMessages } from './capture-depth.js';
import { NOT_A_CAPTURE, type CaptureImport } from './import-capture-format.js';
import { CaptureFormatError } from '../../core/model/errors.js';
import { eventProblem, jsonError, ndjsonImport } from './import-ndjson.js';
import { fixtureImport, remapLinks } from './import-fixture.js';
import { harImport, type HarInput } from './import-har.js';
import { remapTurn } from './model-turn-links.js';

export { type CaptureImport, type CaptureKind } from './import-capture-format.js';

/** Parses a capture; warnings are passed to `options.onWarning` (default: a process warning). */
export function importCapture(input: string | Uint8Array, options: { onWarning?: (message: string) => void } = {}): McpscopeEvent[] {
  const result = readCapture(input);
  const warn = options.onWarning ?? ((m: string) => process.emitWarning(m, 'McpscopeImportWarning'));
  for (const w of result.warnings) warn(w);
  return result.events;
}

/**
 * Parses a capture and says what it was. Throws CaptureFormatError for anything else — also for
 * a file that breaks the reader in a way nobody foresaw: one line in plain words, never a stack.
 * JSON nested deeper than MAX_JSON_DEPTH is cut on load (capture-depth.ts).
 */
export function readCapture(input: string | Uint8Array): CaptureImport {
  try {
    return readCaptureUnsafe(input);
  } catch (err) {
    if (err instanceof CaptureFormatError) throw err;
    throw new CaptureFormatError(
      `mcpscope could not read this file (${err instanceof Error ? err.message : String(err)}). ${NOT_A_CAPTURE}`,
    );
  }
}

function readCaptureUnsafe(input: string | Uint8Array): CaptureImport {
  let text = typeof input === 'string' ? input : new TextDecoder('utf-8', { fatal: false }).decode(input);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const trimmed = text.trim();
  if (trimmed === '') throw new CaptureFormatError(`The file is empty. ${NOT_A_CAPTURE}`);
  const first = trimmed[0];
  if (first !== '{' && first !== '[') throw new CaptureFormatError(`This is not JSON or NDJSON. ${NOT_A_CAPTURE}`);

  const deep = fileTooDeep(trimmed);
  const result = readParsed(text, trimmed, deep);
  if (deep) noteCutMessages(result.events);
  return result;
}

function readParsed(text: string, trimmed: string, deep: boolean): CaptureImport {
  const first = trimmed[0];
  let whole: unknown;
  let parsed = false;
  try {
    whole = JSON.parse(trimmed);
    parsed = true;
  } catch {
    /* several lines (NDJSON), or broken JSON */
  }
  if (parsed) {
    if (deep) whole = capLoadedDocument(whole);
    if (Array.isArray(whole)) {
      const bad = whole.findIndex((e) => eventProblem(e) !== undefined);
      if (bad >= 0)
        throw new CaptureFormatError(
          `This JSON array is not a list of mcpscope events: item ${bad + 1} ${eventProblem(whole[bad])}. ${NOT_A_CAPTURE}`,
        );
      return { kind: 'events', events: whole as McpscopeEvent[], warnings: [] };
    }
    const obj = whole as Record<string, unknown>;
    if (obj && typeof obj === 'object') {
      if (obj.format === FIXTURE_FORMAT) return fixtureImport(obj);
      if (typeof obj.format === 'string')
        throw new CaptureFormatError(`This is a "${obj.format}" document, not an mcpscope capture. ${NOT_A_CAPTURE}`);
      const log = obj.log as { entries?: unknown } | undefined;
      if (log && typeof log === 'object' && Array.isArray(log.entries)) return harImport(obj as unknown as HarInput);
      if (eventProblem(obj) === undefined) return { kind: 'ndjson', events: [obj as unknown as McpscopeEvent], warnings: [] };
    }
    throw new CaptureFormatError(
      `This JSON is not an mcpscope capture (no "format": "mcpscope-fixture", no log.entries, not an event). ${NOT_A_CAPTURE}`,
    );
  }
  if (first === '[') throw new CaptureFormatError(`This looks like JSON but does not parse (${jsonError(trimmed)}). ${NOT_A_CAPTURE}`);
  return ndjsonImport(text, deep);
}

// ------------------------------------------------------------------------------------------ store

export interface AppendImportedOptions {
  /**
   * Also re-key ids that look like the ones a live recorder hands out (`s12`, `x40`): for a store
   * that a running proxy keeps adding to, so a later live session can never take an imported id.
   */
  avoidLiveIds?: boolean;
}

export interface AppendImportedResult {
  /** Events appended. */
  events: number;
  /** Ids of the imported sessions in the store (re-keyed where needed). */
  sessions: string[];
}

let importCounter = 0;

/**
 * Appends imported events to a store: new seqs (links remapped), session, exchange and model-turn
 * ids that collide with ones already there re-keyed (`s1` → `s1-i2`), one commit at the end.
 */
export function appendImported(
  store: EventStore,
  events: readonly McpscopeEvent[],
  options: AppendImportedOptions = {},
): AppendImportedResult {
  importCounter += 1;
  const tag = `i${importCounter}`;
  const liveLike = /^[sxm]\d+$/;
  const sessionIds = new Map<string, string>();
  const exchangeIds = new Map<string, string>();
  const rekey = (id: string, map: Map<string, string>, taken: (id: string) => boolean, used: Set<string>): string => {
    const known = map.get(id);
    if (known !== undefined) return known;
    let next = id;
    if (taken(id) || (options.avoidLiveIds && liveLike.test(id))) {
      next = `${id}-${tag}`;
      for (let k = 2; taken(next); k++) next = `${id}-${tag}-${k}`;
    }
    map.set(id, next);
    used.add(next);
    return next;
  };
  const usedSessions = new Set<string>();
  const usedExchanges = new Set<string>();
  const sid = (id: string) => rekey(id, sessionIds, (x) => store.sessions.has(x) || usedSessions.has(x), usedSessions);
  const xid = (id: string) => rekey(id, exchangeIds, (x) => store.exchanges.has(x) || usedExchanges.has(x), usedExchanges);
  const turnIds = new Map<string, string>();
  const usedTurns = new Set<string>();
  const tid = (id: string) => rekey(id, turnIds, (x) => store.turns.has(x) || usedTurns.has(x), usedTurns);

  const seqMap = new Map<number, number>();
  const ordered = [...events].sort((a, b) => a.seq - b.seq);
  for (const original of ordered) {
    const e = structuredClone(original) as McpscopeEvent;
    switch (e.type) {
      case 'session':
        e.session.id = sid(e.session.id);
        break;
      case 'exchange':
        e.exchange.id = xid(e.exchange.id);
        if (e.exchange.sessionId !== undefined) e.exchange.sessionId = sid(e.exchange.sessionId);
        if (e.exchange.resumes !== undefined) e.exchange.resumes = xid(e.exchange.resumes);
        break;
      case 'model-turn':
        e.sessionId = sid(e.sessionId);
        e.turn = remapTurn(e.turn, { seq: seqMap, session: sid, exchange: xid, turn: tid });
        break;
      default:
        if (e.sessionId !== undefined) e.sessionId = sid(e.sessionId);
        if ('exchangeId' in e && e.exchangeId !== undefined && e.exchangeId !== '') e.exchangeId = xid(e.exchangeId);
        if (e.type === 'message' && e.modelCall) e.modelCall.turn = tid(e.modelCall.turn);
        break;
    }
    remapLinks(e, seqMap);
    const { seq: oldSeq, ...rest } = e;
    const stored = store.append(rest as UnsequencedEvent);
    seqMap.set(oldSeq, stored.seq);
  }
  store.commit();
  return {
    events: ordered.length,
    sessions: [...new Set(ordered.filter((e) => e.type === 'session').map((e) => sessionIds.get(e.session.id)!))],
  };
}
