import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { EndpointRewriter, originRewriter } from '../../../proxy/core/parse/endpoint-rewriter.js';
import type { EndpointRewrite, EndpointRewriterOptions } from '../../../proxy/core/parse/endpoint-rewriter.js';
import { BOM, concat, sample } from '../../support/bytes.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder('utf-8', { ignoreBOM: true }).decode(b);
/** Byte-exact string view (fast to compare, readable diffs). */
const bin = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');

const UPSTREAM = 'http://127.0.0.1:8000';
const PROXY = 'http://127.0.0.1:45678';

interface Run {
  out: Uint8Array;
  rewrites: EndpointRewrite[];
  /** Output of each push, in order (end() last). */
  perPush: Uint8Array[];
  passthrough: boolean;
}

function run(chunks: Uint8Array[], options: Partial<EndpointRewriterOptions> = {}): Run {
  const rw = new EndpointRewriter({ rewriteUrl: originRewriter(UPSTREAM, PROXY), ...options });
  const rewrites: EndpointRewrite[] = [];
  const perPush: Uint8Array[] = [];
  for (const c of chunks) {
    const r = rw.push(c);
    perPush.push(concat(...r.out));
    if (r.rewrite) rewrites.push(r.rewrite);
  }
  const passthrough = rw.passthrough;
  perPush.push(concat(...rw.end()));
  expect(rw.passthrough).toBe(true);
  return { out: concat(...perPush), rewrites, perPush, passthrough };
}

/** Every way of cutting `bytes` into 2 chunks, plus byte-at-a-time and whole. */
function chunkings(bytes: Uint8Array): Uint8Array[][] {
  const all: Uint8Array[][] = [[bytes], Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))];
  for (let i = 0; i <= bytes.length; i++) all.push([bytes.subarray(0, i), bytes.subarray(i)]);
  return all;
}

function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => Math.min(Math.max(c, 0), bytes.length)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  return out;
}

describe('originRewriter', () => {
  const map = originRewriter(UPSTREAM, PROXY);

  it('replaces an upstream origin and keeps path, query and hash as written', () => {
    expect(map('http://127.0.0.1:8000/messages/?session_id=abc123')).toBe('http://127.0.0.1:45678/messages/?session_id=abc123');
    expect(map('http://127.0.0.1:8000/a/../b/%7e?x=%20y&z#frag')).toBe('http://127.0.0.1:45678/a/../b/%7e?x=%20y&z#frag');
    expect(map('http://127.0.0.1:8000')).toBe('http://127.0.0.1:45678');
    expect(map('http://127.0.0.1:8000?q=1')).toBe('http://127.0.0.1:45678?q=1');
  });

  it('compares normalised origins', () => {
    expect(map('HTTP://127.0.0.1:8000/m')).toBe('http://127.0.0.1:45678/m');
    const local = originRewriter('http://LOCALHOST:80/', 'http://127.0.0.1:45678/some/path');
    expect(local('http://localhost/sse/message?sessionId=1')).toBe('http://127.0.0.1:45678/sse/message?sessionId=1');
    expect(local('http://localhost:80/x')).toBe('http://127.0.0.1:45678/x');
    expect(local('https://localhost/x')).toBeNull();
  });

  it('leaves relative URLs, foreign origins and garbage alone', () => {
    expect(map('/messages/?session_id=abc')).toBeNull();
    expect(map('messages?x')).toBeNull();
    expect(map('//127.0.0.1:8000/m')).toBeNull(); // scheme-relative: not absolute
    expect(map('http://127.0.0.1:8001/m')).toBeNull();
    expect(map('https://127.0.0.1:8000/m')).toBeNull();
    expect(map('http://evil.example/m')).toBeNull();
    expect(map('http://[::1')).toBeNull();
    expect(map('')).toBeNull();
    expect(originRewriter('not a url', PROXY)('http://127.0.0.1:8000/m')).toBeNull();
  });

  it('falls back to the normalised path for unusual spellings', () => {
    expect(map('http:\\\\127.0.0.1:8000\\m?x')).toBe('http://127.0.0.1:45678/m?x');
  });
});

