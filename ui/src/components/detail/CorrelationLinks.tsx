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
  const parentKey = row.type === 'call' || row.type === 'notification' ? row.parentKey : undefined;
  if (parentKey && store.row(parentKey)) {
    links.push(
      <button key="parent" type="button" className="chip" onClick={() => onSelect(parentKey)} data-link="parent">
        ↖ parent call{' '}
        <span className="chip-sub">
          <Vis text={rowTitleSafe(store, parentKey)} />
        </span>
      </button>,
    );
  }
  if (row.type === 'call') {
    links.push(
      <button
        key="req"
        type="button"
        className="chip"
        onClick={() => onSection('request')}
        data-link="request"
        title={`Show the request. ${seqTitle(row.request.seq)}`}
      >
        request #{row.request.seq}
      </button>,
    );
    if (row.response) {
      links.push(
        <button
          key="res"
          type="button"
          className="chip"
          onClick={() => onSection('response')}
          data-link="response"
          title={`Show the ${row.response.kind === 'error' ? 'error' : 'response'}. ${seqTitle(row.response.seq)}`}
        >
          {row.response.kind === 'error' ? 'error' : 'response'} #{row.response.seq}
        </button>,
      );
    }
    if (row.progress.length) {
      links.push(
        <button key="prog" type="button" className="chip" onClick={() => onSection('progress')} data-link="progress">
          progress ×{row.progress.length}
        </button>,
      );
    }
    if (row.cancel) {
      links.push(
        <button
          key="cancel"
          type="button"
          className="chip chip-warn"
          onClick={() => onSection('cancel')}
          data-link="cancel"
          title={`Show the cancellation. ${seqTitle(row.cancel.seq)}`}
        >
          cancelled #{row.cancel.seq}
        </button>,
      );
    }
    if (row.children.length) {
      links.push(
        <button key="children" type="button" className="chip" onClick={() => onSection('children')} data-link="children">
          nested ×{row.children.length}
        </button>,
      );
    }
  } else if (row.type === 'notification' || row.type === 'orphan') {
    const m = row.message;
    if (m.pair !== undefined) {
      const target = findRowKey(store, [`c${m.pair}`]);
      const what =
        m.method === 'notifications/cancelled' ? 'cancelled request' : m.method === 'notifications/progress' ? 'progress of' : 'request';
      if (target) {
        links.push(
          <button key="pair" type="button" className="chip" onClick={() => onSelect(target)} data-link="pair">
            → {what}{' '}
            <span className="chip-sub">
              <Vis text={rowTitleSafe(store, target)} />
            </span>
          </button>,
        );
      }
    }
    if (m.replayOf !== undefined) {
      const target = findRowKey(store, rowKeysForMessage({ ...m, seq: m.replayOf, replayOf: undefined }));
      if (target) {
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
    if (target) {
      links.push(
        <button
          key="ex"
          type="button"
          className="chip"
          onClick={() => onSelect(target)}
          data-link="exchange"
          title={exchangeTitle(row.event.exchangeId)}
        >
          → call on exchange {row.event.exchangeId}{' '}
          <span className="chip-sub">
            <Vis text={rowTitleSafe(store, target)} />
          </span>
        </button>,
      );
    }
  }
  if (links.length === 0) return null;
  return <div className="links">{links}</div>;
}

function rowTitleSafe(store: TimelineStore, key: string): string {
  const r = store.row(key);
  return r ? rowTitle(r) : key;
}
