/**
 * Detail pane for the selected row: Messages (request/response side by side, progress,
 * cancellation, nested calls), Raw frames, HTTP (headers with meanings, hints, previews),
 * Stream (the SSE event-stream table) and Hints. Correlation links select other rows.
 */
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { TimelineStore } from '../state/store.js';
import type { CallRow, ExchangeInfo, LogRow, MessageEvent, Row } from '../state/types.js';
import type { Hint } from '../../../proxy/model/events.js';
import { describeHeader } from '../../../proxy/annotate/http-hints.js';
import { describeErrorCode } from '../../../proxy/annotate/error-codes.js';
import { curlFor, formatBytes, formatClock, formatMs, jsonPretty, jsonText, plural, rowTitle } from '../state/format.js';
import { JsonView } from './JsonView.js';
import { InvisibleMark, Vis } from './VisibleText.js';
import { escapeInvisible } from '../state/visible-text.js';
import { apiFetch } from '../state/api.js';
import { STATUS_LABEL, carrierText, dirLabel, exchangeTitle, notificationGist, rowKeysForMessage, rowMessages, rowStatus, seqTitle } from './row-info.js';

export type DetailTab = 'messages' | 'raw' | 'http' | 'stream' | 'hints';
const TABS: { id: DetailTab; label: string }[] = [
  { id: 'messages', label: 'Messages' },
  { id: 'raw', label: 'Raw' },
  { id: 'http', label: 'HTTP' },
  { id: 'stream', label: 'Stream' },
  { id: 'hints', label: 'Hints' },
];

export interface DetailPaneProps {
  store: TimelineStore;
  row: Row;
  /** Store version (re-render on change). */
  version: number;
  onSelect(key: string): void;
  onClose(): void;
  initialTab?: DetailTab;
}

/** First existing row among candidate keys. */
export function findRowKey(store: TimelineStore, keys: string[]): string | undefined {
  for (const k of keys) if (store.row(k)) return k;
  return undefined;
}

async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall back below */
  }
  try {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.style.position = 'fixed';
    ta.style.opacity = '0';
    document.body.appendChild(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    return ok;
  } catch {
    return false;
  }
}

function exchangesOf(store: TimelineStore, row: Row): ExchangeInfo[] {
  const ids: string[] = [];
  const add = (id: string | undefined) => {
    if (id && !ids.includes(id)) ids.push(id);
  };
  if (row.type === 'problem') add(row.event.exchangeId);
  else if (row.type === 'http') add(row.exchange.id);
  else if (row.type === 'log') return [];
  else for (const m of rowMessages(row)) add(m.exchangeId);
  const out: ExchangeInfo[] = [];
  for (const id of ids) {
    const x = store.exchanges.get(id);
    if (x) out.push(x);
  }
  return out;
}

function isSseExchange(x: ExchangeInfo): boolean {
  return x.carrier === 'post-sse' || x.carrier === 'get-sse' || x.carrier === 'legacy-sse' || x.responseType === 'text/event-stream';
}

