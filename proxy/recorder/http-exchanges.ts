/**
 * The HTTP side of the recorder: one exchange per request/response, MCP or plain HTTP
 * (plain-http.ts decides; http-plain-exchanges.ts records the plain ones), its session (by
 * Mcp-Session-Id, legacy endpoint, or stateless grouping: http-stateless.ts), its request body's
 * messages, its response's head, JSON body or SSE events (http-sse-events.ts), and how it ended.
 * Messages take the shared message path (message-path.ts).
 */
import type { ExchangeInfo, Hint, MessageKind, SessionInfo } from '../core/model/events.js';
import { declaredLength, firstHeader, type HeaderMap, type WireRecord } from '../wire/capture/wire-records.js';
import { classifyPayload, type ClassifyResult } from '../core/parse/jsonrpc.js';
import { BodyReader, type BodyEnd, type Framing } from '../core/parse/body-reader.js';
import { groupingKeyOf } from '../core/correlate/session-registry.js';
import { httpHints } from '../core/annotate/http-hints.js';
import { challengeErrorHint } from '../core/annotate/oauth-hints.js';
import {
  McpEndpoints,
  bodyVerdict,
  endpointOf,
  headVerdict,
  isChallengeBody,
  isJsonRpcText,
  parseJson,
  type ExchangeKind,
  type PlainBodies,
} from './plain-http.js';
import { ownAnswerHint } from './own-answers.js';
import { StreamEndpoints } from './get-stream.js';
import { metaOf, pathAndQuery, targetOf } from './record-helpers.js';
import { mediaType } from '../core/model/media-type.js';
import { emitFrame, problemAt } from './message-path.js';
import { PLAIN_PREVIEW_BYTES, PREVIEW_BYTES, TRUNCATED_PREFIX_BYTES, type FrameOwner, type RecorderContext } from './recorder-context.js';
import { onResponseFrame } from './http-sse-events.js';
import { decide, plainRequestBody, plainResponseBody, plainResponseHead, toPlain } from './http-plain-exchanges.js';
import type { LiveTurn } from './model-turns.js';
import { META_VERSION, cancelByClose, noteStatelessMeta, onListenEnd, statelessSession } from './http-stateless.js';
import { failRefused } from './http-refusals.js';
import { sentByHint, sentByOf } from './kept-requests.js';

export interface ExchangeState {
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
  /** The params of the body's `initialize` (whether it has one: `bodyMethods`). */
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
  /** A model API call (model-turns.ts): its turn. */
  model?: LiveTurn;
  /** mcpscope answered this request itself (own-answers.ts): said on the exchange and on the answer's messages. */
  ownAnswer?: Hint;
  /** The session closes once this response's body is read (its JSON-RPC error still pairs with the request). */
  closeAfter?: string;
  /** The request's path and query, upstream URL and route target as they came (unredacted: kept-requests.ts keeps the client's latest POST's). */
  url: string;
  upstreamUrl: string;
  rawTarget: string;
  /** The request carried an Mcp-Session-Id that its server, which assigns none, never gave out. */
  unassignedSessionId?: boolean;
}

const JOINED_MID_SESSION: Hint = {
  level: 'info',
  code: 'joined-mid-session',
  text: 'mcpscope first saw this session after it had started (its initialize went by before mcpscope was watching).',
};
const UNASSIGNED_ID: Hint = {
  level: 'warn',
  code: 'session-id-not-assigned',
  text: 'The client sent an Mcp-Session-Id that this server never assigned: its initialize was answered without one (a stateless server). mcpscope records these requests as a session of their own.',
};

function keepBounded(set: Set<string>, value: string): void {
  set.add(value);
  if (set.size > 1000) set.delete(set.values().next().value as string);
}

export class HttpExchanges {
  private readonly exchanges = new Map<string, ExchangeState>();
  /** Plain HTTP exchanges' sessions, one per origin. */
  readonly httpBuckets = new Map<string, SessionInfo>();
  private readonly mcpEndpoints = new McpEndpoints();
  private readonly streamEndpoints = new StreamEndpoints();
  /** Mcp-Session-Ids that clients sent to servers that assign none (bounded). */
  private readonly unassignedIds = new Set<string>();

  constructor(readonly ctx: RecorderContext) {}

  get(xid: string): ExchangeState | undefined {
    return this.exchanges.get(xid);
  }

