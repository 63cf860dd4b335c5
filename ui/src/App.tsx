/**
 * The mcpscope UI shell: header, session list, timeline / waterfall with the filter bar, and the
 * detail pane. Owns view state (filters, selection, view, detail) and mirrors it into the URL.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type CSSProperties, type PointerEvent as ReactPointerEvent } from 'react';
import type { TimelineStore } from './state/store.js';
import { FeedClient } from './state/feed-client.js';
import { filtersFromSearch, filtersToSearch, isEmptyFilters } from './state/filters.js';
import { EMPTY_FILTERS, type FeedStatus, type Filters, type Row, type SessionInfo } from './state/types.js';
import { useStoreVersion } from './state/use-store.js';
import { Header } from './components/Header.js';
import { SessionList } from './components/SessionList.js';
import { FilterBar, type View } from './components/FilterBar.js';
import { Timeline } from './components/Timeline.js';
import { Waterfall } from './components/Waterfall.js';
import { DetailPane } from './components/DetailPane.js';

export interface AppProps {
  store: TimelineStore;
  /** Connect to the live feed (off in component tests). */
  connect?: boolean;
  /** Initial feed status (tests). */
  initialStatus?: FeedStatus;
}

interface UrlState {
  filters: Filters;
  view: View;
  row?: string;
}

/** Reads filters, view and selected row from a query string. */
export function urlStateFromSearch(search: string): UrlState {
  const params = new URLSearchParams(search);
  const filters = { ...EMPTY_FILTERS, ...filtersFromSearch(search) };
  const view: View = params.get('view') === 'waterfall' ? 'waterfall' : 'timeline';
  const row = params.get('row') ?? undefined;
  return { filters, view, row };
}

/** The query string for a view state (no token: the cookie carries auth after the first load). */
export function searchForUrlState(s: UrlState): string {
  const params = new URLSearchParams(filtersToSearch(s.filters));
  params.delete('token');
  if (s.view === 'waterfall') params.set('view', 'waterfall');
  if (s.row) params.set('row', s.row);
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

function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || !el.tagName) return false;
  const tag = el.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el.isContentEditable;
}

