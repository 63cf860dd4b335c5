/**
 * proxy/app/stdio/ship-redaction.ts: what a stdio wrapper ships is cut back into lines and redacted
 * before it leaves the process (issue 26, finding 5) — exact bytes when nothing is secret, a
 * re-serialized line when something was, partial lines held until they end (or flushed before the
 * exit and at an overflow), a line past the bound blanked past it.
 */
import { describe, expect, it } from 'vitest';
import type { IngestRecord } from '../../../proxy/wire/capture/wire-codec.js';
import { createRedactor, REDACTED } from '../../../proxy/recorder/redact/redact.js';
import { ShipRedaction, redactLine } from '../../../proxy/app/stdio/ship-redaction.js';

const r = createRedactor({ extraSecrets: ['the-ui-token-0123456789'] });
const chunk = (dir: 'c2s' | 's2c', s: string, ts = 1): IngestRecord => ({ t: 'stdio-chunk', xid: 'p', ts, dir, chunk: Buffer.from(s) });
const text = (records: IngestRecord[]) =>
  records.map((x) =>
    x.t === 'stdio-chunk' || x.t === 'stdio-stderr' ? `${x.t === 'stdio-chunk' ? x.dir : 'err'}:${Buffer.from(x.chunk).toString()}` : x.t,
  );

describe('redactLine', () => {
  it('keeps the very bytes of a line with nothing to redact, spacing and number spelling included', () => {
    const line = Buffer.from('{"jsonrpc":"2.0","id":2,"result":{ "spaced" : 1.0 }}\r\n');
    expect(redactLine(line, r)).toBe(line);
    const banner = Buffer.from('Welcome to server v1 { not json\n');
    expect(redactLine(banner, r)).toBe(banner);
  });

  it('re-serializes a JSON line whose credentials it redacts, keeping its ending', () => {
    const line = Buffer.from('{"jsonrpc":"2.0", "id":1, "result":{"api_key":"sk-live-1234567890abcdef","n":1.0}}\r\n');
    expect(redactLine(line, r).toString()).toBe(`{"jsonrpc":"2.0","id":1,"result":{"api_key":"${REDACTED}","n":1}}\r\n`);
  });

  it('replaces the secrets of a text line in place, and the known secrets anywhere', () => {
    expect(redactLine(Buffer.from('password=hunter2hunter2 and more\n'), r).toString()).toBe(`password=${REDACTED} and more\n`);
    expect(redactLine(Buffer.from('{"x":"the-ui-token-0123456789"}\n'), r).toString()).toBe(`{"x":"${REDACTED}"}\n`);
  });
});

describe('ShipRedaction', () => {
  it('ships a line once its newline came, with the time of the chunk that ended it, each direction apart', () => {
    const s = new ShipRedaction(r, 1 << 20);
    expect(s.push(chunk('c2s', '{"jsonrpc":"2.0","id":1,"method":"x","params":{"token":', 1))).toEqual([]);
    expect(text(s.push(chunk('s2c', 'ok\npart', 2)))).toEqual(['s2c:ok\n']);
    const out = s.push(chunk('c2s', '"tok-secret-abcdef123456"}}\n{"a":1}\n{"b"', 3));
    expect(text(out)).toEqual([`c2s:{"jsonrpc":"2.0","id":1,"method":"x","params":{"token":"${REDACTED}"}}\n{"a":1}\n`]);
    expect(out[0].ts).toBe(3);
    // The process exits: what is left of each stream goes first, as text.
    expect(text(s.push({ t: 'stdio-exit', xid: 'p', ts: 4, code: 0, signal: null }))).toEqual(['c2s:{"b"', 's2c:part', 'stdio-exit']);
  });

  it('keeps sentBy and the stderr stream, and flushes a stream before its overflow', () => {
    const s = new ShipRedaction(r, 1 << 20);
    const sent: IngestRecord = { t: 'stdio-chunk', xid: 'p', ts: 1, dir: 'c2s', chunk: Buffer.from('{"id":"m1"}\n'), sentBy: 'mcpscope' };
    expect(s.push(sent)).toEqual([sent]);
    expect(s.push({ t: 'stdio-stderr', xid: 'p', ts: 1, chunk: Buffer.from('api_key=abcdef1234567890') })).toEqual([]);
    expect(text(s.push({ t: 'overflow', xid: 'p', ts: 2, droppedBytes: 9, stream: 'stderr' }))).toEqual([
      `err:api_key=${REDACTED}`,
      'overflow',
    ]);
  });

  it('ships a line past the bound as its redacted prefix and blanks, byte counts kept', () => {
    const s = new ShipRedaction(r, 16);
    const out = s.push(chunk('s2c', 'password=abcdefgh-and-a-secret-tail'));
    const shipped = Buffer.concat(out.map((x) => Buffer.from((x as { chunk: Uint8Array }).chunk))).toString();
    expect(shipped.startsWith(`password=${REDACTED}`)).toBe(true);
    expect(shipped).not.toContain('secret');
    expect(text(s.push(chunk('s2c', '-more-secret\n{"ok":1}\n')))).toEqual([`s2c:${' '.repeat(12)}\n{"ok":1}\n`]);
  });

  it('redacts a breakpoint modification’s before and after', () => {
    const s = new ShipRedaction(r, 1 << 20);
    const [m] = s.push({
      t: 'modification',
      xid: 'p',
      ts: 1,
      what: 'breakpoint-edit',
      before: '{"password":"pw-1234567890"}',
      after: '{}',
      text: 'edited',
    });
    expect(m).toMatchObject({ before: `{"password":"${REDACTED}"}`, after: '{}' });
  });
});
