import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { BodyReader, type BodyFrame, type BodyReaderOptions } from '../../../proxy/core/parse/body-reader.js';

const enc = (s: string) => new TextEncoder().encode(s);

/** Push `bytes` split at the given offsets; returns frames from push() and the end() result. */
function read(options: BodyReaderOptions, bytes: Uint8Array, cuts: number[] = []) {
  const r = new BodyReader(options);
  const pushed: BodyFrame[] = [];
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    pushed.push(...r.push(bytes.subarray(at, c)));
    at = c;
  }
  return { pushed, end: r.end(), reader: r };
}

function bytewise(options: BodyReaderOptions, bytes: Uint8Array) {
  return read(
    options,
    bytes,
    Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
  );
}

describe('BodyReader: json', () => {
  const body = '{"jsonrpc":"2.0","id":1,"result":{"text":"héllo"}}';
  const bytes = enc(body);

  it('returns the whole body as one frame at end, none while pushing', () => {
    const { pushed, end, reader } = read({ framing: 'json', maxBytes: 1024 }, bytes, [1, 20, 21]);
    expect(pushed).toEqual([]);
    expect(end).toEqual({
      frames: [{ text: body, offset: 0, length: bytes.length, truncated: false }],
      text: body,
      truncated: false,
      bytes: bytes.length,
    });
    expect(reader.bytes).toBe(bytes.length);
  });

  it('a multi-byte character split across chunks decodes intact', () => {
    const cut = bytes.indexOf(0xc3) + 1; // inside "é"
    expect(read({ framing: 'json', maxBytes: 1024 }, bytes, [cut]).end.text).toBe(body);
  });

  it('truncates at maxBytes, keeps the prefix, reports the real size', () => {
    const { end } = read({ framing: 'json', maxBytes: 10 }, bytes, [4, 8, 30]);
    expect(end.truncated).toBe(true);
    expect(end.text).toBe(body.slice(0, 10));
    expect(end.bytes).toBe(bytes.length);
    expect(end.frames).toEqual([{ text: body.slice(0, 10), offset: 0, length: bytes.length, truncated: true }]);
  });

  it('declared (Content-Length) larger than maxBytes: the same result as finding out late, without holding maxBytes first', () => {
    const options = { framing: 'json' as const, maxBytes: 20, truncatedPrefixBytes: 6 };
    const late = read(options, bytes, [4, 30]).end;
    const early = read({ ...options, declaredBytes: bytes.length }, bytes, [4, 30]);
    expect(early.end).toEqual(late);
    expect(early.end).toMatchObject({
      truncated: true,
      text: body.slice(0, 6),
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    // Byte by byte too.
    expect(bytewise({ ...options, declaredBytes: bytes.length }, bytes).end).toEqual(late);
  });

  it('a declared size within maxBytes, or a compressed body, is read as usual', () => {
    expect(read({ framing: 'json', maxBytes: 1024, declaredBytes: bytes.length }, bytes, [9]).end.text).toBe(body);
    const gz = gzipSync(bytes);
    const end = read({ framing: 'json', maxBytes: 1024, encoding: 'gzip', declaredBytes: 4096 }, gz, [3]).end;
    expect(end).toMatchObject({ text: body, truncated: false });
  });

  it('a body of exactly maxBytes is not truncated', () => {
    const { end } = read({ framing: 'json', maxBytes: bytes.length }, bytes, [5]);
    expect(end.truncated).toBe(false);
    expect(end.text).toBe(body);
  });

  it('an empty body is one empty frame of 0 bytes', () => {
    const { end } = read({ framing: 'json', maxBytes: 10 }, new Uint8Array(0));
    expect(end).toEqual({ frames: [{ text: '', offset: 0, length: 0, truncated: false }], text: '', truncated: false, bytes: 0 });
  });
});

describe('BodyReader: opaque', () => {
  it('keeps a text prefix and no frames', () => {
    const { pushed, end } = read({ framing: 'opaque', maxBytes: 8 }, enc('grant_type=authorization_code&code=abc'), [3]);
    expect(pushed).toEqual([]);
    // Past the limit: the SHA-256 of the whole body comes with the prefix.
    const sha256 = createHash('sha256').update('grant_type=authorization_code&code=abc').digest('hex');
    expect(end).toEqual({ frames: [], text: 'grant_ty', truncated: true, bytes: 38, sha256 });
  });

  it('a short body is kept whole', () => {
    expect(read({ framing: 'opaque', maxBytes: 100 }, enc('Accepted')).end).toEqual({
      frames: [],
      text: 'Accepted',
      truncated: false,
      bytes: 8,
    });
  });
});

describe('BodyReader: sse', () => {
  const stream =
    ': keepalive\n\n' + // 0..13
    'id: 1\nevent: message\ndata: {"a":1}\n\n' + // 13..49
    'data: {"b":\ndata: 2}\n\n'; // 49..71

  it('emits frames with offsets, lengths, data and the parsed block as they complete', () => {
    const { pushed, end } = read({ framing: 'sse', maxBytes: 1 << 20 }, enc(stream), [5, 14, 40, 51, 52]);
    expect(pushed.map((f) => ({ text: f.text, offset: f.offset, length: f.length, truncated: f.truncated }))).toEqual([
      { text: '', offset: 0, length: 13, truncated: undefined },
      { text: '{"a":1}', offset: 13, length: 36, truncated: undefined },
      { text: '{"b":\n2}', offset: 49, length: 22, truncated: undefined },
    ]);
    expect(pushed[0].sse).toMatchObject({ comments: [' keepalive'], dispatch: false });
    expect(pushed[1].sse).toMatchObject({ id: '1', event: 'message', dispatch: true, raw: 'id: 1\nevent: message\ndata: {"a":1}\n\n' });
    expect(end).toEqual({ frames: [], incomplete: undefined, truncated: false, bytes: 71 });
  });

  it('fed one byte at a time gives the same frames', () => {
    const whole = read({ framing: 'sse', maxBytes: 1 << 20 }, enc(stream)).pushed;
    const bytes = bytewise({ framing: 'sse', maxBytes: 1 << 20 }, enc(stream)).pushed;
    expect(bytes).toEqual(whole);
  });

  it('an unterminated last event comes back as incomplete at end', () => {
    const { pushed, end } = read({ framing: 'sse', maxBytes: 1 << 20 }, enc('data: {"a":1}\n\ndata: {"par'), [20]);
    expect(pushed).toHaveLength(1);
    expect(end.incomplete).toMatchObject({ offset: 15, length: 11, complete: false, raw: 'data: {"par' });
    expect(end.bytes).toBe(26);
  });

  it('an event larger than maxBytes is marked truncated', () => {
    const big = `data: ${'x'.repeat(100)}\n\n`;
    const { pushed } = read({ framing: 'sse', maxBytes: 16 }, enc(big));
    expect(pushed).toHaveLength(1);
    expect(pushed[0].truncated).toBe(true);
    expect(pushed[0].length).toBe(big.length);
  });

  it('CRLF streams (Python servers) frame the same events', () => {
    const { pushed } = read(
      { framing: 'sse', maxBytes: 1 << 20 },
      enc('event: endpoint\r\ndata: /messages/?session_id=ab\r\n\r\n: ping\r\n\r\n'),
      [16, 17],
    );
    expect(pushed.map((f) => f.text)).toEqual(['/messages/?session_id=ab', '']);
    expect(pushed[0].sse?.event).toBe('endpoint');
    expect(pushed[1].sse?.comments).toEqual([' ping']);
  });
});

describe('BodyReader: ndjson', () => {
  it('splits lines across chunk boundaries, drops CR of CRLF, skips blank lines, keeps offsets', () => {
    const text = '{"a":1}\r\n\n{"b":2}\n{"c":3}';
    const { pushed, end } = read({ framing: 'ndjson', maxBytes: 1024 }, enc(text), [3, 8, 10, 14]);
    expect(pushed).toEqual([
      { text: '{"a":1}', offset: 0, length: 9, truncated: undefined },
      { text: '{"b":2}', offset: 10, length: 8, truncated: undefined },
    ]);
    // the final line has no newline: it arrives at end()
    expect(end).toEqual({ frames: [{ text: '{"c":3}', offset: 18, length: 7, truncated: undefined }], truncated: false, bytes: 25 });
  });

  it('one byte at a time gives the same lines', () => {
    const text = '{"a":"é"}\n{"b":2}\r\n';
    const { pushed, end } = bytewise({ framing: 'ndjson', maxBytes: 1024 }, enc(text));
    expect(pushed.map((f) => [f.text, f.offset, f.length])).toEqual([
      ['{"a":"é"}', 0, 11],
      ['{"b":2}', 11, 9],
    ]);
    expect(end.frames).toEqual([]);
  });

  it('a line longer than maxBytes keeps a prefix and is marked truncated; the next line is intact', () => {
    const { pushed } = read({ framing: 'ndjson', maxBytes: 4 }, enc('0123456789\nab\n'), [3, 7]);
    expect(pushed).toEqual([
      { text: '0123', offset: 0, length: 11, truncated: true },
      { text: 'ab', offset: 11, length: 3, truncated: undefined },
    ]);
  });

  it('a trailing blank line without newline gives no frame', () => {
    const { pushed, end } = read({ framing: 'ndjson', maxBytes: 1024 }, enc('{"a":1}\n\r'));
    expect(pushed).toHaveLength(1);
    expect(end.frames).toEqual([]);
  });
});

describe('BodyReader: content encodings', () => {
  const json = '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}';
  const sse = 'id: 9\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n';

  for (const [encoding, compress] of [
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const) {
    it(`${encoding}: a JSON body is decoded (chunked)`, () => {
      const z = compress(Buffer.from(json));
      const { end } = read({ framing: 'json', encoding, maxBytes: 1 << 20 }, z, [1, 5]);
      expect(end.truncated).toBe(false);
      expect(end.text).toBe(json);
      expect(end.frames).toEqual([{ text: json, offset: 0, length: json.length, truncated: false }]);
      // bytes counts what was on the wire
      expect(end.bytes).toBe(z.length);
    });

    it(`${encoding}: an SSE body is decoded at end into frames`, () => {
      const z = compress(Buffer.from(sse));
      const { pushed, end } = read({ framing: 'sse', encoding, maxBytes: 1 << 20 }, z, [2]);
      expect(pushed).toEqual([]);
      expect(end.frames).toHaveLength(1);
      expect(end.frames[0]).toMatchObject({
        offset: 0,
        length: sse.length,
        text: '{"jsonrpc":"2.0","method":"notifications/message","params":{}}',
      });
      expect(end.frames[0].sse?.id).toBe('9');
      expect(end.incomplete).toBeUndefined();
    });
  }

  it('the encoding name is matched case-insensitively and trimmed', () => {
    const { end } = read({ framing: 'json', encoding: ' GZIP ', maxBytes: 1 << 20 }, gzipSync(Buffer.from(json)));
    expect(end.text).toBe(json);
  });

  it('identity and unknown encodings are passed through', () => {
    expect(read({ framing: 'json', encoding: 'identity', maxBytes: 100 }, enc('{}')).end.text).toBe('{}');
    expect(read({ framing: 'json', encoding: 'zstd', maxBytes: 100 }, enc('{}')).end.text).toBe('{}');
  });

  it('a compressed body that decodes past maxBytes is reported as too large, not decoded without bound', () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      result: { items: Array.from({ length: 400 }, (_, i) => `item-${i}-${(i * 7919) % 1000}`) },
    });
    const z = gzipSync(Buffer.from(big));
    expect(z.length).toBeGreaterThan(200);
    const { end } = read({ framing: 'json', encoding: 'gzip', maxBytes: 200 }, z, [50, 150, 250]);
    expect(end.truncated).toBe(true);
    expect(end.bytes).toBe(z.length);
    expect(end.text).toContain('decompresses to more than 200 bytes');
    expect(end.frames[0].truncated).toBe(true);
  });

  it('a gzip stream cut short yields the decodable prefix', () => {
    const z = gzipSync(Buffer.from(json));
    const { end } = read({ framing: 'json', encoding: 'gzip', maxBytes: 1 << 20 }, z.subarray(0, z.length - 8));
    expect(end.text).toBe(json);
  });

  it('bad gzip becomes readable text, not a throw', () => {
    const { end } = read({ framing: 'json', encoding: 'gzip', maxBytes: 1 << 20 }, enc('this is not gzip at all'));
    expect(end.text).toMatch(/^\[could not decode gzip: .+\]$/);
    expect(end.frames).toHaveLength(1);
    expect(end.frames[0].text).toBe(end.text);
    expect(end.bytes).toBe(23);
  });

  it('bad brotli / deflate become readable text too', () => {
    expect(read({ framing: 'opaque', encoding: 'deflate', maxBytes: 100 }, enc('nope')).end.text).toMatch(/^\[could not decode deflate: /);
    expect(read({ framing: 'opaque', encoding: 'br', maxBytes: 100 }, enc('this is not brotli')).end.text).toMatch(
      /^\[could not decode br: /,
    );
  });
});

describe('BodyReader: decompression is bounded', () => {
  it('does not inflate a gzip bomb past maxBytes and says why', async () => {
    const { gzipSync } = await import('node:zlib');
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)); // 64 MiB of spaces, ~64 KiB compressed
    const reader = new BodyReader({ framing: 'json', encoding: 'gzip', maxBytes: 1024 * 1024 });
    reader.push(bomb);
    const end = reader.end();
    expect(end.text).toContain('decompresses to more than 1048576 bytes');
    expect(end.frames[0].text.length).toBeLessThan(200);
  });
});
