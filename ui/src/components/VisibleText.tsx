/**
 * Peer-supplied text on screen with its invisible characters drawn as badges (`⟨U+202E⟩`, see
 * ui/src/state/visible-text.ts), isolated from the text around it so that right-to-left letters
 * in a name cannot move what sits beside it.
 */
import './VisibleText.css';
import type { ReactNode } from 'react';
import { hasInvisible, visibleParts, type VisibleOptions } from '../state/visible-text.js';

const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]|\uD802[\uDC00-\uDFFF]|\uD803[\uDC00-\uDE7F]|\uD83A[\uDD00-\uDD5F]/;

/** `text` with its invisible characters as badges. Plain text (the usual case) renders as itself. */
export function Vis({ text, multiline }: { text: string | undefined; multiline?: boolean }): ReactNode {
  if (text === undefined || text === '') return null;
  const parts = visibleParts(text, { multiline });
  if (parts.length === 1 && typeof parts[0] === 'string') return RTL.test(text) ? <bdi>{text}</bdi> : text;
  return (
    <bdi className="vt" data-invisible="">
      {parts.map((p, i) =>
        typeof p === 'string' ? (
          p
        ) : (
          <span key={i} className="invisible-char" title={p.title} data-testid="invisible-char">
            {p.label}
          </span>
        ),
      )}
    </bdi>
  );
}

/** A warning marker for a name holding invisible characters (nothing when it has none). */
export function InvisibleMark({ texts, options }: { texts: readonly (string | undefined)[]; options?: VisibleOptions }): ReactNode {
  if (!texts.some((t) => hasInvisible(t, options))) return null;
  return (
    <span
      className="invisible-mark"
      data-testid="invisible-mark"
      title="This name holds invisible characters (shown as ⟨U+…⟩ badges): it may not be what it looks like."
      aria-label="holds invisible characters"
    >
      ⚠
    </span>
  );
}
