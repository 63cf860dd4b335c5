// @vitest-environment happy-dom
/**
 * Component tests for the timeline UI: virtualization, folded responses, nesting, progress,
 * the detail pane (JSON + header meanings), filters in the URL, keyboard navigation and the
 * JSON viewer's laziness. React is driven directly (createRoot + act), no testing library.
 */
import { describe, expect, it, vi } from 'vitest';
import { mountPoint } from './dom';
import { act, type ReactElement } from 'react';
import type { ExchangeInfo, McpscopeEvent, MessageEvent, SessionInfo } from '../../proxy/core/model/events';
import { describeHeader } from '../../proxy/core/annotate/http-hints';
import { TimelineStore } from '../../ui/src/state/store';
import { EMPTY_FILTERS, type Row } from '../../ui/src/state/types';
import { Timeline } from '../../ui/src/components/Timeline';
import { DetailPane } from '../../ui/src/components/DetailPane';
import { SessionList } from '../../ui/src/components/SessionList';
import { JsonView } from '../../ui/src/components/JsonView';
import { App } from '../../ui/src/App';
import { stripTokenFromUrl } from '../../ui/src/url-state';

// ---------------------------------------------------------------------------------------------
// A tiny event builder (seq/ts stamped like the recorder does).

const T0 = Date.UTC(2026, 4, 1, 12, 0, 0);

class Events {
  readonly list: McpscopeEvent[] = [];
  seq = 0;
  ts = T0;

  session(id: string, init: Partial<SessionInfo> = {}): void {
    this.list.push({
      type: 'session',
      seq: ++this.seq,
      ts: this.ts,
      session: {
        id,
        transport: 'streamable-http',
        target: 'http://127.0.0.1:3001/mcp',
        startedAt: this.ts,
        status: 'open',
        counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 0 },
        clientInfo: { name: 'test-client', version: '1.0.0' },
        serverInfo: { name: 'test-server', version: '2.0.0' },
        protocolVersion: '2025-11-25',
        ...init,
      },
    });
  }

  exchange(id: string, init: Partial<ExchangeInfo> = {}): void {
    this.list.push({
      type: 'exchange',
      seq: ++this.seq,
      ts: this.ts,
      exchange: {
        id,
        sessionId: 's1',
        method: 'POST',
        url: '/mcp',
        requestHeaders: {
          host: '127.0.0.1:6481',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': 'abc-123',
        },
        status: 200,
        responseHeaders: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
        carrier: 'post-sse',
        requestType: 'application/json',
        responseType: 'text/event-stream',
        startedAt: this.ts,
        requestBytes: 100,
        responseBytes: 200,
        hints: [{ level: 'info', code: 'sse-response', text: 'The server opened an SSE stream for this request.' }],
        ...init,
      },
    });
  }

  message(init: Partial<MessageEvent> & Pick<MessageEvent, 'dir' | 'kind' | 'jsonrpc'>, after = 1): MessageEvent {
    this.ts += after;
    const raw = JSON.stringify(init.jsonrpc);
    const m: MessageEvent = {
      type: 'message',
      seq: ++this.seq,
      ts: this.ts,
      sessionId: 's1',
      carrier: init.dir === 'c2s' ? 'post-body' : 'post-sse',
      raw,
      size: raw.length,
      hints: [],
      ...init,
    };
    this.list.push(m);
    return m;
  }

  /** A client request and (optionally) its answer after `latency` ms. */
  call(
    method: string,
    id: number,
    opts: { name?: string; exchangeId?: string; latency?: number; result?: unknown; answer?: boolean } = {},
  ): { req: MessageEvent; res?: MessageEvent } {
    const exchangeId = opts.exchangeId ?? `x${id}`;
    const params = opts.name ? { name: opts.name, arguments: {} } : {};
    const req = this.message({
      dir: 'c2s',
      kind: 'request',
      exchangeId,
      id,
      method,
      name: opts.name,
      jsonrpc: { jsonrpc: '2.0', id, method, params },
    });
    if (opts.answer === false) return { req };
    const latency = opts.latency ?? 5;
    const res = this.message(
      {
        dir: 's2c',
        kind: 'response',
        exchangeId,
        id,
        method,
        name: opts.name,
        pair: req.seq,
        latencyMs: latency,
        jsonrpc: { jsonrpc: '2.0', id, result: opts.result ?? { content: [{ type: 'text', text: `answer ${id}` }] } },
      },
      latency,
    );
    return { req, res };
  }
}

// ---------------------------------------------------------------------------------------------
// Rendering helpers

const dom = mountPoint();

