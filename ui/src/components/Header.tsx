/**
 * Top bar: name, feed status, counts (and a live store's evictions and OTLP export: LiveStats.tsx),
 * pause/resume, clear, open a capture, fault injection, export.
 * A saved capture (`mcpscope open <file>`) shows what it is instead — its file name, "capture" —
 * and none of the live controls (there is no proxy: nothing to pause, clear, fault or evict).
 */
import './Header.css';
import { useRef } from 'react';
import { Vis } from './VisibleText.js';
import type { FeedStatus } from '../state/types.js';
import type { ServerInfo } from '../state/api.js';
import { noun } from '../state/format.js';
import { ExportMenu } from './ExportMenu.js';
import { FaultsPanel } from './FaultsPanel.js';
import { LiveStats } from './LiveStats.js';

/** What the page shows: a live mcpscope, a saved capture, or not known yet (the server has not said). */
export type UiSource = ServerInfo | { mode: 'unknown' };

export interface HeaderProps {
  /** Live (the default), a saved capture, or unknown: then neither live controls nor a capture label. */
  source?: UiSource;
  status: FeedStatus;
  statusDetail?: string;
  paused: boolean;
  stats: { rows: number; messages: number; events: number; dropped: number };
  sessionsCount: number;
  /** The session the export menu offers ('' = all sessions). */
  exportSession: string;
  onTogglePause(): void;
  onClear(): void;
  /** Files picked with "Open…". */
  onOpenFiles(files: File[]): void;
  busy?: string;
  /** Messages held at a breakpoint now: the badge that opens the Paused panel. */
  held?: number;
  onShowPaused?(): void;
  /** Opens the tool form. */
  onShowTools?(): void;
  /** Opens the Context view (issue 27: what the tools cost the model's context), live or not. */
  onShowContext?(): void;
}

export function statusText(status: FeedStatus, detail?: string, paused?: boolean): string {
  if (paused || status === 'paused') {
    const held = status === 'paused' && detail ? /^(\d+) events held/.exec(detail) : null;
    return held ? `paused · ${held[1]} held` : 'paused';
  }
  switch (status) {
    case 'live':
      return 'live';
    case 'reconnecting': {
      const attempt = detail ? /attempt (\d+)/.exec(detail) : null;
      return attempt ? `reconnecting (attempt ${attempt[1]})` : 'reconnecting';
    }
    case 'connecting':
      return 'connecting';
    case 'offline':
      return `offline${detail ? ` (${detail})` : ''}`;
    default:
      return String(status);
  }
}

function Logo() {
  return (
    <svg className="logo" width="18" height="18" viewBox="0 0 24 24" aria-hidden="true">
      <circle cx="10.5" cy="10.5" r="7" fill="none" stroke="currentColor" strokeWidth="2.2" />
      <path d="M15.6 15.6 L21 21" stroke="currentColor" strokeWidth="2.6" strokeLinecap="round" />
      <path
        d="M6.5 11.5 h2 l1.2 -3 l1.8 5.5 l1.2 -2.5 h1.8"
        fill="none"
        stroke="var(--accent)"
        strokeWidth="1.6"
        strokeLinejoin="round"
        strokeLinecap="round"
      />
    </svg>
  );
}

/** What the file picker offers (the import reads any file by its content). */
const CAPTURE_ACCEPT = '.json,.ndjson,.jsonl,.har,application/json,application/x-ndjson';

