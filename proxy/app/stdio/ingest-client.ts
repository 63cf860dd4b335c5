/**
 * The stdio wrapper's side of `/ingest`, on its recorder thread (recorder-worker.ts): a bounded
 * queue of wire records, delivered in batches to the mcpscope UI the wrapper is linked to over a
 * WebSocket (JSON batches, chunks in base64, see proxy/wire/capture/wire-codec.ts) — whether that UI
 * is another process's or the one this wrapper serves itself.
 *
 * `push` is O(1) and never blocks. Batches go out every `flushMs` or as soon as `batchBytes` are
 * waiting. While there is no link, or the socket's unsent buffer is full, records wait; past
 * `maxQueuedBytes` chunk payloads are dropped and counted, and an `overflow` record tells the
 * recorder where bytes went missing. Every new link is opened with the `hello` records (the
 * process's `stdio-start`), so a UI that restarted learns about the process again.
 *
 * A link `acked` by its UI (a wrapper with --log, and a UI that says `recorded`, ingest.ts) keeps
 * what it sent until the UI says it is recorded (`ack`), counted against the same bound: when the
 * link goes, what the UI never recorded is sent again on the next link, behind its hello, so that
 * neither the next UI nor the log loses what was in flight.
 *
 * `connectIngest` opens the socket and checks, before it hands it over, that the UI proves it
 * knows the token (`hello` with a fresh nonce → `proof`, ingest-control.ts): nothing is sent to a
 * program on the port that cannot.
 */
import WebSocket from 'ws';
import { encodeBatch, type IngestRecord } from '../../wire/capture/wire-codec.js';
import { chunkStream, type StdioStream } from '../../wire/capture/wire-records.js';
import { INGEST_AUTH_HEADER, checkIngestProof, ingestAuth, ingestNonce, parseControlDown } from './ingest-control.js';

/** What the client sends on: a WebSocket (tests give a stand-in). */
export type IngestSocket = Pick<WebSocket, 'send' | 'bufferedAmount' | 'readyState'>;

export interface IngestClientOptions {
  /** The records that open every link; `joined` is true from the second link on. */
  hello: (joined: boolean) => IngestRecord[];
  /** Chunk bytes allowed to wait for the link (default 32 MiB). */
  maxQueuedBytes?: number;
  /** Chunk bytes per batch (default 256 KiB). */
  batchBytes?: number;
  /** How long records may wait to be batched (default 20 ms). */
  flushMs?: number;
  /** Stop sending while the socket holds this many unsent bytes (default 8 MiB). */
  maxBufferedBytes?: number;
}

type Overflow = Extract<IngestRecord, { t: 'overflow' }>;

function sizeOf(r: IngestRecord): number {
  return 'chunk' in r ? r.chunk.byteLength : 0;
}

export class IngestClient {
  private queue: IngestRecord[] = [];
  private queuedBytes = 0;
  /** Streams losing bytes right now → their overflow record (still queued). */
  private dropping = new Map<StdioStream, Overflow>();
  private target?: IngestSocket;
  private links = 0;
  /** Sent on an acked link and not yet said to be recorded, oldest first; and the count of this link's records said to be. */
  private unacked: IngestRecord[] = [];
  private unackedBytes = 0;
  private acking = false;
  private ackedThrough = 0;
  private timer?: NodeJS.Timeout;
  private immediate?: NodeJS.Immediate;
  private readonly maxQueuedBytes: number;
  private readonly batchBytes: number;
  private readonly flushMs: number;
  private readonly maxBufferedBytes: number;
  /** Chunk bytes that were never delivered. */
  droppedBytes = 0;

  constructor(private readonly options: IngestClientOptions) {
    this.maxQueuedBytes = options.maxQueuedBytes ?? 32 * 1024 * 1024;
    this.batchBytes = options.batchBytes ?? 256 * 1024;
    this.flushMs = options.flushMs ?? 20;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 8 * 1024 * 1024;
  }

  get linked(): boolean {
    return this.target !== undefined;
  }

  get pending(): number {
    return this.queue.length;
  }

