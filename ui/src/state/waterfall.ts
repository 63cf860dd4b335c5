/**
 * The waterfall's data and layout, apart from the store and from React.
 *
 * - `WaterfallBuilder` turns the store's calls into streams and bars (`Waterfall`): one stream per
 *   HTTP stream that carried calls (each POST response stream, the GET stream, the legacy SSE
 *   stream), a shared "POST JSON" stream per session for JSON answers, one per stdio session. It
 *   keeps answered bars and stream objects between computations, so a live batch only rebuilds
 *   what changed. The store owns one and memoizes its result per version.
 * - `packWaterfall` lays the streams out in rows the way a browser's network waterfall does:
 *   POST streams of a session that do not overlap in time share a row (greedy interval packing,
 *   first fit in start order), so sequential calls read left to right on one row and only
 *   concurrent ones stack; the GET stream, the legacy SSE stream, POST JSON and stdio keep rows of
 *   their own. Calls that overlap within a row get sub-tracks.
 * - `waterfallAxis` says what the time axis spans: from the first thing shown to the last, where
 *   a closed session ends at its last event and an open one may run on to now.
 */
import type { Carrier, ExchangeInfo, MessageEvent, SessionInfo } from '../../../proxy/core/model/events.js';
import type { Bar, CallRow, Lane, Row, TurnRow, Waterfall } from './types.js';
import { rowTitle } from './format.js';
import { withModelTurns } from './model-waterfall.js';

const SSE_CARRIERS: ReadonlySet<Carrier> = new Set<Carrier>(['post-sse', 'get-sse', 'legacy-sse']);

/** What the builder reads from the store. */
export interface WaterfallSource {
  readonly sessions: ReadonlyMap<string, SessionInfo>;
  readonly exchanges: ReadonlyMap<string, ExchangeInfo>;
  /** Every call (top-level and nested), in request order. */
  calls(): Iterable<CallRow>;
  /** Session id → GET / legacy SSE streams that carried messages, in first-seen order. */
  streamExchanges(): ReadonlyMap<string, ReadonlySet<string>>;
  /** The messages an exchange carried, in seq order. */
  messagesOf(exchangeId: string): readonly MessageEvent[] | undefined;
  depthOf(row: Row): number;
  /** Model turns' rows: drawn in lanes of their own (model-waterfall.ts). */
  turns?(): readonly TurnRow[];
}

/** A stream and the bookkeeping of one computation. */
interface LaneSlot {
  key: string;
  lane: Lane;
  /** Computation that last used it. */
  stamp: number;
  /** Its exchange was upserted since the lane object was made. */
  stale: boolean;
  /** Extent of its bars in the current computation (lanes without an exchange). */
  extStart: number;
  extEnd: number;
  open: boolean;
}

export class WaterfallBuilder {
  private cache = new Map<string, { version: number; value: Waterfall }>();
  /** Bars of answered calls, reused while the call's rev is unchanged (by request seq). */
  private barCache = new Map<number, { rev: number; bar: Bar; slot: LaneSlot }>();
  /** Streams by key, reused while their exchange upsert is unchanged. */
  private laneCache = new Map<string, LaneSlot>();
  private stamp = 0;

  constructor(private readonly src: WaterfallSource) {}

  /** Forgets everything (the store rebuilt its derived state). */
  reset(): void {
    this.cache.clear();
    this.barCache.clear();
    this.laneCache.clear();
  }

  /** An exchange was upserted: its stream object is rebuilt on next use. */
  exchangeChanged(id: string): void {
    const slot = this.laneCache.get(id);
    if (slot) slot.stale = true;
  }

  /**
   * Calls as bars, each on the stream that carried the server's side of it (the response of a
   * client request; the request of a server→client request), or on its request's exchange while
   * pending. `sessionId` '' = all sessions. Memoized per `version`.
   */
  waterfall(sessionId: string, version: number): Waterfall {
    const cached = this.cache.get(sessionId);
    if (cached && cached.version === version) return cached.value;
    const value = withModelTurns(this.compute(sessionId), this.src.turns?.() ?? [], sessionId);
    if (this.cache.size > 8) this.cache.clear();
    this.cache.set(sessionId, { version, value });
    return value;
  }

