/**
 * Opening a capture file from the browser: its text goes to `POST api/import` on the UI port
 * (proxy/app/serve/fixture-routes.ts), which appends its events to the store; they then reach this page on
 * the live feed like any other traffic. Framework-free; `fetch` is injectable for tests.
 */
import { apiFetch } from './api.js';

/** What `POST api/import` answers. */
export interface ImportResult {
  /** Events added. */
  events: number;
  /** Ids the imported sessions got (an id already in use is renamed: `s1` → `s1-i1`). */
  sessions: string[];
  /** What the file was: `fixture`, `ndjson`, `events` (a JSON array) or `har`. */
  kind: string;
  /** Things that were skipped or guessed, in plain words. */
  warnings: string[];
}

export type ImportOutcome = ({ ok: true } & ImportResult) | { ok: false; error: string };

/** The server refuses larger bodies (IMPORT_BODY_LIMIT in proxy/app/serve/fixture-routes.ts). */
const MAX_IMPORT_BYTES = 256 * 1024 * 1024;

const KIND_LABEL: Record<string, string> = {
  fixture: 'a fixture',
  ndjson: 'an NDJSON event log',
  events: 'an event list',
  har: 'a HAR file',
};

/** "a fixture", "a HAR file"… */
function kindLabel(kind: string): string {
  return KIND_LABEL[kind] ?? `a ${kind} file`;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

/** "1 session (s1-i1), 42 events from a fixture". */
export function describeImport(r: ImportResult): string {
  const sessions =
    r.sessions.length === 0
      ? 'no session'
      : `${plural(r.sessions.length, 'session')} (${r.sessions.slice(0, 3).join(', ')}${r.sessions.length > 3 ? ', …' : ''})`;
  return `${sessions}, ${plural(r.events, 'event')} from ${kindLabel(r.kind)}`;
}

/** The server's plain-words error from an error answer (its own `{ error }`, or Fastify's `{ message }`). */
async function errorOf(res: Response): Promise<string> {
  let text = '';
  try {
    text = await res.text();
  } catch {
    /* no body */
  }
  try {
    // Every UI API error is `{ error, code }` (proxy/app/serve/error-handler.ts), fastify's own
    // refusals included: a body too large comes as code FST_ERR_CTP_BODY_TOO_LARGE.
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string' && body.error !== '')
      return res.status === 413 ? `The file is too large for mcpscope to import (${body.error}).` : body.error;
  } catch {
    /* not JSON */
  }
  if (res.status === 401 || res.status === 403)
    return `mcpscope refused the upload (HTTP ${res.status}): reload the page with the link mcpscope printed.`;
  return `mcpscope answered HTTP ${res.status}${text && text.length < 200 ? `: ${text.trim()}` : ''}.`;
}

/** Sends a capture's text to `api/import`. Never throws: a failure is an outcome with a message for a person. */
export async function importCaptureText(text: string, fetchImpl: typeof fetch = fetch): Promise<ImportOutcome> {
  let res: Response;
  try {
    res = await apiFetch('import', { method: 'POST', headers: { 'content-type': 'text/plain; charset=utf-8' }, body: text }, fetchImpl);
  } catch (err) {
    return { ok: false, error: `Could not reach mcpscope: ${(err as Error).message || String(err)}.` };
  }
  if (!res.ok) return { ok: false, error: await errorOf(res) };
  try {
    const body = (await res.json()) as Partial<ImportResult>;
    return {
      ok: true,
      events: typeof body.events === 'number' ? body.events : 0,
      sessions: Array.isArray(body.sessions) ? body.sessions.filter((s): s is string => typeof s === 'string') : [],
      kind: typeof body.kind === 'string' ? body.kind : 'capture',
      warnings: Array.isArray(body.warnings) ? body.warnings.filter((s): s is string => typeof s === 'string') : [],
    };
  } catch {
    return { ok: false, error: 'mcpscope accepted the file but its answer was not readable.' };
  }
}

/** Reads a dropped or picked file and imports it. */
export async function importCaptureFile(file: Blob & { name?: string }, fetchImpl: typeof fetch = fetch): Promise<ImportOutcome> {
  if (file.size === 0) return { ok: false, error: 'The file is empty.' };
  if (file.size > MAX_IMPORT_BYTES)
    return {
      ok: false,
      error: `The file is ${Math.round(file.size / (1024 * 1024))} MB; mcpscope imports captures up to ${MAX_IMPORT_BYTES / (1024 * 1024)} MB (use \`mcpscope open FILE\` for larger ones).`,
    };
  let text: string;
  try {
    text = await file.text();
  } catch (err) {
    return { ok: false, error: `Could not read the file: ${(err as Error).message || String(err)}.` };
  }
  return importCaptureText(text, fetchImpl);
}
