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
 */
import type {
  Carrier,
  Direction,
  ExchangeInfo,
  Hint,
  MessageEvent,
  MessageKind,
  SessionInfo,
  TransportKind,
  UnsequencedEvent,
} from '../model/events.js';
import { declaredLength, firstHeader, type HeaderMap, type StdioStream, type WireRecord } from '../capture/wire-records.js';
import { classifyPayload, type ClassifyResult } from '../parse/jsonrpc.js';
import { Correlator } from '../correlate/correlator.js';
import { SessionRegistry, clientGroupOf, groupingKeyOf } from '../correlate/session-registry.js';
import { errorInfo } from '../annotate/error-codes.js';
import { messageHints } from '../annotate/message-hints.js';
import { messageName, progressOf } from '../parse/mcp-fields.js';
import { httpHints } from '../annotate/http-hints.js';
import { challengeErrorHint, plainHttpHints } from '../annotate/oauth-hints.js';
import type { EventStore } from '../store/event-store.js';
import { BodyReader, DEFAULT_MAX_BODY_BYTES, type BodyEnd, type BodyFrame, type Framing } from '../parse/body-reader.js';
import { redactArgs, redactPreview, type Redactor } from './redact.js';
import { McpEndpoints, bodyVerdict, endpointOf, headVerdict, isChallengeBody, isJsonRpcText, originOf, parseJson, readRequestBody, type ExchangeKind, type PlainBodies } from './plain-http.js';
import { commandLine } from '../stdio/command-line.js';
import { ownAnswerHint } from './own-answers.js';
import { StreamEndpoints } from './get-stream.js';
import { atLeast, byteLength, flatCopy, mayBeJson, mediaType, metaOf, pathAndQuery, pickPeer, stripUndefined, targetOf } from './record-helpers.js';

export interface RecorderOptions {
  store: EventStore;
  redactor: Redactor;
  /** Largest JSON body or SSE event parsed in full (bigger ones keep a prefix). Default 16 MiB. */
  maxBodyBytes?: number;
  /** Raw frame text kept on a message up to this size. Default 256 KiB. */
  maxRawBytes?: number;
}

interface ExchangeState {
  info: ExchangeInfo;
  /** Forward mode: a tunnel relayed blind (or a CONNECT that failed), and why (the request record's `tunnel`). */
  tunnel?: string;
  proxyOrigin: string;
  target: string;
  targetName?: string;
  session?: SessionInfo;
  requestHeaders: HeaderMap;
  reqReader?: BodyReader;
  resReader?: BodyReader;
  /** Kinds and methods of the messages the request body carried. */
  bodyKinds: MessageKind[];
  bodyMethods: string[];
  /** seqs of the requests in the POST body. */
  requestSeqs: number[];
  hasInitialize: boolean;
  initializeParams?: Record<string, unknown>;
  /** The single message of the POST body, for the 2026-07-28 header checks (Mcp-Method, Mcp-Name). */
  bodyParams?: unknown;
  /** Protocol version from the body's `_meta["io.modelcontextprotocol/protocolVersion"]` (2026-07-28 stateless). */
  bodyVersion?: string;
  ended: boolean;
  /** The upstream URL without its query (see plain-http.ts). */
  endpoint: string;
  /** MCP or plain HTTP once known (plain-http.ts); undefined while nothing has told yet. */
  kind?: ExchangeKind;
  /** The request body of an exchange not yet known to be MCP or plain: the response decides. */
  deferred?: { end: BodyEnd; ts: number };
  /** Plain HTTP: the bodies its hints read. */
  plainBodies?: PlainBodies;
  /** mcpscope answered this request itself (own-answers.ts): said on the exchange and on the answer's messages. */
  ownAnswer?: Hint;
  /** The session closes once this response's body is read (its JSON-RPC error still pairs with the request). */
  closeAfter?: string;
}

const STATELESS_VERSION = '2026-07-28';
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const META_CLIENT_CAPS = 'io.modelcontextprotocol/clientCapabilities';

/** A wrapped stdio server process (see proxy/stdio/stdio-wrapper.ts). */
interface ProcessState {
  xid: string;
  session: SessionInfo;
  /** stdin (`c2s`) and stdout (`s2c`) lines. */
  readers: Record<Direction, BodyReader>;
  /**
   * The next line of that direction may be the tail of a line whose start was never seen (after
   * bytes were dropped, or when the recorder joined a running process): if it does not parse, it
   * is noted rather than reported as the peer's mistake.
   */
  partial: Record<Direction, boolean>;
  stderr: BodyReader;
  /** Bytes of each stream, for the exit summary. */
  bytes: Record<StdioStream, number>;
}

/** What a frame belongs to: its session, and the HTTP exchange that carried it (none for stdio). */
interface FrameOwner {
  session?: SessionInfo;
  exchangeId?: string;
  /** Said on every server→client message of the frame (mcpscope's own answer). */
  note?: Hint;
}

const PREVIEW_BYTES = 4096;
/** A plain HTTP exchange's JSON body (OAuth metadata, a JWKS) is kept up to this size. */
const PLAIN_PREVIEW_BYTES = 16 * 1024;
/**
 * A body past the parse limit is not parsed: of what was held for parsing, only this prefix is
 * kept (for the preview) while the rest of it streams through, counted and hashed.
 */
const TRUNCATED_PREFIX_BYTES = 64 * 1024;
/** A stderr line longer than this is cut (the process's stderr still got every byte). */
const STDERR_LINE_BYTES = 8192;

export class Recorder {
  private readonly store: EventStore;
  private readonly redactor: Redactor;
  private readonly maxBodyBytes: number;
  private readonly maxRawBytes: number;
  readonly registry = new SessionRegistry();
  readonly correlator = new Correlator();
  private exchanges = new Map<string, ExchangeState>();
  private processes = new Map<string, ProcessState>();
  private dirtySessions = new Set<SessionInfo>();
  private dirtyExchanges = new Set<ExchangeState>();
  /** Plain HTTP exchanges' sessions, one per origin. */
  private httpBuckets = new Map<string, SessionInfo>();
  private mcpEndpoints = new McpEndpoints();
  private streamEndpoints = new StreamEndpoints();

  constructor(options: RecorderOptions) {
    this.store = options.store;
    this.redactor = options.redactor;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.maxRawBytes = options.maxRawBytes ?? 256 * 1024;
  }

  /** The CaptureQueue consumer. */
  /** The HTTP exchanges not yet ended (their responses still streaming, or not yet begun). */
  openExchanges(): string[] {
    return [...this.exchanges].filter(([, ex]) => !ex.ended).map(([xid]) => xid);
  }

  handle = (records: WireRecord[]): void => {
    for (const r of records) {
      try {
        this.one(r);
      } catch (err) {
        const owner = this.exchanges.get(r.xid) ?? this.processes.get(r.xid);
        this.problemAt(owner && ('info' in owner ? this.ownerOf(owner) : { session: owner.session }), 'error', 'recorder-error', `mcpscope failed to record this (${(err as Error).message}); the traffic itself was forwarded unchanged.`);
      }
    }
    this.flushDirty();
    this.store.commit();
  };