describe('EndpointRewriter — absolute endpoint', () => {
  const input = sample('absolute-endpoint.sse');
  const expected = 'event: endpoint\ndata: http://127.0.0.1:45678/messages/?session_id=abc123\n\n';

  it('rewrites the sample under every chunking, reporting the rewrite once', () => {
    for (const chunks of chunkings(input)) {
      const r = run(chunks);
      expect(dec(r.out)).toBe(expected);
      expect(r.rewrites).toEqual([
        {
          before: 'http://127.0.0.1:8000/messages/?session_id=abc123',
          after: 'http://127.0.0.1:45678/messages/?session_id=abc123',
          offset: 0,
        },
      ]);
      // The whole block is one unit: held until its blank line, then switched to passthrough.
      expect(r.passthrough).toBe(true);
    }
  });

  it('holds everything until the endpoint block is complete', () => {
    const r = run(Array.from(input, (_, i) => input.subarray(i, i + 1)));
    expect(r.perPush.slice(0, -2).every((b) => b.length === 0)).toBe(true);
    expect(dec(r.perPush[r.perPush.length - 2])).toBe(expected);
  });

  it('passes later chunks through zero-copy', () => {
    const rw = new EndpointRewriter({ rewriteUrl: originRewriter(UPSTREAM, PROXY) });
    const first = rw.push(concat(input, enc('event: message\ndata: {"a":1}\n')));
    expect(first.rewrite?.after).toBe('http://127.0.0.1:45678/messages/?session_id=abc123');
    expect(dec(concat(...first.out))).toBe(expected + 'event: message\ndata: {"a":1}\n');
    expect(rw.passthrough).toBe(true);
    const next = enc('\n');
    const r = rw.push(next);
    expect(r.out).toHaveLength(1);
    expect(r.out[0]).toBe(next);
    expect(r.rewrite).toBeUndefined();
    expect(rw.end()).toEqual([]);
  });

  it('keeps CRLF line endings and other fields', () => {
    const text =
      'event: endpoint\r\nid: 7\r\ndata: http://127.0.0.1:8000/messages/?session_id=abc\r\nretry: 10\r\n\r\n' +
      'event: message\r\ndata: {"jsonrpc":"2.0","id":0,"result":{}}\r\n\r\n';
    const bytes = enc(text);
    const want = text.replace('http://127.0.0.1:8000/', 'http://127.0.0.1:45678/');
    for (const chunks of chunkings(bytes)) {
      const r = run(chunks);
      expect(dec(r.out)).toBe(want);
      expect(r.rewrites).toHaveLength(1);
      expect(r.rewrites[0].offset).toBe(0);
    }
  });

  it('keeps CR-only line endings, field order (data before event) and no-space values', () => {
    const text = 'data:http://127.0.0.1:8000/m?s=1\revent:endpoint\r\r: after\r\r';
    const want = 'data:http://127.0.0.1:45678/m?s=1\revent:endpoint\r\r: after\r\r';
    for (const chunks of chunkings(enc(text))) expect(dec(run(chunks).out)).toBe(want);
  });

  it('handles a BOM (possibly split) before the endpoint block', () => {
    const bytes = concat(BOM, input);
    for (const chunks of chunkings(bytes)) {
      const r = run(chunks);
      expect(bin(r.out)).toBe(bin(concat(BOM, enc(expected))));
      expect(r.rewrites).toHaveLength(1);
      expect(r.rewrites[0].offset).toBe(3);
    }
  });

  it('releases comment-only and id-only blocks before the endpoint immediately', () => {
    const rw = new EndpointRewriter({ rewriteUrl: originRewriter(UPSTREAM, PROXY) });
    const a = rw.push(enc(': ping - 2025\r\n\r\nid: 1\r\n\r\nevent: endpoint\r\n'));
    expect(dec(concat(...a.out))).toBe(': ping - 2025\r\n\r\nid: 1\r\n\r\n');
    expect(rw.passthrough).toBe(false);
    const b = rw.push(enc('data: http://127.0.0.1:8000/messages/?session_id=1\r\n\r\n'));
    expect(dec(concat(...b.out))).toBe('event: endpoint\r\ndata: http://127.0.0.1:45678/messages/?session_id=1\r\n\r\n');
    expect(b.rewrite).toEqual({
      before: 'http://127.0.0.1:8000/messages/?session_id=1',
      after: 'http://127.0.0.1:45678/messages/?session_id=1',
      offset: 26,
    });
    expect(rw.passthrough).toBe(true);
  });

  it('does not keep views of chunks the caller may reuse', () => {
    const rw = new EndpointRewriter({ rewriteUrl: originRewriter(UPSTREAM, PROXY) });
    const buf = enc('event: endpoint\ndata: http://127.0.0.1:8000/m');
    expect(rw.push(buf).out).toEqual([]);
    buf.fill(0x78);
    const r = rw.push(enc('\n\n'));
    expect(dec(concat(...r.out))).toBe('event: endpoint\ndata: http://127.0.0.1:45678/m\n\n');
  });

  it('handles a non-ASCII path and keeps it byte-identical', () => {
    const text = 'event: endpoint\ndata: http://127.0.0.1:8000/é/结果?x=ü\n\n';
    for (const chunks of chunkings(enc(text))) {
      const r = run(chunks);
      expect(dec(r.out)).toBe('event: endpoint\ndata: http://127.0.0.1:45678/é/结果?x=ü\n\n');
      expect(r.rewrites[0].before).toBe('http://127.0.0.1:8000/é/结果?x=ü');
    }
  });
});

