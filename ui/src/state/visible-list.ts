/**
 * The visible list: the store's rows flattened and filtered for the virtual list (filters, search,
 * the rows a list window shows), memoized per filter set, with the change tracking that lets a live
 * batch recompute only the tail of a list. Owned by `TimelineStore` (store.ts), which reports every
 * row it adds, nests or changes; components reach it through the store's `visibleRows`.
 */
import type { MessageEvent } from '../../../proxy/core/model/events.js';
import type { CallRow, Filters, Row } from './types.js';
import { filtersKey, isEmptyFilters, matchesPrepared, prepareFilters, sessionTerms, type PreparedFilters } from './filters.js';
import { jsonText } from './format.js';
import type { TimelineStore } from './store.js';

/**
 * Per-row filter memo, kept on the row object itself (the cheapest lookup at 100k rows) and
 * present from creation so every row of a type keeps one hidden class. Internal: not part of Row.
 */
interface MatchMemo {
  _fid: number;
  _frev: number;
  _fok: boolean;
}
/** Spread into every new row (store.ts) so the memo fields exist from creation. */
export const MEMO_INIT: MatchMemo = { _fid: 0, _frev: -1, _fok: false };

/** A computed visible list. */
interface FlatList {
  version: number;
  filters: Filters;
  key: string;
  rows: Row[];
  /** topPos[i]: index in `rows` where top-level row i's subtree starts (for suffix recomputes). */
  topPos: number[];
  index?: Map<string, number>;
}

let filterSerial = 0;

export class VisibleList {
  /** Lower-cased search text by message seq (a holey array: seqs are dense, lookups are cheap). */
  private searchText: string[] = [];
  private filterIds = new Map<string, number>();
  /** Flattened lists by filter key (a few, most recent last). */
  private flatCache = new Map<string, FlatList>();
  /** The list `rows` returned last (fast path for repeated calls with the same filters object). */
  private lastVisible?: FlatList;
  /** row key → index in the store's top-level rows of its top-level ancestor. */
  private readonly topIndex = new Map<string, number>();
  /** Per change (version): the lowest top-level row index whose subtree changed (Infinity: none). */
  private touchLog: { version: number; top: number }[] = [];
  /** Versions up to this one are not covered by `touchLog`: lists older than it are recomputed fully. */
  private touchBase = 0;
  /** Lowest top-level index touched by the batch being ingested. */
  private batchTop = Infinity;

  constructor(private readonly store: TimelineStore) {}

  // ---- change tracking (called by the store) ------------------------------------------------

  /** A top-level row was added at `index`. */
  added(key: string, index: number): void {
    this.topIndex.set(key, index);
    if (index < this.batchTop) this.batchTop = index;
  }

  /** A row was nested under `parentKey`: it belongs to its parent's top-level subtree. */
  nested(key: string, parentKey: string): void {
    const top = this.topIndex.get(parentKey);
    if (top !== undefined) this.topIndex.set(key, top);
  }

  /** A row changed in place: lists must re-judge its top-level subtree. */
  touched(key: string): void {
    const top = this.topIndex.get(key);
    if (top !== undefined && top < this.batchTop) this.batchTop = top;
  }

  /** The store's version became `version`: what the batch touched is logged under it. */
  committed(version: number): void {
    if (this.batchTop === Infinity) return;
    this.touchLog.push({ version, top: this.batchTop });
    this.batchTop = Infinity;
    if (this.touchLog.length > 4096) {
      const cut = this.touchLog.length - 2048;
      this.touchBase = this.touchLog[cut - 1].version;
      this.touchLog = this.touchLog.slice(cut);
    }
  }

  /** The store rebuilds its rows at `version`: every list computed before now is stale as a whole. */
  reset(version: number, { searchText = false }: { searchText?: boolean } = {}): void {
    this.topIndex.clear();
    this.flatCache.clear();
    this.lastVisible = undefined;
    this.touchLog = [];
    this.touchBase = version + 1;
    this.batchTop = Infinity;
    if (searchText) this.searchText = [];
  }

  // ---- search text (lazy, cached) ----------------------------------------------------------

  /**
   * Lower-cased search text of a message — its method, its name and its JSON (the raw frame when
   * kept, else the parsed message stringified) — computed once per message, the first time a
   * search needs it.
   */
  searchTextOf(m: MessageEvent): string {
    let text = this.searchText[m.seq];
    if (text === undefined) {
      let json: string;
      if (m.raw !== undefined) json = m.raw;
      else {
        try {
          json = JSON.stringify(m.jsonrpc) ?? '';
        } catch {
          json = jsonText(m.jsonrpc);
        }
      }
      text = `${m.method ?? ''}\n${m.name ?? ''}\n${json}`.toLowerCase();
      this.searchText[m.seq] = text;
    }
    return text;
  }

  // ---- the lists ----------------------------------------------------------------------------

  /** See `TimelineStore.visibleRows`. */
  rows(filters: Filters): Row[] {
    const version = this.store.version;
    const last = this.lastVisible;
    if (last && last.filters === filters && last.version === version) return last.rows;
    const key = filtersKey(filters);
    let list = this.flatCache.get(key);
    if (!list || list.version !== version) {
      list = this.computeList(filters, key, list);
      this.flatCache.delete(key);
      this.flatCache.set(key, list);
      if (this.flatCache.size > 6) this.flatCache.delete(this.flatCache.keys().next().value!);
    }
    list.filters = filters;
    this.lastVisible = list;
    return list.rows;
  }

