/**
 * The export formats, their file extensions and content types, and the file names exports get:
 * shared by the export routes (proxy/app/serve/fixture-routes.ts, downloads) and `mcpscope mcp`'s
 * `export_session` (proxy/app/agent/agent-tools.ts, files it writes).
 */

export const EXPORT_FORMATS = ['fixture', 'har', 'ndjson', 'text'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_FORMAT_INFO: Record<ExportFormat, { ext: string; type: string }> = {
  fixture: { ext: 'json', type: 'application/json; charset=utf-8' },
  har: { ext: 'har', type: 'application/json; charset=utf-8' },
  ndjson: { ext: 'ndjson', type: 'application/x-ndjson; charset=utf-8' },
  text: { ext: 'log', type: 'text/plain; charset=utf-8' },
};

export function isExportFormat(v: string): v is ExportFormat {
  return Object.prototype.hasOwnProperty.call(EXPORT_FORMAT_INFO, v);
}

/**
 * `mcpscope-s1-20260115-120000.har`: a label (a session id, `all`) made safe for a file name, and
 * a time in the local time of this machine. `ms` adds the milliseconds (`-120000-512`), for names
 * that may be made twice in one second.
 */
export function exportFileName(label: string, at: number, format: ExportFormat, options: { ms?: boolean } = {}): string {
  const d = new Date(at);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}${options.ms ? `-${p(d.getMilliseconds(), 3)}` : ''}`;
  const safe = label.replace(/[^A-Za-z0-9._-]/g, '_');
  return `mcpscope-${safe}-${stamp}.${EXPORT_FORMAT_INFO[format].ext}`;
}
