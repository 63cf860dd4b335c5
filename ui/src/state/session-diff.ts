/**
 * Session diff: two sessions' calls side by side, with what changed between them (before/after a
 * server change, a recording and its replay, two clients…). Pure and framework-free.
 *
 * Calls (requests, with their responses folded in) are aligned by direction, method and name —
 * `tools/call echo` ↔ `tools/call echo`, `initialize` ↔ `initialize` — in order of occurrence
 * within each of those keys: the 2nd `tools/call echo` of one session pairs with the 2nd of the
 * other. A pair is `same` or `changed`; calls without a partner are `only-left` / `only-right`.
 *
 * Payloads are compared path by path with the JSON diff `mcpscope verify` uses
 * (proxy/core/model/json-diff.ts, browser-safe): request `params`, and the response's `result` or
 * `error`. JSON-RPC ids are never compared, `_meta` and progress tokens are skipped wherever they
 * appear, and strings that differ only in UUIDs or timestamps (and two epoch-ms numbers) count as
 * equal. Latency is shown, never judged. List results (`tools/list`, `prompts/list`,
 * `resources/list`, `resources/templates/list`) are also summarised item by item as schema drift:
 * tool added, removed or changed.
 */
import type { Direction } from '../../../proxy/core/model/events.js';
import { diffJson, formatPath, type JsonDifference, type JsonPathSegment } from '../../../proxy/core/model/json-diff.js';
import { jsonText } from './format.js';
import type { TimelineStore } from './store.js';
import type { CallRow, CallStatus, MessageEvent } from './types.js';

export type DiffKind = 'same' | 'changed' | 'only-left' | 'only-right';

/** One path-level difference: `result.content[0].text: "Echo: a" → "Echo: b"`. */
export interface PathChange {
  /** `params.arguments.text`, `result.content[0].text`, `error.code`, `status` (root: ''). */
  path: string;
  /** `changed`: both sides have a value there; `added`: only the right one has it; `removed`: only the left one. */
  kind: 'changed' | 'added' | 'removed';
  before?: unknown;
  after?: unknown;
  /** One line for a person (values shortened). */
  text: string;
}

/** A tool (prompt, resource, template) that differs between two list results. */
export interface SchemaDrift {
  /** `tool`, `prompt`, `resource`, `resource template`. */
  what: string;
  /** Its name (or URI for resources). */
  name: string;
  change: 'added' | 'removed' | 'changed';
  /** `changed`: the differences inside the item, with paths relative to it (`inputSchema.properties.text.type`). */
  changes: PathChange[];
  /** `added` / `removed`: the item itself. */
  value?: unknown;
}

/** One side of a diff row: the call in that session. */
export interface DiffSide {
  /** Timeline row key (`c<seq>`): open it with `store.row(key)`. */
  key: string;
  seq: number;
  sessionId: string;
  status: CallStatus;
  latencyMs?: number;
  ts: number;
  /** notifications/progress received for the call. */
  progress: number;
}

export interface DiffRow {
  /** Unique within the result and stable across recomputes: `c2s tools/call echo #2`. */
  id: string;
  kind: DiffKind;
  dir: Direction;
  method: string;
  name?: string;
  /** 1-based: this is the n-th call with this direction, method and name in its session(s). */
  occurrence: number;
  left?: DiffSide;
  right?: DiffSide;
  /** For `changed` pairs: the differences, status first, then params, then result/error (drift excluded). */
  changes: PathChange[];
  /** For list calls: item-level drift (also makes the pair `changed`). */
  drift?: SchemaDrift[];
  /**
   * Payloads that were not compared because the store holds only a stub (large messages arrive on
   * the feed `elided`): their seqs. Load them (GET /api/messages/:seq), pass them through
   * `options.resolve`, and diff again.
   */
  missing?: number[];
  /** Remarks in plain words (a payload recorded only in part, …). */
  notes?: string[];
}

export interface DiffSummary {
  rows: number;
  same: number;
  changed: number;
  onlyLeft: number;
  onlyRight: number;
}

/** Keys skipped wherever they appear: volatile metadata and progress tokens. */
const DEFAULT_IGNORED_KEYS: readonly string[] = ['_meta', 'progressToken'];

/**
 * Every path where `a` and `b` differ (see proxy/core/model/json-diff.ts: arrays of named items are
 * compared by name, the rest by position), skipping `ignore` keys and volatile strings.
 */
