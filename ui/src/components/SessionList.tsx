/**
 * Left column: "All sessions" and one entry per session (transport, client → server, protocol,
 * start time, open/closed, counts, spec violations with their lint report). In compare mode each entry is ticked as side A or B instead
 * of selected.
 */
import './session-colours.css';
import './SessionList.css';
import type { SessionInfo } from '../state/types.js';
import { formatClock, plural } from '../state/format.js';
import { escapeInvisible } from '../state/visible-text.js';
import { InvisibleMark, Vis } from './VisibleText.js';
import { sessionColour } from '../state/session-label.js';

const TRANSPORT: Record<SessionInfo['transport'], { short: string; title: string }> = {
  'streamable-http': { short: 'HTTP', title: 'Streamable HTTP' },
  'legacy-sse': { short: 'SSE', title: 'Legacy HTTP+SSE (2024-11-05)' },
  stdio: { short: 'stdio', title: 'stdio' },
  http: { short: 'plain', title: 'Plain HTTP, not MCP (OAuth, metadata, other HTTP): recorded as HTTP exchanges, not parsed as JSON-RPC' },
};

const CLOSE_REASON: Record<string, string> = {
  deleted: 'DELETE',
  expired: 'expired (404)',
  'initialize-rejected': 'initialize rejected',
  'stream-closed': 'stream closed',
  'client-closed-stream': 'client closed stream',
  'stream-broken': 'stream broken',
  'process-exited': 'process exited',
};

export interface SessionListProps {
  sessions: SessionInfo[];
  selected: string;
  onSelect(id: string): void;
  totals: { messages: number; errors: number; failed?: number };
  /** Compare mode: the sessions picked as A and B ('' = none). Undefined: not comparing. */
  compare?: { left: string; right: string };
  onToggleCompare?(): void;
  /** Compare mode: a session was ticked or unticked. */
  onPick?(id: string): void;
  /** Open a session's lint report: the MCP rules its messages broke. */
  onLintReport?(id: string): void;
  /** Sessions whose violations are errors (--lint strict): their count is red, not amber. */
  specErrors?: ReadonlySet<string>;
  /** Model turns per session: a model API's bucket says it carries them. */
  modelTurns?: ReadonlyMap<string, number>;
}

function peer(p: SessionInfo['clientInfo'], fallback: string) {
  if (!p) return <span className="muted">{fallback}</span>;
  return (
    <span title={escapeInvisible(`${p.title ?? p.name}${p.version ? ` ${p.version}` : ''}`)}>
      <InvisibleMark texts={[p.name, p.version, p.title]} />
      <Vis text={p.name} />
      {p.version ? (
        <span className="si-ver">
          <Vis text={p.version} />
        </span>
      ) : null}
    </span>
  );
}

/**
 * A session's spec violations ("3 spec", amber; red when they are errors, --lint strict), opening
 * its lint report; the selected session without any offers the report too (which says so). Plain
 * HTTP buckets are not MCP: nothing.
 */
function SpecCount({
  session: s,
  selected,
  error,
  onLintReport,
}: {
  session: SessionInfo;
  selected: boolean;
  error: boolean;
  onLintReport?(id: string): void;
}) {
  if (s.transport === 'http') return null;
  const n = s.counts.violations ?? 0;
  if (n === 0 && !(selected && onLintReport)) return null;
  const level = error ? 'error' : 'warn';
  const title =
    n > 0
      ? `${plural(n, 'spec violation')}${error ? ' (errors: --lint strict)' : ''}: messages that broke the MCP specification. Click for the lint report.`
      : 'The lint report';
  if (!onLintReport)
    return (
      <span className={`si-spec ${level}`} data-testid="session-spec" data-level={level} title={title}>
        {n} spec
      </span>
    );
  return (
    <button
      type="button"
      className={`si-spec ${n === 0 ? 'none' : level}`}
      data-level={n > 0 ? level : undefined}
      data-testid={n > 0 ? 'session-spec' : 'session-lint'}
      title={title}
      onClick={(e) => {
        e.stopPropagation();
        onLintReport(s.id);
      }}
    >
      {n > 0 ? `${n} spec` : 'spec report'}
    </button>
  );
}