  private compute(sessionId: string): Waterfall {
    const src = this.src;
    const stamp = ++this.stamp;
    const used: LaneSlot[] = [];
    const claim = (slot: LaneSlot): LaneSlot => {
      if (slot.stale) this.refreshSlot(slot);
      if (slot.stamp !== stamp) {
        slot.stamp = stamp;
        slot.extStart = Infinity;
        slot.extEnd = -Infinity;
        slot.open = false;
        used.push(slot);
      }
      return slot;
    };
    const laneFor = (m: MessageEvent): LaneSlot => {
      const sid = m.sessionId;
      const session = src.sessions.get(sid);
      if (m.carrier === 'stdio' || session?.transport === 'stdio') return this.plainLane(sid, sid, 'stdio', 'stdio');
      if (m.carrier === 'post-json') return this.plainLane(`post-json:${sid}`, sid, 'POST JSON', 'post-json');
      const xid = m.exchangeId;
      if (xid === undefined) return this.plainLane(`other:${sid}`, sid, 'other', undefined);
      if (SSE_CARRIERS.has(m.carrier)) return this.streamLane(xid, sid, m.carrier);
      // A request in a POST body whose answer has not been seen: the exchange's own stream, if known.
      const x = src.exchanges.get(xid);
      if (x?.carrier && SSE_CARRIERS.has(x.carrier)) return this.streamLane(xid, sid, x.carrier);
      if (x?.carrier === 'post-json') return this.plainLane(`post-json:${sid}`, sid, 'POST JSON', 'post-json');
      if (session?.transport === 'legacy-sse') {
        const legacy = this.legacyStreamOf(sid);
        if (legacy !== undefined) return this.streamLane(legacy, sid, 'legacy-sse');
      }
      return this.streamLane(xid, sid, undefined);
    };

    const bars: Bar[] = [];
    let start = Infinity;
    let end = -Infinity;
    for (const call of src.calls()) {
      if (sessionId !== '' && call.sessionId !== sessionId) continue;
      const rev = call.rev ?? 0;
      let bar: Bar;
      let slot: LaneSlot;
      const cached = this.barCache.get(call.seq);
      if (cached && cached.rev === rev) {
        bar = cached.bar;
        slot = claim(cached.slot);
      } else {
        const serverSide = call.dir === 'c2s' ? call.response : call.request;
        slot = claim(laneFor(serverSide ?? call.request));
        const barEnd = call.response?.ts ?? (call.status === 'cancelled' ? call.cancel?.ts : undefined);
        let progress: number | undefined;
        for (let i = call.progress.length - 1; i >= 0; i--) {
          const p = call.progress[i].progress;
          if (p && typeof p.total === 'number' && p.total > 0) {
            progress = Math.max(0, Math.min(1, p.progress / p.total));
            break;
          }
        }
        bar = {
          key: call.key,
          lane: slot.key,
          start: call.request.ts,
          end: barEnd,
          status: call.status,
          label: rowTitle(call),
          depth: call.parentKey === undefined ? 0 : src.depthOf(call),
          sessionId: call.sessionId,
          progress,
        };
        // A pending call's lane can still move (its exchange's carrier becomes known): only answered bars are kept.
        if (bar.end !== undefined) this.barCache.set(call.seq, { rev, bar, slot });
      }
      bars.push(bar);
      const last = bar.end ?? bar.start;
      if (bar.start < start) start = bar.start;
      if (last > end) end = last;
      if (slot.lane.exchange === undefined) {
        if (bar.start < slot.extStart) slot.extStart = bar.start;
        if (last > slot.extEnd) slot.extEnd = last;
        if (bar.end === undefined) slot.open = true;
      }
    }
    // Streams that carried messages but no call of their own (e.g. a GET stream of notifications).
    for (const [sid, set] of src.streamExchanges()) {
      if (sessionId !== '' && sid !== sessionId) continue;
      for (const xid of set) {
        const x = src.exchanges.get(xid);
        claim(this.streamLane(xid, sid, x?.carrier && SSE_CARRIERS.has(x.carrier) ? x.carrier : undefined));
      }
    }
    const lanes: Lane[] = new Array(used.length);
    for (let i = 0; i < used.length; i++) {
      const slot = used[i];
      let l = slot.lane;
      if (l.exchange === undefined) {
        // Lanes without an exchange (POST JSON, stdio…) span their bars.
        if (Number.isFinite(slot.extStart)) {
          const laneEnd = slot.open ? undefined : slot.extEnd;
          if (l.start !== slot.extStart || l.end !== laneEnd) l = slot.lane = { ...l, start: slot.extStart, end: laneEnd };
        } else if (!Number.isFinite(l.start)) {
          const first = src.messagesOf(l.key)?.[0];
          if (first) l = slot.lane = { ...l, start: first.ts };
        }
      }
      if (Number.isFinite(l.start) && l.start < start) start = l.start;
      if (l.end !== undefined && l.end > end) end = l.end;
      lanes[i] = l;
    }
    const byStart = (a: Lane, b: Lane) => a.start - b.start || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
    let sorted = true;
    for (let i = 1; i < lanes.length && sorted; i++) if (byStart(lanes[i - 1], lanes[i]) > 0) sorted = false;
    if (!sorted) lanes.sort(byStart);
    if (!Number.isFinite(start)) return { lanes, bars, start: 0, end: 0 };
    // The last thing drawn, not the store's clock: a closed session's axis ends where it did
    // (`waterfallAxis` lets an open one run on to now).
    if (!(end >= start)) end = start;
    return { lanes, bars, start, end };
  }

