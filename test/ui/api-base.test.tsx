// @vitest-environment happy-dom
/**
 * One API base for the whole UI (ui/src/state/api.ts): every request and download goes to
 * `api/…` relative to the page — the faults panel and Clear used `/api/…` while the rest used
 * `api/…` (test/unit/ui-api-base.test.ts checks ui/src's source for others). And UI tests never reach the network (test/support/ui-no-network.ts): happy-dom's
 * default origin is http://localhost:3000, whatever a developer runs there.
 */
import { describe, expect, it, vi } from 'vitest';
import { mountPoint } from './dom';
import { act, type ReactElement } from 'react';
import { API_BASE, apiErrorText, apiFetch, apiPath, feedUrlFor } from '../../ui/src/state/api';
import { FaultsPanel } from '../../ui/src/components/FaultsPanel';
import { exportHref } from '../../ui/src/components/ExportMenu';
import { importCaptureText } from '../../ui/src/state/import-client';
import { App } from '../../ui/src/App';
import { TimelineStore } from '../../ui/src/state/store';

/** What test/support/ui-no-network.ts (the setup file vitest.config.ts names) rejects with. */
const NO_NETWORK_MESSAGE = 'UI tests do not use the network';

const dom = mountPoint();

const $ = <T extends HTMLElement = HTMLElement>(id: string) => dom.container.querySelector<T>(`[data-testid="${id}"]`);

function recordFetch(): { method: string; url: string; credentials?: RequestCredentials }[] {
  const calls: { method: string; url: string; credentials?: RequestCredentials }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      calls.push({ method: init.method ?? 'GET', url, credentials: init.credentials });
      return new Response(url.includes('faults') && (init.method ?? 'GET') === 'GET' ? '[]' : '{"ok":true}', { status: 200 });
    }),
  );
  return calls;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await act(async () => await new Promise((r) => setTimeout(r, 0)));
}
async function render(el: ReactElement): Promise<void> {
  await dom.render(el);
  await settle();
}

describe('the one API base', () => {
  it('is api/ relative to the page, whatever way a path is written', () => {
    expect(API_BASE).toBe('api/');
    expect(apiPath('faults')).toBe('api/faults');
    expect(apiPath('/api/faults')).toBe('api/faults');
    expect(apiPath('api/sessions/s1/export?format=har')).toBe('api/sessions/s1/export?format=har');
    expect(feedUrlFor('http://127.0.0.1:6480/?token=abc#x')).toBe('ws://127.0.0.1:6480/ws');
    expect(feedUrlFor('https://example.test/mcpscope/')).toBe('wss://example.test/mcpscope/ws');
  });

  it('is what the faults panel, Clear, import, export and apiFetch use, with the page cookie', async () => {
    const calls = recordFetch();
    await render(<FaultsPanel />);
    await act(async () => $('faults')!.click());
    await settle();
    await act(async () => $<HTMLFormElement>('fault-form')!.requestSubmit());
    await settle();
    await render(<App store={new TimelineStore()} />);
    await act(async () => $('clear')!.click());
    await settle();
    await importCaptureText('{}');
    await apiFetch('/api/sessions');
    const urls = calls.map((c) => `${c.method} ${c.url}`);
    expect(urls).toEqual(
      expect.arrayContaining([
        'GET api/faults',
        'POST api/faults',
        'POST api/clear',
        'POST api/import',
        'GET api/sessions',
        'GET api/stats',
      ]),
    );
    expect(calls.filter((c) => !c.url.startsWith(API_BASE))).toEqual([]);
    expect(calls.every((c) => c.credentials === 'same-origin')).toBe(true);
    expect(exportHref('s1', 'har')).toBe('api/sessions/s1/export?format=har');
    expect(exportHref('', 'ndjson')).toBe('api/export?format=ndjson');
  });
});

describe('apiErrorText', () => {
  it("says an error answer's own words, else its status", async () => {
    expect(await apiErrorText(new Response(JSON.stringify({ error: 'No session s9' }), { status: 404 }))).toBe('No session s9');
    expect(await apiErrorText(new Response('<html>oops</html>', { status: 502 }))).toBe('mcpscope answered HTTP 502');
    expect(await apiErrorText(new Response(JSON.stringify({ error: '' }), { status: 500 }))).toBe('mcpscope answered HTTP 500');
  });
});

describe('UI tests and the network', () => {
  it('an unstubbed fetch is refused without a connection (happy-dom would ask localhost:3000)', async () => {
    expect(location.origin).toBe('http://localhost:3000');
    await expect(fetch('api/stats')).rejects.toThrow(`${NO_NETWORK_MESSAGE}: GET api/stats was not sent`);
    await expect(fetch('http://127.0.0.1:1/x', { method: 'POST' })).rejects.toThrow(`${NO_NETWORK_MESSAGE}: POST http://127.0.0.1:1/x`);
  });

  it('comes back after a test stubbed fetch and unstubbed it', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('stubbed')),
    );
    expect(await (await fetch('api/x')).text()).toBe('stubbed');
    vi.unstubAllGlobals();
    await expect(fetch('api/x')).rejects.toThrow(NO_NETWORK_MESSAGE);
  });
});
