/**
 * React bindings for the store: re-render on every store change, and a ticking clock for the
 * live timers of pending calls.
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import type { TimelineStore } from './store.js';

/** The store's version; the component re-renders whenever the store changes. */
export function useStoreVersion(store: TimelineStore): number {
  return useSyncExternalStore(store.subscribe, store.getVersion, store.getVersion);
}

/** `Date.now()`, refreshed every `intervalMs` while `enabled` (frozen otherwise). */
export function useNow(intervalMs: number, enabled: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!enabled) return undefined;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), Math.max(16, intervalMs));
    return () => clearInterval(timer);
  }, [intervalMs, enabled]);
  return now;
}
