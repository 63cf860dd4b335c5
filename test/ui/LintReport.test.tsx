// @vitest-environment happy-dom
/**
 * A session's spec violations (issue 19): the count in the session list ("3 spec"), which opens
 * the session's lint report — each rule broken, how often, its section of the specification, and
 * its first occurrence, a click on which selects that row in the timeline.
 */
import { describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { mountPoint } from './dom';
import { TimelineStore } from '../../ui/src/state/store';
import { LintReport } from '../../ui/src/components/LintReport';
import { SessionList } from '../../ui/src/components/SessionList';
import { App } from '../../ui/src/App';
import { SPEC_URL_TOOLS, specScenario } from './fixtures';

const dom = mountPoint();

function load(level: 'warn' | 'error' = 'warn') {
  const { events, seq } = specScenario(level);
  const store = new TimelineStore();
  store.ingest(events);
  return { store, seq };
}

const all = (id: string, root: ParentNode = dom.container) => [...root.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
const cell = (row: HTMLElement, id: string) => row.querySelector<HTMLElement>(`[data-testid="${id}"]`);

describe('LintReport', () => {
  it('lists the rules the session broke, most often first, with their section and first occurrence', async () => {
    const { store, seq } = load();
    const onSelect = vi.fn();
    await dom.render(<LintReport store={store} version={store.version} sessionId="s1" onSelect={onSelect} />);
    expect(dom.$('lint-report')!.getAttribute('data-session-id')).toBe('s1');
    expect(dom.$('lint-total')!.textContent).toBe('4 violations of 3 rules');
    expect(dom.container.textContent).toContain('MCP 2025-11-25');
    const rules = all('lint-rule');
    expect(rules.map((r) => [r.getAttribute('data-rule'), r.getAttribute('data-level'), cell(r, 'lint-count')!.textContent])).toEqual([
      ['tools/arguments-schema', 'warn', '2'],
      ['schema/tools-call-result', 'warn', '1'],
      ['transport/protocol-version-header', 'warn', '1'],
    ]);
    const ref = cell(rules[0], 'lint-ref') as HTMLAnchorElement;
    expect(ref.tagName).toBe('A');
    expect(ref.getAttribute('href')).toBe(SPEC_URL_TOOLS);
    expect(ref.getAttribute('rel')).toBe('noreferrer');

    // The first occurrence: the message's number, a click selects its row (a call's, for a
    // response's violation too); a violation naming no message selects its own row.
    const first = rules.map((r) => cell(r, 'lint-first')!);
    expect(first.map((b) => b.textContent)).toEqual([`#${seq.badAdd}`, `#${seq.echoResult}`, `#${seq.loose}`]);
    expect(rules[0].querySelector('.lint-first-text')!.textContent).toBe(
      "The arguments do not match the tool's inputSchema: /a is not a number.",
    );
    for (const b of first) await act(async () => b.click());
    expect(onSelect.mock.calls.map((c) => c[0])).toEqual([`c${seq.badAdd}`, `c${seq.echo}`, `p${seq.loose}`]);
  });

  it('says so for a session that broke nothing, and counts only its own session', async () => {
    const { store } = load();
    await dom.render(<LintReport store={store} version={store.version} sessionId="s2" onSelect={vi.fn()} />);
    expect(dom.$('lint-total')!.textContent).toBe('no violations');
    expect(dom.$('lint-empty')!.textContent).toBe('No spec violations in this session');
    expect(all('lint-rule')).toEqual([]);
  });

  it('marks a rule broken in strict mode as an error', async () => {
    const { store } = load('error');
    await dom.render(<LintReport store={store} version={store.version} sessionId="s1" onSelect={vi.fn()} />);
    expect(all('lint-rule').map((r) => r.getAttribute('data-level'))).toEqual(['error', 'error', 'error']);
    expect(all('lint-rule')[0].querySelector('.lint-dot')!.classList.contains('spec-error')).toBe(true);
  });
});

describe('SessionList: the spec count', () => {
  it("shows a session's violations as a button that opens its report (without selecting the session)", async () => {
    const { store } = load();
    const onLintReport = vi.fn();
    const onSelect = vi.fn();
    const render = (selected: string) =>
      dom.render(
        <SessionList
          sessions={store.sessionList()}
          selected={selected}
          onSelect={onSelect}
          totals={{ messages: 0, errors: 0 }}
          onLintReport={onLintReport}
        />,
      );
    await render('');
    const counts = all('session-spec');
    expect(counts.map((c) => [c.tagName, c.textContent])).toEqual([['BUTTON', '4 spec']]);
    expect(counts[0].getAttribute('title')).toContain('4 spec violations');
    expect(counts[0].closest('[data-session-id]')!.getAttribute('data-session-id')).toBe('s1');
    // A session without violations shows nothing unless it is the selected one.
    expect(all('session-lint')).toEqual([]);
    await act(async () => counts[0].click());
    expect(onLintReport).toHaveBeenCalledWith('s1');
    expect(onSelect).not.toHaveBeenCalled();

    await render('s2');
    const offer = all('session-lint');
    expect(offer.map((c) => c.textContent)).toEqual(['spec report']);
    expect(offer[0].closest('[data-session-id]')!.getAttribute('data-session-id')).toBe('s2');
  });

  it('is red (level error) for a session whose violations are errors (--lint strict), amber otherwise', async () => {
    for (const [level, expected] of [
      ['warn', 'warn'],
      ['error', 'error'],
    ] as const) {
      const { store } = load(level);
      expect(store.specErrorSessions.has('s1')).toBe(level === 'error');
      await dom.render(
        <SessionList
          sessions={store.sessionList()}
          selected=""
          onSelect={vi.fn()}
          totals={{ messages: 0, errors: 0 }}
          onLintReport={vi.fn()}
          specErrors={store.specErrorSessions}
        />,
      );
      const count = all('session-spec')[0];
      expect(count.getAttribute('data-level')).toBe(expected);
      expect(count.classList.contains('error')).toBe(level === 'error');
      expect(count.getAttribute('title')).toContain(level === 'error' ? '(errors: --lint strict)' : '4 spec violations:');
    }
  });

  it('is a plain count without a report to open, and nothing for plain HTTP', async () => {
    const { store } = load();
    const sessions = [...store.sessionList(), { ...store.sessions.get('s1')!, id: 'web', transport: 'http' as const }];
    await dom.render(<SessionList sessions={sessions} selected="web" onSelect={vi.fn()} totals={{ messages: 0, errors: 0 }} />);
    expect(all('session-spec').map((c) => [c.tagName, c.textContent])).toEqual([['SPAN', '4 spec']]);
    expect(all('session-lint')).toEqual([]);
  });
});

describe('App: from the session list to the first occurrence', () => {
  it('opens the lint report in a drawer and selects the first occurrence in the timeline', async () => {
    const { store, seq } = load();
    await dom.render(<App store={store} />);
    await act(async () => dom.$('session-spec')!.click());
    const drawer = dom.$('lint-drawer')!;
    expect(drawer.textContent).toContain('Spec violations — s1');
    const rule = drawer.querySelector<HTMLElement>('[data-testid="lint-rule"][data-rule="tools/arguments-schema"]')!;
    expect(cell(rule, 'lint-count')!.textContent).toBe('2');
    await act(async () => cell(rule, 'lint-first')!.click());
    expect(dom.$('lint-drawer')).toBeNull();
    expect(dom.$('detail')!.getAttribute('data-key')).toBe(`c${seq.badAdd}`);
    expect(dom.container.querySelector(`[data-testid="row"][data-key="c${seq.badAdd}"]`)!.getAttribute('aria-selected')).toBe('true');
    expect(dom.$('spec-note')!.textContent).toContain('tools/arguments-schema');
  });
});
