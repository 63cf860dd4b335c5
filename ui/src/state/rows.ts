/**
 * The timeline's rows, made from the events they show (store.ts folds later events into them).
 * Every row is created with all its fields, so rows of a type keep one hidden class.
 */
import type { ExchangeInfo, LogEvent, MessageEvent, ProblemEvent } from '../../../proxy/core/model/events.js';
import type { CallRow, HttpRow, LogRow, NotificationRow, OrphanRow, ProblemRow } from './types.js';
import { MEMO_INIT } from './visible-list.js';

/** A request: the row its response, progress and cancellation fold into. */
export function callRow(m: MessageEvent): CallRow {
  return {
    type: 'call',
    key: `c${m.seq}`,
    seq: m.seq,
    sessionId: m.sessionId,
    dir: m.dir,
    request: m,
    // Declared up front (not added later) so call rows keep one hidden class.
    response: undefined,
    progress: [],
    cancel: undefined,
    children: [],
    status: 'pending',
    latencyMs: undefined,
    httpStatus: undefined,
    rev: 0,
    parentKey: undefined,
    ...MEMO_INIT,
  } as CallRow;
}

/** A response or error with no request to fold into (unknown id, or a second answer). */
export function orphanRow(m: MessageEvent): OrphanRow {
  return {
    type: 'orphan',
    key: `o${m.seq}`,
    seq: m.seq,
    sessionId: m.sessionId,
    dir: m.dir,
    message: m,
    rev: 0,
    ...MEMO_INIT,
  } as OrphanRow;
}

export function notificationRow(m: MessageEvent): NotificationRow {
  return {
    type: 'notification',
    key: `n${m.seq}`,
    seq: m.seq,
    sessionId: m.sessionId,
    dir: m.dir,
    message: m,
    rev: 0,
    parentKey: undefined,
    ...MEMO_INIT,
  } as NotificationRow;
}

export function problemRow(e: ProblemEvent, sessionId: string | undefined): ProblemRow {
  return { type: 'problem', key: `p${e.seq}`, seq: e.seq, sessionId, event: e, rev: 0, ...MEMO_INIT } as ProblemRow;
}

/** A wrapped stdio server's stderr line. */
export function logRow(e: LogEvent): LogRow {
  return { type: 'log', key: `l${e.seq}`, seq: e.seq, sessionId: e.sessionId, event: e, rev: 0, ...MEMO_INIT } as LogRow;
}

/** A plain HTTP exchange, keyed by its id (its later upserts refresh it). */
export function httpRow(seq: number, x: ExchangeInfo): HttpRow {
  return { type: 'http', key: `h${x.id}`, seq, sessionId: x.sessionId, dir: 'c2s', exchange: x, rev: 0, ...MEMO_INIT } as HttpRow;
}