/** A page icon, for the capture badge. */
function FileIcon() {
  return (
    <svg width="11" height="13" viewBox="0 0 11 13" aria-hidden="true" style={{ flex: 'none' }}>
      <path
        d="M1.5 0.75 h5 l3 3 v7.75 a0.75 0.75 0 0 1 -0.75 0.75 h-7.25 a0.75 0.75 0 0 1 -0.75 -0.75 v-10 a0.75 0.75 0 0 1 0.75 -0.75 z M6.5 0.75 v3 h3"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.2"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/** The badge of a saved capture: its file name and "capture" (plus the feed's trouble, if any). */
function CaptureBadge({ file, kind, status, statusDetail }: { file: string; kind?: string; status: FeedStatus; statusDetail?: string }) {
  // The snapshot still comes over the feed: say so if it cannot be reached, never "live".
  const trouble = status === 'offline' || status === 'reconnecting' ? statusText(status, statusDetail) : undefined;
  return (
    <div
      className="status st-capture"
      data-testid="status"
      data-status="capture"
      title={`A saved capture (${kind ?? 'capture file'}) opened with mcpscope open: nothing here is live.${trouble ? ` The page has lost mcpscope: ${trouble}.` : ''}`}
      style={{ color: 'var(--text-2)', maxWidth: '36vw' }}
    >
      <FileIcon />
      <span className="mono" data-testid="capture-file" style={{ color: 'var(--text)', overflow: 'hidden', textOverflow: 'ellipsis' }}>
        <Vis text={file} />
      </span>
      <span data-testid="capture-label" style={{ color: 'var(--text-3)' }}>
        capture{trouble ? ` · ${trouble}` : ''}
      </span>
    </div>
  );
}

export function Header({
  source = { mode: 'live' },
  status,
  statusDetail,
  paused,
  stats,
  sessionsCount,
  exportSession,
  onTogglePause,
  onClear,
  onOpenFiles,
  busy,
  held = 0,
  onShowPaused,
  onShowTools,
  onShowContext,
}: HeaderProps) {
  const fileRef = useRef<HTMLInputElement>(null);
  const live = source.mode === 'live';
  // Until the server says what it serves, the feed's "live" is not claimed.
  const feedStatus: FeedStatus = source.mode === 'unknown' && status === 'live' ? 'connecting' : status;
  const effective = live && paused ? 'paused' : feedStatus;
  const text = statusText(feedStatus, statusDetail, live && paused);
  return (
    <header className="app-header" data-mode={source.mode}>
      <div className="brand">
        <Logo />
        <span className="brand-name">mcpscope</span>
      </div>
      {source.mode === 'capture' ? (
        <CaptureBadge file={source.file} kind={source.kind} status={status} statusDetail={statusDetail} />
      ) : (
        <div className={`status st-feed-${effective}`} data-testid="status" data-status={effective} title={statusDetail ?? ''}>
          <span className="status-dot" aria-hidden="true" />
          <span className="status-text">{text}</span>
        </div>
      )}
      <div className="header-stats">
        <span>
          <b>{sessionsCount}</b> {noun(sessionsCount, 'session')}
        </span>
        <span>
          <b>{stats.rows.toLocaleString()}</b> {noun(stats.rows, 'row')}
        </span>
        <span>
          <b>{stats.messages.toLocaleString()}</b> {noun(stats.messages, 'message')}
        </span>
        <span>
          <b>{stats.events.toLocaleString()}</b> {noun(stats.events, 'event')}
        </span>
        {live ? <LiveStats /> : null}
        {stats.dropped > 0 ? (
          <span className="err-text" title="The UI fell behind the feed and these events were not delivered; reload to re-fetch them.">
            <b>{stats.dropped.toLocaleString()}</b> dropped
          </span>
        ) : null}
      </div>
      <span className="spacer" />
      {busy ? <span className="muted header-busy">{busy}</span> : null}
      <div className="header-actions">
        {live ? (
          <>
            <button
              type="button"
              className={`btn${paused ? ' btn-primary' : ''}`}
              data-testid="pause"
              onClick={onTogglePause}
              title={paused ? 'Resume the live view' : 'Pause the live view (traffic is still recorded)'}
            >
              {paused ? '▶ Resume' : '❚❚ Pause'}
            </button>
            <button
              type="button"
              className="btn"
              data-testid="clear"
              onClick={onClear}
              title="Forget everything captured so far (POST api/clear)"
            >
              Clear
            </button>
          </>
        ) : null}
        <button
          type="button"
          className="btn"
          data-testid="import"
          onClick={() => fileRef.current?.click()}
          title="Open a capture: a fixture, an NDJSON event log or a HAR file (or drop one anywhere on the page)"
        >
          Open…
        </button>
        <input
          ref={fileRef}
          type="file"
          className="visually-hidden"
          tabIndex={-1}
          aria-hidden="true"
          accept={CAPTURE_ACCEPT}
          multiple
          data-testid="import-input"
          onChange={(e) => {
            const files = [...(e.currentTarget.files ?? [])];
            // Cleared so that picking the same file again is a change too.
            e.currentTarget.value = '';
            if (files.length > 0) onOpenFiles(files);
          }}
        />
        {live && onShowPaused ? (
          <button
            type="button"
            className={`btn held-btn${held > 0 ? ' has-held' : ''}`}
            data-testid="held-badge"
            data-held={held}
            onClick={onShowPaused}
            title={
              held > 0
                ? `${held} ${noun(held, 'message')} held at a breakpoint, waiting for you: resume, edit, drop or answer`
                : 'Breakpoints: hold matching messages to resume, edit, drop or answer them'
            }
          >
            {/* A breakpoint's dot, as debuggers draw it (the feed's Pause button has the ❚❚). */}
            <span className="bp-dot" aria-hidden="true" /> {held > 0 ? `${held} held` : 'Breakpoints'}
          </button>
        ) : null}
        {live && onShowTools ? (
          <button
            type="button"
            className="btn"
            data-testid="tools-open"
            onClick={onShowTools}
            title="Call a session's tools from a form built from their input schemas"
          >
            Tools
          </button>
        ) : null}
        {onShowContext ? (
          <button
            type="button"
            className="btn"
            data-testid="context-open"
            onClick={onShowContext}
            title="What the tools cost the model's context: tokens per MCP server and tool in every request"
          >
            Context
          </button>
        ) : null}
        {live ? <FaultsPanel /> : null}
        <ExportMenu sessionId={exportSession} empty={stats.events === 0} />
      </div>
    </header>
  );
}