export function SessionList({
  sessions,
  selected,
  onSelect,
  totals,
  compare,
  onToggleCompare,
  onPick,
  onLintReport,
  specErrors,
  modelTurns,
}: SessionListProps) {
  const comparing = compare !== undefined;
  return (
    <aside className={`sessions${comparing ? ' comparing' : ''}`} aria-label="Sessions">
      <div className="pane-title">
        <span>
          Sessions <span className="muted">{sessions.length}</span>
        </span>
        <span className="spacer" />
        {onToggleCompare ? (
          <button
            type="button"
            className={`pane-toggle${comparing ? ' on' : ''}`}
            data-testid="compare"
            aria-pressed={comparing}
            onClick={onToggleCompare}
            title={comparing ? 'Back to the timeline' : 'Compare two sessions: their calls side by side, with the payload differences'}
          >
            <svg width="12" height="12" viewBox="0 0 16 16" aria-hidden="true">
              <path d="M5 2v12M11 2v12M2 5h6M8 11h6" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
            </svg>
            Compare
          </button>
        ) : null}
      </div>
      {comparing ? (
        <div className="compare-hint">
          Tick two sessions: <span className="side-tag side-A">A</span> before, <span className="side-tag side-B">B</span> after.
        </div>
      ) : null}
      <ul className="session-items" role="listbox" aria-label="Sessions" aria-multiselectable={comparing || undefined}>
        {comparing ? null : (
          <li
            role="option"
            aria-selected={selected === ''}
            className={`session-item all${selected === '' ? ' selected' : ''}`}
            data-testid="session-item"
            data-session-id=""
            onClick={() => onSelect('')}
          >
            <div className="si-line1">
              <span className="si-title">All sessions</span>
            </div>
            <div className="si-counts">
              <span>{plural(totals.messages, 'msg')}</span>
              {totals.failed ? <span className="err-text">{totals.failed} failed</span> : null}
              {totals.errors > 0 ? <span className="err-text">{plural(totals.errors, 'error')}</span> : null}
            </div>
          </li>
        )}
        {sessions.map((s) => {
          const t = TRANSPORT[s.transport] ?? { short: s.transport, title: s.transport };
          const side = compare ? (compare.left === s.id ? 'A' : compare.right === s.id ? 'B' : undefined) : undefined;
          const isSelected = comparing ? side !== undefined : selected === s.id;
          return (
            <li
              key={s.id}
              role="option"
              aria-selected={isSelected}
              className={`session-item${isSelected ? ' selected' : ''}${side ? ` picked-${side}` : ''}${s.status === 'closed' ? ' closed' : ''}`}
              data-testid="session-item"
              data-session-id={s.id}
              data-status={s.status}
              data-side={side}
              onClick={() => (comparing ? onPick?.(s.id) : onSelect(s.id))}
              title={`${s.id} · ${escapeInvisible(s.target)}${s.mcpSessionId ? `\nMcp-Session-Id: ${escapeInvisible(s.mcpSessionId)}` : ''}${s.grouping ? `\n${escapeInvisible(s.grouping)}` : ''}`}
            >
              <div className="si-line1">
                {comparing ? (
                  <span
                    className={`si-pick${side ? ` side-${side}` : ''}`}
                    data-testid="compare-pick"
                    data-checked={side !== undefined}
                    aria-hidden="true"
                  >
                    {side ?? ''}
                  </span>
                ) : null}
                <span className={`si-dot ${s.status}`} aria-hidden="true" />
                <span className={`transport t-${s.transport}`} title={t.title}>
                  {t.short}
                </span>
                {/* In its colour when there are several: the "All sessions" timeline's badges wear it too. */}
                <span className={`si-id mono${sessions.length > 1 ? ` sess-id sess-c${sessionColour(s.id)}` : ''}`}>{s.id}</span>
                {s.targetName ? (
                  <span className="si-target mono" title={escapeInvisible(s.target)} data-testid="session-target">
                    <Vis text={s.targetName} />
                  </span>
                ) : null}
                <span className="spacer" />
                <span className="si-time mono">{formatClock(s.startedAt)}</span>
              </div>
              {s.transport === 'stdio' && s.target ? (
                <div
                  className="si-command mono"
                  data-testid="session-command"
                  title={`The server's command line: ${escapeInvisible(s.target)}`}
                >
                  <span className="si-prompt" aria-hidden="true">
                    $
                  </span>{' '}
                  <Vis text={s.target} />
                </div>
              ) : null}
              {s.transport === 'http' ? (
                <div className="si-peers si-http" data-testid="session-http">
                  <span title={escapeInvisible(s.target)}>
                    {modelTurns?.get(s.id) ? 'Model API traffic to' : 'HTTP traffic to'} <Vis text={s.target} />
                  </span>
                </div>
              ) : (
                <div className="si-peers">
                  <span className="si-role" aria-hidden="true" />
                  {peer(s.clientInfo, 'unknown client')}
                  <span className="si-role" title="talks to">
                    →
                  </span>
                  {peer(s.serverInfo, 'unknown server')}
                </div>
              )}
              <div className="si-meta">
                {s.transport === 'http' && modelTurns?.get(s.id) ? (
                  <span className="si-model" data-testid="session-model-turns" title="Calls of an agent to its model API (the Model tab)">
                    {plural(modelTurns.get(s.id)!, 'model turn')}
                  </span>
                ) : s.transport === 'http' ? (
                  <span className="muted">not MCP (OAuth, metadata, …)</span>
                ) : s.protocolVersion ? (
                  <span title="MCP protocol version">
                    MCP <Vis text={s.protocolVersion} />
                  </span>
                ) : (
                  <span className="muted">no initialize seen</span>
                )}
                {s.status === 'closed' ? (
                  <span className="si-closed">closed{s.closeReason ? ` · ${CLOSE_REASON[s.closeReason] ?? s.closeReason}` : ''}</span>
                ) : (
                  <span className="si-open">open</span>
                )}
              </div>
              <div className="si-counts">
                {s.transport === 'http' ? (
                  <span title="HTTP exchanges">{plural(s.counts.exchanges, 'exchange')}</span>
                ) : (
                  <>
                    <span title="JSON-RPC messages">{plural(s.counts.messages, 'msg')}</span>
                    <span title="requests">{plural(s.counts.requests, 'req', 'reqs')}</span>
                  </>
                )}
                {s.counts.pending > 0 ? (
                  <span className="pending-text" title="requests without an answer yet">
                    {s.counts.pending} pending
                  </span>
                ) : null}
                {s.counts.failed ? (
                  <span
                    className="err-text"
                    data-testid="session-failed"
                    title="requests answered by HTTP alone (a 4xx or 5xx status, or no response) without a JSON-RPC answer"
                  >
                    {s.counts.failed} failed
                  </span>
                ) : null}
                {s.counts.errors > 0 ? (
                  <span className="err-text" title="errors, tool errors and protocol mistakes">
                    {plural(s.counts.errors, 'error')}
                  </span>
                ) : null}
                <SpecCount
                  session={s}
                  selected={isSelected && !comparing}
                  error={specErrors?.has(s.id) === true}
                  onLintReport={onLintReport}
                />
              </div>
            </li>
          );
        })}
      </ul>
      {sessions.length === 0 ? <div className="pane-empty">Sessions appear when a client sends initialize through the proxy.</div> : null}
    </aside>
  );
}
