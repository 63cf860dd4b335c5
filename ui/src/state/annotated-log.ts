/**
 * "Copy as annotated log": a session's (or everything's) annotated log — what `mcpscope --log`
 * prints, from the `format=text` export (proxy/files/export/export-text.ts), redacted like every export —
 * fetched through the one API client and put on the clipboard for a bug report. Where the
 * clipboard cannot be written (no permission, an insecure origin, an old browser) the text is
 * downloaded as the `.log` file instead, and the caller says which happened.
 */
import { apiErrorText, apiFetch, exportPath } from './api.js';

export type CopyOutcome = { ok: true; how: 'copied' | 'downloaded'; lines: number; fileName: string } | { ok: false; error: string };

export interface CopyDeps {
  fetchImpl?: typeof fetch;
  /** The clipboard (default navigator.clipboard). */
  clipboard?: Pick<Clipboard, 'writeText'>;
  /** Saves the text as a file (default: a download through an object URL). */
  download?: (text: string, fileName: string) => void;
}

function downloadText(text: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export async function copyAnnotatedLog(sessionId: string, deps: CopyDeps = {}): Promise<CopyOutcome> {
  let res: Response;
  try {
    res = await apiFetch(exportPath(sessionId, 'text'), {}, deps.fetchImpl);
  } catch (err) {
    return { ok: false, error: `Could not reach mcpscope: ${(err as Error).message}.` };
  }
  if (!res.ok) return { ok: false, error: `The annotated log could not be made: ${await apiErrorText(res)}` };
  const text = await res.text();
  const fileName = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'mcpscope.log';
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const clipboard = deps.clipboard ?? (typeof navigator !== 'undefined' ? navigator.clipboard : undefined);
  try {
    if (!clipboard) throw new Error('no clipboard');
    await clipboard.writeText(text);
    return { ok: true, how: 'copied', lines, fileName };
  } catch {
    (deps.download ?? downloadText)(text, fileName);
    return { ok: true, how: 'downloaded', lines, fileName };
  }
}