export function jsonDiff(a: unknown, b: unknown, ignore: Iterable<string> = DEFAULT_IGNORED_KEYS): PathChange[] {
  return diffJson(a, b, { ignoreKeys: new Set(ignore), ignoreVolatile: true }).map((d) => toChange(d));
}

function toChange(d: JsonDifference, base: readonly JsonPathSegment[] = []): PathChange {
  const rel = base.length > 0 ? { ...d, path: d.path.slice(base.length) } : d;
  const c: PathChange = { path: formatPath(rel.path), kind: d.kind, text: describeDifference(rel) };
  if ('before' in d) c.before = d.before;
  if ('after' in d) c.after = d.after;
  return c;
}

/**
 * One line: `path: before → after`, `path: added …`, `path: removed (was …)` — json-diff's
 * formatDifference, with values written at any depth (JSON.stringify, which it uses, throws on
 * a value nested thousands of levels deep, and so would the whole comparison).
 */
function describeDifference(d: JsonDifference, max = 80): string {
  const where = formatPath(d.path) || '(whole value)';
  const value = (v: unknown) => (v === undefined ? 'undefined' : jsonText(v, max));
  switch (d.kind) {
    case 'changed':
      return `${where}: ${value(d.before)} → ${value(d.after)}`;
    case 'added':
      return `${where}: added ${value(d.after)}`;
    case 'removed':
      return `${where}: removed (was ${value(d.before)})`;
  }
}

export interface DiffOptions {
  /** The full message for an `elided` stub, once loaded (undefined: not loaded yet). */
  resolve?(stub: MessageEvent): MessageEvent | undefined;
  /** Keys to skip (default `_meta`, `progressToken`). */
  ignoreKeys?: Iterable<string>;
  /** Reused between calls: pairs whose messages did not change are not compared again. */
  cache?: DiffCache;
}

/** Per-pair results, keyed on the pair's messages (messages never change once recorded). */
export type DiffCache = Map<string, PairResult>;

interface PairResult {
  changes: PathChange[];
  drift?: SchemaDrift[];
  missing?: number[];
  notes?: string[];
}

/** Every call of a session (nested server→client requests included), in wire order. */
function sessionCalls(store: TimelineStore, sessionId: string): CallRow[] {
  const out: CallRow[] = [];
  const visit = (row: CallRow, depth: number) => {
    out.push(row);
    if (depth > 16 || row.children.length === 0) return;
    for (const child of store.childrenOf(row)) if (child.type === 'call') visit(child, depth + 1);
  };
  for (const row of store.topLevelRows()) if (row.type === 'call' && row.sessionId === sessionId) visit(row, 0);
  out.sort((a, b) => a.seq - b.seq);
  return out;
}

function alignKey(call: CallRow): string {
  const m = call.request;
  return `${call.dir} ${m.method ?? '(no method)'}${m.name !== undefined ? ` ${m.name}` : ''}`;
}

function side(call: CallRow): DiffSide {
  return {
    key: call.key,
    seq: call.seq,
    sessionId: call.sessionId,
    status: call.status,
    latencyMs: call.latencyMs,
    ts: call.request.ts,
    progress: call.progress.length,
  };
}

/**
 * The calls of `leftId` and `rightId`, aligned. Rows follow the left session's order; calls only
 * the right session made are placed where they occurred relative to the pairs around them.
 */
