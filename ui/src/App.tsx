/**
 * The mcpscope UI shell: header, session list, timeline / waterfall with the filter bar, the
 * detail pane, and compare mode (two sessions diffed). Owns view state (filters, selection, view,
 * detail, compared sessions) and mirrors it into the URL (url-state.ts); keys: keyboard.ts.
 * Capture files dropped anywhere on the
 * page (or picked with "Open…") are imported through the API and arrive on the live feed. A saved
 * capture served by `mcpscope open` (the server says so at `api/info`) shows its file name in the
 * header and no live controls.
 */
import './App.css';
import { useCallback, useEffect, useMemo, useRef, useState, type CSSProperties, type PointerEvent as ReactPointerEvent } from 'react';
import type { TimelineStore } from './state/store.js';
import { FeedClient } from './state/feed-client.js';
import { isEmptyFilters, toggleSessionTerm } from './state/filters.js';
import { SessionLabels } from './state/session-label.js';
import { type FeedStatus, type Filters, type Row, type SessionInfo } from './state/types.js';
import { useStoreVersion } from './state/use-store.js';
import { Header, type UiSource } from './components/Header.js';
import { SessionList } from './components/SessionList.js';
import { FilterBar, type View } from './components/FilterBar.js';
import { Timeline } from './components/Timeline.js';
import { Waterfall } from './components/Waterfall.js';
import { DetailPane } from './components/DetailPane.js';
import { DiffView } from './components/DiffView.js';
import { DropOverlay, useFileDrop } from './components/DropOverlay.js';
import { Toasts, type Notice } from './components/Toasts.js';
import { describeImport, importCaptureFile } from './state/import-client.js';
import { apiFetch, loadServerInfo } from './state/api.js';
import { useUrlSync, urlStateFromSearch, type ComparePair } from './url-state.js';
import { useAppKeys } from './keyboard.js';
import { Drawer } from './components/Drawer.js';
import { PausedPanel } from './components/PausedPanel.js';
import { SendPanel } from './components/SendPanel.js';
import { ToolsPanel } from './components/ToolsPanel.js';
import { LintReport } from './components/LintReport.js';
import { ContextPanel } from './components/ContextPanel.js';

/** The panel that acts on the traffic, open over the right side: held messages and breakpoints, edit and send, the tool form. */
type ActView =
  | { kind: 'paused' }
  | { kind: 'send'; sessionId: string; draft: unknown; serial: number }
  | { kind: 'tools' }
  // A session's lint report.
  | { kind: 'lint'; sessionId: string }
  // What the tools cost the model's context.
  | { kind: 'context' };

export type { ComparePair } from './url-state.js';

export interface AppProps {
  store: TimelineStore;
  /** Connect to the live feed (off in component tests). */
  connect?: boolean;
  /** Initial feed status (tests). */
  initialStatus?: FeedStatus;
  /**
   * A live mcpscope or a saved capture (`mcpscope open`). Default: asked from the server
   * (`api/info`) when connected — no live controls until it answers — else live.
   */
  source?: UiSource;
  /** Ask the server what it serves (`api/info`); default: when connected. */
  detectSource?: boolean;
}

/**
 * Ticking a session in compare mode: unticking frees its side; a tick fills A, then B; a third
 * tick keeps the latest two (B becomes A, the new one B).
 */
export function pickForCompare(c: ComparePair, id: string): ComparePair {
  if (c.left === id) return { left: '', right: c.right };
  if (c.right === id) return { left: c.left, right: '' };
  if (c.left === '') return { left: id, right: c.right };
  if (c.right === '') return { left: c.left, right: id };
  return { left: c.right, right: id };
}

/**
 * The pair compare mode starts with: the selected session as A (else the one before the latest)
 * and the latest other session as B — "before" and "after".
 */
export function initialComparePair(sessions: readonly SessionInfo[], selected: string): ComparePair {
  if (sessions.length < 2) return { left: selected, right: '' };
  const latest = sessions[sessions.length - 1].id;
  if (selected !== '' && sessions.some((s) => s.id === selected)) {
    const other = selected === latest ? sessions[sessions.length - 2].id : latest;
    return selected === latest ? { left: other, right: selected } : { left: selected, right: other };
  }
  return { left: sessions[sessions.length - 2].id, right: latest };
}

