/**
 * The UI's keyboard: `/` focuses the search box, Escape leaves a field, compare mode or the
 * detail pane, ↑/↓ (or j/k) move the selection in the list, Enter opens the selected row.
 * Listens on the window; typing in a field is left alone.
 */
import { useEffect, type Dispatch, type MutableRefObject, type RefObject, type SetStateAction } from 'react';
import type { Row } from './state/types.js';
import type { ComparePair } from './url-state.js';

function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || !el.tagName) return false;
  const tag = el.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el.isContentEditable;
}

export interface AppKeys {
  searchRef: RefObject<HTMLInputElement | null>;
  /** The rows of the list as shown (current at each key press). */
  rowsRef: MutableRefObject<readonly Row[]>;
  selRef: MutableRefObject<string | undefined>;
  detailRef: MutableRefObject<boolean>;
  compareRef: MutableRefObject<ComparePair | undefined>;
  setSelectedKey: Dispatch<SetStateAction<string | undefined>>;
  setDetailOpen: Dispatch<SetStateAction<boolean>>;
  setCompare: Dispatch<SetStateAction<ComparePair | undefined>>;
}

/** Installs the keyboard handler for the app's lifetime (the refs carry the current state). */
export function useAppKeys({
  searchRef,
  rowsRef,
  selRef,
  detailRef,
  compareRef,
  setSelectedKey,
  setDetailOpen,
  setCompare,
}: AppKeys): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = isTyping(e.target);
      if (e.key === '/' && !typing && !e.metaKey && !e.ctrlKey) {
        e.preventDefault();
        searchRef.current?.focus();
        searchRef.current?.select();
        return;
      }
      if (e.key === 'Escape') {
        if (typing) {
          (e.target as HTMLElement).blur();
          return;
        }
        if (compareRef.current) setCompare(undefined);
        else if (detailRef.current) setDetailOpen(false);
        return;
      }
      // Compare mode has no timeline selection to move.
      if (typing || e.metaKey || e.ctrlKey || e.altKey || compareRef.current) return;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp' || e.key === 'j' || e.key === 'k') {
        const list = rowsRef.current;
        if (list.length === 0) return;
        e.preventDefault();
        const down = e.key === 'ArrowDown' || e.key === 'j';
        const cur = selRef.current !== undefined ? list.findIndex((r) => r.key === selRef.current) : -1;
        const next = cur < 0 ? (down ? 0 : list.length - 1) : Math.max(0, Math.min(list.length - 1, cur + (down ? 1 : -1)));
        setSelectedKey(list[next].key);
        return;
      }
      if (e.key === 'Enter' && selRef.current !== undefined) {
        e.preventDefault();
        setDetailOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
    // The setters and refs are stable: installed once.
  }, []);
}
