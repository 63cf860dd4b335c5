import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SseLineSplitter, SseParser, sseField, utf8Cut } from '../../../proxy/core/parse/sse-parser.js';
import type { SseEol, SseFrame, SseParserOptions } from '../../../proxy/core/parse/sse-parser.js';
import { BOM, concat, sample } from '../../support/bytes.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

const SAMPLES = [
  'python-legacy-sse-crlf.sse',
  'cloudflare-legacy-sse.sse',
  'absolute-endpoint.sse',
  'streamable-post-sse.sse',
  'bom-multiline.sse',
] as const;

/** Feeds `chunks` in order, then end(); returns every frame. */
function feed(chunks: Uint8Array[], options?: SseParserOptions): SseFrame[] {
  const p = new SseParser(options);
  const frames: SseFrame[] = [];
  for (const c of chunks) frames.push(...p.push(c));
  const last = p.end();
  if (last) frames.push(last);
  return frames;
}

const whole = (bytes: Uint8Array, options?: SseParserOptions) => feed([bytes], options);
const bytewise = (bytes: Uint8Array, options?: SseParserOptions) =>
  feed(
    Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)),
    options,
  );
/** Splits at the given (unsorted, possibly out of range) cut points. */
function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => Math.min(Math.max(c, 0), bytes.length)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.subarray(prev, p)); // empty chunks are allowed and must be harmless
    prev = p;
  }
  return out;
}

/** Builds a complete frame with defaults, for concise expectations. */
function frame(partial: Partial<SseFrame> & Pick<SseFrame, 'offset' | 'length' | 'raw'>): SseFrame {
  return { lastEventId: '', comments: [], dispatch: false, complete: true, truncated: false, ...partial };
}

/**
 * Independent, naive whole-input oracle (per-byte loop, string-level field split) following the
 * same conventions as SseParser: a block ends after the first terminator byte of its blank line.
 */
function oracle(bytes: Uint8Array): SseFrame[] {
  const dec = new TextDecoder('utf-8', { ignoreBOM: true });
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const lines: Array<{ start: number; end: number; term: string }> = [];
  let s = i;
  while (i < bytes.length) {
    if (bytes[i] === 10) {
      lines.push({ start: s, end: i, term: '\n' });
      s = ++i;
    } else if (bytes[i] === 13) {
      const term = bytes[i + 1] === 10 ? '\r\n' : '\r';
      lines.push({ start: s, end: i, term });
      i += term.length;
      s = i;
    } else i++;
  }
  if (s < bytes.length) lines.push({ start: s, end: bytes.length, term: '' });

  const frames: SseFrame[] = [];
  let lastId = '';
  let cur: (SseFrame & { dataLines?: string[] }) | null = null;
  for (const line of lines) {
    if (line.end === line.start) {
      if (line.term === '' || !cur) continue;
      cur.raw += line.term[0];
      cur.length = line.start + 1 - cur.offset;
      cur.lastEventId = lastId;
      cur.dispatch = cur.dataLines !== undefined;
      if (cur.dataLines) cur.data = cur.dataLines.join('\n');
      delete cur.dataLines;
      frames.push(cur);
      cur = null;
      continue;
    }
    const prevId = lastId;
    if (!cur) cur = frame({ offset: line.start, length: 0, raw: '', lastEventId: prevId });
    const text = dec.decode(bytes.subarray(line.start, line.end));
    cur.raw += text + line.term;
    const colon = text.indexOf(':');
    if (colon === 0) {
      cur.comments.push(text.slice(1));
      continue;
    }
    const name = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') (cur.dataLines ??= []).push(value);
    else if (name === 'event') cur.event = value;
    else if (name === 'id' && !value.includes('\u0000')) {
      cur.id = value;
      lastId = value;
    } else if (name === 'retry' && /^[0-9]+$/.test(value)) cur.retry = parseInt(value, 10);
  }
  if (cur) {
    cur.complete = false;
    cur.length = bytes.length - cur.offset;
    if (cur.dataLines) cur.data = cur.dataLines.join('\n');
    delete cur.dataLines;
    // lastEventId stays what it was before the incomplete block (WHATWG does not dispatch it).
    frames.push(cur);
  }
  return frames;
}

