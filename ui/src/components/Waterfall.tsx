/**
 * Waterfall: calls as bars from request to response on a shared time axis, on rows of streams.
 * POST response streams that follow one another share a row (packed like a browser's network
 * waterfall: only concurrent streams stack); the GET stream, the legacy SSE stream, POST JSON
 * and stdio have rows of their own (see `packWaterfall`). Calls that overlap within a row get
 * sub-tracks. The axis spans what is shown: a closed session ends at its last event, an open one
 * runs on to now (`waterfallAxis`). Only rows in view and bars inside the visible time window
 * are rendered.
 */
import './Waterfall.css';
import { useCallback, useLayoutEffect, useMemo, useRef, useState, type WheelEvent as ReactWheelEvent } from 'react';
import type { TimelineStore } from '../state/store.js';
import type { Bar, Lane } from '../state/types.js';
import { formatMs, plural } from '../state/format.js';
import { fitView, laneTitle, packWaterfall, waterfallAxis, type PackedLane } from '../state/waterfall.js';
import { useNow } from '../state/use-store.js';
import { escapeInvisible } from '../state/visible-text.js';
import { Vis } from './VisibleText.js';
import { useElementSize } from './use-element-size.js';

const MIN_LABEL_W = 150;
const MAX_LABEL_W = 420;
const TRACK_H = 16;
const LANE_PAD = 6;
const AXIS_H = 26;
const MAX_TRACKS = 12;
const MIN_BAR_W = 2;
const MAX_ZOOM = 2000;
/** Right-hand margin of the plot. */
const PLOT_PAD = 24;
/** Rough advance widths (px per character) of the label column (11.5px mono) and bar labels (600 9.5px sans). */
const LANE_CHAR_W = 7;
const BAR_CHAR_W = 5.9;
/** An outside label needs at least this much room after its bar. */
const MIN_LABEL_ROOM = 36;

interface LaneLayout {
  lane: PackedLane;
  top: number;
  height: number;
}

export interface WaterfallProps {
  store: TimelineStore;
  /** '' = all sessions. */
  sessionId: string;
  /** Store version: recompute when it changes. */
  version: number;
  selectedKey?: string;
  onSelect(key: string): void;
  live?: boolean;
  /** Restrict to these row keys (the timeline's filtered rows), or undefined for all. */
  visibleKeys?: ReadonlySet<string>;
}

/** A bar's label, and the shorter one to fall back on: a tool call's tool name alone. */
function labelTexts(label: string): string[] {
  return label.startsWith('tools/call ') ? [label, label.slice('tools/call '.length)] : [label];
}

/** Characters a label takes on screen: each invisible character is a `⟨U+202E⟩` badge. */
const shownLength = (text: string) => escapeInvisible(text).length;

