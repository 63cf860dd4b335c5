/**
 * Rewrites the `endpoint` event of the legacy HTTP+SSE transport (2024-11-05).
 *
 * The server's GET /sse stream starts with `event: endpoint\ndata: <uri>\n\n`. The TS client
 * resolves `<uri>` against the URL it connected to (the proxy) and refuses an endpoint on another
 * origin, so an ABSOLUTE endpoint on the upstream's origin must be mapped to the proxy's origin.
 * Relative endpoints and foreign origins pass unchanged.
 *
 * The rewriter holds bytes only until the first complete block carrying a `data` or `event` field
 * (comment-only and id/retry-only blocks before it are released as soon as they are complete),
 * replaces just the data value text when that block is an endpoint event whose URL maps, and then
 * passes every later chunk through untouched. When nothing is rewritten, the output is the input,
 * byte for byte. Lines and fields are recognised with the SSE parser's own helpers, so CR / LF /
 * CRLF endings, chunks split anywhere and a leading BOM behave exactly as in {@link SseParser}.
 *
 * Pure and I/O-free: runs in Node and in the browser.
 */

import { SseLineSplitter, sseField } from './sse-parser.js';
import type { SseEol, SseLineSink } from './sse-parser.js';

export interface EndpointRewrite {
  before: string;
  after: string;
  /** byte offset of the endpoint block in the upstream stream */
  offset: number;
}

export interface EndpointRewriterOptions {
  /** Maps an absolute endpoint URL to the one the client should see, or returns null to leave it unchanged. */
  rewriteUrl: (absoluteUrl: string) => string | null;
  /** Stop looking (and pass everything through) after this many bytes without finding a data-bearing block. Default 65536. */
  maxHoldBytes?: number;
}

const DEFAULT_MAX_HOLD_BYTES = 65536;

function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** `scheme://authority` at the start of a URL string, as written. */
const SCHEME_AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\\]*/;

/**
 * A `rewriteUrl` that swaps the origin of URLs on `upstreamOrigin` for `proxyOrigin` (origins are
 * compared after URL normalisation: case, default ports), keeping the path, query and hash exactly
 * as written. Returns null for anything else: relative or unparseable URLs, foreign origins.
 */
export function originRewriter(upstreamOrigin: string, proxyOrigin: string): (absoluteUrl: string) => string | null {
  const upstream = originOf(upstreamOrigin);
  const proxy = originOf(proxyOrigin);
  return (absoluteUrl: string): string | null => {
    if (upstream === null || proxy === null) return null;
    if (originOf(absoluteUrl) !== upstream) return null; // relative URLs do not parse without a base
    const m = SCHEME_AUTHORITY.exec(absoluteUrl);
    if (m) {
      const rest = absoluteUrl.slice(m[0].length);
      if (rest === '' || rest[0] === '/' || rest[0] === '?' || rest[0] === '#') return proxy + rest;
    }
    // Unusual spelling the URL parser still accepts (leading blanks, `http:host`, backslashes):
    // fall back to the normalised path.
    const u = new URL(absoluteUrl);
    return proxy + u.pathname + u.search + u.hash;
  };
}

