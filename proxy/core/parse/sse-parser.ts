/**
 * Incremental `text/event-stream` parser that keeps byte offsets and the raw text of every block.
 *
 * Follows the WHATWG "event stream interpretation" rules
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * lines end in CR, LF or CRLF; a leading UTF-8 BOM is dropped; `:` starts a comment; the field
 * name/value split is at the first `:` and one leading space of the value is removed; `data`
 * lines join with "\n"; `id` persists across events (ignored when it contains NUL); `retry`
 * takes ASCII digits only; a blank line ends a block.
 *
 * Lines are split on bytes (CR and LF never occur inside a UTF-8 multi-byte sequence), so a
 * chunk may end anywhere — inside a character, between CR and LF, inside the BOM — and only
 * complete lines are decoded.
 *
 * Pure and I/O-free (Uint8Array + TextDecoder only): runs in Node and in the browser.
 *
 * The low-level pieces — {@link SseLineSplitter} and {@link sseField} — are exported so that other
 * stream transformers (the endpoint rewriter) share the exact same line and field rules.
 */

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const BOM = [0xef, 0xbb, 0xbf] as const;

/** Line terminator of one line as it appeared on the wire. `''`: the stream ended without one. */
export type SseEol = '\n' | '\r' | '\r\n' | '';

/** Receives the lines found by {@link SseLineSplitter}. */
export interface SseLineSink {
  /**
   * One line.
   * @param start stream byte offset of the line's first byte (BOM bytes count in offsets)
   * @param content the line's bytes without the terminator, at most `maxLineBytes` of them. It may
   *   be a view into the chunk being pushed: copy it if you keep it beyond the call.
   * @param length the real content length in bytes (`> content.length` when the line was capped)
   * @param eol the terminator. A CR that ends a chunk is reported as `'\r'` at once (WHATWG: the
   *   line ends there); if the next chunk starts with LF, that LF is reported to `lateLf`.
   */
  line(start: number, content: Uint8Array, length: number, eol: SseEol): void;
  /** The LF of a CRLF whose CR ended the previous chunk (it belongs to the previous line). */
  lateLf?(offset: number): void;
}

/**
 * Splits a byte stream into event-stream lines: CR, LF and CRLF terminators, a UTF-8 BOM at the
 * very start of the stream dropped (possibly split across chunks), memory bounded per line.
 */
export class SseLineSplitter {
  private readonly maxLineBytes: number;
  /** Total bytes pushed. */
  private seen = 0;
  /** Stream offset of the next byte the line scanner will look at. */
  private pos = 0;
  /** Bytes matched so far of a possible leading BOM; -1 once BOM detection is over. */
  private bomMatched = 0;
  /** Previous chunk ended with CR: an LF at the start of the next one is swallowed. */
  private pendingCr = false;
  /** Kept bytes of the current unterminated line (copies, not views). */
  private pieces: Uint8Array[] = [];
  private kept = 0;
  /** Real length of the current unterminated line (kept or not). */
  private lineLen = 0;
  /** Stream offset where the current unterminated line started. */
  private lineStart = 0;

  constructor(maxLineBytes = Number.MAX_SAFE_INTEGER) {
    this.maxLineBytes = Math.max(0, Math.floor(maxLineBytes));
  }

  /** Total bytes pushed so far. */
  get bytesSeen(): number {
    return this.seen;
  }

  /** True while bytes of an unterminated line (or of a possible BOM) are pending. */
  get hasPending(): boolean {
    return this.lineLen > 0 || this.bomMatched > 0;
  }

