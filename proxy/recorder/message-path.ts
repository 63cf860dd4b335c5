/**
 * The one message path of both transports: a frame (an HTTP body or SSE event, a stdio line) is
 * classified, correlated, annotated, redacted and stored as `message` events — or, when it is not
 * JSON-RPC, as a `problem`. HTTP frames are owned by their exchange (http-exchanges.ts), stdio
 * lines by their process's session (stdio-processes.ts).
 */
import type { Carrier, Direction, Hint, MessageEvent, SessionInfo, UnsequencedEvent } from '../core/model/events.js';
import type { ClassifyResult } from '../core/parse/jsonrpc.js';
import type { BodyFrame } from '../core/parse/body-reader.js';
import { messageName, progressOf } from '../core/parse/mcp-fields.js';
import { errorInfo } from '../core/annotate/error-codes.js';
import { messageHints } from '../core/annotate/message-hints.js';
import { flatCopy, pickPeer, stripUndefined } from './record-helpers.js';
import { byteLength } from '../core/model/byte-length.js';
import { MAX_RAW_BYTES, PREVIEW_BYTES, type FrameOwner, type RecorderContext } from './recorder-context.js';
import { redactLooseText } from './redact/redact.js';
import { SENT_MESSAGE_HINT } from './kept-requests.js';
import { lintMessage } from './lint-messages.js';

const EDITED_HINT: Hint = {
  level: 'warn',
  code: 'breakpoint-edited',
  text: 'Edited at a breakpoint: this is the message mcpscope sent in place of the original, which the modification event before it keeps.',
};

/**
 * Emits the messages of one frame (or a problem when it is not JSON-RPC). Returns the seqs of
 * requests. The one message path of both transports: HTTP frames (owner = their exchange) and
 * stdio lines (owner = the process's session, no exchange).
 */