export function App({ store, connect = false, initialStatus = 'connecting', source: givenSource, detectSource = connect }: AppProps) {
  const version = useStoreVersion(store);
  const [urlState] = useState(() => urlStateFromSearch(typeof location !== 'undefined' ? location.search : ''));
  const [filters, setFilters] = useState<Filters>(urlState.filters);
  const [view, setView] = useState<View>(urlState.view);
  const [selectedKey, setSelectedKey] = useState<string | undefined>(urlState.row);
  const [detailOpen, setDetailOpen] = useState<boolean>(urlState.row !== undefined);
  const [compare, setCompare] = useState<ComparePair | undefined>(urlState.compare);
  const [notices, setNotices] = useState<Notice[]>([]);
  /** Sessions an import created, waiting to arrive on the feed to be selected. */
  const pendingSelect = useRef<string | undefined>(undefined);
  const [status, setStatus] = useState<{ status: FeedStatus; detail?: string }>({ status: initialStatus });
  const [paused, setPaused] = useState(false);
  const [showSecrets, setShowSecrets] = useState(false);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [actView, setActView] = useState<ActView | undefined>(undefined);
  const closeAct = useCallback(() => setActView(undefined), []);
  /** "Show in timeline" from a panel: the panel makes way for the detail pane. */
  const selectFromAct = useCallback((key: string) => {
    setActView(undefined);
    setSelectedKey(key);
    setDetailOpen(true);
  }, []);
  const [detailWidth, setDetailWidth] = useState(() =>
    Math.round(Math.min(760, Math.max(420, (typeof window !== 'undefined' ? window.innerWidth : 1400) * 0.42))),
  );
  const feedRef = useRef<FeedClient | null>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const [detectedSource, setDetectedSource] = useState<UiSource>(detectSource ? { mode: 'unknown' } : { mode: 'live' });
  const source = givenSource ?? detectedSource;
  /** A saved capture has nothing live: no timers ticking on its pending calls. */
  const live = source.mode !== 'capture';

  // ---- what the server serves: live traffic, or a saved capture ----
  useEffect(() => {
    if (!detectSource || givenSource) return;
    let current = true;
    void loadServerInfo().then((info) => {
      if (current) setDetectedSource(info);
    });
    return () => {
      current = false;
    };
  }, [detectSource, givenSource]);

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
  useUrlSync({ filters, view, row: detailOpen && !compare ? selectedKey : undefined, compare });

  // ---- derived data ----
  const rows = useMemo(() => store.visibleRows(filters), [store, filters, version]);
  const filtered = !isEmptyFilters(filters);
  const stats = store.stats;
  // All rows, nested ones included (what the unfiltered list shows).
  const allRows = filtered ? stats.rows : rows.length;
  const sessions = useMemo(() => store.sessionList(), [store, version]);
  const closedSessions = useMemo(() => new Set(sessions.filter((s) => s.status === 'closed').map((s) => s.id)), [sessions]);
  const totals = useMemo(
    () =>
      sessions.reduce(
        (t, s: SessionInfo) => ({
          messages: t.messages + s.counts.messages,
          errors: t.errors + s.counts.errors,
          failed: t.failed + (s.counts.failed ?? 0),
        }),
        { messages: 0, errors: 0, failed: 0 },
      ),
    [sessions],
  );
  const violationsOf = useCallback((row: Row) => store.violationsOfRow(row), [store]);
  const labelsMemo = useRef(new SessionLabels());
  const sessionLabels = useMemo(() => labelsMemo.current.of(sessions), [sessions]);
  /** A row's session badge: only that session's rows (a `session:` term in the search), or all again. */
  const onSessionFilter = useCallback((id: string) => setFilters((f) => ({ ...f, text: toggleSessionTerm(f.text, id) })), []);
  const modelTurnCounts = useMemo(() => store.modelTurns.countsBySession(), [store, version]);
  const selectedRow: Row | undefined = selectedKey !== undefined ? store.row(selectedKey) : undefined;
  const visibleKeys = useMemo(
    () => (filtered && view === 'waterfall' ? new Set(rows.map((r) => r.key)) : undefined),
    [filtered, rows, view],
  );

  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const selRef = useRef(selectedKey);
  selRef.current = selectedKey;
  const detailRef = useRef(detailOpen);
  detailRef.current = detailOpen;
  const compareRef = useRef(compare);
  compareRef.current = compare;

  const select = useCallback((key: string) => {
    setSelectedKey(key);
    setDetailOpen(true);
  }, []);
  const open = useCallback((key: string) => {
    setSelectedKey(key);
    setDetailOpen(true);
  }, []);

  // ---- keyboard ----
  useAppKeys({ searchRef, rowsRef, selRef, detailRef, compareRef, setSelectedKey, setDetailOpen, setCompare });

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
      const res = await apiFetch('clear', { method: 'POST' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      store.clear();
      setSelectedKey(undefined);
      setDetailOpen(false);
      setBusy(undefined);
    } catch (err) {
      setBusy(`clear failed: ${(err as Error).message}`);
    }
  };

  // ---- compare mode ----
  const onToggleCompare = () => {
    if (compare) setCompare(undefined);
    else setCompare(initialComparePair(sessions, filters.session));
  };
  const onPick = useCallback((id: string) => setCompare((c) => (c ? pickForCompare(c, id) : c)), []);
  const onOpenCall = useCallback((sessionId: string, key: string) => {
    setCompare(undefined);
    setFilters((f) => ({ ...f, session: sessionId }));
    setSelectedKey(key);
    setDetailOpen(true);
  }, []);

  // ---- import (drag-and-drop, "Open…") ----
  const noticeSerial = useRef(0);
  const putNotice = useCallback((n: Omit<Notice, 'id'>, id = ++noticeSerial.current): number => {
    setNotices((list) => {
      const at = list.findIndex((x) => x.id === id);
      const next = { ...n, id };
      if (at < 0) return [...list.slice(-3), next];
      const copy = list.slice();
      copy[at] = next;
      return copy;
    });
    return id;
  }, []);
  const dismissNotice = useCallback((id: number) => setNotices((list) => list.filter((n) => n.id !== id)), []);

  const openFiles = useCallback(
    async (files: File[]) => {
      for (const file of files) {
        const name = file.name || 'the file';
        const id = putNotice({ kind: 'info', busy: true, title: `Opening ${name}…` });
        const outcome = await importCaptureFile(file);
        if (!outcome.ok) {
          putNotice({ kind: 'error', title: `Could not open ${name}`, text: outcome.error }, id);
          continue;
        }
        const first = outcome.sessions[0];
        const heldBack = feedRef.current?.paused === true;
        putNotice(
          {
            kind: outcome.warnings.length > 0 ? 'warn' : 'ok',
            title: `Opened ${name}`,
            text: `${describeImport(outcome)}.${heldBack ? ' The live view is paused: resume it to see the new session.' : ''}`,
            details: outcome.warnings,
            timeoutMs: outcome.warnings.length > 0 ? undefined : 8000,
          },
          id,
        );
        if (first !== undefined) {
          pendingSelect.current = first;
          if (store.sessions.has(first)) showImported(first);
        }
      }
    },
    // showImported only touches state setters and refs.
    [putNotice, store],
  );

  /** An imported session arrived: select it (compare mode: make it B). */
  const showImported = (id: string) => {
    pendingSelect.current = undefined;
    if (compareRef.current) {
      // The new session becomes B; A stays (or takes the old B when it was empty).
      setCompare((c) => (c ? { left: c.left !== '' && c.left !== id ? c.left : c.right !== id ? c.right : '', right: id } : c));
      return;
    }
    setFilters((f) => ({ ...f, session: id }));
    setDetailOpen(false);
  };

  useEffect(() => {
    const id = pendingSelect.current;
    if (id !== undefined && store.sessions.has(id)) showImported(id);
  }, [store, version]);

  const dragging = useFileDrop(openFiles);

  const methods = useCallback(() => {
    const seen = new Set<string>();
    const visit = (r: Row, depth: number) => {
      const m =
        r.type === 'call'
          ? r.request.method
          : r.type === 'problem' || r.type === 'http' || r.type === 'log' || r.type === 'turn'
            ? undefined
            : r.message.method;
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
  const splitDrag = useRef<{ x: number; w: number } | null>(null);
  const onSplitDown = (e: ReactPointerEvent<HTMLDivElement>) => {
    splitDrag.current = { x: e.clientX, w: detailWidth };
    (e.target as HTMLElement).setPointerCapture?.(e.pointerId);
  };
  const onSplitMove = (e: ReactPointerEvent<HTMLDivElement>) => {
    const d = splitDrag.current;
    if (!d) return;
    const max = Math.max(360, window.innerWidth - 560);
    setDetailWidth(Math.max(340, Math.min(max, d.w + (d.x - e.clientX))));
  };
  const onSplitUp = () => {
    splitDrag.current = null;
  };

  const showDetail = !compare && detailOpen && selectedRow !== undefined;
  const multiSession = sessions.length > 1 && filters.session === '';

  return (
    <div
      className={`app${showDetail ? ' with-detail' : ''}`}
      style={showDetail ? ({ '--detail-w': `${detailWidth}px` } as CSSProperties) : undefined}
    >
      <Header
        source={source}
        status={status.status}
        statusDetail={status.detail}
        paused={paused}
        stats={stats}
        sessionsCount={sessions.length}
        exportSession={filters.session}
        onTogglePause={onTogglePause}
        onClear={onClear}
        onOpenFiles={openFiles}
        busy={busy}
        held={store.held().length}
        onShowPaused={() => setActView((v) => (v?.kind === 'paused' ? undefined : { kind: 'paused' }))}
        onShowTools={() => setActView((v) => (v?.kind === 'tools' ? undefined : { kind: 'tools' }))}
        onShowContext={() => setActView((v) => (v?.kind === 'context' ? undefined : { kind: 'context' }))}
      />
      {showSecrets ? (
        <div className="banner banner-warn" role="alert">
          Secrets are shown: Authorization headers, cookies and OAuth tokens are not redacted (--show-secrets). Do not share screenshots or
          exports of this view.
        </div>
      ) : null}
      <div className="app-body">
        <SessionList
          sessions={sessions}
          selected={filters.session}
          onSelect={(id) => setFilters((f) => ({ ...f, session: id }))}
          totals={totals}
          compare={compare}
          onToggleCompare={onToggleCompare}
          onPick={onPick}
          onLintReport={(id) => setActView({ kind: 'lint', sessionId: id })}
          specErrors={store.specErrorSessions}
          modelTurns={modelTurnCounts}
        />
        <main className="center">
          {compare ? (
            <DiffView
              store={store}
              version={version}
              sessions={sessions}
              left={compare.left}
              right={compare.right}
              onChange={(left, right) => setCompare({ left, right })}
              onOpenCall={onOpenCall}
              onExit={() => setCompare(undefined)}
            />
          ) : (
            <>
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
                <Timeline
                  rows={rows}
                  selectedKey={selectedKey}
                  onSelect={select}
                  onOpen={open}
                  showSession={multiSession}
                  sessionLabels={sessionLabels}
                  onSessionFilter={onSessionFilter}
                  live={live && !paused}
                  closedSessions={closedSessions}
                  violationsOf={violationsOf}
                />
              ) : (
                <Waterfall
                  store={store}
                  sessionId={filters.session}
                  version={version}
                  selectedKey={selectedKey}
                  onSelect={select}
                  live={live && !paused}
                  visibleKeys={visibleKeys}
                />
              )}
            </>
          )}
        </main>
        {showDetail ? (
          <>
            <div
              className="splitter"
              role="separator"
              aria-orientation="vertical"
              onPointerDown={onSplitDown}
              onPointerMove={onSplitMove}
              onPointerUp={onSplitUp}
            />
            <DetailPane
              store={store}
              row={selectedRow}
              version={version}
              onSelect={select}
              onClose={() => setDetailOpen(false)}
              onEditAndSend={live ? (sessionId, draft) => setActView({ kind: 'send', sessionId, draft, serial: Date.now() }) : undefined}
            />
          </>
        ) : null}
      </div>
      {actView?.kind === 'paused' ? (
        <Drawer title="Breakpoints — held messages" testId="paused-panel" onClose={closeAct}>
          <PausedPanel store={store} version={version} session={filters.session} />
        </Drawer>
      ) : actView?.kind === 'send' ? (
        <Drawer title="Edit and send" testId="send-drawer" onClose={closeAct}>
          <SendPanel
            key={actView.serial}
            store={store}
            version={version}
            sessionId={actView.sessionId}
            draft={actView.draft}
            onSelect={selectFromAct}
          />
        </Drawer>
      ) : actView?.kind === 'lint' ? (
        <Drawer title={`Spec violations — ${actView.sessionId}`} testId="lint-drawer" onClose={closeAct}>
          <LintReport store={store} version={version} sessionId={actView.sessionId} onSelect={selectFromAct} />
        </Drawer>
      ) : actView?.kind === 'context' ? (
        <Drawer title="Context — what the tools cost the model" testId="context-drawer" onClose={closeAct}>
          <ContextPanel store={store} version={version} sessionId={filters.session} onSelect={selectFromAct} />
        </Drawer>
      ) : actView?.kind === 'tools' ? (
        <Drawer title="Call a tool" testId="tools-drawer" onClose={closeAct}>
          <ToolsPanel store={store} version={version} sessions={sessions} sessionId={filters.session} onSelect={selectFromAct} />
        </Drawer>
      ) : null}
      {dragging ? <DropOverlay /> : null}
      <Toasts notices={notices} onDismiss={dismissNotice} />
    </div>
  );
}
