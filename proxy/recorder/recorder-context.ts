/**
 * What both sides of the recorder share — the HTTP exchanges (http-exchanges.ts) and the wrapped
 * stdio processes (stdio-processes.ts) — and the small operations on it: sessions opened and
 * closed, sessions and exchanges marked for re-sending (upserts, flushed once per batch), and the
 * redaction of hints and previews. One per Recorder, passed explicitly to the message path
 * (message-path.ts) and to each side.
 */
import type { Direction, ExchangeInfo, Hint, SessionInfo, TransportKind } from '../core/model/events.js';
import { Correlator } from '../core/correlate/correlator.js';
import { SessionRegistry } from '../core/correlate/session-registry.js';
import type { EventStore } from './store/event-store.js';
import { DEFAULT_MAX_BODY_BYTES } from '../core/parse/body-reader.js';
import { redactPreview, type Redactor } from './redact/redact.js';
import type { RecorderOptions } from './recorder.js';
import { KeptRequests } from './kept-requests.js';
import { Linter, type LintMode } from '../core/lint/linter.js';
import { ModelTurns } from './model-turns.js';
import { WorkerTokenCounter } from './token-counter.js';
import type { HeaderMap } from '../core/model/headers.js';

/** What a frame belongs to: its session, and the HTTP exchange that carried it (none for stdio). */
export interface FrameOwner {
  session?: SessionInfo;
  exchangeId?: string;
  /** Said on every server→client message of the frame (mcpscope's own answer). */
  note?: Hint;
  /** The frame's messages were sent by mcpscope itself (MessageEvent.sentBy): its own request's exchange, a stdio line it wrote or took for itself. */
  sentBy?: boolean;
  /** HTTP: the headers of the client POST whose body this frame is (the spec linter reads MCP-Protocol-Version off them). */
  requestHeaders?: HeaderMap;
  /** HTTP: that POST carried an Mcp-Session-Id the server never assigned (a server that assigns none). */
  unassignedSessionId?: boolean;
}

export const PREVIEW_BYTES = 4096;
/** How far past a preview's cut its text is redacted (previewOf). */
const PREVIEW_MARGIN = 4096;
/** A message keeps its frame's exact text (`raw`) up to this many characters (docs/event-schema.md). */
export const MAX_RAW_BYTES = 256 * 1024;
/** A plain HTTP exchange's JSON body (OAuth metadata, a JWKS) is kept up to this size. */
export const PLAIN_PREVIEW_BYTES = 16 * 1024;
/**
 * A body past the parse limit is not parsed: of what was held for parsing, only this prefix is
 * kept (for the preview) while the rest of it streams through, counted and hashed.
 */
export const TRUNCATED_PREFIX_BYTES = 64 * 1024;

/** An exchange as far as re-sending it goes: its info, copied into an `exchange` upsert. */
interface ExchangeUpsert {
  info: ExchangeInfo;
}

/** Said when an expired session is served again (RecorderContext.servedAgain). */
const REOPENED_TEXT =
  'The server answered this session again after a 404 had said it expired: mcpscope reopened it. A 404 tells the client its session is gone (it must start a new one); a GET the server does not serve should get 405 Method Not Allowed.';

export class RecorderContext {
  readonly store: EventStore;
  readonly redactor: Redactor;
  readonly maxBodyBytes: number;
  readonly registry = new SessionRegistry();
  readonly correlator = new Correlator();
  /** Each HTTP session's latest client POST, unredacted, in memory only (kept-requests.ts): what a resend reuses. */
  readonly kept = new KeptRequests();
  /** Live spec linting (`--lint`, default warn): undefined when off. */
  readonly lintMode: LintMode;
  readonly linter: Linter | undefined;
  /** Model turns and their joins (model-turns.ts); undefined with `modelTraffic: 'plain'`. */
  readonly modelTurns: ModelTurns | undefined;
  private readonly dirtySessions = new Set<SessionInfo>();
  private readonly dirtyExchanges = new Set<ExchangeUpsert>();
  /** Breakpoint edits: `${owner}|${dir}` → seq of the modification event whose `before` is the original of the next message there. */
  private readonly pendingEdits = new Map<string, number>();

  constructor(options: RecorderOptions) {
    this.store = options.store;
    this.redactor = options.redactor;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.lintMode = options.lint ?? 'warn';
    this.linter = this.lintMode === 'off' ? undefined : new Linter();
    this.modelTurns =
      options.modelTraffic === 'plain'
        ? undefined
        : new ModelTurns(this, options.tokenCounter === null ? undefined : (options.tokenCounter ?? new WorkerTokenCounter()));
  }