  private one(r: WireRecord): void {
    if (r.t === 'request') return this.onRequest(r);
    if (r.t === 'stdio-start') return this.onStdioStart(r);
    const proc = this.processes.get(r.xid);
    if (proc) return this.onStdioRecord(proc, r);
    const ex = this.exchanges.get(r.xid);
    if (!ex) return;
    switch (r.t) {
      case 'request-chunk':
        ex.info.requestBytes += r.chunk.byteLength;
        ex.reqReader?.push(r.chunk);
        return;
      case 'request-skip':
        ex.info.requestBytes += r.bytes;
        ex.reqReader?.skip(r.bytes);
        return;
      case 'request-end':
        return this.onRequestEnd(ex, r.ts, r.sha256);
      case 'response':
        return this.onResponse(ex, r.ts, r.status, r.headers);
      case 'response-chunk': {
        ex.info.responseBytes += r.chunk.byteLength;
        this.markExchange(ex);
        if (!ex.resReader) return;
        for (const f of ex.resReader.push(r.chunk)) this.onResponseFrame(ex, f, r.ts);
        return;
      }
      case 'response-skip':
        ex.info.responseBytes += r.bytes;
        this.markExchange(ex);
        ex.resReader?.skip(r.bytes);
        return;
      case 'response-end':
        return this.onResponseEnd(ex, r.ts, r.sha256);
      case 'abort':
        return this.onAbort(ex, r.ts, r.side, r.reason);
      case 'upstream-error':
        return this.onUpstreamError(ex, r.ts, r.code, r.message, r.status);
      case 'modification':
        this.store.append({
          type: 'modification',
          ts: r.ts,
          sessionId: ex.session?.id,
          exchangeId: ex.info.id,
          what: r.what,
          // A Location may carry an authorization code/state in its query: redact it like a URL.
          ...(r.what === 'location-rewrite' ? { before: this.redactor.url(r.before), after: this.redactor.url(r.after) } : { before: this.redactor.text(r.before), after: this.redactor.text(r.after) }),
          text: r.text,
        });
        return;
      case 'stdio-chunk':
      case 'stdio-stderr':
      case 'stdio-exit':
        return; // a process this recorder never saw start
      case 'overflow':
        ex.info.truncated = true;
        ex.reqReader = undefined;
        ex.resReader = undefined;
        this.markExchange(ex);
        this.problem(ex, 'warn', 'capture-overflow', `mcpscope fell behind and skipped ${r.droppedBytes} bytes of this exchange; they were forwarded, but not recorded, and the rest of its frames are not parsed.`);
        return;
    }
  }

  // ---------------------------------------------------------------- requests

  private onRequest(r: Extract<WireRecord, { t: 'request' }>): void {
    const requestType = mediaType(firstHeader(r.headers, 'content-type'));
    const info: ExchangeInfo = {
      id: r.xid,
      method: r.method,
      url: this.redactor.url(r.url),
      upstreamUrl: r.upstreamUrl ? this.redactor.url(r.upstreamUrl) : undefined,
      requestHeaders: this.redactor.headers(r.headers),
      requestType,
      startedAt: r.ts,
      requestBytes: 0,
      responseBytes: 0,
      hints: [],
    };
    const ex: ExchangeState = {
      info,
      proxyOrigin: r.proxyOrigin,
      target: this.redactor.url(r.target),
      targetName: r.targetName,
      requestHeaders: r.headers,
      bodyKinds: [],
      bodyMethods: [],
      requestSeqs: [],
      hasInitialize: false,
      ended: false,
      endpoint: endpointOf(r.upstreamUrl || r.target),
    };
    this.exchanges.set(r.xid, ex);
    if (r.tunnel !== undefined) ex.tunnel = r.tunnel;
    // A tunnel's bytes are never parsed: it is plain HTTP whatever its headers say.
    ex.kind = r.tunnel !== undefined ? 'plain' : headVerdict(r.method, r.url, r.headers, this.mcpEndpoints.has(ex.endpoint, r.target));

    const mcpSessionId = firstHeader(r.headers, 'mcp-session-id');
    const lastEventId = firstHeader(r.headers, 'last-event-id');
    if (lastEventId !== undefined) info.lastEventId = lastEventId;
    if (ex.kind === 'plain') {
      this.toPlain(ex);
    } else if (mcpSessionId) {
      const session =
        this.registry.byMcpId(mcpSessionId) ??
        this.newSession('streamable-http', r.target, r.ts, { ...targetOf(r), mcpSessionId }, [
          { level: 'info', code: 'joined-mid-session', text: 'mcpscope first saw this session after it had started (its initialize went by before mcpscope was watching).' },
        ]);
      this.attach(ex, session);
    } else {
      const key = pathAndQuery(r.url, 'http://x');
      const legacy = key ? this.registry.byEndpointPath(key) : undefined;
      if (legacy) this.attach(ex, legacy);
    }
    if (ex.session && ex.kind === undefined) ex.kind = 'mcp';
    if (lastEventId !== undefined && ex.session) {
      const original = this.registry.exchangeOfEvent(ex.session, lastEventId);
      if (original) info.resumes = original;
    }
    if (r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH') {
      const framing: Framing = requestType === undefined || requestType === 'application/json' || requestType.endsWith('+json') ? 'json' : 'opaque';
      ex.reqReader = new BodyReader({ framing, encoding: firstHeader(r.headers, 'content-encoding'), maxBytes: framing === 'json' ? this.maxBodyBytes : PREVIEW_BYTES, truncatedPrefixBytes: TRUNCATED_PREFIX_BYTES, declaredBytes: declaredLength(r.headers) });
    }
    this.emitExchange(ex);
  }

  private onRequestEnd(ex: ExchangeState, ts: number, sha256?: string): void {
    const reader = ex.reqReader;
    ex.reqReader = undefined;
    if (!reader) return;
    const end = reader.end(sha256);
    if (end.bytes === 0) return;
    if (end.sha256 !== undefined) this.noteTruncatedBody(ex, 'request', end.bytes, end.sha256);
    const frame = end.frames[0];
    const cls = frame && !frame.truncated ? classifyPayload(frame.text) : undefined;
    if (ex.kind === undefined) {
      const verdict = bodyVerdict(cls, frame?.text, ex.info.requestType);
      if (verdict === 'plain') this.toPlain(ex);
      else ex.kind = verdict;
    }
    if (ex.kind === 'plain') this.plainRequestBody(ex, end);
    else if (ex.kind === 'mcp') this.mcpRequestBody(ex, end, cls, ts);
    else ex.deferred = { end, ts }; // neither yet: the response decides
  }

