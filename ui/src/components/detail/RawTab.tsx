/**
 * The Raw tab: the frames as they were on the wire.
 */
import { useState } from 'react';
import type { Row } from '../../state/types.js';
import { formatBytes, jsonPretty } from '../../state/format.js';
import { Vis } from '../VisibleText.js';
import { rowMessages } from '../row-info.js';
import { Seq, CarrierLabel, ExchangeLabel } from './shared.js';

const RAW_CLIP = 200_000;

export function RawText({ text }: { text: string }) {
  const [full, setFull] = useState(false);
  const clipped = !full && text.length > RAW_CLIP;
  return (
    <pre className="raw">
      <Vis text={clipped ? text.slice(0, RAW_CLIP) : text} multiline />
      {clipped ? (
        <button type="button" className="link-button" onClick={() => setFull(true)}>
          … show the remaining {formatBytes(text.length - RAW_CLIP)}
        </button>
      ) : null}
    </pre>
  );
}

export function RawTab({ row }: { row: Row }) {
  if (row.type === 'log') return <RawText text={row.event.text} />;
  if (row.type === 'turn') return <RawText text={jsonPretty(row.turn)} />;
  if (row.type === 'problem') {
    return row.event.raw !== undefined ? (
      <RawText text={row.event.raw} />
    ) : (
      <div className="placeholder">No bytes were kept for this problem.</div>
    );
  }
  if (row.type === 'http') {
    const x = row.exchange;
    if (x.requestPreview === undefined && x.responsePreview === undefined)
      return <div className="placeholder">No body was kept for this exchange (it had none, or it was not read).</div>;
    return (
      <div className="raw-list">
        {(
          [
            ['Request body', x.requestPreview],
            ['Response body', x.responsePreview],
          ] as const
        ).map(([title, text]) =>
          text !== undefined ? (
            <div className="panel" key={title}>
              <div className="panel-head">
                <span className="panel-title">{title}</span>
                <span className="muted">redacted, first {formatBytes(text.length)}</span>
              </div>
              <RawText text={text} />
            </div>
          ) : null,
        )}
      </div>
    );
  }
  const msgs = rowMessages(row);
  return (
    <div className="raw-list">
      {msgs.map((m) => (
        <div className="panel" key={m.seq}>
          <div className="panel-head">
            <span className="panel-title">
              {m.kind}{' '}
              {m.method ? (
                <span className="muted">
                  <Vis text={m.method} />
                </span>
              ) : null}
            </span>
            <div className="msg-meta">
              <Seq seq={m.seq} />
              <span>{formatBytes(m.size)} on the wire</span>
              {m.location ? (
                <span className="mono">
                  offset {m.location.offset} · frame {m.location.length} B
                  {m.location.eventId !== undefined ? (
                    <>
                      {' · id '}
                      <Vis text={m.location.eventId} />
                    </>
                  ) : null}
                  {m.location.eventType ? (
                    <>
                      {' · event '}
                      <Vis text={m.location.eventType} />
                    </>
                  ) : null}
                </span>
              ) : null}
              <CarrierLabel carrier={m.carrier} />
              {m.exchangeId ? <ExchangeLabel id={m.exchangeId} /> : null}
            </div>
          </div>
          {m.raw !== undefined ? (
            <RawText text={m.raw} />
          ) : (
            <>
              <div className="note">
                The exact frame text was not kept ({m.batch ? 'member of a batch' : m.truncated ? 'too large' : 'redacted or too large'});
                showing the parsed message.
              </div>
              <RawText text={jsonPretty(m.jsonrpc)} />
            </>
          )}
        </div>
      ))}
    </div>
  );
}
