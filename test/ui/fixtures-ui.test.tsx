// @vitest-environment happy-dom
/**
 * The UI side of fixtures, without a browser: the export menu's links, the import client (the
 * server's plain-words errors), dropping a capture on the app (notice, then the imported session
 * is selected once the feed brings it), and compare mode (ticks, URL, the diff rows).
 */
import { describe, expect, it, vi } from 'vitest';
import { mountPoint } from './dom';
import { act, type ReactElement } from 'react';
import { TimelineStore } from '../../ui/src/state/store';
import { App, initialComparePair, pickForCompare } from '../../ui/src/App';
import { searchForUrlState, urlStateFromSearch } from '../../ui/src/url-state';
import { ExportMenu, exportHref } from '../../ui/src/components/ExportMenu';
import { describeImport, importCaptureFile, importCaptureText } from '../../ui/src/state/import-client';
import { EMPTY_FILTERS, type SessionInfo } from '../../ui/src/state/types';
import { EventBuilder } from './fixtures';

const dom = mountPoint();

async function render(el: ReactElement) {
  await dom.render(el);
}

const $ = (testId: string) => dom.container.querySelector<HTMLElement>(`[data-testid="${testId}"]`);
const $$ = (testId: string) => [...dom.container.querySelectorAll<HTMLElement>(`[data-testid="${testId}"]`)];

/** Two sessions that both echo, with different texts. */
function echoSessions(b = new EventBuilder()) {
  for (const [sid, text] of [
    ['s1', 'alpha'],
    ['s2', 'bravo'],
  ] as const) {
    b.session(sid, { clientInfo: { name: `client-${sid}` } });
    const req = b.message({
      sessionId: sid,
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      id: 1,
      method: 'tools/call',
      name: 'echo',
      jsonrpc: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text } } },
    });
    b.message({
      sessionId: sid,
      dir: 's2c',
      kind: 'response',
      carrier: 'post-json',
      id: 1,
      method: 'tools/call',
      name: 'echo',
      pair: req.seq,
      jsonrpc: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: `Echo: ${text}` }] } },
    });
  }
  return b;
}

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

describe('export menu', () => {
  it('links each format of the selected session, and offers no fixture of everything', async () => {
    expect(exportHref('s1', 'fixture')).toBe('api/sessions/s1/export?format=fixture');
    expect(exportHref('a b/c', 'har')).toBe('api/sessions/a%20b%2Fc/export?format=har');
    expect(exportHref('', 'ndjson')).toBe('api/export?format=ndjson');
    expect(exportHref('', 'fixture')).toBeUndefined();

    await render(<ExportMenu sessionId="s2" />);
    expect($('export-menu')).toBeNull();
    await act(async () => $('export')!.click());
    expect($('export')!.getAttribute('aria-expanded')).toBe('true');
    for (const f of ['fixture', 'har', 'ndjson']) {
      const a = $(`export-${f}`) as HTMLAnchorElement;
      expect(a.tagName).toBe('A');
      expect(a.getAttribute('href')).toBe(`api/sessions/s2/export?format=${f}`);
      // `download` without a name: the server's content-disposition names the file.
      expect(a.hasAttribute('download')).toBe(true);
      expect(a.getAttribute('download')).toBe('');
    }
    expect($('export-fixture')!.textContent).toContain('Fixture (.json)');
    expect($('export-har')!.textContent).toContain('HAR (.har)');
    expect($('export-ndjson')!.textContent).toContain('NDJSON (.ndjson)');

    await render(<ExportMenu sessionId="" />);
    expect($('export-fixture')!.getAttribute('aria-disabled')).toBe('true');
    expect($('export-fixture')!.hasAttribute('href')).toBe(false);
    expect($('export-har')!.getAttribute('href')).toBe('api/export?format=har');
  });

  it('closes on Escape without letting the key reach the app', async () => {
    const onKey = vi.fn();
    window.addEventListener('keydown', onKey);
    try {
      await render(<ExportMenu sessionId="s1" />);
      await act(async () => $('export')!.click());
      await act(async () => void $('export-menu')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true })));
      expect($('export-menu')).toBeNull();
      expect(onKey).not.toHaveBeenCalled();
    } finally {
      window.removeEventListener('keydown', onKey);
    }
  });
});

