/**
 * Timeline filters: matching a row, and the filter state in the URL (so a view can be shared).
 *
 * URL parameters: `session`, `method`, `dir` (c2s|s2c), `kind` (request|notification|response|error|log),
 * `errors=1`, `spec=1` (violations only), `minms=<n>`, `q=<text>`. Any other parameter (notably `token`) is left alone.
 *
 * The search text may hold `session:<id or client name>` terms (`session:s3`, `session:"my client"`;
 * several: any of them): the "All sessions" view's rows of those sessions only, the rest of the text
 * searched as usual. A session badge's click writes one (toggleSessionTerm).
 */
import { sessionLabel } from './session-label.js';
import type { MessageEvent } from '../../../proxy/core/model/events.js';
import type { TimelineStore } from './store.js';
import { isViolation } from './violations.js';
import { EMPTY_FILTERS, type CallRow, type Filters, type Row } from './types.js';

const DIRS = new Set(['c2s', 's2c']);
const KINDS = new Set(['request', 'notification', 'response', 'error', 'log']);
/** The URL parameters filters own. */
const FILTER_PARAMS = ['session', 'method', 'dir', 'kind', 'errors', 'spec', 'minms', 'q'] as const;

export function isEmptyFilters(f: Filters): boolean {
  return (
    f.session === '' &&
    f.method.trim() === '' &&
    f.dir === '' &&
    f.kind === '' &&
    !f.errorsOnly &&
    !f.violationsOnly &&
    !(f.minLatencyMs > 0) &&
    f.text.trim() === ''
  );
}

/** A string that is equal for filters that select the same rows (used as a memo key). */
export function filtersKey(f: Filters): string {
  return [
    f.session,
    f.method.trim().toLowerCase(),
    f.dir,
    f.kind,
    f.errorsOnly ? '1' : '',
    f.violationsOnly ? '1' : '',
    f.minLatencyMs > 0 ? String(f.minLatencyMs) : '',
    f.text.trim().toLowerCase(),
  ].join('\u0000');
}

function hasErrorHint(m: MessageEvent | undefined): boolean {
  if (!m || !m.hints) return false;
  for (const h of m.hints) if (h.level === 'error') return true;
  return false;
}

function rowSession(row: Row, store: TimelineStore): string | undefined {
  if (row.sessionId !== undefined) return row.sessionId;
  if (row.type === 'problem' && row.event.exchangeId !== undefined) return store.exchanges.get(row.event.exchangeId)?.sessionId;
  return undefined;
}

function callIsError(row: CallRow): boolean {
  if (row.status === 'error' || row.status === 'tool-error') return true;
  if (hasErrorHint(row.request) || hasErrorHint(row.response) || hasErrorHint(row.cancel)) return true;
  for (const p of row.progress) if (hasErrorHint(p)) return true;
  return false;
}

function messageHasText(m: MessageEvent | undefined, needle: string, store: TimelineStore): boolean {
  // The cached text holds the method, the name and the JSON, lower-cased.
  return m !== undefined && store.searchTextOf(m).includes(needle);
}

function rowHasText(row: Row, needle: string, store: TimelineStore): boolean {
  switch (row.type) {
    case 'call': {
      if (
        messageHasText(row.request, needle, store) ||
        messageHasText(row.response, needle, store) ||
        messageHasText(row.cancel, needle, store)
      )
        return true;
      for (const p of row.progress) if (messageHasText(p, needle, store)) return true;
      return false;
    }
    case 'notification':
    case 'orphan':
      return messageHasText(row.message, needle, store);
    case 'problem': {
      const e = row.event;
      return (
        e.code.toLowerCase().includes(needle) ||
        e.text.toLowerCase().includes(needle) ||
        (e.raw !== undefined && e.raw.toLowerCase().includes(needle))
      );
    }
    case 'http': {
      const x = row.exchange;
      const has = (s: string | undefined) => s !== undefined && s.toLowerCase().includes(needle);
      return (
        has(`${x.method} ${x.url} ${x.status ?? ''}`) ||
        x.hints.some((h) => has(h.text) || has(h.code)) ||
        has(x.requestPreview) ||
        has(x.responsePreview)
      );
    }
    case 'log':
      return row.event.text.toLowerCase().includes(needle);
    case 'turn':
      return store.modelTurns.searchText(row.turn).includes(needle);
  }
}

