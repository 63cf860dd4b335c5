// @vitest-environment happy-dom
/**
 * The linter's notes in the UI (issue 26): a `lint-not-checked` problem (a schema too large or too
 * slow to check, a pattern RE2 cannot run) annotates its message as violations do — a grey "not
 * checked" badge on the row, listed in the Spec tab — instead of a red problem row of its own, and
 * is never counted or filtered as a violation.
 */
import { describe, expect, it } from 'vitest';
import { mountPoint } from './dom';
import { TimelineStore } from '../../ui/src/state/store';
import { EMPTY_FILTERS } from '../../ui/src/state/types';
import { Timeline } from '../../ui/src/components/Timeline';
import { DetailPane } from '../../ui/src/components/DetailPane';
import { EventBuilder } from './fixtures';

const dom = mountPoint();
const noop = () => undefined;

/** A tools/call whose result mcpscope could not check (a note), and one whose result broke its schema (a violation). */
function load() {
  const b = new EventBuilder();
  b.session('s1');
  const call = (id: number, name: string) => {
    const req = b.message({
      exchangeId: `x${id}`,
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      method: 'tools/call',
      name,
      id,
      jsonrpc: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } },
    });
    const res = b.message({
      exchangeId: `x${id}`,
      dir: 's2c',
      kind: 'response',
      carrier: 'post-json',
      id,
      pair: req.seq,
      jsonrpc: { jsonrpc: '2.0', id, result: { content: [], structuredContent: { s: 'x' } } },
    });
    return { req, res };
  };
  const wide = call(1, 'wide');
  const note = b.violation({
    message: wide.res.seq,
    code: 'lint-not-checked',
    rule: 'lint/schema-too-large',
    path: '/result/structuredContent',
    specRef: '2025-11-25 server/tools#output-schema',
    text: 'mcpscope did not check the structuredContent of tool "wide" against its outputSchema: it is over 4,000 JSON values, more than mcpscope compiles.',
  });
  const redos = call(2, 'redos');
  b.violation({ message: redos.res.seq, rule: 'tools/structured-content-schema', path: '/result/structuredContent/s' });
  const store = new TimelineStore();
  store.ingest(b.events);
  return { store, wide, redos, note };
}

const rowEl = (key: string) => dom.container.querySelector<HTMLElement>(`[data-testid="row"][data-key="${key}"]`)!;

describe('linter notes', () => {
  it('badge their call row in grey ("not checked"), make no row of their own, and are not violations for the filter', async () => {
    const { store, wide, redos } = load();
    const rows = store.visibleRows(EMPTY_FILTERS);
    expect(rows.map((r) => r.type)).toEqual(['call', 'call']);
    await dom.render(<Timeline rows={rows} onSelect={noop} onOpen={noop} live={false} violationsOf={(r) => store.violationsOfRow(r)} />);
    const wideRow = rowEl(`c${wide.req.seq}`);
    expect(wideRow.querySelector('[data-testid="row-not-checked"]')!.textContent).toBe('not checked');
    expect(wideRow.querySelector('[data-testid="row-not-checked"]')!.getAttribute('title')).toContain('lint/schema-too-large');
    expect(wideRow.querySelector('[data-testid="row-spec"]')).toBeNull();
    const redosRow = rowEl(`c${redos.req.seq}`);
    expect(redosRow.querySelector('[data-testid="row-spec"]')).not.toBeNull();
    expect(redosRow.querySelector('[data-testid="row-not-checked"]')).toBeNull();
    // "Violations only" keeps the call that broke a rule, not the one mcpscope could not check.
    expect(store.visibleRows({ ...EMPTY_FILTERS, violationsOnly: true }).map((r) => r.key)).toEqual([`c${redos.req.seq}`]);
  });

  it('are listed in the Spec tab as "not checked", without a count, a violation note or a marked path', async () => {
    const { store, wide } = load();
    const row = store.row(`c${wide.req.seq}`)!;
    await dom.render(<DetailPane store={store} row={row} version={store.version} onSelect={noop} onClose={noop} initialTab="spec" />);
    expect(dom.$('detail-tab-spec')!.textContent).toBe('Spec');
    expect(dom.$('spec-count')).toBeNull();
    expect(dom.$('spec-note')).toBeNull();
    const item = dom.$('spec-not-checked')!;
    expect(item.getAttribute('data-rule')).toBe('lint/schema-too-large');
    expect(item.querySelector('.spec-level')!.textContent).toBe('not checked');
    expect(item.querySelector('.spec-text')!.textContent).toContain('more than mcpscope compiles');
    expect(dom.$('spec-violation')).toBeNull();
    expect(dom.container.querySelectorAll('[data-testid="jv-hl"]').length).toBe(0);
  });
});