describe('EndpointRewriter — streams left unchanged', () => {
  for (const name of ['python-legacy-sse-crlf.sse', 'cloudflare-legacy-sse.sse', 'streamable-post-sse.sse', 'bom-multiline.sse']) {
    it(`${name} passes byte-identical under every split`, () => {
      const bytes = sample(name);
      const rewriteUrl = vi.fn(originRewriter(UPSTREAM, PROXY));
      for (const chunks of chunkings(bytes)) {
        const r = run(chunks, { rewriteUrl });
        expect(bin(r.out)).toBe(bin(bytes));
        expect(r.rewrites).toEqual([]);
        expect(r.passthrough).toBe(true);
      }
      // relative endpoints are never even offered to the mapper
      expect(rewriteUrl).not.toHaveBeenCalled();
    });
  }

  it('switches to passthrough right after the first block of a non-legacy stream', () => {
    const bytes = sample('streamable-post-sse.sse');
    const rw = new EndpointRewriter({ rewriteUrl: () => 'x' });
    const a = rw.push(bytes.subarray(0, 29));
    expect(a.out).toEqual([]);
    expect(rw.passthrough).toBe(false);
    const b = rw.push(bytes.subarray(29, 40)); // completes the priming block (blank line at 29)
    expect(bin(concat(...b.out))).toBe(bin(bytes.subarray(0, 40)));
    expect(rw.passthrough).toBe(true);
    const rest = bytes.subarray(40);
    expect(rw.push(rest).out[0]).toBe(rest);
  });

  it('leaves a foreign-origin absolute endpoint untouched', () => {
    const text = 'event: endpoint\ndata: http://other.example:8000/messages/?session_id=abc\n\n';
    const rewriteUrl = vi.fn(originRewriter(UPSTREAM, PROXY));
    for (const chunks of chunkings(enc(text))) {
      const r = run(chunks, { rewriteUrl });
      expect(dec(r.out)).toBe(text);
      expect(r.rewrites).toEqual([]);
    }
    expect(rewriteUrl).toHaveBeenCalledWith('http://other.example:8000/messages/?session_id=abc');
  });

  it('only considers the first data-bearing block', () => {
    const text = 'event: message\ndata: {}\n\nevent: endpoint\ndata: http://127.0.0.1:8000/m\n\n';
    expect(dec(run([enc(text)]).out)).toBe(text);
    // an event-only block counts as data-bearing too
    const text2 = 'event: hello\n\nevent: endpoint\ndata: http://127.0.0.1:8000/m\n\n';
    expect(dec(run([enc(text2)]).out)).toBe(text2);
    // an absolute upstream URL in a non-endpoint event is not touched
    for (const text3 of ['event: message\ndata: http://127.0.0.1:8000/m\n\n', 'data: http://127.0.0.1:8000/m\n\n']) {
      const r = run([enc(text3)]);
      expect(dec(r.out)).toBe(text3);
      expect(r.rewrites).toEqual([]);
    }
  });

  it('does not rewrite a multi-line endpoint value or a mapper returning the same URL', () => {
    const text = 'event: endpoint\ndata: http://127.0.0.1:8000/m\ndata: x\n\n';
    expect(dec(run([enc(text)]).out)).toBe(text);
    const same = run([enc('event: endpoint\ndata: http://127.0.0.1:8000/m\n\n')], { rewriteUrl: (u) => u });
    expect(same.rewrites).toEqual([]);
  });

  it('survives a throwing mapper', () => {
    const text = 'event: endpoint\ndata: http://127.0.0.1:8000/m\n\n';
    const r = run([enc(text)], {
      rewriteUrl: () => {
        throw new Error('boom');
      },
    });
    expect(dec(r.out)).toBe(text);
    expect(r.rewrites).toEqual([]);
  });

  it('flushes a held incomplete block at end()', () => {
    const rw = new EndpointRewriter({ rewriteUrl: originRewriter(UPSTREAM, PROXY) });
    const text = 'event: endpoint\ndata: http://127.0.0.1:8000/m\n';
    expect(rw.push(enc(text)).out).toEqual([]);
    expect(dec(concat(...rw.end()))).toBe(text);
    expect(rw.passthrough).toBe(true);
  });

  it('gives up after maxHoldBytes without a data-bearing block', () => {
    const rw = new EndpointRewriter({ rewriteUrl: originRewriter(UPSTREAM, PROXY), maxHoldBytes: 16 });
    const a = rw.push(enc('event: endpoi'));
    expect(a.out).toEqual([]);
    expect(rw.passthrough).toBe(false);
    const b = rw.push(enc('nt\ndata: http://127.0.0.1:8000/m\n\n'));
    expect(dec(concat(...b.out))).toBe('event: endpoint\ndata: http://127.0.0.1:8000/m\n\n');
    expect(b.rewrite).toBeUndefined();
    expect(rw.passthrough).toBe(true);

    // a huge padding comment without line break
    const pad = run([enc(':' + 'x'.repeat(100)), enc('\n\nevent: endpoint\ndata: http://127.0.0.1:8000/m\n\n')], {
      maxHoldBytes: 64,
    });
    expect(pad.rewrites).toEqual([]);
    expect(dec(pad.perPush[0])).toBe(':' + 'x'.repeat(100));
    expect(pad.passthrough).toBe(true);

    // within the limit the endpoint is still found after released comments
    const ok = run([enc(':' + 'x'.repeat(30) + '\n\n'), enc('event: endpoint\ndata: http://127.0.0.1:8000/m\n\n')], {
      maxHoldBytes: 100,
    });
    expect(dec(ok.perPush[0])).toBe(':' + 'x'.repeat(30) + '\n\n');
    expect(ok.rewrites.map((w) => w.after)).toEqual(['http://127.0.0.1:45678/m']);
  });
});