/** A step of 1/2/5 × 10^k ms giving ticks at least `minPx` apart. */
function tickStep(pxPerMs: number, minPx = 90): number {
  const raw = minPx / Math.max(pxPerMs, 1e-9);
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

export function Waterfall({ store, sessionId, version, selectedKey, onSelect, live = true, visibleKeys }: WaterfallProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const size = useElementSize(scrollRef);
  const [scroll, setScroll] = useState({ left: 0, top: 0 });
  const [zoom, setZoom] = useState(1);
  /** A horizontal scroll position to apply once the next render has the new zoom. */
  const pendingLeft = useRef<number | undefined>(undefined);

  const wf = useMemo(() => store.waterfall(sessionId), [store, sessionId, version]);
  const packed = useMemo(() => packWaterfall(wf, { visibleKeys, maxTracks: MAX_TRACKS }), [wf, visibleKeys]);
  const layout = useMemo(() => {
    const out: LaneLayout[] = [];
    const laneOfBar = new Map<string, number>();
    let top = 0;
    let calls = 0;
    let turns = 0;
    let streams = 0;
    for (const lane of packed) {
      const height = lane.tracks * TRACK_H + LANE_PAD;
      for (const { bar } of lane.bars) {
        laneOfBar.set(bar.key, out.length);
        // A model turn's bar is no MCP call: counted apart.
        if (bar.model) turns += 1;
        else calls += 1;
      }
      streams += lane.streams.length;
      out.push({ lane, top, height });
      top += height;
    }
    return { lanes: out, totalHeight: top, laneOfBar, calls, turns, streams };
  }, [packed]);
  const hasPending = useMemo(() => packed.some((l) => l.bars.some((b) => b.bar.end === undefined)), [packed]);
  const clock = store.lastTs;
  // Closed sessions end where they ended: no clock to run.
  const closed = useMemo(() => waterfallAxis(wf, store.sessions, clock).closed, [wf, store, clock]);
  const ticking = live && hasPending && !closed;
  const now = useNow(250, ticking);
  const axis = waterfallAxis(wf, store.sessions, clock, ticking ? now : undefined);

  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (el) setScroll({ left: el.scrollLeft, top: el.scrollTop });
  }, []);

  // The label column is as wide as its longest label needs, up to 28 % of the view (the rest is the plot's).
  const labelNeed = useMemo(() => {
    let chars = 0;
    for (const { lane } of layout.lanes) {
      const n =
        shownLength(lane.label) +
        (lane.call ? shownLength(lane.call) + 1 : 0) +
        (!sessionId && lane.sessionId ? shownLength(lane.sessionId) + 3 : 0);
      if (n > chars) chars = n;
    }
    return 22 + chars * LANE_CHAR_W;
  }, [layout, sessionId]);
  const width = size.w || 1000;
  const LABEL_W = Math.round(Math.min(Math.max(MIN_LABEL_W, labelNeed), Math.max(MIN_LABEL_W, Math.min(MAX_LABEL_W, width * 0.28))));
  const start = axis.start;
  const end = axis.end;
  const duration = end - start;
  const viewW = width - LABEL_W - PLOT_PAD;
  const plotW = Math.max(200, viewW * zoom);
  const pxPerMs = plotW / duration;
  const x = (t: number) => LABEL_W + (t - start) * pxPerMs;

  // Visible window.
  const viewH = size.h || 600;
  const winTop = scroll.top - AXIS_H;
  const winBottom = scroll.top + viewH;
  const t0 = start + (scroll.left - 40) / pxPerMs;
  const t1 = start + (scroll.left + width - LABEL_W + 40) / pxPerMs;

  const visibleLanes = useMemo(() => {
    // Binary search the first lane whose bottom is below winTop.
    const lanes = layout.lanes;
    let lo = 0;
    let hi = lanes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (lanes[mid].top + lanes[mid].height < winTop - 200) lo = mid + 1;
      else hi = mid;
    }
    const out: LaneLayout[] = [];
    for (let i = lo; i < lanes.length && lanes[i].top < winBottom + 200; i++) out.push(lanes[i]);
    return out;
  }, [layout, winTop, winBottom]);

  const step = tickStep(pxPerMs);
  const ticks: number[] = [];
  const firstTick = Math.max(0, Math.floor((t0 - start) / step) * step);
  for (let t = firstTick; start + t <= Math.min(end, t1) && ticks.length < 200; t += step) ticks.push(t);

  // Zoom changes scroll after the render that widens the canvas.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const left = pendingLeft.current;
    if (!el || left === undefined) return;
    pendingLeft.current = undefined;
    el.scrollLeft = Math.max(0, left);
    setScroll({ left: el.scrollLeft, top: el.scrollTop });
  });

  /** Shows the window starting at time `from` at zoom `next`. */
  const showView = (next: number, from: number) => {
    const el = scrollRef.current;
    const left = ((from - start) * Math.max(200, viewW * next)) / duration;
    if (next === zoom && el) {
      el.scrollLeft = Math.max(0, left);
      setScroll({ left: el.scrollLeft, top: el.scrollTop });
      return;
    }
    pendingLeft.current = left;
    setZoom(next);
  };

  const zoomBy = (factor: number, anchorClientX?: number) => {
    const el = scrollRef.current;
    const next = Math.max(1, Math.min(MAX_ZOOM, zoom * factor));
    if (!el || next === zoom) {
      setZoom(next);
      return;
    }
    const rect = el.getBoundingClientRect();
    const anchorX = anchorClientX !== undefined ? anchorClientX - rect.left - LABEL_W : (el.clientWidth - LABEL_W) / 2;
    const tAnchor = start + (el.scrollLeft + anchorX) / pxPerMs;
    const newPx = Math.max(200, viewW * next) / duration;
    showView(next, tAnchor - anchorX / newPx);
  };

  const onWheel = (e: ReactWheelEvent<HTMLDivElement>) => {
    if (!e.ctrlKey && !e.metaKey) return;
    e.preventDefault();
    zoomBy(e.deltaY < 0 ? 1.25 : 0.8, e.clientX);
  };

  // Fit: the calls drawn fill the view. Enabled whenever the view shows something else.
  const fit = fitView(packed, axis, MAX_ZOOM);
  const fitLeft = ((fit.from - start) * Math.max(200, viewW * fit.zoom)) / duration;
  const fitted = Math.abs(zoom - fit.zoom) <= fit.zoom * 0.01 && Math.abs(scroll.left - fitLeft) <= 2;

  // Reveal the selection when it changes (keyboard, a row picked elsewhere, a shared link).
  const revealRef = useRef({ layout, x, LABEL_W });
  revealRef.current = { layout, x, LABEL_W };
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el || selectedKey === undefined) return;
    const { layout: lay, x: xOf, LABEL_W: labelW } = revealRef.current;
    const i = lay.laneOfBar.get(selectedKey);
    if (i === undefined) return;
    const l = lay.lanes[i];
    const top = AXIS_H + l.top;
    const bottom = top + l.height;
    if (top - AXIS_H < el.scrollTop) el.scrollTop = Math.max(0, top - AXIS_H - 8);
    else if (bottom > el.scrollTop + el.clientHeight) el.scrollTop = bottom - el.clientHeight + 8;
    const bar = l.lane.bars.find((b) => b.bar.key === selectedKey)?.bar;
    if (bar) {
      const left = xOf(bar.start);
      const plotLeft = el.scrollLeft + labelW;
      const plotRight = el.scrollLeft + el.clientWidth;
      if (left < plotLeft || left > plotRight - 20) el.scrollLeft = Math.max(0, left - labelW - (el.clientWidth - labelW) / 4);
    }
    setScroll({ left: el.scrollLeft, top: el.scrollTop });
  }, [selectedKey]);

  const nowX = ticking ? x(now) : undefined;

  return (
    <div className="waterfall">
      <div className="wf-toolbar">
        <span className="wf-summary" data-testid="waterfall-summary">
          {layout.lanes.length} lanes · {layout.streams} streams · {layout.calls} calls
          {layout.turns > 0 ? ` · ${plural(layout.turns, 'model turn')}` : ''} · {formatMs(duration)}
        </span>
        <span className="wf-legend">
          <i className="lg st-ok" /> ok <i className="lg st-error" /> error <i className="lg st-tool-error" /> tool error{' '}
          <i className="lg st-cancelled" /> cancelled <i className="lg st-pending" /> pending <i className="lg-tick" /> progress
        </span>
        <span className="spacer" />
        <span className="btn-group">
          <button type="button" className="btn btn-sm" onClick={() => zoomBy(0.5)} disabled={zoom <= 1} title="Zoom out (Ctrl + wheel)">
            −
          </button>
          <button
            type="button"
            className="btn btn-sm"
            data-testid="waterfall-fit"
            onClick={() => showView(fit.zoom, fit.from)}
            disabled={fitted || layout.calls + layout.turns === 0}
            title="Fit the calls shown to the view"
          >
            Fit
          </button>
          <button type="button" className="btn btn-sm" onClick={() => zoomBy(2)} disabled={zoom >= MAX_ZOOM} title="Zoom in (Ctrl + wheel)">
            +
          </button>
        </span>
      </div>
      <div className="wf-scroll" ref={scrollRef} onScroll={onScroll} onWheel={onWheel} data-testid="waterfall-scroll">
        <div
          className="wf-canvas"
          style={{ width: LABEL_W + plotW + PLOT_PAD, height: AXIS_H + layout.totalHeight, ['--wf-label-w' as string]: `${LABEL_W}px` }}
        >
          <div
            className="wf-axis"
            data-testid="waterfall-axis"
            data-start={start}
            data-end={end}
            style={{ width: LABEL_W + plotW + PLOT_PAD }}
          >
            <div className="wf-axis-label">{sessionId ? `session ${sessionId}` : 'all sessions'}</div>
            {ticks.map((t) => (
              <div key={t} className="wf-tick" style={{ left: x(start + t) }}>
                <span>{t === 0 ? '0' : formatMs(t)}</span>
              </div>
            ))}
          </div>
          <div className="wf-body" style={{ height: layout.totalHeight }}>
            {ticks.map((t) => (
              <div key={t} className="wf-grid" style={{ left: x(start + t) }} />
            ))}
            {nowX !== undefined ? <div className="wf-now" style={{ left: nowX }} title="now" /> : null}
            {visibleLanes.map((l) => (
              <WaterfallLane
                key={l.lane.key}
                layout={l}
                showSession={!sessionId}
                x={x}
                pxPerMs={pxPerMs}
                t0={t0}
                t1={t1}
                end={end}
                labelRight={LABEL_W}
                plotRight={LABEL_W + plotW}
                selectedKey={selectedKey}
                store={store}
                onSelect={onSelect}
              />
            ))}
            {layout.lanes.length === 0 ? <div className="wf-empty">No calls to draw yet.</div> : null}
          </div>
        </div>
      </div>
    </div>
  );
}

