/**
 * Store → NDJSON: one event per line, the same events (and the same JSON) as the WebSocket feed
 * delivers — latest session/exchange upserts only — for one session or for everything. Redacted
 * again on export; the proxy token never appears. `mcpscope open` and the UI's import read it back.
 */
import type { McpscopeEvent } from '../../core/model/events.js';
import type { EventStore } from '../../recorder/store/event-store.js';
import { UnknownSessionError } from '../../core/model/errors.js';
import { exportRedactor, redactEvent, sessionEventsOf, type ExportRedactionOptions } from './export-common.js';

/** The events an NDJSON export holds: one session's (sessionId) or all of them (undefined), redacted. */
export function ndjsonEvents(store: EventStore, sessionId?: string, options: ExportRedactionOptions = {}): McpscopeEvent[] {
  if (sessionId !== undefined && !store.sessions.has(sessionId)) throw new UnknownSessionError(sessionId);
  const r = exportRedactor(options);
  const events = sessionId === undefined ? store.snapshot() : sessionEventsOf(store, sessionId);
  return events.map((e) => redactEvent(e, r));
}

/** One JSON event per line, each line ending in "\n". */
export function exportNdjson(store: EventStore, sessionId?: string, options: ExportRedactionOptions = {}): string {
  return toNdjson(ndjsonEvents(store, sessionId, options));
}

export function toNdjson(events: readonly McpscopeEvent[]): string {
  let out = '';
  for (const e of events) out += `${JSON.stringify(e)}\n`;
  return out;
}