  /** An exchange's upsert changed: rebuild its lane object (new identity) from the latest one. */
  private refreshSlot(slot: LaneSlot): void {
    slot.stale = false;
    if (!this.src.exchanges.has(slot.key)) return;
    const carrier = slot.lane.carrier === 'post-body' ? undefined : slot.lane.carrier;
    slot.lane = this.makeStreamLane(slot.key, slot.lane.sessionId ?? '', carrier);
  }

  private legacyStreamOf(sessionId: string): string | undefined {
    const src = this.src;
    const set = src.streamExchanges().get(sessionId);
    let found: string | undefined;
    if (set)
      for (const xid of set)
        if (src.exchanges.get(xid)?.carrier === 'legacy-sse' || src.messagesOf(xid)?.some((m) => m.carrier === 'legacy-sse')) found = xid;
    if (found !== undefined) return found;
    for (const x of src.exchanges.values()) if (x.sessionId === sessionId && x.carrier === 'legacy-sse') found = x.id;
    return found;
  }

  /** The lane of an exchange's stream (created on first use). */
  private streamLane(xid: string, sid: string, carrier: Carrier | undefined): LaneSlot {
    let slot = this.laneCache.get(xid);
    if (!slot) {
      slot = {
        key: xid,
        lane: this.makeStreamLane(xid, sid, carrier),
        stamp: 0,
        stale: false,
        extStart: Infinity,
        extEnd: -Infinity,
        open: false,
      };
      this.laneCache.set(xid, slot);
    } else if (carrier !== undefined && slot.lane.carrier !== carrier) {
      // A lane made before the stream was known (a pending POST) is upgraded once it is.
      slot.lane = this.makeStreamLane(xid, sid, carrier);
      slot.stale = false;
    }
    return slot;
  }

