// @vitest-environment happy-dom
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { TimelineStore } from '../../ui/src/state/store';
import { useNow, useStoreVersion } from '../../ui/src/state/use-store';
import { EMPTY_FILTERS } from '../../ui/src/state/types';
import { scenario } from './fixtures';

beforeAll(() => {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
});

let root: Root | undefined;
afterEach(() => {
  act(() => root?.unmount());
  root = undefined;
  vi.useRealTimers();
});

function mount(node: React.ReactNode): HTMLElement {
  const el = document.createElement('div');
  document.body.appendChild(el);
  root = createRoot(el);
  act(() => root!.render(node));
  return el;
}

describe('useStoreVersion', () => {
  it('re-renders when the store changes, and stops listening on unmount', () => {
    const store = new TimelineStore();
    // Count the calls of every listener the hook subscribes, so that a listener left subscribed
    // after unmount (an unsubscribe that does nothing) shows up as a call.
    let listenerCalls = 0;
    const subscribe = store.subscribe;
    const spy = vi.spyOn(store, 'subscribe').mockImplementation((fn) =>
      subscribe(() => {
        listenerCalls++;
        fn();
      }),
    );
    let renders = 0;
    function Count() {
      useStoreVersion(store);
      renders++;
      return <span>{store.visibleRows(EMPTY_FILTERS).length} rows</span>;
    }
    const el = mount(<Count />);
    expect(el.textContent).toBe('0 rows');
    const { events } = scenario();
    act(() => store.ingest(events));
    expect(el.textContent).toBe(`${store.stats.rows} rows`);
    expect(spy).toHaveBeenCalled();
    expect(listenerCalls).toBeGreaterThan(0);
    const after = renders;
    const callsBefore = listenerCalls;
    act(() => root!.unmount());
    root = undefined;
    store.clear();
    expect(listenerCalls).toBe(callsBefore);
    expect(renders).toBe(after);
  });
});

describe('useNow', () => {
  it('ticks while enabled, and not when disabled', () => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
    let seen: number[] = [];
    function Clock({ on }: { on: boolean }) {
      const now = useNow(100, on);
      seen.push(now);
      return <span>{now}</span>;
    }
    const el = mount(<Clock on />);
    act(() => {
      vi.advanceTimersByTime(350);
    });
    expect(Number(el.textContent)).toBe(1_000_300);
    act(() => root!.render(<Clock on={false} />));
    seen = [];
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(seen).toEqual([]);
  });
});
