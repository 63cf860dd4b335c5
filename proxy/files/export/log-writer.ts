/**
 * `--log [file]`: the annotated log (proxy/files/export/text-log.ts) written live, as events are
 * committed — to stdout, stderr or a file, as text (coloured on a terminal) or as JSON lines
 * (`--log-format json`, one object per log entry; docs/terminal-log.md lists the fields).
 *
 * A store subscriber like the `--record` file (ndjson-recorder.ts): it runs on the main thread in
 * the store's commit listener, never on the proxy thread, so a slow log delays nothing but the log.
 * It never waits for the destination either: each batch is handed to the stream in one write, and
 * while the stream holds more than `maxPendingBytes` (4 MiB) unwritten — a `| less` that stopped
 * reading, a full disk — entries are dropped and counted, and once it has caught up a line says
 * "mcpscope: N log lines dropped (the terminal/file did not keep up)". The formatter still sees
 * every event, so correlation stays right after a gap. (A terminal is written synchronously by
 * Node on POSIX: a terminal paused with Ctrl-S blocks this thread, which delays the recording —
 * bounded by the capture queue's cap — but never the proxy thread's forwarding.)
 *
 * Redaction: always as exports are (export-common.ts: credentials and mcpscope's own token
 * scrubbed), whatever --show-secrets says for the UI: a log is pasted into bug reports.
 * A log file is created 0600 (an existing one others can read is narrowed to 0600, as --record does).
 */
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import type { McpscopeEvent } from '../../core/model/events.js';
import type { Redactor } from '../../recorder/redact/redact.js';
import type { EventStore } from '../../recorder/store/event-store.js';
import { exportRedactor, redactEvent } from './export-common.js';
import { openLogFile } from './log-option.js';

import { TextLog } from './text-log.js';
import { inert, renderEntry, renderJsonEntry, type LogEntry } from './text-log-render.js';

export type LogFormat = 'text' | 'json';

export interface LogWriterOptions {
  /** `stdout`, `stderr`, a file path (appended to, created 0600), or a stream (tests). */
  to: 'stdout' | 'stderr' | { file: string } | { stream: Writable; isTTY?: boolean };
  format?: LogFormat;
  /** Colour: unset decides from the destination (a terminal) and NO_COLOR / FORCE_COLOR. Never for JSON or a file unless forced. */
  colour?: boolean;
  /** mcpscope's token, scrubbed from every line (with `redactor` unset). */
  token?: string;
  /** A ready export redactor (must redact). */
  redactor?: Redactor;
  /** Unwritten bytes past which entries are dropped (default 4 MiB). */
  maxPendingBytes?: number;
  /** Times in UTC (tests). */
  utc?: boolean;
  /** Hint wrap width (default: the terminal's width, else 100). */
  width?: number;
  /** Said once when the log stops (a write error). Default: a line on stderr. */
  warn?: (text: string) => void;
  /** The environment consulted for NO_COLOR / FORCE_COLOR (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface LogWriter {
  /** Log lines dropped so far because the destination did not keep up. */
  readonly dropped: number;
  /** Stops: says what was dropped, flushes, and closes a file (idempotent). */
  close(): Promise<void>;
}

/** The log's destination and formatter, fed events by its owner (a store subscription, or a stdio wrapper's UI: proxy/app/stdio/stdio-log.ts). */
export interface LogSink extends LogWriter {
  /** Formats and writes one batch of events (seq order, superseded upserts included). */
  write(events: readonly McpscopeEvent[]): void;
  /** A line of mcpscope's own (`mcpscope: …`; in JSON `{ ts, kind: "note", text }`). */
  note(text: string): void;
  /** A formatter afresh, for events of another store (whose seqs start over); `token`: that one's, scrubbed too. */
  restart(token?: string): void;
}

const DEFAULT_MAX_PENDING = 4 * 1024 * 1024;

/** Colour on a terminal unless NO_COLOR is set (non-empty); FORCE_COLOR (not `0`/`false`) forces it. */
export function wantsColour(isTTY: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY === true;
}

/**
 * Writes the store's events so far (its whole history), then every committed batch, as the
 * annotated log. A file is opened at once (a path that cannot be written throws here).
 */
export function startLogWriter(store: EventStore, options: LogWriterOptions & { fd?: number }): LogWriter {
  const sink = openLogSink(options);
  sink.write(store.history());
  const unsubscribe = store.subscribe((events) => sink.write(events), 'the --log output');
  return {
    get dropped() {
      return sink.dropped;
    },
    close() {
      unsubscribe();
      return sink.close();
    },
  };
}

