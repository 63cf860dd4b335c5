/**
 * Token estimates for the context cost of model turns: a cache on the main thread in
 * front of the tokenizer thread (token-worker.ts), started on first use. `count` answers from the
 * cache at once, or undefined; `want` sends what is missing, and `onCounted` fires when counts
 * come back, so the recorder can finish the turns that waited. Tool definitions repeat in every
 * request of a conversation, so after the first turn nearly every text is a hit.
 *
 * Bounded: the cache keeps at most 8 M characters of text (then starts over), one batch is in
 * flight at a time, the queue holds 50,000 texts (past it, texts are dropped: those turns get no
 * estimate). A tokenizer thread that fails is not restarted: `failed` says why, and no estimate is
 * given from then on.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../wire/thread/start-worker.js';

export const O200K = 'o200k_base (gpt-tokenizer)';

export interface TokenCounter {
  /** The encoding the counts are in, named in every estimate. */
  readonly encoding: string;
  count(text: string): number | undefined;
  want(texts: string[]): void;
  onCounted: (() => void) | undefined;
  /** Why there are no counts, once the tokenizer failed. */
  readonly failed: string | undefined;
  /** Resolves when nothing is waiting to be counted (tests, bench). */
  settled(): Promise<void>;
  close(): void;
}

const MAX_CACHED_CHARS = 8 * 1024 * 1024;
const MAX_QUEUED = 50_000;

export class WorkerTokenCounter implements TokenCounter {
  readonly encoding = O200K;
  onCounted: (() => void) | undefined;
  failed: string | undefined;
  private worker: Worker | undefined;
  private readonly cache = new Map<string, number>();
  private cachedChars = 0;
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private inFlight: string[] | undefined;
  private nextId = 1;
  private waiters: (() => void)[] = [];

  count(text: string): number | undefined {
    return this.cache.get(text);
  }

  want(texts: string[]): void {
    if (this.failed) return;
    for (const t of texts) {
      if (this.cache.has(t) || this.queued.has(t) || this.queue.length >= MAX_QUEUED) continue;
      this.queue.push(t);
      this.queued.add(t);
    }
    this.pump();
  }

  settled(): Promise<void> {
    if (this.failed || (this.queue.length === 0 && !this.inFlight)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  close(): void {
    void this.worker?.terminate();
    this.worker = undefined;
    this.queue.length = 0;
    this.queued.clear();
    this.inFlight = undefined;
    this.wake();
  }

  private pump(): void {
    if (this.inFlight || this.queue.length === 0 || this.failed) return;
    const worker = this.ensureWorker();
    if (!worker) return;
    const batch = this.queue.splice(0, 2000);
    this.inFlight = batch;
    worker.postMessage({ id: this.nextId++, texts: batch });
  }

  private ensureWorker(): Worker | undefined {
    if (this.worker) return this.worker;
    try {
      const w = startWorker(new URL('./token-worker.js', import.meta.url), {});
      w.unref();
      w.on('message', (msg: { counts: number[] }) => this.onCounts(msg.counts));
      w.on('error', (err) => this.fail(`the tokenizer thread failed (${err.message})`));
      w.on('exit', (code) => {
        if (this.worker === w && code !== 0) this.fail(`the tokenizer thread exited (code ${code})`);
      });
      this.worker = w;
      return w;
    } catch (err) {
      this.fail(`the tokenizer thread could not start (${(err as Error).message})`);
      return undefined;
    }
  }

  private onCounts(counts: number[]): void {
    const batch = this.inFlight ?? [];
    this.inFlight = undefined;
    for (let i = 0; i < batch.length; i++) {
      const text = batch[i];
      this.queued.delete(text);
      const n = counts[i];
      if (typeof n !== 'number' || n < 0) continue;
      if (this.cachedChars + text.length > MAX_CACHED_CHARS) {
        this.cache.clear();
        this.cachedChars = 0;
      }
      this.cache.set(text, n);
      this.cachedChars += text.length;
    }
    this.pump();
    try {
      this.onCounted?.();
    } finally {
      if (!this.inFlight) this.wake();
    }
  }

  private fail(why: string): void {
    if (this.failed) return;
    this.failed = why;
    this.worker = undefined;
    this.queue.length = 0;
    this.queued.clear();
    this.inFlight = undefined;
    this.wake();
    this.onCounted?.();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}