  /** The HTTP exchanges not yet ended (their responses still streaming, or not yet begun). */
  openExchanges(): string[] {
    return [...this.exchanges].filter(([, ex]) => !ex.ended).map(([xid]) => xid);
  }

  /** A record of an exchange already started (its `request` record seen). */
  onRecord(ex: ExchangeState, r: WireRecord): void {
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
        this.ctx.markExchange(ex);
        if (!ex.resReader) return;
        for (const f of ex.resReader.push(r.chunk)) onResponseFrame(this, ex, f, r.ts);
        return;
      }
      case 'response-skip':
        ex.info.responseBytes += r.bytes;
        this.ctx.markExchange(ex);
        ex.resReader?.skip(r.bytes);
        return;
      case 'response-end':
        return this.onResponseEnd(ex, r.ts, r.sha256);
      case 'abort':
        return this.onAbort(ex, r.ts, r.side, r.reason);
      case 'upstream-error':
        return this.onUpstreamError(ex, r.ts, r.code, r.message, r.status);
      case 'modification': {
        const mod = this.ctx.store.append({
          type: 'modification',
          ts: r.ts,
          sessionId: ex.session?.id,
          exchangeId: ex.info.id,
          what: r.what,
          // A Location may carry an authorization code/state in its query: redact it like a URL.
          ...(r.what === 'location-rewrite'
            ? { before: this.ctx.redactor.url(r.before), after: this.ctx.redactor.url(r.after) }
            : { before: this.ctx.redactor.text(r.before), after: this.ctx.redactor.text(r.after) }),
          text: r.text,
          ...(r.pausedId !== undefined ? { pausedId: r.pausedId } : {}),
        });
        if (r.edited) this.ctx.markEdited(ex.info.id, r.edited, mod.seq);
        return;
      }
      case 'stdio-chunk':
      case 'stdio-stderr':
      case 'stdio-exit':
        return; // a process this recorder never saw start
      case 'overflow':
        ex.info.truncated = true;
        ex.reqReader = undefined;
        ex.resReader = undefined;
        this.ctx.markExchange(ex);
        this.problem(
          ex,
          'warn',
          'capture-overflow',
          `mcpscope fell behind and skipped ${r.droppedBytes} bytes of this exchange; they were forwarded, but not recorded, and the rest of its frames are not parsed.`,
        );
        return;
    }
  }

  onRequest(r: Extract<WireRecord, { t: 'request' }>): void {
    const requestType = mediaType(firstHeader(r.headers, 'content-type'));
    const info: ExchangeInfo = {
      id: r.xid,
      method: r.method,
      url: this.ctx.redactor.url(r.url),
      upstreamUrl: r.upstreamUrl ? this.ctx.redactor.url(r.upstreamUrl) : undefined,
      requestHeaders: this.ctx.redactor.headers(r.headers),
      requestType,
      startedAt: r.ts,
      requestBytes: 0,
      responseBytes: 0,
      hints: [],
    };
    const ex: ExchangeState = {
      info,
      proxyOrigin: r.proxyOrigin,
      target: this.ctx.redactor.url(r.target),
      targetName: r.targetName,
      requestHeaders: r.headers,
      bodyKinds: [],
      bodyMethods: [],
      requestSeqs: [],
      ended: false,
      endpoint: endpointOf(r.upstreamUrl || r.target),
      url: r.url,
      upstreamUrl: r.upstreamUrl,
      rawTarget: r.target,
    };
    const sentBy = sentByOf(r.headers);
    if (sentBy) {
      info.sentBy = sentBy;
      info.hints.push(sentByHint(sentBy));
    }
    this.exchanges.set(r.xid, ex);
    if (r.tunnel !== undefined) ex.tunnel = r.tunnel;
    // A tunnel's bytes are never parsed: it is plain HTTP whatever its headers say.
    ex.kind = r.tunnel !== undefined ? 'plain' : headVerdict(r.method, r.url, r.headers, this.mcpEndpoints.has(ex.endpoint, r.target));

    const mcpSessionId = firstHeader(r.headers, 'mcp-session-id');
    const lastEventId = firstHeader(r.headers, 'last-event-id');
    if (lastEventId !== undefined) info.lastEventId = lastEventId;
    if (ex.kind === 'plain') {
      toPlain(this, ex);
    } else if (mcpSessionId) {
      const known = this.ctx.registry.byMcpId(mcpSessionId);
      // An id this server (seen initializing without one) never assigned: the client made it up (spec linter).
      if (!known && this.ctx.registry.headerlessTo(r.target)) keepBounded(this.unassignedIds, mcpSessionId);
      if (this.unassignedIds.has(mcpSessionId)) ex.unassignedSessionId = true;
      const session =
        known ??
        this.ctx.newSession('streamable-http', r.target, r.ts, { ...targetOf(r), mcpSessionId }, [
          ex.unassignedSessionId ? UNASSIGNED_ID : JOINED_MID_SESSION,
        ]);
      this.attach(ex, session);
    } else {
      const key = pathAndQuery(r.url, 'http://x');
      const legacy = key ? this.ctx.registry.byEndpointPath(key) : undefined;
      if (legacy) this.attach(ex, legacy);
    }
    if (ex.session && ex.kind === undefined) ex.kind = 'mcp';
    if (lastEventId !== undefined && ex.session) {
      const original = this.ctx.registry.exchangeOfEvent(ex.session, lastEventId);
      if (original) info.resumes = original;
    }
    if (r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH') {
      const framing: Framing =
        requestType === undefined || requestType === 'application/json' || requestType.endsWith('+json') ? 'json' : 'opaque';
      ex.reqReader = new BodyReader({
        framing,
        encoding: firstHeader(r.headers, 'content-encoding'),
        maxBytes: framing === 'json' ? this.ctx.maxBodyBytes : PREVIEW_BYTES,
        truncatedPrefixBytes: TRUNCATED_PREFIX_BYTES,
        declaredBytes: declaredLength(r.headers),
      });
    }
    this.ctx.emitExchange(ex);
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
      if (verdict === 'plain') toPlain(this, ex);
      else ex.kind = verdict;
    }
    if (ex.kind === 'plain') plainRequestBody(this, ex, end, ts);
    else if (ex.kind === 'mcp') this.mcpRequestBody(ex, end, cls, ts);
    else ex.deferred = { end, ts }; // neither yet: the response decides
  }

  /** The request body of an MCP exchange: its messages (or a problem), and the session they join. */
  mcpRequestBody(ex: ExchangeState, end: BodyEnd, cls: ClassifyResult | undefined, ts: number): void {
    const frame = end.frames[0];
    if (!frame) {
      // Not JSON (a form post, say): keep a redacted preview only.
      ex.info.requestPreview = this.ctx.previewOf(end.text, ex.info.requestType);
      this.ctx.markExchange(ex);
      return;
    }
    if (cls?.ok) {
      ex.bodyKinds = cls.messages.map((m) => m.kind);
      ex.bodyMethods = cls.messages.flatMap((m) => (m.method ? [m.method] : []));
      if (cls.messages.length === 1 && (cls.messages[0].kind === 'request' || cls.messages[0].kind === 'notification')) {
        ex.bodyParams = (cls.messages[0].value as { params?: unknown }).params;
      }
      const version = cls.messages
        .map((m) => metaOf((m.value as { params?: unknown }).params)?.[META_VERSION])
        .find((v) => typeof v === 'string');
      if (typeof version === 'string') ex.bodyVersion = version;
      const init = cls.messages.find((m) => m.method === 'initialize');
      if (init) ex.initializeParams = (init.value as { params?: Record<string, unknown> }).params;
    }
    if (!ex.session) {
      if (hasInitialize(ex)) {
        this.attach(ex, this.ctx.newSession('streamable-http', ex.target, ex.info.startedAt, targetOf(ex)));
      } else {
        const first = cls?.ok ? (cls.messages[0]?.value as { params?: unknown }) : undefined;
        this.attach(ex, statelessSession(this, ex, first?.params));
      }
    }
    if (ex.session && cls?.ok && !hasInitialize(ex)) noteStatelessMeta(this, ex.session, cls.messages[0]?.value);
    if (ex.session && ex.info.method === 'POST' && !ex.info.sentBy && ex.session.transport !== 'http')
      this.ctx.kept.note(
        ex.session.id,
        { url: ex.url, upstreamUrl: ex.upstreamUrl, proxyOrigin: ex.proxyOrigin, target: ex.rawTarget, headers: ex.requestHeaders },
        cls?.ok ? metaOf((cls.messages[0]?.value as { params?: unknown } | undefined)?.params) : undefined,
      );
    if (ex.info.method === 'POST') ex.info.carrier = 'post-body';
    // A request mcpscope sent itself (x-mcpscope-origin): its body's messages are mcpscope's, not the client's.
    const owner: FrameOwner = { ...this.ownerOf(ex), requestHeaders: ex.requestHeaders };
    if (ex.info.sentBy) owner.sentBy = true;
    if (ex.unassignedSessionId) owner.unassignedSessionId = true;
    const seqs = emitFrame(this.ctx, owner, 'c2s', 'post-body', frame, cls, ts);
    ex.requestSeqs = seqs.requests;
    if (seqs.requests.length === 1 && cls?.ok && cls.messages.some((m) => m.kind === 'request' && m.method === 'subscriptions/listen'))
      ex.info.listen = seqs.requests[0];
    if (seqs.requests.length === 1) this.ctx.correlator.setStreamParent(ex.info.id, seqs.requests[0]);
    ex.info.carrier = undefined;
    this.ctx.markExchange(ex);
  }

  private onResponse(ex: ExchangeState, ts: number, status: number, headers: HeaderMap): void {
    const info = ex.info;
    info.status = status;
    info.respondedAt = ts;
    info.responseHeaders = this.ctx.redactor.headers(headers);
    info.responseType = mediaType(firstHeader(headers, 'content-type'));
    const isSse = info.responseType === 'text/event-stream';
    const isJson = info.responseType === 'application/json' || info.responseType?.endsWith('+json') === true;
    // Not known yet: an event stream is MCP; a JSON body decides at its end; anything else is plain.
    if (ex.kind === undefined && (isSse || !isJson)) decide(this, ex, isSse ? 'mcp' : 'plain');
    if (ex.kind === 'plain') return plainResponseHead(this, ex, ts, headers, isJson);
    const assigned = firstHeader(headers, 'mcp-session-id');
    const sentSessionId = firstHeader(ex.requestHeaders, 'mcp-session-id');

    if (!ex.session && info.method === 'GET' && isSse && status < 300 && !sentSessionId) {
      // A GET event stream without a session id: a stateless server's standalone stream, or the legacy HTTP+SSE transport's session stream (get-stream.ts).
      if (this.streamEndpoints.isStreamable(ex.requestHeaders, ex.endpoint)) this.attach(ex, statelessSession(this, ex, undefined));
      else this.attach(ex, this.ctx.newSession('legacy-sse', ex.target, info.startedAt, targetOf(ex)));
    }
    const session = ex.session;
    if (session?.transport === 'streamable-http' && info.method === 'POST' && status < 300) this.streamEndpoints.notePost(ex.endpoint);
    if (session && sentSessionId !== undefined && status < 300) this.ctx.servedAgain(session, info.startedAt, ts);

    if (session && assigned && !session.mcpSessionId) {
      this.ctx.registry.assignMcpId(session, assigned);
      this.ctx.markSession(session);
    }
    // Closed once the body is read, so that the error it carries still pairs with the request.
    if (session && hasInitialize(ex) && status >= 400) ex.closeAfter = 'initialize-rejected';
    else if (session && sentSessionId && status === 404) ex.closeAfter = 'expired';
    if (session && info.method === 'DELETE' && status >= 200 && status < 300) this.ctx.closeSession(session, ts, 'deleted');
    // (Legacy HTTP+SSE sessions never have an Mcp-Session-Id: they are tied to their GET stream, not stateless.)
    if (session && session.transport === 'streamable-http' && hasInitialize(ex) && status < 300 && !assigned && !session.mcpSessionId) {
      session.grouping ??= 'no Mcp-Session-Id (stateless server)';
      this.ctx.registry.markHeaderless(session, groupingKeyOf(ex.initializeParams, ex.target));
      this.ctx.markSession(session);
    }

    if (isSse) {
      info.carrier = session?.transport === 'legacy-sse' ? 'legacy-sse' : info.method === 'POST' ? 'post-sse' : 'get-sse';
      ex.resReader = new BodyReader({
        framing: 'sse',
        encoding: firstHeader(headers, 'content-encoding'),
        maxBytes: this.ctx.maxBodyBytes,
      });
    } else if (isJson) {
      info.carrier = 'post-json';
      ex.resReader = new BodyReader({
        framing: 'json',
        encoding: firstHeader(headers, 'content-encoding'),
        maxBytes: this.ctx.maxBodyBytes,
        truncatedPrefixBytes: TRUNCATED_PREFIX_BYTES,
        declaredBytes: declaredLength(headers),
      });
    } else {
      ex.resReader = new BodyReader({ framing: 'opaque', encoding: firstHeader(headers, 'content-encoding'), maxBytes: PREVIEW_BYTES });
    }

    info.hints = this.ctx.redactHints(
      httpHints({
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
        transport:
          session?.transport === 'legacy-sse' ? 'legacy-sse' : session?.transport === 'streamable-http' ? 'streamable-http' : undefined,
        negotiatedVersion: session?.protocolVersion,
      }),
    );
    ex.ownAnswer = ownAnswerHint(headers);
    if (ex.ownAnswer) info.hints.push(ex.ownAnswer);
    if (info.sentBy) info.hints.push(sentByHint(info.sentBy));
    if (info.resumes)
      info.hints.push({
        level: 'info',
        code: 'resumed',
        text: `Resumes the stream of exchange ${info.resumes} after event ${info.lastEventId}; replayed events are marked, not counted twice.`,
      });
    this.ctx.markExchange(ex);
  }

  private onResponseEnd(ex: ExchangeState, ts: number, sha256?: string): void {
    this.finishResponse(ex, ts, sha256);
    failRefused(this, ex);
    this.closeAfterBody(ex, ts);
    if (ex.info.listen !== undefined) onListenEnd(this, ex, 'server');
    ex.info.endedAt = ts;
    ex.ended = true;
    if (ex.session?.transport === 'legacy-sse' && ex.info.carrier === 'legacy-sse') this.ctx.closeSession(ex.session, ts, 'stream-closed');
    this.ctx.markExchange(ex);
    this.forget(ex);
  }

  private finishResponse(ex: ExchangeState, ts: number, sha256?: string): void {
    const reader = ex.resReader;
    ex.resReader = undefined;
    if (!reader) return;
    const end = reader.end(sha256);
    // A JSON answer to an exchange nothing else told about: JSON-RPC makes it MCP.
    if (ex.kind === undefined) decide(this, ex, end.frames.some((f) => !f.sse && !f.truncated && isJsonRpcText(f.text)) ? 'mcp' : 'plain');
    if (ex.kind === 'plain') {
      plainResponseBody(this, ex, end);
    } else {
      for (const f of end.frames) {
        if (f.sse) onResponseFrame(this, ex, f, ts);
        else if (end.bytes === 0) continue;
        else if (isChallengeBody(ex.info.status, firstHeader(ex.info.responseHeaders, 'www-authenticate'), f.text)) {
          // The authorization layer's answer (RFC 6750), not JSON-RPC: a preview and what its error means.
          ex.info.responsePreview = this.ctx.previewOf(f.text, ex.info.responseType, PLAIN_PREVIEW_BYTES);
          const hint = challengeErrorHint(parseJson(f.text));
          if (hint) ex.info.hints.push(...this.ctx.redactHints([hint]));
        } else emitFrame(this.ctx, this.ownerOf(ex), 's2c', 'post-json', f, f.truncated ? undefined : classifyPayload(f.text), ts);
      }
      if (end.frames.length === 0 && end.text !== undefined && end.bytes > 0) {
        ex.info.responsePreview = this.ctx.previewOf(end.text, ex.info.responseType);
      }
    }
    if (end.incomplete) {
      this.problem(
        ex,
        'warn',
        'truncated-stream',
        `The stream ended in the middle of an SSE event (${end.incomplete.length} bytes after the last complete event); clients discard such a partial event.`,
        end.incomplete.raw,
        {
          offset: end.incomplete.offset,
          length: end.incomplete.length,
        },
      );
    }
    if (end.truncated) ex.info.truncated = true;
    if (end.sha256 !== undefined) this.noteTruncatedBody(ex, 'response', end.bytes, end.sha256);
  }

  private noteTruncatedBody(ex: ExchangeState, which: 'request' | 'response', bytes: number, sha256: string): void {
    ex.info.truncated = true;
    ex.info.truncatedBody = which;
    ex.info.bodyBytes = bytes;
    ex.info.bodySha256 = sha256;
    this.ctx.markExchange(ex);
  }

  private onAbort(ex: ExchangeState, ts: number, side: 'client' | 'upstream' | 'proxy', reason: string): void {
    if (ex.ended) return;
    ex.reqReader = undefined;
    this.finishResponse(ex, ts);
    this.closeAfterBody(ex, ts);
    if (ex.kind === undefined) decide(this, ex, 'plain');
    ex.info.aborted = side;
    ex.info.error = reason;
    ex.info.endedAt = ts;
    ex.ended = true;
    if (side === 'client') {
      ex.info.hints.push({
        level: 'info',
        code: 'client-closed',
        text: 'The client closed this stream; mcpscope closed its upstream request as well, as a direct connection would.',
      });
      if (ex.info.listen !== undefined) onListenEnd(this, ex, 'client');
      else cancelByClose(this, ex);
    } else if (side === 'proxy') {
      this.problem(
        ex,
        'error',
        'proxy-failed',
        `${reason}. The client's connection was cut off there; a direct connection would not have been.`,
      );
    } else {
      if (ex.info.listen !== undefined) onListenEnd(this, ex, 'upstream');
      this.problem(
        ex,
        'error',
        'upstream-reset',
        `${reason}. The client received everything up to that point, then the connection broke as it would have directly.`,
      );
    }
    if (ex.session?.transport === 'legacy-sse' && ex.info.carrier === 'legacy-sse')
      this.ctx.closeSession(ex.session, ts, side === 'client' ? 'client-closed-stream' : 'stream-broken');
    failRefused(this, ex);
    this.ctx.markExchange(ex);
    this.forget(ex);
  }

  private onUpstreamError(ex: ExchangeState, ts: number, code: string, message: string, status: number): void {
    if (ex.kind === undefined) decide(this, ex, 'plain');
    // The answer mcpscope sent in the server's place, when forwarder.ts recorded it (before this
    // record): its JSON-RPC error is the request's answer, paired with it.
    this.finishResponse(ex, ts);
    this.closeAfterBody(ex, ts);
    ex.info.status = status;
    ex.info.error = this.ctx.redactor.text(message);
    ex.info.endedAt = ts;
    ex.ended = true;
    const forbidden = code === 'FORBIDDEN';
    // The forward proxy's refusals (forward-server.ts: a request to the proxy itself, a loop) were never meant for a server.
    const refused = code === 'NOT_PROXY_REQUEST' || code === 'LOOP';
    if (refused) this.problem(ex, 'error', 'refused', message);
    else
      this.problem(
        ex,
        'error',
        forbidden ? 'forbidden' : 'upstream-unreachable',
        forbidden ? `Refused by mcpscope: ${message}` : `${message}. mcpscope answered ${status} with a JSON-RPC error in its place.`,
      );
    failRefused(this, ex);
    this.ctx.markExchange(ex);
    this.forget(ex);
  }

  attach(ex: ExchangeState, session: SessionInfo): void {
    if (ex.session === session) return;
    ex.session = session;
    ex.info.sessionId = session.id;
    session.counts.exchanges += 1;
    if (session.transport !== 'http') this.mcpEndpoints.add(ex.endpoint);
    this.ctx.markSession(session);
    this.ctx.markExchange(ex);
  }

  private forget(ex: ExchangeState): void {
    this.ctx.modelTurns?.finish(ex);
    this.exchanges.delete(ex.info.id);
    this.ctx.correlator.forgetExchange(ex.info.id);
  }

  /** A close the response's head decided, once its body has been read (`closeAfter`). */
  private closeAfterBody(ex: ExchangeState, ts: number): void {
    if (ex.closeAfter !== undefined && ex.session) this.ctx.closeSession(ex.session, ts, ex.closeAfter);
    ex.closeAfter = undefined;
  }

  ownerOf(ex: ExchangeState): FrameOwner {
    return { session: ex.session, exchangeId: ex.info.id, note: ex.ownAnswer };
  }

  private problem(
    ex: ExchangeState | undefined,
    level: 'warn' | 'error',
    code: string,
    text: string,
    raw?: string,
    location?: { offset: number; length: number },
  ): void {
    problemAt(this.ctx, ex && this.ownerOf(ex), level, code, text, raw, location);
  }
}

/** The request body carried an `initialize`. */
function hasInitialize(ex: ExchangeState): boolean {
  return ex.bodyMethods.includes('initialize');
}
