/**
 * Which session a row belongs to, in the "All sessions" timeline: the session's id as
 * the session list shows it and its client's name, in the session's own colour (state/session-label.ts;
 * the session list's id wears the same). A click shows only that session's rows — a `session:`
 * term in the search box (state/filters.ts) — and a second click all sessions again.
 */
import './session-colours.css';
import './SessionBadge.css';
import type { KeyboardEvent as ReactKeyboardEvent, MouseEvent as ReactMouseEvent } from 'react';
import type { SessionLabel } from '../state/session-label.js';
import { Vis } from './VisibleText.js';

/** A badge inside a row: its double click and keys stay its own (the row would open its detail). */
const keepDoubleClick = (e: ReactMouseEvent) => e.stopPropagation();
const keepKeys = (e: ReactKeyboardEvent) => {
  if (e.key === 'Enter' || e.key === ' ') e.stopPropagation();
};

export function SessionBadge({ label, onFilter }: { label: SessionLabel; onFilter?(id: string): void }) {
  // The id as the badge's own text, the name in one span: two elements a row at most (the list renders a few dozen rows).
  const body = (
    <>
      <Vis text={label.id} />
      {label.name !== undefined ? (
        <span className="sb-name">
          <Vis text={label.name} />
        </span>
      ) : null}
    </>
  );
  const cls = `session-badge sess-c${label.colour}`;
  const title = label.title;
  if (!onFilter)
    return (
      <span className={cls} data-testid="row-session" data-session={label.id} title={title}>
        {body}
      </span>
    );
  return (
    <button
      type="button"
      className={cls}
      data-testid="row-session"
      data-session={label.id}
      title={title}
      onClick={(e: ReactMouseEvent) => {
        e.stopPropagation();
        onFilter(label.id);
      }}
      onDoubleClick={keepDoubleClick}
      onKeyDown={keepKeys}
    >
      {body}
    </button>
  );
}
