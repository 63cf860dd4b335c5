/**
 * Waterfall: one lane per stream (each POST's response stream, the GET stream, the legacy SSE
 * stream, stdio), each call a bar from request to response on a shared time axis. Concurrent
 * calls in one lane are packed onto sub-tracks so overlap stays visible. Only lanes in view and
 * bars inside the visible time window are rendered.
 */
import { useCallback, useLayoutEffect, useMemo, useRef, useState, type WheelEvent as ReactWheelEvent } from 'react';
import type { TimelineStore } from '../state/store.js';
import type { Lane } from '../state/types.js';
import { formatMs } from '../state/format.js';
import { useNow } from '../state/use-store.js';
import { useElementSize } from './use-element-size.js';

const MAX_LABEL_W = 260;
const TRACK_H = 16;
const LANE_PAD = 6;
const AXIS_H = 26;
const MAX_TRACKS = 12;
const MIN_BAR_W = 2;

type WaterfallResult = ReturnType<TimelineStore['waterfall']>;
type Bar = WaterfallResult['bars'][number];

interface PlacedBar {
  bar: Bar;
  track: number;
}

interface LaneLayout {
  lane: Lane;
  top: number;
  height: number;
  bars: PlacedBar[];
  /** What the lane is about: the first top-level call on it (for POST streams). */
  title?: string;
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

function laneKeyOf(bar: Bar, lanes: Lane[]): string {
  const l = (bar as { lane: unknown }).lane;
  if (typeof l === 'number') return lanes[l]?.key ?? String(l);
  return String(l);
}

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

  const wf = useMemo(() => store.waterfall(sessionId), [store, sessionId, version]);
  const hasPending = useMemo(() => wf.bars.some((b) => b.end === undefined), [wf]);
  const now = useNow(250, live && hasPending);

  const layout = useMemo(() => {
    const byLane = new Map<string, Bar[]>();
    for (const b of wf.bars) {
      if (visibleKeys && !visibleKeys.has(b.key)) continue;
      const k = laneKeyOf(b, wf.lanes);
      let list = byLane.get(k);
      if (!list) byLane.set(k, (list = []));
      list.push(b);
    }
    const out: LaneLayout[] = [];
    let top = 0;
    for (const lane of wf.lanes) {
      const bars = byLane.get(lane.key) ?? [];
      if (visibleKeys && bars.length === 0) continue;
      bars.sort((a, b) => a.start - b.start || a.depth - b.depth);
      const trackEnds: number[] = [];
      const placed: PlacedBar[] = [];
      for (const bar of bars) {
        const end = bar.end ?? Number.POSITIVE_INFINITY;
        let track = trackEnds.findIndex((e) => e <= bar.start);
        if (track < 0) {
          if (trackEnds.length < MAX_TRACKS) {
            track = trackEnds.length;
            trackEnds.push(end);
          } else {
            track = MAX_TRACKS - 1;
            trackEnds[track] = Math.max(trackEnds[track], end);
          }
        } else trackEnds[track] = end;
        placed.push({ bar, track });
      }
      const height = Math.max(1, trackEnds.length) * TRACK_H + LANE_PAD;
      const perCall = lane.carrier === 'post-sse' || lane.carrier === 'post-body';
      const first = perCall ? bars.find((b) => b.depth === 0) : undefined;
      out.push({ lane, top, height, bars: placed, title: first?.label });
      top += height;
    }
    return { lanes: out, totalHeight: top };
  }, [wf, visibleKeys]);


  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (el) setScroll({ left: el.scrollLeft, top: el.scrollTop });
  }, []);

  // The lane-label column takes at most a third of a narrow view.
  const LABEL_W = Math.round(Math.max(150, Math.min(MAX_LABEL_W, (size.w || 1000) * 0.34)));
  const start = wf.start;
  const end = Math.max(wf.end, hasPending ? now : wf.end, start + 1);
  const duration = end - start;
  const viewW = (size.w || 1000) - LABEL_W - 24;
  const plotW = Math.max(200, viewW * zoom);
  const pxPerMs = plotW / duration;
  const x = (t: number) => LABEL_W + (t - start) * pxPerMs;

  // Visible window.
  const viewH = size.h || 600;
  const winTop = scroll.top - AXIS_H;
  const winBottom = scroll.top + viewH;
  const t0 = start + (scroll.left - 40) / pxPerMs;
  const t1 = start + (scroll.left + (size.w || 1000) - LABEL_W + 40) / pxPerMs;

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

  const zoomBy = (factor: number, anchorClientX?: number) => {
    const el = scrollRef.current;
    const next = Math.max(1, Math.min(2000, zoom * factor));
    if (!el || next === zoom) {
      setZoom(next);
      return;
    }
    const rect = el.getBoundingClientRect();
    const anchorX = anchorClientX !== undefined ? anchorClientX - rect.left - LABEL_W : (el.clientWidth - LABEL_W) / 2;
    const tAnchor = (el.scrollLeft + anchorX) / pxPerMs;
    setZoom(next);
    requestAnimationFrame(() => {
      const newPx = (viewW * next) / duration;
      el.scrollLeft = Math.max(0, tAnchor * newPx - anchorX);
    });
  };

  const onWheel = (e: ReactWheelEvent<HTMLDivElement>) => {
    if (!e.ctrlKey && !e.metaKey) return;
    e.preventDefault();
    zoomBy(e.deltaY < 0 ? 1.25 : 0.8, e.clientX);
  };

  const nowX = hasPending ? x(now) : undefined;

  return (
    <div className="waterfall">
      <div className="wf-toolbar">
        <span className="wf-summary">
          {layout.lanes.length} lanes · {wf.bars.length} calls · {formatMs(duration)}
        </span>
        <span className="wf-legend">
          <i className="lg st-ok" /> ok <i className="lg st-error" /> error <i className="lg st-tool-error" /> tool error <i className="lg st-cancelled" /> cancelled{' '}
          <i className="lg st-pending" /> pending <i className="lg-tick" /> progress
        </span>
        <span className="spacer" />
        <span className="btn-group">
          <button type="button" className="btn btn-sm" onClick={() => zoomBy(0.5)} disabled={zoom <= 1} title="Zoom out (Ctrl + wheel)">
            −
          </button>
          <button type="button" className="btn btn-sm" onClick={() => setZoom(1)} disabled={zoom === 1} title="Fit the whole session">
            Fit
          </button>
          <button type="button" className="btn btn-sm" onClick={() => zoomBy(2)} title="Zoom in (Ctrl + wheel)">
            +
          </button>
        </span>
      </div>
      <div className="wf-scroll" ref={scrollRef} onScroll={onScroll} onWheel={onWheel}>
        <div className="wf-canvas" style={{ width: LABEL_W + plotW + 24, height: AXIS_H + layout.totalHeight, ['--wf-label-w' as string]: `${LABEL_W}px` }}>
          <div className="wf-axis" style={{ width: LABEL_W + plotW + 24 }}>
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
              <div key={l.lane.key} className="wf-lane" data-testid="waterfall-lane" data-lane={l.lane.key} style={{ top: l.top, height: l.height }}>
                <div className="wf-lane-label" title={l.title ? `${l.lane.label} · ${l.title}` : l.lane.label}>
                  {!sessionId && l.lane.sessionId ? <span className="tag">{l.lane.sessionId}</span> : null}
                  <span className="wf-lane-text">
                    {l.lane.label}
                    {l.title ? <span className="wf-lane-title"> {l.title}</span> : null}
                  </span>
                </div>
                {l.lane.carrier && l.lane.carrier !== 'post-json' && l.lane.start > 0 ? (
                  <LaneExtent lane={l.lane} x={x} now={now} t0={t0} t1={t1} />
                ) : null}
                {l.bars.map(({ bar, track }) => {
                  const barEnd = bar.end ?? now;
                  if (barEnd < t0 || bar.start > t1) return null;
                  return (
                    <WaterfallBar
                      key={bar.key}
                      bar={bar}
                      left={x(bar.start)}
                      width={Math.max(MIN_BAR_W, (Math.max(barEnd, bar.start) - bar.start) * pxPerMs)}
                      top={LANE_PAD / 2 + track * TRACK_H}
                      selected={bar.key === selectedKey}
                      store={store}
                      pxPerMs={pxPerMs}
                      onSelect={onSelect}
                      elapsed={barEnd - bar.start}
                    />
                  );
                })}
              </div>
            ))}
            {layout.lanes.length === 0 ? <div className="wf-empty">No calls to draw yet.</div> : null}
          </div>
        </div>
      </div>
    </div>
  );
}