/** `session:` terms of a search text. */
const SESSION_TERM = /(?<!\S)session:(?:"([^"]*)"?|(\S*))\s*/gi;

/**
 * The `session:<id or client name>` terms of a search text (lower-cased; an empty one, still being
 * typed, is dropped) and the text without them, which is searched as usual.
 */
export function sessionTerms(text: string): { sessions: string[]; rest: string } {
  if (!text.toLowerCase().includes('session:')) return { sessions: [], rest: text };
  const sessions: string[] = [];
  const rest = text.replace(SESSION_TERM, (_all, quoted: string | undefined, bare: string | undefined) => {
    const v = (quoted ?? bare ?? '').trim().toLowerCase();
    if (v !== '' && !sessions.includes(v)) sessions.push(v);
    return '';
  });
  return { sessions, rest: rest.trim() };
}

/**
 * A session badge's click: the search text showing only that session's rows (its `session:` term
 * first, in place of any other), or — when that is what it shows already — all sessions again.
 */
export function toggleSessionTerm(text: string, id: string): string {
  const { sessions, rest } = sessionTerms(text);
  if (sessions.length === 1 && sessions[0] === id.toLowerCase()) return rest;
  return rest === '' ? `session:${id}` : `session:${id} ${rest}`;
}

/** Whether a session is one the `session:` terms name: by its id, or its client's name (either whole, case-insensitive). */
function sessionNamed(f: PreparedFilters, id: string | undefined, store: TimelineStore): boolean {
  if (id === undefined) return false;
  let ok = f.sessionHits.get(id);
  if (ok === undefined) {
    const lower = id.toLowerCase();
    // The name the badge shows (session-label.ts: the client's, or a plain-HTTP bucket's host).
    const name = sessionLabel(id, store.sessions.get(id)).name?.toLowerCase();
    ok = f.sessions.some((t) => t === lower || t === name);
    f.sessionHits.set(id, ok);
  }
  return ok;
}

/** Filters with their needles lower-cased and trimmed once (for matching many rows). */
export interface PreparedFilters {
  session: string;
  /** The search text's `session:` terms (sessionTerms); empty: any session. */
  sessions: string[];
  /** Per session id, whether the terms name it (filled as rows are matched). */
  sessionHits: Map<string, boolean>;
  method: string;
  dir: Filters['dir'];
  kind: Filters['kind'];
  errorsOnly: boolean;
  violationsOnly: boolean;
  minLatencyMs: number;
  /** The search text without its `session:` terms. */
  text: string;
}

export function prepareFilters(f: Filters): PreparedFilters {
  const terms = sessionTerms(f.text);
  return {
    session: f.session,
    sessions: terms.sessions,
    sessionHits: new Map(),
    method: f.method.trim().toLowerCase(),
    dir: f.dir,
    kind: f.kind,
    errorsOnly: f.errorsOnly,
    violationsOnly: f.violationsOnly === true,
    minLatencyMs: f.minLatencyMs > 0 ? f.minLatencyMs : 0,
    text: terms.rest.trim().toLowerCase(),
  };
}

/** Whether a row passes the filters. Children are judged on their own (the store nests them). */
export function rowMatches(row: Row, f: Filters, store: TimelineStore): boolean {
  return matchesPrepared(row, prepareFilters(f), store);
}

