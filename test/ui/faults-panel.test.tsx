// @vitest-environment happy-dom
/**
 * The Faults panel: the header button opens it, it lists the rules from GET api/faults, adds one
 * with POST (the JSON the API expects) and removes one with DELETE. fetch is a stub here; the API
 * itself is tested in test/e2e/faults.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { FaultsPanel } from '../../ui/src/components/FaultsPanel';
import type { FaultRule } from '../../proxy/core/rules/fault-types';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | undefined;
let host: HTMLElement | undefined;
afterEach(() => {
  act(() => root?.unmount());
  host?.remove();
  vi.unstubAllGlobals();
});

function fakeApi() {
  let rules: FaultRule[] = [];
  const calls: { method: string; url: string; body?: unknown }[] = [];
  const fetchStub = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    const body = init.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, url, body });
    if (method === 'POST') {
      const rule = { id: `fault-${rules.length + 1}`, ...body } as FaultRule;
      rules.push(rule);
      return new Response(JSON.stringify(rule), { status: 201 });
    }
    if (method === 'DELETE') {
      const id = decodeURIComponent(url.split('/').pop()!);
      rules = rules.filter((r) => r.id !== id);
      return new Response('{"ok":true}');
    }
    return new Response(JSON.stringify(rules));
  });
  vi.stubGlobal('fetch', fetchStub);
  return { calls, rules: () => rules };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await act(async () => await new Promise((r) => setTimeout(r, 0)));
}

function q<T extends Element = HTMLElement>(id: string): T | null {
  return host!.querySelector<T>(`[data-testid="${id}"]`);
}

describe('FaultsPanel', () => {
  it('opens from the Faults button, adds a 503-on-tools/call rule and removes it', async () => {
    const api = fakeApi();
    host = document.createElement('div');
    document.body.append(host);
    root = createRoot(host);
    act(() => root!.render(<FaultsPanel />));
    expect(q('faults')!.textContent).toBe('Faults');
    expect(q('faults-panel')).toBeNull();

    act(() => q('faults')!.click());
    await settle();
    expect(q('faults-panel')).not.toBeNull();
    expect(api.calls[0]).toEqual({ method: 'GET', url: 'api/faults', body: undefined });
    expect(host.querySelectorAll('[data-testid="fault-rule"]')).toHaveLength(0);

    // Defaults: method tools/call, answer 503, once.
    act(() => q<HTMLFormElement>('fault-form')!.requestSubmit());
    await settle();
    const post = api.calls.find((c) => c.method === 'POST');
    expect(post?.body).toEqual({ match: { method: 'tools/call' }, action: { type: 'status', status: 503 }, once: true });
    const rows = host.querySelectorAll('[data-testid="fault-rule"]');
    expect(rows).toHaveLength(1);
    expect(rows[0].textContent).toContain('method tools/call → answer 503 (once)');
    expect(q('faults')!.textContent).toBe('Faults (1)');

    act(() => q('fault-remove')!.click());
    await settle();
    expect(api.calls.some((c) => c.method === 'DELETE' && c.url === 'api/faults/fault-1')).toBe(true);
    expect(host.querySelectorAll('[data-testid="fault-rule"]')).toHaveLength(0);
    expect(api.rules()).toEqual([]);
  });
});