describe('SseParser — WHATWG rules', () => {
  it('returns nothing for blank lines only', () => {
    expect(whole(enc('\n'))).toEqual([]);
    expect(whole(enc('\r\n\r\n\n\r'))).toEqual([]);
  });

  it('parses a simple LF event with exact offset, length and raw', () => {
    expect(whole(enc('data:hello\n\n'))).toEqual([frame({ offset: 0, length: 12, raw: 'data:hello\n\n', data: 'hello', dispatch: true })]);
  });

  it('joins multi-line data with \\n', () => {
    const [f] = whole(enc('data:hello\ndata:bye\n\n'));
    expect(f.data).toBe('hello\nbye');
    expect(f.dispatch).toBe(true);
  });

  it('handles CR-only line endings', () => {
    expect(whole(enc('event: a\rdata: x\r\rdata: y\r\r'))).toEqual([
      frame({ offset: 0, length: 18, raw: 'event: a\rdata: x\r\r', event: 'a', data: 'x', dispatch: true }),
      frame({ offset: 18, length: 9, raw: 'data: y\r\r', data: 'y', dispatch: true }),
    ]);
  });

  it('handles CRLF line endings (the blank line counts up to its CR; its LF is inter-block)', () => {
    expect(whole(enc('data: x\r\n\r\ndata: y\r\n\r\n'))).toEqual([
      frame({ offset: 0, length: 10, raw: 'data: x\r\n\r', data: 'x', dispatch: true }),
      frame({ offset: 11, length: 10, raw: 'data: y\r\n\r', data: 'y', dispatch: true }),
    ]);
  });

  it('handles mixed line endings (Chrome DevTools case)', () => {
    const input = 'data:hello\r\ndata:world\revent:a\revent:b\nid:4\n\nid:8\ndata:bye\r\n\r';
    const frames = whole(enc(input));
    expect(frames.map((f) => [f.event, f.id, f.lastEventId, f.data])).toEqual([
      ['b', '4', '4', 'hello\nworld'],
      [undefined, '8', '8', 'bye'],
    ]);
    expect(frames[0]).toMatchObject({ offset: 0, length: 45, raw: 'data:hello\r\ndata:world\revent:a\revent:b\nid:4\n\n' });
    expect(frames[1]).toMatchObject({ offset: 45, length: 16, raw: 'id:8\ndata:bye\r\n\r' });
    expect(bytewise(enc(input))).toEqual(frames);
  });

  it('dispatches two events for "data:hello\\r\\n\\rdata:bye\\r\\r"', () => {
    const frames = whole(enc('data:hello\r\n\rdata:bye\r\r'));
    expect(frames.map((f) => f.data)).toEqual(['hello', 'bye']);
    expect(frames.map((f) => [f.offset, f.length])).toEqual([
      [0, 13],
      [13, 10],
    ]);
  });

  it('strips exactly one leading space of a value', () => {
    const [f] = whole(enc('data:  hello  \nevent:  type \n\n'));
    expect(f.data).toBe(' hello  ');
    expect(f.event).toBe(' type ');
    const [g] = whole(enc('data:nospace\n\n'));
    expect(g.data).toBe('nospace');
  });

  it('treats a line without a colon as a field with an empty value', () => {
    const [f] = whole(enc('data:hello\nevent:foo\nevent\n\n'));
    expect(f.event).toBe('');
    expect(f.data).toBe('hello');
    const [g] = whole(enc('data\n\n'));
    expect(g).toEqual(frame({ offset: 0, length: 6, raw: 'data\n\n', data: '', dispatch: true }));
  });

  it('ignores unknown fields (case-sensitive names)', () => {
    const [f] = whole(enc('data:hello\nfoo:bar\nanotherRandomField\nData: X\nID: 9\n\n'));
    expect(f).toEqual(
      frame({
        offset: 0,
        length: 53,
        raw: 'data:hello\nfoo:bar\nanotherRandomField\nData: X\nID: 9\n\n',
        data: 'hello',
        dispatch: true,
      }),
    );
  });

  it('collects comments verbatim and returns comment-only blocks without dispatch', () => {
    const frames = whole(enc(': keepalive\n\ndata:hello\n:comment one\n:  two\n\n'));
    expect(frames).toEqual([
      frame({ offset: 0, length: 13, raw: ': keepalive\n\n', comments: [' keepalive'] }),
      frame({
        offset: 13,
        length: 32,
        raw: 'data:hello\n:comment one\n:  two\n\n',
        comments: ['comment one', '  two'],
        data: 'hello',
        dispatch: true,
      }),
    ]);
  });

  it('dispatches an empty string for "data:\\n\\n" and "data: \\n\\n"', () => {
    expect(whole(enc('data:\n\n'))[0]).toMatchObject({ data: '', dispatch: true });
    expect(whole(enc('data: \n\n'))[0]).toMatchObject({ data: '', dispatch: true });
    expect(whole(enc('data:\ndata:\n\n'))[0]).toMatchObject({ data: '\n', dispatch: true });
  });

  it('sets the event type per block and does not carry it over', () => {
    const frames = whole(enc('event:foo\ndata:hello\n\ndata:bye\n\nevent:lonely\n\n'));
    expect(frames.map((f) => [f.event, f.data, f.dispatch])).toEqual([
      ['foo', 'hello', true],
      [undefined, 'bye', true],
      ['lonely', undefined, false],
    ]);
  });

  it('keeps the last event field of a block', () => {
    expect(whole(enc('data:hello\nevent:foo\nevent:bar\n\n'))[0].event).toBe('bar');
  });

  it('persists the last event id across blocks, including id-only blocks', () => {
    const frames = whole(enc('id:42\n\ndata:hello\n\nid:7\ndata:a\n\ndata:b\n\nid\ndata:c\n\n'));
    expect(frames.map((f) => [f.id, f.lastEventId, f.dispatch])).toEqual([
      ['42', '42', false],
      [undefined, '42', true],
      ['7', '7', true],
      [undefined, '7', true],
      ['', '', true], // "id" with no value resets the last event id to ""
    ]);
  });

  it('ignores an id containing NUL', () => {
    const frames = whole(enc('id: 1\ndata: a\n\nid: 2\u00003\ndata: b\n\n'));
    expect(frames.map((f) => [f.id, f.lastEventId])).toEqual([
      ['1', '1'],
      [undefined, '1'],
    ]);
  });

  it('accepts retry only when it is ASCII digits', () => {
    const frames = whole(enc('retry: 500\n\nretry: 10a\n\nretry: -1\n\nretry:  5\n\nretry: 0\n\nretry:\n\nretry: ９\n\n'));
    expect(frames.map((f) => f.retry)).toEqual([500, undefined, undefined, undefined, 0, undefined, undefined]);
    expect(frames.every((f) => !f.dispatch)).toBe(true);
  });

  it('returns the priming event (id + retry + empty data) as a dispatching block', () => {
    expect(whole(enc('id: x\nretry: 500\ndata: \n\n'))).toEqual([
      frame({
        offset: 0,
        length: 25,
        raw: 'id: x\nretry: 500\ndata: \n\n',
        id: 'x',
        lastEventId: 'x',
        retry: 500,
        data: '',
        dispatch: true,
      }),
    ]);
  });

  it('does not emit frames for extra blank lines but counts them in offsets', () => {
    expect(whole(enc('\n\r\n\rdata: a\n\n\n\n\r\ndata: b\n\n')).map((f) => [f.offset, f.length, f.data])).toEqual([
      [4, 9, 'a'],
      [17, 9, 'b'],
    ]);
  });

  it('handles non-ASCII text', () => {
    const [f] = whole(enc('data:Iñtërnâtiônàlizætiøn☃𝌆\n\n'));
    expect(f.data).toBe('Iñtërnâtiônàlizætiøn☃𝌆');
    expect(f.length).toBe(enc('data:Iñtërnâtiônàlizætiøn☃𝌆\n\n').length);
  });
});

