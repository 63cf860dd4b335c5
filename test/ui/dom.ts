/**
 * The React mount point the happy-dom UI tests share: a fresh container and root before each
 * test, unmounted after it (the URL, global stubs and fake timers reset too), `render` inside
 * `act`, `$` by data-testid, and a fetch stub for the UI's `api/…` calls.
 */
import { afterEach, beforeEach, vi } from 'vitest';
import { act, type ReactElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export interface Dom {
  readonly container: HTMLDivElement;
  render(el: ReactElement): Promise<void>;
  /** Unmounts what is rendered and starts a fresh root in the same container. */
  remount(): Promise<void>;
  $<T extends HTMLElement = HTMLElement>(testId: string): T | null;
}

/** Registers the before/after hooks of the calling test file and returns its mount point. */
export function mountPoint(): Dom {
  let container!: HTMLDivElement;
  let root!: Root;
  beforeEach(() => {
    container = document.createElement('div');
    document.body.appendChild(container);
    root = createRoot(container);
  });
  afterEach(async () => {
    await act(async () => root.unmount());
    container.remove();
    history.replaceState(null, '', '/');
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });
  return {
    get container() {
      return container;
    },
    async render(el) {
      await act(async () => root.render(el));
    },
    async remount() {
      await act(async () => root.unmount());
      root = createRoot(container);
    },
    $: <T extends HTMLElement = HTMLElement>(testId: string) => container.querySelector<T>(`[data-testid="${testId}"]`),
  };
}

/** A fetch stub answering `answers[path]` (JSON, or a status number; anything else 404), recording every URL asked. */
export function stubApi(answers: Record<string, unknown> = {}): string[] {
  const urls: string[] = [];
  const stub = vi.fn(async (input: string, init: RequestInit = {}) => {
    urls.push(`${init.method ?? 'GET'} ${input}`);
    const answer = answers[input];
    if (answer === undefined || typeof answer === 'number')
      return new Response('{"error":"not found"}', { status: typeof answer === 'number' ? answer : 404 });
    return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } });
  });
  vi.stubGlobal('fetch', stub);
  return urls;
}
