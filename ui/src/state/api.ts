/**
 * The one way the UI reaches mcpscope's API: every path is relative to the page (`api/…`), so
 * the UI works wherever it is served from (at `/`, as mcpscope serves it, or under a prefix behind
 * another proxy), and the page's HttpOnly cookie carries the token (`credentials: 'same-origin'`).
 * Downloads (`<a href>`) use `apiPath`, requests `apiFetch` (or `apiRequest` for an absolute API URL,
 * as the feed's gap fill builds one); the feed derives its `ws` URL from the same base (`feedUrlFor`).
 * No other module calls `fetch` itself.
 */

/** Where the API lives, relative to the page. */
import type { MessageEvent } from '../../../proxy/core/model/events.js';

export const API_BASE = 'api/';

/** `apiPath('faults')` → `api/faults` (a leading `/`, `api/` or `/api/` is taken as the same path). */
export function apiPath(path: string): string {
  return API_BASE + path.replace(/^\/+/, '').replace(/^api\//, '');
}

/** A session's export in a format (`''`: every session's), as an API path: downloads and "Copy as annotated log" use it. */
export function exportPath(sessionId: string, format: string): string {
  return sessionId === '' ? `export?format=${format}` : `sessions/${encodeURIComponent(sessionId)}/export?format=${format}`;
}

/** fetch() for an API URL, with the page's cookie. `fetch` is looked up at call time (tests stub it), unless `fetchImpl` is given. */
export function apiRequest(url: string, init: RequestInit = {}, fetchImpl?: typeof fetch): Promise<Response> {
  return (fetchImpl ?? fetch)(url, { credentials: 'same-origin', ...init });
}

/** fetch() for an API path (`apiPath`), with the page's cookie. */
export function apiFetch(path: string, init: RequestInit = {}, fetchImpl?: typeof fetch): Promise<Response> {
  return apiRequest(apiPath(path), init, fetchImpl);
}

/** The plain-words error of an API error answer: its `{ error }`, else "mcpscope answered HTTP <status>". */
export async function apiErrorText(res: Response): Promise<string> {
  const body = (await res.json().catch(() => ({}))) as { error?: unknown };
  return typeof body.error === 'string' && body.error !== '' ? body.error : `mcpscope answered HTTP ${res.status}`;
}

/** The feed's WebSocket URL for a page at `href`: `ws(s)://` + the page's directory + `ws`. */
export function feedUrlFor(href: string): string {
  const url = new URL('ws', href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = '';
  url.hash = '';
  return url.toString();
}

/** What `GET api/info` answers: a live mcpscope, or a saved capture served by `mcpscope open`. */
export type ServerInfo =
  | { mode: 'live' }
  | {
      mode: 'capture';
      /** The capture's file name (no directories). */
      file: string;
      /** What the file was read as: fixture, NDJSON event log, HAR file… */
      kind?: string;
    };

/**
 * Asks the server what it serves. An mcpscope that predates `api/info` (404), or an answer that
 * cannot be read, counts as live: that is what such a server is.
 */
export async function loadServerInfo(): Promise<ServerInfo> {
  try {
    const res = await apiFetch('info');
    if (!res.ok) return { mode: 'live' };
    const body = (await res.json()) as Partial<{ mode: string; file: unknown; kind: unknown }>;
    if (body.mode === 'capture') {
      return {
        mode: 'capture',
        file: typeof body.file === 'string' ? body.file : 'saved capture',
        kind: typeof body.kind === 'string' ? body.kind : undefined,
      };
    }
    return { mode: 'live' };
  } catch {
    return { mode: 'live' };
  }
}

/**
 * One message in full (`GET api/messages/:seq`): the feed sends a message over 256 KiB as a stub
 * (`elided`), and what shows it — the detail pane, the compare view — loads it here. Rejects with
 * the status in words when the server does not have it (evicted, cleared).
 */
export async function loadFullMessage(seq: number): Promise<MessageEvent> {
  const res = await apiFetch(`messages/${seq}`);
  if (!res.ok) throw new Error(`mcpscope answered ${res.status}`);
  const full = (await res.json()) as MessageEvent;
  return { ...full, elided: false };
}
