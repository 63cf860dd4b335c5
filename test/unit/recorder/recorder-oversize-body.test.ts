/**
 * Oversize bodies: past the parse limit a JSON/opaque body keeps a bounded prefix, and the
 * recorder reports its full size and the SHA-256 of every byte (hashed incrementally).
 */
import { describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { BodyReader } from '../../../proxy/core/parse/body-reader.js';
import { Recorder } from '../../../proxy/recorder/recorder.js';
import { createRedactor } from '../../../proxy/recorder/redact/redact.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';
import type { WireRecord } from '../../../proxy/wire/capture/wire-records.js';
import type { ExchangeInfo, McpscopeEvent } from '../../../proxy/core/model/events.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function feed(reader: BodyReader, bytes: Uint8Array, step: number) {
  for (let at = 0; at < bytes.length; at += step) reader.push(bytes.subarray(at, at + step));
  return reader.end();
}

describe('BodyReader: oversize hash', () => {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { blob: randomBytes(3000).toString('base64') } }));

  for (const step of [1, 7, 100, 999, body.length]) {
    it(`a json body past maxBytes: prefix kept, sha256 of the whole body (chunks of ${step})`, () => {
      const end = feed(new BodyReader({ framing: 'json', maxBytes: 500 }), body, step);
      expect(end.truncated).toBe(true);
      expect(end.bytes).toBe(body.length);
      expect(end.text).toBe(body.subarray(0, 500).toString());
      expect(end.sha256).toBe(sha(body));
    });
  }

  it('opaque bodies too', () => {
    const end = feed(new BodyReader({ framing: 'opaque', maxBytes: 64 }), body, 33);
    expect(end.sha256).toBe(sha(body));
  });

  it('no hash (and no cost) for a body within the limit, including exactly at it', () => {
    expect(feed(new BodyReader({ framing: 'json', maxBytes: body.length }), body, 10).sha256).toBeUndefined();
    expect(feed(new BodyReader({ framing: 'json', maxBytes: body.length + 1 }), body, 10).sha256).toBeUndefined();
  });

  it('a compressed body that only decodes past the limit: hash of the wire bytes', () => {
    const big = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'a'.repeat(100_000) } }));
    const gz = gzipSync(big);
    expect(gz.length).toBeLessThan(5000);
    const end = feed(new BodyReader({ framing: 'json', encoding: 'gzip', maxBytes: 5000 }), gz, 100);
    expect(end.truncated).toBe(true);
    expect(end.sha256).toBe(sha(gz));
  });
});

describe('Recorder: oversize bodies on the exchange', () => {
  function run(records: WireRecord[], maxBodyBytes: number) {
    const store = new EventStore();
    const recorder = new Recorder({ store, redactor: createRedactor({}), maxBodyBytes });
    recorder.handle(records);
    const ex = [...store.snapshot()].reverse().find((e): e is Extract<McpscopeEvent, { type: 'exchange' }> => e.type === 'exchange')!
      .exchange as ExchangeInfo;
    return { store, ex };
  }
  const head = (xid: string): WireRecord => ({
    t: 'request',
    xid,
    ts: 1,
    method: 'POST',
    url: '/mcp',
    upstreamUrl: 'http://u/mcp',
    headers: { 'content-type': 'application/json' },
    proxyOrigin: 'http://127.0.0.1:1',
    target: 'http://u/mcp',
  });
  const chunks = (xid: string, t: 'request-chunk' | 'response-chunk', b: Uint8Array, step: number): WireRecord[] => {
    const out: WireRecord[] = [];
    for (let at = 0; at < b.length; at += step) out.push({ t, xid, ts: 2, chunk: b.subarray(at, at + step) } as WireRecord);
    return out;
  };

  it('a response past the limit: truncated, bodyBytes, bodySha256, and a too-large problem; the request is fine', () => {
    const req = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big' } }));
    const res = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x'.repeat(200_000) }] } }));
    const { store, ex } = run(
      [
        head('x1'),
        ...chunks('x1', 'request-chunk', req, 1000),
        { t: 'request-end', xid: 'x1', ts: 3 },
        { t: 'response', xid: 'x1', ts: 4, status: 200, headers: { 'content-type': 'application/json' } },
        ...chunks('x1', 'response-chunk', res, 16384),
        { t: 'response-end', xid: 'x1', ts: 5 },
      ],
      10_000,
    );
    expect(ex.truncated).toBe(true);
    expect(ex.truncatedBody).toBe('response');
    expect(ex.bodyBytes).toBe(res.length);
    expect(ex.responseBytes).toBe(res.length);
    expect(ex.bodySha256).toBe(sha(res));
    const problems = store.snapshot().filter((e) => e.type === 'problem');
    expect(problems.map((p) => (p as { code: string }).code)).toContain('too-large');
  });

  it('a request past the limit says so too', () => {
    const req = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { blob: 'y'.repeat(50_000) } }));
    const { ex } = run([head('x1'), ...chunks('x1', 'request-chunk', req, 4096), { t: 'request-end', xid: 'x1', ts: 3 }], 1000);
    expect(ex).toMatchObject({ truncated: true, truncatedBody: 'request', bodyBytes: req.length, bodySha256: sha(req) });
  });

  it('a response within the limit has none of these fields', () => {
    const res = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
    const { ex } = run(
      [
        head('x1'),
        { t: 'request-end', xid: 'x1', ts: 3 },
        { t: 'response', xid: 'x1', ts: 4, status: 200, headers: { 'content-type': 'application/json' } },
        ...chunks('x1', 'response-chunk', res, 5),
        { t: 'response-end', xid: 'x1', ts: 5 },
      ],
      10_000,
    );
    expect(ex.truncated).toBeUndefined();
    expect(ex.bodySha256).toBeUndefined();
    expect(ex.bodyBytes).toBeUndefined();
  });
});

describe('BodyReader: truncatedPrefixBytes', () => {
  it('once past maxBytes, lets go of all but the short prefix, and keeps no more', () => {
    const body = Buffer.from(`{"a":"${'z'.repeat(10_000)}"}`);
    const end = feed(new BodyReader({ framing: 'json', maxBytes: 4000, truncatedPrefixBytes: 100 }), body, 333);
    expect(end.text).toBe(body.subarray(0, 100).toString());
    expect(end.frames[0]).toMatchObject({ length: body.length, truncated: true });
    expect(end.sha256).toBe(sha(body));
    expect(end.bytes).toBe(body.length);
  });
});
