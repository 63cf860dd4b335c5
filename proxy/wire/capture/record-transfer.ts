/**
 * Wire records across a thread boundary (the proxy thread → the recorder on the main thread,
 * proxy/wire/thread/proxy-thread.ts). A batch's chunk bytes are copied once into one fresh
 * ArrayBuffer that is transferred, not cloned: a chunk that is a view into a larger buffer (a
 * socket read, Node's buffer pool) would otherwise drag the whole underlying buffer along. Each
 * record keeps its place in the batch, so wire order is kept.
 */
import { isChunkRecord, type WireRecord } from './wire-records.js';

/** A record whose chunk travels as a slice of the batch's buffer. */
type PackedRecord = WireRecord | (Omit<Extract<WireRecord, { chunk: Uint8Array }>, 'chunk'> & { chunkAt: number; chunkLength: number });

export interface PackedBatch {
  records: PackedRecord[];
  /** Every chunk of the batch, back to back. */
  bytes: ArrayBuffer;
}

/** Packs a batch for `postMessage(batch, [batch.bytes])`. */
export function packRecords(records: readonly WireRecord[]): PackedBatch {
  let total = 0;
  for (const r of records) if (isChunkRecord(r)) total += r.chunk.byteLength;
  const bytes = new ArrayBuffer(total);
  const view = new Uint8Array(bytes);
  let at = 0;
  const packed: PackedRecord[] = records.map((r) => {
    if (!isChunkRecord(r)) return r;
    const { chunk, ...rest } = r;
    view.set(chunk, at);
    const p = { ...rest, chunkAt: at, chunkLength: chunk.byteLength } as PackedRecord;
    at += chunk.byteLength;
    return p;
  });
  return { records: packed, bytes };
}

/** The records of a packed batch; chunks are Buffers viewing the batch's buffer (no copy). */
export function unpackRecords(batch: PackedBatch): WireRecord[] {
  return batch.records.map((r) => {
    if (!('chunkAt' in r)) return r;
    const { chunkAt, chunkLength, ...rest } = r;
    return { ...rest, chunk: Buffer.from(batch.bytes, chunkAt, chunkLength) } as WireRecord;
  });
}