describe('SseParser — BOM', () => {
  it('drops a leading BOM and counts it in offsets', () => {
    const frames = whole(concat(BOM, enc('data:hello\n\n')));
    expect(frames).toEqual([frame({ offset: 3, length: 12, raw: 'data:hello\n\n', data: 'hello', dispatch: true })]);
  });

  it('drops a BOM split across 3 chunks', () => {
    const frames = feed([BOM.subarray(0, 1), BOM.subarray(1, 2), BOM.subarray(2, 3), enc('data:hello\n\n')]);
    expect(frames).toEqual([frame({ offset: 3, length: 12, raw: 'data:hello\n\n', data: 'hello', dispatch: true })]);
  });

  it('honours the BOM only at stream start (later it is part of the field name)', () => {
    const input = concat(BOM, enc('data:hello\n'), BOM, enc('data:bye\n'), enc('\n'));
    for (const frames of [whole(input), bytewise(input)]) {
      expect(frames).toHaveLength(1);
      expect(frames[0].data).toBe('hello');
      expect(frames[0].raw).toBe('data:hello\n\uFEFFdata:bye\n\n');
      expect(frames[0].offset).toBe(3);
      expect(frames[0].length).toBe(input.length - 3);
    }
  });

  it('drops only one BOM', () => {
    const [f] = whole(concat(BOM, BOM, enc('data:x\n\n')));
    expect(f.data).toBeUndefined();
    expect(f.raw).toBe('\uFEFFdata:x\n\n');
    expect(f.offset).toBe(3);
  });

  it('treats a partial BOM as content', () => {
    const input = concat(BOM.subarray(0, 2), enc('data:x\n\ndata:y\n\n'));
    for (const frames of [whole(input), bytewise(input)]) {
      expect(frames.map((f) => [f.offset, f.length, f.data])).toEqual([
        [0, 10, undefined],
        [10, 8, 'y'],
      ]);
    }
    // A stream that is nothing but a partial BOM: an incomplete block at end().
    expect(feed([BOM.subarray(0, 1), BOM.subarray(1, 2)])).toEqual([frame({ offset: 0, length: 2, raw: '\uFFFD', complete: false })]);
  });

  it('a BOM-only stream yields nothing', () => {
    expect(whole(BOM)).toEqual([]);
    const p = new SseParser();
    expect(p.push(BOM)).toEqual([]);
    expect(p.bytesSeen).toBe(3);
  });
});

