// @vitest-environment happy-dom
/**
 * Invisible characters in peer-chosen names (ui/src/components/VisibleText.tsx) as the timeline,
 * the detail pane, the session list and the waterfall show them: a tool named `run\u202Ehs.exe`
 * must not read `runexe.sh`.
 */
import { describe, expect, it } from 'vitest';
import { act } from 'react';
import { mountPoint } from './dom';
import { TimelineStore } from '../../ui/src/state/store';
import { EMPTY_FILTERS } from '../../ui/src/state/types';
import { Timeline } from '../../ui/src/components/Timeline';
import { DetailPane } from '../../ui/src/components/DetailPane';
import { SessionList } from '../../ui/src/components/SessionList';
import { EventBuilder } from './fixtures';

const dom = mountPoint();
const noop = () => undefined;
const RLO = '\u202E';
const TOOL = `run${RLO}hs.exe`;

function spoofedCall() {
  const b = new EventBuilder();
  b.session('s1', { clientInfo: { name: `claude${'\u200B'}`, version: '1.0' }, serverInfo: { name: 'files', version: `2.0${'\u2066'}` } });
  b.exchange('x1', 's1', { carrier: 'post-json', status: 200, responseHeaders: { [`x-note${'\u200D'}`]: `ok${RLO}kc` } });
  const req = b.message({
    exchangeId: 'x1',
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    id: 1,
    method: 'tools/call',
    name: TOOL,
    jsonrpc: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: TOOL, arguments: {} } },
  });
  b.message({
    exchangeId: 'x1',
    dir: 's2c',
    kind: 'error',
    carrier: 'post-json',
    id: 1,
    pair: req.seq,
    error: { code: -32602, message: `no tool ${TOOL}` },
    jsonrpc: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: `no tool ${TOOL}` } },
  });
  const store = new TimelineStore();
  store.ingest(b.events);
  return { store, key: `c${req.seq}` };
}

const badges = (el: Element) => [...el.querySelectorAll('[data-testid="invisible-char"]')].map((b) => b.textContent);

describe('invisible characters in names', () => {
  it('the timeline row shows the override as a badge, with a warning marker', async () => {
    const { store, key } = spoofedCall();
    await dom.render(<Timeline rows={store.visibleRows(EMPTY_FILTERS)} onSelect={noop} onOpen={noop} live={false} />);
    const row = dom.container.querySelector(`[data-key="${key}"]`)!;
    const name = row.querySelector('.m-name')!;
    expect(name.textContent).toBe('run⟨U+202E⟩hs.exe');
    expect(name.textContent).not.toContain(RLO);
    expect(name.querySelector('[data-testid="invisible-char"]')!.getAttribute('title')).toBe(
      'U+202E right-to-left override: an invisible character that reverses the text after it',
    );
    expect(row.querySelector('[data-testid="invisible-mark"]')).not.toBeNull();
    // The error message in the gist too; and nothing of the row holds the raw character.
    expect(row.querySelector('.m-gist')!.textContent).toBe('-32602 no tool run⟨U+202E⟩hs.exe');
    expect(row.textContent).not.toContain(RLO);
    expect(row.querySelector('.c-status .badge')!.getAttribute('title')).not.toContain(RLO);
  });

  it('a row without invisible characters has no marker and no badges', async () => {
    const { store } = spoofedCall();
    const b = new EventBuilder(100);
    b.message({
      dir: 'c2s',
      kind: 'notification',
      carrier: 'post-body',
      method: 'notifications/initialized',
      jsonrpc: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
    store.ingest(b.events);
    await dom.render(<Timeline rows={store.visibleRows(EMPTY_FILTERS)} onSelect={noop} onOpen={noop} live={false} />);
    const row = dom.container.querySelector('[data-key="n100"]')!;
    expect(row.querySelector('[data-testid="invisible-mark"]')).toBeNull();
    expect(badges(row)).toEqual([]);
  });

  it('the detail pane shows it in the title, the call summary, the error, the JSON and the headers', async () => {
    const { store, key } = spoofedCall();
    await dom.render(<DetailPane store={store} row={store.row(key)!} version={store.version} onSelect={noop} onClose={noop} />);
    const detail = dom.$('detail')!;
    expect(detail.querySelector('.detail-title-text')!.textContent).toBe('tools/call run⟨U+202E⟩hs.exe');
    expect(detail.querySelector('.detail-title-text')!.getAttribute('title')).toBe('tools/call run⟨U+202E⟩hs.exe');
    expect(detail.querySelector('.call-summary')!.textContent).toContain('run⟨U+202E⟩hs.exe');
    expect(detail.querySelector('.error-box')!.textContent).toContain('no tool run⟨U+202E⟩hs.exe');
    // JSON string values: `"name": "run⟨U+202E⟩hs.exe"`.
    const strings = [...detail.querySelectorAll('.jv-string')].map((s) => s.textContent);
    expect(strings).toContain('"run⟨U+202E⟩hs.exe"');
    expect(detail.textContent).not.toContain(RLO);
    await act(async () => dom.$('detail-tab-http')!.click());
    const headers = [...dom.$('detail')!.querySelectorAll('.headers-table')].map((t) => t.textContent).join('\n');
    expect(headers).toContain('x-note⟨U+200D⟩');
    expect(headers).toContain('ok⟨U+202E⟩kc');
    await act(async () => dom.$('detail-tab-raw')!.click());
    expect(dom.$('detail')!.querySelector('.raw')!.textContent).toContain('run⟨U+202E⟩hs.exe');
  });

  it('the session list shows the client and server names and versions with their badges', async () => {
    const { store } = spoofedCall();
    await dom.render(<SessionList sessions={store.sessionList()} selected="" onSelect={noop} totals={{ messages: 2, errors: 1 }} />);
    const peers = dom.container.querySelector('.si-peers')!;
    expect(badges(peers)).toEqual(['⟨U+200B⟩', '⟨U+2066⟩']);
    expect(peers.querySelectorAll('[data-testid="invisible-mark"]')).toHaveLength(2);
    expect(peers.textContent).not.toMatch(/[\u200B\u2066]/);
  });
});