interface BarProps {
  bar: Bar;
  left: number;
  width: number;
  top: number;
  selected: boolean;
  store: TimelineStore;
  pxPerMs: number;
  elapsed: number;
  onSelect(key: string): void;
}

function WaterfallBar({ bar, left, width, top, selected, store, pxPerMs, elapsed, onSelect }: BarProps) {
  const row = store.row(bar.key);
  const progress = row?.type === 'call' ? row.progress : [];
  const nested = bar.depth > 0;
  const title = `${bar.label}\n${bar.status}${bar.end === undefined ? ' (running)' : ''} · ${formatMs(elapsed)}${
    progress.length ? `\nprogress ${progress[progress.length - 1].progress?.progress ?? ''}${progress[progress.length - 1].progress?.total !== undefined ? `/${progress[progress.length - 1].progress?.total}` : ''}` : ''
  }`;
  return (
    <div
      className={`wf-bar st-${bar.status}${nested ? ' nested' : ''}${selected ? ' selected' : ''}`}
      data-testid="waterfall-bar"
      data-key={bar.key}
      data-status={bar.status}
      style={{ left, width, top: nested ? top + 4 : top + 1 }}
      title={title}
      onClick={(e) => {
        e.stopPropagation();
        onSelect(bar.key);
      }}
    >
      {width > 60 ? <span className="wf-bar-label">{bar.label}</span> : null}
      {progress.map((p) => (
        <i key={p.seq} className="wf-ptick" style={{ left: Math.max(0, Math.min(width - 1, (p.ts - bar.start) * pxPerMs)) }} />
      ))}
    </div>
  );
}

/** The lifetime of the lane's stream (request sent → stream ended, or now): a faint band. */
function LaneExtent({ lane, x, now, t0, t1 }: { lane: Lane; x: (t: number) => number; now: number; t0: number; t1: number }) {
  const end = lane.end ?? Math.max(now, lane.start);
  if (end < t0 || lane.start > t1) return null;
  const left = x(lane.start);
  return (
    <div
      className={`wf-extent${lane.end === undefined ? ' open' : ''}`}
      style={{ left, width: Math.max(1, x(end) - left) }}
      title={`${lane.label}: stream ${lane.end === undefined ? 'open' : `open for ${formatMs(end - lane.start)}`}`}
    />
  );
}