export function DetailPane({ store, row, onSelect, onClose, initialTab = 'messages' }: DetailPaneProps) {
  const [tab, setTab] = useState<DetailTab>(initialTab);
  const [copied, setCopied] = useState<string | undefined>(undefined);
  const bodyRef = useRef<HTMLDivElement>(null);
  const exchanges = exchangesOf(store, row);
  const sseExchanges = exchanges.filter(isSseExchange);
  const status = rowStatus(row);

  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(undefined), 1400);
    return () => clearTimeout(t);
  }, [copied]);

  const scrollToSection = (id: string) => {
    setTab('messages');
    requestAnimationFrame(() => {
      const el = bodyRef.current?.querySelector<HTMLElement>(`[data-section="${id}"]`);
      el?.scrollIntoView({ block: 'start', behavior: 'smooth' });
      el?.classList.add('flash');
      setTimeout(() => el?.classList.remove('flash'), 900);
    });
  };

  const onCopyJson = async () => {
    let value: unknown;
    if (row.type === 'call') value = { request: row.request.jsonrpc, response: row.response?.jsonrpc ?? null };
    else if (row.type === 'problem' || row.type === 'log') value = row.event;
    else if (row.type === 'http') value = store.exchanges.get(row.exchange.id) ?? row.exchange;
    else value = row.message.jsonrpc;
    if (await copyText(jsonPretty(value))) setCopied('JSON');
  };

  const requestMsg = curlMessage(row);
  const requestExchange = requestMsg?.exchangeId ? store.exchanges.get(requestMsg.exchangeId) : undefined;
  // Only what the client sent over HTTP can be replayed with curl: never a server→client request
  // (its exchange is the client's POST whose stream carried it), stdio, problems or stderr lines.
  const canCurl = requestExchange !== undefined && requestExchange.method === 'POST';
  const onCopyCurl = async () => {
    if (!requestExchange || !requestMsg) return;
    const host = headerOf(requestExchange.requestHeaders, 'host');
    const origin = host ? `http://${host}` : location.origin;
    const body = requestMsg.raw ?? jsonText(requestMsg.jsonrpc);
    if (await copyText(curlFor(requestExchange, body, origin))) setCopied('cURL');
  };

  const hintCount = countHints(store, row, exchanges);

  return (
    <section className="detail" data-testid="detail" data-key={row.key} aria-label="Details">
      <header className="detail-head">
        <div className="detail-title">
          <span className={`badge st-${status}`}>{STATUS_LABEL[status]}</span>
          <InvisibleMark texts={[rowTitle(row)]} />
          <span className="detail-title-text" title={escapeInvisible(rowTitle(row))}>
            <Vis text={rowTitle(row)} />
          </span>
        </div>
        <div className="detail-actions">
          <button type="button" className="btn btn-sm" data-testid="copy-json" onClick={onCopyJson} title={copyJsonTitle(row)}>
            {copied === 'JSON' ? 'Copied ✓' : 'Copy JSON'}
          </button>
          {canCurl ? (
            <button type="button" className="btn btn-sm" data-testid="copy-curl" onClick={onCopyCurl} title="Copy the client's HTTP request as a cURL command against the proxy">
              {copied === 'cURL' ? 'Copied ✓' : 'Copy cURL'}
            </button>
          ) : null}
          <button type="button" className="btn btn-sm btn-icon" onClick={onClose} title="Close (Esc)" aria-label="Close details">
            ×
          </button>
        </div>
      </header>
      <CorrelationLinks store={store} row={row} onSelect={onSelect} onSection={scrollToSection} />
      <nav className="tabs" role="tablist">
        {TABS.map((t) => {
          const disabled = t.id === 'stream' && sseExchanges.length === 0;
          return (
            <button
              key={t.id}
              type="button"
              role="tab"
              aria-selected={tab === t.id}
              className={`tab${tab === t.id ? ' active' : ''}${disabled ? ' dim' : ''}`}
              data-testid={`detail-tab-${t.id}`}
              onClick={() => setTab(t.id)}
            >
              {t.label}
              {t.id === 'hints' && hintCount.total > 0 ? <span className={`count${hintCount.errors ? ' err' : ''}`}>{hintCount.total}</span> : null}
              {t.id === 'stream' && sseExchanges.length > 0 ? <span className="count">{sseExchanges.length}</span> : null}
            </button>
          );
        })}
      </nav>
      <div className="detail-body" ref={bodyRef}>
        {tab === 'messages' ? <MessagesTab store={store} row={row} onSelect={onSelect} /> : null}
        {tab === 'raw' ? <RawTab row={row} /> : null}
        {tab === 'http' ? <HttpTab store={store} exchanges={exchanges} /> : null}
        {tab === 'stream' ? <StreamTab store={store} row={row} exchanges={sseExchanges} onSelect={onSelect} /> : null}
        {tab === 'hints' ? <HintsTab store={store} row={row} exchanges={exchanges} /> : null}
      </div>
    </section>
  );
}