  /** The request body of an MCP exchange: its messages (or a problem), and the session they join. */
  private mcpRequestBody(ex: ExchangeState, end: BodyEnd, cls: ClassifyResult | undefined, ts: number): void {
    const frame = end.frames[0];
    if (!frame) {
      // Not JSON (a form post, say): keep a redacted preview only.
      ex.info.requestPreview = this.previewOf(end.text, ex.info.requestType);
      this.markExchange(ex);
      return;
    }
    if (cls?.ok) {
      ex.bodyKinds = cls.messages.map((m) => m.kind);
      ex.bodyMethods = cls.messages.flatMap((m) => (m.method ? [m.method] : []));
      if (cls.messages.length === 1 && (cls.messages[0].kind === 'request' || cls.messages[0].kind === 'notification')) {
        ex.bodyParams = (cls.messages[0].value as { params?: unknown }).params;
      }
      const version = cls.messages.map((m) => metaOf((m.value as { params?: unknown }).params)?.[META_VERSION]).find((v) => typeof v === 'string');
      if (typeof version === 'string') ex.bodyVersion = version;
      const init = cls.messages.find((m) => m.method === 'initialize');
      if (init) {
        ex.hasInitialize = true;
        ex.initializeParams = (init.value as { params?: Record<string, unknown> }).params;
      }
    }
    if (!ex.session) {
      if (ex.hasInitialize) {
        this.attach(ex, this.newSession('streamable-http', ex.target, ex.info.startedAt, targetOf(ex)));
      } else {
        const first = cls?.ok ? (cls.messages[0]?.value as { params?: unknown }) : undefined;
        this.attach(ex, this.statelessSession(ex, first?.params));
      }
    }
    if (ex.session && cls?.ok && !ex.hasInitialize) this.noteStatelessMeta(ex.session, cls.messages[0]?.value);
    if (ex.info.method === 'POST') ex.info.carrier = 'post-body';
    const seqs = this.emitFrame(this.ownerOf(ex), 'c2s', 'post-body', frame, cls, ts);
    ex.requestSeqs = seqs.requests;
    if (seqs.requests.length === 1 && cls?.ok && cls.messages.some((m) => m.kind === 'request' && m.method === 'subscriptions/listen')) ex.info.listen = seqs.requests[0];
    if (seqs.requests.length === 1) this.correlator.setStreamParent(ex.info.id, seqs.requests[0]);
    ex.info.carrier = undefined;
    this.markExchange(ex);
  }

  // ---------------------------------------------------------------- responses

  private onResponse(ex: ExchangeState, ts: number, status: number, headers: HeaderMap): void {
    const info = ex.info;
    info.status = status;
    info.respondedAt = ts;
    info.responseHeaders = this.redactor.headers(headers);
    info.responseType = mediaType(firstHeader(headers, 'content-type'));
    const isSse = info.responseType === 'text/event-stream';
    const isJson = info.responseType === 'application/json' || info.responseType?.endsWith('+json') === true;
    // Not known yet: an event stream is MCP; a JSON body decides at its end; anything else is plain.
    if (ex.kind === undefined && (isSse || !isJson)) this.decide(ex, isSse ? 'mcp' : 'plain');
    if (ex.kind === 'plain') {
      ex.resReader = new BodyReader({ framing: isJson ? 'json' : 'opaque', encoding: firstHeader(headers, 'content-encoding'), maxBytes: isJson ? this.maxBodyBytes : PREVIEW_BYTES, truncatedPrefixBytes: TRUNCATED_PREFIX_BYTES, declaredBytes: declaredLength(headers) });
      this.annotatePlain(ex);
      this.markExchange(ex);
      return;
    }
    const assigned = firstHeader(headers, 'mcp-session-id');
    const sentSessionId = firstHeader(ex.requestHeaders, 'mcp-session-id');

    if (!ex.session && info.method === 'GET' && isSse && status < 300 && !sentSessionId) {
      // A GET event stream without a session id: a stateless server's standalone stream, or the legacy HTTP+SSE transport's session stream (get-stream.ts).
      if (this.streamEndpoints.isStreamable(ex.requestHeaders, ex.endpoint)) this.attach(ex, this.statelessSession(ex, undefined));
      else this.attach(ex, this.newSession('legacy-sse', ex.target, info.startedAt, targetOf(ex)));
    }
    const session = ex.session;
    if (session?.transport === 'streamable-http' && info.method === 'POST' && status < 300) this.streamEndpoints.notePost(ex.endpoint);

    if (session && assigned && !session.mcpSessionId) {
      this.registry.assignMcpId(session, assigned);
      this.markSession(session);
    }
    // Closed once the body is read, so that the error it carries still pairs with the request.
    if (session && ex.hasInitialize && status >= 400) ex.closeAfter = 'initialize-rejected';
    else if (session && sentSessionId && status === 404) ex.closeAfter = 'expired';
    if (session && info.method === 'DELETE' && status >= 200 && status < 300) this.closeSession(session, ts, 'deleted');
    // (Legacy HTTP+SSE sessions never have an Mcp-Session-Id: they are tied to their GET stream, not stateless.)
    if (session && session.transport === 'streamable-http' && ex.hasInitialize && status < 300 && !assigned && !session.mcpSessionId) {
      session.grouping ??= 'no Mcp-Session-Id (stateless server)';
      this.registry.markHeaderless(session, groupingKeyOf(ex.initializeParams, ex.target));
      this.markSession(session);
    }

    if (isSse) {
      info.carrier = session?.transport === 'legacy-sse' ? 'legacy-sse' : info.method === 'POST' ? 'post-sse' : 'get-sse';
      ex.resReader = new BodyReader({ framing: 'sse', encoding: firstHeader(headers, 'content-encoding'), maxBytes: this.maxBodyBytes });
    } else if (isJson) {
      info.carrier = 'post-json';
      ex.resReader = new BodyReader({ framing: 'json', encoding: firstHeader(headers, 'content-encoding'), maxBytes: this.maxBodyBytes, truncatedPrefixBytes: TRUNCATED_PREFIX_BYTES, declaredBytes: declaredLength(headers) });
    } else {
      ex.resReader = new BodyReader({ framing: 'opaque', encoding: firstHeader(headers, 'content-encoding'), maxBytes: PREVIEW_BYTES });
    }

    info.hints = this.redactHints(httpHints({
      method: info.method,
      path: info.url,
      requestHeaders: ex.requestHeaders,
      status,
      // Redacted: a hint quotes the Location, which may carry an authorization code.
      responseHeaders: info.responseHeaders ?? headers,
      bodyKinds: ex.bodyKinds,
      bodyMethods: ex.bodyMethods,
      bodyParams: ex.bodyParams,
      bodyVersion: ex.bodyVersion,
      transport: session?.transport === 'legacy-sse' ? 'legacy-sse' : session?.transport === 'streamable-http' ? 'streamable-http' : undefined,
      negotiatedVersion: session?.protocolVersion,
    }));
    ex.ownAnswer = ownAnswerHint(headers);
    if (ex.ownAnswer) info.hints.push(ex.ownAnswer);
    if (info.resumes) info.hints.push({ level: 'info', code: 'resumed', text: `Resumes the stream of exchange ${info.resumes} after event ${info.lastEventId}; replayed events are marked, not counted twice.` });
    this.markExchange(ex);
  }

