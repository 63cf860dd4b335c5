// @vitest-environment happy-dom
/**
 * The detail pane's Spec tab (issue 19): there only for a row whose messages broke a rule (or a
 * violation row of its own), announced by a note above the tabs, falling back to Messages on a
 * row without; each rule with its section of the specification linked, the path at fault, what
 * was expected, and the message with that part marked (a missing member on its nearest ancestor).
 */
import { describe, expect, it } from 'vitest';
import { act } from 'react';
import { mountPoint } from './dom';
import { TimelineStore } from '../../ui/src/state/store';
import { EMPTY_FILTERS, type Row } from '../../ui/src/state/types';
import { DetailPane, type DetailTab } from '../../ui/src/components/DetailPane';
import { SpecTab } from '../../ui/src/components/detail/SpecTab';
import { EventBuilder, SPEC_URL_TOOLS, scenario, specScenario } from './fixtures';

const dom = mountPoint();
const noop = () => undefined;

function load(level: 'warn' | 'error' = 'warn') {
  const { events, seq } = specScenario(level);
  const store = new TimelineStore();
  store.ingest(events);
  const row = (key: string): Row => {
    const r = store.row(key);
    if (!r) throw new Error(`no row ${key}`);
    return r;
  };
  return { store, seq, row };
}

const pane = (store: TimelineStore, row: Row, initialTab?: DetailTab) => (
  <DetailPane store={store} row={row} version={store.version} onSelect={noop} onClose={noop} initialTab={initialTab} />
);
const $ = (id: string) => dom.$(id);
const all = (id: string) => [...dom.container.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
const activeTab = () => dom.container.querySelector('[role="tab"][aria-selected="true"]')?.getAttribute('data-testid');
const click = (el: HTMLElement | null) =>
  act(async () => {
    if (!el) throw new Error('nothing to click');
    el.click();
  });

describe('the Spec tab in the detail pane', () => {
  it('is offered, with a note above the tabs, on a call whose request broke a rule', async () => {
    const { store, seq, row } = load();
    await dom.render(pane(store, row(`c${seq.badAdd}`)));
    expect(activeTab()).toBe('detail-tab-messages');
    const tab = $('detail-tab-spec')!;
    expect(tab.textContent).toBe('Spec1');
    expect($('spec-count')!.classList.contains('spec-warn')).toBe(true);
    const note = $('spec-note')!;
    expect(note.textContent).toBe('Breaks the MCP specification: tools/arguments-schema');
    expect(note.classList.contains('spec-warn')).toBe(true);
    expect($('spec-tab')).toBeNull();

    // The note opens the Spec tab (and is not shown there).
    await click(note);
    expect(activeTab()).toBe('detail-tab-spec');
    expect($('spec-note')).toBeNull();
    const group = $('spec-group')!;
    expect(group.getAttribute('data-message')).toBe(String(seq.badAdd));
    expect(group.querySelector('.panel-title')!.textContent).toBe('request tools/call');
    const items = all('spec-violation');
    expect(items.length).toBe(1);
    const v = items[0];
    expect(v.getAttribute('data-rule')).toBe('tools/arguments-schema');
    expect(v.getAttribute('data-level')).toBe('warn');
    expect(v.querySelector('.spec-level')!.textContent).toBe('warning');
    expect(v.querySelector('[data-testid="spec-rule"]')!.textContent).toBe('tools/arguments-schema');
    const ref = v.querySelector<HTMLAnchorElement>('[data-testid="spec-ref"]')!;
    expect(ref.tagName).toBe('A');
    expect(ref.getAttribute('href')).toBe(SPEC_URL_TOOLS);
    expect(ref.getAttribute('target')).toBe('_blank');
    expect(ref.getAttribute('rel')).toBe('noreferrer');
    expect(ref.textContent).toBe('2025-11-25 server/tools#calling-tools');
    expect(v.querySelector('[data-testid="spec-path"]')!.textContent).toBe('/params/arguments/a');
    expect(v.querySelector('[data-testid="spec-expected"]')!.textContent).toBe('a number');
    expect(v.querySelector('.spec-text')!.textContent).toContain('inputSchema: /a is not a number');
    // The message, with the argument at fault marked.
    const hl = all('jv-hl');
    expect(hl.map((el) => [el.getAttribute('data-path'), el.textContent])).toEqual([['/params/arguments/a', '"a": "2",']]);
    expect(group.querySelector('[data-testid="json-view"]')!.textContent).toContain('"tools/call"');
  });

  it('is not there for a row that broke nothing, and a Spec tab asked for falls back to Messages', async () => {
    const { store, seq, row } = load();
    await dom.render(pane(store, row(`c${seq.goodAdd}`), 'spec'));
    expect($('detail-tab-spec')).toBeNull();
    expect($('spec-note')).toBeNull();
    expect($('spec-tab')).toBeNull();
    expect(activeTab()).toBe('detail-tab-messages');
    expect($('detail')!.textContent).toContain('"b": 3');

    // Every row of a capture without violations: no Spec tab, no note.
    const plain = new TimelineStore();
    plain.ingest(scenario().events);
    for (const r of plain.visibleRows(EMPTY_FILTERS)) {
      await dom.render(pane(plain, r));
      expect($('detail-tab-spec'), r.key).toBeNull();
      expect($('spec-note'), r.key).toBeNull();
    }
  });

  it('stays chosen while rows with violations are selected, and gives way to Messages on one without', async () => {
    const { store, seq, row } = load();
    await dom.render(pane(store, row(`c${seq.badAdd}`)));
    await click($('detail-tab-spec'));
    expect(activeTab()).toBe('detail-tab-spec');
    // The same pane, another row (as the App re-renders it on a new selection).
    await dom.render(pane(store, row(`c${seq.goodAdd}`)));
    expect(activeTab()).toBe('detail-tab-messages');
    expect($('spec-tab')).toBeNull();
    expect($('detail-tab-spec')).toBeNull();
    await dom.render(pane(store, row(`c${seq.badAdd2}`)));
    expect(activeTab()).toBe('detail-tab-spec');
    expect($('spec-group')!.getAttribute('data-message')).toBe(String(seq.badAdd2));
  });

  it("marks a member the message lacks on its nearest ancestor, and says it is not there (a response's violation on its call row)", async () => {
    const { store, seq, row } = load();
    await dom.render(pane(store, row(`c${seq.echo}`), 'spec'));
    const group = $('spec-group')!;
    expect(group.getAttribute('data-message')).toBe(String(seq.echoResult));
    expect(group.querySelector('.panel-title')!.textContent).toBe('response tools/call');
    expect($('spec-path')!.textContent).toBe('/result/content — not in the message');
    expect($('spec-expected')!.textContent).toBe('an array of content blocks');
    expect(all('jv-hl').map((el) => el.getAttribute('data-path'))).toEqual(['/result']);
  });

  it('shows a violation naming no message on its own row, without a message to mark', async () => {
    const { store, seq, row } = load();
    const r = row(`p${seq.loose}`);
    expect(r.type).toBe('problem');
    await dom.render(pane(store, r));
    expect($('spec-note')!.textContent).toBe('Breaks the MCP specification: transport/protocol-version-header');
    await click($('detail-tab-spec'));
    expect($('spec-group')!.getAttribute('data-message')).toBeNull();
    expect($('spec-group')!.querySelector('.panel-title')!.textContent).toBe('Not about one message');
    expect($('spec-ref')!.getAttribute('href')).toBe(
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header',
    );
    expect($('spec-path')).toBeNull();
    expect($('spec-expected')).toBeNull();
    expect($('json-view')).toBeNull();
  });

  it('is red under --lint strict (level error)', async () => {
    const { store, seq, row } = load('error');
    await dom.render(pane(store, row(`c${seq.badAdd}`)));
    expect($('spec-note')!.classList.contains('spec-error')).toBe(true);
    expect($('spec-count')!.classList.contains('spec-error')).toBe(true);
    await click($('detail-tab-spec'));
    const v = $('spec-violation')!;
    expect(v.getAttribute('data-level')).toBe('error');
    expect(v.classList.contains('lvl-error')).toBe(true);
    expect(v.querySelector('.spec-level')!.textContent).toBe('error');
  });
});

describe('SpecTab', () => {
  it('links only real spec references, and writes the rest as text', async () => {
    const b = new EventBuilder();
    b.session('s1');
    const m = b.message({
      exchangeId: 'x1',
      dir: 's2c',
      kind: 'notification',
      carrier: 'post-sse',
      method: 'notifications/progress',
      jsonrpc: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2 } },
    });
    const hostile = b.violation({ message: m.seq, rule: 'progress/x', specRef: 'javascript:alert(1)', path: '' });
    const elsewhere = b.violation({ message: m.seq, rule: 'progress/y', specRef: 'https://evil.example/spec' });
    const store = new TimelineStore();
    store.ingest(b.events);
    await dom.render(<SpecTab store={store} violations={[hostile, elsewhere]} />);
    const refs = all('spec-ref');
    expect(refs.map((r) => [r.tagName, r.textContent])).toEqual([
      ['SPAN', 'javascript:alert(1)'],
      ['SPAN', 'https://evil.example/spec'],
    ]);
    expect(dom.container.querySelector('a')).toBeNull();
    // Both are about one message: one group; the empty path is the whole message.
    expect(all('spec-group').length).toBe(1);
    expect(all('spec-path').map((el) => el.textContent)).toEqual(['(the whole message)']);
    expect(all('jv-hl').map((el) => el.getAttribute('data-path'))).toEqual(['']);
  });

  it('says so when there is nothing to show', async () => {
    const store = new TimelineStore();
    await dom.render(<SpecTab store={store} violations={[]} />);
    expect(dom.container.textContent).toBe('This row broke no rule of the MCP specification.');
    expect($('spec-tab')).toBeNull();
  });
});