  private makeStreamLane(xid: string, sid: string, carrier: Carrier | undefined): Lane {
    const x = this.src.exchanges.get(xid);
    const c = carrier ?? (x?.carrier && x.carrier !== 'post-json' ? x.carrier : 'post-body');
    let label: string;
    switch (c) {
      case 'post-sse':
        label = `POST ${xid} (SSE)`;
        break;
      case 'get-sse':
        label = `GET ${xid} (SSE)${x?.resumes ? ` resumes ${x.resumes}` : ''}`;
        break;
      case 'legacy-sse':
        label = `legacy SSE ${xid}`;
        break;
      default:
        label = `${x?.method ?? 'POST'} ${xid}`;
    }
    return { key: xid, sessionId: x?.sessionId ?? sid, label, exchange: x, start: x?.startedAt ?? Infinity, end: x?.endedAt, carrier: c };
  }

  /** A lane that is not one exchange (POST JSON answers, a stdio session…). */
  private plainLane(key: string, sessionId: string, label: string, carrier: Carrier | undefined): LaneSlot {
    let slot = this.laneCache.get(key);
    if (!slot) {
      slot = {
        key,
        lane: { key, sessionId, label, start: Infinity, carrier },
        stamp: 0,
        stale: false,
        extStart: Infinity,
        extEnd: -Infinity,
        open: false,
      };
      this.laneCache.set(key, slot);
    }
    return slot;
  }
}

// ---- the time axis ----------------------------------------------------------------------------

export interface WaterfallAxis {
  start: number;
  end: number;
  /** Every session shown is closed: nothing runs on past `end`. */
  closed: boolean;
}

/**
 * What the time axis spans: from the first thing shown to the last. A closed session ends at its
 * last event (its last call, stream or close), however long ago that was; while a session shown is
 * open, the axis runs on to the latest event seen (`clock`) or, when `now` is given (a live view
 * with something still running), to now. Pending calls and open streams are drawn up to `end`.
 */
export function waterfallAxis(wf: Waterfall, sessions: ReadonlyMap<string, SessionInfo>, clock: number, now?: number): WaterfallAxis {
  const start = wf.start;
  let end = wf.end;
  let closed = wf.lanes.length > 0;
  const seen = new Set<string | undefined>();
  for (const l of wf.lanes) {
    if (seen.has(l.sessionId)) continue;
    seen.add(l.sessionId);
    const s = l.sessionId !== undefined ? sessions.get(l.sessionId) : undefined;
    if (!s || s.status !== 'closed') {
      closed = false;
      break;
    }
    if (s.endedAt !== undefined && s.endedAt > end) end = s.endedAt;
  }
  if (!closed) {
    if (clock > end) end = clock;
    if (now !== undefined && now > end) end = now;
  }
  if (!(end > start)) end = start + 1;
  return { start, end, closed };
}

// ---- packing ----------------------------------------------------------------------------------

/** Which streams may share a row: POST streams of one session do; every other stream keeps its own. */
export type LaneKind = 'post' | 'get' | 'legacy' | 'post-json' | 'stdio' | 'model' | 'other';

function laneKind(lane: Lane): LaneKind {
  if (lane.model) return 'model';
  switch (lane.carrier) {
    case 'post-sse':
    case 'post-body':
      return 'post';
    case 'get-sse':
      return 'get';
    case 'legacy-sse':
      return 'legacy';
    case 'post-json':
      return 'post-json';
    case 'stdio':
      return 'stdio';
    default:
      return 'other';
  }
}

export interface PackedBar {
  bar: Bar;
  /** Sub-track within its row (0 = top). */
  track: number;
}

/** One row of the waterfall: one stream, or several POST streams one after another. */
export interface PackedLane {
  /** Stable while the row's first stream is: that stream's key. */
  key: string;
  kind: LaneKind;
  sessionId?: string;
  /** Its streams, in start order. */
  streams: Lane[];
  /** Its bars in start order (a parent before the calls nested in it). */
  bars: PackedBar[];
  /** Sub-tracks used (at least 1). */
  tracks: number;
  /** Short text for the label column. */
  label: string;
  /** The call it is about, when it is one POST stream (shown after the label). */
  call?: string;
}