async function render(el: ReactElement): Promise<void> {
  await dom.render(el);
}

const noop = () => undefined;

function rowEl(key: string): HTMLElement {
  const el = dom.container.querySelector<HTMLElement>(`[data-testid="row"][data-key="${key}"]`);
  if (!el) throw new Error(`row ${key} is not rendered`);
  return el;
}

/** Sets an input's value the way a user does, so React's onChange fires. */
function typeInto(input: HTMLInputElement, value: string): void {
  const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(input), 'value')!.set!;
  setter.call(input, value);
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

// ---------------------------------------------------------------------------------------------

describe('Timeline', () => {
  it('renders only a window of rows for 10,000 calls', async () => {
    const ev = new Events();
    ev.session('s1');
    for (let i = 1; i <= 10_000; i++) ev.call('tools/call', i, { name: 'echo', exchangeId: 'x1' });
    const store = new TimelineStore();
    store.ingest(ev.list);
    const rows = store.visibleRows(EMPTY_FILTERS);
    expect(rows.length).toBe(10_000);

    await render(<Timeline rows={rows} onSelect={noop} onOpen={noop} />);

    const rendered = dom.container.querySelectorAll('[data-testid="row"]');
    expect(rendered.length).toBeGreaterThan(0);
    expect(rendered.length).toBeLessThan(100);
    // The scroll spacer still accounts for every row (28 px each).
    const spacer = dom.container.querySelector<HTMLElement>('.tl-spacer')!;
    expect(spacer.style.height).toBe(`${10_000 * 28}px`);
    // Live tail: the window sits at the end of the list.
    const keys = [...rendered].map((r) => r.getAttribute('data-key'));
    expect(keys).toContain(rows[rows.length - 1].key);
    expect(keys).not.toContain(rows[0].key);
  });

  it('folds the response into its call row: status and latency', async () => {
    vi.useFakeTimers(); // the live timer's clock (mountPoint restores real timers after each test)
    const ev = new Events();
    ev.session('s1');
    const { req } = ev.call('tools/call', 1, { name: 'add', latency: 42 });
    ev.ts = Date.now() - 1_100; // the pending call was sent a second ago (the faked clock stands still)
    const pending = ev.call('tools/call', 2, { name: 'slow_task', answer: false });
    const store = new TimelineStore();
    store.ingest(ev.list);
    await render(<Timeline rows={store.visibleRows(EMPTY_FILTERS)} onSelect={noop} onOpen={noop} />);

    // One row per call, not one per message.
    expect(dom.container.querySelectorAll('[data-testid="row"]').length).toBe(2);
    const row = rowEl(`c${req.seq}`);
    expect(row.getAttribute('data-kind')).toBe('call');
    expect(row.getAttribute('data-status')).toBe('ok');
    expect(row.getAttribute('data-method')).toBe('tools/call');
    expect(row.textContent).toContain('add');
    expect(row.querySelector('[data-testid="row-latency"]')!.textContent).toBe('42 ms');

    const open = rowEl(`c${pending.req.seq}`);
    expect(open.getAttribute('data-status')).toBe('pending');
    const timer = open.querySelector('[data-testid="row-latency"]')!;
    expect(timer.classList.contains('pending-timer')).toBe(true);
    expect(timer.textContent).toMatch(/^1\.\d\d s$/);
    // The live timer ticks.
    const before = timer.textContent;
    await act(async () => vi.advanceTimersByTime(450));
    expect(open.querySelector('[data-testid="row-latency"]')!.textContent).not.toBe(before);
  });

  it('nests a server→client request under the call whose stream carried it', async () => {
    const ev = new Events();
    ev.session('s1');
    const ask = ev.message({
      dir: 'c2s',
      kind: 'request',
      exchangeId: 'x1',
      id: 1,
      method: 'tools/call',
      name: 'ask_llm',
      jsonrpc: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask_llm' } },
    });
    const sampling = ev.message({
      dir: 's2c',
      kind: 'request',
      exchangeId: 'x1',
      id: 0,
      method: 'sampling/createMessage',
      parent: ask.seq,
      jsonrpc: { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: { messages: [] } },
    });
    const store = new TimelineStore();
    store.ingest(ev.list);
    await render(<Timeline rows={store.visibleRows(EMPTY_FILTERS)} onSelect={noop} onOpen={noop} live={false} />);

    const parent = rowEl(`c${ask.seq}`);
    const child = rowEl(`c${sampling.seq}`);
    expect(parent.getAttribute('data-depth')).toBe('0');
    expect(child.getAttribute('data-depth')).toBe('1');
    expect(child.querySelector('.c-method')!.classList.contains('indent')).toBe(true);
    expect(child.querySelector('.connector')).not.toBeNull();
    expect(child.textContent).toContain('server→client');
    // The child comes right after its parent.
    const order = [...dom.container.querySelectorAll('[data-testid="row"]')].map((r) => r.getAttribute('data-key'));
    expect(order.indexOf(`c${sampling.seq}`)).toBe(order.indexOf(`c${ask.seq}`) + 1);
  });

  it('shows a progress bar with the last progress/total inside the call row', async () => {
    const ev = new Events();
    ev.session('s1');
    const req = ev.message({
      dir: 'c2s',
      kind: 'request',
      exchangeId: 'x1',
      id: 7,
      method: 'tools/call',
      name: 'slow_task',
      progressToken: 7,
      jsonrpc: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow_task', _meta: { progressToken: 7 } } },
    });
    for (let p = 1; p <= 4; p++) {
      ev.message({
        dir: 's2c',
        kind: 'notification',
        exchangeId: 'x1',
        method: 'notifications/progress',
        pair: req.seq,
        progressToken: 7,
        progress: { progress: p, total: 4, message: `step ${p} of 4` },
        jsonrpc: {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 7, progress: p, total: 4, message: `step ${p} of 4` },
        },
      });
    }
    const store = new TimelineStore();
    store.ingest(ev.list);
    await render(<Timeline rows={store.visibleRows(EMPTY_FILTERS)} onSelect={noop} onOpen={noop} live={false} />);

    // Progress folds into the call: a single row.
    expect(dom.container.querySelectorAll('[data-testid="row"]').length).toBe(1);
    const progress = rowEl(`c${req.seq}`).querySelector<HTMLElement>('[data-testid="row-progress"]')!;
    expect(progress).not.toBeNull();
    expect(progress.getAttribute('data-progress')).toBe('4/4');
    expect(progress.textContent).toContain('4/4');
    expect(progress.getAttribute('title')).toContain('step 4 of 4');
    expect(progress.querySelector<HTMLElement>('.pbar-fill')!.style.width).toBe('100%');
  });
});

