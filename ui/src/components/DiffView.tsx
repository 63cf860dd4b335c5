/**
 * Compare mode: two sessions' calls side by side (ui/src/state/session-diff.ts), one row per
 * aligned pair with each side's status and latency, and for changed pairs the path-level payload
 * differences and, for list calls, tool-level schema drift.
 */
import './DiffView.css';
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import type { TimelineStore } from '../state/store.js';
import type { MessageEvent, SessionInfo } from '../state/types.js';
import {
  diffSessions,
  summarizeDiff,
  type DiffCache,
  type DiffRow,
  type DiffSide,
  type PathChange,
  type SchemaDrift,
} from '../state/session-diff.js';
import { formatClock, formatMs, jsonText } from '../state/format.js';
import { escapeInvisible } from '../state/visible-text.js';
import { Vis } from './VisibleText.js';
import { STATUS_LABEL } from './row-info.js';
import { loadFullMessage } from '../state/api.js';

export interface DiffViewProps {
  store: TimelineStore;
  /** Store version (recompute on change). */
  version: number;
  sessions: readonly SessionInfo[];
  left: string;
  right: string;
  onChange(left: string, right: string): void;
  /** Show a call in the timeline (leaves compare mode). */
  onOpenCall(sessionId: string, rowKey: string): void;
  onExit(): void;
}

/** Rows rendered before "Show all" (a diff of two long sessions is mostly `same`). */
const PAGE = 400;

const KIND_TEXT: Record<DiffRow['kind'], { mark: string; title: string }> = {
  same: { mark: '=', title: 'Same in both sessions' },
  changed: { mark: '≠', title: 'Called in both sessions, with differences' },
  'only-left': { mark: '−', title: 'Only in A' },
  'only-right': { mark: '+', title: 'Only in B' },
};

function peerText(s: SessionInfo): string {
  const client = s.clientInfo ? s.clientInfo.name : 'unknown client';
  const server = s.serverInfo ? `${s.serverInfo.name}${s.serverInfo.version ? ` ${s.serverInfo.version}` : ''}` : 'unknown server';
  // Peer-chosen names: their invisible characters written out (this text also goes into <option>s and tooltips).
  return escapeInvisible(`${client} → ${server}`);
}

function sessionOption(s: SessionInfo): string {
  return `${s.id} · ${formatClock(s.startedAt).slice(0, 8)} · ${peerText(s)}`;
}

/** Loads the full payload of messages that arrived on the feed as stubs (large ones), on demand. */
function useFullMessages(): {
  resolve(m: MessageEvent): MessageEvent | undefined;
  load(seqs: readonly number[]): void;
  loaded: number;
  failed: ReadonlySet<number>;
} {
  const cache = useRef(new Map<number, MessageEvent>());
  const requested = useRef(new Set<number>());
  const [failed, setFailed] = useState<ReadonlySet<number>>(() => new Set());
  const [loaded, setLoaded] = useState(0);
  const live = useRef(true);
  useEffect(
    () => () => {
      live.current = false;
    },
    [],
  );
  const resolve = useCallback((m: MessageEvent) => cache.current.get(m.seq), []);
  const load = useCallback((seqs: readonly number[]) => {
    for (const seq of seqs) {
      if (requested.current.has(seq)) continue;
      requested.current.add(seq);
      loadFullMessage(seq)
        .then((full) => {
          cache.current.set(seq, full);
          if (live.current) setLoaded((n) => n + 1);
        })
        .catch(() => {
          if (live.current) setFailed((f) => new Set([...f, seq]));
        });
    }
  }, []);
  return { resolve, load, loaded, failed };
}

