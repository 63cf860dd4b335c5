/**
 * The virtualized timeline: one fixed-height row per call / notification / orphan / problem,
 * only the rows in view (plus overscan) in the DOM. Follows the tail while scrolled to the
 * bottom; scrolled away, it stays put and offers "↓ N new".
 */
import './Timeline.css';
import { memo, useCallback, useLayoutEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import type { CallRow, ProblemEvent, Row } from '../state/types.js';
import { isAtBottom, keepInView, scrollToReveal, visibleRange } from '../state/virtual.js';
import { formatBytes, formatClock, formatMs, jsonText } from '../state/format.js';
import { useNow } from '../state/use-store.js';
import {
  STATUS_LABEL,
  callGist,
  httpGist,
  httpTitle,
  notificationGist,
  rowDepth,
  rowDir,
  rowMethod,
  rowName,
  rowSize,
  rowStatus,
  rowTs,
  statusTitle,
} from './row-info.js';
import { useElementSize } from './use-element-size.js';
import { InvisibleMark, Vis } from './VisibleText.js';
import { escapeInvisible } from '../state/visible-text.js';
import { editedOf, sentByMcpscope } from '../state/breakpoints.js';
import { isLintNote, isViolation, violationLevel, violationsTitle } from '../state/violations.js';
import { ModelCallBadge, TurnMethodCell } from './TurnCell.js';
import { SessionBadge } from './SessionBadge.js';
import type { SessionLabel } from '../state/session-label.js';
import { refusalText } from '../../../proxy/core/model/call-state.js';

const ROW_HEIGHT = 28;
const OVERSCAN = 12;
/** Used until the viewport has been measured (and in DOM-less test environments). */
const FALLBACK_VIEWPORT = 720;

export interface TimelineProps {
  rows: Row[];
  selectedKey?: string;
  onSelect(key: string): void;
  onOpen(key: string): void;
  /** Show the session column (the "all sessions" view with several sessions). */
  showSession?: boolean;
  /** The sessions' badges in that column (state/session-label.ts), by id. */
  sessionLabels?: ReadonlyMap<string, SessionLabel>;
  /** A session badge was clicked: show only that session's rows (or all again). */
  onSessionFilter?(id: string): void;
  /** Run live timers for pending calls. */
  live?: boolean;
  /** Sessions that are closed: their pending calls stop ticking. */
  closedSessions?: ReadonlySet<string>;
  /** The spec violations of a row's messages (issue 19: its "spec" badge); the store's `violationsOfRow`. */
  violationsOf?(row: Row): readonly ProblemEvent[];
}

export function Timeline({
  rows,
  selectedKey,
  onSelect,
  onOpen,
  showSession = false,
  sessionLabels,
  onSessionFilter,
  live = true,
  closedSessions,
  violationsOf,
}: TimelineProps) {
  const viewportRef = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const { h: viewportHeight } = useElementSize(viewportRef);
  const [follow, setFollow] = useState(true);
  const followRef = useRef(true);
  /** rows.length when the user left the tail: the "N new" baseline. */
  const [baseline, setBaseline] = useState(0);
  const count = rows.length;
  const vh = viewportHeight > 0 ? viewportHeight : FALLBACK_VIEWPORT;
  const range = visibleRange({ scrollTop, viewportHeight: vh, rowHeight: ROW_HEIGHT, count, overscan: OVERSCAN });

  // The list got shorter or taller (the detail pane opened or was resized — below the list, or
  // beside it, wrapping the filter bar): the selected row stays in view if it was in view. Before
  // the tail effect below, so that it can stop following when the tail would hide the selection.
  const shownHeight = useRef(vh);
  useLayoutEffect(() => {
    const before = shownHeight.current;
    shownHeight.current = vh;
    const el = viewportRef.current;
    if (before === vh || selectedKey === undefined || !el) return;
    const index = rows.findIndex((r) => r.key === selectedKey);
    if (index < 0) return;
    const next = keepInView({ index, scrollTop: el.scrollTop, before, after: vh, rowHeight: ROW_HEIGHT });
    if (next === undefined) return;
    if (followRef.current) {
      const bottom = Math.max(0, count * ROW_HEIGHT - vh);
      // The tail shows it: go on following.
      if (index * ROW_HEIGHT >= bottom && (index + 1) * ROW_HEIGHT <= bottom + vh) return;
      followRef.current = false;
      setFollow(false);
      setBaseline(count);
    }
    if (next !== el.scrollTop) {
      el.scrollTop = next;
      setScrollTop(next);
    }
    // Only the height change matters here (the selection's own changes are revealed below).
  }, [vh]);

  // Live tail: keep the bottom in view while following.
  useLayoutEffect(() => {
    const el = viewportRef.current;
    if (!el || !followRef.current) return;
    const bottom = Math.max(0, count * ROW_HEIGHT - vh);
    if (Math.abs(el.scrollTop - bottom) > 1) el.scrollTop = bottom;
    setScrollTop(bottom);
  }, [count, vh]);

  const setFollowing = useCallback(
    (on: boolean) => {
      if (followRef.current === on) return;
      followRef.current = on;
      setFollow(on);
      if (!on) setBaseline(count);
    },
    [count],
  );

  const onScroll = useCallback(() => {
    const el = viewportRef.current;
    if (!el) return;
    const st = el.scrollTop;
    setScrollTop(st);
    setFollowing(isAtBottom(st, vh, count * ROW_HEIGHT, ROW_HEIGHT / 2));
  }, [vh, count, setFollowing]);

  // Reveal the selection when it changes (keyboard, waterfall click, correlation links).
  const lastRevealed = useRef<string | undefined>(undefined);
  useLayoutEffect(() => {
    if (selectedKey === lastRevealed.current) return;
    if (selectedKey === undefined) {
      lastRevealed.current = undefined;
      return;
    }
    const el = viewportRef.current;
    const index = rows.findIndex((r) => r.key === selectedKey);
    // Not (yet) in the list — e.g. a shared link whose row arrives with the snapshot: try again later.
    if (!el || index < 0) return;
    lastRevealed.current = selectedKey;
    const next = scrollToReveal({ index, scrollTop: el.scrollTop, viewportHeight: vh, rowHeight: ROW_HEIGHT });
    if (next !== el.scrollTop) {
      el.scrollTop = next;
      setScrollTop(next);
      const atBottom = isAtBottom(next, vh, count * ROW_HEIGHT, ROW_HEIGHT / 2);
      if (!atBottom) setFollowing(false);
    }
  }, [selectedKey, rows, vh, count, setFollowing]);

  const jumpToTail = () => {
    followRef.current = true;
    setFollow(true);
    const el = viewportRef.current;
    const bottom = Math.max(0, count * ROW_HEIGHT - vh);
    if (el) el.scrollTop = bottom;
    setScrollTop(bottom);
  };

  const slice = rows.slice(range.start, range.end);
  const anyPending = slice.some((r) => isPending(r) && !closedSessions?.has(r.sessionId ?? ''));
  const now = useNow(200, live && anyPending);
  const newRows = follow ? 0 : Math.max(0, count - baseline);

  const onRowKey = useCallback(
    (e: ReactKeyboardEvent<HTMLDivElement>, key: string) => {
      if (e.key === 'Enter') onOpen(key);
    },
    [onOpen],
  );

  return (
    <div className={`timeline${showSession ? ' with-session' : ''}`}>
      <div className="tl-head" role="row">
        <span className="c-time">Time</span>
        <span className="c-dir" title="Direction" />
        {showSession ? (
          <span className="c-sess" title="Session">
            <span className="h-long">Session</span>
            <span className="h-short">Sess</span>
          </span>
        ) : null}
        <span className="c-method">Method · name</span>
        <span className="c-progress">Progress</span>
        <span className="c-status">Status</span>
        <span className="c-latency">Latency</span>
        <span className="c-size">Size</span>
      </div>
      <div
        className="tl-viewport"
        ref={viewportRef}
        onScroll={onScroll}
        data-testid="timeline-viewport"
        tabIndex={0}
        role="grid"
        aria-rowcount={count}
      >
        <div className="tl-spacer" style={{ height: range.totalHeight }}>
          <div className="tl-window" style={{ transform: `translateY(${range.offsetTop}px)` }}>
            {slice.map((row, i) => (
              <TimelineRow
                key={row.key}
                row={row}
                rev={row.rev ?? 0}
                index={range.start + i}
                selected={row.key === selectedKey}
                showSession={showSession}
                label={showSession && row.sessionId !== undefined ? sessionLabels?.get(row.sessionId) : undefined}
                onSessionFilter={onSessionFilter}
                now={isPending(row) ? now : 0}
                stopped={closedSessions?.has(row.sessionId ?? '') ?? false}
                violationsOf={violationsOf}
                onSelect={onSelect}
                onOpen={onOpen}
                onKeyDown={onRowKey}
              />
            ))}
          </div>
        </div>
        {count === 0 ? <EmptyTimeline /> : null}
      </div>
      {newRows > 0 ? (
        <button type="button" className="new-rows" data-testid="new-rows" onClick={jumpToTail}>
          ↓ {newRows} new
        </button>
      ) : null}
    </div>
  );
}

/** A call waiting for its answer, or a model turn for its response: their latency cells tick. */
function isPending(row: Row): boolean {
  return (row.type === 'call' && row.status === 'pending') || (row.type === 'turn' && row.turn.status === 'pending');
}

function EmptyTimeline() {
  return (
    <div className="tl-empty">
      <div className="tl-empty-title">No traffic yet</div>
      <div className="tl-empty-text">
        Point your MCP client at the proxy URL mcpscope printed; every JSON-RPC frame shows up here as it crosses the wire.
      </div>
    </div>
  );
}

interface RowProps {
  row: Row;
  /** The row's revision: rows are mutated in place, so this is what tells a change. */
  rev: number;
  index: number;
  selected: boolean;
  showSession: boolean;
  /** The row's session badge (the "All sessions" view). */
  label?: SessionLabel;
  onSessionFilter?(id: string): void;
  now: number;
  stopped: boolean;
  violationsOf?(row: Row): readonly ProblemEvent[];
  onSelect(key: string): void;
  onOpen(key: string): void;
  onKeyDown(e: ReactKeyboardEvent<HTMLDivElement>, key: string): void;
}

const TimelineRow = memo(TimelineRowView, (a, b) => {
  for (const k of Object.keys(a) as (keyof RowProps)[]) if (a[k] !== b[k]) return false;
  return true;
});

function TimelineRowView({
  row,
  index,
  selected,
  showSession,
  label,
  onSessionFilter,
  now,
  stopped,
  violationsOf,
  onSelect,
  onOpen,
  onKeyDown,
}: RowProps) {
  const status = rowStatus(row);
  const depth = rowDepth(row);
  const method = rowMethod(row);
  const ts = rowTs(row);
  const dir = rowDir(row);
  const sessionId = row.sessionId;
  const cls = `tl-row kind-${row.type} st-${status}${selected ? ' selected' : ''}${depth ? ' nested' : ''}${index % 2 ? ' odd' : ''}`;
  return (
    <div
      className={cls}
      role="row"
      aria-selected={selected}
      data-testid="row"
      data-key={row.key}
      data-kind={row.type}
      data-status={status}
      data-method={method}
      data-depth={depth}
      onClick={() => onSelect(row.key)}
      onDoubleClick={() => onOpen(row.key)}
      onKeyDown={(e) => onKeyDown(e, row.key)}
    >
      <span className="c-time mono">{formatClock(ts)}</span>
      <span
        className={`c-dir dir-${dir ?? (row.type === 'log' ? 'log' : 'none')}`}
        title={
          dir === 'c2s' ? 'client → server' : dir === 's2c' ? 'server → client' : row.type === 'log' ? "the server process's stderr" : ''
        }
      >
        {dir === 'c2s' ? '→' : dir === 's2c' ? '←' : row.type === 'log' ? '⋯' : '!'}
      </span>
      {showSession ? (
        <span className="c-sess mono">{label ? <SessionBadge label={label} onFilter={onSessionFilter} /> : <Vis text={sessionId} />}</span>
      ) : null}
      <MethodCell row={row} depth={depth} violations={violationsOf?.(row)} onSelect={onSelect} />
      {/* A model turn's cell takes the progress column too (TurnCell.css): it has more to say and no progress. */}
      {row.type === 'turn' ? null : (
        <span className="c-progress">{row.type === 'call' && row.progress.length > 0 ? <ProgressCell row={row} /> : null}</span>
      )}
      <span className="c-status">
        <span className={`badge st-${status}`} title={escapeInvisible(statusTitle(row), { multiline: true })}>
          {status === 'pending' ? <span className="pulse" /> : null}
          {row.type === 'http' && row.exchange.status !== undefined
            ? String(row.exchange.status)
            : row.type === 'call' && row.httpStatus !== undefined && !row.response
              ? refusalText(row.httpStatus)
              : STATUS_LABEL[status]}
        </span>
      </span>
      <LatencyCell row={row} now={now} stopped={stopped} />
      <span className="c-size mono">{row.type === 'problem' || row.type === 'log' ? '' : formatBytes(rowSize(row))}</span>
    </div>
  );
}

function MethodCell({
  row,
  depth,
  violations,
  onSelect,
}: {
  row: Row;
  depth: number;
  violations?: readonly ProblemEvent[];
  onSelect?(key: string): void;
}) {
  let main: string;
  let name: string | undefined;
  let gist = '';
  let level: string | undefined;
  if (row.type === 'log') {
    return (
      <span className="c-method">
        <span className="tag tag-stderr" title="A line the server process wrote to stderr (its log output, not MCP)">
          stderr
        </span>
        <span className="m-log mono" data-testid="row-log-text">
          <Vis text={row.event.text} />
        </span>
      </span>
    );
  }
  if (row.type === 'turn') return <TurnMethodCell row={row} onSelect={onSelect} />;
  if (row.type === 'problem') {
    main = row.event.code;
    gist = row.event.text;
  } else if (row.type === 'http') {
    main = httpTitle(row.exchange);
    gist = httpGist(row.exchange);
  } else {
    main = rowMethod(row) || (row.type === 'orphan' ? `${row.message.kind} id ${jsonText(row.message.id, 80)}` : '(no method)');
    name = rowName(row);
    if (row.type === 'call') gist = callGist(row);
    else if (row.type === 'notification') {
      const g = notificationGist(row.message);
      gist = g.text;
      level = g.level;
    } else if (row.message.error) gist = `${row.message.error.code} ${row.message.error.message}`;
    else gist = 'matched no request';
  }
  const nestedTag =
    depth > 0 && row.type !== 'problem' && row.type !== 'http' ? (
      <span className="tag tag-dir">{row.dir === 's2c' ? 'server→client' : 'client→server'}</span>
    ) : null;
  return (
    <span className={`c-method${depth ? ' indent' : ''}`}>
      {depth ? <span className="connector" aria-hidden="true" /> : null}
      {nestedTag}
      {row.type === 'http' ? (
        <span className="tag tag-http" title="Plain HTTP, not MCP: recorded, not parsed as JSON-RPC">
          HTTP
        </span>
      ) : null}
      <InvisibleMark texts={[main, name]} />
      <span className="m-method">
        <Vis text={main} />
      </span>
      {name ? (
        <>
          <span className="m-sep">·</span>
          <span className="m-name">
            <Vis text={name} />
          </span>
        </>
      ) : null}
      {editedOf(row) !== undefined ? (
        <span className="tag tag-edited" data-testid="row-edited" title="Edited at a breakpoint: the detail pane shows the original">
          edited
        </span>
      ) : null}
      {sentByMcpscope(row) ? (
        <span className="tag tag-sent" data-testid="row-sent" title="mcpscope sent this itself (from the UI or the API), not the client">
          sent by mcpscope
        </span>
      ) : null}
      {row.type === 'call' && row.request.modelCall ? <ModelCallBadge link={row.request.modelCall} onSelect={onSelect} /> : null}
      {violations && violations.length > 0 ? <SpecTags annotations={violations} /> : null}
      {level ? (
        <span className={`tag lvl lvl-${level}`}>
          <Vis text={level} />
        </span>
      ) : null}
      {gist ? (
        <span className="m-gist">
          <Vis text={gist} />
        </span>
      ) : null}
    </span>
  );
}

/** A row's spec badge (its violations) and "not checked" badge (the linter's notes: what it could not check). */
function SpecTags({ annotations }: { annotations: readonly ProblemEvent[] }) {
  const violations = annotations.filter(isViolation);
  const notes = annotations.filter(isLintNote);
  return (
    <>
      {violations.length > 0 ? <SpecTag violations={violations} /> : null}
      {notes.length > 0 ? (
        <span
          className="tag tag-not-checked"
          data-testid="row-not-checked"
          data-count={notes.length}
          title={escapeInvisible(
            `mcpscope could not check part of this against the tool's schema:\n${notes.map((n) => n.rule ?? '').join('\n')}\nThe detail pane's Spec tab says why.`,
            { multiline: true },
          )}
        >
          not checked
        </span>
      ) : null}
    </>
  );
}

/** A message that broke the MCP specification: amber, red when the linter ran strict (level error); the rules in its tooltip. */
function SpecTag({ violations }: { violations: readonly ProblemEvent[] }) {
  const level = violationLevel(violations) ?? 'warn';
  return (
    <span
      className={`tag tag-spec spec-${level}`}
      data-testid="row-spec"
      data-level={level}
      data-count={violations.length}
      title={escapeInvisible(`${violationsTitle(violations)}\nThe detail pane's Spec tab says what was expected.`, { multiline: true })}
    >
      spec{violations.length > 1 ? ` ${violations.length}` : ''}
    </span>
  );
}

function progressText(p: { progress: number; total?: number }): string {
  return p.total !== undefined ? `${p.progress}/${p.total}` : String(p.progress);
}

function ProgressCell({ row }: { row: CallRow }) {
  const last = row.progress[row.progress.length - 1]?.progress;
  if (!last) return null;
  const total = last.total;
  const pct = total && total > 0 ? Math.max(0, Math.min(1, last.progress / total)) : undefined;
  const text = progressText(last);
  return (
    <span
      className="row-progress"
      data-testid="row-progress"
      data-progress={text}
      title={last.message ? `${text} · ${last.message}` : text}
    >
      <span className={`pbar${pct === undefined ? ' indeterminate' : ''}${row.status !== 'pending' ? ' done' : ''}`}>
        <span className="pbar-fill" style={{ width: pct === undefined ? '100%' : `${pct * 100}%` }} />
      </span>
      <span className="ptext mono">{text}</span>
    </span>
  );
}

function LatencyCell({ row, now, stopped }: { row: Row; now: number; stopped: boolean }) {
  if (row.type === 'http') {
    const x = row.exchange;
    return (
      <span className="c-latency mono" data-testid="row-latency" title="Time until the response ended">
        {x.endedAt !== undefined ? formatMs(x.endedAt - x.startedAt) : ''}
      </span>
    );
  }
  if (row.type === 'turn') {
    const t = row.turn;
    const done = t.status !== 'pending' ? (t.endedAt ?? t.respondedAt) : undefined;
    return (
      <span
        className={`c-latency mono${t.status === 'pending' && !stopped ? ' pending-timer' : ''}`}
        data-testid="row-latency"
        title={
          t.firstTokenAt !== undefined ? `First token after ${formatMs(t.firstTokenAt - t.startedAt)}` : 'Time until the response ended'
        }
      >
        {done !== undefined
          ? formatMs(done - t.startedAt)
          : t.status === 'pending' && !stopped
            ? formatMs(Math.max(0, now - t.startedAt))
            : ''}
      </span>
    );
  }
  if (row.type !== 'call') return <span className="c-latency mono" />;
  if (row.status === 'cancelled' && !row.response) {
    const after = row.cancel ? row.cancel.ts - row.request.ts : undefined;
    return (
      <span className="c-latency mono muted" data-testid="row-latency" title="Time until the cancellation">
        {after !== undefined ? `✕ ${formatMs(after)}` : ''}
      </span>
    );
  }
  if (row.type === 'call' && row.httpStatus !== undefined && !row.response) {
    return (
      <span
        className="c-latency mono muted"
        data-testid="row-latency"
        title={row.httpStatus === 'failed' ? 'No response: no JSON-RPC answer' : `Refused with HTTP ${row.httpStatus}: no JSON-RPC answer`}
      >
        {row.httpStatus === 'failed' ? 'no response' : 'refused'}
      </span>
    );
  }
  if (row.status === 'pending' || (row.latencyMs === undefined && !row.response)) {
    if (stopped) {
      return (
        <span className="c-latency mono muted" data-testid="row-latency" title="The session closed before an answer arrived.">
          no answer
        </span>
      );
    }
    const elapsed = Math.max(0, now - row.request.ts);
    return (
      <span className="c-latency mono pending-timer" data-testid="row-latency" title="Waiting for the response">
        {formatMs(elapsed)}
      </span>
    );
  }
  const ms = row.latencyMs ?? row.response?.latencyMs;
  return (
    <span className={`c-latency mono${ms !== undefined && ms >= 1000 ? ' slow' : ''}`} data-testid="row-latency">
      {ms !== undefined ? formatMs(ms) : ''}
    </span>
  );
}