  private onResponseFrame(ex: ExchangeState, f: BodyFrame, ts: number): void {
    const sse = f.sse;
    const carrier: Carrier = ex.info.carrier ?? 'post-sse';
    if (!sse) return;
    const session = ex.session;
    if (session && sse.id) this.registry.noteEventId(session, sse.id, ex.info.id);
    const location = { offset: f.offset, length: f.length, eventId: sse.id, eventType: sse.event };
    // Only the events stored as `sse` (not messages) keep the block's raw text: redacted then, not for every frame.
    const base = () => ({ ts, sessionId: session?.id, exchangeId: ex.info.id, raw: this.redactor.text(sse.raw), eventType: sse.event, eventId: sse.id, location });

    if (!sse.dispatch) {
      const comment = sse.comments.length > 0 && sse.id === undefined && sse.retry === undefined;
      this.store.append({
        type: 'sse',
        ...base(),
        what: comment ? 'comment' : 'priming',
        retry: sse.retry,
        comment: sse.comments.join('\n') || undefined,
        hints: comment
          ? [{ level: 'info', code: 'keepalive', text: 'A comment line: servers send these to keep idle connections open. Clients ignore them.' }]
          : [{ level: 'info', code: 'priming', text: `Sets the last event id${sse.retry !== undefined ? ` and a ${sse.retry} ms reconnect delay` : ''} without an event: a client that loses the stream can resume from here with Last-Event-ID.` }],
      });
      return;
    }
    if (sse.event === 'endpoint') {
      if (session && session.transport !== 'legacy-sse' && ex.info.carrier === 'get-sse' && !session.mcpSessionId) return this.onResponseFrame(this.toLegacy(ex, session), f, ts);
      const endpoint = pathAndQuery(f.text.trim(), ex.proxyOrigin + ex.info.url);
      if (session && endpoint) {
        this.registry.mapEndpoint(session, endpoint);
        this.markSession(session);
      }
      this.store.append({
        type: 'sse',
        ...base(),
        what: 'endpoint',
        data: this.redactor.text(f.text),
        hints: [{ level: 'info', code: 'endpoint', text: `Legacy HTTP+SSE handshake: the client will POST its messages to ${endpoint === undefined ? this.redactor.text(f.text) : this.redactor.url(endpoint)}; every answer comes back on this stream.` }],
      });
      return;
    }
    if (f.text.trim() === '') {
      this.store.append({
        type: 'sse',
        ...base(),
        what: 'priming',
        retry: sse.retry,
        data: '',
        hints: [{ level: 'info', code: 'priming', text: 'An event with empty data: the server primes the stream with an event id so the client can resume after a disconnect.' }],
      });
      return;
    }
    if (sse.event !== undefined && sse.event !== 'message') {
      this.store.append({ type: 'sse', ...base(), what: 'other', data: this.redactor.text(f.text.slice(0, PREVIEW_BYTES)), hints: [{ level: 'info', code: 'custom-event', text: `An SSE event of type "${this.redactor.text(sse.event)}", which MCP does not define; clients ignore it.` }] });
      return;
    }
    const cls = f.truncated ? undefined : classifyPayload(f.text);
    this.emitFrame(this.ownerOf(ex), 's2c', carrier, f, cls, ts, sse.id);
  }

  private onResponseEnd(ex: ExchangeState, ts: number, sha256?: string): void {
    this.finishResponse(ex, ts, sha256);
    this.closeAfterBody(ex, ts);
    if (ex.info.listen !== undefined) this.onListenEnd(ex, 'server');
    ex.info.endedAt = ts;
    ex.ended = true;
    if (ex.session?.transport === 'legacy-sse' && ex.info.carrier === 'legacy-sse') this.closeSession(ex.session, ts, 'stream-closed');
    this.markExchange(ex);
    this.forget(ex);
  }

  private finishResponse(ex: ExchangeState, ts: number, sha256?: string): void {
    const reader = ex.resReader;
    ex.resReader = undefined;
    if (!reader) return;
    const end = reader.end(sha256);
    // A JSON answer to an exchange nothing else told about: JSON-RPC makes it MCP.
    if (ex.kind === undefined) this.decide(ex, end.frames.some((f) => !f.sse && !f.truncated && isJsonRpcText(f.text)) ? 'mcp' : 'plain');
    if (ex.kind === 'plain') {
      this.plainResponseBody(ex, end);
    } else {
      for (const f of end.frames) {
        if (f.sse) this.onResponseFrame(ex, f, ts);
        else if (end.bytes === 0) continue;
        else if (isChallengeBody(ex.info.status, firstHeader(ex.info.responseHeaders, 'www-authenticate'), f.text)) {
          // The authorization layer's answer (RFC 6750), not JSON-RPC: a preview and what its error means.
          ex.info.responsePreview = this.previewOf(f.text, ex.info.responseType, PLAIN_PREVIEW_BYTES);
          const hint = challengeErrorHint(parseJson(f.text));
          if (hint) ex.info.hints.push({ ...hint, text: this.redactor.text(hint.text) });
        } else this.emitFrame(this.ownerOf(ex), 's2c', 'post-json', f, f.truncated ? undefined : classifyPayload(f.text), ts);
      }
      if (end.frames.length === 0 && end.text !== undefined && end.bytes > 0) {
        ex.info.responsePreview = this.previewOf(end.text, ex.info.responseType);
      }
    }
    if (end.incomplete) {
      this.problem(ex, 'warn', 'truncated-stream', `The stream ended in the middle of an SSE event (${end.incomplete.length} bytes after the last complete event); clients discard such a partial event.`, end.incomplete.raw, {
        offset: end.incomplete.offset,
        length: end.incomplete.length,
      });
    }
    if (end.truncated) ex.info.truncated = true;
    if (end.sha256 !== undefined) this.noteTruncatedBody(ex, 'response', end.bytes, end.sha256);
  }

  private noteTruncatedBody(ex: ExchangeState, which: 'request' | 'response', bytes: number, sha256: string): void {
    ex.info.truncated = true;
    ex.info.truncatedBody = which;
    ex.info.bodyBytes = bytes;
    ex.info.bodySha256 = sha256;
    this.markExchange(ex);
  }

  private onAbort(ex: ExchangeState, ts: number, side: 'client' | 'upstream' | 'proxy', reason: string): void {
    if (ex.ended) return;
    ex.reqReader = undefined;
    this.finishResponse(ex, ts);
    this.closeAfterBody(ex, ts);
    if (ex.kind === undefined) this.decide(ex, 'plain');
    ex.info.aborted = side;
    ex.info.error = reason;
    ex.info.endedAt = ts;
    ex.ended = true;
    if (side === 'client') {
      ex.info.hints.push({ level: 'info', code: 'client-closed', text: 'The client closed this stream; mcpscope closed its upstream request as well, as a direct connection would.' });
      if (ex.info.listen !== undefined) this.onListenEnd(ex, 'client');
      else this.cancelByClose(ex);
    } else if (side === 'proxy') {
      this.problem(ex, 'error', 'proxy-failed', `${reason}. The client's connection was cut off there; a direct connection would not have been.`);
    } else {
      if (ex.info.listen !== undefined) this.onListenEnd(ex, 'upstream');
      this.problem(ex, 'error', 'upstream-reset', `${reason}. The client received everything up to that point, then the connection broke as it would have directly.`);
    }
    if (ex.session?.transport === 'legacy-sse' && ex.info.carrier === 'legacy-sse') this.closeSession(ex.session, ts, side === 'client' ? 'client-closed-stream' : 'stream-broken');
    this.markExchange(ex);
    this.forget(ex);
  }