interface LaneProps {
  layout: LaneLayout;
  showSession: boolean;
  x(t: number): number;
  pxPerMs: number;
  t0: number;
  t1: number;
  /** Axis end: where open calls and streams are drawn to. */
  end: number;
  /** The plot's left and right edges (px). */
  labelRight: number;
  plotRight: number;
  selectedKey?: string;
  store: TimelineStore;
  onSelect(key: string): void;
}

function WaterfallLane({
  layout: l,
  showSession,
  x,
  pxPerMs,
  t0,
  t1,
  end,
  labelRight,
  plotRight,
  selectedKey,
  store,
  onSelect,
}: LaneProps) {
  const { lane } = l;
  // Bars in the visible window with their geometry; a label goes inside a bar wide enough for
  // it, else after it when there is room before the next bar on its track, else before it when
  // there is room after the previous one (the last bar of a row, near the axis end).
  const drawn: { bar: Bar; track: number; left: number; width: number }[] = [];
  for (const { bar, track } of lane.bars) {
    const barEnd = bar.end ?? end;
    if (barEnd < t0 || bar.start > t1) continue;
    drawn.push({ bar, track, left: x(bar.start), width: Math.max(MIN_BAR_W, (Math.max(barEnd, bar.start) - bar.start) * pxPerMs) });
  }
  const nextLeft = new Array<number>(drawn.length).fill(plotRight);
  const lastOnTrack = new Map<number, number>();
  for (let i = 0; i < drawn.length; i++) {
    const prev = lastOnTrack.get(drawn[i].track);
    if (prev !== undefined) nextLeft[prev] = drawn[i].left;
    lastOnTrack.set(drawn[i].track, i);
  }
  // Left to right per track: what the previous bar and its label took.
  const usedRight = new Map<number, number>();
  const labels = drawn.map(({ bar, track, left, width }, i): BarProps['label'] => {
    const taken = usedRight.get(track) ?? labelRight;
    usedRight.set(track, left + width);
    // Nested calls are thin bars over their parent's: their names are in their tooltips.
    if (bar.depth > 0) return undefined;
    const inside = width - 10;
    const after = nextLeft[i] - (left + width) - 8;
    const before = left - taken - 8;
    // The whole label where it fits (inside, after, before), else the tool's name alone, else
    // the widest room there is.
    let label: BarProps['label'];
    for (const text of labelTexts(bar.label)) {
      const w = shownLength(text) * BAR_CHAR_W;
      if (inside >= w) return { side: 'inside', text, width: inside };
      if (after >= w) label = { side: 'after', text, width: w + 2 };
      else if (before >= w) label = { side: 'before', text, width: w + 2 };
      if (label) break;
    }
    if (!label) {
      const most = Math.max(inside, after, before);
      if (most < MIN_LABEL_ROOM) return undefined;
      const text = labelTexts(bar.label).at(-1)!;
      label =
        most === inside
          ? { side: 'inside', text, width: inside }
          : most === after
            ? { side: 'after', text, width: after }
            : { side: 'before', text, width: before };
    }
    if (label.side === 'after') usedRight.set(track, left + width + 4 + label.width);
    return label;
  });
  return (
    <div
      className={`wf-lane wf-kind-${lane.kind}`}
      data-testid="waterfall-lane"
      data-lane={lane.key}
      data-kind={lane.kind}
      data-streams={lane.streams.length}
      style={{ top: l.top, height: l.height }}
    >
      <div className="wf-lane-label" title={escapeInvisible(laneTitle(lane), { multiline: true })}>
        {showSession && lane.sessionId ? (
          <span className="tag">
            <Vis text={lane.sessionId} />
          </span>
        ) : null}
        <span className="wf-lane-text">
          <Vis text={lane.label} />
          {lane.call ? (
            <span className="wf-lane-title">
              {' '}
              <Vis text={lane.call} />
            </span>
          ) : null}
        </span>
      </div>
      {lane.streams.map((s) =>
        s.carrier && s.carrier !== 'post-json' && s.start > 0 ? <LaneExtent key={s.key} lane={s} x={x} end={end} t0={t0} t1={t1} /> : null,
      )}
      {drawn.map(({ bar, track, left, width }, i) => {
        const top = LANE_PAD / 2 + track * TRACK_H;
        return (
          <WaterfallBar
            key={bar.key}
            bar={bar}
            left={left}
            width={width}
            top={top}
            label={labels[i]}
            selected={bar.key === selectedKey}
            store={store}
            pxPerMs={pxPerMs}
            onSelect={onSelect}
            elapsed={(bar.end ?? end) - bar.start}
          />
        );
      })}
    </div>
  );
}

