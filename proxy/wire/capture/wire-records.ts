/**
 * Wire records: what the I/O layer (the HTTP proxy, the stdio relay) hands to the recorder.
 *
 * Capturing is the only work done on the hot path, and it is a synchronous push of a small
 * object holding a reference to the chunk that is being forwarded anyway (chunks from sockets
 * are never reused by Node, so no copy is needed). Everything else — decoding, parsing,
 * correlation, storage, the feed — happens later, in batches, in `CaptureQueue`'s consumer.
 */

import { firstHeader, type HeaderMap } from '../../core/model/headers.js';

export { firstHeader, type HeaderMap };

/** Content-Length as a number, when it is one. */
export function declaredLength(h: HeaderMap): number | undefined {
  const v = firstHeader(h, 'content-length');
  return v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : undefined;
}

export type WireRecord =
  | {
      t: 'request';
      xid: string;
      ts: number;
      method: string;
      /** Path and query exactly as the client sent them. */
      url: string;
      upstreamUrl: string;
      headers: HeaderMap;
      /** The origin the client reached us on (e.g. http://127.0.0.1:6481). */
      proxyOrigin: string;
      target: string;
      /** The upstream's name when several are proxied (`--target name=url`). */
      targetName?: string;
      /**
       * Forward mode: this exchange is a blind tunnel (a CONNECT not decrypted, an upgrade), and
       * why, in plain words. Its bytes are counted (`*-skip`), never parsed.
       */
      tunnel?: string;
    }
  | { t: 'request-chunk'; xid: string; ts: number; chunk: Uint8Array }
  /**
   * Body bytes forwarded but not handed to the recorder: past the size it parses (`--max-body`),
   * a JSON or other non-SSE body is only counted and hashed, on the proxy thread.
   */
  | { t: 'request-skip' | 'response-skip'; xid: string; ts: number; bytes: number }
  /** `sha256`: of the whole body, when some of it was skipped (see above). */
  | { t: 'request-end'; xid: string; ts: number; sha256?: string }
  | { t: 'response'; xid: string; ts: number; status: number; headers: HeaderMap }
  /** A response body chunk as the upstream sent it (before any rewrite by the proxy). */
  | { t: 'response-chunk'; xid: string; ts: number; chunk: Uint8Array }
  | { t: 'response-end'; xid: string; ts: number; sha256?: string }
  /** The exchange ended abnormally. `side` says who went away. */
  | { t: 'abort'; xid: string; ts: number; side: 'client' | 'upstream' | 'proxy'; reason: string }
  /** The upstream could not be reached at all; the proxy answered itself with `status`. */
  | { t: 'upstream-error'; xid: string; ts: number; code: string; message: string; status: number }
  /**
   * The proxy changed bytes on the wire. Breakpoints: `pausedId` names the held message acted on;
   * `edited` says that the next message recorded in that direction on this xid is the edited one
   * (its original is `before`): holders capture what they send, after the hold.
   */
  | {
      t: 'modification';
      xid: string;
      ts: number;
      what: string;
      before: string;
      after: string;
      text: string;
      pausedId?: string;
      edited?: 'c2s' | 's2c';
    }
  /**
   * Records were dropped because the consumer fell too far behind (the bytes were forwarded regardless).
   * For a stdio process, `stream` names the stream that lost bytes.
   */
  | { t: 'overflow'; xid: string; ts: number; droppedBytes: number; stream?: StdioStream }
  // ------------------------------------------------------------------ stdio (proxy/app/stdio/stdio-wrapper.ts)
  /**
   * A wrapped stdio server process was started (`xid` names the process). `joined`: the recorder
   * receiving this did not see the process from its start (the wrapper reconnected to a new UI).
   */
  | { t: 'stdio-start'; xid: string; ts: number; command: string; args: string[]; pid?: number; cwd?: string; joined?: boolean }
  /**
   * Bytes on the process's stdin (`c2s`, from the client) or stdout (`s2c`, from the server), as
   * relayed. `sentBy`: whole lines mcpscope itself sent (a send into the session, an answer given
   * at a breakpoint) or took for itself (the answer to its send, never relayed to the client).
   */
  | { t: 'stdio-chunk'; xid: string; ts: number; dir: 'c2s' | 's2c'; chunk: Uint8Array; sentBy?: 'mcpscope' }
  /** Something the wrapper's breakpoints say about a stream (a line too long to hold): a `problem` of the session. */
  | { t: 'stdio-note'; xid: string; ts: number; dir: 'c2s' | 's2c'; code: string; text: string }
  /** Bytes the process wrote to stderr. */
  | { t: 'stdio-stderr'; xid: string; ts: number; chunk: Uint8Array }
  /** The process ended: its exit code, or the signal that killed it. */
  | { t: 'stdio-exit'; xid: string; ts: number; code: number | null; signal: string | null };

export type WireRecordType = WireRecord['t'];

/** The streams of a stdio process: stdin (`c2s`), stdout (`s2c`), stderr. */
export type StdioStream = 'c2s' | 's2c' | 'stderr';

/** Records that carry body bytes (the ones the capture queue may drop under pressure). */
export type ChunkRecord = Extract<WireRecord, { chunk: Uint8Array }>;

export function isChunkRecord(r: WireRecord): r is ChunkRecord {
  return 'chunk' in r;
}

/** Which byte stream of its exchange or process a chunk belongs to (chunks of one stream are parsed in sequence). */
export function chunkStream(r: ChunkRecord): string {
  return r.t === 'stdio-chunk' ? r.dir : r.t === 'stdio-stderr' ? 'stderr' : r.t;
}
