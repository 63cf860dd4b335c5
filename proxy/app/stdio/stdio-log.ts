/**
 * `mcpscope --log <file> -- <command>`: the wrapper's own annotated log, on its recorder thread
 * (recorder-worker.ts), never on the relay. Its lines carry the numbers of the UI that records the
 * process — that UI's session label (`s16`) and message seqs (`#212`), as its /api/sessions and
 * message list show them — so that a line of the file can be found in the UI:
 *
 * - **In a UI's numbers.** The wrapper asks each UI it links to (another mcpscope's, or the one it
 *   serves itself) for what it records of this process (`recorded`, proxy/app/serve/ingest.ts): the
 *   log is that UI's events, formatted as the UI's own text export would. A line says which UI
 *   from the first link on, and again whenever the link changes (the UI went away and the wrapper
 *   took its port over: a new store, whose numbers start over). Records that a UI that went away
 *   never said it recorded are sent again to the next (ingest-client.ts), so the log loses nothing.
 * - **In its own numbers**, when no UI numbers the process: an mcpscope UI older than this wrapper
 *   (it does not send `recorded`), no UI that could be reached or served, or a UI that did not say
 *   it recorded the last records in time at the end. A line says so, and from there on a recorder
 *   of the wrapper's own (loaded only then) records what no UI confirmed and everything after, into
 *   a small capped store — the numbers it gives are no UI's.
 *
 * Redacted as every export is, whatever --show-secrets says for the UI.
 */
import type { IngestRecord } from '../../wire/capture/wire-codec.js';
import type { StdioStream, WireRecord } from '../../wire/capture/wire-records.js';
import type { LintMode } from '../../core/lint/linter.js';
import type { McpscopeEvent } from '../../core/model/events.js';
import type { LogSink } from '../../files/export/log-writer.js';
import { fromFeed } from '../../core/model/feed-form.js';

export interface StdioLogOptions {
  file: string;
  /** The file, already opened by the CLI (0600). */
  fd?: number;
  format?: 'text' | 'json';
  maxBodyBytes?: number;
  lint?: LintMode;
  /** mcpscope's token, if one is known: scrubbed from the log. */
  token?: string;
  /** The process's `stdio-start` (its command line, pid, working directory): the wrapper's own recorder starts with it. */
  start: Extract<IngestRecord, { t: 'stdio-start' }>;
  /** Said once if the log cannot be started. */
  warn: (text: string) => void;
}

export interface StdioLog {
  /** Records go to the UI at `url` from here on, which sends back what it records (`recorded`) in its numbers. */
  recordingInto(ui: { url: string; token?: string; own?: boolean }): void;
  /** Events that UI recorded of this process (`skipped`: events it left out, the log did not keep up). */
  recorded(events: readonly McpscopeEvent[], skipped?: number): void;
  /**
   * No UI numbers this process from here on (`why`, plain words): the wrapper records the rest
   * itself, starting with `unconfirmed` (what was shipped and no UI said it recorded). Once only.
   */
  recordLocally(why: string, unconfirmed: readonly IngestRecord[]): void;
  /** A record as shipped: recorded here once the log records locally, else not needed. */
  push(record: IngestRecord): void;
  /** Writes everything recorded so far and closes the file. */
  close(): Promise<void>;
}

/** Chunk bytes that may wait while the wrapper's own recorder loads. */
const MAX_WAITING_BYTES = 16 * 1024 * 1024;