describe('DetailPane', () => {
  it('renders request and response JSON, and the HTTP headers with their meanings', async () => {
    const ev = new Events();
    ev.session('s1');
    ev.exchange('x5');
    const { req } = ev.call('tools/call', 5, {
      name: 'slow_task',
      exchangeId: 'x5',
      latency: 1210,
      result: { content: [{ type: 'text', text: 'done after 4 steps' }] },
    });
    const store = new TimelineStore();
    store.ingest(ev.list);
    const row = store.row(`c${req.seq}`) as Row;
    expect(row).toBeDefined();
    await render(<DetailPane store={store} row={row} version={store.version} onSelect={noop} onClose={noop} />);

    const detail = dom.container.querySelector('[data-testid="detail"]')!;
    expect(detail).not.toBeNull();
    const views = detail.querySelectorAll('[data-testid="json-view"]');
    expect(views.length).toBe(2);
    expect(views[0].textContent).toContain('"slow_task"');
    expect(views[0].textContent).toContain('"tools/call"');
    expect(views[1].textContent).toContain('"done after 4 steps"');

    await act(async () => (detail.querySelector('[data-testid="detail-tab-http"]') as HTMLElement).click());
    const text = dom.container.querySelector('[data-testid="detail"]')!.textContent!;
    expect(text).toContain('mcp-session-id');
    const meaning = describeHeader('mcp-session-id');
    expect(meaning).toBeTruthy();
    expect(text).toContain(meaning!);
    expect(text).toContain(describeHeader('accept')!);
    expect(text).toContain('The server opened an SSE stream for this request.');
  });

  it('shows a plain HTTP exchange (not MCP): its row with method, path, status and hint; its detail with the redacted bodies', async () => {
    const ev = new Events();
    ev.session('s2', {
      transport: 'http',
      target: 'http://127.0.0.1:3001',
      clientInfo: undefined,
      serverInfo: undefined,
      protocolVersion: undefined,
      grouping: 'HTTP traffic to http://127.0.0.1:3001',
    });
    ev.exchange('x7', {
      sessionId: 's2',
      url: '/token',
      plain: true,
      carrier: undefined,
      status: 400,
      endedAt: T0 + 12,
      requestType: 'application/x-www-form-urlencoded',
      responseType: 'application/json',
      requestHeaders: { 'content-type': 'application/x-www-form-urlencoded' },
      responseHeaders: { 'content-type': 'application/json' },
      requestPreview: 'grant_type=refresh_token&refresh_token=[redacted]',
      responsePreview: '{"error":"invalid_grant"}',
      hints: [
        {
          level: 'info',
          code: 'oauth-token-request',
          text: 'Token request (grant_type=refresh_token: a refresh token is traded for a new access token).',
        },
        { level: 'warn', code: 'oauth-token-error', text: 'Token request refused with invalid_grant.' },
      ],
    });
    const store = new TimelineStore();
    store.ingest(ev.list);
    const rows = store.visibleRows(EMPTY_FILTERS);
    await render(<Timeline rows={rows} onSelect={noop} onOpen={noop} showSession />);
    const row = rowEl('hx7');
    expect(row.dataset.kind).toBe('http');
    expect(row.dataset.status).toBe('warn');
    expect(row.textContent).toContain('POST /token');
    expect(row.textContent).toContain('400');
    expect(row.textContent).toContain('Token request (grant_type=refresh_token');
    expect(row.textContent).toContain('12 ms');

    await render(<DetailPane store={store} row={store.row('hx7') as Row} version={store.version} onSelect={noop} onClose={noop} />);
    const detail = dom.container.querySelector('[data-testid="detail"]')!;
    expect(detail.textContent).toContain('Plain HTTP, not MCP');
    expect(detail.textContent).toContain('grant_type=refresh_token&refresh_token=[redacted]');
    expect(detail.textContent).toContain('{"error":"invalid_grant"}');
    expect(detail.textContent).toContain('Token request refused with invalid_grant.');
    await act(async () => (detail.querySelector('[data-testid="detail-tab-raw"]') as HTMLElement).click());
    expect(dom.container.querySelector('[data-testid="detail"]')!.textContent).toContain('Response body');
  });

  it('counts requests answered by HTTP alone as failed, not pending (issue 28), per session and in All sessions', async () => {
    const ev = new Events();
    ev.session('s3', { counts: { messages: 2, requests: 1, pending: 0, failed: 1, errors: 1, exchanges: 1 } });
    ev.session('s4', { counts: { messages: 2, requests: 1, pending: 1, errors: 0, exchanges: 1 } });
    const store = new TimelineStore();
    store.ingest(ev.list);
    await render(<SessionList sessions={store.sessionList()} selected="" onSelect={noop} totals={{ messages: 4, errors: 1, failed: 1 }} />);
    const s3 = dom.container.querySelector<HTMLElement>('[data-session-id="s3"]')!;
    expect(s3.querySelector('[data-testid="session-failed"]')!.textContent).toBe('1 failed');
    expect(s3.textContent).not.toContain('pending');
    const s4 = dom.container.querySelector<HTMLElement>('[data-session-id="s4"]')!;
    expect(s4.textContent).toContain('1 pending');
    expect(s4.querySelector('[data-testid="session-failed"]')).toBeNull();
    expect(dom.container.querySelector<HTMLElement>('[data-session-id=""]')!.textContent).toContain('1 failed');
    // Several sessions: each id wears its colour, the one the timeline's badges wear.
    expect(s3.querySelector('.si-id')!.className).toContain('sess-c2');
  });

  it('lists an http bucket as plain HTTP traffic to its origin, with exchanges instead of MCP counts', async () => {
    const ev = new Events();
    ev.session('s2', {
      transport: 'http',
      target: 'http://127.0.0.1:3001',
      clientInfo: undefined,
      serverInfo: undefined,
      protocolVersion: undefined,
      counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 6 },
    });
    const store = new TimelineStore();
    store.ingest(ev.list);
    await render(<SessionList sessions={store.sessionList()} selected="" onSelect={noop} totals={{ messages: 0, errors: 0 }} />);
    const item = dom.container.querySelector<HTMLElement>('[data-session-id="s2"]')!;
    expect(item.querySelector('.transport')!.textContent).toBe('plain');
    expect(item.textContent).toContain('HTTP traffic to http://127.0.0.1:3001');
    expect(item.textContent).toContain('not MCP');
    expect(item.textContent).toContain('6 exchanges');
    expect(item.textContent).not.toContain('msgs');
  });

  it('JsonView renders a 5 MB payload lazily (collapsed, paged, clipped)', async () => {
    const big = { items: Array.from({ length: 50_000 }, (_, i) => ({ i, text: 'x'.repeat(90) })), blob: 'y'.repeat(1_000_000) };
    await render(<JsonView value={big} openDepth={2} />);
    const lines = dom.container.querySelectorAll('.jv-line');
    // A handful of lines, not 50,000 items × fields.
    expect(lines.length).toBeLessThan(50);
    expect(dom.container.textContent).toContain('50000 items');
    // The 1 MB string is clipped.
    expect(dom.container.textContent!.length).toBeLessThan(5_000);
    // Expanding the array shows one page, not everything.
    const collapsed = [...dom.container.querySelectorAll<HTMLElement>('.jv-collapsed')].find((l) => l.textContent!.includes('items'))!;
    await act(async () => collapsed.click());
    const after = dom.container.querySelectorAll('.jv-line').length;
    expect(after).toBeGreaterThan(100);
    expect(after).toBeLessThan(200);
    expect(dom.container.textContent).toMatch(/show 500 more of 49900/);
  });
});

