/**
 * The header's Export button and its menu: the selected session as a fixture, HAR, NDJSON or the
 * annotated log, or everything as HAR, NDJSON or the annotated log. Each download is a plain
 * `<a href download>` to the UI port's export routes (proxy/app/serve/fixture-routes.ts), so the browser
 * saves the file under the name the server gives it (content-disposition) and the page's cookie
 * authenticates the download. "Copy as annotated log" puts the `format=text` export on the
 * clipboard (state/annotated-log.ts) and says so beside the button.
 */
import './ExportMenu.css';
import { useEffect, useId, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { apiPath, exportPath } from '../state/api.js';
import { EXPORT_FORMAT_INFO, type ExportFormat } from '../../../proxy/core/model/export-formats.js';
import { copyAnnotatedLog, type CopyDeps } from '../state/annotated-log.js';

interface FormatInfo {
  format: ExportFormat;
  label: string;
  description: string;
}

const EXPORT_FORMATS: readonly FormatInfo[] = [
  { format: 'fixture', label: 'Fixture', description: 'Replay as a mock server, verify a live one, load in tests' },
  { format: 'har', label: 'HAR', description: 'Chrome DevTools, HTTP Toolkit and other HAR viewers' },
  { format: 'ndjson', label: 'NDJSON', description: 'Every event, one per line (what mcpscope open reads)' },
  { format: 'text', label: 'Annotated log', description: 'What mcpscope --log prints, redacted: for bug reports' },
];

/** Where a format is downloaded from: one session (`sessionId`), or everything (''). Undefined: not offered. */
export function exportHref(sessionId: string, format: ExportFormat): string | undefined {
  // A fixture is one session's.
  return sessionId === '' && format === 'fixture' ? undefined : apiPath(exportPath(sessionId, format));
}

export interface ExportMenuProps {
  /** The selected session ('' = all sessions). */
  sessionId: string;
  /** Nothing captured yet. */
  empty?: boolean;
  /** Tests: the fetch, clipboard and download used by "Copy as annotated log". */
  copyDeps?: CopyDeps;
}

export function ExportMenu({ sessionId, empty = false, copyDeps }: ExportMenuProps) {
  const [open, setOpen] = useState(false);
  /** What the last "Copy as annotated log" did, shown beside the button for a few seconds. */
  const [note, setNote] = useState<{ text: string; error: boolean } | undefined>();
  useEffect(() => {
    if (!note) return;
    const timer = setTimeout(() => setNote(undefined), note.error ? 8_000 : 4_000);
    return () => clearTimeout(timer);
  }, [note]);
  const copy = async () => {
    close(true);
    setNote({ text: 'Copying the annotated log…', error: false });
    const r = await copyAnnotatedLog(sessionId, copyDeps);
    setNote(
      !r.ok
        ? { text: r.error, error: true }
        : r.how === 'copied'
          ? { text: `Annotated log copied (${r.lines} line${r.lines === 1 ? '' : 's'})`, error: false }
          : { text: `The clipboard is not available here: downloaded ${r.fileName} instead`, error: false },
    );
  };
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  const menuId = useId();

  const items = () => [...(menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not([aria-disabled="true"])') ?? [])];

  useEffect(() => {
    if (!open) return;
    items()[0]?.focus();
    const onDown = (e: PointerEvent) => {
      if (rootRef.current && !rootRef.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onDown, true);
    return () => document.removeEventListener('pointerdown', onDown, true);
  }, [open]);

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) buttonRef.current?.focus();
  };

  const onMenuKey = (e: ReactKeyboardEvent<HTMLDivElement>) => {
    // The app's global shortcuts (Esc closes the detail, arrows move the selection) stay out of the menu.
    e.stopPropagation();
    const list = items();
    const at = list.indexOf(document.activeElement as HTMLElement);
    switch (e.key) {
      case 'Escape':
        e.preventDefault();
        close(true);
        break;
      case 'ArrowDown':
        e.preventDefault();
        list[(at + 1) % list.length]?.focus();
        break;
      case 'ArrowUp':
        e.preventDefault();
        list[(at - 1 + list.length) % list.length]?.focus();
        break;
      case 'Home':
        e.preventDefault();
        list[0]?.focus();
        break;
      case 'End':
        e.preventDefault();
        list[list.length - 1]?.focus();
        break;
      case 'Tab':
        close(false);
        break;
      default:
        break;
    }
  };

  const scope = sessionId === '' ? 'all sessions' : `session ${sessionId}`;
  return (
    <div className="menu-anchor" ref={rootRef}>
      <button
        ref={buttonRef}
        type="button"
        className={`btn${open ? ' active' : ''}`}
        data-testid="export"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' && !open) {
            e.preventDefault();
            e.stopPropagation();
            setOpen(true);
          }
        }}
        title={`Download ${scope} as a fixture, HAR, NDJSON or annotated log, or copy the annotated log`}
      >
        Export{' '}
        <span className="caret" aria-hidden="true">
          ▾
        </span>
      </button>
      {open ? (
        <div
          className="menu"
          role="menu"
          id={menuId}
          ref={menuRef}
          aria-label={`Export ${scope}`}
          data-testid="export-menu"
          onKeyDown={onMenuKey}
        >
          <div className="menu-head">
            Export <b>{sessionId === '' ? 'all sessions' : <span className="mono">{sessionId}</span>}</b>
            {empty ? <span className="muted"> · nothing captured yet</span> : null}
          </div>
          {EXPORT_FORMATS.map((f) => {
            const href = exportHref(sessionId, f.format);
            const body = (
              <>
                <span className="mi-label">
                  {f.label} <span className="mi-ext">(.{EXPORT_FORMAT_INFO[f.format].ext})</span>
                </span>
                <span className="mi-desc">{href ? f.description : 'A fixture holds one session: pick one in the session list'}</span>
              </>
            );
            return href ? (
              <a
                key={f.format}
                role="menuitem"
                className="menu-item"
                href={href}
                download
                data-testid={`export-${f.format}`}
                tabIndex={-1}
                onClick={() => close(true)}
              >
                {body}
              </a>
            ) : (
              <span
                key={f.format}
                role="menuitem"
                className="menu-item disabled"
                aria-disabled="true"
                data-testid={`export-${f.format}`}
                tabIndex={-1}
              >
                {body}
              </span>
            );
          })}
          <button
            type="button"
            role="menuitem"
            className="menu-item menu-action"
            data-testid="copy-annotated-log"
            tabIndex={-1}
            onClick={() => void copy()}
          >
            <span className="mi-label">Copy as annotated log</span>
            <span className="mi-desc">The same text, on the clipboard, ready to paste into a bug report</span>
          </button>
        </div>
      ) : null}
      {note ? (
        <span className={`export-note${note.error ? ' error' : ''}`} role="status" data-testid="export-note">
          {note.text}
        </span>
      ) : null}
    </div>
  );
}
