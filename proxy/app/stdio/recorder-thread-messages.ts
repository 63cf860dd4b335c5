/**
 * What the stdio wrapper's relay (its main thread, stdio-wrapper.ts) and its recorder thread
 * (recorder-worker.ts) tell each other. Records cross as packed batches (one transferred buffer
 * of chunks each, wire/capture/record-transfer.ts), in wire order; the breakpoint control messages of
 * the `/ingest` socket (ingest-control.ts) are passed through as they are, in order with them.
 */
import type { PackedBatch } from '../../wire/capture/record-transfer.js';
import type { ControlDown, ControlUp } from './ingest-control.js';
import type { StdioWrapperOptions } from './stdio-wrapper.js';

/**
 * What the recorder thread is started with: the wrapper's options but its streams (they stay on
 * the relay), and the server process it records.
 */
export type RecorderThreadConfig = Omit<StdioWrapperOptions, 'stdin' | 'stdout' | 'stderr'> & {
  /** The server's process, for its `stdio-start`. */
  pid?: number;
  cwd: string;
  startedAt: number;
  /** The process's xid in the wrapper's records. */
  xid: string;
  /**
   * Shared with the relay: [0] chunk bytes posted and not yet taken here (the relay's queue counts
   * them against its bound), [1] when this thread last took a batch (ms), for the relay's watchdog.
   */
  shared: SharedArrayBuffer;
};

export type ToRecorderThread =
  | { type: 'records'; batch: PackedBatch }
  /** A control message for the UI (a held line, a send's answer…), after the records before it. */
  | { type: 'control'; message: ControlUp }
  /** The process has exited and its last records were posted: deliver them (for `drainMs` at most), close, answer `finished`. */
  | { type: 'finish'; drainMs: number };

export type FromRecorderThread =
  /** A line for the wrapper's stderr (`raw`: as it is, without the `mcpscope: ` prefix). */
  | { type: 'say'; line: string; raw?: boolean }
  /** A control message from the UI (rules, an action, a send). */
  | { type: 'control'; message: ControlDown }
  /** A UI link is up (the relay reports what it holds), or gone (what it holds goes on). */
  | { type: 'linked' }
  | { type: 'unlinked' }
  /** This thread serves the UI on `port` with `token` (its discovery file names this process). */
  | { type: 'serving'; port: number; token: string }
  | { type: 'finished'; droppedBytes: number };
