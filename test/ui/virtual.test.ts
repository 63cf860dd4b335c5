import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isAtBottom, scrollToReveal, visibleRange } from '../../ui/src/state/virtual';

describe('visibleRange', () => {
  it('renders the rows in view plus overscan', () => {
    expect(visibleRange({ scrollTop: 0, viewportHeight: 100, rowHeight: 20, count: 1000, overscan: 2 })).toEqual({
      start: 0,
      end: 7,
      offsetTop: 0,
      totalHeight: 20_000,
    });
    expect(visibleRange({ scrollTop: 210, viewportHeight: 100, rowHeight: 20, count: 1000, overscan: 2 })).toEqual({
      start: 8,
      end: 18,
      offsetTop: 160,
      totalHeight: 20_000,
    });
    expect(visibleRange({ scrollTop: 0, viewportHeight: 100, rowHeight: 20, count: 0 })).toEqual({
      start: 0,
      end: 0,
      offsetTop: 0,
      totalHeight: 0,
    });
  });

  it('clamps a scroll position past the end (a list that just shrank)', () => {
    const r = visibleRange({ scrollTop: 1_000_000, viewportHeight: 100, rowHeight: 20, count: 50, overscan: 0 });
    expect(r.end).toBe(50);
    expect(r.start).toBe(45);
    expect(r.offsetTop).toBe(900);
  });

  it('always covers the viewport, stays within the list and stays small', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: -1000, max: 10_000_000 }),
        fc.integer({ min: 0, max: 30 }),
        (count, rowHeight, viewportHeight, scrollTop, overscan) => {
          const r = visibleRange({ scrollTop, viewportHeight, rowHeight, count, overscan });
          expect(r.totalHeight).toBe(count * rowHeight);
          expect(r.start).toBeGreaterThanOrEqual(0);
          expect(r.end).toBeLessThanOrEqual(count);
          expect(r.start).toBeLessThanOrEqual(r.end);
          expect(r.offsetTop).toBe(r.start * rowHeight);
          if (count === 0) return;
          // Every row that intersects the (clamped) viewport is rendered.
          const top = Math.min(Math.max(0, scrollTop), Math.max(0, count * rowHeight - viewportHeight));
          const firstVisible = Math.min(count - 1, Math.floor(top / rowHeight));
          const lastVisible = Math.min(count - 1, Math.max(firstVisible, Math.ceil((top + viewportHeight) / rowHeight) - 1));
          expect(r.start).toBeLessThanOrEqual(firstVisible);
          expect(r.end).toBeGreaterThan(lastVisible);
          // And not many more: the DOM stays small.
          expect(r.end - r.start).toBeLessThanOrEqual(Math.ceil(viewportHeight / rowHeight) + 2 + 2 * overscan);
        },
      ),
    );
  });

  it('survives nonsense input', () => {
    for (const bad of [NaN, Infinity, -Infinity, -1]) {
      const r = visibleRange({ scrollTop: bad, viewportHeight: bad, rowHeight: bad, count: 10, overscan: bad });
      expect(r.start).toBeGreaterThanOrEqual(0);
      expect(r.end).toBeLessThanOrEqual(10);
      expect(Number.isFinite(r.totalHeight)).toBe(true);
    }
  });
});

describe('scrollToReveal', () => {
  it('scrolls up or down just enough, or not at all', () => {
    expect(scrollToReveal({ index: 2, scrollTop: 100, viewportHeight: 100, rowHeight: 20 })).toBe(40);
    expect(scrollToReveal({ index: 10, scrollTop: 100, viewportHeight: 100, rowHeight: 20 })).toBe(120);
    expect(scrollToReveal({ index: 6, scrollTop: 100, viewportHeight: 100, rowHeight: 20 })).toBe(100);
  });

  it('always leaves the row fully visible (when it fits)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 5_000_000 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.integer({ min: 1, max: 64 }),
        (index, scrollTop, viewportHeight, rowHeight) => {
          const next = scrollToReveal({ index, scrollTop, viewportHeight, rowHeight });
          expect(next).toBeGreaterThanOrEqual(0);
          const top = index * rowHeight;
          if (rowHeight <= viewportHeight) {
            expect(top).toBeGreaterThanOrEqual(next);
            expect(top + rowHeight).toBeLessThanOrEqual(next + viewportHeight);
            // Moves only when it had to.
            if (top >= scrollTop && top + rowHeight <= scrollTop + viewportHeight) expect(next).toBe(scrollTop);
          } else expect(next).toBe(top);
        },
      ),
    );
  });
});

describe('isAtBottom', () => {
  it('is true at the end, within the slack, and for short lists', () => {
    expect(isAtBottom(900, 100, 1000)).toBe(true);
    expect(isAtBottom(897, 100, 1000)).toBe(true);
    expect(isAtBottom(895, 100, 1000)).toBe(false);
    expect(isAtBottom(880, 100, 1000, 20)).toBe(true);
    expect(isAtBottom(0, 500, 200)).toBe(true);
    expect(isAtBottom(0, 100, 1000)).toBe(false);
  });
});