  push(chunk: Uint8Array, sink: SseLineSink): void {
    const n = chunk.length;
    if (n === 0) return;
    this.seen += n;
    let i = 0;
    if (this.bomMatched >= 0) {
      while (i < n && this.bomMatched < 3 && chunk[i] === BOM[this.bomMatched]) {
        i++;
        this.bomMatched++;
      }
      if (this.bomMatched === 3) {
        this.bomMatched = -1;
        this.pos = 3;
        this.lineStart = 3;
      } else if (i < n) {
        // Not a BOM: the bytes held so far are ordinary content.
        const held = this.bomMatched;
        this.bomMatched = -1;
        if (held > 0) this.scan(Uint8Array.from(BOM.slice(0, held)), 0, sink);
      } else {
        return; // still a possible BOM prefix: wait for more bytes
      }
    }
    this.scan(chunk, i, sink);
  }

  /** End of stream: reports a pending unterminated line (eol `''`). */
  end(sink: SseLineSink): void {
    if (this.bomMatched > 0) {
      const held = this.bomMatched;
      this.bomMatched = -1;
      this.scan(Uint8Array.from(BOM.slice(0, held)), 0, sink);
    }
    this.bomMatched = -1;
    this.pendingCr = false;
    if (this.lineLen > 0) {
      const content = this.takePieces();
      const length = this.lineLen;
      this.lineLen = 0;
      sink.line(this.lineStart, content, length, '');
      this.lineStart = this.pos;
    }
  }

  private scan(chunk: Uint8Array, from: number, sink: SseLineSink): void {
    const n = chunk.length;
    let i = from;
    if (this.pendingCr && i < n) {
      this.pendingCr = false;
      if (chunk[i] === LF) {
        sink.lateLf?.(this.pos);
        i++;
        this.pos++;
        this.lineStart = this.pos;
      }
    }
    // Cached positions of the next LF / CR (native indexOf = memchr, no per-byte JS loop).
    let nextLf = -2;
    let nextCr = -2;
    while (i < n) {
      if (nextLf !== -1 && nextLf < i) nextLf = chunk.indexOf(LF, i);
      if (nextCr !== -1 && nextCr < i) nextCr = chunk.indexOf(CR, i);
      let j: number;
      if (nextLf === -1) j = nextCr;
      else if (nextCr === -1) j = nextLf;
      else j = nextLf < nextCr ? nextLf : nextCr;

      if (j === -1) {
        // No terminator in the rest of the chunk: keep (up to the cap) and wait.
        this.append(chunk, i, n);
        this.pos += n - i;
        return;
      }
      let eol: SseEol;
      let eolLen: number;
      if (chunk[j] === LF) {
        eol = '\n';
        eolLen = 1;
      } else if (j + 1 < n) {
        if (chunk[j + 1] === LF) {
          eol = '\r\n';
          eolLen = 2;
        } else {
          eol = '\r';
          eolLen = 1;
        }
      } else {
        // CR ends the chunk: the line ends now; an LF starting the next chunk is swallowed.
        eol = '\r';
        eolLen = 1;
        this.pendingCr = true;
      }
      let content: Uint8Array;
      let length: number;
      if (this.lineLen === 0) {
        length = j - i;
        content = chunk.subarray(i, i + Math.min(length, this.maxLineBytes));
      } else {
        this.append(chunk, i, j);
        content = this.takePieces();
        length = this.lineLen;
      }
      this.lineLen = 0;
      const start = this.lineStart;
      this.pos += j - i + eolLen;
      this.lineStart = this.pos;
      i = j + eolLen;
      sink.line(start, content, length, eol);
    }
  }

  private append(chunk: Uint8Array, from: number, to: number): void {
    const len = to - from;
    if (len <= 0) return;
    const room = this.maxLineBytes - this.kept;
    if (room > 0) {
      const take = Math.min(room, len);
      this.pieces.push(chunk.slice(from, from + take));
      this.kept += take;
    }
    this.lineLen += len;
  }

  private takePieces(): Uint8Array {
    const pieces = this.pieces;
    let out: Uint8Array;
    if (pieces.length === 1) out = pieces[0];
    else {
      out = new Uint8Array(this.kept);
      let o = 0;
      for (const p of pieces) {
        out.set(p, o);
        o += p.length;
      }
    }
    this.pieces = [];
    this.kept = 0;
    return out;
  }
}