describe('import client', () => {
  it('posts the text to api/import and reads the answer', async () => {
    const fetchImpl = vi.fn(async () => jsonResponse(200, { events: 12, sessions: ['s1-i1'], kind: 'fixture', warnings: [] }));
    const outcome = await importCaptureText('{"format":"mcpscope-fixture"}', fetchImpl as unknown as typeof fetch);
    expect(outcome).toEqual({ ok: true, events: 12, sessions: ['s1-i1'], kind: 'fixture', warnings: [] });
    const [url, init] = fetchImpl.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('api/import');
    expect(init.method).toBe('POST');
    expect(init.body).toBe('{"format":"mcpscope-fixture"}');
    expect(init.credentials).toBe('same-origin');
    if (outcome.ok) expect(describeImport(outcome)).toBe('1 session (s1-i1), 12 events from a fixture');
  });

  it("passes on the server's plain-words error, fastify's refusals included", async () => {
    const refuse = (status: number, body: unknown) => (async () => jsonResponse(status, body)) as unknown as typeof fetch;
    expect(await importCaptureText('hello', refuse(400, { error: 'This is not JSON or NDJSON. mcpscope can open a fixture…' }))).toEqual({
      ok: false,
      error: 'This is not JSON or NDJSON. mcpscope can open a fixture…',
    });
    // fastify's refusal of a body past the limit, as the UI server's error handler answers it.
    const tooLarge = await importCaptureText('x', refuse(413, { error: 'Request body is too large', code: 'FST_ERR_CTP_BODY_TOO_LARGE' }));
    expect(tooLarge).toEqual({ ok: false, error: 'The file is too large for mcpscope to import (Request body is too large).' });
    const down = await importCaptureText('x', (async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch);
    expect(down).toEqual({ ok: false, error: 'Could not reach mcpscope: Failed to fetch.' });
    expect(await importCaptureFile(new File([], 'empty.json'))).toEqual({ ok: false, error: 'The file is empty.' });
  });
});

describe('compare state', () => {
  it('fills A then B, frees a side when unticked, and keeps the latest two', () => {
    let c = { left: '', right: '' };
    c = pickForCompare(c, 's1');
    expect(c).toEqual({ left: 's1', right: '' });
    c = pickForCompare(c, 's2');
    expect(c).toEqual({ left: 's1', right: 's2' });
    c = pickForCompare(c, 's3');
    expect(c).toEqual({ left: 's2', right: 's3' });
    c = pickForCompare(c, 's2');
    expect(c).toEqual({ left: '', right: 's3' });
    c = pickForCompare(c, 's1');
    expect(c).toEqual({ left: 's1', right: 's3' });
  });

  it('starts from the selected session and the latest other one', () => {
    const s = (id: string) => ({ id }) as SessionInfo;
    const list = [s('s1'), s('s2'), s('s3')];
    expect(initialComparePair(list, '')).toEqual({ left: 's2', right: 's3' });
    expect(initialComparePair(list, 's1')).toEqual({ left: 's1', right: 's3' });
    expect(initialComparePair(list, 's3')).toEqual({ left: 's2', right: 's3' });
    expect(initialComparePair([s('s1')], 's1')).toEqual({ left: 's1', right: '' });
  });

  it('round-trips through the URL', () => {
    const search = searchForUrlState({ filters: EMPTY_FILTERS, view: 'timeline', compare: { left: 's1', right: 's2-i1' } });
    expect(search).toBe('?compare=s1&compare=s2-i1');
    expect(urlStateFromSearch(search).compare).toEqual({ left: 's1', right: 's2-i1' });
    expect(urlStateFromSearch('?compare=s1').compare).toEqual({ left: 's1', right: '' });
    expect(urlStateFromSearch('?session=s1').compare).toBeUndefined();
  });
});

describe('App: compare mode', () => {
  it('diffs the two sessions picked in the session list', async () => {
    const store = new TimelineStore();
    store.ingest(echoSessions().events);
    await render(<App store={store} />);
    expect($('diff-view')).toBeNull();

    await act(async () => $('compare')!.click());
    expect($('compare')!.getAttribute('aria-pressed')).toBe('true');
    expect($('diff-view')).not.toBeNull();
    // Started with the two sessions there are: s1 as A, s2 as B.
    expect(new URLSearchParams(location.search).getAll('compare')).toEqual(['s1', 's2']);
    const row = $$('diff-row');
    expect(row.map((r) => r.getAttribute('data-diff'))).toEqual(['changed']);
    expect(row[0].textContent).toContain('params.arguments.text');
    expect(row[0].textContent).toContain('"alpha"');
    expect(row[0].textContent).toContain('"bravo"');
    // The timeline and its filters are out of the way.
    expect($('filter-method')).toBeNull();

    // Unticking B leaves a prompt to pick another.
    const item = (id: string) => dom.container.querySelector<HTMLElement>(`[data-testid="session-item"][data-session-id="${id}"]`)!;
    expect(item('s1').getAttribute('data-side')).toBe('A');
    await act(async () => item('s2').click());
    expect($$('diff-row')).toHaveLength(0);
    expect($('diff-view')!.textContent).toContain('Pick two sessions');
    await act(async () => item('s2').click());
    expect($$('diff-row')).toHaveLength(1);

    await act(async () => $('compare')!.click());
    expect($('diff-view')).toBeNull();
    expect(location.search).not.toContain('compare');
  });
});

describe('App: dropping a capture', () => {
  function drop(files: File[]) {
    const fire = (type: string) => {
      const e = new Event(type, { bubbles: true, cancelable: true });
      Object.defineProperty(e, 'dataTransfer', { value: { types: ['Files'], files, dropEffect: 'none' } });
      window.dispatchEvent(e);
      return e;
    };
    return { fire };
  }

  it('shows the drop overlay, imports the file and selects the new session once it arrives', async () => {
    const store = new TimelineStore();
    const b = echoSessions();
    store.ingest(b.events);
    const fetchImpl = vi.fn(async () => jsonResponse(200, { events: 3, sessions: ['s1-i1'], kind: 'fixture', warnings: [] }));
    vi.stubGlobal('fetch', fetchImpl);
    await render(<App store={store} />);

    const file = new File(['{"format":"mcpscope-fixture","version":1}'], 'before.json', { type: 'application/json' });
    const d = drop([file]);
    await act(async () => void d.fire('dragenter'));
    expect($('drop-overlay')!.textContent).toContain('Drop a capture to open it');
    const over = d.fire('dragover');
    expect(over.defaultPrevented).toBe(true);
    await act(async () => {
      d.fire('drop');
      await new Promise((r) => setTimeout(r, 20));
    });
    expect($('drop-overlay')).toBeNull();
    // (The header also polls api/stats; only the import matters here.)
    const imports = (fetchImpl.mock.calls as unknown as [string, RequestInit][]).filter(([url]) => String(url).includes('import'));
    expect(imports).toHaveLength(1);
    expect(imports[0][1].body).toBe('{"format":"mcpscope-fixture","version":1}');
    const toast = $('toast')!;
    expect(toast.getAttribute('data-kind')).toBe('ok');
    expect(toast.textContent).toContain('Opened before.json');
    expect(toast.textContent).toContain('1 session (s1-i1), 3 events from a fixture');

    // The session is not in the store yet: nothing selected until the feed brings it.
    expect(new URLSearchParams(location.search).get('session')).toBeNull();
    const more = new EventBuilder(b.seq + 1, b.ts + 1000);
    more.session('s1-i1', { clientInfo: { name: 'imported-client' } });
    await act(async () => store.ingest(more.events));
    expect(new URLSearchParams(location.search).get('session')).toBe('s1-i1');
    expect(dom.container.querySelector('[data-testid="session-item"][data-session-id="s1-i1"]')!.getAttribute('aria-selected')).toBe(
      'true',
    );
  });

  it("shows the server's error and selects nothing", async () => {
    const store = new TimelineStore();
    store.ingest(echoSessions().events);
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        jsonResponse(400, {
          error: 'This JSON is not an mcpscope capture (no "format": "mcpscope-fixture", no log.entries, not an event).',
        }),
      ),
    );
    await render(<App store={store} />);
    await act(async () => {
      drop([new File(['{"hello":1}'], 'other.json')]).fire('drop');
      await new Promise((r) => setTimeout(r, 20));
    });
    const toast = $('toast')!;
    expect(toast.getAttribute('data-kind')).toBe('error');
    expect(toast.textContent).toContain('Could not open other.json');
    expect(toast.textContent).toContain('This JSON is not an mcpscope capture');
    await act(async () => (toast.querySelector('button') as HTMLElement).click());
    expect($('toast')).toBeNull();
  });

  it('ignores drags that carry no files (text, links)', async () => {
    const store = new TimelineStore();
    await render(<App store={store} />);
    const e = new Event('dragenter', { bubbles: true, cancelable: true });
    Object.defineProperty(e, 'dataTransfer', { value: { types: ['text/plain'], files: [] } });
    await act(async () => void window.dispatchEvent(e));
    expect($('drop-overlay')).toBeNull();
  });
});