  newSession(transport: TransportKind, target: string, ts: number, extra: Partial<SessionInfo> = {}, hints: Hint[] = []): SessionInfo {
    const session = this.registry.create(transport, target, ts, extra);
    this.store.append({ type: 'session', ts, session: { ...session, counts: { ...session.counts } } });
    for (const h of hints) this.store.append({ type: 'log', ts, sessionId: session.id, source: 'mcpscope', text: h.text });
    return session;
  }

  closeSession(session: SessionInfo, ts: number, reason: string): void {
    if (!this.registry.close(session, ts, reason)) return;
    // An expired session may yet be served again (servedAgain): what the correlator and the
    // linter know of it (requests in flight, progress tokens, its tools) stays, within their bounds.
    const mayReopen = reason === 'expired';
    this.correlator.closeSession(session.id, mayReopen);
    this.kept.drop(session.id);
    if (!mayReopen) this.linter?.forget(session.id);
    session.counts.pending = 0;
    this.markSession(session);
  }

  /**
   * The server answered a request carrying this session's id with a 2xx (`requestStartedAt`: when
   * that request was sent). A session a 404 said had expired goes on if the request was sent after
   * the 404 (a server that answers a GET it does not serve with 404 instead of 405 does that): it is
   * opened again, with what the correlator knew of it, and said so. A late answer to a request sent
   * before the 404 proves nothing.
   */
  servedAgain(session: SessionInfo, requestStartedAt: number, ts: number): void {
    if (session.status !== 'closed' || session.closeReason !== 'expired' || !(requestStartedAt > (session.endedAt ?? Infinity))) return;
    this.registry.reopen(session);
    this.correlator.reopenSession(session.id);
    this.store.append({ type: 'log', ts, sessionId: session.id, source: 'mcpscope', text: REOPENED_TEXT });
    this.markSession(session);
  }

  /**
   * A breakpoint edit was recorded (the modification event `seq`): the next message `dir` of
   * `owner` (an exchange id, or a stdio session's id) is the edited message as sent.
   */
  markEdited(owner: string, dir: Direction, seq: number): void {
    this.pendingEdits.set(`${owner}|${dir}`, seq);
  }

  /** The modification event that holds the original of this message, if it was edited at a breakpoint. */
  takeEdit(owner: string | undefined, dir: Direction): number | undefined {
    if (owner === undefined || this.pendingEdits.size === 0) return undefined;
    const key = `${owner}|${dir}`;
    const seq = this.pendingEdits.get(key);
    if (seq !== undefined) this.pendingEdits.delete(key);
    return seq;
  }

  markSession(session: SessionInfo): void {
    this.dirtySessions.add(session);
  }

  markExchange(ex: ExchangeUpsert): void {
    this.dirtyExchanges.add(ex);
  }

  emitExchange(ex: ExchangeUpsert): void {
    this.dirtyExchanges.delete(ex);
    this.store.append({ type: 'exchange', ts: Date.now(), exchange: { ...ex.info, hints: [...ex.info.hints] } });
  }

  /**
   * The batch's changed exchanges, then its changed sessions: what an exchange's response did to
   * its session (a DELETE's 200 closed it) comes after that response.
   */
  flushDirty(): void {
    const ts = Date.now();
    for (const ex of this.dirtyExchanges) this.store.append({ type: 'exchange', ts, exchange: { ...ex.info, hints: [...ex.info.hints] } });
    this.dirtyExchanges.clear();
    for (const s of this.dirtySessions) this.store.append({ type: 'session', ts, session: { ...s, counts: { ...s.counts } } });
    this.dirtySessions.clear();
  }

  /** Hint texts quote values, URLs and headers: they are redacted like any free text. */
  redactHints(hints: Hint[]): Hint[] {
    for (let i = 0; i < hints.length; i++) {
      const t = this.redactor.text(hints[i].text);
      if (t !== hints[i].text) hints[i] = { ...hints[i], text: t };
    }
    return hints;
  }

  previewOf(text: string | undefined, type: string | undefined, max = PREVIEW_BYTES): string | undefined {
    if (text === undefined) return undefined;
    // Only what is kept is redacted, with a margin past the cut so that a secret across it is still
    // found whole: a model request of 200 KiB cost 11.7 ms redacted whole for a 16 KiB preview.
    const kept = text.length > max + PREVIEW_MARGIN ? text.slice(0, max + PREVIEW_MARGIN) : text;
    // A form's fields as a query's; JSON (a token response): its credential fields, by parsing, or by pattern when it was cut short.
    return redactPreview(kept, type, this.redactor).slice(0, max);
  }
}