/** The annotated log's destination and formatter (startLogWriter feeds it a store). A file is opened at once. */
export function openLogSink(options: LogWriterOptions & { fd?: number }): LogSink {
  const env = options.env ?? process.env;
  const format = options.format ?? 'text';
  const say = options.warn ?? ((t: string) => void process.stderr.write(`${t}\n`));
  let stream: Writable;
  let isTTY = false;
  let ownStream = false;
  let columns: number | undefined;
  const to = options.to;
  if (to === 'stdout' || to === 'stderr') {
    const s = to === 'stdout' ? process.stdout : process.stderr;
    stream = s;
    isTTY = s.isTTY === true;
    columns = s.isTTY ? s.columns : undefined;
  } else if ('file' in to) {
    const fd = options.fd ?? openLogFile(to.file, options.warn);
    stream = createWriteStream('', { fd, autoClose: true });
    ownStream = true;
  } else {
    stream = to.stream;
    isTTY = to.isTTY === true;
  }
  // A file is never coloured unless asked (FORCE_COLOR is about terminals and pipes to pagers).
  const colour = format === 'text' && (options.colour ?? (!ownStream && wantsColour(isTTY, env)));
  const width = options.width ?? (columns !== undefined ? Math.max(40, Math.min(140, columns - 22)) : 100);
  let redactor = options.redactor ?? exportRedactor({ token: options.token });
  let log = new TextLog({ width, utc: options.utc });
  const maxPending = options.maxPendingBytes ?? DEFAULT_MAX_PENDING;
  const where =
    to === 'stdout' || to === 'stderr' ? `the ${to === 'stdout' ? 'terminal' : 'stderr'}` : 'file' in to ? 'the file' : 'the stream';
  let dropped = 0;
  let stopped = false;

  const onError = (err: Error) => {
    if (stopped) return;
    stopped = true;
    // A closed pipe (`| head`) ends the log quietly; anything else is said once.
    if ((err as NodeJS.ErrnoException).code !== 'EPIPE') say(`mcpscope: the --log output stopped: ${err.message}`);
  };
  stream.on('error', onError);

  const dropNotice = () => {
    const text = `mcpscope: ${dropped} log line${dropped === 1 ? '' : 's'} dropped (${where} did not keep up)`;
    dropped = 0;
    return format === 'json' ? `${JSON.stringify({ ts: new Date().toISOString(), kind: 'dropped', text })}\n` : `${text}\n`;
  };
  const render = (entry: LogEntry) =>
    format === 'json' ? renderJsonEntry(entry, { utc: options.utc }) : renderEntry(entry, { colour, utc: options.utc });
  const write = (events: readonly McpscopeEvent[]): void => {
    if (stopped || events.length === 0) return;
    // The formatter sees every event (its correlation state stays whole); only the writing is skipped.
    const entries = log.push(events.map((e) => redactEvent(e, redactor)));
    let text = '';
    // Bytes handed to the stream and not yet written out (a string's length counts a character as one: close enough for a bound).
    const pending = stream.writableLength;
    // Caught up (half the bound free again): say what was lost, before what follows.
    if (dropped > 0 && pending < maxPending / 2) text += dropNotice();
    for (const entry of entries) {
      if (pending + text.length > maxPending) {
        dropped += format === 'json' ? 1 : entry.lines.length;
        continue;
      }
      text += render(entry);
    }
    if (text) stream.write(text);
  };

  const note = (text: string): void => {
    if (stopped) return;
    const pending = stream.writableLength;
    let out = dropped > 0 && pending < maxPending / 2 ? dropNotice() : '';
    if (pending + out.length > maxPending) {
      dropped += 1;
      return;
    }
    const line = inert(`mcpscope: ${text}`);
    out +=
      format === 'json'
        ? `${JSON.stringify({ ts: new Date().toISOString(), kind: 'note', text: redactor.text(line) })}\n`
        : `${redactor.text(line)}\n`;
    stream.write(out);
  };

  let closing: Promise<void> | undefined;
  return {
    get dropped() {
      return dropped;
    },
    write,
    note,
    restart(token) {
      log = new TextLog({ width, utc: options.utc });
      if (token !== undefined && !options.redactor)
        redactor = exportRedactor({ token: options.token, extraSecrets: [token].filter((t) => t !== options.token) });
    },
    close() {
      closing ??= (async () => {
        const wasStopped = stopped;
        stopped = true;
        if (wasStopped) return;
        if (dropped > 0) stream.write(dropNotice());
        if (ownStream) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 2_000);
            stream.end(() => {
              clearTimeout(timer);
              resolve();
            });
          });
          return;
        }
        // stdout/stderr stay open: wait (a moment at most) until what was written is handed to the OS.
        if (stream.writableLength > 0)
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 1_000);
            stream.write('', () => {
              clearTimeout(timer);
              resolve();
            });
          });
        stream.off('error', onError);
      })();
      return closing;
    },
  };
}