describe('EndpointRewriter — property', () => {
  const eolArb = fc.constantFrom('\n', '\r', '\r\n');
  const urlArb = fc.constantFrom(
    'http://127.0.0.1:8000/messages/?session_id=abc123',
    'http://127.0.0.1:8000/sse/message?sessionId=d2',
    'http://127.0.0.1:8000',
    '/messages/?session_id=1c75',
    '/message?sessionId=x',
    'http://other.example/messages',
    'https://127.0.0.1:8000/m',
  );
  const streamArb = fc.record({
    bom: fc.boolean(),
    prelude: fc.array(fc.constantFrom(': ping', ': keepalive', 'id: 1', 'retry: 5'), { maxLength: 3 }),
    eol: eolArb,
    space: fc.boolean(),
    dataFirst: fc.boolean(),
    url: urlArb,
    tail: fc.array(fc.constantFrom('event: message\ndata: {"id":1}\n\n', ': ping\r\n\r\n', 'data: é结果\r\r'), { maxLength: 3 }),
  });

  it('for any chunking the concatenated output equals the expected rewritten bytes', () => {
    fc.assert(
      fc.property(streamArb, fc.array(fc.nat(400), { maxLength: 10 }), (s, cuts) => {
        const e = s.eol;
        const sp = s.space ? ' ' : '';
        const prelude = s.prelude.map((l) => l + e + e).join('');
        const lines = [`event:${sp}endpoint`, `data:${sp}${s.url}`];
        if (s.dataFirst) lines.reverse();
        // Note: a CR eol followed by a block starting with LF would merge; tails never start with LF.
        const block = lines.map((l) => l + e).join('') + e;
        const tail = s.tail.join('');
        const text = prelude + block + tail;
        const bytes = s.bom ? concat(BOM, enc(text)) : enc(text);

        const rewritten = s.url.startsWith('http://127.0.0.1:8000') ? s.url.replace('http://127.0.0.1:8000', PROXY) : null;
        const wantText = rewritten === null ? text : prelude + block.replace(s.url, rewritten) + tail;
        const want = s.bom ? concat(BOM, enc(wantText)) : enc(wantText);

        const r = run(
          splitAt(
            bytes,
            cuts.map((c) => c % (bytes.length + 1)),
          ),
        );
        expect(bin(r.out)).toBe(bin(want));
        expect(r.rewrites).toEqual(
          rewritten === null ? [] : [{ before: s.url, after: rewritten, offset: (s.bom ? 3 : 0) + enc(prelude).length }],
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('arbitrary bytes under arbitrary chunking come out unchanged unless an endpoint was rewritten', () => {
    const bytesArb = fc
      .array(fc.constantFrom(0x0a, 0x0d, 0x3a, 0x20, 0xef, 0xbb, 0xbf, 0x64, 0x61, 0x74, 0x65, 0x76, 0x6e, 0x00), { maxLength: 200 })
      .map((a) => Uint8Array.from(a));
    fc.assert(
      fc.property(bytesArb, fc.array(fc.nat(400), { maxLength: 10 }), (bytes, cuts) => {
        const r = run(
          splitAt(
            bytes,
            cuts.map((c) => c % (bytes.length + 1)),
          ),
          { rewriteUrl: () => 'X', maxHoldBytes: 50 },
        );
        expect(r.rewrites).toEqual([]); // never an absolute URL in this alphabet
        expect(bin(r.out)).toBe(bin(bytes));
      }),
      { numRuns: 1000 },
    );
  });
});
