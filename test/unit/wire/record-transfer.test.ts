import { describe, expect, it } from 'vitest';
import { MessageChannel } from 'node:worker_threads';
import { packRecords, unpackRecords, type PackedBatch } from '../../../proxy/wire/capture/record-transfer.js';
import type { WireRecord } from '../../../proxy/wire/capture/wire-records.js';

const records = (): WireRecord[] => {
  // A chunk that views the middle of a larger buffer, as socket reads and Node's pool give.
  const big = Buffer.from('xxxxHELLOyyyy');
  return [
    {
      t: 'request',
      xid: 'x1',
      ts: 1.5,
      method: 'POST',
      url: '/mcp?a=1',
      upstreamUrl: 'http://u/mcp?a=1',
      headers: { 'content-type': 'application/json', cookie: ['a', 'b'] },
      proxyOrigin: 'http://p',
      target: 'http://u/mcp',
    },
    { t: 'request-chunk', xid: 'x1', ts: 2, chunk: big.subarray(4, 9) },
    { t: 'request-end', xid: 'x1', ts: 3 },
    { t: 'response-chunk', xid: 'x1', ts: 4, chunk: new Uint8Array(0) },
    { t: 'response-chunk', xid: 'x1', ts: 5, chunk: Buffer.from('data: {}\n\n') },
    { t: 'overflow', xid: 'x1', ts: 6, droppedBytes: 10 },
    { t: 'stdio-chunk', xid: 'p1', ts: 7, dir: 's2c', chunk: Buffer.from([0, 255, 10]) },
  ];
};

const plain = (rs: WireRecord[]) => rs.map((r) => ('chunk' in r ? { ...r, chunk: [...r.chunk] } : r));

describe('record transfer across threads', () => {
  it('packs chunks back to back into one buffer holding only their bytes', () => {
    const batch = packRecords(records());
    expect(batch.bytes.byteLength).toBe(5 + 0 + 10 + 3);
    expect(Buffer.from(batch.bytes).toString('latin1')).toBe('HELLOdata: {}\n\n\u0000\u00ff\n');
    expect(batch.records.some((r) => 'chunk' in r)).toBe(false);
  });

  it('round-trips every record, in order, with Buffer chunks', () => {
    const back = unpackRecords(packRecords(records()));
    expect(plain(back)).toEqual(plain(records()));
    for (const r of back) if ('chunk' in r) expect(Buffer.isBuffer(r.chunk)).toBe(true);
  });

  it('survives a real postMessage with the buffer transferred (the sender keeps nothing)', async () => {
    const { port1, port2 } = new MessageChannel();
    const batch = packRecords(records());
    const got = new Promise<PackedBatch>((resolve) => port2.once('message', resolve));
    port1.postMessage(batch, [batch.bytes]);
    expect(batch.bytes.byteLength).toBe(0); // detached: transferred, not copied
    const back = unpackRecords(await got);
    port1.close();
    expect(plain(back)).toEqual(plain(records()));
  });

  it('an empty batch, and a batch without chunks, pack to an empty buffer', () => {
    expect(packRecords([]).bytes.byteLength).toBe(0);
    const only = records().filter((r) => !('chunk' in r));
    const batch = packRecords(only);
    expect(batch.bytes.byteLength).toBe(0);
    expect(unpackRecords(batch)).toEqual(only);
  });
});