describe('SseParser — chunking', () => {
  it('ends a line at a CR that ends a chunk and swallows the LF starting the next one', () => {
    const p = new SseParser();
    expect(p.push(enc('data: x\r'))).toEqual([]);
    // The blank line's CR ends the block now — no waiting for the next chunk.
    expect(p.push(enc('\n\r'))).toEqual([frame({ offset: 0, length: 10, raw: 'data: x\r\n\r', data: 'x', dispatch: true })]);
    // The LF is swallowed (not an extra blank line), the next block starts after it.
    expect(p.push(enc('\ndata: y\r\n\r\n'))).toEqual([frame({ offset: 11, length: 10, raw: 'data: y\r\n\r', data: 'y', dispatch: true })]);
    expect(p.end()).toBeUndefined();
    expect(p.bytesSeen).toBe(22);
  });

  it('a CR at chunk end followed by a non-LF starts a new line', () => {
    const frames = feed([enc('data: a\r'), enc('data: b\r'), enc('\r')]);
    expect(frames).toEqual([frame({ offset: 0, length: 17, raw: 'data: a\rdata: b\r\r', data: 'a\nb', dispatch: true })]);
  });

  it('an LF after a CR-terminated line inside a block is part of raw', () => {
    const frames = feed([enc('event: e\r'), enc('\ndata: 1\n\n')]);
    expect(frames).toEqual([frame({ offset: 0, length: 19, raw: 'event: e\r\ndata: 1\n\n', event: 'e', data: '1', dispatch: true })]);
  });

  it('decodes characters split across chunks', () => {
    const bytes = enc('data: 结果 𝌆\n\n');
    for (let i = 0; i <= bytes.length; i++) {
      const frames = feed([bytes.subarray(0, i), bytes.subarray(i)]);
      expect(frames).toEqual([frame({ offset: 0, length: bytes.length, raw: 'data: 结果 𝌆\n\n', data: '结果 𝌆', dispatch: true })]);
    }
  });

  it('does not keep views of chunks the caller may reuse', () => {
    const p = new SseParser();
    const buf = enc('data: abc');
    expect(p.push(buf)).toEqual([]);
    buf.fill(0x78); // the caller recycles its buffer
    expect(p.push(enc('def\n\n'))).toEqual([frame({ offset: 0, length: 14, raw: 'data: abcdef\n\n', data: 'abcdef', dispatch: true })]);
  });

  it('handles empty chunks', () => {
    const frames = feed([new Uint8Array(0), enc('data: a\r'), new Uint8Array(0), enc('\n\r\n'), new Uint8Array(0)]);
    expect(frames).toEqual([frame({ offset: 0, length: 10, raw: 'data: a\r\n\r', data: 'a', dispatch: true })]);
  });
});

