// @vitest-environment happy-dom
/**
 * Spec violations in the timeline (issue 19): a "spec" badge on the rows whose messages broke a
 * rule (amber, red under --lint strict, the rules in its tooltip), none on the others, and the
 * "Violations only" filter in the App (spec=1 in the URL). The "All sessions" view's session badges
 * (issue 28): which session each row is, and a click filtering to it.
 */
import { describe, expect, it } from 'vitest';
import { act } from 'react';
import { mountPoint } from './dom';
import { TimelineStore } from '../../ui/src/state/store';
import { EMPTY_FILTERS } from '../../ui/src/state/types';
import { Timeline } from '../../ui/src/components/Timeline';
import { App } from '../../ui/src/App';
import { SessionLabels } from '../../ui/src/state/session-label';
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

/** Two clients' sessions whose calls interleave (issue 28): s1 alpha-client, s2 beta-client, then s3 with no initialize. */
function twoClients() {
  const b = new EventBuilder();
  const calls: Record<string, number[]> = { s1: [], s2: [] };
  b.session('s1', { clientInfo: { name: 'alpha-client' } });
  b.session('s2', { clientInfo: { name: 'beta-client' } });
  for (let i = 0; i < 3; i++) {
    for (const sid of ['s1', 's2']) {
      const x = `x${sid}${i}`;
      b.exchange(x, sid, { status: 200, responseType: 'application/json' });
      const req = b.message({
        sessionId: sid,
        exchangeId: x,
        dir: 'c2s',
        kind: 'request',
        carrier: 'post-body',
        id: i,
        method: 'tools/call',
        name: 'echo',
        jsonrpc: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo' } },
      });
      b.message({
        sessionId: sid,
        exchangeId: x,
        dir: 's2c',
        kind: 'response',
        carrier: 'post-json',
        id: i,
        pair: req.seq,
        jsonrpc: { jsonrpc: '2.0', id: i, result: { content: [] } },
      });
      calls[sid].push(req.seq);
    }
  }
  const store = new TimelineStore();
  store.ingest(b.events);
  return { store, calls };
}

const sessionBadge = (key: string) => rowEl(key).querySelector<HTMLElement>('[data-testid="row-session"]');

describe('Timeline: the session column (All sessions)', () => {
  it("badges every row with its session's id, client name and colour; a click asks for that session", async () => {
    const { store, calls } = twoClients();
    const asked: string[] = [];
    await dom.render(
      <Timeline
        rows={store.visibleRows(EMPTY_FILTERS)}
        onSelect={noop}
        onOpen={noop}
        live={false}
        showSession
        sessionLabels={new SessionLabels().of(store.sessionList())}
        onSessionFilter={(id) => asked.push(id)}
      />,
    );
    const a = sessionBadge(`c${calls.s1[0]}`)!;
    const b = sessionBadge(`c${calls.s2[0]}`)!;
    expect([a.getAttribute('data-session'), a.textContent]).toEqual(['s1', 's1alpha-client']);
    expect([b.getAttribute('data-session'), b.textContent]).toEqual(['s2', 's2beta-client']);
    expect(a.classList.contains('sess-c0') && b.classList.contains('sess-c1')).toBe(true);
    expect(sessionBadge(`c${calls.s1[2]}`)!.className).toBe(a.className);
    await act(async () => b.click());
    expect(asked).toEqual(['s2']);
  });

  it('has no session column in a single session’s view', async () => {
    const { store, calls } = twoClients();
    await dom.render(<Timeline rows={store.visibleRows({ ...EMPTY_FILTERS, session: 's1' })} onSelect={noop} onOpen={noop} live={false} />);
    expect(sessionBadge(`c${calls.s1[0]}`)).toBeNull();
    expect(dom.container.querySelector('.c-sess')).toBeNull();
  });
});

describe('App: filtering the All sessions view by a session badge', () => {
  it('shows only that session’s rows (session: in the search box and the URL), and all again on a second click', async () => {
    const { store, calls } = twoClients();
    await dom.render(<App store={store} />);
    const all = shownKeys();
    expect(all).toHaveLength(6);
    await act(async () => sessionBadge(`c${calls.s2[1]}`)!.click());
    expect(shownKeys()).toEqual(calls.s2.map((s) => `c${s}`));
    expect(dom.$<HTMLInputElement>('search')!.value).toBe('session:s2');
    expect(new URLSearchParams(location.search).get('q')).toBe('session:s2');
    // Still the All sessions view: the column stays, and the sidebar's selection is All sessions.
    expect(sessionBadge(`c${calls.s2[0]}`)).not.toBeNull();
    expect(dom.$('row-count')!.textContent).toBe('3 of 6');
    await act(async () => sessionBadge(`c${calls.s2[0]}`)!.click());
    expect(shownKeys()).toEqual(all);
    expect(dom.$<HTMLInputElement>('search')!.value).toBe('');
  });
});
