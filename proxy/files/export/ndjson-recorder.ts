/**
 * `mcpscope --record FILE`: every event, as it is committed, appended to an NDJSON file.
 *
 * The store hands each committed batch to its listeners from the recorder's consumer (on
 * setImmediate, never on the proxy's forwarding path); this listener writes the batch with one
 * synchronous `fs.writeSync` on a file opened for append. Once writeSync returns the bytes are in
 * the kernel: a SIGKILL of mcpscope a moment later loses nothing that was written (only what had
 * not yet reached the recorder: the last few milliseconds of capture). Against a power cut or a
 * kernel crash the file is fsynced every 250 ms while something was written since the last sync
 * (never per batch, that would tax every event), and when recording stops. A batch is always
 * whole lines, so the file is valid NDJSON between batches; a process killed inside a write can
 * leave one partial last line, which `importCapture` skips with a warning.
 *
 * The record holds traffic (redacted, but still): the file is created 0600 (mcpscope creates no
 * directory for it: a missing one fails the launch, a typo is not silently made a new directory).
 * An existing file others could read or write is narrowed to 0600, and a warning says so.
 */
import { closeSync, fsyncSync, writeSync } from 'node:fs';
import { openPrivateAppend } from './private-file.js';
import type { McpscopeEvent } from '../../core/model/events.js';
import type { Redactor } from '../../recorder/redact/redact.js';
import type { EventStore } from '../../recorder/store/event-store.js';
import { redactEvent } from './export-common.js';

/** How often written bytes are fsynced (ms); README.md's `--record` says 250. */
const SYNC_MS = 250;

export interface RecordToFileOptions {
  /** Export-time redaction applied to every event before it is written (see export-common.ts). */
  redactor?: Redactor;
  /** Called once if writing fails (disk full…); recording then stops. Default: a process warning. */
  onError?: (error: Error) => void;
  /** Told about a record file whose permissions were narrowed. Default: a process warning. */
  warn?: (text: string) => void;
  /** A descriptor already open on `path` (tests: a /dev/full, which fails every write, is not a file mcpscope opens). */
  fd?: number;
}

/**
 * Opens `path` for append (creating it), writes the events already in the store, then every
 * committed batch. Returns a function that stops recording and closes the file (idempotent).
 */
export function recordToFile(store: EventStore, path: string, options: RecordToFileOptions = {}): () => void {
  let fd: number | undefined = options.fd ?? openPrivateAppend(path, 'record file', options.warn);
  /** Bytes written since the last fsync. */
  let unsynced = false;
  const sync = () => {
    if (fd === undefined || !unsynced) return;
    unsynced = false;
    try {
      fsyncSync(fd);
    } catch {
      /* a file system without fsync: the bytes are in the kernel all the same */
    }
  };
  const syncTimer = setInterval(sync, SYNC_MS);
  syncTimer.unref();
  const serialise = (events: readonly McpscopeEvent[]): string => {
    let text = '';
    for (const e of events) text += `${JSON.stringify(options.redactor ? redactEvent(e, options.redactor) : e)}\n`;
    return text;
  };
  const write = (events: readonly McpscopeEvent[]): void => {
    if (fd === undefined || events.length === 0) return;
    const bytes = Buffer.from(serialise(events), 'utf8');
    try {
      let at = 0;
      while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
      unsynced = true;
    } catch (err) {
      stop();
      const error = new Error(`mcpscope stopped recording to ${path}: ${(err as Error).message}`);
      if (options.onError) options.onError(error);
      else process.emitWarning(error.message);
    }
  };

  write(store.snapshot());
  const unsubscribe = store.subscribe(write, 'the --record file');
  function stop(): void {
    unsubscribe();
    clearInterval(syncTimer);
    sync();
    if (fd === undefined) return;
    const f = fd;
    fd = undefined;
    try {
      closeSync(f);
    } catch {
      /* already closed */
    }
  }
  return stop;
}