/** The kind of an event-stream line, with where its value starts. */
export interface SseFieldInfo {
  /** `comment` for a line starting with `:`; `other` for any field WHATWG ignores. */
  kind: 'comment' | 'data' | 'event' | 'id' | 'retry' | 'other';
  /**
   * Byte index in the line where the value starts: after the first `:` and one optional space
   * (for a comment: right after the `:`, nothing stripped; for a line without a colon: the line
   * length, the value being empty). For the known field kinds all bytes before it are ASCII, so it
   * is also the UTF-16 index in the decoded line.
   */
  valueStart: number;
}

const FIELD_NAMES: ReadonlyArray<readonly [SseFieldInfo['kind'], readonly number[]]> = [
  ['data', [0x64, 0x61, 0x74, 0x61]],
  ['event', [0x65, 0x76, 0x65, 0x6e, 0x74]],
  ['id', [0x69, 0x64]],
  ['retry', [0x72, 0x65, 0x74, 0x72, 0x79]],
];

/** Classifies one non-empty line (without its terminator) per the WHATWG field rules. */
export function sseField(line: Uint8Array): SseFieldInfo {
  const colon = line.indexOf(COLON);
  if (colon === 0) return { kind: 'comment', valueStart: 1 };
  const nameEnd = colon === -1 ? line.length : colon;
  let valueStart = line.length;
  if (colon !== -1) valueStart = colon + 1 < line.length && line[colon + 1] === SPACE ? colon + 2 : colon + 1;
  for (const [kind, name] of FIELD_NAMES) {
    if (name.length !== nameEnd) continue;
    let k = 0;
    while (k < nameEnd && line[k] === name[k]) k++;
    if (k === nameEnd) return { kind, valueStart };
  }
  return { kind: 'other', valueStart };
}

/**
 * Largest cut position `<= at` that does not split a UTF-8 character of `bytes`. With
 * `at >= bytes.length` it drops an incomplete character at the end (for bytes that were capped).
 */
export function utf8Cut(bytes: Uint8Array, at: number): number {
  const len = bytes.length;
  if (at <= 0) return 0;
  if (at < len) {
    // Back off over continuation bytes (10xxxxxx) to the character's lead byte, at most 3.
    let p = at;
    while (p > 0 && at - p < 3 && (bytes[p] & 0xc0) === 0x80) p--;
    return (bytes[p] & 0xc0) === 0x80 ? at : p;
  }
  let k = len - 1;
  while (k >= 0 && len - k < 4 && (bytes[k] & 0xc0) === 0x80) k--;
  if (k < 0) return len;
  const lead = bytes[k];
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return len - k < need ? k : len;
}

/** One block of an event stream: lines up to and including the blank line that ends it. */
export interface SseFrame {
  /** Byte offset of the block's first byte in the stream (BOM bytes count: the first frame after a BOM has offset 3). */
  offset: number;
  /**
   * Byte length of the block, including its terminating blank line (or up to the end of input for
   * an incomplete one). The terminating blank line counts with its first terminator byte only:
   * when it is a CRLF, the LF is not part of the block (it is inter-block bytes, like extra blank
   * lines). WHATWG ends the line at the CR, so the block is complete — and returned — the moment
   * its CR arrives, even at the end of a chunk; counting the LF would make frames depend on where
   * the chunks were split.
   */
  length: number;
  /** Exact text of the block, line endings included (the BOM is not included). Capped to maxFrameBytes (then truncated=true). */
  raw: string;
  /** The `event` field if the block set one (undefined if absent; WHATWG default type "message" is NOT filled in). */
  event?: string;
  /** Data lines joined with "\n" (trailing "\n" removed) — undefined when the block has no data field at all. */
  data?: string;
  /** The id field set BY THIS BLOCK (undefined if the block has no valid id field). */
  id?: string;
  /** The last-event-id in effect after this block (persists across blocks, per WHATWG). */
  lastEventId: string;
  /** retry value set by this block, if valid digits. */
  retry?: number;
  /** Comment lines of this block, without the leading ':' (one leading space is NOT stripped for comments: keep text after ':' verbatim). */
  comments: string[];
  /** True when WHATWG would dispatch an event to the page for this block (data field present). */
  dispatch: boolean;
  /** False only for a trailing block returned by end() that had no terminating blank line. */
  complete: boolean;
  /** raw/data were cut at maxFrameBytes. offset/length stay exact. */
  truncated: boolean;
}

