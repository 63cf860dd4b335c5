// @vitest-environment happy-dom
/**
 * "Copy as annotated log" (ui/src/state/annotated-log.ts and the Export menu): the `format=text`
 * export fetched through the one API client, put on the clipboard — or downloaded where the
 * clipboard cannot be written — with a confirmation beside the Export button; and the annotated
 * log's download link among the other formats.
 */
import { describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { mountPoint } from './dom';
import { ExportMenu, exportHref } from '../../ui/src/components/ExportMenu';
import { copyAnnotatedLog } from '../../ui/src/state/annotated-log';
import { exportPath } from '../../ui/src/state/api';

const dom = mountPoint();
const LOG =
  '09:30:00.005 s2   >>> REQUEST POST http://127.0.0.1:3001/mcp  (x1)\n09:30:00.007 s2   #3 C→S request initialize (id 0)\n                    {}\n';

function textResponse(text: string): Response {
  return new Response(text, {
    status: 200,
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'content-disposition': 'attachment; filename="mcpscope-s2-20260115-093000.log"',
    },
  });
}

describe('copyAnnotatedLog', () => {
  it("fetches the session's format=text export with the page's cookie and copies it", async () => {
    const fetchImpl = vi.fn(async () => textResponse(LOG));
    const writeText = vi.fn(async () => undefined);
    const download = vi.fn();
    const r = await copyAnnotatedLog('s2', { fetchImpl: fetchImpl as unknown as typeof fetch, clipboard: { writeText }, download });
    expect(r).toEqual({ ok: true, how: 'copied', lines: 3, fileName: 'mcpscope-s2-20260115-093000.log' });
    const [url, init] = fetchImpl.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('api/sessions/s2/export?format=text');
    expect(init.credentials).toBe('same-origin');
    expect(writeText).toHaveBeenCalledWith(LOG);
    expect(download).not.toHaveBeenCalled();
    expect(exportPath('', 'text')).toBe('export?format=text');
    expect(exportPath('a b', 'text')).toBe('sessions/a%20b/export?format=text');
  });

  it('downloads the .log file when the clipboard refuses', async () => {
    const download = vi.fn();
    const r = await copyAnnotatedLog('s2', {
      fetchImpl: (async () => textResponse(LOG)) as unknown as typeof fetch,
      clipboard: { writeText: async () => Promise.reject(new DOMException('denied', 'NotAllowedError')) },
      download,
    });
    expect(r).toMatchObject({ ok: true, how: 'downloaded' });
    expect(download).toHaveBeenCalledWith(LOG, 'mcpscope-s2-20260115-093000.log');
  });

  it("says the server's plain-words error, and an unreachable server", async () => {
    const refused = await copyAnnotatedLog('s9', {
      fetchImpl: (async () =>
        new Response(JSON.stringify({ error: 'No session s9' }), {
          status: 404,
          headers: { 'content-type': 'application/json' },
        })) as unknown as typeof fetch,
      clipboard: { writeText: vi.fn() },
    });
    expect(refused).toEqual({ ok: false, error: 'The annotated log could not be made: No session s9' });
    const down = await copyAnnotatedLog('s1', {
      fetchImpl: (async () => {
        throw new TypeError('Failed to fetch');
      }) as unknown as typeof fetch,
    });
    expect(down).toEqual({ ok: false, error: 'Could not reach mcpscope: Failed to fetch.' });
  });
});

describe('the Export menu', () => {
  it('links the annotated log as a download, for a session and for everything', async () => {
    expect(exportHref('s1', 'text')).toBe('api/sessions/s1/export?format=text');
    expect(exportHref('', 'text')).toBe('api/export?format=text');
    await dom.render(<ExportMenu sessionId="s1" />);
    await act(async () => dom.$('export')!.click());
    const a = dom.$<HTMLAnchorElement>('export-text')!;
    expect(a.getAttribute('href')).toBe('api/sessions/s1/export?format=text');
    expect(a.textContent).toContain('Annotated log (.log)');
  });

  it('"Copy as annotated log" copies, closes the menu and confirms beside the button', async () => {
    const writeText = vi.fn(async () => undefined);
    const fetchImpl = vi.fn(async () => textResponse(LOG));
    await dom.render(
      <ExportMenu sessionId="s2" copyDeps={{ fetchImpl: fetchImpl as unknown as typeof fetch, clipboard: { writeText } }} />,
    );
    await act(async () => dom.$('export')!.click());
    const item = dom.$('copy-annotated-log')!;
    expect(item.getAttribute('role')).toBe('menuitem');
    await act(async () => item.click());
    expect(dom.$('export-menu')).toBeNull();
    expect(writeText).toHaveBeenCalledWith(LOG);
    const note = dom.$('export-note')!;
    expect(note.getAttribute('role')).toBe('status');
    expect(note.textContent).toBe('Annotated log copied (3 lines)');
  });
});
