/**
 * The Stream tab: the SSE event-stream table of each response stream.
 */
import { useState } from 'react';
import type { TimelineStore } from '../../state/store.js';
import type { ExchangeInfo, Row } from '../../state/types.js';
import { formatMs, plural } from '../../state/format.js';
import { Vis } from '../VisibleText.js';
import { escapeInvisible } from '../../state/visible-text.js';
import { carrierText, rowKeysForMessage, rowMessages, seqTitle } from '../row-info.js';
import { findRowKey, ExchangeLabel } from './shared.js';

const STREAM_PAGE = 500;

export function StreamTab({
  store,
  row,
  exchanges,
  onSelect,
}: {
  store: TimelineStore;
  row: Row;
  exchanges: ExchangeInfo[];
  onSelect(key: string): void;
}) {
  const mine = new Set(rowMessages(row).map((m) => m.seq));
  if (exchanges.length === 0)
    return <div className="placeholder">This row did not travel on an event stream (plain JSON over HTTP, or stdio).</div>;
  return (
    <div className="streams">
      {exchanges.map((x) => (
        <StreamTable key={x.id} store={store} exchange={x} mine={mine} onSelect={onSelect} />
      ))}
    </div>
  );
}

function StreamTable({
  store,
  exchange,
  mine,
  onSelect,
}: {
  store: TimelineStore;
  exchange: ExchangeInfo;
  mine: ReadonlySet<number>;
  onSelect(key: string): void;
}) {
  const entries = store.streamOf(exchange.id);
  const [limit, setLimit] = useState(STREAM_PAGE);
  // Start the window at the row's own entries when the stream is long.
  const firstMine = entries.findIndex((e) => e.messageSeq !== undefined && mine.has(e.messageSeq));
  const from = entries.length > limit && firstMine > limit / 2 ? Math.max(0, firstMine - Math.floor(limit / 2)) : 0;
  const shown = entries.slice(from, from + limit);
  return (
    <div className="panel">
      <div className="panel-head">
        <span className="panel-title">
          <Vis text={exchange.method} /> <Vis text={exchange.url} />{' '}
          <span className="muted">({exchange.carrier ? carrierText(exchange.carrier).short : exchange.responseType})</span>
        </span>
        <span className="muted">
          <ExchangeLabel id={exchange.id} /> · {plural(entries.length, 'event')}
        </span>
      </div>
      <table className="table stream-table">
        <colgroup>
          <col style={{ width: 48 }} />
          <col style={{ width: 68 }} />
          <col style={{ width: 84 }} />
          <col style={{ width: 44 }} />
          <col style={{ width: 76 }} />
          <col />
          <col style={{ width: 58 }} />
          <col style={{ width: 52 }} />
        </colgroup>
        <thead>
          <tr>
            <th title="Event number: mcpscope numbers everything it records, in order">#</th>
            <th>time</th>
            <th>type</th>
            <th>id</th>
            <th>event</th>
            <th>data</th>
            <th className="num">offset</th>
            <th className="num">length</th>
          </tr>
        </thead>
        <tbody>
          {from > 0 ? (
            <tr>
              <td colSpan={8} className="muted">
                … {plural(from, 'earlier event')}
              </td>
            </tr>
          ) : null}
          {shown.map((e) => {
            const isMine = e.messageSeq !== undefined && mine.has(e.messageSeq);
            const target = e.messageSeq !== undefined ? targetOf(store, e.messageSeq) : undefined;
            return (
              <tr
                key={e.seq}
                className={`what-${e.what}${isMine ? ' mine' : ''}${target ? ' clickable' : ''}`}
                onClick={target && !isMine ? () => onSelect(target) : undefined}
              >
                <td className="mono muted" title={seqTitle(e.seq)}>
                  {e.seq}
                </td>
                <td className="mono">+{formatMs(e.ts - exchange.startedAt)}</td>
                <td>
                  <span className={`tag what what-${e.what}`} title={e.retry !== undefined ? `retry: ${e.retry} ms` : undefined}>
                    {e.what}
                  </span>
                </td>
                <td className="mono">
                  <Vis text={e.eventId} />
                </td>
                <td className="mono">
                  <Vis text={e.eventType ?? (e.what === 'message' ? 'message' : '')} />
                </td>
                <td className="mono data-cell" title={escapeInvisible(e.summary)}>
                  {e.method ? (
                    <span className="data-method">
                      <Vis text={e.kind === 'response' || e.kind === 'error' ? `${e.kind} ${e.method}` : e.method} />
                    </span>
                  ) : null}
                  {e.replayOf !== undefined ? <span className="tag tag-warn">replay of #{e.replayOf}</span> : null}
                  <Vis text={e.summary} />
                </td>
                <td className="mono num">{e.offset >= 0 ? e.offset : '—'}</td>
                <td className="mono num">{e.length}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {from + limit < entries.length ? (
        <button type="button" className="link-button more" onClick={() => setLimit((l) => l + STREAM_PAGE)}>
          show {Math.min(STREAM_PAGE, entries.length - from - limit)} more of {entries.length - from - limit}
        </button>
      ) : null}
    </div>
  );
}

function targetOf(store: TimelineStore, seq: number): string | undefined {
  const m = store.message(seq);
  return m ? findRowKey(store, rowKeysForMessage(m)) : undefined;
}
