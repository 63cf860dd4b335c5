/**
 * Store → the annotated log as text (`format=text`; the UI's "Copy as annotated log"): the same
 * formatter as the live `--log` (text-log.ts), fed the same events — the store's history in seq
 * order, superseded session/exchange upserts included — so a session's export is exactly what the
 * live log printed for it. Redacted as every export is; the proxy token never appears. No colour.
 */
import type { EventStore } from '../../recorder/store/event-store.js';
import { UnknownSessionError } from '../../core/model/errors.js';
import { exportRedactor, redactEvent, type ExportRedactionOptions } from './export-common.js';
import { formatTextLog, sessionHistory } from './text-log.js';
import type { TextLogOptions } from './text-log-render.js';

/** One session's annotated log (sessionId), or everything's (undefined). */
export function exportTextLog(
  store: EventStore,
  sessionId?: string,
  options: ExportRedactionOptions & Omit<TextLogOptions, 'colour'> = {},
): string {
  if (sessionId !== undefined && !store.sessions.has(sessionId)) throw new UnknownSessionError(sessionId);
  const r = exportRedactor(options);
  const history = store.history();
  const events = sessionId === undefined ? history : sessionHistory(history, sessionId);
  return formatTextLog(
    events.map((e) => redactEvent(e, r)),
    { ...options, colour: false },
  );
}
