/**
 * `mcpscope --log <file> -- <command>`: the wrapper's own annotated log. The records the wrapper
 * ships to a UI (over /ingest, to another mcpscope or to the UI it serves itself) describe its one
 * process; the log is written from the same records, before their redaction for shipping, by a
 * second, local recorder and a small capped store on the wrapper's recorder thread
 * (recorder-worker.ts), never on the relay — so the log is complete whichever UI records the
 * process, and written even when no UI can be reached. The recorder is loaded only with --log.
 *
 * Records pushed before the recorder is loaded wait (up to 16 MiB of chunks; past that, chunk
 * bytes are dropped and an `overflow` record says where, as everywhere else in mcpscope).
 */
import type { IngestRecord } from '../capture/wire-codec.js';
import type { StdioStream, WireRecord } from '../capture/wire-records.js';
import type { LintMode } from '../lint/linter.js';

export interface StdioLogOptions {
  file: string;
  /** The file, already opened by the CLI (0600). */
  fd?: number;
  format?: 'text' | 'json';
  maxBodyBytes?: number;
  lint?: LintMode;
  /** mcpscope's token, if one is known: scrubbed from the log. */
  token?: string;
  /** Said once if the log cannot be started. */
  warn: (text: string) => void;
}

export interface StdioLog {
  push(record: IngestRecord): void;
  /** Records everything pushed so far, writes it, and closes the file. */
  close(): Promise<void>;
}

/** Chunk bytes that may wait while the recorder loads. */
const MAX_WAITING_BYTES = 16 * 1024 * 1024;

export function startStdioLog(options: StdioLogOptions): StdioLog {
  let waiting: WireRecord[] | undefined = [];
  let waitingBytes = 0;
  let lost: Extract<WireRecord, { t: 'overflow' }> | undefined;
  let sink: ((r: WireRecord) => void) | undefined;
  let closeSink: (() => Promise<void>) | undefined;
  let failed = false;

  const ready = (async () => {
    const [{ EventStore }, { Recorder }, { exportRedactor }, { CaptureQueue }, { startLogWriter }] = await Promise.all([
      import('../store/event-store.js'),
      import('../record/recorder.js'),
      import('../export/export-common.js'),
      import('../capture/capture-queue.js'),
      import('../export/log-writer.js'),
    ]);
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
    const writer = startLogWriter(store, { to: { file: options.file }, fd: options.fd, format: options.format, token: options.token });
    sink = (r) => queue.push(r);
    closeSink = async () => {
      queue.close();
      await writer.close();
    };
    for (const r of waiting ?? []) sink(r);
    if (lost) sink(lost);
    waiting = undefined;
  })().catch((err: unknown) => {
    failed = true;
    waiting = undefined;
    options.warn(`the --log file ${options.file} is not written: ${(err as Error).message}`);
  });

  return {
    push(record) {
      const r = record as WireRecord;
      if (sink) return sink(r);
      if (!waiting) return;
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
    },
    async close() {
      await ready;
      if (!failed) await closeSink?.();
    },
  };
}