export function diffSessions(store: TimelineStore, leftId: string, rightId: string, options: DiffOptions = {}): DiffRow[] {
  const left = sessionCalls(store, leftId);
  const right = sessionCalls(store, rightId);
  const ignore = new Set(options.ignoreKeys ?? DEFAULT_IGNORED_KEYS);

  // n-th occurrence of each key on each side.
  const occLeft: number[] = [];
  const occRight: number[] = [];
  const byKeyRight = new Map<string, number[]>();
  const seen = new Map<string, number>();
  for (let i = 0; i < right.length; i++) {
    const k = alignKey(right[i]);
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    occRight[i] = n;
    let list = byKeyRight.get(k);
    if (!list) byKeyRight.set(k, (list = []));
    list.push(i);
  }
  seen.clear();
  const partner: (number | undefined)[] = [];
  const paired = new Set<number>();
  for (let i = 0; i < left.length; i++) {
    const k = alignKey(left[i]);
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    occLeft[i] = n;
    const j = byKeyRight.get(k)?.[n - 1];
    partner[i] = j;
    if (j !== undefined) paired.add(j);
  }

  const rows: DiffRow[] = [];
  const onlyRight = (j: number) => {
    const call = right[j];
    rows.push({ ...identity(call, occRight[j]), kind: 'only-right', right: side(call), changes: [] });
  };
  let next = 0;
  const flushRight = (upTo: number) => {
    for (; next < upTo; next++) if (!paired.has(next)) onlyRight(next);
  };
  for (let i = 0; i < left.length; i++) {
    const call = left[i];
    const j = partner[i];
    if (j === undefined) {
      rows.push({ ...identity(call, occLeft[i]), kind: 'only-left', left: side(call), changes: [] });
      continue;
    }
    flushRight(j);
    if (next <= j) next = j + 1;
    const other = right[j];
    const result = comparePair(call, other, ignore, options);
    const row: DiffRow = {
      ...identity(call, occLeft[i]),
      kind: result.changes.length > 0 || (result.drift?.length ?? 0) > 0 ? 'changed' : 'same',
      left: side(call),
      right: side(other),
      changes: result.changes,
    };
    if (result.drift && result.drift.length > 0) row.drift = result.drift;
    if (result.missing && result.missing.length > 0) row.missing = result.missing;
    if (result.notes && result.notes.length > 0) row.notes = result.notes;
    rows.push(row);
  }
  flushRight(right.length);
  return rows;
}

function identity(call: CallRow, occurrence: number): Pick<DiffRow, 'id' | 'dir' | 'method' | 'name' | 'occurrence'> {
  const method = call.request.method ?? '(no method)';
  const out: Pick<DiffRow, 'id' | 'dir' | 'method' | 'name' | 'occurrence'> = {
    id: `${alignKey(call)} #${occurrence}`,
    dir: call.dir,
    method,
    occurrence,
  };
  if (call.request.name !== undefined) out.name = call.request.name;
  return out;
}

export function summarizeDiff(rows: readonly DiffRow[]): DiffSummary {
  const s: DiffSummary = { rows: rows.length, same: 0, changed: 0, onlyLeft: 0, onlyRight: 0 };
  for (const r of rows) {
    if (r.kind === 'same') s.same++;
    else if (r.kind === 'changed') s.changed++;
    else if (r.kind === 'only-left') s.onlyLeft++;
    else s.onlyRight++;
  }
  return s;
}

// ------------------------------------------------------------------------------------------ pairs

function cacheKey(a: CallRow, b: CallRow, options: DiffOptions): string {
  const part = (c: CallRow) => {
    const loaded = (m: MessageEvent | undefined) => (m?.elided && options.resolve?.(m) ? '+' : '');
    return `${c.request.seq}${loaded(c.request)}/${c.response?.seq ?? ''}${loaded(c.response)}/${c.status}/${c.progress.length}`;
  };
  return `${part(a)}|${part(b)}`;
}

/** The message to compare: the full one for a loaded stub, undefined (with its seq noted) otherwise. */
function payload(m: MessageEvent, options: DiffOptions, missing: number[], notes: string[], what: string): MessageEvent | undefined {
  if (m.elided) {
    const full = options.resolve?.(m);
    if (!full) {
      missing.push(m.seq);
      return undefined;
    }
    m = full;
  }
  if (m.truncated) {
    notes.push(`The ${what} (#${m.seq}) was too large to record in full: it was not compared.`);
    return undefined;
  }
  return m;
}

function paramsOf(m: MessageEvent): unknown {
  const j = m.jsonrpc;
  return j !== null && typeof j === 'object' ? (j as { params?: unknown }).params : undefined;
}

/** `{ result }` or `{ error }` of a response, so that paths read `result.content[0].text`. */
function outcomeOf(m: MessageEvent): Record<string, unknown> {
  const j = (m.jsonrpc ?? {}) as { result?: unknown; error?: unknown };
  return m.kind === 'error' ? { error: j.error } : { result: j.result };
}