describe('SseParser — wire samples', () => {
  it('python-legacy-sse-crlf.sse: CRLF, ping comment, Chinese text', () => {
    const bytes = sample('python-legacy-sse-crlf.sse');
    const frames = whole(bytes);
    expect(frames.map((f) => [f.offset, f.length])).toEqual([
      [0, 80],
      [81, 301],
      [383, 44],
      [428, 204],
      [633, 119],
      [753, 154],
      [908, 172],
      [1081, 142],
    ]);
    expect(frames[0]).toEqual(
      frame({
        offset: 0,
        length: 80,
        raw: 'event: endpoint\r\ndata: /messages/?session_id=1c75ff593002412a88b5a9ac39f80648\r\n\r',
        event: 'endpoint',
        data: '/messages/?session_id=1c75ff593002412a88b5a9ac39f80648',
        dispatch: true,
      }),
    );
    expect(frames[2]).toEqual(
      frame({
        offset: 383,
        length: 44,
        raw: ': ping - 2025-10-16 05:06:28.123456+00:00\r\n\r',
        comments: [' ping - 2025-10-16 05:06:28.123456+00:00'],
      }),
    );
    const ids = frames
      .slice(1)
      .filter((f) => f.dispatch)
      .map((f) => (JSON.parse(f.data!) as { id?: number }).id);
    expect(ids).toEqual([0, 1, undefined, undefined, 3, 2]);
    expect(frames[6].data).toContain('结果: 11.0');
    expect(frames.every((f) => f.event === undefined || f.raw.startsWith(`event: ${f.event}\r\n`))).toBe(true);
    // raw is exactly the stream bytes [offset, offset+length)
    for (const f of frames) expect(enc(f.raw)).toEqual(bytes.subarray(f.offset, f.offset + f.length));
  });

  it('streamable-post-sse.sse: priming event, ids, keepalive', () => {
    const frames = whole(sample('streamable-post-sse.sse'));
    expect(frames.map((f) => [f.offset, f.length, f.id, f.lastEventId, f.dispatch, f.event])).toEqual([
      [0, 30, '5f2c_0', '5f2c_0', true, undefined],
      [30, 137, '5f2c_1', '5f2c_1', true, 'message'],
      [167, 13, undefined, '5f2c_1', false, undefined],
      [180, 185, '5f2c_2', '5f2c_2', true, 'message'],
      [365, 137, '5f2c_3', '5f2c_3', true, 'message'],
      [502, 111, '5f2c_4', '5f2c_4', true, 'message'],
    ]);
    expect(frames[0]).toMatchObject({ retry: 500, data: '', raw: 'id: 5f2c_0\nretry: 500\ndata: \n\n' });
    expect(frames[2].comments).toEqual([' keepalive']);
    expect(JSON.parse(frames[3].data!)).toMatchObject({ id: 0, method: 'sampling/createMessage' });
  });

  it('bom-multiline.sse: BOM and a two-line data field', () => {
    const frames = whole(sample('bom-multiline.sse'));
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ offset: 3, length: 117, event: 'message', dispatch: true });
    expect(frames[0].data).toBe('{"jsonrpc":"2.0",\n"method":"notifications/message","params":{"level":"info","data":"x"}}');
    expect(frames[0].raw.startsWith('event: message\n')).toBe(true);
  });

  it('cloudflare and absolute-endpoint samples', () => {
    const cf = whole(sample('cloudflare-legacy-sse.sse'));
    expect(cf.map((f) => [f.offset, f.length, f.event])).toEqual([
      [0, 111, 'endpoint'],
      [111, 197, 'message'],
      [308, 97, 'message'],
    ]);
    expect(cf[0].data).toBe('/sse/message?sessionId=d281d68617db3d18923a008d7a19737a3ee81f2ce2b2cbf426861b30db4cd6d3');
    expect(whole(sample('absolute-endpoint.sse'))).toEqual([
      frame({
        offset: 0,
        length: 73,
        raw: 'event: endpoint\ndata: http://127.0.0.1:8000/messages/?session_id=abc123\n\n',
        event: 'endpoint',
        data: 'http://127.0.0.1:8000/messages/?session_id=abc123',
        dispatch: true,
      }),
    ]);
  });

  for (const name of SAMPLES) {
    it(`${name}: whole = byte-at-a-time = every 2-chunk split = oracle`, () => {
      const bytes = sample(name);
      const expected = whole(bytes);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.every((f) => f.complete && !f.truncated)).toBe(true);
      expect(oracle(bytes)).toEqual(expected);
      expect(bytewise(bytes)).toEqual(expected);
      for (let i = 0; i <= bytes.length; i++) {
        expect(feed([bytes.subarray(0, i), bytes.subarray(i)]), `split at ${i}`).toEqual(expected);
      }
    });
  }

  it('all samples concatenated (BOM in the middle is content) parse like the oracle under 3-way splits', () => {
    const bytes = concat(...SAMPLES.map(sample));
    const expected = whole(bytes);
    expect(oracle(bytes)).toEqual(expected);
    for (let i = 0; i < bytes.length; i += 97) {
      for (let j = i; j < bytes.length; j += 131) {
        expect(feed(splitAt(bytes, [i, j]))).toEqual(expected);
      }
    }
  });
});