/** `rowMatches` with filters prepared once by `prepareFilters`. */
export function matchesPrepared(row: Row, f: PreparedFilters, store: TimelineStore): boolean {
  if (f.session !== '' && rowSession(row, store) !== f.session) return false;
  if (f.sessions.length > 0 && !sessionNamed(f, rowSession(row, store), store)) return false;

  if (f.dir !== '') {
    // Problems and stderr lines have no direction.
    const dir =
      row.type === 'call'
        ? row.request.dir
        : row.type === 'problem' || row.type === 'log'
          ? undefined
          : row.type === 'http' || row.type === 'turn'
            ? row.dir
            : row.message.dir;
    if (dir !== f.dir) return false;
  }

  if (f.kind !== '') {
    // `log` picks a stdio server's stderr lines, and only those.
    if ((f.kind === 'log') !== (row.type === 'log')) return false;
    switch (row.type) {
      case 'call':
        if (f.kind === 'notification') return false;
        if (f.kind !== 'request' && row.response?.kind !== f.kind) return false;
        break;
      case 'notification':
        if (f.kind !== 'notification') return false;
        break;
      case 'orphan':
        if (row.message.kind !== f.kind) return false;
        break;
      case 'problem':
      case 'http':
      case 'turn':
        return false;
      case 'log':
        break;
    }
  }

  if (f.method !== '') {
    const method =
      row.type === 'call'
        ? row.request.method
        : row.type === 'problem' || row.type === 'http' || row.type === 'log' || row.type === 'turn'
          ? undefined
          : row.message.method;
    if (method === undefined || !method.toLowerCase().includes(f.method)) return false;
  }

  if (f.errorsOnly) {
    let err: boolean;
    switch (row.type) {
      case 'call':
        err = callIsError(row);
        break;
      case 'notification':
        err = hasErrorHint(row.message);
        break;
      case 'orphan':
        err = row.message.kind === 'error' || hasErrorHint(row.message);
        break;
      case 'problem':
        err = true;
        break;
      case 'http':
        // A plain HTTP exchange that failed (a 4xx, such as a refused token request, is an answer, not an error).
        err = row.exchange.aborted !== undefined || row.exchange.error !== undefined || (row.exchange.status ?? 0) >= 500;
        break;
      case 'log':
        // A stderr line is what the server chose to print: often a log, not necessarily an error.
        err = false;
        break;
      case 'turn':
        // An API error answer, or a response that broke off.
        err = row.turn.status === 'error' || row.turn.status === 'cut';
        break;
    }
    if (!err) return false;
  }

  if (f.violationsOnly) {
    // A message's violations annotate its row; a violation naming no known message is a problem row of its own.
    const spec = row.type === 'problem' ? isViolation(row.event) : store.violationsOfRow(row).some(isViolation);
    if (!spec) return false;
  }

  if (f.minLatencyMs > 0) {
    if (row.type !== 'call') return false;
    // Pending calls count with the time they have waited so far (by the feed's clock).
    const latency = row.latencyMs ?? (row.response ? undefined : Math.max(0, (row.cancel?.ts ?? store.lastTs) - row.request.ts));
    if (latency === undefined || latency < f.minLatencyMs) return false;
  }

  if (f.text !== '' && !rowHasText(row, f.text, store)) return false;
  return true;
}

/**
 * The filters as URL query parameters, e.g. `?session=s1&method=tools%2F&errors=1&minms=100&q=foo`
 * ('' when there is nothing to say). Pass the current `location.search` as `base` to keep its
 * other parameters (such as `token`) as they are.
 */
export function filtersToSearch(f: Filters, base = ''): string {
  const params = new URLSearchParams(base.startsWith('?') ? base.slice(1) : base);
  for (const name of FILTER_PARAMS) params.delete(name);
  if (f.session !== '') params.set('session', f.session);
  if (f.method !== '') params.set('method', f.method);
  if (f.dir !== '') params.set('dir', f.dir);
  if (f.kind !== '') params.set('kind', f.kind);
  if (f.errorsOnly) params.set('errors', '1');
  if (f.violationsOnly) params.set('spec', '1');
  if (f.minLatencyMs > 0 && Number.isFinite(f.minLatencyMs)) params.set('minms', String(f.minLatencyMs));
  if (f.text !== '') params.set('q', f.text);
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}

/** Reads filters from a query string (with or without `?`); unknown parameters (`token`, …) are ignored. */
export function filtersFromSearch(search: string): Filters {
  const params = new URLSearchParams(search.startsWith('?') ? search.slice(1) : search);
  const dir = params.get('dir') ?? '';
  const kind = params.get('kind') ?? '';
  const errors = (params.get('errors') ?? '').toLowerCase();
  const spec = (params.get('spec') ?? '').toLowerCase();
  const minms = Number(params.get('minms') ?? '0');
  return {
    ...EMPTY_FILTERS,
    session: params.get('session') ?? '',
    method: params.get('method') ?? '',
    dir: DIRS.has(dir) ? (dir as Filters['dir']) : '',
    kind: KINDS.has(kind) ? (kind as Filters['kind']) : '',
    errorsOnly: errors === '1' || errors === 'true' || errors === 'yes',
    // Only when on: filters without it read back equal to those that never had it.
    ...(spec === '1' || spec === 'true' || spec === 'yes' ? { violationsOnly: true } : {}),
    minLatencyMs: Number.isFinite(minms) && minms > 0 ? minms : 0,
    text: params.get('q') ?? '',
  };
}