  /** Index of a row in `rows(filters)`, or -1 (memoized per list). */
  indexOf(filters: Filters, key: string): number {
    const rows = this.rows(filters);
    const list = this.lastVisible!;
    if (!list.index) {
      const index = new Map<string, number>();
      for (let i = 0; i < rows.length; i++) index.set(rows[i].key, i);
      list.index = index;
    }
    return list.index.get(key) ?? -1;
  }

  /** Lowest top-level index touched after `version` (0: unknown, recompute all; Infinity: nothing). */
  private dirtyFrom(version: number): number {
    if (version < this.touchBase) return 0;
    let top = Infinity;
    for (let i = this.touchLog.length - 1; i >= 0; i--) {
      const t = this.touchLog[i];
      if (t.version <= version) break;
      if (t.top < top) top = t.top;
    }
    return top;
  }

  private computeList(f: Filters, key: string, previous: FlatList | undefined): FlatList {
    const empty = isEmptyFilters(f);
    let fid = 0;
    if (!empty) {
      fid = this.filterIds.get(key) ?? 0;
      if (fid === 0) {
        if (this.filterIds.size > 256) this.filterIds.clear();
        fid = ++filterSerial;
        this.filterIds.set(key, fid);
      }
    }
    // A pending call's waiting time grows with the clock: latency filters are recomputed in full.
    const timeDependent = f.minLatencyMs > 0;
    let from = 0;
    if (previous && !timeDependent) {
      from = this.dirtyFrom(previous.version);
      if (from === Infinity) return { ...previous, version: this.store.version, index: previous.index };
    }
    let out: Row[];
    let topPos: number[];
    if (previous && from > 0) {
      const keep = Math.min(from, previous.topPos.length);
      const cut = keep < previous.topPos.length ? previous.topPos[keep] : previous.rows.length;
      out = previous.rows.slice(0, cut);
      topPos = previous.topPos.slice(0, keep);
      from = keep;
    } else {
      // Typing more of a search: only the rows that matched the shorter text can match.
      const narrowed = !timeDependent ? this.narrowedSearch(f, key) : undefined;
      if (narrowed) return narrowed;
      out = [];
      topPos = [];
      from = 0;
    }
    const rows = this.store.topLevelRows();
    const filter = empty ? undefined : prepareFilters(f);
    for (let i = from; i < rows.length; i++) {
      topPos.push(out.length);
      const r = rows[i];
      if (!filter || this.matches(r, filter, fid)) out.push(r);
      if (r.type === 'call' && r.children.length > 0) this.pushChildren(r, out, filter, fid, 0);
    }
    return { version: this.store.version, filters: f, key, rows: out, topPos };
  }

  /**
   * If a list for the same filters with a shorter search text (contained in this one) is current,
   * the new list is that one's rows that still match — no need to look at every row again.
   */
  private narrowedSearch(f: Filters, key: string): FlatList | undefined {
    const terms = sessionTerms(f.text);
    const needle = terms.rest.trim().toLowerCase();
    if (needle === '') return undefined;
    const fid = this.filterIds.get(key)!;
    for (const list of this.flatCache.values()) {
      if (list.version !== this.store.version || list.key === key) continue;
      const g = list.filters;
      // `session:` terms are not text: only the same sessions narrow (session:s1 → session:s12 does not).
      const was = sessionTerms(g.text);
      if (was.sessions.join('\u0000') !== terms.sessions.join('\u0000')) continue;
      const old = was.rest.trim().toLowerCase();
      if (old === '' || !needle.includes(old)) continue;
      if (filtersKey({ ...g, text: f.text }) !== key) continue;
      // topPos must be rebuilt: walk the old rows, tracking top-level boundaries.
      const out: Row[] = [];
      const prepared = prepareFilters(f);
      for (const r of list.rows) if (this.matches(r, prepared, fid)) out.push(r);
      return { version: this.store.version, filters: f, key, rows: out, topPos: this.topPositions(out) };
    }
    return undefined;
  }

  /** For each top-level row index, the position in `rows` where its subtree starts (or would start). */
  private topPositions(out: Row[]): number[] {
    const top = this.store.topLevelRows();
    const topPos: number[] = new Array(top.length);
    let p = 0;
    for (let i = 0; i < top.length; i++) {
      while (p < out.length && (this.topIndex.get(out[p].key) ?? 0) < i) p++;
      topPos[i] = p;
    }
    return topPos;
  }

  private pushChildren(call: CallRow, out: Row[], f: PreparedFilters | undefined, fid: number, depth: number): void {
    if (depth > 16) return;
    for (const key of call.children) {
      const child = this.store.row(key);
      if (!child) continue;
      if (!f || this.matches(child, f, fid)) out.push(child);
      if (child.type === 'call' && child.children.length > 0) this.pushChildren(child, out, f, fid, depth + 1);
    }
  }

  private matches(row: Row, f: PreparedFilters, fid: number): boolean {
    const memo = row as Row & MatchMemo;
    const rev = row.rev ?? 0;
    if (memo._fid === fid && memo._frev === rev) return memo._fok;
    const ok = matchesPrepared(row, f, this.store);
    // A pending call's latency grows with time: do not memoize it under a latency filter.
    if (!(f.minLatencyMs > 0 && row.type === 'call' && row.status === 'pending')) {
      memo._fid = fid;
      memo._frev = rev;
      memo._fok = ok;
    }
    return ok;
  }
}
