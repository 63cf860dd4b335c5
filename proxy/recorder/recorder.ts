/**
 * The recorder: consumes wire records in batches (off the hot path) and turns them into events.
 *
 *   capture (WireRecord) → BodyReader (frames) → classifyPayload (JSON-RPC) →
 *   SessionRegistry + Correlator (links) → annotations (hints) → redaction → EventStore
 *
 * The same pipeline serves HTTP exchanges and wrapped stdio processes (`stdio-*` records: one
 * session per process, one NDJSON reader per direction, stderr lines as log events).
 *
 * It never throws into the proxy: a failure on one record becomes a `problem` event.
 *
 * This class routes each record to its side — http-exchanges.ts (requests, responses, SSE, plain
 * HTTP) or stdio-processes.ts (wrapped processes) — around one shared RecorderContext
 * (recorder-context.ts); both sides emit messages through message-path.ts.
 */
import type { WireRecord } from '../wire/capture/wire-records.js';
import type { WireSessionKey } from '../core/rules/breakpoint-types.js';
import type { Correlator } from '../core/correlate/correlator.js';
import type { SessionRegistry } from '../core/correlate/session-registry.js';
import type { EventStore } from './store/event-store.js';
import type { Redactor } from './redact/redact.js';
import { RecorderContext } from './recorder-context.js';
import { HttpExchanges } from './http-exchanges.js';
import { StdioProcesses } from './stdio-processes.js';
import { problemAt } from './message-path.js';
import type { KeptRequest } from './kept-requests.js';
import type { LintMode } from '../core/lint/linter.js';
import type { TokenCounter } from './token-counter.js';

export interface RecorderOptions {
  store: EventStore;
  redactor: Redactor;
  /** Largest JSON body or SSE event parsed in full (bigger ones keep a prefix). Default 16 MiB. */
  maxBodyBytes?: number;
  /** Live spec linting: `warn` (the default) records violations as warnings, `strict` as errors, `off` checks nothing. */
  lint?: LintMode;
  /**
   * Model API calls: `parse` (the default) reads them as model turns and joins them to
   * the MCP calls they cause; `plain` records them as any other plain HTTP exchange.
   */
  modelTraffic?: 'parse' | 'plain';
  /** The tokenizer of context-cost estimates; default: gpt-tokenizer on a thread of its own, started on the first model turn. `null`: none. */
  tokenCounter?: TokenCounter | null;
}

export class Recorder {
  readonly registry: SessionRegistry;
  readonly correlator: Correlator;
  private readonly ctx: RecorderContext;
  private readonly http: HttpExchanges;
  private readonly stdio: StdioProcesses;

  constructor(options: RecorderOptions) {
    this.ctx = new RecorderContext(options);
    this.registry = this.ctx.registry;
    this.correlator = this.ctx.correlator;
    this.http = new HttpExchanges(this.ctx);
    this.stdio = new StdioProcesses(this.ctx);
  }

  /** Stops what runs beside the recorder (the tokenizer thread). */
  close(): void {
    this.ctx.modelTurns?.close();
  }

  /** The HTTP exchanges not yet ended (their responses still streaming, or not yet begun). */
  openExchanges(): string[] {
    return this.http.openExchanges();
  }

  /** The session a stdio process (its xid) was recorded as, also shortly after it ended. */
  processSession(xid: string): string | undefined {
    return this.stdio.sessionOf(xid);
  }

  /** The session and exchange an xid (an HTTP exchange, a stdio process) belongs to, as far as recorded now. */
  locate(xid: string): { sessionId?: string; exchangeId?: string } {
    const ex = this.http.get(xid);
    if (ex) return { ...(ex.session ? { sessionId: ex.session.id } : {}), exchangeId: ex.info.id };
    const proc = this.stdio.get(xid);
    return proc ? { sessionId: proc.session.id } : {};
  }

  /**
   * The latest client POST of an HTTP session — where it went and its headers, unredacted — and a
   * stateless client's `_meta` identity (kept-requests.ts): what a resend (proxy/send/) reuses. In
   * memory only; never put it in an event, an export or an API answer.
   */
  keptRequest(sessionId: string): KeptRequest | undefined {
    return this.ctx.kept.get(sessionId);
  }

  /** How a breakpoint holder recognises this session on the wire (core/rules/breakpoint-types.ts), if it can. */
  wireKeyOf(sessionId: string): WireSessionKey | undefined {
    const process = this.stdio.xidOfSession(sessionId);
    if (process !== undefined) return { process };
    const s = this.registry.sessions.get(sessionId);
    if (!s) return undefined;
    if (s.mcpSessionId !== undefined) return { mcpSessionId: s.mcpSessionId };
    if (s.endpoint !== undefined) {
      try {
        const u = new URL(s.endpoint, 'http://x');
        return { endpoint: u.pathname + u.search };
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  /** The CaptureQueue consumer. */
  handle = (records: WireRecord[]): void => {
    for (const r of records) {
      try {
        this.one(r);
      } catch (err) {
        const ex = this.http.get(r.xid);
        const proc = ex ? undefined : this.stdio.get(r.xid);
        problemAt(
          this.ctx,
          ex ? this.http.ownerOf(ex) : proc && { session: proc.session },
          'error',
          'recorder-error',
          `mcpscope failed to record this (${(err as Error).message}); the traffic itself was forwarded unchanged.`,
        );
      }
    }
    this.ctx.flushDirty();
    this.ctx.store.commit();
  };

  private one(r: WireRecord): void {
    if (r.t === 'request') return this.http.onRequest(r);
    if (r.t === 'stdio-start') return this.stdio.onStdioStart(r);
    const proc = this.stdio.get(r.xid);
    if (proc) return this.stdio.onStdioRecord(proc, r);
    const ex = this.http.get(r.xid);
    if (ex) this.http.onRecord(ex, r);
  }
}
