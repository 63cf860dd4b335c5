/**
 * Detail pane for the selected row: Messages (request/response side by side, progress,
 * cancellation, nested calls), Raw frames, HTTP (headers with meanings, hints, previews),
 * Stream (the SSE event-stream table), Hints, and Spec (the MCP rules its messages broke, when
 * any: issue 19). Correlation links select other rows.
 */
import './DetailPane.css';
import { useEffect, useRef, useState } from 'react';
import type { TimelineStore } from '../state/store.js';
import type { ExchangeInfo, MessageEvent, ProblemEvent, Row } from '../state/types.js';
import type { Hint } from '../../../proxy/core/model/events.js';
import { headerValue } from '../../../proxy/core/model/headers.js';
import { curlFor, jsonPretty, jsonText, rowTitle } from '../state/format.js';
import { InvisibleMark, Vis } from './VisibleText.js';
import { escapeInvisible } from '../state/visible-text.js';
import { STATUS_LABEL, rowMessages, rowStatus } from './row-info.js';
import { CorrelationLinks } from './detail/CorrelationLinks.js';
import { MessagesTab } from './detail/MessagesTab.js';
import { RawTab } from './detail/RawTab.js';
import { HttpTab } from './detail/HttpTab.js';
import { StreamTab } from './detail/StreamTab.js';
import { HintsTab } from './detail/HintsTab.js';
import { ActedNotes } from './detail/ActedNotes.js';
import { SpecTab } from './detail/SpecTab.js';
import { isLintNote, isViolation, ruleIds, violationLevel } from '../state/violations.js';
import { addBreakpoint, matchFor } from '../state/breakpoints.js';
import { resendDraft } from '../state/tool-schema.js';
import { ModelTab, turnOfRow } from './detail/ModelTab.js';

export type DetailTab = 'model' | 'messages' | 'raw' | 'http' | 'stream' | 'hints' | 'spec';
const TABS: { id: DetailTab; label: string }[] = [
  // Shown only for a model turn and a tools/call one asked for.
  { id: 'model', label: 'Model' },
  { id: 'messages', label: 'Messages' },
  { id: 'raw', label: 'Raw' },
  { id: 'http', label: 'HTTP' },
  { id: 'stream', label: 'Stream' },
  { id: 'hints', label: 'Hints' },
  // Shown only for a row that broke the MCP specification.
  { id: 'spec', label: 'Spec' },
];

/** The spec violations and linter notes a row shows: its messages', or a violation or note row's own. */
function specViolationsOf(store: TimelineStore, row: Row): ProblemEvent[] {
  if (row.type === 'problem') return isViolation(row.event) || isLintNote(row.event) ? [row.event] : [];
  return store.violationsOfRow(row);
}

export interface DetailPaneProps {
  store: TimelineStore;
  row: Row;
  /** Store version (re-render on change). */
  version: number;
  onSelect(key: string): void;
  onClose(): void;
  initialTab?: DetailTab;
  /** Live mcpscope only: open "Edit and send" for a client→server request. Without it, no act buttons. */
  onEditAndSend?(sessionId: string, draft: unknown): void;
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
  else if (row.type === 'turn') add(row.turn.exchangeId);
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

export function DetailPane({ store, row, onSelect, onClose, initialTab = 'messages', onEditAndSend }: DetailPaneProps) {
  const [chosenTab, setTab] = useState<DetailTab>(initialTab);
  // The Spec tab lists the linter's notes too (what it could not check); the counts and levels are the violations'.
  const annotations = specViolationsOf(store, row);
  const violations = annotations.filter(isViolation);
  const specLevel = violationLevel(violations);
  // The Model tab is a model turn's (and a tools/call's that one asked for); a turn's row opens on it.
  const hasModel = row.type === 'turn' || turnOfRow(store, row).link !== undefined;
  // The Spec tab, chosen on a row with violations or notes, gives way to Messages on a row without; Model likewise.
  const tab: DetailTab =
    (chosenTab === 'spec' && annotations.length === 0) || (chosenTab === 'model' && !hasModel)
      ? 'messages'
      : row.type === 'turn' && chosenTab === 'messages'
        ? 'model'
        : chosenTab;
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
    else if (row.type === 'turn') value = row.turn;
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
    const host = headerValue(requestExchange.requestHeaders, 'host');
    const origin = host ? `http://${host}` : location.origin;
    const body = requestMsg.raw ?? jsonText(requestMsg.jsonrpc);
    if (await copyText(curlFor(requestExchange, body, origin))) setCopied('cURL');
  };

  const hintCount = countHints(store, row, exchanges);