describe('App', () => {
  function demoStore(): { store: TimelineStore; calls: MessageEvent[] } {
    const ev = new Events();
    ev.session('s1');
    const calls: MessageEvent[] = [];
    calls.push(ev.call('tools/list', 1).req);
    calls.push(ev.call('tools/call', 2, { name: 'echo' }).req);
    calls.push(ev.call('resources/read', 3).req);
    calls.push(ev.call('tools/call', 4, { name: 'add' }).req);
    const store = new TimelineStore();
    store.ingest(ev.list);
    return { store, calls };
  }

  it('keeps the filters in the URL and shows "N of M"', async () => {
    const { store } = demoStore();
    history.replaceState(null, '', '/?token=secret-token&kind=request');
    stripTokenFromUrl();
    expect(location.search).not.toContain('token');
    expect(location.search).toContain('kind=request');

    await render(<App store={store} />);
    // The filter read from the URL is applied.
    expect((dom.container.querySelector('[data-testid="filter-kind"]') as HTMLSelectElement).value).toBe('request');

    const method = dom.container.querySelector<HTMLInputElement>('[data-testid="filter-method"]')!;
    vi.useFakeTimers(); // typing is debounced: the debounce's timer (mountPoint restores real timers)
    await act(async () => typeInto(method, 'tools/call'));
    await act(async () => vi.advanceTimersByTime(400));
    expect(new URLSearchParams(location.search).get('method')).toBe('tools/call');
    expect(dom.container.querySelectorAll('[data-testid="row"]').length).toBe(2);
    expect(dom.container.querySelector('[data-testid="row-count"]')!.textContent).toBe('2 of 4');

    await act(async () => (dom.container.querySelector('[data-testid="filter-errors"]') as HTMLInputElement).click());
    expect(new URLSearchParams(location.search).get('errors')).toBe('1');
    expect(dom.container.querySelectorAll('[data-testid="row"]').length).toBe(0);

    await act(async () => (dom.container.querySelector('[data-testid="view-waterfall"]') as HTMLElement).click());
    expect(new URLSearchParams(location.search).get('view')).toBe('waterfall');
    expect(location.search).not.toContain('token');
  });

  it('moves the selection with ↑/↓, opens the detail with Enter and closes it with Esc', async () => {
    const { store, calls } = demoStore();
    await render(<App store={store} />);
    const key = (e: string) => act(async () => void window.dispatchEvent(new KeyboardEvent('keydown', { key: e, bubbles: true })));

    await key('ArrowDown');
    expect(rowEl(`c${calls[0].seq}`).getAttribute('aria-selected')).toBe('true');
    await key('ArrowDown');
    expect(rowEl(`c${calls[1].seq}`).getAttribute('aria-selected')).toBe('true');
    expect(rowEl(`c${calls[0].seq}`).getAttribute('aria-selected')).toBe('false');
    await key('ArrowUp');
    expect(rowEl(`c${calls[0].seq}`).getAttribute('aria-selected')).toBe('true');

    expect(dom.container.querySelector('[data-testid="detail"]')).toBeNull();
    await key('Enter');
    expect(dom.container.querySelector('[data-testid="detail"]')!.getAttribute('data-key')).toBe(`c${calls[0].seq}`);
    expect(new URLSearchParams(location.search).get('row')).toBe(`c${calls[0].seq}`);
    await key('Escape');
    expect(dom.container.querySelector('[data-testid="detail"]')).toBeNull();

    await key('/');
    expect(document.activeElement).toBe(dom.container.querySelector('[data-testid="search"]'));
  });

  it('says "paused" in the status indicator after pressing pause', async () => {
    const { store } = demoStore();
    await render(<App store={store} initialStatus="live" />);
    const status = dom.container.querySelector('[data-testid="status"]')!;
    expect(status.textContent).toContain('live');
    await act(async () => (dom.container.querySelector('[data-testid="pause"]') as HTMLElement).click());
    expect(status.textContent).toContain('paused');
  });
});
