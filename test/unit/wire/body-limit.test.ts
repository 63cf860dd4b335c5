import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { BodyLimit } from '../../../proxy/wire/capture/body-limit.js';
import { BodyReader } from '../../../proxy/core/parse/body-reader.js';
import type { WireRecord } from '../../../proxy/wire/capture/wire-records.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);
const res = (contentType: string): WireRecord => ({
  t: 'response',
  xid: 'x1',
  ts: 1,
  status: 200,
  headers: { 'content-type': contentType },
});
const chunks = (body: Uint8Array, cuts: number[], t: 'request-chunk' | 'response-chunk' = 'response-chunk'): WireRecord[] => {
  const out: WireRecord[] = [];
  let at = 0;
  for (const c of [...cuts, body.length]) {
    out.push({ t, xid: 'x1', ts: 2, chunk: body.subarray(at, c) });
    at = c;
  }
  return out;
};
/** Through one BodyLimit, one record per batch (the state carries across batches). */
const run = (limit: number, records: WireRecord[]) => {
  const l = new BodyLimit(limit);
  return records.flatMap((r) => l.apply([r]));
};
const shape = (rs: WireRecord[]) =>
  rs.map((r) =>
    'chunk' in r ? `${r.t}:${r.chunk.byteLength}` : 'bytes' in r ? `${r.t}:${r.bytes}` : 'sha256' in r && r.sha256 ? `${r.t}+sha` : r.t,
  );

describe('BodyLimit (proxy thread): a body is handed over up to the limit, counted and hashed past it', () => {
  it('a whole exchange in one batch gives the same records as one record per batch', () => {
    const records = [res('application/json'), ...chunks(bytes(100), [4, 15, 60]), { t: 'response-end', xid: 'x1', ts: 3 } as WireRecord];
    expect(shape(new BodyLimit(10).apply(records))).toEqual(shape(run(10, records)));
  });

  it('a body within the limit passes untouched, its end without a digest', () => {
    const body = bytes(10);
    const out = run(10, [res('application/json'), ...chunks(body, [4]), { t: 'response-end', xid: 'x1', ts: 3 }]);
    expect(shape(out)).toEqual(['response', 'response-chunk:4', 'response-chunk:6', 'response-end']);
  });

  it("past the limit: the chunk is cut at the limit, the rest counted, and the end carries the whole body's SHA-256", () => {
    const body = bytes(100);
    const out = run(10, [res('application/json'), ...chunks(body, [4, 15, 60]), { t: 'response-end', xid: 'x1', ts: 3 }]);
    expect(shape(out)).toEqual([
      'response',
      'response-chunk:4',
      'response-chunk:6',
      'response-skip:5',
      'response-skip:45',
      'response-skip:40',
      'response-end+sha',
    ]);
    const handed = Buffer.concat(out.flatMap((r) => ('chunk' in r ? [r.chunk] : [])));
    expect(handed).toEqual(Buffer.from(body.subarray(0, 10)));
    expect((out.at(-1) as { sha256: string }).sha256).toBe(sha(body));
  });

  it('SSE responses are handed over whole (every event counts); request bodies are limited too', () => {
    const body = bytes(50);
    expect(
      shape(run(10, [res('text/event-stream; charset=utf-8'), ...chunks(body, [30]), { t: 'response-end', xid: 'x1', ts: 3 }])),
    ).toEqual(['response', 'response-chunk:30', 'response-chunk:20', 'response-end']);
    expect(shape(run(10, [...chunks(body, [], 'request-chunk'), { t: 'request-end', xid: 'x1', ts: 3 }]))).toEqual([
      'request-chunk:10',
      'request-skip:40',
      'request-end+sha',
    ]);
  });

  it('an abort forgets the exchange: nothing is held after it', () => {
    const l = new BodyLimit(10);
    l.apply(chunks(bytes(30), []));
    l.apply([{ t: 'abort', xid: 'x1', ts: 3, side: 'client', reason: 'gone' }]);
    expect((l as unknown as { bodies: Map<string, unknown> }).bodies.size).toBe(0);
  });

  it("with the recorder's BodyReader: the same result as when the reader sees every byte", () => {
    const body = bytes(5000, 7);
    const whole = new BodyReader({ framing: 'json', maxBytes: 1000, truncatedPrefixBytes: 64 });
    for (const r of chunks(body, [300, 1200])) if ('chunk' in r) whole.push(r.chunk);
    const expected = whole.end();

    const reader = new BodyReader({ framing: 'json', maxBytes: 1000, truncatedPrefixBytes: 64 });
    let digest: string | undefined;
    for (const r of run(1000, [...chunks(body, [300, 1200]), { t: 'response-end', xid: 'x1', ts: 3 }])) {
      if (r.t === 'response-chunk') reader.push(r.chunk);
      else if (r.t === 'response-skip') reader.skip(r.bytes);
      else if (r.t === 'response-end') digest = r.sha256;
    }
    expect(reader.end(digest)).toEqual(expected);
    expect(expected).toMatchObject({ truncated: true, bytes: 5000, sha256: sha(body) });
  });

  it('a reader that skipped bytes but got no digest (the body was cut off) claims no hash', () => {
    const reader = new BodyReader({ framing: 'json', maxBytes: 10 });
    reader.push(bytes(10));
    reader.skip(90);
    expect(reader.end()).toMatchObject({ truncated: true, bytes: 100 });
    expect(reader.end().sha256).toBeUndefined();
  });

  it('keeps no hash for a body whose Content-Length is within the limit (HTTP framing cannot make it longer), and still cuts and hashes one declared bigger', () => {
    const l = new BodyLimit(10);
    const held = () => (l as unknown as { bodies: Map<string, unknown> }).bodies.size;
    const small = bytes(10);
    const out = [
      ...l.apply([
        {
          t: 'request',
          xid: 'x1',
          ts: 1,
          method: 'POST',
          url: '/mcp',
          upstreamUrl: 'http://u/mcp',
          headers: { 'content-length': '10' },
          proxyOrigin: 'http://p',
          target: 'http://u/mcp',
        },
      ]),
      ...l.apply(chunks(small, [4], 'request-chunk')),
    ];
    expect(held()).toBe(0);
    out.push(
      ...l.apply([
        { t: 'request-end', xid: 'x1', ts: 2 },
        { t: 'response', xid: 'x1', ts: 3, status: 200, headers: { 'content-type': 'application/json', 'content-length': '100' } },
      ]),
    );
    const big = bytes(100);
    out.push(...l.apply(chunks(big, [4, 60])));
    expect(held()).toBe(1);
    out.push(...l.apply([{ t: 'response-end', xid: 'x1', ts: 4 }]));
    expect(shape(out)).toEqual([
      'request',
      'request-chunk:4',
      'request-chunk:6',
      'request-end',
      'response',
      'response-chunk:4',
      'response-chunk:6',
      'response-skip:50',
      'response-skip:40',
      'response-end+sha',
    ]);
    expect(out.at(-1)).toMatchObject({ sha256: sha(big) });
    expect(held()).toBe(0);
  });
});
