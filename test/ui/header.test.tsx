// @vitest-environment happy-dom
/**
 * The header of a live mcpscope and of a saved capture (`mcpscope open <file>`): a capture shows
 * its file name and "capture", none of the live controls (pause, clear, faults, the live badge),
 * and never polls the live-only endpoints (api/stats, api/faults). The app asks the server which
 * one it is (api/info). fetch is a stub here; the browser test is test/e2e/ui-open-browser.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { act, type ReactElement } from 'react';
import { mountPoint, stubApi } from './dom';
import { Header, type HeaderProps } from '../../ui/src/components/Header';
import { FaultsPanel } from '../../ui/src/components/FaultsPanel';
import { App } from '../../ui/src/App';
import { TimelineStore } from '../../ui/src/state/store';

const dom = mountPoint();
const $ = dom.$;

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await act(async () => await new Promise((r) => setTimeout(r, 0)));
}

async function render(el: ReactElement): Promise<void> {
  await dom.render(el);
  await settle();
}

const STATS = { rows: 12, messages: 30, events: 80, dropped: 0 };
function header(props: Partial<HeaderProps> = {}): ReactElement {
  return (
    <Header
      status="live"
      paused={false}
      stats={STATS}
      sessionsCount={2}
      exportSession=""
      onTogglePause={() => undefined}
      onClear={() => undefined}
      onOpenFiles={() => undefined}
      {...props}
    />
  );
}

describe('Header', () => {
  it('shows a saved capture as what it is: its file name and "capture", no live controls, no polling', async () => {
    const urls = stubApi({ 'api/stats': { events: 80, evictedEvents: 5, evictedSessions: 1, maxEvents: 10, maxBytes: 1 } });
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    await render(header({ source: { mode: 'capture', file: 'weather-bug.ndjson', kind: 'NDJSON event log' } }));
    const status = $('status')!;
    expect(status.getAttribute('data-status')).toBe('capture');
    expect($('capture-file')!.textContent).toBe('weather-bug.ndjson');
    expect(status.textContent).toContain('capture');
    expect(status.textContent).not.toContain('live');
    expect(status.title).toContain('NDJSON event log');
    expect($('pause')).toBeNull();
    expect($('clear')).toBeNull();
    expect($('faults')).toBeNull();
    // What a capture can do stays: open another file, export.
    expect($('import')).not.toBeNull();
    expect($('export')).not.toBeNull();
    // Counts are still shown, but the store's eviction stats (a live store's) are never asked for.
    expect(dom.container.textContent).toContain('30 messages');
    await act(async () => vi.advanceTimersByTime(11_000));
    await settle();
    expect(urls).toEqual([]);
    expect($('evicted')).toBeNull();
  });

  it('says so when a capture page has lost mcpscope, without calling it live', async () => {
    stubApi();
    await render(header({ source: { mode: 'capture', file: 'a.json' }, status: 'offline', statusDetail: 'closed' }));
    expect($('capture-label')!.textContent).toBe('capture · offline (closed)');
  });

  it('keeps the live controls and polls api/stats for a live mcpscope', async () => {
    const urls = stubApi({ 'api/stats': { events: 80, evictedEvents: 5, evictedSessions: 1, maxEvents: 10, maxBytes: 1 } });
    await render(header({ source: { mode: 'live' } }));
    expect($('status')!.getAttribute('data-status')).toBe('live');
    expect($('pause')).not.toBeNull();
    expect($('clear')).not.toBeNull();
    expect($('faults')).not.toBeNull();
    expect(urls).toEqual(['GET api/stats']);
    expect($('evicted')!.textContent).toContain('5 evicted');
  });

  it('claims nothing while the server has not said what it serves', async () => {
    const urls = stubApi();
    await render(header({ source: { mode: 'unknown' } }));
    expect($('status')!.getAttribute('data-status')).toBe('connecting');
    expect($('pause')).toBeNull();
    expect($('clear')).toBeNull();
    expect($('faults')).toBeNull();
    expect(urls).toEqual([]);
  });
});

describe('App: live or capture, as the server says (api/info)', () => {
  it('asks api/info, then shows the capture and touches no live-only endpoint', async () => {
    const urls = stubApi({ 'api/info': { mode: 'capture', file: 'session.fixture.json', kind: 'fixture', version: '0.1.0' } });
    await render(<App store={new TimelineStore()} detectSource />);
    expect($('capture-file')!.textContent).toBe('session.fixture.json');
    expect($('pause')).toBeNull();
    expect($('clear')).toBeNull();
    expect($('faults')).toBeNull();
    expect(urls).toEqual(['GET api/info']);
  });

  it('shows the live controls when the server is live, or too old to have api/info', async () => {
    const live = stubApi({
      'api/info': { mode: 'live', version: '0.1.0' },
      'api/stats': { events: 0, evictedEvents: 0, evictedSessions: 0, maxEvents: 10, maxBytes: 1 },
    });
    await render(<App store={new TimelineStore()} detectSource />);
    expect($('pause')).not.toBeNull();
    expect($('faults')).not.toBeNull();
    expect(live).toEqual(['GET api/info', 'GET api/stats']);
    await dom.remount();

    stubApi({ 'api/info': 404 });
    await render(<App store={new TimelineStore()} detectSource />);
    expect($('status')!.getAttribute('data-status')).not.toBe('capture');
    expect($('pause')).not.toBeNull();
  });
});

describe('FaultsPanel where the API has no fault rules', () => {
  it('says fault injection is not available and offers no form (HTTP 404)', async () => {
    stubApi({ 'api/faults': 404 });
    await render(<FaultsPanel />);
    await act(async () => $('faults')!.click());
    await settle();
    expect($('faults-error')!.textContent).toContain('not available here');
    expect($('fault-form')).toBeNull();
    expect($('faults-panel')!.textContent).not.toContain('No rules: traffic passes untouched');
  });
});

describe('Header counts', () => {
  it('says "1 session", "1 row", "1 message", "1 event" in the singular', async () => {
    stubApi({});
    await render(
      header({ source: { mode: 'capture', file: 'a.json' }, sessionsCount: 1, stats: { rows: 1, messages: 1, events: 1, dropped: 0 } }),
    );
    const text = dom.container.querySelector('.header-stats')!.textContent!;
    expect(text).toContain('1 session');
    expect(text).not.toMatch(/1 (sessions|rows|messages|events)/);
    await render(header({ source: { mode: 'capture', file: 'a.json' }, sessionsCount: 2 }));
    expect(dom.container.querySelector('.header-stats')!.textContent).toContain('2 sessions');
  });
});
