/**
 * The UI port's `/ingest` WebSocket: stdio wrappers (proxy/stdio/stdio-wrapper.ts) send their
 * wire records here, so that every wrapped stdio server of a desktop client shows up in one UI
 * beside the HTTP sessions. Records go into this mcpscope's own capture queue: correlation and
 * seq assignment happen in one place.
 *
 * Each connection gets its own xid namespace (`i3:` + the wrapper's xid), so two wrappers never
 * collide. A process whose wrapper disconnects without reporting its exit is closed as
 * `wrapper-disconnected`.
 */
import type { WebSocket } from 'ws';
import type { WireRecord } from '../capture/wire-records.js';
import { decodeBatch } from '../capture/wire-codec.js';

/** Largest ingest message: a wrapper sends ~256 KiB batches (base64), plus one large chunk at most. */
export const INGEST_MAX_PAYLOAD = 16 * 1024 * 1024;

export class IngestHub {
  private next = 0;
  private readonly sockets = new Set<WebSocket>();

  constructor(private readonly capture: (record: WireRecord) => void) {}

  get connections(): number {
    return this.sockets.size;
  }

  add(ws: WebSocket): void {
    this.next += 1;
    const prefix = `i${this.next}:`;
    /** Processes of this connection that started and have not exited. */
    const running = new Set<string>();
    this.sockets.add(ws);
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        ws.close(1003, 'send batches as JSON text');
        return;
      }
      const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      const decoded = decodeBatch(bytes.toString('utf8'));
      if ('error' in decoded) {
        ws.close(1007, decoded.error.slice(0, 120));
        return;
      }
      for (const r of decoded.records) {
        const xid = prefix + r.xid;
        if (r.t === 'stdio-start') running.add(xid);
        else if (r.t === 'stdio-exit') running.delete(xid);
        this.capture({ ...r, xid });
      }
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      this.sockets.delete(ws);
      const ts = Date.now();
      for (const xid of running)
        this.capture({ t: 'abort', xid, ts, side: 'proxy', reason: 'its mcpscope wrapper disconnected from this UI' });
      running.clear();
    });
  }

  /** Says goodbye to every wrapper (they reconnect to whichever UI takes the port next); cuts off any that does not answer within `graceMs`. */
  close(graceMs = 500): Promise<void> {
    const closing = [...this.sockets].map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === ws.CLOSED) return resolve();
          const timer = setTimeout(() => ws.terminate(), graceMs);
          ws.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          ws.close(1001, 'mcpscope is shutting down');
        }),
    );
    return Promise.all(closing).then(() => undefined);
  }
}
