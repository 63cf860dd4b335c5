/**
 * Turns one HTTP body's chunks into frames: a whole JSON document, SSE blocks (with byte
 * offsets and raw text), or newline-delimited JSON lines (stdio). Decodes gzip/deflate/br on a
 * copy. Bounded: a JSON body past `maxBytes` keeps only a prefix and says so.
 */
import { createHash, type Hash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync, inflateSync, constants as zc } from 'node:zlib';
import { SseParser, type SseFrame } from './sse-parser.js';

export type Framing = 'json' | 'sse' | 'ndjson' | 'opaque';

/** The largest JSON body or SSE event parsed in full, unless `--max-body` says otherwise. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface BodyFrame {
  /** The frame's payload text: the JSON document, an SSE block's data, an NDJSON line. */
  text: string;
  offset: number;
  length: number;
  /** The parsed SSE block, for SSE framing. */
  sse?: SseFrame;
  /** The payload was cut at the reader's limit. */
  truncated?: boolean;
}

export interface BodyEnd {
  frames: BodyFrame[];
  /** SSE: bytes of an unterminated last block (the stream was cut mid-event). */
  incomplete?: SseFrame;
  /** JSON/opaque: the body (or its first `maxBytes`) as text, for display. */
  text?: string;
  truncated: boolean;
  bytes: number;
  /**
   * JSON/opaque bodies that were truncated: SHA-256 (hex) of the whole body as it crossed the
   * wire (before any content-encoding was undone), computed incrementally as its chunks went by.
   */
  sha256?: string;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

export interface BodyReaderOptions {
  framing: Framing;
  /** content-encoding of the body. */
  encoding?: string;
  /** How much of a JSON/opaque body (or one SSE event) to keep. */
  maxBytes: number;
  /**
   * Once a JSON/opaque body is known to pass `maxBytes` (it will not be parsed), only this much of
   * its prefix is kept (default: `maxBytes`): what was held for parsing is let go at once.
   */
  truncatedPrefixBytes?: number;
  /**
   * The body's declared size (Content-Length). A JSON/opaque body declared larger than
   * `maxBytes` is known from its first byte not to be parsed: only its prefix is kept and the rest
   * is hashed as it goes by, instead of holding `maxBytes` first.
   */
  declaredBytes?: number;
}

/** Decodes a copy of a compressed body, never to more than `limit` bytes (a small gzip bomb must not exhaust memory). */
function decompress(encoding: string, data: Buffer, limit: number): Buffer {
  const opts = { finishFlush: zc.Z_SYNC_FLUSH, maxOutputLength: limit };
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(data, opts);
    case 'deflate':
      return inflateSync(data, opts);
    case 'br':
      return brotliDecompressSync(data, { finishFlush: zc.BROTLI_OPERATION_FLUSH, maxOutputLength: limit });
    default:
      return data;
  }
}

export class BodyReader {
  private readonly framing: Framing;
  private readonly encoding: string;
  private readonly maxBytes: number;
  private readonly truncatedPrefixBytes: number;
  private chunks: Buffer[] = [];
  private kept = 0;
  private total = 0;
  private truncated = false;
  private sse?: SseParser;
  /** Started when a JSON/opaque body first passes maxBytes: the kept prefix, then every later chunk. */
  private hash?: Hash;
  /** Declared larger than maxBytes (identity encoding): prefix + hash from the start. */
  private readonly oversize: boolean;
  /** Some bytes were counted but not seen (`skip`): only the proxy thread's digest is right. */
  private skipped = false;
  private line: Buffer[] = [];
  private lineBytes = 0;
  private lineOffset = 0;

  constructor(options: BodyReaderOptions) {
    this.framing = options.framing;
    this.encoding = (options.encoding ?? 'identity').toLowerCase().trim();
    this.maxBytes = options.maxBytes;
    this.truncatedPrefixBytes = Math.min(options.truncatedPrefixBytes ?? options.maxBytes, options.maxBytes);
    // Compressed streams are decoded whole at the end (a copy; the client got the original bytes).
    if (this.framing === 'sse' && this.isIdentity) this.sse = new SseParser({ maxFrameBytes: this.maxBytes });
    this.oversize =
      (this.framing === 'json' || this.framing === 'opaque') && this.isIdentity && (options.declaredBytes ?? 0) > this.maxBytes;
  }

  private get isIdentity(): boolean {
    return this.encoding === 'identity' || this.encoding === '';
  }

  get bytes(): number {
    return this.total;
  }

