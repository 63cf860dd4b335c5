/**
 * `mcpscope open FILE [--ui-port U] [--token T] [--host H]`: loads a saved capture (fixture JSON,
 * NDJSON events from `--record` or an export, or a HAR file) into a fresh store and serves the UI
 * on it, with the same API, exports and import as a live mcpscope. Runs until Ctrl-C.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { generateToken, packageVersion, UI_DIR } from '../mcpscope.js';
import { startUiServer, type UiServer } from '../serve/ui-server.js';
import { EventStore } from '../../recorder/store/event-store.js';
import { fixtureRoutes } from '../serve/fixture-routes.js';
import { searchRoutes } from '../serve/search-routes.js';
import { appendImported, readCapture } from '../../files/import/import-capture.js';
import { CaptureFormatError } from '../../core/model/errors.js';
import { DEFAULT_UI_PORT } from '../../wire/ports.js';
import { parseCommand } from '../cli-parse.js';

/** What each kind of capture is called, for people. */
const KINDS: Record<string, string> = { fixture: 'fixture', ndjson: 'NDJSON event log', events: 'event list', har: 'HAR file' };

export interface OpenHandle {
  ui: UiServer;
  store: EventStore;
  close(): Promise<void>;
}

/** Loads `file` and serves it (the programmatic half of the command). */
export async function openCapture(
  file: string,
  options: { uiPort?: number; token?: string; host?: string; onWarning?: (m: string) => void } = {},
): Promise<OpenHandle & { kind: string; events: number; sessions: string[]; movedFrom?: number }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new CaptureFormatError(
      e.code === 'ENOENT' ? `There is no file ${JSON.stringify(file)}.` : `Cannot read ${JSON.stringify(file)}: ${e.message}`,
    );
  }
  const capture = readCapture(text);
  for (const w of capture.warnings) options.onWarning?.(w);
  const store = new EventStore();
  const loaded = appendImported(store, capture.events);
  const token = options.token || process.env.MCPSCOPE_TOKEN || generateToken();
  const version = packageVersion();
  const serve = (port: number) =>
    startUiServer({
      store,
      token,
      host: options.host,
      port,
      uiDir: UI_DIR,
      showSecrets: false,
      version,
      // The UI shows the file, not the live controls (there is no proxy, nothing to pause or clear).
      capture: { file: basename(file), kind: KINDS[capture.kind] ?? capture.kind },
      plugins: [fixtureRoutes({ store, token, version }), searchRoutes({ store })],
    });
  let ui: UiServer;
  let movedFrom: number | undefined;
  if (options.uiPort !== undefined) ui = await serve(options.uiPort);
  else {
    try {
      ui = await serve(DEFAULT_UI_PORT);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      ui = await serve(0);
      movedFrom = DEFAULT_UI_PORT;
    }
  }
  return { ui, store, kind: capture.kind, events: loaded.events, sessions: loaded.sessions, movedFrom, close: () => ui.close() };
}

export async function main(argv: string[]): Promise<number> {
  const out = process.stderr;
  const args = parseCommand('open', argv);
  if (typeof args === 'number') return args;
  const { values } = args;
  const file = args.operand!;
  const uiPort = values['ui-port'];

  let opened: Awaited<ReturnType<typeof openCapture>>;
  try {
    opened = await openCapture(file, {
      uiPort,
      token: values.token,
      host: values.host ?? '127.0.0.1',
      onWarning: (w) => out.write(`mcpscope open: warning: ${w}\n`),
    });
  } catch (err) {
    if (err instanceof CaptureFormatError) {
      out.write(`mcpscope open: ${file}: ${err.message}\n`);
      return 1;
    }
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') {
      out.write(`mcpscope open: the UI port is already in use (${e.message}). Choose another with --ui-port, or 0 for any free port.\n`);
      return 2;
    }
    // One line, never a stack trace.
    out.write(`mcpscope open: ${file}: ${e instanceof Error ? e.message : String(err)}\n`);
    return 1;
  }

  // Signal handlers first, the URL second: whoever reads the URL may press Ctrl-C right away.
  const stopped = new Promise<number>((resolve) => {
    let closing = false;
    const shutdown = (signal: string) => {
      if (closing) process.exit(130);
      closing = true;
      out.write(`\nmcpscope: ${signal}, shutting down\n`);
      opened.close().then(
        () => resolve(0),
        () => resolve(0),
      );
    };
    process.on('SIGINT', () => shutdown('SIGINT'));
    process.on('SIGTERM', () => shutdown('SIGTERM'));
  });

  if (opened.movedFrom !== undefined) {
    out.write(
      `mcpscope open: port ${opened.movedFrom} (the default UI port) is in use, so the UI is on port ${opened.ui.port} instead. Choose one with --ui-port.\n`,
    );
  }
  out.write(
    `\nmcpscope ${packageVersion()}\n` +
      `Opened ${file} (${KINDS[opened.kind] ?? opened.kind}): ${opened.events} events, ${opened.sessions.length} session${opened.sessions.length === 1 ? '' : 's'}. Ctrl-C to stop.\n` +
      `  UI     ${opened.ui.url}\n\n`,
  );
  return stopped;
}
