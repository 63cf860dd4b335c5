/** proxy/addons/faults/wire/fault-actions.ts: the SSE event counter the drop-stream fault cuts a stream with. */
import { describe, expect, it } from 'vitest';
import { sseEventCutter } from '../../../proxy/addons/faults/wire/fault-actions.js';

const enc = (s: string) => Buffer.from(s, 'utf8');

/** Feeds `text` split at `at` and returns where the cut falls in the whole text (or -1) and the count. */
function cutOver(text: string, afterEvents: number, at: number[]): { cut: number; events: number } {
  const cutter = sseEventCutter(afterEvents);
  const bytes = enc(text);
  let from = 0;
  for (const to of [...at, bytes.length]) {
    const i = cutter.cutIn(bytes.subarray(from, to));
    if (i >= 0) return { cut: from + i, events: cutter.events };
    from = to;
  }
  return { cut: -1, events: cutter.events };
}

describe('sseEventCutter', () => {
  for (const eol of ['\n', '\r\n', '\r']) {
    const stream = `data: a${eol}${eol}: keep-alive${eol}data: b${eol}id: 2${eol}${eol}data: c${eol}${eol}`;
    const afterSecond = stream.indexOf(`id: 2${eol}${eol}`) + `id: 2${eol}${eol}`.length;
    it(`cuts just past the blank line ending event 2, line ends ${JSON.stringify(eol)}, split at every byte`, () => {
      for (let at = 0; at <= stream.length; at++) {
        // A CR ending the event as the last byte of a chunk is cut after: it is a whole SSE line end
        // on its own, and the stream ends there (its LF, in the next chunk, is not waited for).
        const crAtChunkEnd = eol === '\r\n' && at === afterSecond - 1;
        expect(cutOver(stream, 2, [at]), `split at ${at}`).toEqual({ cut: crAtChunkEnd ? afterSecond - 1 : afterSecond, events: 2 });
      }
    });
  }
  it('counts the events of a stream shorter than the limit and never cuts it', () => {
    expect(cutOver('data: a\n\ndata: b\n', 2, [])).toEqual({ cut: -1, events: 1 });
  });
  it('a CRLF whose LF comes in the next chunk is one line end, not two', () => {
    // 'data: a\r' | '\n' | '\r' | '\n': the line's CRLF is split (one line end); the blank line's CR ends chunk 3.
    expect(cutOver('data: a\r\n\r\n', 1, [8, 9, 10])).toEqual({ cut: 10, events: 1 });
    expect(cutOver('data: a\r\n\r\ndata: b\r\n\r\n', 2, [8, 9])).toEqual({ cut: 22, events: 2 });
  });
});