describe('SseParser — end of stream', () => {
  it('returns an incomplete trailing block from end()', () => {
    const p = new SseParser();
    expect(p.push(enc('id: 1\ndata: a\n\nid: 2\nevent: x\ndata: b\ndata: c'))).toHaveLength(1);
    expect(p.end()).toEqual(
      frame({
        offset: 15,
        length: 30,
        raw: 'id: 2\nevent: x\ndata: b\ndata: c',
        id: '2',
        lastEventId: '1', // not dispatched: the last event id string keeps its value
        event: 'x',
        data: 'b\nc',
        dispatch: false,
        complete: false,
      }),
    );
  });

  it('returns a pending block whose last line is terminated but has no blank line', () => {
    expect(feed([enc('data: a\r')])).toEqual([frame({ offset: 0, length: 8, raw: 'data: a\r', data: 'a', complete: false })]);
  });

  it('returns undefined when nothing is pending', () => {
    const p = new SseParser();
    p.push(enc('data: a\n\n\n\r\n'));
    expect(p.end()).toBeUndefined();
  });
});

describe('SseParser — truncation', () => {
  it('cuts raw and data at maxFrameBytes while offsets stay exact', () => {
    const frames = whole(enc('data: 0123456789abcdef\n\ndata: ok\n\n'), { maxFrameBytes: 10 });
    expect(frames).toEqual([
      frame({ offset: 0, length: 24, raw: 'data: 0123', data: '0123', dispatch: true, truncated: true }),
      frame({ offset: 24, length: 10, raw: 'data: ok\n\n', data: 'ok', dispatch: true }),
    ]);
  });

  it('keeps parsing fields after the cap (id still tracked)', () => {
    const frames = whole(enc('data: 0123456789\nid: 7\n\n'), { maxFrameBytes: 20 });
    expect(frames).toEqual([
      frame({
        offset: 0,
        length: 24,
        raw: 'data: 0123456789\nid:',
        data: '0123456789',
        id: '7',
        lastEventId: '7',
        dispatch: true,
        truncated: true,
      }),
    ]);
  });

  it('never splits a character when cutting', () => {
    const frames = whole(enc('data: 结果\n\n'), { maxFrameBytes: 8 });
    expect(frames[0]).toMatchObject({ raw: 'data: ', data: '', truncated: true, length: 14 });
    // raw and data have separate budgets: here only raw is cut
    const g = whole(enc('data: ab\ndata: 结果\n\n'), { maxFrameBytes: 14 });
    expect(g[0]).toMatchObject({ raw: 'data: ab\ndata:', data: 'ab\n结果', truncated: true });
    // data budget exhausted inside a character: cut before it
    const h = whole(enc('data: 结果\ndata: 结果\n\n'), { maxFrameBytes: 12 });
    expect(h[0]).toMatchObject({ raw: 'data: 结果', data: '结果\n结', truncated: true, length: 27 });
  });

  it('ignores a capped line whose field name was cut', () => {
    // "data" kept, ": x" cut: not a no-colon data field
    const frames = whole(enc('data: x\n\n'), { maxFrameBytes: 4 });
    expect(frames).toEqual([frame({ offset: 0, length: 9, raw: 'data', truncated: true })]);
    // a capped event line is ignored rather than set to a cut value
    const [f] = whole(enc('event: a-very-long-name\ndata: x\n\n'), { maxFrameBytes: 12 });
    expect(f).toMatchObject({ data: 'x', dispatch: true, truncated: true });
    expect(f.event).toBeUndefined();
  });

  it('stays bounded on a stream without line breaks', () => {
    const p = new SseParser({ maxFrameBytes: 100 });
    const chunk = new Uint8Array(1000).fill(0x61);
    for (let i = 0; i < 1000; i++) expect(p.push(chunk)).toEqual([]);
    const splitter = (p as unknown as { splitter: { kept: number; pieces: Uint8Array[] } }).splitter;
    expect(splitter.kept).toBeLessThanOrEqual(100);
    expect(splitter.pieces.reduce((n, x) => n + x.length, 0)).toBeLessThanOrEqual(100);
    expect(p.bytesSeen).toBe(1_000_000);
    expect(p.end()).toEqual(frame({ offset: 0, length: 1_000_000, raw: 'a'.repeat(100), complete: false, truncated: true }));
  });

  it('caps comments too', () => {
    const [f] = whole(enc(':0123456789\n:abc\n\n'), { maxFrameBytes: 6 });
    // comments share one budget of maxFrameBytes: 5 + 1 bytes
    expect(f.comments).toEqual(['01234', 'a']);
    expect(f.truncated).toBe(true);
    expect(f.raw).toBe(':01234');
  });
});

