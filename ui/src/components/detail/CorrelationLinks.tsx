/**
 * Correlation links: the rows this row answers, nests under or is tied to, as links that select
 * them.
 */
import type { ReactNode } from 'react';
import type { TimelineStore } from '../../state/store.js';
import type { Row } from '../../state/types.js';
import { rowTitle } from '../../state/format.js';
import { Vis } from '../VisibleText.js';
import { exchangeTitle, rowKeysForMessage, seqTitle } from '../row-info.js';
import { findRowKey } from './shared.js';
import { turnKey } from '../../state/model-turns.js';

export function CorrelationLinks({
  store,
  row,
  onSelect,
  onSection,
}: {
  store: TimelineStore;
  row: Row;
  onSelect(key: string): void;
  onSection(id: string): void;
}) {
  const links: ReactNode[] = [];
  /** A chip that selects the row `to` (its title after the label) or shows a section of this one. */
  const chip = (link: string, label: ReactNode, go: { to: string } | { section: string }, title?: string, warn?: boolean) =>
    links.push(
      <button
        key={link}
        type="button"
        className={warn ? 'chip chip-warn' : 'chip'}
        onClick={() => ('to' in go ? onSelect(go.to) : onSection(go.section))}
        data-link={link}
        title={title}
      >
        {label}
        {'to' in go ? (
          <>
            {' '}
            <span className="chip-sub">
              <Vis text={rowTitleSafe(store, go.to)} />
            </span>
          </>
        ) : null}
      </button>,
    );
  const parentKey = row.type === 'call' || row.type === 'notification' ? row.parentKey : undefined;
  if (parentKey && store.row(parentKey)) chip('parent', '↖ parent call', { to: parentKey });
  if (row.type === 'call') {
    chip('request', `request #${row.request.seq}`, { section: 'request' }, `Show the request. ${seqTitle(row.request.seq)}`);
    if (row.response) {
      const what = row.response.kind === 'error' ? 'error' : 'response';
      chip('response', `${what} #${row.response.seq}`, { section: 'response' }, `Show the ${what}. ${seqTitle(row.response.seq)}`);
    }
    if (row.progress.length) chip('progress', `progress ×${row.progress.length}`, { section: 'progress' });
    if (row.cancel) {
      chip('cancel', `cancelled #${row.cancel.seq}`, { section: 'cancel' }, `Show the cancellation. ${seqTitle(row.cancel.seq)}`, true);
    }
    if (row.children.length) chip('children', `nested ×${row.children.length}`, { section: 'children' });
    // Issue 27: the model turn that chose this tool call.
    const asked = row.request.modelCall;
    if (asked && store.row(turnKey(asked.turn))) chip('model-turn', `← model turn ${asked.turn}`, { to: turnKey(asked.turn) });
  } else if (row.type === 'turn') {
    // The MCP calls that carried out the tool calls it chose; the turns before and after it in the loop.
    const t = row.turn;
    const before = new Set(t.toolResults.map((r) => r.fromTurn).filter((id): id is string => id !== undefined));
    for (const id of before) if (store.row(turnKey(id))) chip(`from-${id}`, `← turn ${id}`, { to: turnKey(id) });
    for (const c of t.toolCalls) {
      const key = c.mcpCall ? store.rowOfMessage(c.mcpCall.seq)?.key : undefined;
      if (key) chip(`call-${c.id}`, `→ ${c.tool ?? c.name}`, { to: key }, `The MCP call that carried out ${c.name}`, c.mcpFailed);
    }
    const after = new Set(t.toolCalls.map((c) => c.resultTurn).filter((id): id is string => id !== undefined));
    for (const id of after) if (store.row(turnKey(id))) chip(`next-${id}`, `→ turn ${id}`, { to: turnKey(id) });
  } else if (row.type === 'notification' || row.type === 'orphan') {
    const m = row.message;
    if (m.pair !== undefined) {
      const target = findRowKey(store, [`c${m.pair}`]);
      const what =
        m.method === 'notifications/cancelled' ? 'cancelled request' : m.method === 'notifications/progress' ? 'progress of' : 'request';
      if (target) chip('pair', `→ ${what}`, { to: target });
    }
    if (m.replayOf !== undefined) {
      const target = findRowKey(store, rowKeysForMessage({ ...m, seq: m.replayOf, replayOf: undefined }));
      if (target) {
        // The original's title is in the tooltip, not after the label.
        links.push(
          <button
            key="replay"
            type="button"
            className="chip"
            onClick={() => onSelect(target)}
            data-link="replay"
            title={`A copy the server sent again when the client resumed the stream. The original is ${seqTitle(m.replayOf)}`}
          >
            replay of #{m.replayOf}
          </button>,
        );
      }
    }
  } else if (row.type === 'problem' && row.event.exchangeId) {
    const first = store.messagesOfExchange(row.event.exchangeId)[0];
    const target = first ? findRowKey(store, rowKeysForMessage(first)) : undefined;
    if (target) chip('exchange', `→ call on exchange ${row.event.exchangeId}`, { to: target }, exchangeTitle(row.event.exchangeId));
  }
  if (links.length === 0) return null;
  return <div className="links">{links}</div>;
}

function rowTitleSafe(store: TimelineStore, key: string): string {
  const r = store.row(key);
  return r ? rowTitle(r) : key;
}
