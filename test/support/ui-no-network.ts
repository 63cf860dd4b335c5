/**
 * Test setup (vitest.config.ts `setupFiles`): UI tests under happy-dom never reach the network.
 * happy-dom resolves the UI's relative `api/…` requests against its default origin,
 * http://localhost:3000, so a component that fetches on its own (the header's store stats, the
 * detail pane's full message…) used to connect to whatever a developer runs on port 3000, and
 * printed an ECONNREFUSED stack trace when nothing did. Here `fetch` answers as an unreachable
 * server would — it rejects, without a socket — unless a test stubs it (vi.stubGlobal('fetch', …);
 * vi.unstubAllGlobals() comes back to this one). Node-environment tests keep the real fetch.
 */
const happyDom = typeof window !== 'undefined' && typeof (globalThis as { happyDOM?: unknown }).happyDOM !== 'undefined';

/** What a UI test's unstubbed fetch rejects with. */
export const NO_NETWORK_MESSAGE = 'UI tests do not use the network';

if (happyDom) {
  const offlineFetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET');
    return Promise.reject(new TypeError(`${NO_NETWORK_MESSAGE}: ${method} ${url} was not sent (stub fetch in the test to answer it)`));
  };
  // Plain assignment, not vi.stubGlobal: a test's vi.unstubAllGlobals() must come back to this.
  globalThis.fetch = offlineFetch as typeof fetch;
  (window as unknown as { fetch: typeof fetch }).fetch = offlineFetch as typeof fetch;
}