function exportDate(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

export function App({ store, connect = false, initialStatus = 'connecting' }: AppProps) {
  const version = useStoreVersion(store);
  const [urlState] = useState(() => urlStateFromSearch(typeof location !== 'undefined' ? location.search : ''));
  const [filters, setFilters] = useState<Filters>(urlState.filters);
  const [view, setView] = useState<View>(urlState.view);
  const [selectedKey, setSelectedKey] = useState<string | undefined>(urlState.row);
  const [detailOpen, setDetailOpen] = useState<boolean>(urlState.row !== undefined);
  const [status, setStatus] = useState<{ status: FeedStatus; detail?: string }>({ status: initialStatus });
  const [paused, setPaused] = useState(false);
  const [showSecrets, setShowSecrets] = useState(false);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [detailWidth, setDetailWidth] = useState(() => Math.round(Math.min(760, Math.max(420, (typeof window !== 'undefined' ? window.innerWidth : 1400) * 0.42))));
  const feedRef = useRef<FeedClient | null>(null);
  const searchRef = useRef<HTMLInputElement>(null);

  // ---- live feed ----
  useEffect(() => {
    if (!connect) return;
    const feed: FeedClient = new FeedClient(store, {
      onStatus: (s: FeedStatus, detail?: string) => {
        setStatus({ status: s, detail });
        setPaused(s === 'paused');
        // The hello (which says whether secrets are shown) precedes the switch to "live".
        if (s === 'live') setShowSecrets(Boolean(feed.hello?.showSecrets));
      },
    });
    feedRef.current = feed;
    feed.start();
    return () => {
      feed.stop();
      feedRef.current = null;
    };
  }, [store, connect]);

  // ---- URL ----
  useEffect(() => {
    const search = searchForUrlState({ filters, view, row: detailOpen ? selectedKey : undefined });
    if (search !== location.search) history.replaceState(history.state, '', `${location.pathname}${search}${location.hash}`);
  }, [filters, view, selectedKey, detailOpen]);

  // ---- derived data ----
  const rows = useMemo(() => store.visibleRows(filters), [store, filters, version]);
  const filtered = !isEmptyFilters(filters);
  const stats = store.stats;
  // All rows, nested ones included (what the unfiltered list shows).
  const allRows = filtered ? stats.rows : rows.length;
  const sessions = useMemo(() => store.sessionList(), [store, version]);
  const closedSessions = useMemo(() => new Set(sessions.filter((s) => s.status === 'closed').map((s) => s.id)), [sessions]);
  const totals = useMemo(() => sessions.reduce((t, s: SessionInfo) => ({ messages: t.messages + s.counts.messages, errors: t.errors + s.counts.errors }), { messages: 0, errors: 0 }), [sessions]);
  const selectedRow: Row | undefined = selectedKey !== undefined ? store.row(selectedKey) : undefined;
  const visibleKeys = useMemo(() => (filtered && view === 'waterfall' ? new Set(rows.map((r) => r.key)) : undefined), [filtered, rows, view]);

  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const selRef = useRef(selectedKey);
  selRef.current = selectedKey;
  const detailRef = useRef(detailOpen);
  detailRef.current = detailOpen;

  const select = useCallback((key: string) => {
    setSelectedKey(key);
    setDetailOpen(true);
  }, []);
  const open = useCallback((key: string) => {
    setSelectedKey(key);
    setDetailOpen(true);
  }, []);

  // ---- keyboard ----
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
        if (detailRef.current) setDetailOpen(false);
        return;
      }
      if (typing || e.metaKey || e.ctrlKey || e.altKey) return;
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
  }, []);

  // ---- actions ----
  const onTogglePause = () => {
    const feed = feedRef.current;
    if (paused) {
      feed?.resume();
      setPaused(false);
    } else {
      feed?.pause();
      setPaused(true);
    }
  };

  const onClear = async () => {
    setBusy('clearing…');
    try {
      const res = await fetch('/api/clear', { method: 'POST', credentials: 'same-origin' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      store.clear();
      setSelectedKey(undefined);
      setDetailOpen(false);
      setBusy(undefined);
    } catch (err) {
      setBusy(`clear failed: ${(err as Error).message}`);
    }
  };

  const onExport = async () => {
    const sid = filters.session;
    const url = sid ? `/api/sessions/${encodeURIComponent(sid)}/events` : '/api/events';
    setBusy('exporting…');
    try {
      const res = await fetch(url, { credentials: 'same-origin' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const blob = new Blob([await res.text()], { type: 'application/json' });
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `mcpscope-${sid || 'all'}-${exportDate()}.json`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 5000);
      setBusy(undefined);
    } catch (err) {
      setBusy(`export failed: ${(err as Error).message}`);
    }
  };

  const methods = useCallback(() => {
    const seen = new Set<string>();
    const visit = (r: Row, depth: number) => {
      const m = r.type === 'call' ? r.request.method : r.type === 'problem' ? undefined : r.message.method;
      if (m) seen.add(m);
      if (r.type === 'call' && depth < 4) for (const c of store.childrenOf(r)) visit(c, depth + 1);
    };
    for (const r of store.topLevelRows()) {
      visit(r, 0);
      if (seen.size > 500) break;
    }
    return [...seen].sort();
  }, [store]);

  // ---- detail splitter ----
  const dragging = useRef<{ x: number; w: number } | null>(null);
  const onSplitDown = (e: ReactPointerEvent<HTMLDivElement>) => {
    dragging.current = { x: e.clientX, w: detailWidth };
    (e.target as HTMLElement).setPointerCapture?.(e.pointerId);
  };
  const onSplitMove = (e: ReactPointerEvent<HTMLDivElement>) => {
    const d = dragging.current;
    if (!d) return;
    const max = Math.max(360, window.innerWidth - 560);
    setDetailWidth(Math.max(340, Math.min(max, d.w + (d.x - e.clientX))));
  };
  const onSplitUp = () => {
    dragging.current = null;
  };

  const showDetail = detailOpen && selectedRow !== undefined;
  const multiSession = sessions.length > 1 && filters.session === '';

  return (
    <div className={`app${showDetail ? ' with-detail' : ''}`} style={showDetail ? ({ '--detail-w': `${detailWidth}px` } as CSSProperties) : undefined}>
      <Header
        status={status.status}
        statusDetail={status.detail}
        paused={paused}
        stats={stats}
        sessionsCount={sessions.length}
        exportLabel={filters.session ? `session ${filters.session}` : 'all sessions'}
        onTogglePause={onTogglePause}
        onClear={onClear}
        onExport={onExport}
        busy={busy}
      />
      {showSecrets ? (
        <div className="banner banner-warn" role="alert">
          Secrets are shown: Authorization headers, cookies and OAuth tokens are not redacted (--show-secrets). Do not share screenshots or exports of this view.
        </div>
      ) : null}
      <div className="app-body">
        <SessionList sessions={sessions} selected={filters.session} onSelect={(id) => setFilters((f) => ({ ...f, session: id }))} totals={totals} />
        <main className="center">
          <FilterBar
            filters={filters}
            onChange={setFilters}
            methods={methods}
            shown={rows.length}
            total={allRows}
            filtered={filtered}
            view={view}
            onView={setView}
            searchRef={searchRef}
          />
          {view === 'timeline' ? (
            <Timeline rows={rows} selectedKey={selectedKey} onSelect={select} onOpen={open} showSession={multiSession} live={!paused} closedSessions={closedSessions} />
          ) : (
            <Waterfall store={store} sessionId={filters.session} version={version} selectedKey={selectedKey} onSelect={select} live={!paused} visibleKeys={visibleKeys} />
          )}
        </main>
        {showDetail ? (
          <>
            <div className="splitter" role="separator" aria-orientation="vertical" onPointerDown={onSplitDown} onPointerMove={onSplitMove} onPointerUp={onSplitUp} />
            <DetailPane store={store} row={selectedRow} version={version} onSelect={select} onClose={() => setDetailOpen(false)} />
          </>
        ) : null}
      </div>
    </div>
  );
}