export function DiffView({ store, version, sessions, left, right, onChange, onOpenCall, onExit }: DiffViewProps) {
  const deferred = useDeferredValue(version);
  const [changesOnly, setChangesOnly] = useState(false);
  const [limit, setLimit] = useState(PAGE);
  const cache = useRef<DiffCache>(new Map());
  const full = useFullMessages();
  const byId = useMemo(() => new Map(sessions.map((s) => [s.id, s])), [sessions]);
  const leftSession = byId.get(left);
  const rightSession = byId.get(right);
  const ready = left !== '' && right !== '' && left !== right;

  const rows = useMemo(
    () => (ready ? diffSessions(store, left, right, { resolve: full.resolve, cache: cache.current }) : []),
    // `deferred` and `full.loaded` are the triggers: the store and the loaded payloads are mutable.
    [store, deferred, left, right, ready, full.loaded, full.resolve],
  );
  const summary = useMemo(() => summarizeDiff(rows), [rows]);
  const shown = useMemo(() => (changesOnly ? rows.filter((r) => r.kind !== 'same') : rows), [rows, changesOnly]);
  const visible = shown.length > limit ? shown.slice(0, limit) : shown;

  useEffect(() => setLimit(PAGE), [left, right, changesOnly]);
  useEffect(() => {
    const missing: number[] = [];
    for (const r of visible) if (r.missing) for (const seq of r.missing) if (!full.failed.has(seq)) missing.push(seq);
    if (missing.length > 0) full.load(missing);
  }, [visible, full.load, full.failed]);

  const sidesHead = (label: 'A' | 'B', s: SessionInfo | undefined, id: string) => (
    <span className={`dh-side dh-${label === 'A' ? 'left' : 'right'}`} title={s ? escapeInvisible(`${s.id} · ${s.target}`) : ''}>
      <span className={`side-tag side-${label}`}>{label}</span>
      {s ? (
        <>
          <span className="mono">{s.id}</span>
          <span className="dh-peers">{peerText(s)}</span>
        </>
      ) : (
        <span className="muted">{id === '' ? 'pick a session' : `${id} (not captured)`}</span>
      )}
    </span>
  );

  let empty: { title: string; text: string } | undefined;
  if (sessions.length < 2)
    empty = {
      title: 'Two sessions are needed to compare',
      text: 'Capture another session through the proxy, or open a saved capture: drop a fixture, NDJSON or HAR file anywhere on the page.',
    };
  else if (left === '' || right === '')
    empty = { title: 'Pick two sessions', text: 'Tick them in the session list (the first is A, the second B), or choose them above.' };
  else if (left === right) empty = { title: 'A and B are the same session', text: 'Pick another session for one of the sides.' };
  else if (rows.length === 0) empty = { title: 'No calls yet', text: 'Neither session has made a request so far.' };

  return (
    <section className="diff" data-testid="diff-view" aria-label="Session comparison">
      <div className="diff-toolbar">
        <span className="diff-title">Compare</span>
        <SessionPicker label="A" value={left} sessions={sessions} onPick={(id) => onChange(id, right)} testId="diff-left" />
        <button
          type="button"
          className="btn btn-sm btn-icon"
          data-testid="diff-swap"
          title="Swap A and B"
          aria-label="Swap A and B"
          onClick={() => onChange(right, left)}
          disabled={left === '' && right === ''}
        >
          ⇄
        </button>
        <SessionPicker label="B" value={right} sessions={sessions} onPick={(id) => onChange(left, id)} testId="diff-right" />
        <span className="spacer" />
        {ready && rows.length > 0 ? (
          <span className="diff-summary" data-testid="diff-summary">
            <span className="ds ds-changed" title="calls that differ">
              <b>{summary.changed}</b> changed
            </span>
            <span className="ds ds-only-left" title="calls only session A made">
              <b>{summary.onlyLeft}</b> only A
            </span>
            <span className="ds ds-only-right" title="calls only session B made">
              <b>{summary.onlyRight}</b> only B
            </span>
            <span className="ds ds-same" title="calls with the same parameters and outcome">
              <b>{summary.same}</b> same
            </span>
          </span>
        ) : null}
        <label className={`toggle toggle-accent${changesOnly ? ' on' : ''}`} title="Hide calls that are the same in both sessions">
          <input type="checkbox" checked={changesOnly} onChange={(e) => setChangesOnly(e.target.checked)} data-testid="diff-changes-only" />
          Differences only
        </label>
        <button type="button" className="btn btn-sm" onClick={onExit} title="Back to the timeline">
          Done
        </button>
      </div>
      <div className="diff-head" role="row">
        <span className="dh-mark" />
        <span className="dh-call">Call</span>
        {sidesHead('A', leftSession, left)}
        {sidesHead('B', rightSession, right)}
      </div>
      <div className="diff-body" role="table" aria-label="Calls of both sessions">
        {empty ? (
          <div className="diff-empty">
            <div className="tl-empty-title">{empty.title}</div>
            <div className="tl-empty-text">{empty.text}</div>
          </div>
        ) : shown.length === 0 ? (
          <div className="diff-empty">
            <div className="tl-empty-title">No differences</div>
            <div className="tl-empty-text">
              {summary.same === 1 ? 'The one call has' : `All ${summary.same.toLocaleString()} calls have`} the same parameters and outcomes
              in {left} and {right} (ids, <code>_meta</code>, progress tokens, timestamps and latency are not compared).
            </div>
          </div>
        ) : (
          <>
            {visible.map((r) => (
              <DiffRowView key={r.id} row={r} onOpenCall={onOpenCall} failed={full.failed} />
            ))}
            {shown.length > visible.length ? (
              <div className="diff-more">
                <button type="button" className="btn btn-sm" onClick={() => setLimit(Infinity)}>
                  Show all {shown.length.toLocaleString()} calls
                </button>
                <span className="muted">
                  {visible.length.toLocaleString()} shown
                  {!changesOnly && summary.same > 0 ? ' · tick “Differences only” to hide the identical ones' : ''}
                </span>
              </div>
            ) : null}
          </>
        )}
      </div>
    </section>
  );
}