export interface SseParserOptions {
  /**
   * Cap (in bytes) of what is kept of one block: `raw`, `data` and the comments are each cut at
   * this many bytes, and a single line keeps at most this many bytes in memory. Default 64 MiB.
   */
  maxFrameBytes?: number;
}

const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;
const DIGITS = /^[0-9]+$/;

/**
 * Incremental event-stream parser. Feed chunks with {@link push}, collect {@link SseFrame}s, call
 * {@link end} when the stream ends. Never throws on any byte sequence.
 */
export class SseParser {
  private readonly max: number;
  private readonly splitter: SseLineSplitter;
  private readonly decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  private readonly sink: SseLineSink;
  private out: SseFrame[] = [];
  private lastEventId = '';

  // Current block (blockStart < 0: between blocks).
  private blockStart = -1;
  private raw: string[] = [];
  private rawBytes = 0;
  private data: string[] | undefined;
  private dataBytes = 0;
  private event: string | undefined;
  private id: string | undefined;
  private retry: number | undefined;
  private comments: string[] = [];
  private commentBytes = 0;
  private truncated = false;

  constructor(options: SseParserOptions = {}) {
    const max = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.max = Number.isFinite(max) && max >= 0 ? Math.floor(max) : DEFAULT_MAX_FRAME_BYTES;
    this.splitter = new SseLineSplitter(this.max);
    this.sink = {
      line: (start, content, length, eol) => this.onLine(start, content, length, eol),
      lateLf: () => {
        // The LF of a CRLF split across chunks: part of the current block if one is open, else
        // inter-block bytes (after a block's terminating CR, or after an extra blank line).
        if (this.blockStart >= 0) this.appendRaw('\n', 1);
      },
    };
  }

  /** Total bytes consumed so far. */
  get bytesSeen(): number {
    return this.splitter.bytesSeen;
  }

  /** Feed the next chunk; returns the blocks completed by it, in order. */
  push(chunk: Uint8Array): SseFrame[] {
    this.out = [];
    this.splitter.push(chunk, this.sink);
    return this.out;
  }

  /** End of stream: the incomplete trailing block if any bytes of one were pending (complete=false), else undefined. */
  end(): SseFrame | undefined {
    this.out = [];
    this.splitter.end(this.sink);
    if (this.blockStart < 0) return undefined;
    // WHATWG discards a pending block at end of stream: it is not dispatched and does not update
    // the last event ID (its own `id` is still reported).
    return this.finish(this.splitter.bytesSeen, false);
  }