export interface PackOptions {
  /** Only bars with these keys (the timeline's filtered rows), or undefined for all. */
  visibleKeys?: ReadonlySet<string>;
  /** Sub-tracks per row at most; calls past it share the last one. Default 12. */
  maxTracks?: number;
}

const TITLE_LINES = 40;
const NO_BARS: readonly Bar[] = [];

/**
 * Rows for the waterfall: POST streams of a session that do not overlap in time share a row,
 * greedily (each stream goes on the first row of its session whose last stream ended by the time
 * it started, else on a new row), like Chrome DevTools' network waterfall; the GET stream, the
 * legacy SSE stream, POST JSON, stdio keep their own rows. A stream still open (or with a call
 * still pending) holds its row to the end. With `visibleKeys`, streams whose calls are all hidden
 * are left out (a GET stream that carries no call stays: it is the session's). Rows come in the
 * order of their first stream's start.
 */
export function packWaterfall(wf: Waterfall, options: PackOptions = {}): PackedLane[] {
  const { visibleKeys, maxTracks = 12 } = options;
  // Most streams carry one call: a bar, or an array once there are more.
  const barsByLane = new Map<string, Bar | Bar[]>();
  /** With filters: streams that carry calls (hidden when the filters hide all of them). */
  const carriesCalls = visibleKeys ? new Set<string>() : undefined;
  for (const b of wf.bars) {
    carriesCalls?.add(b.lane);
    if (visibleKeys && !visibleKeys.has(b.key)) continue;
    const had = barsByLane.get(b.lane);
    if (had === undefined) barsByLane.set(b.lane, b);
    else if (Array.isArray(had)) had.push(b);
    else barsByLane.set(b.lane, [had, b]);
  }
  const rows: { lane: PackedLane; bars: Bar[]; busyUntil: number }[] = [];
  /** The POST rows of each session, for first fit. */
  const groups = new Map<string, number[]>();
  for (const lane of wf.lanes) {
    const had = barsByLane.get(lane.key);
    const bars: readonly Bar[] = had === undefined ? NO_BARS : Array.isArray(had) ? had : [had];
    if (bars.length === 0 && carriesCalls?.has(lane.key)) continue;
    const kind = laneKind(lane);
    let from = Number.isFinite(lane.start) ? lane.start : Infinity;
    let until = lane.end ?? (lane.exchange !== undefined || lane.carrier === 'post-body' ? Infinity : -Infinity);
    for (const b of bars) {
      if (b.start < from) from = b.start;
      const e = b.end ?? Infinity;
      if (e > until) until = e;
    }
    if (!Number.isFinite(from)) from = wf.start;
    if (until < from) until = from;
    let row: (typeof rows)[number] | undefined;
    if (kind === 'post') {
      const group = lane.sessionId ?? '';
      let candidates = groups.get(group);
      if (!candidates) groups.set(group, (candidates = []));
      for (const i of candidates) {
        if (rows[i].busyUntil <= from) {
          row = rows[i];
          break;
        }
      }
      // No row free: a new one (made just below) joins the group.
      if (!row) candidates.push(rows.length);
    }
    if (!row) {
      row = {
        lane: { key: lane.key, kind, sessionId: lane.sessionId, streams: [], bars: [], tracks: 1, label: '' },
        bars: [],
        busyUntil: -Infinity,
      };
      rows.push(row);
    }
    row.lane.streams.push(lane);
    for (const b of bars) row.bars.push(b);
    if (until > row.busyUntil) row.busyUntil = until;
  }
  const out: PackedLane[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const { lane, bars } = rows[i];
    const byStart = (a: Bar, b: Bar) => a.start - b.start || a.depth - b.depth;
    for (let j = 1; j < bars.length; j++) {
      if (byStart(bars[j - 1], bars[j]) > 0) {
        bars.sort(byStart);
        break;
      }
    }
    const trackEnds: number[] = [];
    for (const bar of bars) {
      const end = bar.end ?? Infinity;
      let track = trackEnds.findIndex((e) => e <= bar.start);
      if (track < 0) {
        if (trackEnds.length < maxTracks) {
          track = trackEnds.length;
          trackEnds.push(end);
        } else {
          track = maxTracks - 1;
          trackEnds[track] = Math.max(trackEnds[track], end);
        }
      } else trackEnds[track] = end;
      lane.bars.push({ bar, track });
    }
    lane.tracks = Math.max(1, trackEnds.length);
    if (lane.streams.length === 1) {
      lane.label = lane.streams[0].label;
      if (lane.kind === 'post') lane.call = lane.bars.find((b) => b.bar.depth === 0)?.bar.label;
    } else {
      lane.label = `POST${lane.streams.every((st) => st.carrier === 'post-sse') ? ' (SSE)' : ''} ×${lane.streams.length}`;
    }
    out[i] = lane;
  }
  return out;
}