  /** The protocol version an exchange speaks: its MCP-Protocol-Version header, its body's `_meta`, or its session's. */
  private versionOf(ex: ExchangeState): string | undefined {
    return firstHeader(ex.requestHeaders, 'mcp-protocol-version')?.trim() ?? ex.bodyVersion ?? ex.session?.protocolVersion;
  }

  /**
   * 2026-07-28: closing a request's response stream is its cancellation. Requests of this exchange
   * still pending when the client went away are marked cancelled. Earlier versions say a
   * disconnect is not a cancellation, so nothing changes for them.
   */
  private cancelByClose(ex: ExchangeState): void {
    const session = ex.session;
    if (!session || ex.requestSeqs.length === 0 || !atLeast(this.versionOf(ex), STATELESS_VERSION)) return;
    const cancelled = this.correlator.cancelByClose(session.id, ex.requestSeqs);
    if (cancelled.length === 0) return;
    ex.info.cancels = cancelled;
    ex.info.hints.push({
      level: 'info',
      code: 'stream-close-cancels',
      text: `The client closed the stream before the answer: in 2026-07-28 this cancels the request (${cancelled.map((n) => `#${n}`).join(', ')}); the server must stop and send nothing more for it.`,
    });
    session.counts.pending = this.correlator.pendingCount(session.id);
    this.markSession(session);
  }

  /** A `subscriptions/listen` stream ended: by the client (it unsubscribes), by the server, or broken. */
  private onListenEnd(ex: ExchangeState, by: 'client' | 'server' | 'upstream'): void {
    if (ex.info.listenEnded !== undefined) return;
    ex.info.listenEnded = by;
    const session = ex.session;
    if (session && ex.info.listen !== undefined) {
      this.correlator.endListen(session.id, [ex.info.listen]);
      session.counts.pending = this.correlator.pendingCount(session.id);
      this.markSession(session);
    }
    const text =
      by === 'client'
        ? `The client closed the subscriptions/listen stream of #${ex.info.listen}: that ends the subscription, and no more notifications arrive on it.`
        : by === 'server'
          ? `The server ended the subscriptions/listen stream of #${ex.info.listen}; the client must listen again to keep receiving notifications.`
          : `The subscriptions/listen stream of #${ex.info.listen} broke; notifications sent meanwhile are lost, and the client must listen again.`;
    ex.info.hints.push({ level: by === 'upstream' ? 'warn' : 'info', code: 'listen-ended', text });
    this.markExchange(ex);
  }

  /** 2026-07-28 stateless requests carry the version and the client's identity in `_meta`: a session without initialize learns them here. */
  private noteStatelessMeta(session: SessionInfo, message: unknown): void {
    const meta = metaOf((message as { params?: unknown } | undefined)?.params);
    if (!meta) return;
    const version = meta[META_VERSION];
    const info = meta[META_CLIENT_INFO] as SessionInfo['clientInfo'] | undefined;
    const caps = meta[META_CLIENT_CAPS];
    let changed = false;
    if (session.protocolVersion === undefined && typeof version === 'string') {
      session.protocolVersion = version;
      changed = true;
    }
    if (session.clientInfo === undefined && info && typeof info.name === 'string') {
      session.clientInfo = pickPeer(info);
      changed = true;
    }
    if (session.clientCapabilities === undefined && typeof caps === 'object' && caps !== null && !Array.isArray(caps)) {
      session.clientCapabilities = caps as Record<string, unknown>;
      changed = true;
    }
    if (changed) this.markSession(session);
  }

  private onUpstreamError(ex: ExchangeState, ts: number, code: string, message: string, status: number): void {
    if (ex.kind === undefined) this.decide(ex, 'plain');
    // The answer mcpscope sent in the server's place, when forwarder.ts recorded it (before this
    // record): its JSON-RPC error is the request's answer, paired with it.
    this.finishResponse(ex, ts);
    this.closeAfterBody(ex, ts);
    ex.info.status = status;
    ex.info.error = this.redactor.text(message);
    ex.info.endedAt = ts;
    ex.ended = true;
    const forbidden = code === 'FORBIDDEN';
    // The forward proxy's refusals (forward-server.ts: a request to the proxy itself, a loop) were never meant for a server.
    const refused = code === 'NOT_PROXY_REQUEST' || code === 'LOOP';
    if (refused) this.problem(ex, 'error', 'refused', this.redactor.text(message));
    else this.problem(ex, 'error', forbidden ? 'forbidden' : 'upstream-unreachable', forbidden ? `Refused by mcpscope: ${message}` : `${message}. mcpscope answered ${status} with a JSON-RPC error in its place.`);
    this.markExchange(ex);
    this.forget(ex);
  }

  // ---------------------------------------------------------------- plain HTTP (plain-http.ts)

  /** The exchange is MCP or plain HTTP after all: a request body held back goes its way now. */
  private decide(ex: ExchangeState, kind: ExchangeKind): void {
    const held = ex.deferred;
    ex.deferred = undefined;
    ex.kind = kind;
    if (kind === 'plain') this.toPlain(ex);
    if (!held) return;
    if (kind === 'plain') this.plainRequestBody(ex, held.end);
    else {
      const frame = held.end.frames[0];
      this.mcpRequestBody(ex, held.end, frame && !frame.truncated ? classifyPayload(frame.text) : undefined, held.ts);
    }
  }

  /** Plain HTTP: no JSON-RPC parse, redacted previews and hints, in the `http` bucket of its origin (never an MCP session). */
  private toPlain(ex: ExchangeState): void {
    ex.kind = 'plain';
    ex.info.plain = true;
    ex.info.carrier = undefined;
    ex.plainBodies ??= {};
    const origin = originOf(ex.info.upstreamUrl, ex.target);
    let bucket = this.httpBuckets.get(origin);
    if (!bucket) {
      bucket = this.newSession('http', origin, ex.info.startedAt, { ...targetOf(ex), grouping: `HTTP traffic to ${origin}` }, [
        { level: 'info', code: 'plain-http', text: `HTTP traffic to ${origin} that is not MCP (OAuth, metadata, …): recorded as HTTP exchanges, not parsed as JSON-RPC.` },
      ]);
      this.httpBuckets.set(origin, bucket);
    }
    this.attach(ex, bucket);
    this.annotatePlain(ex);
  }

  private plainRequestBody(ex: ExchangeState, end: BodyEnd): void {
    const text = end.frames[0]?.text ?? end.text;
    if (text === undefined) return;
    Object.assign((ex.plainBodies ??= {}), readRequestBody(text, ex.info.requestType));
    ex.info.requestPreview = this.previewOf(text, ex.info.requestType, PLAIN_PREVIEW_BYTES);
    this.annotatePlain(ex);
    this.markExchange(ex);
  }

  private plainResponseBody(ex: ExchangeState, end: BodyEnd): void {
    const text = end.frames[0]?.text ?? end.text;
    if (text === undefined || end.bytes === 0) return;
    const frame = end.frames[0];
    if (frame && !frame.truncated) (ex.plainBodies ??= {}).responseJson = parseJson(text);
    ex.info.responsePreview = this.previewOf(text, ex.info.responseType, PLAIN_PREVIEW_BYTES);
    this.annotatePlain(ex);
    if (ex.plainBodies) ex.plainBodies = undefined; // the exchange is done with its bodies
  }