  private onLine(start: number, content: Uint8Array, length: number, eol: SseEol): void {
    if (length === 0) {
      if (eol === '' || this.blockStart < 0) return; // extra blank line between blocks
      this.appendRaw(eol[0], 1);
      this.out.push(this.finish(start + 1, true));
      return;
    }
    if (this.blockStart < 0) this.blockStart = start;

    let bytes = content;
    const cut = content.length < length;
    if (cut) {
      this.truncated = true;
      bytes = content.subarray(0, utf8Cut(content, content.length));
    }
    const text = this.decoder.decode(bytes);

    // raw
    if (!cut && this.rawBytes + length + eol.length <= this.max) {
      this.raw.push(eol === '' ? text : text + eol);
      this.rawBytes += length + eol.length;
    } else {
      const room = this.max - this.rawBytes;
      if (room > 0) {
        if (!cut && room >= length) {
          this.raw.push(text + eol.slice(0, room - length));
        } else {
          const p = utf8Cut(bytes, room);
          this.raw.push(p === bytes.length ? text : this.decoder.decode(bytes.subarray(0, p)));
        }
      }
      this.rawBytes = this.max;
      this.truncated = true;
    }

    // A capped line whose colon was cut off has an unknown field name: only `raw` keeps it.
    if (cut && bytes.indexOf(COLON) === -1) return;
    const { kind, valueStart } = sseField(bytes);
    switch (kind) {
      case 'comment': {
        const room = this.max - this.commentBytes;
        const n = bytes.length - 1;
        if (n <= room) {
          this.comments.push(text.slice(1));
          this.commentBytes += n;
        } else {
          this.truncated = true;
          if (room > 0) {
            this.comments.push(this.decoder.decode(bytes.subarray(1, 1 + utf8Cut(bytes.subarray(1), room))));
          }
          this.commentBytes = this.max;
        }
        break;
      }
      case 'data': {
        if (this.data === undefined) this.data = [];
        const room = this.max - this.dataBytes;
        const n = bytes.length - valueStart;
        if (n + (this.data.length > 0 ? 1 : 0) <= room) {
          this.data.push(text.slice(valueStart));
          this.dataBytes += n + (this.data.length > 1 ? 1 : 0);
        } else {
          this.truncated = true;
          if (this.data.length === 0 || room > 1) {
            const value = bytes.subarray(valueStart);
            const r = this.data.length > 0 ? room - 1 : room;
            this.data.push(this.decoder.decode(value.subarray(0, utf8Cut(value, Math.max(0, r)))));
          }
          this.dataBytes = this.max;
        }
        break;
      }
      // A capped line's value is unknown: such id/event/retry fields are ignored.
      case 'event':
        if (!cut) this.event = text.slice(valueStart);
        break;
      case 'id':
        if (!cut) {
          const value = text.slice(valueStart);
          if (!value.includes('\0')) {
            this.id = value;
            this.lastEventId = value;
          }
        }
        break;
      case 'retry':
        if (!cut) {
          const value = text.slice(valueStart);
          if (DIGITS.test(value)) this.retry = parseInt(value, 10);
        }
        break;
      default:
        break;
    }
  }

  private appendRaw(s: string, bytes: number): void {
    if (this.rawBytes + bytes <= this.max) {
      this.raw.push(s);
      this.rawBytes += bytes;
    } else {
      this.truncated = true;
    }
  }

  private finish(end: number, complete: boolean): SseFrame {
    const frame: SseFrame = {
      offset: this.blockStart,
      length: end - this.blockStart,
      raw: this.raw.join(''),
      lastEventId: this.lastEventId,
      comments: this.comments,
      dispatch: complete && this.data !== undefined,
      complete,
      truncated: this.truncated,
    };
    if (this.event !== undefined) frame.event = this.event;
    if (this.data !== undefined) frame.data = this.data.join('\n');
    if (this.id !== undefined) frame.id = this.id;
    if (this.retry !== undefined) frame.retry = this.retry;
    if (!complete) {
      // Not dispatched: the last event ID string keeps its previous value.
      frame.lastEventId = this.previousLastEventId;
    }
    this.blockStart = -1;
    this.raw = [];
    this.rawBytes = 0;
    this.data = undefined;
    this.dataBytes = 0;
    this.event = undefined;
    this.id = undefined;
    this.retry = undefined;
    this.comments = [];
    this.commentBytes = 0;
    this.truncated = false;
    this.previousLastEventId = this.lastEventId;
    return frame;
  }

  /** Last event ID as of the end of the previous complete block. */
  private previousLastEventId = '';
}