/**
 * The message a "Copy cURL" replays: one the client sent (a client→server request, or a
 * notification or answer it POSTed). Undefined for a server→client request — copying its
 * exchange would POST the server's own request back to the server.
 */
export function curlMessage(row: Row): MessageEvent | undefined {
  const m = row.type === 'call' ? row.request : row.type === 'notification' || row.type === 'orphan' ? row.message : undefined;
  return m !== undefined && m.dir === 'c2s' && m.carrier !== 'stdio' && m.exchangeId !== undefined ? m : undefined;
}

function copyJsonTitle(row: Row): string {
  switch (row.type) {
    case 'call':
      return 'Copy the request and its response as JSON';
    case 'http':
      return 'Copy the HTTP exchange as JSON';
    case 'problem':
    case 'log':
      return 'Copy the event as JSON';
    default:
      return 'Copy the message as JSON';
  }
}

function headerOf(headers: Record<string, string | string[]> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const k of Object.keys(headers)) {
    if (k.toLowerCase() === name) {
      const v = headers[k];
      return Array.isArray(v) ? v.join(', ') : v;
    }
  }
  return undefined;
}

function countHints(store: TimelineStore, row: Row, exchanges: ExchangeInfo[]): { total: number; errors: number } {
  let total = 0;
  let errors = 0;
  const add = (hs: Hint[]) => {
    for (const h of hs) {
      total++;
      if (h.level === 'error') errors++;
    }
  };
  for (const m of rowMessages(row)) add(m.hints);
  for (const x of exchanges) {
    add(x.hints);
    for (const p of store.problemsOf(x.id)) {
      total++;
      if (p.level === 'error') errors++;
    }
  }
  if (row.type === 'problem') {
    total++;
    if (row.event.level === 'error') errors++;
  }
  return { total, errors };
}

// ---------------------------------------------------------------------------------------------
// Correlation links