  private annotatePlain(ex: ExchangeState): void {
    const info = ex.info;
    const hints = plainHttpHints({
      method: info.method,
      url: info.url,
      requestType: info.requestType,
      requestHeaders: info.requestHeaders,
      ...ex.plainBodies,
      status: info.status,
      responseType: info.responseType,
      responseHeaders: info.responseHeaders,
    });
    for (const h of hints) h.text = this.redactor.text(h.text);
    // A tunnel says why it was not decrypted (its bytes each way are the request and response sizes).
    if (ex.tunnel !== undefined) hints.unshift({ level: 'info', code: 'tunnel', text: `${info.method === 'CONNECT' ? `CONNECT ${info.url}` : `${info.method} ${info.url}`}: ${this.redactor.text(ex.tunnel)}` });
    info.hints = hints;
    this.markExchange(ex);
  }

  private forget(ex: ExchangeState): void {
    this.exchanges.delete(ex.info.id);
    this.correlator.forgetExchange(ex.info.id);
  }

  // ---------------------------------------------------------------- stdio processes

  private onStdioStart(r: Extract<WireRecord, { t: 'stdio-start' }>): void {
    if (this.processes.has(r.xid)) return;
    const target = this.redactor.text(commandLine(r.command, this.redactor.enabled ? redactArgs(r.args) : r.args));
    const notes: Hint[] = [];
    if (r.joined) {
      notes.push({
        level: 'info',
        code: 'joined-mid-process',
        text: 'mcpscope started recording this process after it had started (its wrapper reconnected to this UI): earlier traffic is not here, and the first line each way may be cut.',
      });
    }
    const session = this.newSession('stdio', target, r.ts, {}, notes);
    const where = [r.pid !== undefined ? `pid ${r.pid}` : undefined, r.cwd ? `working directory ${this.redactor.text(r.cwd)}` : undefined].filter(Boolean).join(', ');
    this.store.append({ type: 'log', ts: r.ts, sessionId: session.id, source: 'mcpscope', text: `Server process started${where ? ` (${where})` : ''}: ${target}` });
    this.processes.set(r.xid, {
      xid: r.xid,
      session,
      readers: { c2s: this.lineReader(), s2c: this.lineReader() },
      partial: { c2s: !!r.joined, s2c: !!r.joined },
      stderr: new BodyReader({ framing: 'ndjson', maxBytes: STDERR_LINE_BYTES }),
      bytes: { c2s: 0, s2c: 0, stderr: 0 },
    });
  }

  private lineReader(): BodyReader {
    return new BodyReader({ framing: 'ndjson', maxBytes: this.maxBodyBytes });
  }

  private onStdioRecord(proc: ProcessState, r: WireRecord): void {
    switch (r.t) {
      case 'stdio-chunk':
        proc.bytes[r.dir] += r.chunk.byteLength;
        for (const f of proc.readers[r.dir].push(r.chunk)) this.onStdioLine(proc, r.dir, f, r.ts);
        return;
      case 'stdio-stderr':
        proc.bytes.stderr += r.chunk.byteLength;
        for (const f of proc.stderr.push(r.chunk)) this.onStderrLine(proc, f, r.ts);
        return;
      case 'stdio-exit':
        return this.onStdioExit(proc, r.ts, r.code, r.signal);
      case 'overflow': {
        // The bytes after the gap cannot be joined to the line before it: start each affected
        // stream afresh, and treat its first line as possibly cut.
        const streams: StdioStream[] = r.stream ? [r.stream] : ['c2s', 's2c', 'stderr'];
        for (const st of streams) {
          if (st === 'stderr') proc.stderr = new BodyReader({ framing: 'ndjson', maxBytes: STDERR_LINE_BYTES });
          else {
            proc.readers[st] = this.lineReader();
            proc.partial[st] = true;
          }
        }
        const what = r.stream === 'c2s' ? "the client's input (stdin)" : r.stream === 's2c' ? "the server's output (stdout)" : r.stream === 'stderr' ? "the server's stderr" : 'this process';
        this.problemAt({ session: proc.session }, 'warn', 'capture-overflow', `mcpscope fell behind and skipped ${r.droppedBytes} bytes of ${what}; they were relayed, but not recorded.`);
        return;
      }
      case 'abort':
        this.finishProcess(proc, r.ts);
        this.store.append({ type: 'log', ts: r.ts, sessionId: proc.session.id, source: 'mcpscope', text: `Recording stopped: ${r.reason}. What the process did afterwards is not known here.` });
        this.closeSession(proc.session, r.ts, 'wrapper-disconnected');
        this.processes.delete(proc.xid);
        return;
      default:
        return;
    }
  }

  private onStdioLine(proc: ProcessState, dir: Direction, f: BodyFrame, ts: number): void {
    const partial = proc.partial[dir];
    proc.partial[dir] = false;
    const cls = f.truncated ? undefined : classifyPayload(f.text);
    if (partial && !cls?.ok) {
      this.store.append({
        type: 'log',
        ts,
        sessionId: proc.session.id,
        source: 'mcpscope',
        text: `Skipped ${f.length} bytes of ${dir === 's2c' ? 'stdout' : 'stdin'}: the rest of a line whose start mcpscope did not see.`,
      });
      return;
    }
    this.emitFrame({ session: proc.session }, dir, 'stdio', f, cls, ts);
  }

  private onStderrLine(proc: ProcessState, f: BodyFrame, ts: number): void {
    const text = f.truncated ? `${f.text} … [line cut: ${f.length} bytes in all]` : f.text;
    this.store.append({ type: 'log', ts, sessionId: proc.session.id, source: 'stderr', text: this.redactor.text(text) });
  }

  /** Flushes what the process's streams still held: a last line without a newline. */
  private finishProcess(proc: ProcessState, ts: number): void {
    for (const dir of ['c2s', 's2c'] as const) {
      for (const f of proc.readers[dir].end().frames) {
        const stream = dir === 's2c' ? "The server's stdout" : "The client's input (the server's stdin)";
        this.problemAt(
          { session: proc.session },
          'warn',
          'unterminated-line',
          `${stream} ended with ${f.length} bytes that no newline terminated. On stdio every message ends with a newline, so the ${dir === 's2c' ? 'client' : 'server'} never acted on them.`,
          f.text.slice(0, PREVIEW_BYTES),
          { offset: f.offset, length: f.length },
        );
      }
    }
    for (const f of proc.stderr.end().frames) this.onStderrLine(proc, f, ts);
  }

  private onStdioExit(proc: ProcessState, ts: number, code: number | null, signal: string | null): void {
    this.finishProcess(proc, ts);
    const session = proc.session;
    const pending = this.correlator.pendingCount(session.id);
    const how = code !== null ? `exited with code ${code}` : signal ? `was ended by ${signal}` : 'ended';
    const waiting = pending > 0 ? ` ${pending} request${pending === 1 ? ' was' : 's were'} still waiting for an answer.` : '';
    this.store.append({ type: 'log', ts, sessionId: session.id, source: 'mcpscope', text: `The server process ${how}.${waiting}` });
    if (code !== null && code !== 0) {
      this.problemAt({ session }, 'warn', 'process-failed', `The server process exited with code ${code} (a failure). Its stderr lines, if any, are in the log above.`);
    }
    this.closeSession(session, ts, 'process-exited');
    this.processes.delete(proc.xid);
  }

