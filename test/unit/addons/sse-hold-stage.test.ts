/**
 * The SSE stage of breakpoints: events go on whole and in order, split anywhere; a held event
 * holds the ones behind it; an edit replaces only the data lines; a stream joined mid-way is
 * untouched up to its first blank line; an event too large to hold turns the stage into a pipe.
 */
import { describe, expect, it } from 'vitest';
import { SseHoldStage, reframe, type SseEventView, type SseVerdict } from '../../../proxy/addons/breakpoints/wire/sse-hold-stage.js';
import { HOLD_MAX_BYTES } from '../../../proxy/core/rules/breakpoint-types.js';

function run(
  input: Buffer[],
  decide: (e: SseEventView, v: (x: SseVerdict) => void) => void,
  midStream = false,
  onTooLarge?: (n: number) => void,
): Promise<string> {
  const stage = new SseHoldStage(decide, midStream, onTooLarge);
  const out: Buffer[] = [];
  stage.on('data', (c: Buffer) => out.push(c));
  return new Promise((resolve, reject) => {
    stage.on('end', () => resolve(Buffer.concat(out).toString('utf8')));
    stage.on('error', reject);
    for (const c of input) stage.write(c);
    stage.end();
  });
}

const STREAM =
  ': keepalive\n\n' +
  'id: 1\r\nevent: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\r\n\r\n' +
  'data: {"jsonrpc":"2.0",\ndata: "id":1,"result":{}}\n\n' +
  'retry: 10\rdata: {"jsonrpc":"2.0","method":"x"}\r\r' +
  'data: partial';

describe('SseHoldStage', () => {
  it('passes every byte through unchanged, whatever the split points', async () => {
    const bytes = Buffer.from(STREAM, 'utf8');
    for (let size = 1; size <= bytes.length; size += size < 8 ? 1 : 7) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      const seen: string[] = [];
      const out = await run(chunks, (e, v) => {
        seen.push(e.data ?? '');
        v({ send: 'as-is' });
      });
      expect(out).toBe(STREAM);
      expect(seen).toEqual([
        '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}',
        '{"jsonrpc":"2.0",\n"id":1,"result":{}}',
        '{"jsonrpc":"2.0","method":"x"}',
      ]);
    }
  });

  it('holds the events behind a held one, in order, until its verdict', async () => {
    let release: ((v: SseVerdict) => void) | undefined;
    const order: string[] = [];
    const stage = new SseHoldStage((e, v) => {
      order.push(e.data!);
      if (e.data === 'one') release = v;
      else v({ send: 'as-is' });
    }, false);
    const out: string[] = [];
    stage.on('data', (c: Buffer) => out.push(c.toString()));
    stage.write(Buffer.from('data: one\n\ndata: two\n\n'));
    stage.write(Buffer.from('data: three\n\n'));
    await new Promise((r) => setImmediate(r));
    expect(out.join('')).toBe('');
    expect(order).toEqual(['one']);
    release!({ send: 'data', data: '{"edited":true}' });
    await new Promise((r) => setImmediate(r));
    expect(out.join('')).toBe('data: {"edited":true}\n\ndata: two\n\ndata: three\n\n');
    expect(order).toEqual(['one', 'two', 'three']);
  });

  it('drops an event, keeping the rest', async () => {
    const out = await run([Buffer.from('data: a\n\ndata: b\n\ndata: c\n\n')], (e, v) =>
      v(e.data === 'b' ? { send: 'nothing' } : { send: 'as-is' }),
    );
    expect(out).toBe('data: a\n\ndata: c\n\n');
  });

  it('joined mid-stream at an event: reads from the first byte', async () => {
    const seen: string[] = [];
    await run([Buffer.from('data: first\n\n')], (e, v) => (seen.push(e.data!), v({ send: 'as-is' })), true);
    expect(seen).toEqual(['first']);
  });

  it('joined mid-stream inside an event: untouched up to the first blank line', async () => {
    const seen: string[] = [];
    const out = await run(
      [Buffer.from('ta: half an event\n\ndata: whole\n\n')],
      (e, v) => {
        seen.push(e.data!);
        v({ send: 'as-is' });
      },
      true,
    );
    expect(out).toBe('ta: half an event\n\ndata: whole\n\n');
    expect(seen).toEqual(['whole']);
  });

  it('an event larger than it holds goes on as it came, unread, and says so once', async () => {
    const big = `data: ${'x'.repeat(HOLD_MAX_BYTES + 10)}\n\ndata: after\n\n`;
    const bytes = Buffer.from(big);
    const chunks = [bytes.subarray(0, 300_000), bytes.subarray(300_000, 900_000), bytes.subarray(900_000)];
    const notes: number[] = [];
    const seen: string[] = [];
    const out = await run(
      chunks,
      (e, v) => {
        seen.push(e.data!.slice(0, 5));
        v({ send: 'as-is' });
      },
      false,
      (n) => notes.push(n),
    );
    expect(out).toBe(big);
    expect(notes).toHaveLength(1);
    // The large event went on unread; the next one was read as usual.
    expect(seen).toEqual(['after']);
  });
});

describe('reframe', () => {
  it('replaces only the data lines, keeping id, event, comments and line ends', () => {
    const raw = Buffer.from('id: 7\r\n: note\r\ndata: {"a":\r\nevent: message\r\ndata: 1}\r\n\r\n');
    const lines = [
      { start: 0, end: 7, kind: 'id' as const, eol: '\r\n' as const },
      { start: 7, end: 15, kind: 'comment' as const, eol: '\r\n' as const },
      { start: 15, end: 28, kind: 'data' as const, eol: '\r\n' as const },
      { start: 28, end: 44, kind: 'event' as const, eol: '\r\n' as const },
      { start: 44, end: 54, kind: 'data' as const, eol: '\r\n' as const },
    ];
    const out = reframe({ start: 0, end: raw.length, lines }, raw, '{"b":2}\nsecond');
    expect(out.toString()).toBe('id: 7\r\n: note\r\ndata: {"b":2}\r\ndata: second\r\nevent: message\r\n\r\n');
  });
});
