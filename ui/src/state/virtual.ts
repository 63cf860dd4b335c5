/**
 * Fixed-row-height virtual scrolling, as pure functions: which rows to render for a scroll
 * position, where to scroll to reveal a row, and whether the view sits at the bottom (live tail).
 */

export interface VisibleRange {
  /** First row to render. */
  start: number;
  /** One past the last row to render. */
  end: number;
  /** Pixel offset of row `start` (translate the rendered slice by this much). */
  offsetTop: number;
  /** Height of the whole list (the scroll spacer). */
  totalHeight: number;
}

function finite(n: number, fallback = 0): number {
  return Number.isFinite(n) ? n : fallback;
}

/** The rows in view plus `overscan` rows above and below (default 8), clamped to the list. */
export function visibleRange(o: {
  scrollTop: number;
  viewportHeight: number;
  rowHeight: number;
  count: number;
  overscan?: number;
}): VisibleRange {
  const count = Math.max(0, Math.floor(finite(o.count)));
  const rowHeight = finite(o.rowHeight) > 0 ? o.rowHeight : 1;
  const totalHeight = count * rowHeight;
  if (count === 0) return { start: 0, end: 0, offsetTop: 0, totalHeight: 0 };
  const overscan = Math.max(0, Math.floor(finite(o.overscan ?? 8, 8)));
  const viewportHeight = Math.max(0, finite(o.viewportHeight));
  // Browsers may report a scrollTop past the end (elastic scrolling, a list that just shrank).
  const maxTop = Math.max(0, totalHeight - viewportHeight);
  const scrollTop = Math.min(Math.max(0, finite(o.scrollTop)), maxTop);
  const first = Math.min(count - 1, Math.floor(scrollTop / rowHeight));
  const lastExclusive = Math.min(count, Math.max(first + 1, Math.ceil((scrollTop + viewportHeight) / rowHeight)));
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, lastExclusive + overscan);
  return { start, end, offsetTop: start * rowHeight, totalHeight };
}

/** The scrollTop that brings row `index` fully into view, moving as little as possible. */
export function scrollToReveal(o: { index: number; scrollTop: number; viewportHeight: number; rowHeight: number }): number {
  const rowHeight = finite(o.rowHeight) > 0 ? o.rowHeight : 1;
  const scrollTop = Math.max(0, finite(o.scrollTop));
  const viewportHeight = Math.max(0, finite(o.viewportHeight));
  const index = Math.max(0, Math.floor(finite(o.index)));
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop || rowHeight >= viewportHeight) return top;
  if (bottom > scrollTop + viewportHeight) return Math.max(0, bottom - viewportHeight);
  return scrollTop;
}

/**
 * The viewport's height changed from `before` to `after` (the detail pane opened below the list,
 * or the filter bar above it wrapped): the scrollTop that keeps row `index` in view, if it was in
 * view (even partly) before; undefined when it was not (the scroll position is left alone).
 */
export function keepInView(o: { index: number; scrollTop: number; before: number; after: number; rowHeight: number }): number | undefined {
  const rowHeight = finite(o.rowHeight) > 0 ? o.rowHeight : 1;
  const scrollTop = Math.max(0, finite(o.scrollTop));
  const index = Math.max(0, Math.floor(finite(o.index)));
  const top = index * rowHeight;
  const wasInView = top + rowHeight > scrollTop && top < scrollTop + Math.max(0, finite(o.before));
  if (!wasInView) return undefined;
  return scrollToReveal({ index, scrollTop, viewportHeight: o.after, rowHeight });
}

/** Whether the viewport shows the end of the list (within `slack` pixels): keep following the tail. */
export function isAtBottom(scrollTop: number, viewportHeight: number, totalHeight: number, slack = 4): boolean {
  return finite(scrollTop) + finite(viewportHeight) >= finite(totalHeight) - slack;
}
