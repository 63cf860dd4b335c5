/**
 * The UI's view state in the address bar: filters, view, the selected row and the compared
 * sessions are read from the query string on load and written back (replaceState) as they change,
 * so a link reopens the same view; the `?token=` of the first load is dropped (the HttpOnly cookie
 * authenticates the page after it).
 */
import { useEffect } from 'react';
import { filtersFromSearch, filtersToSearch } from './state/filters.js';
import { EMPTY_FILTERS, type Filters } from './state/types.js';
import type { View } from './components/FilterBar.js';

/** The two sessions of compare mode ('' = not picked yet). */
export interface ComparePair {
  left: string;
  right: string;
}

export interface UrlState {
  filters: Filters;
  view: View;
  row?: string;
  /** Compare mode (`?compare=A&compare=B`). */
  compare?: ComparePair;
}

/** Reads filters, view, selected row and compared sessions from a query string. */
export function urlStateFromSearch(search: string): UrlState {
  const params = new URLSearchParams(search);
  const filters = { ...EMPTY_FILTERS, ...filtersFromSearch(search) };
  const view: View = params.get('view') === 'waterfall' ? 'waterfall' : 'timeline';
  const row = params.get('row') ?? undefined;
  const pair = params.getAll('compare');
  const compare = pair.length > 0 ? { left: pair[0] ?? '', right: pair[1] ?? '' } : undefined;
  return { filters, view, row, compare };
}

/** The query string for a view state (no token: the cookie carries auth after the first load). */
export function searchForUrlState(s: UrlState): string {
  const params = new URLSearchParams(filtersToSearch(s.filters));
  params.delete('token');
  if (s.view === 'waterfall') params.set('view', 'waterfall');
  if (s.row) params.set('row', s.row);
  if (s.compare) {
    params.append('compare', s.compare.left);
    if (s.compare.right !== '') params.append('compare', s.compare.right);
  }
  const q = params.toString();
  return q ? `?${q}` : '';
}

/** Drops `?token=` from the address bar (the HttpOnly cookie now authenticates the page). */
export function stripTokenFromUrl(): void {
  const url = new URL(location.href);
  if (!url.searchParams.has('token')) return;
  url.searchParams.delete('token');
  history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
}

/** Mirrors the view state into the address bar whenever it changes (no history entries). */
export function useUrlSync(state: UrlState): void {
  const { filters, view, row, compare } = state;
  useEffect(() => {
    const search = searchForUrlState({ filters, view, row, compare });
    if (search !== location.search) history.replaceState(history.state, '', `${location.pathname}${search}${location.hash}`);
  }, [filters, view, row, compare]);
}