describe('SSE helpers', () => {
  it('sseField classifies lines', () => {
    const cases: Array<[string, string, number]> = [
      [': c', 'comment', 1],
      ['data: x', 'data', 6],
      ['data:x', 'data', 5],
      ['data:  x', 'data', 6],
      ['data', 'data', 4],
      ['data:', 'data', 5],
      ['event: e', 'event', 7],
      ['id:1', 'id', 3],
      ['retry: 5', 'retry', 7],
      ['dat: x', 'other', 5],
      ['datas: x', 'other', 7],
      ['Data: x', 'other', 6],
    ];
    for (const [line, kind, valueStart] of cases) expect(sseField(enc(line)), line).toEqual({ kind, valueStart });
  });

  it('utf8Cut never splits a character', () => {
    const b = enc('a结𝌆');
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => utf8Cut(b, i))).toEqual([0, 1, 1, 1, 4, 4, 4, 4, 8]);
    expect(utf8Cut(b.subarray(0, 3), 3)).toBe(1);
    expect(utf8Cut(b.subarray(0, 7), 99)).toBe(4);
  });

  it('SseLineSplitter reports lines, terminators and late LFs with offsets', () => {
    const got: Array<[number, string, number, SseEol] | ['lateLf', number]> = [];
    const s = new SseLineSplitter(4);
    const sink = {
      line: (start: number, content: Uint8Array, length: number, eol: SseEol) =>
        got.push([start, new TextDecoder().decode(content), length, eol]),
      lateLf: (offset: number) => got.push(['lateLf', offset]),
    };
    s.push(concat(BOM.subarray(0, 2)), sink);
    s.push(concat(BOM.subarray(2), enc('ab\r')), sink);
    s.push(enc('\nlonger line\n\r\rx'), sink);
    s.end(sink);
    expect(got).toEqual([
      [3, 'ab', 2, '\r'],
      ['lateLf', 6],
      [7, 'long', 11, '\n'],
      [19, '', 0, '\r'],
      [20, '', 0, '\r'],
      [21, 'x', 1, ''],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Property tests

const textArb = fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, ''));
const lineArb = fc.oneof(
  fc.constant(''),
  fc.constant(''),
  textArb.map((t) => `data: ${t}`),
  textArb.map((t) => `data:${t}`),
  fc.constant('data'),
  fc.constant('data:'),
  textArb.map((t) => `event: ${t}`),
  textArb.map((t) => `id: ${t}`),
  fc.constant('id: a\u0000b'),
  fc.constant('id'),
  fc.nat(100000).map((n) => `retry: ${n}`),
  fc.constant('retry: 10a'),
  textArb.map((t) => `:${t}`),
  textArb.map((t) => `foo: ${t}`),
  textArb,
);
const eolArb = fc.constantFrom('\n', '\r', '\r\n');
const streamArb = fc
  .tuple(fc.boolean(), fc.array(fc.tuple(lineArb, eolArb), { maxLength: 30 }), fc.boolean())
  .map(([bom, lines, cutEnd]) => {
    let text = lines.map(([l, e]) => l + e).join('');
    if (cutEnd && text.length > 0) text = text.slice(0, -1);
    return bom ? concat(BOM, enc(text)) : enc(text);
  });
const cutsArb = fc.array(fc.nat(2000), { maxLength: 12 });

function checkInvariants(frames: SseFrame[], total: number): void {
  let prevEnd = 0;
  for (const f of frames) {
    expect(f.offset).toBeGreaterThanOrEqual(prevEnd);
    expect(f.length).toBeGreaterThan(0);
    prevEnd = f.offset + f.length;
  }
  expect(prevEnd).toBeLessThanOrEqual(total);
  expect(frames.slice(0, -1).every((f) => f.complete)).toBe(true);
}

describe('SseParser — properties', () => {
  it('any valid stream under any chunking equals the one-shot parse and the oracle', () => {
    fc.assert(
      fc.property(streamArb, cutsArb, (bytes, cuts) => {
        const expected = whole(bytes);
        expect(oracle(bytes)).toEqual(expected);
        expect(
          feed(
            splitAt(
              bytes,
              cuts.map((c) => c % (bytes.length + 1)),
            ),
          ),
        ).toEqual(expected);
        checkInvariants(expected, bytes.length);
      }),
      { numRuns: 500 },
    );
  });

  it('byte-at-a-time equals one-shot for generated streams', () => {
    fc.assert(
      fc.property(streamArb, (bytes) => {
        expect(bytewise(bytes)).toEqual(whole(bytes));
      }),
      { numRuns: 200 },
    );
  });

  it('arbitrary bytes under arbitrary chunking: never throws, bounded, ordered, chunking-independent', () => {
    const bytesArb = fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      // biased towards the interesting bytes
      fc
        .array(fc.constantFrom(0x0a, 0x0d, 0x3a, 0x20, 0xef, 0xbb, 0xbf, 0x64, 0x61, 0x74, 0x00, 0xe7, 0x80, 0x69), { maxLength: 300 })
        .map((a) => Uint8Array.from(a)),
    );
    fc.assert(
      fc.property(bytesArb, cutsArb, fc.integer({ min: 1, max: 64 }), (bytes, cuts, max) => {
        const chunks = splitAt(
          bytes,
          cuts.map((c) => c % (bytes.length + 1)),
        );
        const p = new SseParser();
        const frames: SseFrame[] = [];
        for (const c of chunks) frames.push(...p.push(c));
        expect(p.bytesSeen).toBe(bytes.length);
        const last = p.end();
        if (last) frames.push(last);
        checkInvariants(frames, p.bytesSeen);
        expect(frames.reduce((n, f) => n + f.length, 0)).toBeLessThanOrEqual(p.bytesSeen);
        expect(frames).toEqual(whole(bytes));
        expect(frames).toEqual(oracle(bytes));
        // with a tiny cap: same frame boundaries, bounded raw
        const capped = feed(chunks, { maxFrameBytes: max });
        expect(capped.map((f) => [f.offset, f.length, f.complete])).toEqual(frames.map((f) => [f.offset, f.length, f.complete]));
        for (const f of capped) expect(f.raw.length).toBeLessThanOrEqual(max); // UTF-16 units <= kept bytes
        expect(capped).toEqual(whole(bytes, { maxFrameBytes: max }));
      }),
      { numRuns: 1000 },
    );
  });
});