export function startStdioLog(options: StdioLogOptions): StdioLog {
  let sink: LogSink | undefined;
  let failed = false;
  /** What happened before the sink was open (it loads in a moment), in order. */
  let early: ((s: LogSink) => void)[] | undefined = [];
  const withSink = (f: (s: LogSink) => void) => {
    if (sink) f(sink);
    else early?.push(f);
  };
  const fail = (err: unknown) => {
    if (failed) return;
    failed = true;
    early = undefined;
    options.warn(`the --log file ${options.file} is not written: ${(err as Error).message}`);
  };
  const sinkReady = import('../../files/export/log-writer.js')
    .then(({ openLogSink }) => {
      sink = openLogSink({ to: { file: options.file }, fd: options.fd, format: options.format, token: options.token });
      for (const f of early ?? []) f(sink);
      early = undefined;
    })
    .catch(fail);

  // The wrapper's own recorder, once no UI numbers the process.
  let local: { push(r: WireRecord): void; close(): Promise<void> } | undefined;
  let localReady: Promise<void> | undefined;
  let waiting: WireRecord[] = [];
  let waitingBytes = 0;
  let lost: Extract<WireRecord, { t: 'overflow' }> | undefined;
  /** Whether a UI's events were printed (the wrapper's own recorder then joins mid-process). */
  let fromUi = false;

  const startLocal = (records: readonly IngestRecord[]) => {
    for (const r of records) queueLocal(r);
    localReady = (async () => {
      const [{ EventStore }, { Recorder }, { exportRedactor }, { CaptureQueue }] = await Promise.all([
        import('../../recorder/store/event-store.js'),
        import('../../recorder/recorder.js'),
        import('../../files/export/export-common.js'),
        import('../../wire/capture/capture-queue.js'),
      ]);
      await sinkReady;
      if (!sink) return;
      const out = sink;
      out.restart();
      // The log needs only the recent past (correlation): a small store, evicted as usual.
      const store = new EventStore({ maxEvents: 20_000, maxBytes: 64 * 1024 * 1024 });
      const recorder = new Recorder({
        store,
        // Redacted as every export is, whatever --show-secrets says for the UI.
        redactor: exportRedactor({ token: options.token }),
        maxBodyBytes: options.maxBodyBytes,
        lint: options.lint,
      });
      const queue = new CaptureQueue(recorder.handle, { maxQueuedBytes: 64 * 1024 * 1024 });
      const unsubscribe = store.subscribe((events) => out.write(events), 'the --log output');
      queue.push({ ...options.start, ...(fromUi ? { ts: Date.now(), joined: true } : {}) });
      for (const r of waiting) queue.push(r);
      if (lost) queue.push(lost);
      waiting = [];
      lost = undefined;
      local = {
        push: (r) => queue.push(r),
        close: async () => {
          queue.close();
          recorder.close();
          unsubscribe();
        },
      };
    })().catch(fail);
  };

  /** Records for the wrapper's own recorder while it loads (bounded: past it, an overflow record). */
  const queueLocal = (record: IngestRecord) => {
    const r = record as WireRecord;
    if (local) return local.push(r);
    if ('chunk' in r) {
      if (lost || waitingBytes + r.chunk.byteLength > MAX_WAITING_BYTES) {
        const stream: StdioStream = r.t === 'stdio-chunk' ? r.dir : 'stderr';
        lost ??= { t: 'overflow', xid: r.xid, ts: r.ts, droppedBytes: 0, stream };
        lost.droppedBytes += r.chunk.byteLength;
        return;
      }
      waitingBytes += r.chunk.byteLength;
    }
    waiting.push(r);
  };

  let locally = false;
  let links = 0;
  return {
    recordingInto(ui) {
      if (locally || failed) return;
      const where = `the mcpscope UI at ${ui.url}${ui.own ? ' (this wrapper serves it)' : ''}`;
      const text =
        links++ === 0
          ? `recording into ${where}: the session and message numbers below are that UI's`
          : `the link to the UI ended; recording again into ${where}: the session and message numbers below are that UI's, in a session of their own there`;
      withSink((s) => {
        s.restart(ui.token);
        s.note(text);
      });
    },
    recorded(events, skipped = 0) {
      if (locally || failed) return;
      fromUi = true;
      withSink((s) => {
        if (skipped > 0)
          s.note(`${skipped} event${skipped === 1 ? '' : 's'} the UI recorded of this process are not in this log (it did not keep up)`);
        s.write(events.map((e) => fromFeed(e)));
      });
    },
    recordLocally(why, unconfirmed) {
      if (locally || failed) return;
      locally = true;
      withSink((s) => s.note(`${why}: from here on this log numbers the session and its messages itself, not as any UI does`));
      startLocal(unconfirmed);
    },
    push(record) {
      if (locally) queueLocal(record);
    },
    async close() {
      await sinkReady;
      await localReady;
      await local?.close();
      await sink?.close();
    },
  };
}