function comparePair(a: CallRow, b: CallRow, ignore: ReadonlySet<string>, options: DiffOptions): PairResult {
  const key = options.cache ? cacheKey(a, b, options) : '';
  const cached = options.cache?.get(key);
  if (cached) return cached;
  const changes: PathChange[] = [];
  const missing: number[] = [];
  const notes: string[] = [];
  const diff = (x: unknown, y: unknown) => diffJson(x, y, { ignoreKeys: ignore, ignoreVolatile: true });

  if (a.status !== b.status)
    changes.push({ path: 'status', kind: 'changed', before: a.status, after: b.status, text: `status: ${a.status} → ${b.status}` });

  const reqA = payload(a.request, options, missing, notes, 'left request');
  const reqB = payload(b.request, options, missing, notes, 'right request');
  if (reqA && reqB) {
    const pa = paramsOf(reqA);
    const pb = paramsOf(reqB);
    for (const d of diff(pa === undefined ? {} : { params: pa }, pb === undefined ? {} : { params: pb })) changes.push(toChange(d));
  }

  let drift: SchemaDrift[] | undefined;
  if (a.response && b.response) {
    const resA = payload(a.response, options, missing, notes, 'left response');
    const resB = payload(b.response, options, missing, notes, 'right response');
    if (resA && resB) {
      const diffs = diff(outcomeOf(resA), outcomeOf(resB));
      const list = LIST_RESULTS[a.request.method ?? ''];
      if (list && resA.kind !== 'error' && resB.kind !== 'error') {
        const { grouped, rest } = groupDrift(diffs, list.field, list.what);
        drift = grouped;
        for (const d of rest) changes.push(toChange(d));
      } else for (const d of diffs) changes.push(toChange(d));
    }
  }

  if (a.progress.length !== b.progress.length) {
    changes.push({
      path: 'progress',
      kind: 'changed',
      before: a.progress.length,
      after: b.progress.length,
      text: `progress: ${a.progress.length} → ${b.progress.length} notifications`,
    });
  }

  const result: PairResult = { changes };
  if (drift && drift.length > 0) result.drift = drift;
  if (missing.length > 0) result.missing = missing;
  if (notes.length > 0) result.notes = notes;
  // A pair with payloads still to load is compared again once they are.
  if (options.cache && missing.length === 0) {
    if (options.cache.size > 20_000) options.cache.clear();
    options.cache.set(key, result);
  }
  return result;
}

// ------------------------------------------------------------------------------------------ drift

const LIST_RESULTS: Record<string, { field: string; what: string }> = {
  'tools/list': { field: 'tools', what: 'tool' },
  'prompts/list': { field: 'prompts', what: 'prompt' },
  'resources/list': { field: 'resources', what: 'resource' },
  'resources/templates/list': { field: 'resourceTemplates', what: 'resource template' },
};

/**
 * Differences under `result.<field>[name=…]` grouped per item (the JSON diff compares arrays of
 * uniquely named items by name, so these paths exist whenever the lists are comparable).
 */
function groupDrift(diffs: JsonDifference[], field: string, what: string): { grouped: SchemaDrift[]; rest: JsonDifference[] } {
  const grouped: SchemaDrift[] = [];
  const byName = new Map<string, SchemaDrift>();
  const rest: JsonDifference[] = [];
  for (const d of diffs) {
    const [root, list, item] = d.path;
    if (root !== 'result' || list !== field || item === undefined || typeof item !== 'object') {
      rest.push(d);
      continue;
    }
    const name = item.value;
    if (d.path.length === 3 && d.kind !== 'changed') {
      const entry: SchemaDrift = { what, name, change: d.kind, changes: [], value: d.kind === 'added' ? d.after : d.before };
      grouped.push(entry);
      byName.set(name, entry);
      continue;
    }
    let entry = byName.get(name);
    if (!entry) {
      entry = { what, name, change: 'changed', changes: [] };
      grouped.push(entry);
      byName.set(name, entry);
    }
    entry.changes.push(toChange(d, d.path.slice(0, 3)));
  }
  return { grouped, rest };
}

/** One line per drift entry: `tool added: lucky_number`, `tool changed: echo (inputSchema.… "string" → "number")`. */
export function describeDrift(d: SchemaDrift): string {
  if (d.change !== 'changed') return `${d.what} ${d.change}: ${d.name}`;
  return `${d.what} changed: ${d.name} (${d.changes.map((c) => c.text).join('; ')})`;
}
