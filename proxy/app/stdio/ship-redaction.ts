/**
 * Redaction of what a stdio wrapper ships, before it leaves the wrapper's process (issue 26,
 * finding 5). Runs on the wrapper's recorder thread, never on the relay: the relay taps raw
 * chunks, and this cuts each stream (stdin, stdout, stderr of each process) back into lines and
 * redacts every line with the recorder's redactor (proxy/recorder/redact/redact.ts), as the recorder
 * itself would before keeping it:
 *
 * - a line that is JSON: `Redactor.json` on the parsed value (credential keys by name, every
 *   string as free text), then `exact` (the known secrets) when nothing changed;
 * - any other line (a banner, a stderr line): `Redactor.text`.
 *
 * A line that needed nothing is shipped as the very bytes that were relayed. A JSON line that
 * did is **re-serialized** (`JSON.stringify` of the redacted value, followed by the line's own
 * ending): spacing and number spelling may differ from the wire, which is what the UI then shows
 * for it — as it shows `[REDACTED]` in place of the secret. A redacted text line has its secret
 * spans replaced in place.
 *
 * A line is shipped once its LF has arrived, with the time of the chunk that completed it (the
 * time the recorder gives the message anyway). A partial line waits; it is shipped (as text) when
 * its stream overflows, or before the process's exit record. A line longer than `maxLineBytes`
 * (the wrapper's --max-body, which no recorder parses past either) is shipped as its first
 * `maxLineBytes` redacted as text and the rest as blanks of the same length: the byte counts stay
 * true, the secrets do not leave.
 */
import type { IngestRecord } from '../../wire/capture/wire-codec.js';
import type { StdioStream } from '../../wire/capture/wire-records.js';
import { mayBeJson } from '../../recorder/record-helpers.js';
import type { Redactor } from '../../recorder/redact/redact.js';

type ChunkRecord = Extract<IngestRecord, { t: 'stdio-chunk' | 'stdio-stderr' }>;

interface Pending {
  pieces: Buffer[];
  bytes: number;
  /** Past maxLineBytes: the rest of this line is blanked as it comes. */
  over: boolean;
}

const LF = 0x0a;

/** One line's bytes (its ending included) as they may leave the process. */
export function redactLine(line: Buffer, r: Redactor): Buffer {
  const text = line.toString('utf8');
  let end = text.length;
  if (text.charCodeAt(end - 1) === LF) end--;
  if (text.charCodeAt(end - 1) === 0x0d) end--;
  const body = text.slice(0, end);
  let out: string | undefined;
  if (mayBeJson(body)) {
    try {
      const value: unknown = JSON.parse(body);
      const redacted = r.json(value);
      out = redacted === value ? r.exact(body) : JSON.stringify(redacted);
    } catch {
      // Not JSON after all, or too deep to serialize again: redacted as free text.
      out = undefined;
    }
  }
  out ??= r.text(body);
  return out === body ? line : Buffer.from(out + text.slice(end));
}

export class ShipRedaction {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly redactor: Redactor,
    private readonly maxLineBytes: number,
  ) {}

  /** The records to ship for `record`, in order (none while its line is incomplete). */
  push(record: IngestRecord): IngestRecord[] {
    switch (record.t) {
      case 'stdio-chunk':
      case 'stdio-stderr':
        return this.chunk(record);
      case 'stdio-start':
        return [record];
      case 'modification':
        return [{ ...record, before: this.redactor.text(record.before), after: this.redactor.text(record.after) }];
      case 'overflow': {
        // The bytes after the gap are not joined to the line before it (the recorder starts afresh too).
        const out = record.stream ? this.flushStream(record.xid, record.stream, record.ts) : this.flushProcess(record.xid, record.ts);
        return [...out, record];
      }
      case 'stdio-exit':
        return [...this.flushProcess(record.xid, record.ts), record];
      default:
        return [record];
    }
  }

  private chunk(r: ChunkRecord): IngestRecord[] {
    const stream: StdioStream = r.t === 'stdio-chunk' ? r.dir : 'stderr';
    const key = `${r.xid}\u0000${stream}`;
    const bytes = Buffer.from(r.chunk.buffer, r.chunk.byteOffset, r.chunk.byteLength);
    let p = this.pending.get(key);
    const out: Buffer[] = [];
    let start = 0;
    for (;;) {
      const nl = bytes.indexOf(LF, start);
      const piece = bytes.subarray(start, nl < 0 ? bytes.length : nl + 1);
      if (piece.length > 0) {
        p ??= { pieces: [], bytes: 0, over: false };
        this.append(p, piece, out);
      }
      if (nl < 0) break;
      if (p) out.push(this.finishLine(p));
      p = undefined;
      start = nl + 1;
    }
    if (p && (p.bytes > 0 || p.over)) this.pending.set(key, p);
    else this.pending.delete(key);
    if (out.length === 0) return [];
    const chunk = out.length === 1 ? out[0] : Buffer.concat(out);
    return [{ ...r, chunk }];
  }

  /** Adds a piece of the current line; past the bound, what is held goes out as text and the rest as blanks. */
  private append(p: Pending, piece: Buffer, out: Buffer[]): void {
    if (p.over) {
      out.push(blanks(piece));
      return;
    }
    if (p.bytes + piece.length <= this.maxLineBytes) {
      p.pieces.push(piece);
      p.bytes += piece.length;
      return;
    }
    const room = this.maxLineBytes - p.bytes;
    p.pieces.push(piece.subarray(0, room));
    out.push(this.asText(Buffer.concat(p.pieces)), blanks(piece.subarray(room)));
    p.pieces = [];
    p.bytes = 0;
    p.over = true;
  }

  private finishLine(p: Pending): Buffer {
    if (p.over) return Buffer.alloc(0);
    return redactLine(p.pieces.length === 1 ? p.pieces[0] : Buffer.concat(p.pieces), this.redactor);
  }

  private asText(bytes: Buffer): Buffer {
    const text = bytes.toString('utf8');
    const out = this.redactor.text(text);
    return out === text ? bytes : Buffer.from(out);
  }

  private flushStream(xid: string, stream: StdioStream, ts: number): IngestRecord[] {
    const key = `${xid}\u0000${stream}`;
    const p = this.pending.get(key);
    this.pending.delete(key);
    if (!p || p.bytes === 0) return [];
    const chunk = this.asText(Buffer.concat(p.pieces));
    return [stream === 'stderr' ? { t: 'stdio-stderr', xid, ts, chunk } : { t: 'stdio-chunk', xid, ts, dir: stream, chunk }];
  }

  private flushProcess(xid: string, ts: number): IngestRecord[] {
    return (['c2s', 's2c', 'stderr'] as const).flatMap((s) => this.flushStream(xid, s, ts));
  }
}

/** As many spaces as `piece` has bytes, its LF kept (so the line still ends where it did). */
function blanks(piece: Buffer): Buffer {
  const b = Buffer.alloc(piece.length, 0x20);
  if (piece[piece.length - 1] === LF) b[b.length - 1] = LF;
  return b;
}