function isAbsoluteUrl(s: string): boolean {
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

interface DataLine {
  /** Stream offsets of the value bytes. */
  start: number;
  end: number;
  value: string;
}

interface Decision {
  rewrite?: EndpointRewrite;
  /** Stream offsets of the bytes replaced by `bytes`. */
  start: number;
  end: number;
  bytes?: Uint8Array;
}

const EMPTY: Uint8Array[] = [];

export class EndpointRewriter {
  private readonly rewriteUrl: (absoluteUrl: string) => string | null;
  private readonly maxHoldBytes: number;
  private readonly splitter: SseLineSplitter;
  private readonly decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  private readonly sink: SseLineSink;
  private pass = false;

  /** Held chunks (copies); the first `heldSkip` bytes of held[0] were already released. */
  private held: Uint8Array[] = [];
  private heldSkip = 0;
  /** Stream offset of the first held (unreleased) byte. */
  private heldStart = 0;
  /** Bytes before this stream offset may be released. */
  private releaseTo = 0;

  // The block being scanned.
  private blockStart = -1;
  private payload = false;
  private capped = false;
  private event: string | undefined;
  private dataLines: DataLine[] = [];
  private decision: Decision | undefined;

  constructor(options: EndpointRewriterOptions) {
    this.rewriteUrl = options.rewriteUrl;
    const max = options.maxHoldBytes ?? DEFAULT_MAX_HOLD_BYTES;
    this.maxHoldBytes = Number.isFinite(max) && max >= 0 ? Math.floor(max) : DEFAULT_MAX_HOLD_BYTES;
    this.splitter = new SseLineSplitter(this.maxHoldBytes);
    this.sink = { line: (start, content, length, eol) => this.onLine(start, content, length, eol) };
  }

  /** True once it has stopped looking and only passes chunks through (zero-copy: push returns [chunk]). */
  get passthrough(): boolean {
    return this.pass;
  }

  /** Returns the bytes to forward now (possibly empty while holding the first block) and the rewrite if one happened in this call. */
  push(chunk: Uint8Array): { out: Uint8Array[]; rewrite?: EndpointRewrite } {
    if (this.pass) return { out: [chunk] };
    if (chunk.length === 0) return { out: [] };
    this.held.push(chunk);
    this.splitter.push(chunk, this.sink);

    const decision = this.decision;
    if (decision) {
      const out = this.take(decision.start);
      if (decision.bytes) {
        out.push(decision.bytes);
        this.take(decision.end); // drop the original value
      }
      out.push(...this.take(Number.MAX_SAFE_INTEGER));
      this.stop();
      return decision.rewrite ? { out, rewrite: decision.rewrite } : { out };
    }

    const out = this.take(this.releaseTo);
    if (this.splitter.bytesSeen > this.maxHoldBytes) {
      // Gave up: no data-bearing block within maxHoldBytes.
      out.push(...this.take(Number.MAX_SAFE_INTEGER));
      this.stop();
    } else if (this.held[this.held.length - 1] === chunk) {
      // Still held after this call: keep a copy, the caller may recycle its buffer.
      this.held[this.held.length - 1] = chunk.slice();
    }
    return { out };
  }

  /** Flush whatever is held (stream ended). */
  end(): Uint8Array[] {
    if (this.pass) return [];
    const out = this.take(Number.MAX_SAFE_INTEGER);
    this.stop();
    return out;
  }

  private stop(): void {
    this.pass = true;
    this.held = [];
    this.dataLines = [];
  }

  /** Removes and returns the held bytes before stream offset `to` (views, no copies). */
  private take(to: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    while (this.heldStart < to && this.held.length > 0) {
      const first = this.held[0];
      const avail = first.length - this.heldSkip;
      const n = Math.min(avail, to - this.heldStart);
      out.push(this.heldSkip === 0 && n === first.length ? first : first.subarray(this.heldSkip, this.heldSkip + n));
      this.heldStart += n;
      if (n === avail) {
        this.held.shift();
        this.heldSkip = 0;
      } else {
        this.heldSkip += n;
      }
    }
    return out.length > 0 ? out : EMPTY.slice();
  }

  private onLine(start: number, content: Uint8Array, length: number, eol: SseEol): void {
    if (this.decision) return; // decided earlier in this chunk: the rest passes through
    if (length === 0) {
      const end = start + eol.length;
      if (this.blockStart >= 0 && this.payload) {
        this.decide();
      } else {
        // A comment-only / id-only block, or an extra blank line: release it now.
        this.releaseTo = end;
      }
      this.resetBlock();
      return;
    }
    if (this.blockStart < 0) this.blockStart = start;
    if (content.length < length) {
      this.capped = true;
      return;
    }
    const { kind, valueStart } = sseField(content);
    if (kind === 'data') {
      this.payload = true;
      this.dataLines.push({
        start: start + valueStart,
        end: start + length,
        value: this.decoder.decode(content.subarray(valueStart)),
      });
    } else if (kind === 'event') {
      this.payload = true;
      this.event = this.decoder.decode(content.subarray(valueStart));
    }
  }

  private decide(): void {
    const decision: Decision = { start: Number.MAX_SAFE_INTEGER, end: Number.MAX_SAFE_INTEGER };
    // Only a single-line endpoint value is a URL worth mapping (WHATWG joins several with "\n").
    if (this.event === 'endpoint' && this.dataLines.length === 1 && !this.capped) {
      const line = this.dataLines[0];
      const before = line.value;
      let after: string | null = null;
      if (isAbsoluteUrl(before)) {
        try {
          after = this.rewriteUrl(before);
        } catch {
          after = null; // a failing mapper leaves the stream untouched rather than breaking it
        }
      }
      if (after !== null && after !== before) {
        decision.start = line.start;
        decision.end = line.end;
        decision.bytes = new TextEncoder().encode(after);
        decision.rewrite = { before, after, offset: this.blockStart };
      }
    }
    this.decision = decision;
  }

  private resetBlock(): void {
    this.blockStart = -1;
    this.payload = false;
    this.capped = false;
    this.event = undefined;
    this.dataLines = [];
  }
}