export function emitFrame(
  ctx: RecorderContext,
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
    problemAt(
      ctx,
      owner,
      'warn',
      'too-large',
      `A ${dir === 'c2s' ? 'client' : 'server'} frame of ${frame.length} bytes is larger than mcpscope parses (${ctx.maxBodyBytes} bytes); it was forwarded in full, and only its first bytes are kept here.`,
      frame.text,
      location,
    );
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
    problemAt(
      ctx,
      owner,
      'error',
      cls.code,
      text,
      frame.text,
      carrier === 'stdio' ? { offset: frame.offset, length: frame.length } : location,
    );
    return { requests };
  }
  if (cls.tooDeep) {
    problemAt(
      ctx,
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
  // Edited at a breakpoint: the message(s) of this frame are what was sent instead of the original.
  const edited = ctx.takeEdit(owner.exchangeId ?? session.id, dir);
  for (let i = 0; i < cls.messages.length; i++) {
    const m = cls.messages[i];
    const value = m.value as { params?: unknown; result?: unknown; error?: unknown };
    const seq = ctx.store.peekSeq();
    const name = m.kind === 'request' || m.kind === 'notification' ? messageName(m.method, value.params) : undefined;
    const corr = ctx.correlator.observe(seq, {
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
    const jsonrpc = ctx.redactor.json(m.value);
    // What the event holds beside the message (its error, its progress text) is read off the redacted copy.
    const kept = jsonrpc as typeof value;
    const single = !cls.batch;
    const rawText =
      single && !cls.tooDeep && frame.text.length <= MAX_RAW_BYTES && jsonrpc === m.value ? ctx.redactor.exact(frame.text) : undefined;
    const isError = m.kind === 'response' && (value.result as { isError?: unknown } | undefined)?.isError === true ? true : undefined;
    // Whole-payload issues (a batch, an invalid batch member) go on the payload's first message.
    const hints: Hint[] = [
      ...(i === 0 ? cls.issues : []),
      ...m.issues,
      ...corr.issues,
      ...(owner.note && dir === 's2c' ? [owner.note] : []),
      ...(owner.sentBy ? [SENT_MESSAGE_HINT] : []),
    ];
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
    // A tools/call that carries out a model turn's tool call (model-turns.ts): linked both ways.
    const model =
      corr.replayOf === undefined
        ? ctx.modelTurns?.mcpLink(session, {
            seq,
            dir,
            kind: m.kind,
            method: m.method ?? corr.requestMethod,
            params: value.params,
            pair: corr.pair,
          })
        : undefined;
    if (model?.hint) hints.push(model.hint);
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
      name: keptName(ctx, name ?? corr.name),
      pair: corr.pair,
      latencyMs: corr.latencyMs,
      parent: corr.parent,
      progressToken: corr.progressToken,
      progress: progressOf(m.method, kept.params),
      error: m.kind === 'error' ? errorInfo(kept.error) : undefined,
      isError,
      batch: cls.batch ? { index: m.index ?? i, size: batchSize } : undefined,
      location:
        carrier === 'post-json' || carrier === 'post-body' || carrier === 'stdio'
          ? { offset: frame.offset, length: frame.length }
          : location,
      replayOf: corr.replayOf,
      chain: corr.chain,
      task: corr.task,
      edited,
      sentBy: owner.sentBy ? 'mcpscope' : undefined,
      modelCall: model?.link,
      hints: ctx.redactHints(edited === undefined ? hints : [...hints, EDITED_HINT]),
    };
    const stored = ctx.store.append(stripUndefined(event)) as MessageEvent;
    if (corr.replayOf !== undefined) continue;
    if (m.kind === 'request') requests.push(stored.seq);
    // A late answer to a request its HTTP exchange had refused (http-refusals.ts): answered, no longer failed.
    if (corr.answersFailed && session.counts.failed) {
      // Left out at 0, as a session that never failed has it (and as an import of it counts).
      if (session.counts.failed === 1) delete session.counts.failed;
      else session.counts.failed -= 1;
    }
    countMessage(ctx, session, stored);
    ctx.modelTurns?.mcpStored(stored, value);
    // The session keeps the redacted capabilities, client info and instructions.
    if (m.method === 'initialize' && m.kind === 'request') onInitializeRequest(session, kept.params);
    if (corr.requestMethod === 'initialize' && m.kind === 'response') onInitializeResult(session, kept.result);
    if (ctx.linter) {
      lintMessage(ctx, ctx.linter, ctx.lintMode, session, {
        stored,
        value: m.value,
        requestMethod: corr.requestMethod,
        correlatorHints: corr.issues,
        requestHeaders: i === 0 && dir === 'c2s' ? owner.requestHeaders : undefined,
        unassignedSessionId: i === 0 && dir === 'c2s' ? owner.unassignedSessionId : undefined,
      });
    }
  }
  return { requests };
}

/**
 * A message's name as kept: redacted like every string of its message (the same `text` the JSON
 * walk gives `params.name` / `params.uri`), so a `resources/read` of `https://…?access_token=…` is
 * `…access_token=[redacted]` in the store, the API, the feed and search. The correlator keeps the
 * name as it came, in memory, to pair retries.
 */
function keptName(ctx: RecorderContext, name: string | undefined): string | undefined {
  return name === undefined ? undefined : ctx.redactor.text(name);
}

function countMessage(ctx: RecorderContext, session: SessionInfo, m: MessageEvent): void {
  const c = session.counts;
  c.messages += 1;
  if (m.kind === 'request') c.requests += 1;
  if (m.kind === 'error' || m.isError || m.hints.some((h) => h.level === 'error')) c.errors += 1;
  c.pending = ctx.correlator.pendingCount(session.id);
  ctx.markSession(session);
}

function onInitializeRequest(session: SessionInfo, params: unknown): void {
  const p = params as
    { protocolVersion?: unknown; clientInfo?: SessionInfo['clientInfo']; capabilities?: Record<string, unknown> } | undefined;
  if (typeof p?.protocolVersion === 'string') session.protocolVersion = p.protocolVersion;
  if (p?.clientInfo && typeof p.clientInfo.name === 'string') session.clientInfo = pickPeer(p.clientInfo);
  if (p?.capabilities) session.clientCapabilities = p.capabilities;
}

function onInitializeResult(session: SessionInfo, result: unknown): void {
  const r = result as
    | { protocolVersion?: unknown; serverInfo?: SessionInfo['serverInfo']; capabilities?: Record<string, unknown>; instructions?: unknown }
    | undefined;
  if (typeof r?.protocolVersion === 'string') session.protocolVersion = r.protocolVersion;
  if (r?.serverInfo && typeof r.serverInfo.name === 'string') session.serverInfo = pickPeer(r.serverInfo);
  if (r?.capabilities) session.serverCapabilities = r.capabilities;
  if (typeof r?.instructions === 'string') session.instructions = r.instructions;
}

/**
 * A `problem` event. `raw`, the offending text as it came, is redacted whole (as loose text: a
 * frame that is JSON but not JSON-RPC has its credential fields found by key) and only then cut
 * to PREVIEW_BYTES — cut first, a credential across the cut would keep its first characters — and
 * copied (a slice would keep the whole frame's string alive in the store).
 */
export function problemAt(
  ctx: RecorderContext,
  owner: FrameOwner | undefined,
  level: 'warn' | 'error',
  code: string,
  text: string,
  raw?: string,
  location?: { offset: number; length: number },
): void {
  ctx.store.append(
    stripUndefined({
      type: 'problem' as const,
      ts: Date.now(),
      sessionId: owner?.session?.id,
      exchangeId: owner?.exchangeId,
      level,
      code,
      text: ctx.redactor.text(text),
      raw: raw === undefined ? undefined : flatCopy(redactLooseText(raw, ctx.redactor).slice(0, PREVIEW_BYTES)),
      location,
    }),
  );
  if (owner?.session && owner.session.transport !== 'http') {
    owner.session.counts.errors += 1;
    ctx.markSession(owner.session);
  }
}
