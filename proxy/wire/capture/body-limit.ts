/**
 * On the proxy thread, in the capture queue's consumer (off the per-chunk path: it runs on the
 * batch, every few milliseconds): a JSON (or any non-SSE) body is handed over only up to `limit` bytes — as much as the recorder parses
 * (`--max-body`). Past it, the bytes are counted (`*-skip` records) and hashed here, and the end
 * record carries the SHA-256 of the whole body. A 200 MB tool result then costs the recorder 16 MiB,
 * not 200, and cannot make it fall behind. SSE streams are handed over whole: every event counts.
 */
import { createHash, type Hash } from 'node:crypto';
import { declaredLength, type WireRecord } from './wire-records.js';

interface Body {
  hash: Hash;
  bytes: number;
}

const isSse = (headers: Record<string, string | string[] | undefined>): boolean =>
  String(headers['content-type'] ?? '')
    .toLowerCase()
    .startsWith('text/event-stream');

export class BodyLimit {
  private readonly bodies = new Map<string, Body>();
  /** Exchanges whose response is an SSE stream (never limited). */
  private readonly sse = new Set<string>();
  /**
   * Bodies (`${side}|${xid}`) whose Content-Length is within the limit: HTTP framing cannot make
   * them longer, so they are handed over as they come, with no hash kept (most MCP bodies).
   */
  private readonly small = new Set<string>();

  private out: WireRecord[] = [];

  constructor(private readonly limit: number) {}

  /** The batch as it goes to the recorder, in order: chunks cut at the limit, skips, digests. */
  apply(records: readonly WireRecord[]): WireRecord[] {
    this.out = [];
    for (const r of records) this.push(r);
    return this.out;
  }

  private next(r: WireRecord): void {
    this.out.push(r);
  }

  private push(r: WireRecord): void {
    switch (r.t) {
      case 'request':
      case 'response': {
        if (r.t === 'response' && isSse(r.headers)) this.sse.add(r.xid);
        const declared = declaredLength(r.headers);
        if (declared !== undefined && declared <= this.limit) this.small.add(`${r.t}|${r.xid}`);
        return this.next(r);
      }
      case 'request-chunk':
      case 'response-chunk': {
        const side = r.t === 'request-chunk' ? 'request' : 'response';
        if (side === 'response' && this.sse.has(r.xid)) return this.next(r);
        const key = `${side}|${r.xid}`;
        if (this.small.has(key)) return this.next(r);
        let body = this.bodies.get(key);
        if (!body) this.bodies.set(key, (body = { hash: createHash('sha256'), bytes: 0 }));
        body.hash.update(r.chunk);
        const before = body.bytes;
        body.bytes += r.chunk.byteLength;
        if (body.bytes <= this.limit) return this.next(r);
        if (before < this.limit) this.next({ ...r, chunk: r.chunk.subarray(0, this.limit - before) });
        return this.next({ t: `${side}-skip`, xid: r.xid, ts: r.ts, bytes: body.bytes - Math.max(before, this.limit) });
      }
      case 'request-end':
      case 'response-end': {
        const side = r.t === 'request-end' ? 'request' : 'response';
        const body = this.bodies.get(`${side}|${r.xid}`);
        this.bodies.delete(`${side}|${r.xid}`);
        this.small.delete(`${side}|${r.xid}`);
        if (side === 'response') this.sse.delete(r.xid);
        return this.next(body && body.bytes > this.limit ? { ...r, sha256: body.hash.digest('hex') } : r);
      }
      case 'abort':
      case 'upstream-error':
        this.bodies.delete(`request|${r.xid}`);
        this.bodies.delete(`response|${r.xid}`);
        this.small.delete(`request|${r.xid}`);
        this.small.delete(`response|${r.xid}`);
        this.sse.delete(r.xid);
        return this.next(r);
      default:
        return this.next(r);
    }
  }
}
