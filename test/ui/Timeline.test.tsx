// @vitest-environment happy-dom
/**
 * Spec violations in the timeline (issue 19): a "spec" badge on the rows whose messages broke a
 * rule (amber, red under --lint strict, the rules in its tooltip), none on the others, and the
 * "Violations only" filter in the App (spec=1 in the URL).
 */
import { describe, expect, it } from 'vitest';
import { act } from 'react';
import { mountPoint } from './dom';
import { TimelineStore } from '../../ui/src/state/store';
import { EMPTY_FILTERS } from '../../ui/src/state/types';
import { Timeline } from '../../ui/src/components/Timeline';
import { App } from '../../ui/src/App';
import { EventBuilder, specScenario } from './fixtures';

const dom = mountPoint();
const noop = () => undefined;

function load(level: 'warn' | 'error' = 'warn') {
  const { events, seq } = specScenario(level);
  const store = new TimelineStore();
  store.ingest(events);
  return { store, seq };
}

const rowEl = (key: string) => {
  const el = dom.container.querySelector<HTMLElement>(`[data-testid="row"][data-key="${key}"]`);
  if (!el) throw new Error(`row ${key} is not rendered`);
  return el;
};
const badge = (key: string) => rowEl(key).querySelector<HTMLElement>('[data-testid="row-spec"]');
const shownKeys = () => [...dom.container.querySelectorAll('[data-testid="row"]')].map((r) => r.getAttribute('data-key'));

describe('Timeline: the spec badge', () => {
  it('marks the rows whose messages broke a rule, and no other', async () => {
    const { store, seq } = load();
    const rows = store.visibleRows(EMPTY_FILTERS);
    await dom.render(<Timeline rows={rows} onSelect={noop} onOpen={noop} live={false} violationsOf={(r) => store.violationsOfRow(r)} />);
    const marked = rows.filter((r) => badge(r.key) !== null).map((r) => r.key);
    // The bad calls and the call whose response broke a rule; the violation naming no message is
    // a problem row of its own (it shows as one, with no badge).
    expect(marked).toEqual([`c${seq.badAdd}`, `c${seq.echo}`, `c${seq.badAdd2}`]);
    expect(badge(`c${seq.goodAdd}`)).toBeNull();
    expect(rowEl(`p${seq.loose}`).getAttribute('data-kind')).toBe('problem');

    const b = badge(`c${seq.badAdd}`)!;
    expect(b.textContent).toBe('spec');
    expect(b.getAttribute('data-level')).toBe('warn');
    expect(b.getAttribute('data-count')).toBe('1');
    expect(b.classList.contains('spec-warn')).toBe(true);
    expect(b.getAttribute('title')).toBe("1 spec violation:\ntools/arguments-schema\nThe detail pane's Spec tab says what was expected.");
  });

  it('counts several violations of a row and is red when any is an error (--lint strict)', async () => {
    const { store, seq } = load();
    const more = new EventBuilder(store.lastSeq + 1, store.lastTs);
    more.violation({ message: seq.goodAdd, rule: 'tools/arguments-schema' });
    more.violation({ message: seq.goodAdd + 1, rule: 'schema/tools-call-result', level: 'error' });
    store.ingest(more.events);
    await dom.render(
      <Timeline
        rows={store.visibleRows(EMPTY_FILTERS)}
        onSelect={noop}
        onOpen={noop}
        live={false}
        violationsOf={(r) => store.violationsOfRow(r)}
      />,
    );
    const tag = badge(`c${seq.goodAdd}`)!;
    expect(tag.textContent).toBe('spec 2');
    expect(tag.getAttribute('data-count')).toBe('2');
    expect(tag.getAttribute('data-level')).toBe('error');
    expect(tag.classList.contains('spec-error')).toBe(true);
    expect(tag.getAttribute('title')).toContain('2 spec violations:\ntools/arguments-schema\nschema/tools-call-result');

    const strict = load('error');
    await dom.render(
      <Timeline
        rows={strict.store.visibleRows(EMPTY_FILTERS)}
        onSelect={noop}
        onOpen={noop}
        live={false}
        violationsOf={(r) => strict.store.violationsOfRow(r)}
      />,
    );
    expect(badge(`c${strict.seq.badAdd}`)!.getAttribute('data-level')).toBe('error');
  });

  it('shows no badge without violationsOf', async () => {
    const { store, seq } = load();
    await dom.render(<Timeline rows={store.visibleRows(EMPTY_FILTERS)} onSelect={noop} onOpen={noop} live={false} />);
    expect(badge(`c${seq.badAdd}`)).toBeNull();
  });
});

describe('App: the spec badge and the Violations only filter', () => {
  it('badges the rows, filters to the violations with spec=1 in the URL, and reads spec=1 back', async () => {
    const { store, seq } = load();
    await dom.render(<App store={store} />);
    expect(badge(`c${seq.badAdd}`)).not.toBeNull();
    expect(badge(`c${seq.goodAdd}`)).toBeNull();
    const all = shownKeys();
    expect(all).toContain(`c${seq.goodAdd}`);

    const toggle = dom.$<HTMLInputElement>('filter-violations')!;
    expect(toggle.checked).toBe(false);
    await act(async () => toggle.click());
    expect(new URLSearchParams(location.search).get('spec')).toBe('1');
    expect(shownKeys()).toEqual([`c${seq.badAdd}`, `c${seq.echo}`, `p${seq.loose}`, `c${seq.badAdd2}`]);
    expect(dom.$('row-count')!.textContent).toBe(`4 of ${all.length}`);

    await act(async () => dom.$<HTMLInputElement>('filter-violations')!.click());
    expect(new URLSearchParams(location.search).get('spec')).toBeNull();
    expect(shownKeys()).toEqual(all);

    // Opened with spec=1: the filter is on.
    await dom.remount();
    history.replaceState(null, '', '/?spec=1');
    await dom.render(<App store={store} />);
    expect(dom.$<HTMLInputElement>('filter-violations')!.checked).toBe(true);
    expect(shownKeys()).toEqual([`c${seq.badAdd}`, `c${seq.echo}`, `p${seq.loose}`, `c${seq.badAdd2}`]);
  });

  it('badges a row whose violation arrives after it is shown', async () => {
    const { store, seq } = load();
    await dom.render(<App store={store} />);
    expect(badge(`c${seq.goodAdd}`)).toBeNull();
    const more = new EventBuilder(store.lastSeq + 1, store.lastTs);
    more.violation({ message: seq.goodAdd, rule: 'late/rule' });
    await act(async () => store.ingest(more.events));
    expect(badge(`c${seq.goodAdd}`)!.getAttribute('title')).toContain('late/rule');
  });
});