  push(record: IngestRecord): void {
    if ('chunk' in record) {
      const size = record.chunk.byteLength;
      const stream = chunkStream(record) as StdioStream;
      const overflow = this.dropping.get(stream);
      if (overflow) {
        overflow.droppedBytes += size;
        this.droppedBytes += size;
        return;
      }
      if (this.queuedBytes + this.unackedBytes + size > this.maxQueuedBytes) {
        const o: Overflow = { t: 'overflow', xid: record.xid, ts: Date.now(), droppedBytes: size, stream };
        this.dropping.set(stream, o);
        this.queue.push(o);
        this.droppedBytes += size;
        this.schedule();
        return;
      }
      this.queuedBytes += size;
    }
    this.queue.push(record);
    this.schedule();
  }

  /**
   * Starts delivering to `target` (its hello records first). `acked`: its UI says which records
   * it has recorded (`ack`); until then they are kept, to be sent again if the link goes.
   */
  attach(target: IngestSocket, options: { acked?: boolean } = {}): void {
    this.requeueUnacked();
    this.target = target;
    this.acking = options.acked === true;
    this.ackedThrough = 0;
    this.queue.unshift(...this.options.hello(this.links > 0));
    this.links += 1;
    this.flush();
  }

  /** The link is gone: records wait (bounded) for the next one, those its UI did not say it recorded first. */
  detach(target?: IngestSocket): void {
    if (target && this.target !== target) return;
    this.target = undefined;
    this.cancelTimers();
    this.requeueUnacked();
  }

  /** The UI has recorded the first `through` records of this link. */
  ack(through: number): void {
    if (!this.acking || through <= this.ackedThrough) return;
    const n = Math.min(this.unacked.length, through - this.ackedThrough);
    for (const r of this.unacked.splice(0, n)) this.unackedBytes -= sizeOf(r);
    this.ackedThrough = through;
  }

  /** Records no UI has said it recorded: sent and waiting for the word, then queued (copies of the lists, in order). */
  unconfirmed(): IngestRecord[] {
    return [...this.unacked.filter((r) => r.t !== 'stdio-start'), ...this.queue];
  }

  /** What an acked link sent and its UI never said it recorded goes first on the next (its hello aside: the next has its own). */
  private requeueUnacked(): void {
    this.acking = false;
    if (this.unacked.length === 0) return;
    const again = this.unacked.filter((r) => r.t !== 'stdio-start');
    this.unacked = [];
    this.queue.unshift(...again);
    this.queuedBytes += this.unackedBytes;
    this.unackedBytes = 0;
  }

  /** Sends everything possible now. */
  flush(): void {
    this.cancelTimers();
    const ws = this.target;
    if (!ws) return;
    while (this.queue.length > 0 && ws.readyState === WebSocket.OPEN && ws.bufferedAmount < this.maxBufferedBytes) {
      let n = 0;
      let bytes = 0;
      while (n < this.queue.length && (n === 0 || bytes + sizeOf(this.queue[n]) <= this.batchBytes)) bytes += sizeOf(this.queue[n++]);
      ws.send(encodeBatch(this.take(n)));
    }
    // Left over: the socket is backed up (or closing); look again shortly.
    if (this.queue.length > 0 && ws.readyState === WebSocket.OPEN) this.timer = setTimeout(() => this.flush(), this.flushMs);
  }