/** The tooltip of a row's label: its streams, one line each, with the calls they carried. */
export function laneTitle(lane: PackedLane): string {
  let title = titles.get(lane);
  if (title === undefined) titles.set(lane, (title = makeTitle(lane)));
  return title;
}

const titles = new WeakMap<PackedLane, string>();

function makeTitle(lane: PackedLane): string {
  const calls = new Map<string, string[]>();
  for (const { bar } of lane.bars) {
    if (bar.depth !== 0) continue;
    let list = calls.get(bar.lane);
    if (!list) calls.set(bar.lane, (list = []));
    list.push(bar.label);
  }
  const lines: string[] = lane.streams.length > 1 ? [`${lane.streams.length} POST streams, one after another:`] : [];
  for (const s of lane.streams) {
    if (lines.length >= TITLE_LINES) {
      lines.push(`… ${lane.streams.length - lane.streams.indexOf(s)} more`);
      break;
    }
    const list = calls.get(s.key) ?? [];
    if (lane.streams.length === 1 && list.length > 1) {
      // One stream with many calls (POST JSON, stdio, GET): a line per call name, counted.
      lines.push(s.label);
      const counts = new Map<string, number>();
      for (const l of list) counts.set(l, (counts.get(l) ?? 0) + 1);
      for (const [l, n] of counts) {
        if (lines.length >= TITLE_LINES) {
          lines.push('…');
          break;
        }
        lines.push(n > 1 ? `  ${l} ×${n}` : `  ${l}`);
      }
    } else lines.push(list.length > 0 ? `${s.label} · ${list.join(', ')}` : s.label);
  }
  return lines.join('\n');
}

// ---- fitting the view -------------------------------------------------------------------------

/** The time window a view shows: `zoom` (1 = the whole axis) and its left edge. */
export interface WaterfallView {
  zoom: number;
  /** Time at the plot's left edge. */
  from: number;
}

/**
 * The view that fits the calls drawn (first call start → last call end, open calls to `axis.end`)
 * with a little margin: what the Fit button shows. The whole axis (zoom 1) when the calls fill it
 * nearly already.
 */
export function fitView(lanes: readonly PackedLane[], axis: WaterfallAxis, maxZoom = 2000): WaterfallView {
  let first = Infinity;
  let last = -Infinity;
  for (const l of lanes) {
    for (const { bar } of l.bars) {
      if (bar.start < first) first = bar.start;
      const e = bar.end ?? axis.end;
      if (e > last) last = e;
    }
  }
  const duration = axis.end - axis.start;
  if (!Number.isFinite(first) || !(duration > 0)) return { zoom: 1, from: axis.start };
  const span = Math.max(last - first, duration / maxZoom, 1);
  const margin = span * 0.03;
  const from = Math.max(axis.start, first - margin);
  const to = Math.min(axis.end, last + margin);
  const zoom = Math.min(maxZoom, duration / Math.max(to - from, 1e-9));
  if (zoom < 1.05) return { zoom: 1, from: axis.start };
  return { zoom, from: Math.min(from, axis.end - duration / zoom) };
}
