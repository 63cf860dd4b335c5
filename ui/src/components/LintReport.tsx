/**
 * A session's lint report: the MCP specification rules its messages broke, how often,
 * the first time each was broken (a click selects that message in the timeline) and the section
 * of the specification each rule comes from. Computed from the session's spec-violation problem
 * events (`lintReport`, the shape of `GET /api/sessions/:id/lint`).
 */
import './LintReport.css';
import { useMemo } from 'react';
import type { TimelineStore } from '../state/store.js';
import type { ProblemEvent } from '../state/types.js';
import { formatClock, plural } from '../state/format.js';
import { specUrl } from '../state/violations.js';
import { lintReport, type LintRuleSummary } from '../../../proxy/core/lint/lint-report.js';
import { Vis } from './VisibleText.js';

export interface LintReportProps {
  store: TimelineStore;
  /** Store version (recomputed on change). */
  version: number;
  sessionId: string;
  /** Select a row in the timeline (the first occurrence of a rule). */
  onSelect(key: string): void;
}

export function LintReport({ store, version, sessionId, onSelect }: LintReportProps) {
  const session = store.sessions.get(sessionId);
  const report = useMemo(
    () =>
      lintReport(sessionId, store.problems, {
        protocolVersion: session?.protocolVersion,
        sessionOf: (p: ProblemEvent) => (p.exchangeId !== undefined ? store.exchanges.get(p.exchangeId)?.sessionId : undefined),
      }),
    // The store's problems grow in place: the version says when (a dependency the rule cannot see used).
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [store, sessionId, session?.protocolVersion, version],
  );

  /** The row that shows a rule's first occurrence: its message's row, else the violation's own row. */
  const firstRowKey = (r: LintRuleSummary): string | undefined => {
    const byMessage = r.first.message !== undefined ? store.rowOfMessage(r.first.message)?.key : undefined;
    if (byMessage) return byMessage;
    return store.row(`p${r.first.seq}`) ? `p${r.first.seq}` : undefined;
  };

  return (
    <div className="lint-report" data-testid="lint-report" data-session-id={sessionId}>
      <div className="lint-summary">
        <span>
          Session <span className="mono">{sessionId}</span>
        </span>
        {report.protocolVersion ? (
          <span title="The protocol version the session negotiated: the rules are that revision's">
            MCP <Vis text={report.protocolVersion} />
          </span>
        ) : null}
        <span className="spacer" />
        <span data-testid="lint-total" className={report.total > 0 ? 'lint-total some' : 'lint-total'}>
          {report.total > 0 ? `${plural(report.total, 'violation')} of ${plural(report.rules.length, 'rule')}` : 'no violations'}
        </span>
      </div>
      {report.rules.length === 0 ? (
        <div className="lint-empty" data-testid="lint-empty">
          No spec violations in this session
        </div>
      ) : (
        <table className="lint-table">
          <thead>
            <tr>
              <th>Rule</th>
              <th className="num">Times</th>
              <th>First</th>
            </tr>
          </thead>
          <tbody>
            {report.rules.map((r) => {
              const key = firstRowKey(r);
              const url = specUrl(r.specRef);
              return (
                <tr key={r.rule} data-testid="lint-rule" data-rule={r.rule} data-level={r.level}>
                  <td>
                    <div className="lint-rule-id mono">
                      <span className={`lint-dot spec-${r.level}`} title={r.level === 'error' ? 'error (strict mode)' : 'warning'} />
                      <Vis text={r.rule} />
                    </div>
                    {r.specRef ? (
                      url ? (
                        <a className="lint-ref" href={url} target="_blank" rel="noreferrer" data-testid="lint-ref">
                          <Vis text={r.specRef} />
                        </a>
                      ) : (
                        <span className="lint-ref" data-testid="lint-ref">
                          <Vis text={r.specRef} />
                        </span>
                      )
                    ) : null}
                  </td>
                  <td className="num mono" data-testid="lint-count">
                    {r.count}
                  </td>
                  <td className="lint-first">
                    {key ? (
                      <button
                        type="button"
                        className="link-button mono"
                        data-testid="lint-first"
                        onClick={() => onSelect(key)}
                        title="Select it in the timeline"
                      >
                        #{r.first.message ?? r.first.seq}
                      </button>
                    ) : (
                      <span className="mono muted">#{r.first.message ?? r.first.seq}</span>
                    )}{' '}
                    <span className="mono muted">{formatClock(r.first.ts)}</span>
                    <div className="lint-first-text">
                      <Vis text={r.first.text} />
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
