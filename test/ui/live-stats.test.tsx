// @vitest-environment happy-dom
/**
 * ui/src/components/LiveStats.tsx: the header's notes from api/stats — the store's evictions, and
 * the OTLP export's counts when export is on (fetch is a stub; the browser test with a real
 * collector is test/e2e/ui-telemetry-browser.test.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { mountPoint, stubApi } from './dom';
import { LiveStats } from '../../ui/src/components/LiveStats';
import type { ApiStats } from '../../proxy/core/model/api-stats';

const dom = mountPoint();
const $ = dom.$;

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await act(async () => await new Promise((r) => setTimeout(r, 0)));
}

const STORE: ApiStats = { events: 80, bytes: 1000, evictedEvents: 0, evictedSessions: 0, maxEvents: 10, maxBytes: 2 ** 20 };
const TELEMETRY = {
  endpoint: 'http://127.0.0.1:4318/v1/traces',
  protocol: 'http/protobuf' as const,
  spansExported: 1234,
  spansDropped: 0,
  spansUnfinished: 2,
  metricExports: 3,
  metricExportsFailed: 0,
};

async function show(stats: unknown): Promise<void> {
  stubApi({ 'api/stats': stats });
  await dom.render(<LiveStats />);
  await settle();
}

describe('LiveStats', () => {
  it('says nothing while nothing was evicted and no export is on', async () => {
    await show(STORE);
    expect($('evicted')).toBeNull();
    expect($('telemetry')).toBeNull();
  });

  it('counts the evicted events', async () => {
    await show({ ...STORE, evictedEvents: 5, evictedSessions: 1 });
    expect($('evicted')!.textContent).toBe('5 evicted (1 sessions)');
    expect($('evicted')!.title).toContain('--max-events');
  });

  it('shows the spans a collector took, quietly while none are lost', async () => {
    await show({ ...STORE, telemetry: TELEMETRY });
    const note = $('telemetry')!;
    expect(note.textContent).toBe('OTLP 1,234 spans');
    expect(note.className).toBe('muted');
    expect(note.title).toContain('to http://127.0.0.1:4318/v1/traces (http/protobuf)');
    expect(note.title).toContain('2 ended unanswered');
    expect(note.title).toContain('metrics: 3 exports sent, 0 failed');
  });

  it('turns amber with the dropped count and the collector’s last error', async () => {
    await show({
      ...STORE,
      telemetry: { ...TELEMETRY, spansExported: 1, spansDropped: 40, lastError: 'connect ECONNREFUSED 127.0.0.1:4318' },
    });
    const note = $('telemetry')!;
    expect(note.textContent).toBe('OTLP 1 span · 40 dropped');
    expect(note.className).toBe('warn-text');
    expect(note.title).toContain('last error: connect ECONNREFUSED 127.0.0.1:4318');
  });

  it('ignores a malformed answer (an older or foreign server) instead of failing to render', async () => {
    // telemetry without spansUnfinished, which the tooltip reads
    await show({ ...STORE, telemetry: { ...TELEMETRY, spansUnfinished: undefined } });
    expect($('telemetry')).toBeNull();
    await dom.remount();
    // evictions without the caps the tooltip names
    await show({ events: 1, evictedEvents: 5, evictedSessions: 1 });
    expect($('evicted')).toBeNull();
  });

  it('polls every 5 s and stops when unmounted', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const urls = stubApi({ 'api/stats': STORE });
      await dom.render(<LiveStats />);
      await settle();
      expect(urls).toEqual(['GET api/stats']);
      await act(async () => vi.advanceTimersByTime(5000));
      await settle();
      expect(urls).toHaveLength(2);
      await dom.remount();
      await act(async () => vi.advanceTimersByTime(20_000));
      expect(urls).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