  // ---------------------------------------------------------------- messages

  /**
   * Emits the messages of one frame (or a problem when it is not JSON-RPC). Returns the seqs of
   * requests. The one message path of both transports: HTTP frames (owner = their exchange) and
   * stdio lines (owner = the process's session, no exchange).
   */
  private emitFrame(
    owner: FrameOwner,
    dir: Direction,
    carrier: Carrier,
    frame: BodyFrame,
    cls: ClassifyResult | undefined,
    ts: number,
    sseEventId?: string,
  ): { requests: number[] } {
    const requests: number[] = [];
    const session = owner.session;
    const location = { offset: frame.offset, length: frame.length, eventId: frame.sse?.id, eventType: frame.sse?.event };
    if (!cls) {
      // (A copy: a slice would keep the whole prefix string alive in the store.)
      this.problemAt(owner, 'warn', 'too-large', `A ${dir === 'c2s' ? 'client' : 'server'} frame of ${frame.length} bytes is larger than mcpscope parses (${this.maxBodyBytes} bytes); it was forwarded in full, and only its first bytes are kept here.`, flatCopy(frame.text.slice(0, PREVIEW_BYTES)), location);
      return { requests };
    }
    if (!cls.ok) {
      if (cls.code === 'empty' && frame.length === 0) return { requests };
      const text =
        carrier === 'stdio' && dir === 's2c'
          ? `The server wrote a line to stdout that is not a JSON-RPC message (${cls.text}). On stdio, stdout is reserved for JSON-RPC: a banner or log line printed there breaks clients, which fail to parse it or drop the connection. The server should write such text to stderr. mcpscope relayed it unchanged.`
          : carrier === 'stdio'
            ? `The client wrote a line to the server's stdin that is not a JSON-RPC message: ${cls.text}. It was relayed unchanged.`
            : `${dir === 'c2s' ? 'The client sent' : 'The server sent'} something that is not a JSON-RPC message: ${cls.text}. It was forwarded unchanged.`;
      this.problemAt(owner, 'error', cls.code, text, this.redactJsonText(frame.text).slice(0, PREVIEW_BYTES), carrier === 'stdio' ? { offset: frame.offset, length: frame.length } : location);
      return { requests };
    }
    if (cls.tooDeep) {
      this.problemAt(
        owner,
        'warn',
        'too-deep',
        `${dir === 'c2s' ? 'The client' : 'The server'} sent a message nested ${cls.tooDeep.depth} levels deep, more than the ${cls.tooDeep.max} levels mcpscope keeps. It was ${carrier === 'stdio' ? 'relayed' : 'forwarded'} unchanged; the copy recorded here keeps every part deeper than that as text.`,
        undefined,
        carrier === 'stdio' ? { offset: frame.offset, length: frame.length } : location,
      );
    }
    if (!session) return { requests };
    const batchSize = cls.size;
    for (let i = 0; i < cls.messages.length; i++) {
      const m = cls.messages[i];
      const value = m.value as { params?: unknown; result?: unknown; error?: unknown };
      const seq = this.store.peekSeq();
      const name = m.kind === 'request' || m.kind === 'notification' ? messageName(m.method, value.params) : undefined;
      const corr = this.correlator.observe(seq, {
        sessionId: session.id,
        dir,
        kind: m.kind,
        ts,
        id: m.id,
        method: m.method,
        params: value.params,
        result: value.result,
        name,
        exchangeId: owner.exchangeId,
        sseEventId,
        batchIndex: cls.batch ? i : undefined,
      });
      const jsonrpc = this.redactor.json(m.value);
      const single = !cls.batch;
      const rawText = single && !cls.tooDeep && frame.text.length <= this.maxRawBytes && jsonrpc === m.value ? this.redactor.exact(frame.text) : undefined;
      const isError = m.kind === 'response' && (value.result as { isError?: unknown } | undefined)?.isError === true ? true : undefined;
      // Whole-payload issues (a batch, an invalid batch member) go on the payload's first message.
      const hints: Hint[] = [...(i === 0 ? cls.issues : []), ...m.issues, ...corr.issues, ...(owner.note && dir === 's2c' ? [owner.note] : [])];
      if (corr.replayOf === undefined) {
        hints.push(
          ...messageHints({
            dir,
            kind: m.kind,
            method: m.method,
            value: jsonrpc, // what is kept: a hint quotes values (a log notification's data)
            requestMethod: corr.requestMethod,
            requestedVersion: corr.requestMethod === 'initialize' ? session.protocolVersion : undefined,
          }),
        );
      }
      const event: UnsequencedEvent & { type: 'message' } = {
        type: 'message',
        ts,
        sessionId: session.id,
        exchangeId: owner.exchangeId,
        dir,
        kind: m.kind,
        carrier,
        jsonrpc,
        raw: rawText,
        size: single ? byteLength(frame.text) : byteLength(JSON.stringify(m.value)),
        id: m.id,
        method: m.method ?? corr.requestMethod,
        name: name ?? corr.name,
        pair: corr.pair,
        latencyMs: corr.latencyMs,
        parent: corr.parent,
        progressToken: corr.progressToken,
        progress: progressOf(m.method, value.params),
        error: m.kind === 'error' ? errorInfo(value.error) : undefined,
        isError,
        batch: cls.batch ? { index: m.index ?? i, size: batchSize } : undefined,
        location: carrier === 'post-json' || carrier === 'post-body' || carrier === 'stdio' ? { offset: frame.offset, length: frame.length } : location,
        replayOf: corr.replayOf,
        chain: corr.chain,
        task: corr.task,
        hints: this.redactHints(hints),
      };
      const stored = this.store.append(stripUndefined(event)) as MessageEvent;
      if (corr.replayOf !== undefined) continue;
      if (m.kind === 'request') requests.push(stored.seq);
      this.countMessage(session, stored);
      // The session keeps the redacted capabilities, client info and instructions.
      const kept = jsonrpc as typeof value;
      if (m.method === 'initialize' && m.kind === 'request') this.onInitializeRequest(session, kept.params);
      if (corr.requestMethod === 'initialize' && m.kind === 'response') this.onInitializeResult(session, kept.result);
    }
    return { requests };
  }

  private countMessage(session: SessionInfo, m: MessageEvent): void {
    const c = session.counts;
    c.messages += 1;
    if (m.kind === 'request') c.requests += 1;
    if (m.kind === 'error' || m.isError || m.hints.some((h) => h.level === 'error')) c.errors += 1;
    c.pending = this.correlator.pendingCount(session.id);
    this.markSession(session);
  }

  private onInitializeRequest(session: SessionInfo, params: unknown): void {
    const p = params as { protocolVersion?: unknown; clientInfo?: SessionInfo['clientInfo']; capabilities?: Record<string, unknown> } | undefined;
    if (typeof p?.protocolVersion === 'string') session.protocolVersion = p.protocolVersion;
    if (p?.clientInfo && typeof p.clientInfo.name === 'string') session.clientInfo = pickPeer(p.clientInfo);
    if (p?.capabilities) session.clientCapabilities = p.capabilities;
  }

