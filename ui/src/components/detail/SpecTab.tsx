/**
 * The Spec tab: the MCP specification rules this row's messages broke, as the linter
 * reported them (`problem` events with `code: "spec-violation"`): each rule with its reference in
 * the specification, the part of the message at fault, what was expected there, and the message
 * itself with that part marked.
 */
import './SpecTab.css';
import { useMemo } from 'react';
import type { TimelineStore } from '../../state/store.js';
import type { MessageEvent, ProblemEvent } from '../../state/types.js';
import { isLintNote, resolvePointer, specUrl } from '../../state/violations.js';
import { Vis } from '../VisibleText.js';
import { dirLabel } from '../row-info.js';
import { Payload, Seq } from './shared.js';

export interface SpecTabProps {
  store: TimelineStore;
  /** The violations to show (a row's messages', or a violation row's own). */
  violations: readonly ProblemEvent[];
}

interface Group {
  message?: MessageEvent;
  list: ProblemEvent[];
}

function groupByMessage(store: TimelineStore, violations: readonly ProblemEvent[]): Group[] {
  const groups = new Map<number | undefined, Group>();
  for (const p of violations) {
    const m = p.message !== undefined ? store.message(p.message) : undefined;
    const key = m?.seq;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { message: m, list: [] }));
    g.list.push(p);
  }
  return [...groups.values()];
}

export function SpecTab({ store, violations }: SpecTabProps) {
  const groups = groupByMessage(store, violations);
  if (groups.length === 0) return <div className="placeholder">This row broke no rule of the MCP specification.</div>;
  // Paths marked in the message are the violations' (a note's path is only where checking stopped).
  return (
    <div className="spec-tab" data-testid="spec-tab">
      {groups.map((g) => (
        <SpecGroup key={g.message?.seq ?? 'none'} group={g} />
      ))}
    </div>
  );
}

function SpecGroup({ group }: { group: Group }) {
  const m = group.message;
  const paths = useMemo(
    () =>
      group.list
        .filter((p) => !isLintNote(p))
        .map((p) => p.path)
        .filter((p): p is string => typeof p === 'string'),
    [group.list],
  );
  return (
    <div className="panel spec-group" data-testid="spec-group" data-message={m?.seq}>
      <div className="panel-head">
        <span className="panel-title">
          {m ? (
            <>
              {m.kind}{' '}
              <span className="muted">
                <Vis text={m.method} />
              </span>
            </>
          ) : (
            'Not about one message'
          )}
        </span>
        {m ? <span className="muted">{dirLabel(m.dir)}</span> : null}
        {m ? (
          <span className="muted">
            <Seq seq={m.seq} />
          </span>
        ) : null}
      </div>
      <ul className="spec-list">
        {group.list.map((p) => (
          <Violation key={p.seq} p={p} m={m} />
        ))}
      </ul>
      {m && paths.length > 0 ? (
        <div className="spec-json">
          <div className="spec-json-title muted">The message, with the parts at fault marked</div>
          <Payload m={m} label="spec" highlight={paths} />
        </div>
      ) : null}
    </div>
  );
}

function Violation({ p, m }: { p: ProblemEvent; m?: MessageEvent }) {
  const url = specUrl(p.specRef);
  // Whether the path names a member the message does not have (marked on its nearest ancestor).
  const missing = p.path !== undefined && m !== undefined && !m.elided ? resolvePointer(m.jsonrpc, p.path)?.missing === true : false;
  // A linter note says what mcpscope could not check: grey, never the peer's fault.
  const note = isLintNote(p);
  const level = note ? 'unchecked' : p.level === 'error' ? 'error' : 'warn';
  return (
    <li
      className={`spec-item lvl-${level}`}
      data-testid={note ? 'spec-not-checked' : 'spec-violation'}
      data-rule={p.rule}
      data-level={level}
    >
      <div className="spec-line1">
        <span className={`spec-level spec-${level}`}>{note ? 'not checked' : level === 'error' ? 'error' : 'warning'}</span>
        <span className="spec-rule mono" data-testid="spec-rule">
          <Vis text={p.rule ?? '(unnamed rule)'} />
        </span>
        <span className="spacer" />
        {p.specRef ? (
          url ? (
            <a
              className="spec-ref"
              data-testid="spec-ref"
              href={url}
              target="_blank"
              rel="noreferrer"
              title="The section of the MCP specification"
            >
              <Vis text={p.specRef} />
            </a>
          ) : (
            <span className="spec-ref" data-testid="spec-ref">
              <Vis text={p.specRef} />
            </span>
          )
        ) : null}
      </div>
      <div className="spec-text">
        <Vis text={p.text} multiline />
      </div>
      <dl className="spec-facts">
        {p.path !== undefined ? (
          <>
            <dt>at</dt>
            <dd className="mono" data-testid="spec-path">
              <Vis text={p.path === '' ? '(the whole message)' : p.path} />
              {missing ? <span className="muted"> — not in the message</span> : null}
            </dd>
          </>
        ) : null}
        {p.expected ? (
          <>
            <dt>expected</dt>
            <dd data-testid="spec-expected">
              <Vis text={p.expected} multiline />
            </dd>
          </>
        ) : null}
      </dl>
    </li>
  );
}