  push(chunk: Uint8Array): BodyFrame[] {
    this.total += chunk.byteLength;
    if (this.sse) return this.sse.push(chunk).map(sseFrame);
    if (this.framing === 'ndjson' && this.isIdentity) return this.pushLines(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.keep(chunk);
    return [];
  }

  /**
   * Bytes that passed but were not handed over (the proxy thread hands a body over only up to
   * the size it is parsed to, and hashes the rest): they count, and the body is truncated.
   */
  skip(bytes: number): void {
    this.total += bytes;
    this.truncated = true;
    this.skipped = true;
    if (this.truncatedPrefixBytes < this.kept) {
      this.chunks = [Buffer.from(Buffer.concat(this.chunks, this.truncatedPrefixBytes))];
      this.kept = this.truncatedPrefixBytes;
    }
  }

  /** `digest`: the SHA-256 of the whole body, from whoever saw all of it (after a `skip`). */
  end(digest?: string): BodyEnd {
    if (this.sse) {
      const incomplete = this.sse.end();
      return { frames: [], incomplete, truncated: false, bytes: this.total };
    }
    if (this.framing === 'ndjson' && this.isIdentity) {
      const frames: BodyFrame[] = [];
      if (this.lineBytes > 0) frames.push(this.takeLine(this.lineOffset + this.lineBytes));
      // Like push(): a blank last line (whitespace, a stray CR) is not a frame.
      return { frames: frames.filter((f) => f.text.trim() !== ''), truncated: false, bytes: this.total };
    }
    let data: Buffer = Buffer.concat(this.chunks);
    this.chunks = [];
    const wire = data;
    let decodeError: string | undefined;
    let tooLarge = false;
    if (!this.isIdentity) {
      try {
        data = decompress(this.encoding, data, this.maxBytes);
      } catch (err) {
        tooLarge = (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
        decodeError = tooLarge ? `it decompresses to more than ${this.maxBytes} bytes, more than mcpscope parses` : (err as Error).message;
      }
    }
    if (this.framing === 'sse') {
      const parser = new SseParser({ maxFrameBytes: this.maxBytes });
      const frames = parser.push(data).map(sseFrame);
      return { frames, incomplete: parser.end(), truncated: this.truncated, bytes: this.total };
    }
    const text = decodeError ? `[could not decode ${this.encoding}: ${decodeError}]` : decoder.decode(data.subarray(0, this.maxBytes));
    const truncated = this.truncated || tooLarge || data.length > this.maxBytes;
    // The wire bytes were all kept when only their decoded form was too large: hash them now.
    // After a skip only the given digest is right; without one, none is claimed.
    const sha256 = !truncated
      ? undefined
      : (digest ?? (this.skipped ? undefined : (this.hash ?? createHash('sha256').update(wire)).digest('hex')));
    this.hash = undefined;
    const extra = sha256 !== undefined ? { sha256 } : {};
    if (this.framing === 'json') {
      // The frame's length is the body's real size: a truncated body kept only its first maxBytes.
      const length = this.isIdentity ? this.total : data.length;
      return { frames: [{ text, offset: 0, length, truncated }], text, truncated, bytes: this.total, ...extra };
    }
    return { frames: [], text, truncated, bytes: this.total, ...extra };
  }

  private keep(chunk: Uint8Array): void {
    if (this.oversize) {
      this.startHash();
      this.hash!.update(chunk);
      if (this.kept < this.truncatedPrefixBytes) {
        // Copied: the prefix must not hold on to the buffers its bytes came in.
        const piece = chunk.subarray(0, this.truncatedPrefixBytes - this.kept);
        this.chunks.push(Buffer.from(piece));
        this.kept += piece.byteLength;
      }
      return;
    }
    if (this.truncated || this.kept >= this.maxBytes) {
      this.startHash();
      this.hash!.update(chunk);
      return;
    }
    const room = this.maxBytes - this.kept;
    const piece = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
    this.kept += piece.byteLength;
    if (piece.byteLength < chunk.byteLength) {
      this.startHash();
      this.hash!.update(chunk.subarray(room));
    }
  }

  /** Only a body past the limit pays for hashing: the prefix kept so far, then the rest as it comes. */
  private startHash(): void {
    this.truncated = true;
    if (this.hash) return;
    this.hash = createHash('sha256');
    for (const c of this.chunks) this.hash.update(c);
    if (this.truncatedPrefixBytes < this.kept) {
      // Copied, so that the (possibly large) buffers the chunks were cut from can go.
      this.chunks = [Buffer.from(Buffer.concat(this.chunks, this.truncatedPrefixBytes))];
      this.kept = this.truncatedPrefixBytes;
    }
  }

  /** NDJSON: split on LF (a trailing CR is dropped), one frame per non-empty line. */
  private pushLines(buf: Buffer): BodyFrame[] {
    const frames: BodyFrame[] = [];
    const base = this.total - buf.length;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, start);
      if (nl < 0) break;
      this.appendLine(buf.subarray(start, nl));
      frames.push(this.takeLine(base + nl + 1));
      start = nl + 1;
    }
    if (start < buf.length) this.appendLine(buf.subarray(start));
    return frames.filter((f) => f.text.trim() !== '');
  }

  private appendLine(piece: Buffer): void {
    if (this.lineBytes < this.maxBytes) this.line.push(piece.subarray(0, this.maxBytes - this.lineBytes));
    this.lineBytes += piece.length;
  }

  private takeLine(endOffset: number): BodyFrame {
    let text = decoder.decode(Buffer.concat(this.line));
    if (text.endsWith('\r')) text = text.slice(0, -1);
    const frame: BodyFrame = {
      text,
      offset: this.lineOffset,
      length: endOffset - this.lineOffset,
      truncated: this.lineBytes > this.maxBytes || undefined,
    };
    this.line = [];
    this.lineBytes = 0;
    this.lineOffset = endOffset;
    return frame;
  }
}

function sseFrame(f: SseFrame): BodyFrame {
  return { text: f.data ?? '', offset: f.offset, length: f.length, sse: f, truncated: f.truncated || undefined };
}
