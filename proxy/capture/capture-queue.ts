import type { WireRecord } from './wire-records.js';

export interface CaptureQueueOptions {
  /**
   * Bytes of chunk data allowed to wait for the consumer. Past this, chunk payloads are dropped
   * (the traffic itself is untouched — it was forwarded already) and an `overflow` record says so.
   */
  maxQueuedBytes?: number;
}

/**
 * The hand-off between the hot path and everything else. `push` is O(1) and never blocks; the
 * consumer runs on a later turn of the event loop (setImmediate), with every record queued so
 * far, in the order they were pushed — which is wire order.
 */
export class CaptureQueue {
  private queue: WireRecord[] = [];
  private queuedBytes = 0;
  private scheduled = false;
  private readonly maxQueuedBytes: number;
  /** Chunk bytes dropped per exchange since the last drain. */
  private dropped = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly consume: (records: WireRecord[]) => void,
    options: CaptureQueueOptions = {},
  ) {
    this.maxQueuedBytes = options.maxQueuedBytes ?? 256 * 1024 * 1024;
  }

  push(record: WireRecord): void {
    if (this.closed) return;
    if (record.t === 'request-chunk' || record.t === 'response-chunk') {
      const size = record.chunk.byteLength;
      if (this.queuedBytes + size > this.maxQueuedBytes) {
        this.dropped.set(record.xid, (this.dropped.get(record.xid) ?? 0) + size);
        this.schedule();
        return;
      }
      this.queuedBytes += size;
    }
    this.queue.push(record);
    this.schedule();
  }

  /** Runs the consumer now on whatever is queued (used by tests and on shutdown). */
  flush(): void {
    if (this.queue.length === 0 && this.dropped.size === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    if (this.dropped.size > 0) {
      const ts = Date.now();
      for (const [xid, droppedBytes] of this.dropped) batch.push({ t: 'overflow', xid, ts, droppedBytes });
      this.dropped = new Map();
    }
    this.consume(batch);
  }

  close(): void {
    this.flush();
    this.closed = true;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      try {
        this.flush();
      } catch (err) {
        // The recorder must never take the proxy down. Report and keep going.
        process.emitWarning(`mcpscope recorder failed on a batch: ${(err as Error).stack ?? err}`);
      }
    });
  }
}