function SessionPicker({
  label,
  value,
  sessions,
  onPick,
  testId,
}: {
  label: 'A' | 'B';
  value: string;
  sessions: readonly SessionInfo[];
  onPick(id: string): void;
  testId: string;
}) {
  const known = value === '' || sessions.some((s) => s.id === value);
  return (
    <label className="diff-pick">
      <span className={`side-tag side-${label}`}>{label}</span>
      <select
        className="input select"
        value={value}
        onChange={(e) => onPick(e.target.value)}
        data-testid={testId}
        aria-label={`Session ${label}`}
      >
        <option value="">Pick a session…</option>
        {!known ? <option value={value}>{value} (not captured)</option> : null}
        {sessions.map((s) => (
          <option key={s.id} value={s.id}>
            {sessionOption(s)}
          </option>
        ))}
      </select>
    </label>
  );
}

function DiffRowView({
  row,
  onOpenCall,
  failed,
}: {
  row: DiffRow;
  onOpenCall(sessionId: string, key: string): void;
  failed: ReadonlySet<number>;
}) {
  const k = KIND_TEXT[row.kind];
  const waiting = row.missing?.filter((s) => !failed.has(s)) ?? [];
  const broken = row.missing?.filter((s) => failed.has(s)) ?? [];
  const hasDetails =
    row.changes.length > 0 || (row.drift?.length ?? 0) > 0 || waiting.length > 0 || broken.length > 0 || (row.notes?.length ?? 0) > 0;
  return (
    <div
      className={`diff-row dk-${row.kind}`}
      role="row"
      data-testid="diff-row"
      data-diff={row.kind}
      data-method={row.method}
      data-name={row.name ?? ''}
    >
      <div className="diff-line">
        <span className="dr-mark" title={k.title} aria-label={k.title}>
          {k.mark}
        </span>
        <span className="dr-call" title={escapeInvisible(row.id)}>
          {row.dir === 's2c' ? <span className="tag tag-dir">server→client</span> : null}
          <span className="m-method">
            <Vis text={row.method} />
          </span>
          {row.name !== undefined ? (
            <>
              <span className="m-sep">·</span>
              <span className="m-name">
                <Vis text={row.name} />
              </span>
            </>
          ) : null}
          {row.occurrence > 1 ? (
            <span className="dr-occ" title={`the ${ordinal(row.occurrence)} such call in each session`}>
              #{row.occurrence}
            </span>
          ) : null}
        </span>
        <SideCell side={row.left} label="A" onOpenCall={onOpenCall} />
        <SideCell side={row.right} label="B" onOpenCall={onOpenCall} />
      </div>
      {hasDetails ? (
        <div className="diff-details">
          {row.drift && row.drift.length > 0 ? <DriftList drift={row.drift} /> : null}
          {row.changes.length > 0 ? (
            <ul className="diff-changes">
              {row.changes.map((c, i) => (
                <ChangeLine key={i} change={c} />
              ))}
            </ul>
          ) : null}
          {waiting.length > 0 ? <div className="diff-note">Loading the full payload to compare it…</div> : null}
          {broken.length > 0 ? (
            <div className="diff-note warn">A large payload could not be loaded (#{broken.join(', #')}): it was not compared.</div>
          ) : null}
          {row.notes?.map((n, i) => (
            <div key={i} className="diff-note warn">
              <Vis text={n} />
            </div>
          ))}
        </div>
      ) : null}
    </div>
  );
}

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${s}`;
}

function SideCell({ side, label, onOpenCall }: { side?: DiffSide; label: 'A' | 'B'; onOpenCall(sessionId: string, key: string): void }) {
  if (!side) {
    return (
      <span className={`dr-side dr-none dr-${label === 'A' ? 'left' : 'right'}`} data-side={label}>
        <span className="muted">not called</span>
      </span>
    );
  }
  const latency = side.latencyMs !== undefined ? formatMs(side.latencyMs) : side.status === 'pending' ? 'no answer' : '';
  return (
    <span className={`dr-side dr-${label === 'A' ? 'left' : 'right'}`} data-side={label}>
      <span className={`badge st-${side.status}`}>{STATUS_LABEL[side.status]}</span>
      <span className={`dr-latency mono${side.latencyMs !== undefined && side.latencyMs >= 1000 ? ' slow' : ''}`}>{latency}</span>
      {side.progress > 0 ? (
        <span className="dr-progress muted" title="progress notifications">
          {side.progress} progress
        </span>
      ) : null}
      <span className="spacer" />
      <button
        type="button"
        className="link-button dr-open mono"
        title={`Show this call of ${side.sessionId} in the timeline`}
        onClick={() => onOpenCall(side.sessionId, side.key)}
      >
        #{side.seq}
      </button>
    </span>
  );
}

/** Short JSON of a value, at any depth (json-diff's formatValue throws on one nested thousands of levels deep). */
function jsonValue(v: unknown, max: number): string {
  return v === undefined ? 'undefined' : jsonText(v, max);
}

function Value({ v, cls }: { v: unknown; cls: string }) {
  return (
    <span className={`dc-value ${cls}`} title={escapeInvisible(jsonValue(v, 4000))}>
      <Vis text={jsonValue(v, 160)} />
    </span>
  );
}

function ChangeLine({ change }: { change: PathChange }) {
  const path = (
    <code className="dc-path">
      <Vis text={change.path || '(whole value)'} />
    </code>
  );
  if (change.kind === 'changed') {
    if (change.path === 'status' || change.path === 'progress') {
      return (
        <li className="dc dc-changed" data-path={change.path}>
          {path}
          <span className="dc-value dc-before">{String(change.before)}</span>
          <span className="dc-arrow">→</span>
          <span className="dc-value dc-after">{String(change.after)}</span>
          {change.path === 'progress' ? <span className="muted">notifications</span> : null}
        </li>
      );
    }
    return (
      <li className="dc dc-changed" data-path={change.path}>
        {path}
        <Value v={change.before} cls="dc-before" />
        <span className="dc-arrow">→</span>
        <Value v={change.after} cls="dc-after" />
      </li>
    );
  }
  return (
    <li className={`dc dc-${change.kind}`} data-path={change.path}>
      {path}
      <span className={`dc-tag dc-tag-${change.kind}`}>{change.kind === 'added' ? 'only in B' : 'only in A'}</span>
      <Value v={change.kind === 'added' ? change.after : change.before} cls={change.kind === 'added' ? 'dc-after' : 'dc-before'} />
    </li>
  );
}

function DriftList({ drift }: { drift: readonly SchemaDrift[] }) {
  const what = drift[0]?.what ?? 'item';
  return (
    <div className="diff-drift" data-testid="diff-drift">
      <div className="drift-title">
        {what === 'resource template' ? 'Resource templates' : `${what[0].toUpperCase()}${what.slice(1)}s`}: {driftSummary(drift)}
      </div>
      <ul>
        {drift.map((d) => (
          <li key={`${d.change}:${d.name}`} className={`drift drift-${d.change}`} data-drift={d.change} data-name={d.name}>
            <span className={`drift-tag drift-tag-${d.change}`}>
              {d.change === 'added' ? '+ added' : d.change === 'removed' ? '− removed' : '≠ changed'}
            </span>
            <span className="drift-name mono">
              <Vis text={d.name} />
            </span>
            {d.change !== 'changed' && d.value !== undefined ? <DriftGist value={d.value} /> : null}
            {d.changes.length > 0 ? (
              <ul className="diff-changes">
                {d.changes.map((c, i) => (
                  <ChangeLine key={i} change={c} />
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

function driftSummary(drift: readonly SchemaDrift[]): string {
  const n = { added: 0, removed: 0, changed: 0 };
  for (const d of drift) n[d.change]++;
  return (['added', 'removed', 'changed'] as const)
    .filter((k) => n[k] > 0)
    .map((k) => `${n[k]} ${k}`)
    .join(', ');
}

/** A tool's description (or title) next to its name. */
function DriftGist({ value }: { value: unknown }) {
  if (value === null || typeof value !== 'object') return null;
  const v = value as { title?: unknown; description?: unknown };
  const text = typeof v.description === 'string' ? v.description : typeof v.title === 'string' ? v.title : undefined;
  return text ? (
    <span className="drift-gist muted">
      <Vis text={text.length > 140 ? `${text.slice(0, 139)}…` : text} />
    </span>
  ) : null;
}