interface BarProps {
  bar: Bar;
  left: number;
  width: number;
  top: number;
  /** Its label (the call, or its tool's name alone) and where it goes: inside the bar, beside it (at most so wide), or nowhere. */
  label: { side: 'inside' | 'after' | 'before'; text: string; width: number } | undefined;
  selected: boolean;
  store: TimelineStore;
  pxPerMs: number;
  elapsed: number;
  onSelect(key: string): void;
}

function WaterfallBar({ bar, left, width, top, label, selected, store, pxPerMs, elapsed, onSelect }: BarProps) {
  const row = store.row(bar.key);
  const progress = row?.type === 'call' ? row.progress : [];
  const nested = bar.depth > 0;
  const last = progress.length ? progress[progress.length - 1].progress : undefined;
  const title = `${escapeInvisible(bar.label)}\n${bar.status}${bar.end === undefined ? ' (running)' : ''} · ${formatMs(elapsed)}${
    last ? `\nprogress ${last.progress ?? ''}${last.total !== undefined ? `/${last.total}` : ''}` : ''
  }${bar.mark !== undefined ? `\nfirst token after ${formatMs(bar.mark - bar.start)}` : ''}`;
  const barTop = nested ? top + 4 : top + 1;
  const select = (e: { stopPropagation(): void }) => {
    e.stopPropagation();
    onSelect(bar.key);
  };
  return (
    <>
      <div
        className={`wf-bar st-${bar.status}${nested ? ' nested' : ''}${bar.model ? ' model' : ''}${selected ? ' selected' : ''}`}
        data-testid="waterfall-bar"
        data-key={bar.key}
        data-status={bar.status}
        style={{ left, width, top: barTop }}
        title={title}
        onClick={select}
      >
        {label?.side === 'inside' ? (
          <span className="wf-bar-label">
            <Vis text={label.text} />
          </span>
        ) : null}
        {bar.mark !== undefined && bar.mark >= bar.start ? (
          // The wait for the first token, shaded from the bar's start (under its label, which stays readable).
          <i
            className="wf-ttft"
            data-testid="waterfall-ttft"
            style={{ width: Math.max(0, Math.min(width, (bar.mark - bar.start) * pxPerMs)) }}
          />
        ) : null}
        {progress.map((p) => (
          <i key={p.seq} className="wf-ptick" style={{ left: Math.max(0, Math.min(width - 1, (p.ts - bar.start) * pxPerMs)) }} />
        ))}
      </div>
      {label && label.side !== 'inside' ? (
        <span
          className={`wf-bar-beside ${label.side}${selected ? ' selected' : ''}`}
          data-testid="waterfall-bar-label"
          data-key={bar.key}
          style={
            label.side === 'after'
              ? { left: left + width + 4, top: barTop, maxWidth: label.width }
              : { left: left - 4 - label.width, top: barTop, width: label.width }
          }
          title={title}
          onClick={select}
        >
          <Vis text={label.text} />
        </span>
      ) : null}
    </>
  );
}

/** The lifetime of a stream (request sent → stream ended, or the axis end): a faint band. */
function LaneExtent({ lane, x, end: axisEnd, t0, t1 }: { lane: Lane; x: (t: number) => number; end: number; t0: number; t1: number }) {
  const end = lane.end ?? Math.max(axisEnd, lane.start);
  if (end < t0 || lane.start > t1) return null;
  const left = x(lane.start);
  return (
    <div
      className={`wf-extent${lane.end === undefined ? ' open' : ''}`}
      style={{ left, width: Math.max(1, x(end) - left) }}
      title={`${escapeInvisible(lane.label)}: stream ${lane.end === undefined ? 'open' : `open for ${formatMs(end - lane.start)}`}`}
    />
  );
}