  /**
   * Resolves true once everything queued has been handed to the link (and, for a socket, written
   * out; on an acked link, said to be recorded), false when that did not happen within `timeoutMs`.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.flush();
      const done = this.queue.length === 0 && this.target !== undefined && this.target.bufferedAmount === 0 && this.unacked.length === 0;
      if (done) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  private take(n: number): IngestRecord[] {
    const batch = this.queue.splice(0, n);
    for (const r of batch) {
      this.queuedBytes -= sizeOf(r);
      if (r.t === 'overflow' && r.stream && this.dropping.get(r.stream) === r) this.dropping.delete(r.stream);
      if (this.acking) {
        this.unacked.push(r);
        this.unackedBytes += sizeOf(r);
      }
    }
    return batch;
  }

  private schedule(): void {
    if (!this.target) return;
    if (this.queuedBytes >= this.batchBytes) {
      this.immediate ??= setImmediate(() => {
        this.immediate = undefined;
        this.flush();
      });
    } else {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.flushMs);
    }
  }

  private cancelTimers(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
  }
}

export type ConnectResult =
  /** Linked, the UI's proof checked. `listen` takes its control messages (from the first after the proof on). */
  /** `exports`: that mcpscope exports OpenTelemetry (its proof says so); `records`: it sends `recorded` when asked (ingest-control.ts). */
  | { ok: true; ws: WebSocket; exports: boolean; records: boolean; listen(onText: (text: string) => void): void }
  /** Nothing listens on the port. */
  | { ok: false; refused: true; message: string }
  /**
   * Something answered, but not as an mcpscope that accepts us (HTTP status, or another failure);
   * `unproven`: it did not prove it knows the token (nothing was sent to it, the token least of
   * all); `wrongProof`: its proof was for another token (a UI started anew, its file on the way).
   */
  | { ok: false; refused: false; status?: number; unproven?: true; wrongProof?: true; message: string };

function textOf(data: WebSocket.RawData): string {
  return Buffer.isBuffer(data)
    ? data.toString('utf8')
    : Array.isArray(data)
      ? Buffer.concat(data).toString('utf8')
      : Buffer.from(data).toString('utf8');
}

/**
 * Opens `/ingest` on the UI at `host:port`, says `hello` with a fresh nonce, checks the UI's
 * `proof` against `token` and answers its nonce with `auth` (within `timeoutMs` of the upgrade);
 * the token itself is never sent. `log`: the hello asks for what the UI records of this wrapper's
 * processes (`recorded`). Never rejects.
 */
export function connectIngest(
  host: string,
  port: number,
  token: string | undefined,
  timeoutMs = 5_000,
  options: { log?: boolean } = {},
): Promise<ConnectResult> {
  return new Promise((resolve) => {
    // The token never goes on the wire: the UI proves it knows it first, then the wrapper does (ingest-control.ts).
    const headers: Record<string, string> = { [INGEST_AUTH_HEADER]: 'challenge' };
    const ws = new WebSocket(`ws://${host.includes(':') ? `[${host}]` : host}:${port}/ingest`, {
      headers,
      handshakeTimeout: timeoutMs,
      perMessageDeflate: false,
    });
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (r: ConnectResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const unproven = (why: string, wrongProof = false) => {
      settle({
        ok: false,
        refused: false,
        unproven: true,
        ...(wrongProof ? { wrongProof: true as const } : {}),
        message: `it did not prove that it knows the token (${why})`,
      });
      ws.terminate();
    };
    ws.once('open', () => {
      const nonce = ingestNonce();
      timer = setTimeout(() => unproven(`no proof within ${timeoutMs} ms`), timeoutMs);
      // Messages after the proof wait here until the caller listens (ws may emit them in the same turn).
      const early: string[] = [];
      let forward: ((text: string) => void) | undefined;
      ws.on('message', (data, isBinary) => {
        if (settled) {
          if (isBinary) return;
          const text = textOf(data);
          if (forward) forward(text);
          else early.push(text);
          return;
        }
        const m = isBinary ? undefined : parseControlDown(textOf(data));
        if (!token || m?.type !== 'proof') return unproven('its first message was not a proof');
        if (!checkIngestProof(token, nonce, m.hmac)) return unproven('its proof is wrong', true);
        if (m.nonce === undefined) return unproven('it asked for no proof of ours');
        ws.send(JSON.stringify({ type: 'auth', hmac: ingestAuth(token, m.nonce) }));
        settle({
          ok: true,
          ws,
          exports: m.exports === true,
          records: m.records === true,
          listen(onText) {
            forward = onText;
            for (const text of early.splice(0)) onText(text);
          },
        });
      });
      ws.once('close', () => unproven('it closed the connection'));
      ws.send(JSON.stringify({ type: 'hello', nonce, ...(options.log ? { log: true } : {}) }));
    });
    ws.once('unexpected-response', (_req, res) => {
      settle({ ok: false, refused: false, status: res.statusCode, message: `HTTP ${res.statusCode} on /ingest` });
      res.resume();
      ws.terminate();
    });
    ws.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') settle({ ok: false, refused: true, message: err.message });
      else settle({ ok: false, refused: false, message: err.message });
    });
  });
}
