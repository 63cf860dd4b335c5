/**
 * What mcpscope did to a row's messages, above the detail tabs: a message edited at a
 * breakpoint, with its original one click away (the `modification` event its `edited` names keeps
 * it as `before`), and messages mcpscope sent itself (a resend, a tool called from the UI, an
 * answer given at a breakpoint).
 */
import './ActedNotes.css';
import { useState } from 'react';
import type { TimelineStore } from '../../state/store.js';
import type { Row } from '../../state/types.js';
import { rowMessages } from '../row-info.js';
import { sentByMcpscope } from '../../state/breakpoints.js';
import { JsonView } from '../JsonView.js';

/** The original text of an edited message, parsed when it is JSON. */
function originalOf(store: TimelineStore, seq: number): { value: unknown } | undefined {
  const e = store.event(seq);
  if (!e || e.type !== 'modification') return undefined;
  try {
    return { value: JSON.parse(e.before) as unknown };
  } catch {
    return { value: e.before };
  }
}

export function ActedNotes({ store, row }: { store: TimelineStore; row: Row }) {
  const [open, setOpen] = useState<number | undefined>();
  const edited = rowMessages(row).filter((m) => m.edited !== undefined);
  const sent = sentByMcpscope(row);
  if (edited.length === 0 && !sent) return null;
  return (
    <div className="acted-notes">
      {sent ? (
        <div className="acted-note sent" data-testid="sent-note">
          <span className="acted-tag sent">sent by mcpscope</span> mcpscope sent this itself (from the UI or the API), not the client.
        </div>
      ) : null}
      {edited.map((m) => {
        const original = originalOf(store, m.edited!);
        const shown = open === m.seq;
        return (
          <div key={m.seq} className="acted-note edited" data-testid="edited-note">
            <div className="acted-line">
              <span className="acted-tag edited">edited</span>
              <span>
                The {m.kind} {m.dir === 'c2s' ? 'client → server' : 'server → client'} was edited at a breakpoint: the tabs show it as sent.
              </span>
              <span className="spacer" />
              {original ? (
                <button
                  type="button"
                  className={`btn btn-sm${shown ? ' btn-primary' : ''}`}
                  data-testid="show-original"
                  aria-pressed={shown}
                  onClick={() => setOpen(shown ? undefined : m.seq)}
                >
                  Original (before edit)
                </button>
              ) : (
                <span className="muted">the original is no longer kept</span>
              )}
            </div>
            {shown && original ? (
              <div data-testid="original-json">
                <JsonView value={original.value} label="original" />
              </div>
            ) : null}
          </div>
        );
      })}
    </div>
  );
}
