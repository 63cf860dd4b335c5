// @vitest-environment happy-dom
/**
 * Timeline rows and what the detail pane and session list say about them (issue 15): a stdio
 * server's stderr lines as rows of their own kind, its command line on the session card, "Copy
 * cURL" only for what the client sent over HTTP, counts in the right number, the detail pane's
 * jargon (seq numbers, exchange ids, carriers) said in plain words, and the selected row kept in
 * view when the list gets shorter. React is driven directly (createRoot + act).
 */
import { describe, expect, it } from 'vitest';
import { mountPoint } from './dom';
import { act, type ReactElement } from 'react';
import type { LogEvent, SessionInfo } from '../../proxy/core/model/events';
import { TimelineStore } from '../../ui/src/state/store';
import { EMPTY_FILTERS, type Filters, type Row } from '../../ui/src/state/types';
import { filtersFromSearch, filtersToSearch, rowMatches } from '../../ui/src/state/filters';
import { noun, plural, rowTitle } from '../../ui/src/state/format';
import { keepInView } from '../../ui/src/state/virtual';
import { Timeline } from '../../ui/src/components/Timeline';
import { DetailPane, curlMessage } from '../../ui/src/components/DetailPane';
import { SessionList } from '../../ui/src/components/SessionList';
import { FilterBar } from '../../ui/src/components/FilterBar';
import { DiffView } from '../../ui/src/components/DiffView';
import { EventBuilder } from './fixtures';

const dom = mountPoint();

async function render(el: ReactElement): Promise<void> {
  await dom.render(el);
}

const noop = () => undefined;
const COMMAND = "/usr/bin/node /srv/mcp/server.js --root '/home/me/my project'";

/** A wrapped stdio server: initialize, two stderr lines (one before the first message), an mcpscope note. */
function stdioSession(b = new EventBuilder()) {
  b.session('s1', {
    transport: 'stdio',
    target: COMMAND,
    clientInfo: { name: 'claude-desktop', version: '1.0' },
    serverInfo: { name: 'fs', version: '2.0' },
  });
  const note = b.log('Started the server process (pid 4242) in /srv/mcp.', 's1');
  const first: LogEvent = {
    type: 'log',
    seq: ++b.seq,
    ts: (b.ts += 1),
    sessionId: 's1',
    source: 'stderr',
    text: 'Secure MCP Filesystem Server running on stdio',
  };
  b.events.push(first);
  const req = b.message({
    sessionId: 's1',
    dir: 'c2s',
    kind: 'request',
    carrier: 'stdio',
    id: 1,
    method: 'tools/list',
    jsonrpc: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });
  b.message({
    sessionId: 's1',
    dir: 's2c',
    kind: 'response',
    carrier: 'stdio',
    id: 1,
    method: 'tools/list',
    pair: req.seq,
    jsonrpc: { jsonrpc: '2.0', id: 1, result: { tools: [] } },
  });
  const second: LogEvent = {
    type: 'log',
    seq: ++b.seq,
    ts: (b.ts += 1),
    sessionId: 's1',
    source: 'stderr',
    text: 'warning: allowed directory /home/me does not exist',
  };
  b.events.push(second);
  const store = new TimelineStore();
  store.ingest(b.events);
  return { store, note, first, second, req };
}

const keys = (store: TimelineStore, f: Partial<Filters>) => store.visibleRows({ ...EMPTY_FILTERS, ...f }).map((r) => r.key);

