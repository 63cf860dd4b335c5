/**
 * The relay's side of the stdio wrapper's recorder thread (recorder-worker.ts): the taps push
 * records here (O(1), a CaptureQueue as on the HTTP proxy thread); every 20 ms, or at 256 KiB,
 * the batch is packed into one buffer and transferred (wire/capture/record-transfer.ts). Bounded: the
 * bytes posted and not yet taken by the thread count against 32 MiB with the queue's own, and past
 * that chunks are dropped (never the traffic), counted, and an `overflow` record says where.
 *
 * A recorder thread that is stuck (it has taken nothing for 5 s while records wait) or dies is
 * said once on stderr; the relay goes on, and what it could not record is counted. At the end
 * (`finish`) the thread gets a bound to deliver and close; past it, it is terminated — and the
 * discovery file of a UI it served, which it can no longer remove, is removed here.
 */
import type { Worker } from 'node:worker_threads';
import { CaptureQueue } from '../../wire/capture/capture-queue.js';
import { packRecords } from '../../wire/capture/record-transfer.js';
import type { IngestRecord } from '../../wire/capture/wire-codec.js';
import { isChunkRecord, type WireRecord } from '../../wire/capture/wire-records.js';
import { removeOwnDiscovery } from '../serve/discovery.js';
import { startWorker } from '../../wire/thread/start-worker.js';
import type { ControlDown, ControlUp } from './ingest-control.js';
import type { FromRecorderThread, RecorderThreadConfig, ToRecorderThread } from './recorder-thread-messages.js';

export interface RecorderThreadHooks {
  /** A line for stderr, as it is. */
  write(text: string): void;
  control(m: ControlDown): void;
  linked(): void;
  unlinked(): void;
}

export interface RecorderThread {
  /** O(1): queues a record for the thread. */
  push(record: IngestRecord): void;
  /** A control message for the UI, after every record pushed before it. */
  control(m: ControlUp): void;
  /**
   * The last records were pushed: lets the thread deliver them (`drainMs`) and close, waiting
   * `boundMs` at most. Resolves with the chunk bytes that were relayed but not recorded.
   */
  finish(drainMs: number, boundMs: number): Promise<number>;
}

/** Chunk bytes that may wait for the recorder thread (queued here or posted and not yet taken). */
const MAX_BEHIND_BYTES = 32 * 1024 * 1024;
/** A thread that has taken nothing for this long, with records waiting, is said to be stuck. */
const STUCK_MS = 5_000;

function spawnWorker(config: RecorderThreadConfig): Worker {
  // stdout: the worker's own is never the process's (that one carries the server's bytes only).
  return startWorker(new URL('./recorder-worker.js', import.meta.url), { workerData: config, stdout: true, stderr: true });
}

export function startRecorderThread(config: Omit<RecorderThreadConfig, 'shared'>, hooks: RecorderThreadHooks): RecorderThread {
  const shared = new BigInt64Array(new SharedArrayBuffer(16));
  const worker = spawnWorker({ ...config, shared: shared.buffer as SharedArrayBuffer });
  const say = (line: string) => hooks.write(`mcpscope: ${line}\n`);
  worker.stdout.on('data', (c: Buffer) => hooks.write(c.toString('utf8')));
  worker.stderr.on('data', (c: Buffer) => hooks.write(c.toString('utf8')));

  let dead = false;
  let lost = 0;
  let saidBehind = false;
  let serving: { port: number; token: string } | undefined;
  let finished: ((dropped: number) => void) | undefined;

  const queue = new CaptureQueue(
    (records: WireRecord[]) => {
      for (const r of records) if (r.t === 'overflow') lost += r.droppedBytes;
      if (dead) {
        for (const r of records) if (isChunkRecord(r)) lost += r.chunk.byteLength;
        return;
      }
      if (!saidBehind && records.some((r) => r.t === 'overflow')) {
        saidBehind = true;
        say(
          `the recorder thread has fallen ${MAX_BEHIND_BYTES / 1024 / 1024} MiB behind: the server keeps running, and what does not fit is not recorded (counted at the end).`,
        );
      }
      const batch = packRecords(records);
      Atomics.add(shared, 0, BigInt(batch.bytes.byteLength));
      worker.postMessage({ type: 'records', batch } satisfies ToRecorderThread, [batch.bytes]);
    },
    { maxQueuedBytes: MAX_BEHIND_BYTES, pendingBytes: () => Number(Atomics.load(shared, 0)), delayMs: 20, flushAtBytes: 256 * 1024 },
  );

  // The watchdog: records waiting, and none taken for STUCK_MS.
  let lastTaken = 0n;
  let progressAt = Date.now();
  let saidStuck = false;
  const watchdog = setInterval(() => {
    const taken = Atomics.load(shared, 1);
    if (Atomics.load(shared, 0) === 0n || taken !== lastTaken) {
      lastTaken = taken;
      progressAt = Date.now();
      return;
    }
    if (!saidStuck && !dead && Date.now() - progressAt >= STUCK_MS) {
      saidStuck = true;
      say(
        `the recorder thread has taken no records for ${STUCK_MS / 1000} s (it may be stuck on a message): the server keeps running; records wait, up to ${MAX_BEHIND_BYTES / 1024 / 1024} MiB, then are dropped and counted.`,
      );
    }
  }, 1_000);
  watchdog.unref();

  const gone = (why: string) => {
    if (dead) return;
    dead = true;
    lost += Number(Atomics.load(shared, 0));
    if (serving) removeOwnDiscovery(serving.port, serving.token);
    if (!finished) say(`the recorder thread stopped (${why}): the server keeps running, unrecorded from here on.`);
    hooks.unlinked();
    finished?.(0);
  };
  worker.on('error', (err) => gone(err.message));
  worker.on('exit', (code) => gone(`exit code ${code}`));
  worker.on('message', (m: FromRecorderThread) => {
    switch (m.type) {
      case 'say':
        return m.raw ? hooks.write(`${m.line}\n`) : say(m.line);
      case 'control':
        return hooks.control(m.message);
      case 'linked':
        return hooks.linked();
      case 'unlinked':
        return hooks.unlinked();
      case 'serving':
        serving = { port: m.port, token: m.token };
        return;
      case 'finished':
        return finished?.(m.droppedBytes);
    }
  });

  return {
    push: (record) => queue.push(record),
    control(m) {
      if (dead) return;
      queue.flush();
      worker.postMessage({ type: 'control', message: m } satisfies ToRecorderThread);
    },
    async finish(drainMs, boundMs) {
      queue.close();
      clearInterval(watchdog);
      let dropped = 0;
      if (!dead) {
        const done = new Promise<number>((resolve) => (finished = resolve));
        worker.postMessage({ type: 'finish', drainMs } satisfies ToRecorderThread);
        let timer: NodeJS.Timeout | undefined;
        const bound = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), boundMs)));
        const answer = await Promise.race([done, bound]);
        clearTimeout(timer);
        if (answer === undefined) {
          say(`the recorder thread did not finish within ${boundMs / 1000} s; it was stopped, and what it had not yet recorded is lost.`);
          lost += Number(Atomics.load(shared, 0));
        } else dropped = answer;
      }
      finished = () => undefined;
      dead = true;
      await worker.terminate();
      if (serving) removeOwnDiscovery(serving.port, serving.token);
      return lost + dropped;
    },
  };
}