function CorrelationLinks({ store, row, onSelect, onSection }: { store: TimelineStore; row: Row; onSelect(key: string): void; onSection(id: string): void }) {
  const links: ReactNode[] = [];
  const parentKey = row.type === 'call' || row.type === 'notification' ? row.parentKey : undefined;
  if (parentKey && store.row(parentKey)) {
    links.push(
      <button key="parent" type="button" className="chip" onClick={() => onSelect(parentKey)} data-link="parent">
        ↖ parent call <span className="chip-sub">
          <Vis text={rowTitleSafe(store, parentKey)} />
        </span>
      </button>,
    );
  }
  if (row.type === 'call') {
    links.push(
      <button key="req" type="button" className="chip" onClick={() => onSection('request')} data-link="request" title={`Show the request. ${seqTitle(row.request.seq)}`}>
        request #{row.request.seq}
      </button>,
    );
    if (row.response) {
      links.push(
        <button key="res" type="button" className="chip" onClick={() => onSection('response')} data-link="response" title={`Show the ${row.response.kind === 'error' ? 'error' : 'response'}. ${seqTitle(row.response.seq)}`}>
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
        <button key="cancel" type="button" className="chip chip-warn" onClick={() => onSection('cancel')} data-link="cancel" title={`Show the cancellation. ${seqTitle(row.cancel.seq)}`}>
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
      const what = m.method === 'notifications/cancelled' ? 'cancelled request' : m.method === 'notifications/progress' ? 'progress of' : 'request';
      if (target) {
        links.push(
          <button key="pair" type="button" className="chip" onClick={() => onSelect(target)} data-link="pair">
            → {what} <span className="chip-sub">
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
          <button key="replay" type="button" className="chip" onClick={() => onSelect(target)} data-link="replay" title={`A copy the server sent again when the client resumed the stream. The original is ${seqTitle(m.replayOf)}`}>
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
        <button key="ex" type="button" className="chip" onClick={() => onSelect(target)} data-link="exchange" title={exchangeTitle(row.event.exchangeId)}>
          → call on exchange {row.event.exchangeId} <span className="chip-sub">
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

// ---------------------------------------------------------------------------------------------
// Messages

function MessageMeta({ m, base }: { m: MessageEvent; base?: number }) {
  return (
    <div className="msg-meta">
      <Seq seq={m.seq} />
      <span>{dirLabel(m.dir)}</span>
      <span className="mono">{formatClock(m.ts)}</span>
      {base !== undefined && m.ts !== base ? <span className="mono" title="after the request">+{formatMs(m.ts - base)}</span> : null}
      <span>{formatBytes(m.size)}</span>
      <CarrierLabel carrier={m.carrier} />
      {m.exchangeId ? <ExchangeLabel id={m.exchangeId} /> : null}
      {m.id !== undefined ? (
        <span className="mono" title="The JSON-RPC id: the client or server pairs a response with its request by it">
          id <Vis text={jsonText(m.id, 80)} />
        </span>
      ) : null}
      {m.batch ? (
        <span>
          batch {m.batch.index + 1}/{m.batch.size}
        </span>
      ) : null}
      {m.replayOf !== undefined ? (
        <span className="tag tag-warn" title={`A copy the server sent again when the client resumed the stream. The original is ${seqTitle(m.replayOf)}`}>
          replay of #{m.replayOf}
        </span>
      ) : null}
    </div>
  );
}

/** A seq number (`#1869`), with what it is in a tooltip. */
function Seq({ seq }: { seq: number }) {
  return (
    <span className="mono" data-testid="seq" title={seqTitle(seq)}>
      #{seq}
    </span>
  );
}

/** How a message travelled (`post-sse`…), in plain words, the recorder's name in the tooltip. */
function CarrierLabel({ carrier }: { carrier: string | undefined }) {
  const t = carrierText(carrier);
  return (
    <span className="carrier" data-testid="carrier" title={t.long}>
      {t.short}
    </span>
  );
}

/** An exchange id (`x257`), said to be one. */
function ExchangeLabel({ id }: { id: string }) {
  return (
    <span className="exchange-id" data-testid="exchange-id" title={exchangeTitle(id)}>
      exchange <span className="mono">{id}</span>
    </span>
  );
}

/** A large payload arrives on the feed as a stub (`elided`): load the full message when it is shown. */
function useFullMessage(m: MessageEvent): { message: MessageEvent; loading: boolean; error?: string } {
  const [state, setState] = useState<{ seq: number; message?: MessageEvent; error?: string }>({ seq: -1 });
  useEffect(() => {
    if (!m.elided) return;
    let live = true;
    apiFetch(`messages/${m.seq}`)
      .then(async (res) => {
        if (!res.ok) throw new Error(`mcpscope answered ${res.status}`);
        const full = (await res.json()) as MessageEvent;
        if (live) setState({ seq: m.seq, message: full });
      })
      .catch((err: unknown) => live && setState({ seq: m.seq, error: (err as Error).message }));
    return () => {
      live = false;
    };
  }, [m.seq, m.elided]);
  if (!m.elided) return { message: m, loading: false };
  if (state.seq === m.seq && state.message) return { message: state.message, loading: false };
  return { message: m, loading: state.seq !== m.seq || !state.error, error: state.seq === m.seq ? state.error : undefined };
}

function Payload({ m, label }: { m: MessageEvent; label: string }) {
  const { message, loading, error } = useFullMessage(m);
  return (
    <>
      {m.truncated ? <div className="note warn">This payload was too large to keep in full: only a stub and a prefix of the raw text were recorded.</div> : null}
      {m.elided && loading ? (
        <div className="note" data-testid="payload-loading">
          Loading {formatBytes(m.size)}…
        </div>
      ) : null}
      {error ? <div className="note warn">Could not load the full payload: {error}</div> : null}
      <JsonView value={message.jsonrpc} openDepth={4} className={`jv-${label}`} />
    </>
  );
}

function MessagesTab({ store, row, onSelect }: { store: TimelineStore; row: Row; onSelect(key: string): void }) {
  if (row.type === 'problem') return <ProblemView row={row} />;
  if (row.type === 'log') return <LogView store={store} row={row} />;
  if (row.type === 'http') {
    // Plain HTTP carries no JSON-RPC: what there is to see is the exchange itself.
    const x = store.exchanges.get(row.exchange.id) ?? row.exchange;
    return (
      <div className="messages">
        <div className="note">Plain HTTP, not MCP: recorded as an HTTP exchange (redacted previews of its bodies), not parsed as JSON-RPC.</div>
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
        {req.progressToken !== undefined ? <span className="mono muted">
            progressToken <Vis text={jsonText(req.progressToken, 80)} />
          </span> : null}
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
              {res.isError ? <div className="note err">The tool reported a failure (result.isError: true) — not a protocol error.</div> : null}
              <Payload m={res} label="response" />
            </>
          ) : (
            <div className="placeholder">{row.status === 'cancelled' ? 'Cancelled before a response arrived.' : 'Waiting for the response…'}</div>
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

/** "session s1", with what the session is to this row as its tooltip. */
function SessionLabel({ id, title }: { id: string; title: string }) {
  return (
    <span title={title}>
      session{' '}
      <span className="mono">
        <Vis text={id} />
      </span>
    </span>
  );
}

/** The seq, time and session of an event that is not a message (a protocol problem, a stderr line). */
function EventStamp({ seq, ts, sessionId, sessionTitle }: { seq: number; ts: number; sessionId?: string; sessionTitle: string }) {
  return (
    <>
      <Seq seq={seq} />
      <span className="mono">{formatClock(ts)}</span>
      {sessionId ? <SessionLabel id={sessionId} title={sessionTitle} /> : null}
    </>
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
          A stdio server's stderr is its own log output, outside MCP: mcpscope relays it unchanged and records it line by line{session?.transport === 'stdio' ? <> for{' '}
              <span className="mono">
                <Vis text={session.target} />
              </span></> : null}.
        </div>
      </div>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Raw

const RAW_CLIP = 200_000;

function RawText({ text }: { text: string }) {
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

function RawTab({ row }: { row: Row }) {
  if (row.type === 'log') return <RawText text={row.event.text} />;
  if (row.type === 'problem') {
    return row.event.raw !== undefined ? <RawText text={row.event.raw} /> : <div className="placeholder">No bytes were kept for this problem.</div>;
  }
  if (row.type === 'http') {
    const x = row.exchange;
    if (x.requestPreview === undefined && x.responsePreview === undefined) return <div className="placeholder">No body was kept for this exchange (it had none, or it was not read).</div>;
    return (
      <div className="raw-list">
        {([['Request body', x.requestPreview], ['Response body', x.responsePreview]] as const).map(([title, text]) =>
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
                The exact frame text was not kept ({m.batch ? 'member of a batch' : m.truncated ? 'too large' : 'redacted or too large'}); showing the parsed message.
              </div>
              <RawText text={jsonPretty(m.jsonrpc)} />
            </>
          )}
        </div>
      ))}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// HTTP

function HeaderTable({ title, headers }: { title: string; headers: Record<string, string | string[]> | undefined }) {
  const entries = headers ? Object.entries(headers) : [];
  return (
    <div className="panel">
      <div className="panel-head">
        <span className="panel-title">{title}</span>
        <span className="muted">{entries.length}</span>
      </div>
      {entries.length === 0 ? (
        <div className="placeholder">none</div>
      ) : (
        <table className="table headers-table">
          <tbody>
            {entries.map(([name, value]) => {
              const meaning = describeHeader(name);
              return (
                <tr key={name}>
                  <td className="h-name mono">
                    <Vis text={name} />
                  </td>
                  <td className="h-value mono">
                    <Vis text={Array.isArray(value) ? value.join(', ') : value} />
                  </td>
                  <td className="h-meaning">{meaning ?? ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}

function HintList({ hints }: { hints: Hint[] }) {
  if (hints.length === 0) return null;
  return (
    <ul className="hints">
      {hints.map((h, i) => (
        <li key={`${h.code}-${i}`} className={`hint lvl-${h.level}`}>
          <span className="hint-icon" aria-hidden="true">
            {h.level === 'error' ? '✕' : h.level === 'warn' ? '!' : 'i'}
          </span>
          <span className="hint-text">
            <Vis text={h.text} multiline />
          </span>
          <span className="hint-code mono">{h.code}</span>
        </li>
      ))}
    </ul>
  );
}

function HttpTab({ store, exchanges }: { store: TimelineStore; exchanges: ExchangeInfo[] }) {
  if (exchanges.length === 0) return <div className="placeholder">No HTTP exchange is linked to this row (stdio traffic, or the exchange was cleared).</div>;
  return (
    <div className="http">
      {exchanges.map((x) => {
        const mods = store.modificationsOf(x.id);
        return (
          <div className="exchange" key={x.id}>
            <div className="exchange-line">
              <span className="http-method mono">
                <Vis text={x.method} />
              </span>
              <span className="mono http-url">
                <Vis text={x.url} />
              </span>
              {x.status !== undefined ? <span className={`http-status mono s${Math.floor(x.status / 100)}xx`}>{x.status}</span> : <span className="badge st-pending">waiting</span>}
              <span className="muted">
                <ExchangeLabel id={x.id} />
              </span>
            </div>
            <dl className="kv">
              {x.upstreamUrl ? (
                <>
                  <dt>Upstream</dt>
                  <dd className="mono">
                    <Vis text={x.upstreamUrl} />
                  </dd>
                </>
              ) : null}
              <dt title="How the messages of this exchange travelled: in the request body, a JSON answer, or an SSE event stream">Carried as</dt>
              <dd>
                <CarrierLabel carrier={x.carrier} />
                {x.carrier ? <span className="mono muted"> ({x.carrier})</span> : null}
              </dd>
              <dt title="Content-Type of the request → of the response">Types</dt>
              <dd className="mono">
                <Vis text={x.requestType ?? '—'} /> → <Vis text={x.responseType ?? '—'} />
              </dd>
              <dt>Timing</dt>
              <dd className="mono">
                started {formatClock(x.startedAt)}
                {x.respondedAt !== undefined ? ` · head +${formatMs(x.respondedAt - x.startedAt)}` : ''}
                {x.endedAt !== undefined ? ` · ended +${formatMs(x.endedAt - x.startedAt)}` : ' · open'}
              </dd>
              <dt>Bytes</dt>
              <dd className="mono">
                ↑ {formatBytes(x.requestBytes)} · ↓ {formatBytes(x.responseBytes)}
                {x.truncated ? ' (truncated)' : ''}
              </dd>
              {x.aborted ? (
                <>
                  <dt>Aborted</dt>
                  <dd className="err-text">by the {x.aborted}</dd>
                </>
              ) : null}
              {x.error ? (
                <>
                  <dt>Error</dt>
                  <dd className="err-text">
                    <Vis text={x.error} multiline />
                  </dd>
                </>
              ) : null}
              {x.resumes ? (
                <>
                  <dt>Resumes</dt>
                  <dd className="mono">
                    {x.resumes}
                    {x.lastEventId !== undefined ? (
                      <>
                        {' after event '}
                        <Vis text={jsonText(x.lastEventId, 80)} />
                      </>
                    ) : null}
                  </dd>
                </>
              ) : null}
            </dl>
            <HintList hints={x.hints} />
            {mods.map((m) => (
              <div className="note warn" key={m.seq}>
                <b>mcpscope changed the bytes ({m.what}):</b> <Vis text={m.text} multiline />
                <div className="mono mod-diff">
                  <div>
                    − <Vis text={m.before} />
                  </div>
                  <div>
                    + <Vis text={m.after} />
                  </div>
                </div>
              </div>
            ))}
            <div className="headers-grid">
              <HeaderTable title="Request headers" headers={x.requestHeaders} />
              <HeaderTable title="Response headers" headers={x.responseHeaders} />
            </div>
            {x.requestPreview !== undefined ? (
              <div className="panel">
                <div className="panel-head">
                  <span className="panel-title">Request body (not JSON-RPC)</span>
                </div>
                <RawText text={x.requestPreview} />
              </div>
            ) : null}
            {x.responsePreview !== undefined ? (
              <div className="panel">
                <div className="panel-head">
                  <span className="panel-title">Response body (not JSON-RPC)</span>
                </div>
                <RawText text={x.responsePreview} />
              </div>
            ) : null}
          </div>
        );
      })}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Stream

const STREAM_PAGE = 500;

function StreamTab({ store, row, exchanges, onSelect }: { store: TimelineStore; row: Row; exchanges: ExchangeInfo[]; onSelect(key: string): void }) {
  const mine = new Set(rowMessages(row).map((m) => m.seq));
  if (exchanges.length === 0) return <div className="placeholder">This row did not travel on an event stream (plain JSON over HTTP, or stdio).</div>;
  return (
    <div className="streams">
      {exchanges.map((x) => (
        <StreamTable key={x.id} store={store} exchange={x} mine={mine} onSelect={onSelect} />
      ))}
    </div>
  );
}

function StreamTable({ store, exchange, mine, onSelect }: { store: TimelineStore; exchange: ExchangeInfo; mine: ReadonlySet<number>; onSelect(key: string): void }) {
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
          <Vis text={exchange.method} /> <Vis text={exchange.url} /> <span className="muted">({exchange.carrier ? carrierText(exchange.carrier).short : exchange.responseType})</span>
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
              <tr key={e.seq} className={`what-${e.what}${isMine ? ' mine' : ''}${target ? ' clickable' : ''}`} onClick={target && !isMine ? () => onSelect(target) : undefined}>
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

// ---------------------------------------------------------------------------------------------
// Hints

function HintsTab({ store, row, exchanges }: { store: TimelineStore; row: Row; exchanges: ExchangeInfo[] }) {
  const sections: ReactNode[] = [];
  if (row.type === 'problem') {
    sections.push(
      <div className="panel" key="problem">
        <div className="panel-head">
          <span className="panel-title">Problem</span>
        </div>
        <HintList hints={[{ level: row.event.level, code: row.event.code, text: row.event.text }]} />
      </div>,
    );
  }
  for (const m of rowMessages(row)) {
    if (m.hints.length === 0) continue;
    sections.push(
      <div className="panel" key={`m${m.seq}`}>
        <div className="panel-head">
          <span className="panel-title">
            {m.kind}{' '}
            <span className="muted">
              <Vis text={m.method} />
            </span>
          </span>
          <span className="muted">
            <Seq seq={m.seq} />
          </span>
        </div>
        <HintList hints={m.hints} />
      </div>,
    );
  }
  for (const x of exchanges) {
    const problems = store.problemsOf(x.id);
    if (x.hints.length === 0 && problems.length === 0) continue;
    sections.push(
      <div className="panel" key={`x${x.id}`}>
        <div className="panel-head">
          <span className="panel-title">
            HTTP <Vis text={x.method} /> <Vis text={x.url} />
          </span>
          <span className="muted">
            <ExchangeLabel id={x.id} />
          </span>
        </div>
        <HintList hints={[...problems.map((p) => ({ level: p.level, code: p.code, text: p.text }) as Hint), ...x.hints]} />
      </div>,
    );
  }
  if (sections.length === 0) return <div className="placeholder">No hints for this row.</div>;
  return <div className="hints-tab">{sections}</div>;
}