describe("a stdio server's stderr lines", () => {
  it('are rows of their own kind in their session, in wire order (mcpscope notes are not rows)', () => {
    const { store, note, first, second, req } = stdioSession();
    expect(keys(store, {})).toEqual([`l${first.seq}`, `c${req.seq}`, `l${second.seq}`]);
    expect(keys(store, {})).not.toContain(`l${note.seq}`);
    const row = store.row(`l${first.seq}`)!;
    expect(row).toMatchObject({ type: 'log', sessionId: 's1', event: first });
    expect(rowTitle(row)).toBe('stderr: Secure MCP Filesystem Server running on stdio');
    expect(keys(store, { session: 's1' })).toContain(`l${second.seq}`);
    expect(keys(store, { session: 's2' })).toEqual([]);
  });

  it('are picked by the kind filter (kind=log, in the URL too) and left out by the other kinds', () => {
    const { store, first, second, req } = stdioSession();
    expect(keys(store, { kind: 'log' })).toEqual([`l${first.seq}`, `l${second.seq}`]);
    for (const kind of ['request', 'response', 'notification', 'error'] as const)
      expect(keys(store, { kind })).not.toContain(`l${first.seq}`);
    expect(keys(store, { kind: 'request' })).toEqual([`c${req.seq}`]);
    expect(filtersToSearch({ ...EMPTY_FILTERS, kind: 'log' })).toBe('?kind=log');
    expect(filtersFromSearch('?kind=log').kind).toBe('log');
  });

  it('are matched by text search, and not by method, direction, errors-only or latency filters', () => {
    const { store, first, second } = stdioSession();
    expect(keys(store, { text: 'ALLOWED directory' })).toEqual([`l${second.seq}`]);
    expect(keys(store, { text: 'filesystem server' })).toEqual([`l${first.seq}`]);
    const row = store.row(`l${first.seq}`) as Row;
    for (const f of [{ method: 'tools' }, { dir: 's2c' as const }, { dir: 'c2s' as const }, { errorsOnly: true }, { minLatencyMs: 1 }]) {
      expect(rowMatches(row, { ...EMPTY_FILTERS, ...f }, store), JSON.stringify(f)).toBe(false);
    }
  });

  it('show in the timeline with a "stderr" tag and their text', async () => {
    const { store, first } = stdioSession();
    await render(<Timeline rows={store.visibleRows(EMPTY_FILTERS)} onSelect={noop} onOpen={noop} live={false} />);
    const row = dom.container.querySelector<HTMLElement>(`[data-testid="row"][data-key="l${first.seq}"]`)!;
    expect(row).not.toBeNull();
    expect(row.dataset.kind).toBe('log');
    expect(row.querySelector('.tag-stderr')?.textContent).toBe('stderr');
    expect(row.querySelector('[data-testid="row-log-text"]')?.textContent).toBe('Secure MCP Filesystem Server running on stdio');
  });

  it('open in the detail pane with their text, Copy JSON and no Copy cURL', async () => {
    const { store, second } = stdioSession();
    await render(<DetailPane store={store} row={store.row(`l${second.seq}`)!} version={store.version} onSelect={noop} onClose={noop} />);
    const detail = dom.container.querySelector('[data-testid="detail"]')!;
    expect(detail.textContent).toContain('warning: allowed directory /home/me does not exist');
    expect(detail.textContent).toContain('stderr');
    expect(detail.querySelector('[data-testid="copy-json"]')).not.toBeNull();
    expect(detail.querySelector('[data-testid="copy-curl"]')).toBeNull();
  });

  it("can be chosen in the filter bar's kind menu", async () => {
    let next: Filters | undefined;
    await render(
      <FilterBar
        filters={EMPTY_FILTERS}
        onChange={(f) => (next = f)}
        methods={() => []}
        shown={3}
        total={3}
        filtered={false}
        view="timeline"
        onView={noop}
        debounceMs={0}
      />,
    );
    const select = dom.container.querySelector<HTMLSelectElement>('[data-testid="filter-kind"]')!;
    expect([...select.options].map((o) => o.value)).toContain('log');
    await act(async () => {
      select.value = 'log';
      select.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(next?.kind).toBe('log');
  });
});

describe('the session card', () => {
  const session = (init: Partial<SessionInfo>): SessionInfo => ({
    id: 's1',
    transport: 'streamable-http',
    target: 'http://127.0.0.1:3001/mcp',
    startedAt: Date.UTC(2026, 4, 1, 12),
    status: 'open',
    counts: { messages: 1, requests: 1, pending: 0, errors: 1, exchanges: 1 },
    ...init,
  });

  it("shows a stdio session's command line on the card (not only in a tooltip); HTTP sessions have none", async () => {
    await render(
      <SessionList
        sessions={[session({ id: 's1', transport: 'stdio', target: COMMAND }), session({ id: 's2' })]}
        selected=""
        onSelect={noop}
        totals={{ messages: 2, errors: 0 }}
      />,
    );
    const stdio = dom.container.querySelector('[data-session-id="s1"]')!;
    const command = stdio.querySelector<HTMLElement>('[data-testid="session-command"]');
    expect(command).not.toBeNull();
    expect(command!.textContent).toContain(COMMAND);
    expect(command!.title).toContain(COMMAND);
    expect(dom.container.querySelector('[data-session-id="s2"] [data-testid="session-command"]')).toBeNull();
  });

  it('says "1 msg", "1 req", "1 error", "1 exchange" (and plurals from 2 on, and for 0)', async () => {
    await render(
      <SessionList
        sessions={[
          session({ id: 's1' }),
          session({ id: 's2', counts: { messages: 2, requests: 2, pending: 0, errors: 2, exchanges: 0 } }),
          session({ id: 's3', transport: 'http', target: 'http://127.0.0.1:3001' }),
        ]}
        selected=""
        onSelect={noop}
        totals={{ messages: 1, errors: 1 }}
      />,
    );
    const counts = (id: string) => dom.container.querySelector(`[data-session-id="${id}"] .si-counts`)!.textContent;
    expect(counts('')).toBe('1 msg1 error');
    expect(counts('s1')).toBe('1 msg1 req1 error');
    expect(counts('s2')).toBe('2 msgs2 reqs2 errors');
    expect(counts('s3')).toBe('1 exchange1 error');
  });
});

describe('counts in the right number', () => {
  it('noun and plural', () => {
    expect(plural(0, 'error')).toBe('0 errors');
    expect(plural(1, 'error')).toBe('1 error');
    expect(plural(2, 'error')).toBe('2 errors');
    expect(plural(1, 'match', 'matches')).toBe('1 match');
    expect(plural(3, 'match', 'matches')).toBe('3 matches');
    expect(noun(1, 'call')).toBe('call');
    expect(noun(7, 'call')).toBe('calls');
  });

  it('the filter bar says "1 row"', async () => {
    await render(
      <FilterBar
        filters={EMPTY_FILTERS}
        onChange={noop}
        methods={() => []}
        shown={1}
        total={1}
        filtered={false}
        view="timeline"
        onView={noop}
      />,
    );
    expect(dom.container.querySelector('[data-testid="row-count"]')!.textContent).toBe('1 row');
  });

  it('the stream table says "1 event"', async () => {
    const b = new EventBuilder();
    b.session('s1');
    b.exchange('x1', 's1', { carrier: 'get-sse', method: 'GET', responseType: 'text/event-stream' });
    const n = b.message({
      exchangeId: 'x1',
      dir: 's2c',
      kind: 'notification',
      carrier: 'get-sse',
      method: 'notifications/tools/list_changed',
      jsonrpc: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    });
    const store = new TimelineStore();
    store.ingest(b.events);
    await render(
      <DetailPane store={store} row={store.row(`n${n.seq}`)!} version={store.version} onSelect={noop} onClose={noop} initialTab="stream" />,
    );
    const text = dom.container.querySelector('[data-testid="detail"]')!.textContent!;
    expect(text).toContain('1 event');
    expect(text).not.toContain('1 events');
  });

  it('the compare view says so of one call that is the same in both sessions', async () => {
    const b = new EventBuilder();
    for (const sid of ['s1', 's2']) {
      b.session(sid, { clientInfo: { name: 'c', version: '1' } });
      b.exchange(`x-${sid}`, sid);
      const req = b.message({
        sessionId: sid,
        exchangeId: `x-${sid}`,
        dir: 'c2s',
        kind: 'request',
        carrier: 'post-body',
        id: 1,
        method: 'tools/list',
        jsonrpc: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      });
      b.message({
        sessionId: sid,
        exchangeId: `x-${sid}`,
        dir: 's2c',
        kind: 'response',
        carrier: 'post-json',
        id: 1,
        method: 'tools/list',
        pair: req.seq,
        jsonrpc: { jsonrpc: '2.0', id: 1, result: { tools: [] } },
      });
    }
    const store = new TimelineStore();
    store.ingest(b.events);
    await render(
      <DiffView
        store={store}
        version={store.version}
        sessions={store.sessionList()}
        left="s1"
        right="s2"
        onChange={noop}
        onOpenCall={noop}
        onExit={noop}
      />,
    );
    // "Differences only" is on by default when there are none to show? Tick it to get the empty state.
    const text = () => dom.container.querySelector('[data-testid="diff-view"]')!.textContent!;
    const toggle = dom.container.querySelector<HTMLInputElement>('.diff-toolbar input[type="checkbox"]');
    if (toggle && !toggle.checked) await act(async () => toggle.click());
    expect(text()).not.toMatch(/\b1 calls\b/);
    expect(text()).toContain('The one call has the same parameters and outcomes');
  });
});

describe('Copy cURL', () => {
  function sseCall() {
    const b = new EventBuilder();
    b.session('s1');
    b.exchange('x5', 's1', { carrier: 'post-sse', responseType: 'text/event-stream', status: 200 });
    const call = b.message({
      exchangeId: 'x5',
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      id: 5,
      method: 'tools/call',
      name: 'ask',
      jsonrpc: { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'ask' } },
    });
    // The server's own request, on the POST's response stream (nested under the call).
    const sampling = b.message({
      exchangeId: 'x5',
      dir: 's2c',
      kind: 'request',
      carrier: 'post-sse',
      id: 0,
      method: 'sampling/createMessage',
      parent: call.seq,
      jsonrpc: { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: {} },
    });
    b.exchange('x6', 's1', { carrier: 'post-json', status: 202 });
    b.message({
      exchangeId: 'x6',
      dir: 'c2s',
      kind: 'response',
      carrier: 'post-body',
      id: 0,
      pair: sampling.seq,
      jsonrpc: { jsonrpc: '2.0', id: 0, result: { role: 'assistant' } },
    });
    const store = new TimelineStore();
    store.ingest(b.events);
    return { store, call, sampling };
  }

  it('is offered for a client→server request sent over HTTP', async () => {
    const { store, call } = sseCall();
    const row = store.row(`c${call.seq}`)!;
    expect(curlMessage(row)?.seq).toBe(call.seq);
    await render(<DetailPane store={store} row={row} version={store.version} onSelect={noop} onClose={noop} />);
    const button = (label: string) =>
      [...dom.container.querySelectorAll<HTMLButtonElement>('.detail-actions button')].find((el) => el.textContent === label);
    expect(button('Copy cURL')).toBeDefined();
    expect(button('Copy cURL')!.disabled).toBe(false);
    expect(button('Copy JSON')).toBeDefined();
  });

  it("is not offered for a server→client request (it would POST the server's own request back to the server): Copy JSON is", async () => {
    const { store, sampling } = sseCall();
    const row = store.row(`c${sampling.seq}`)!;
    expect(row.type === 'call' && row.dir).toBe('s2c');
    expect(curlMessage(row)).toBeUndefined();
    await render(<DetailPane store={store} row={row} version={store.version} onSelect={noop} onClose={noop} />);
    const buttons = [...dom.container.querySelectorAll('.detail-actions button')].map((b) => b.textContent);
    expect(buttons).not.toContain('Copy cURL');
    expect(buttons).toContain('Copy JSON');
  });

  it('is not offered for stdio traffic', async () => {
    const { store, req } = stdioSession();
    const row = store.row(`c${req.seq}`)!;
    expect(curlMessage(row)).toBeUndefined();
    await render(<DetailPane store={store} row={row} version={store.version} onSelect={noop} onClose={noop} />);
    expect(dom.container.querySelector('[data-testid="copy-curl"]')).toBeNull();
  });
});

describe("the detail pane's jargon, said in plain words", () => {
  function call() {
    const b = new EventBuilder(1860);
    b.session('s1');
    b.exchange('x257', 's1', {
      carrier: 'post-sse',
      responseType: 'text/event-stream',
      status: 200,
      responseHeaders: { 'content-type': 'text/event-stream' },
    });
    const req = b.message({
      exchangeId: 'x257',
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      id: 3,
      method: 'tools/call',
      name: 'add',
      jsonrpc: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'add' } },
    });
    const res = b.message({
      exchangeId: 'x257',
      dir: 's2c',
      kind: 'response',
      carrier: 'post-sse',
      id: 3,
      method: 'tools/call',
      pair: req.seq,
      jsonrpc: { jsonrpc: '2.0', id: 3, result: { content: [] } },
    });
    const store = new TimelineStore();
    store.ingest(b.events);
    return { store, req, res };
  }

  it('seq numbers (#1869) have a tooltip; exchange ids (x257) are labelled; carriers (post-sse) are words', async () => {
    const { store, req, res } = call();
    await render(<DetailPane store={store} row={store.row(`c${req.seq}`)!} version={store.version} onSelect={noop} onClose={noop} />);
    const detail = dom.container.querySelector('[data-testid="detail"]')!;
    const seqs = [...detail.querySelectorAll<HTMLElement>('[data-testid="seq"]')];
    expect(seqs.map((s) => s.textContent)).toEqual([`#${req.seq}`, `#${res.seq}`]);
    for (const s of seqs) expect(s.title).toMatch(/mcpscope numbers everything it records/);
    // The chips that name seqs say what they are, too.
    expect(detail.querySelector<HTMLElement>('[data-link="request"]')!.title).toMatch(/mcpscope numbers everything/);
    const exchanges = [...detail.querySelectorAll<HTMLElement>('[data-testid="exchange-id"]')];
    expect(exchanges.length).toBe(2);
    for (const x of exchanges) {
      expect(x.textContent).toBe('exchange x257');
      expect(x.title).toMatch(/HTTP exchange x257: .*one HTTP request and its response/);
    }
    const carriers = [...detail.querySelectorAll<HTMLElement>('[data-testid="carrier"]')];
    expect(carriers.map((c) => c.textContent)).toEqual(['POST body', 'POST event stream']);
    expect(carriers[1].title).toMatch(/SSE event stream/);
    expect(detail.querySelector('.msg-meta')!.textContent).not.toContain('post-sse');
  });

  it('the HTTP tab says how the messages travelled instead of "Carrier"', async () => {
    const { store, req } = call();
    await render(
      <DetailPane store={store} row={store.row(`c${req.seq}`)!} version={store.version} onSelect={noop} onClose={noop} initialTab="http" />,
    );
    const detail = dom.container.querySelector('[data-testid="detail"]')!;
    const labels = [...detail.querySelectorAll('dt')].map((d) => d.textContent);
    expect(labels).not.toContain('Carrier');
    expect(labels).toContain('Carried as');
    const dt = [...detail.querySelectorAll<HTMLElement>('dt')].find((d) => d.textContent === 'Carried as')!;
    expect(dt.title).toMatch(/request body, a JSON answer, or an SSE event stream/);
    expect(dt.nextElementSibling!.textContent).toBe('POST event stream (post-sse)');
    expect(detail.querySelector('.exchange-line [data-testid="exchange-id"]')!.textContent).toBe('exchange x257');
  });
});

describe('keeping the selected row in view', () => {
  it('keepInView: a row in view stays in view when the list gets shorter; one out of view is left alone', () => {
    // 28 px rows, 10 rows in view (0..279); the list shrinks to 5 rows (140 px).
    expect(keepInView({ index: 8, scrollTop: 0, before: 280, after: 140, rowHeight: 28 })).toBe(9 * 28 - 140);
    // Already in the shorter view: no move.
    expect(keepInView({ index: 2, scrollTop: 0, before: 280, after: 140, rowHeight: 28 })).toBe(0);
    // Partly in view before (the last, cut row): revealed wholly.
    expect(keepInView({ index: 10, scrollTop: 10, before: 280, after: 140, rowHeight: 28 })).toBe(11 * 28 - 140);
    // Not in view before: nothing to keep.
    expect(keepInView({ index: 40, scrollTop: 0, before: 280, after: 140, rowHeight: 28 })).toBeUndefined();
    // At the top of the view: it stays there.
    expect(keepInView({ index: 3, scrollTop: 84, before: 280, after: 140, rowHeight: 28 })).toBe(84);
  });
});
