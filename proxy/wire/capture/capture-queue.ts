import { chunkStream, isChunkRecord, type WireRecord } from './wire-records.js';

export interface CaptureQueueOptions {
  /**
   * Bytes of chunk data allowed to wait for the consumer. Past this, chunk payloads are dropped
   * (the traffic itself is untouched — it was forwarded already) and an `overflow` record says so.
   */
  maxQueuedBytes?: number;
  /**
   * Chunk bytes handed to the consumer that it has not yet confirmed (the proxy thread's batches
   * on their way to the main thread); they count against `maxQueuedBytes` too.
   */
  pendingBytes?: () => number;
  /**
   * Wait this long after the first record before handing a batch over (default 0: the next turn
   * of the event loop). The proxy thread waits a few milliseconds so that an exchange's records
   * cross to the main thread in one message rather than one per turn.
   */
  delayMs?: number;
  /** With `delayMs`: once this many chunk bytes are queued, hand the batch over on the next turn instead. */
  flushAtBytes?: number;
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
  private readonly pendingBytes: () => number;
  private readonly delayMs: number;
  private readonly flushAtBytes: number;
  private timer: NodeJS.Timeout | undefined;
  /**
   * Byte streams (`${stream}|${xid}`: a request or response body, a stdio stream) that lost chunk bytes since the last drain → their `overflow` record, queued where
   * the first bytes went missing (so it reaches the consumer before the exchange's end, and before
   * any later chunk that would otherwise be parsed across the gap).
   */
  private dropped = new Map<string, Extract<WireRecord, { t: 'overflow' }>>();
  private closed = false;

  constructor(
    private readonly consume: (records: WireRecord[]) => void,
    options: CaptureQueueOptions = {},
  ) {
    this.maxQueuedBytes = options.maxQueuedBytes ?? 256 * 1024 * 1024;
    this.pendingBytes = options.pendingBytes ?? (() => 0);
    this.delayMs = options.delayMs ?? 0;
    this.flushAtBytes = options.flushAtBytes ?? Infinity;
  }

  push(record: WireRecord): void {
    if (this.closed) return;
    if (isChunkRecord(record)) {
      const size = record.chunk.byteLength;
      const stream = chunkStream(record);
      const key = `${stream}|${record.xid}`;
      const overflow = this.dropped.get(key);
      if (overflow) {
        // Once a body lost bytes, its later chunks are dropped too until the drain: the consumer
        // could not parse them after the gap anyway.
        overflow.droppedBytes += size;
        return;
      }
      if (this.queuedBytes + size + this.pendingBytes() > this.maxQueuedBytes) {
        const overflowRecord: Extract<WireRecord, { t: 'overflow' }> = {
          t: 'overflow',
          xid: record.xid,
          ts: Date.now(),
          droppedBytes: size,
        };
        if (stream === 'c2s' || stream === 's2c' || stream === 'stderr') overflowRecord.stream = stream;
        this.dropped.set(key, overflowRecord);
        this.queue.push(overflowRecord);
        this.schedule();
        return;
      }
      this.queuedBytes += size;
    }
    this.queue.push(record);
    this.schedule();
    if (this.timer !== undefined && this.queuedBytes >= this.flushAtBytes) {
      // Enough bytes for one message: don't let them wait for the timer.
      clearTimeout(this.timer);
      this.timer = undefined;
      setImmediate(() => this.drain());
    }
  }

  /** Nothing waits for the consumer: every record pushed so far has been handed to it. */
  get idle(): boolean {
    return this.queue.length === 0;
  }

  /** Runs the consumer now on whatever is queued (used by tests and on shutdown). */
  flush(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    this.dropped = new Map();
    this.consume(batch);
  }

  close(): void {
    this.flush();
    this.closed = true;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    if (this.delayMs > 0) this.timer = setTimeout(() => this.drain(), this.delayMs);
    else setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    try {
      this.flush();
    } catch (err) {
      // The recorder must never take the proxy down. Report and keep going.
      process.emitWarning(`mcpscope recorder failed on a batch: ${(err as Error).stack ?? err}`);
    }
  }
}
