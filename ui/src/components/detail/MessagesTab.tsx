/**
 * The Messages tab: request and response side by side, progress, cancellation, nested calls; a
 * protocol problem or a stderr line on its own.
 */
import { useMemo } from 'react';
import type { TimelineStore } from '../../state/store.js';
import type { CallRow, LogRow, MessageEvent, Row } from '../../state/types.js';
import { describeErrorCode } from '../../../../proxy/core/annotate/error-codes.js';
import { formatBytes, formatMs, jsonText, rowTitle } from '../../state/format.js';
import { JsonView } from '../JsonView.js';
import { InvisibleMark, Vis } from '../VisibleText.js';
import { STATUS_LABEL, dirLabel, notificationGist, rowStatus, seqTitle } from '../row-info.js';
import { MessageMeta, ExchangeLabel, Payload, SessionLabel, EventStamp } from './shared.js';
import { RawText } from './RawTab.js';
import { HttpTab } from './HttpTab.js';

export function MessagesTab({ store, row, onSelect }: { store: TimelineStore; row: Row; onSelect(key: string): void }) {
  if (row.type === 'problem') return <ProblemView row={row} />;
  if (row.type === 'log') return <LogView store={store} row={row} />;
  if (row.type === 'turn') {
    // A model turn: the Model tab shows it; here, the exchange that carried it.
    const x = store.exchanges.get(row.turn.exchangeId);
    return (
      <div className="messages">
        <div className="note">A call to a model API, not MCP: the Model tab shows the conversation; this is its HTTP exchange.</div>
        {x ? <HttpTab store={store} exchanges={[x]} /> : null}
      </div>
    );
  }
  if (row.type === 'http') {
    // Plain HTTP carries no JSON-RPC: what there is to see is the exchange itself.
    const x = store.exchanges.get(row.exchange.id) ?? row.exchange;
    return (
      <div className="messages">
        <div className="note">
          Plain HTTP, not MCP: recorded as an HTTP exchange (redacted previews of its bodies), not parsed as JSON-RPC.
        </div>
        <HttpTab store={store} exchanges={[x]} />
      </div>
    );
  }
  if (row.type !== 'call') {
    const m = row.message;
    const g = row.type === 'notification' ? notificationGist(m) : undefined;
    return (
      <div className="messages">
        <div className="panel" data-section="message">
          <div className="panel-head">
            <span className="panel-title">{row.type === 'orphan' ? `Unmatched ${m.kind}` : 'Notification'}</span>
            <MessageMeta m={m} />
          </div>
          {g ? (
            <div className="gist">
              {g.level ? (
                <span className={`tag lvl lvl-${g.level}`}>
                  <Vis text={g.level} />
                </span>
              ) : null}{' '}
              <Vis text={g.text} />
            </div>
          ) : null}
          {m.error ? <ErrorBox m={m} /> : null}
          <Payload m={m} label="message" />
        </div>
      </div>
    );
  }
  return <CallMessages store={store} row={row} onSelect={onSelect} />;
}

function ErrorBox({ m }: { m: MessageEvent }) {
  const e = m.error;
  if (!e) return null;
  const meaning = e.meaning ?? describeErrorCode(e.code);
  return (
    <div className="error-box">
      <div>
        <span className="mono">{e.code}</span> <Vis text={e.message} multiline />
      </div>
      {meaning ? <div className="muted">{meaning}</div> : null}
    </div>
  );
}