  // Issue 18: act on the traffic (live only).
  const actMsg = onEditAndSend ? actMessage(row) : undefined;
  const resendable = actMsg !== undefined && row.type === 'call' && actMsg.dir === 'c2s' && actMsg.kind === 'request' && !actMsg.elided;
  const onBreak = async () => {
    if (!actMsg) return;
    try {
      await addBreakpoint(matchFor(actMsg));
      setCopied('break');
    } catch (err) {
      setCopied(`break-error:${(err as Error).message}`);
    }
  };

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
            <button
              type="button"
              className="btn btn-sm"
              data-testid="copy-curl"
              onClick={onCopyCurl}
              title="Copy the client's HTTP request as a cURL command against the proxy"
            >
              {copied === 'cURL' ? 'Copied ✓' : 'Copy cURL'}
            </button>
          ) : null}
          {resendable && onEditAndSend ? (
            <button
              type="button"
              className="btn btn-sm"
              data-testid="edit-and-send"
              onClick={() => onEditAndSend(row.sessionId, resendDraft(actMsg.jsonrpc))}
              title="Edit this request and send it again into its session (mcpscope gives it a fresh id)"
            >
              Edit and send
            </button>
          ) : null}
          {actMsg ? (
            <button
              type="button"
              className="btn btn-sm"
              data-testid="break-on-this"
              onClick={() => void onBreak()}
              title={
                copied?.startsWith('break-error:')
                  ? copied.slice('break-error:'.length)
                  : `Hold the next ${actMsg.dir === 'c2s' ? 'client → server' : 'server → client'} ${actMsg.method ?? 'message'}${actMsg.name ? ` · ${actMsg.name}` : ''} at a breakpoint`
              }
            >
              {copied === 'break' ? 'Breakpoint added ✓' : copied?.startsWith('break-error:') ? 'Breakpoint failed ✗' : 'Break on this'}
            </button>
          ) : null}
          <button type="button" className="btn btn-sm btn-icon" onClick={onClose} title="Close (Esc)" aria-label="Close details">
            ×
          </button>
        </div>
      </header>
      <CorrelationLinks store={store} row={row} onSelect={onSelect} onSection={scrollToSection} />
      <ActedNotes store={store} row={row} />
      {violations.length > 0 && tab !== 'spec' ? (
        <button
          type="button"
          className={`spec-note spec-${specLevel}`}
          data-testid="spec-note"
          onClick={() => setTab('spec')}
          title="Show the rules broken, what was expected and where (the Spec tab)"
        >
          <span className="spec-note-head">Breaks the MCP specification:</span>{' '}
          <span className="mono">{ruleIds(violations).join(', ')}</span>
        </button>
      ) : null}
      <nav className="tabs" role="tablist">
        {TABS.filter((t) => (t.id !== 'spec' || annotations.length > 0) && (t.id !== 'model' || hasModel)).map((t) => {
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
              {t.id === 'hints' && hintCount.total > 0 ? (
                <span className={`count${hintCount.errors ? ' err' : ''}`}>{hintCount.total}</span>
              ) : null}
              {t.id === 'stream' && sseExchanges.length > 0 ? <span className="count">{sseExchanges.length}</span> : null}
              {t.id === 'spec' && violations.length > 0 ? (
                <span className={`count spec-count spec-${specLevel}`} data-testid="spec-count">
                  {violations.length}
                </span>
              ) : null}
            </button>
          );
        })}
      </nav>
      <div className="detail-body" ref={bodyRef}>
        {tab === 'model' ? <ModelTab store={store} row={row} onSelect={onSelect} /> : null}
        {tab === 'messages' ? <MessagesTab store={store} row={row} onSelect={onSelect} /> : null}
        {tab === 'raw' ? <RawTab row={row} /> : null}
        {tab === 'http' ? <HttpTab store={store} exchanges={exchanges} /> : null}
        {tab === 'stream' ? <StreamTab store={store} row={row} exchanges={sseExchanges} onSelect={onSelect} /> : null}
        {tab === 'hints' ? <HintsTab store={store} row={row} exchanges={exchanges} /> : null}
        {tab === 'spec' ? <SpecTab store={store} violations={annotations} /> : null}
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

/** The message "Break on this" and "Edit and send" act on: a call's request, a notification's or orphan's message. */
function actMessage(row: Row): MessageEvent | undefined {
  return row.type === 'call' ? row.request : row.type === 'notification' || row.type === 'orphan' ? row.message : undefined;
}

function copyJsonTitle(row: Row): string {
  switch (row.type) {
    case 'call':
      return 'Copy the request and its response as JSON';
    case 'http':
      return 'Copy the HTTP exchange as JSON';
    case 'turn':
      return 'Copy the model turn as JSON';
    case 'problem':
    case 'log':
      return 'Copy the event as JSON';
    default:
      return 'Copy the message as JSON';
  }
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
  if (row.type === 'turn') add(row.turn.hints);
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