  private onInitializeResult(session: SessionInfo, result: unknown): void {
    const r = result as { protocolVersion?: unknown; serverInfo?: SessionInfo['serverInfo']; capabilities?: Record<string, unknown>; instructions?: unknown } | undefined;
    if (typeof r?.protocolVersion === 'string') session.protocolVersion = r.protocolVersion;
    if (r?.serverInfo && typeof r.serverInfo.name === 'string') session.serverInfo = pickPeer(r.serverInfo);
    if (r?.capabilities) session.serverCapabilities = r.capabilities;
    if (typeof r?.instructions === 'string') session.instructions = r.instructions;
  }

  // ---------------------------------------------------------------- sessions, exchanges, problems

  private newSession(transport: TransportKind, target: string, ts: number, extra: Partial<SessionInfo> = {}, hints: Hint[] = []): SessionInfo {
    const session = this.registry.create(transport, target, ts, extra);
    this.store.append({ type: 'session', ts, session: { ...session, counts: { ...session.counts } } });
    for (const h of hints) this.store.append({ type: 'log', ts, sessionId: session.id, source: 'mcpscope', text: h.text });
    return session;
  }

  private attach(ex: ExchangeState, session: SessionInfo): void {
    if (ex.session === session) return;
    ex.session = session;
    ex.info.sessionId = session.id;
    session.counts.exchanges += 1;
    if (session.transport !== 'http') this.mcpEndpoints.add(ex.endpoint);
    this.markSession(session);
    this.markExchange(ex);
  }

  private closeSession(session: SessionInfo, ts: number, reason: string): void {
    if (!this.registry.close(session, ts, reason)) return;
    this.correlator.closeSession(session.id);
    session.counts.pending = 0;
    this.markSession(session);
  }

  /** A frame that is JSON but not JSON-RPC (an OAuth token response, say): its credential fields are redacted too. */
  private redactJsonText(text: string): string {
    if (mayBeJson(text)) {
      try {
        const value: unknown = JSON.parse(text);
        const redacted = this.redactor.json(value);
        if (redacted !== value) return JSON.stringify(redacted);
      } catch {
        /* not JSON: free-text redaction only */
      }
    }
    return text;
  }

  /** Hint texts quote values, URLs and headers: they are redacted like any free text. */
  private redactHints(hints: Hint[]): Hint[] {
    for (let i = 0; i < hints.length; i++) {
      const t = this.redactor.text(hints[i].text);
      if (t !== hints[i].text) hints[i] = { ...hints[i], text: t };
    }
    return hints;
  }

  private previewOf(text: string | undefined, type: string | undefined, max = PREVIEW_BYTES): string | undefined {
    // A form's fields as a query's; JSON (a token response): its credential fields, by parsing, or by pattern when it was cut short.
    return text === undefined ? undefined : redactPreview(text, type, this.redactor).slice(0, max);
  }

  private problem(
    ex: ExchangeState | undefined,
    level: 'warn' | 'error',
    code: string,
    text: string,
    raw?: string,
    location?: { offset: number; length: number },
  ): void {
    this.problemAt(ex && this.ownerOf(ex), level, code, text, raw, location);
  }

  private problemAt(
    owner: FrameOwner | undefined,
    level: 'warn' | 'error',
    code: string,
    text: string,
    raw?: string,
    location?: { offset: number; length: number },
  ): void {
    this.store.append(
      stripUndefined({
        type: 'problem' as const,
        ts: Date.now(),
        sessionId: owner?.session?.id,
        exchangeId: owner?.exchangeId,
        level,
        code,
        text: this.redactor.text(text),
        raw: raw === undefined ? undefined : this.redactor.text(raw),
        location,
      }),
    );
    if (owner?.session && owner.session.transport !== 'http') {
      owner.session.counts.errors += 1;
      this.markSession(owner.session);
    }
  }

  private ownerOf(ex: ExchangeState): FrameOwner {
    return { session: ex.session, exchangeId: ex.info.id, note: ex.ownAnswer };
  }

  /**
   * The session of requests without an Mcp-Session-Id (stateless servers, 2026-07-28): the newest
   * one of the same client (`params`' `_meta`) and upstream; for a GET stream (no `params`), of the
   * same upstream.
   */
  private statelessSession(ex: ExchangeState, params: unknown): SessionInfo {
    const key = groupingKeyOf(params, ex.target);
    const group = clientGroupOf(params);
    const known = this.registry.headerlessFor(key) ?? (params === undefined ? this.registry.headerlessTo(ex.target) : undefined);
    if (known) return known;
    const session = this.newSession('streamable-http', ex.target, ex.info.startedAt, { ...targetOf(ex), grouping: group === 'anonymous' ? 'requests without Mcp-Session-Id' : group }, [
      { level: 'info', code: 'stateless', text: 'Requests without an Mcp-Session-Id: a stateless server, or a client that skipped initialize. mcpscope groups them here.' },
    ]);
    this.registry.markHeaderless(session, key);
    return session;
  }

  /** A GET stream taken for a stateless server's got the legacy `endpoint` event: it is a legacy HTTP+SSE session stream after all. */
  private toLegacy(ex: ExchangeState, from: SessionInfo): ExchangeState {
    if (from.counts.exchanges === 1 && from.counts.messages === 0) {
      // Its session was opened for this stream: it becomes the legacy session.
      from.transport = 'legacy-sse';
      from.grouping = undefined;
      this.registry.unmarkHeaderless(from);
    } else {
      from.counts.exchanges -= 1;
      ex.session = undefined;
      this.attach(ex, this.newSession('legacy-sse', ex.target, ex.info.startedAt, targetOf(ex)));
    }
    this.markSession(from);
    ex.info.carrier = 'legacy-sse';
    ex.info.hints = ex.info.hints.filter((h) => h.code !== 'standalone-stream');
    return ex;
  }

  /** A close the response's head decided, once its body has been read (`closeAfter`). */
  private closeAfterBody(ex: ExchangeState, ts: number): void {
    if (ex.closeAfter !== undefined && ex.session) this.closeSession(ex.session, ts, ex.closeAfter);
    ex.closeAfter = undefined;
  }

  private emitExchange(ex: ExchangeState): void {
    this.dirtyExchanges.delete(ex);
    this.store.append({ type: 'exchange', ts: Date.now(), exchange: { ...ex.info, hints: [...ex.info.hints] } });
  }

  private markExchange(ex: ExchangeState): void {
    this.dirtyExchanges.add(ex);
  }

  private markSession(session: SessionInfo): void {
    this.dirtySessions.add(session);
  }

  private flushDirty(): void {
    const ts = Date.now();
    for (const s of this.dirtySessions) this.store.append({ type: 'session', ts, session: { ...s, counts: { ...s.counts } } });
    this.dirtySessions.clear();
    for (const ex of this.dirtyExchanges) this.store.append({ type: 'exchange', ts, exchange: { ...ex.info, hints: [...ex.info.hints] } });
    this.dirtyExchanges.clear();
  }
}