function CallMessages({ store, row, onSelect }: { store: TimelineStore; row: CallRow; onSelect(key: string): void }) {
  const req = row.request;
  const res = row.response;
  const children = useMemo(() => store.childrenOf(row), [store, row, row.children.length]);
  const lastProgress = row.progress[row.progress.length - 1]?.progress;
  return (
    <div className="messages">
      <div className="call-summary">
        <span>
          <InvisibleMark texts={[req.method, req.name]} />
          <b>
            <Vis text={req.method} />
          </b>
          {req.name ? (
            <span className="muted">
              {' '}
              · <Vis text={req.name} />
            </span>
          ) : null}
        </span>
        <span className="muted">{dirLabel(row.dir)}</span>
        <span className="mono" title="The JSON-RPC id: the response carries the same one">
          id <Vis text={jsonText(req.id, 80)} />
        </span>
        <SessionLabel id={row.sessionId} title="The session this call belongs to (see the list on the left)" />
        {row.latencyMs !== undefined ? <span className="mono">{formatMs(row.latencyMs)}</span> : null}
        {req.progressToken !== undefined ? (
          <span className="mono muted">
            progressToken <Vis text={jsonText(req.progressToken, 80)} />
          </span>
        ) : null}
      </div>
      <div className="side-by-side">
        <div className="panel" data-section="request">
          <div className="panel-head">
            <span className="panel-title">Request</span>
            <MessageMeta m={req} />
          </div>
          <Payload m={req} label="request" />
        </div>
        <div className="panel" data-section="response">
          <div className="panel-head">
            <span className="panel-title">{res?.kind === 'error' ? 'Error' : 'Response'}</span>
            {res ? <MessageMeta m={res} base={req.ts} /> : null}
          </div>
          {res ? (
            <>
              {res.error ? <ErrorBox m={res} /> : null}
              {res.isError ? (
                <div className="note err">The tool reported a failure (result.isError: true) — not a protocol error.</div>
              ) : null}
              <Payload m={res} label="response" />
            </>
          ) : (
            <div className="placeholder">
              {row.status === 'cancelled' ? 'Cancelled before a response arrived.' : 'Waiting for the response…'}
            </div>
          )}
        </div>
      </div>
      {row.progress.length ? (
        <div className="panel" data-section="progress">
          <div className="panel-head">
            <span className="panel-title">Progress</span>
            <span className="muted">
              {row.progress.length} notification{row.progress.length === 1 ? '' : 's'}
              {lastProgress ? ` · last ${lastProgress.progress}${lastProgress.total !== undefined ? `/${lastProgress.total}` : ''}` : ''}
            </span>
          </div>
          <table className="table progress-table">
            <thead>
              <tr>
                <th title="Event number: mcpscope numbers everything it records, in order">#</th>
                <th>after</th>
                <th>progress</th>
                <th />
                <th>message</th>
              </tr>
            </thead>
            <tbody>
              {row.progress.map((p) => {
                const info = p.progress;
                const pct = info?.total ? Math.min(1, info.progress / info.total) : undefined;
                return (
                  <tr key={p.seq}>
                    <td className="mono" title={seqTitle(p.seq)}>
                      {p.seq}
                    </td>
                    <td className="mono">+{formatMs(p.ts - req.ts)}</td>
                    <td className="mono">{info ? `${info.progress}${info.total !== undefined ? `/${info.total}` : ''}` : ''}</td>
                    <td className="pcol">
                      <span className={`pbar${pct === undefined ? ' indeterminate' : ''}`}>
                        <span className="pbar-fill" style={{ width: pct === undefined ? '100%' : `${pct * 100}%` }} />
                      </span>
                    </td>
                    <td>
                      <Vis text={info?.message} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {row.cancel ? (
        <div className="panel" data-section="cancel">
          <div className="panel-head">
            <span className="panel-title">Cancellation</span>
            <MessageMeta m={row.cancel} base={req.ts} />
          </div>
          <div className="gist">
            <Vis text={notificationGist(row.cancel).text} />
          </div>
          <JsonView value={row.cancel.jsonrpc} openDepth={3} />
        </div>
      ) : null}
      {children.length ? (
        <div className="panel" data-section="children">
          <div className="panel-head">
            <span className="panel-title">Nested on this call's stream</span>
            <span className="muted">{children.length}</span>
          </div>
          <ul className="child-list">
            {children.map((c) => {
              const st = rowStatus(c);
              return (
                <li key={c.key}>
                  <button type="button" className="link-button" onClick={() => onSelect(c.key)}>
                    <span className={`badge st-${st}`}>{STATUS_LABEL[st]}</span> <Vis text={rowTitle(c)} />
                  </button>
                  {c.type === 'call' && c.latencyMs !== undefined ? <span className="mono muted"> {formatMs(c.latencyMs)}</span> : null}
                </li>
              );
            })}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

function ProblemView({ row }: { row: Extract<Row, { type: 'problem' }> }) {
  const e = row.event;
  return (
    <div className="messages">
      <div className={`problem-box lvl-${e.level}`}>
        <div className="problem-code mono">{e.code}</div>
        <div>
          <Vis text={e.text} multiline />
        </div>
        <div className="msg-meta">
          <EventStamp seq={e.seq} ts={e.ts} sessionId={e.sessionId} sessionTitle="The session it happened in" />
          {e.exchangeId ? <ExchangeLabel id={e.exchangeId} /> : null}
          {e.location ? (
            <span className="mono">
              offset {e.location.offset} · {e.location.length} B
            </span>
          ) : null}
        </div>
      </div>
      {e.raw !== undefined ? (
        <div className="panel">
          <div className="panel-head">
            <span className="panel-title">Offending bytes</span>
            <span className="muted">{formatBytes(e.raw.length)}</span>
          </div>
          <RawText text={e.raw} />
        </div>
      ) : null}
    </div>
  );
}

/** A line the wrapped stdio server wrote to stderr, with its neighbours for context. */
function LogView({ store, row }: { store: TimelineStore; row: LogRow }) {
  const e = row.event;
  const session = e.sessionId !== undefined ? store.sessions.get(e.sessionId) : undefined;
  return (
    <div className="messages">
      <div className="panel" data-section="log">
        <div className="panel-head">
          <span className="panel-title">
            <span className="tag tag-stderr">stderr</span> A line the server process wrote to stderr
          </span>
          <div className="msg-meta">
            <EventStamp seq={e.seq} ts={e.ts} sessionId={e.sessionId} sessionTitle="The session of the process" />
          </div>
        </div>
        <RawText text={e.text} />
        <div className="note">
          A stdio server's stderr is its own log output, outside MCP: mcpscope relays it unchanged and records it line by line
          {session?.transport === 'stdio' ? (
            <>
              {' '}
              for{' '}
              <span className="mono">
                <Vis text={session.target} />
              </span>
            </>
          ) : null}
          .
        </div>
      </div>
    </div>
  );
}
