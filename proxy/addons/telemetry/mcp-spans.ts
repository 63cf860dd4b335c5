/**
 * Stored events → descriptions of OpenTelemetry spans and MCP metrics, following the
 * OpenTelemetry semantic conventions for MCP (docs/gen-ai/mcp.md of open-telemetry/semantic-conventions,
 * now in semantic-conventions-genai). docs/team-setup.md shows what comes out.
 *
 * Pure: no OpenTelemetry import, no I/O, no clock. It is fed the store's committed events in seq
 * (wire) order and appends plain "ops" that proxy/addons/telemetry/otlp-exporter.ts turns into SDK calls:
 *
 * - a JSON-RPC request (either direction) starts a span, kind CLIENT (the sender's view, as seen
 *   where mcpscope sits), named `{mcp.method.name} {target}` — target the tool or prompt name, else
 *   just the method — at the request's wire time;
 * - its response or error ends it at the response's wire time: `error.type` (the JSON-RPC code, or
 *   `tool_error` for a tool result with `isError`), `rpc.response.status_code`, status ERROR with
 *   the JSON-RPC message; a `notifications/cancelled` ends it with `error.type` `cancelled`;
 * - progress (and any other notification that rode on the call's stream) is an event on its span;
 * - a server→client request carried by a POST's SSE stream (`parent`) is a child of that call's span;
 * - `params._meta.traceparent` (and `tracestate`) of a request makes the span a child of that remote
 *   context, so it joins the client's trace (and the server's, which extracts the same context);
 * - a span per MCP session (INTERNAL, `mcp.session`), from its first upsert to its close; each
 *   request span links to it;
 * - the duration metrics (`mcp.{client,server}.operation.duration`, `mcp.{client,server}.session.duration`).
 *
 * Bounded: at most `maxOpen` request spans (default 10,000) are open at once; past it the oldest
 * is ended now, marked `mcpscope.unfinished`, and counted. Sessions likewise (10,000).
 */
import type { McpscopeEvent, MessageEvent, SessionInfo } from '../../core/model/events.js';
import { ModelTurnSpans } from './model-spans.js';

/** A string list only where a convention names one (gen_ai.response.finish_reasons). */
export type AttrValue = string | number | boolean | string[];
export type Attrs = Record<string, AttrValue>;

export type SpanKindName = 'client' | 'internal';

/** A W3C trace context read from `params._meta`. */
export interface RemoteContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState?: string;
}

export type SpanOp =
  | {
      op: 'start';
      key: string;
      name: string;
      kind: SpanKindName;
      /** Epoch ms (fractional). */
      time: number;
      attributes: Attrs;
      /** The span's parent: another span of ours (by key), or a remote context. None: a root. */
      parent?: { key: string } | { remote: RemoteContext };
      /** Spans this one links to: ours by key (the session span), or remote contexts. */
      links?: ({ key: string } | { remote: RemoteContext })[];
    }
  | { op: 'event'; key: string; name: string; time: number; attributes: Attrs }
  | {
      op: 'end';
      key: string;
      time: number;
      attributes: Attrs;
      /** Status ERROR with this description (the JSON-RPC error message), when the operation failed. */
      error?: { message?: string };
    }
  | { op: 'metric'; name: McpMetricName; seconds: number; attributes: Attrs };

export type McpMetricName =
  'mcp.client.operation.duration' | 'mcp.server.operation.duration' | 'mcp.client.session.duration' | 'mcp.server.session.duration';

/** The semantic conventions' explicit bucket boundaries for every MCP duration histogram (seconds). */
export const MCP_DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** What the builder needs of the export redaction (proxy/recorder/redact/redact.ts's Redactor fits). */
export interface SpanRedaction {
  text(text: string): string;
  json<T>(value: T): T;
  url(url: string): string;
}

export interface McpSpanOptions {
  /** `--otlp-bodies`: bodies on the spans (redacted, at most `maxBodyChars` each). */
  bodies?: boolean;
  maxBodyChars?: number;
  /** Export redaction, applied to every string that leaves (the store's events are redacted already). */
  redact?: SpanRedaction;
  maxOpen?: number;
  maxSessions?: number;
}

/** Initialize answers that may wait for their session's upsert at once (see initAnswers). */
const MAX_WAITING_INIT = 1000;
/** The name of the session span (no convention names one). */
const SESSION_SPAN_NAME = 'mcp.session';
/** Session close reasons that mean the session ended with an error (`error.type` on its duration). */
const FAILED_CLOSE = new Set(['expired', 'wrapper-disconnected']);

interface OpenSpan {
  key: string;
  sessionId: string;
  /** Request wire time. */
  time: number;
  method: string;
  /** The metric attributes known at the start (method, target, transport…). */
  metricAttrs: Attrs;
}

interface SessionState {
  info: SessionInfo;
  /** seqs of this session's open request spans. */
  open: Set<number>;
  /** Attributes every span of the session carries (transport, server address, session id, version). */
  common: Attrs;
  /** The same without the session id (high-cardinality: not on metrics). */
  metricCommon: Attrs;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** A `traceparent` value (W3C Trace Context, version 00 and later versions' first four fields), or undefined. */
export function parseTraceparent(value: unknown, tracestate?: unknown): RemoteContext | undefined {
  if (typeof value !== 'string') return undefined;
  const m = TRACEPARENT.exec(value.trim());
  if (!m || m[1] === 'ff' || (m[1] === '00' && m[5] !== undefined)) return undefined;
  if (/^0+$/.test(m[2]) || /^0+$/.test(m[3])) return undefined;
  const ctx: RemoteContext = { traceId: m[2], spanId: m[3], traceFlags: parseInt(m[4], 16) & 0xff };
  if (typeof tracestate === 'string' && tracestate.trim() !== '' && tracestate.length <= 512) ctx.traceState = tracestate.trim();
  return ctx;
}

function paramsOf(m: MessageEvent): Record<string, unknown> | undefined {
  const j = m.jsonrpc as { params?: unknown } | null;
  const p = j && typeof j === 'object' ? j.params : undefined;
  return p && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : undefined;
}

const RESOURCE_METHODS = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe', 'notifications/resources/updated']);

/** `server.address` / `server.port` of an upstream URL (the server behind mcpscope, as the conventions ask). */
function serverOf(target: string): Attrs {
  try {
    const u = new URL(target);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return {};
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
    return { 'server.address': u.hostname.replace(/^\[|\]$/g, ''), 'server.port': port };
  } catch {
    return {};
  }
}

export class McpSpanBuilder {
  private readonly sessions = new Map<string, SessionState>();
  /** Sessions whose span has ended (a later upsert of one does not start another). Bounded FIFO. */
  private readonly ended = new Set<string>();
  private readonly open = new Map<number, OpenSpan>();
  private readonly maxOpen: number;
  private readonly maxSessions: number;
  private readonly maxBody: number;
  /** Request spans ended early because too many were open, or unanswered when their session ended or mcpscope stopped. */
  unfinished = 0;

  /** Model turns' `chat` spans (model-spans.ts); a tools/call a turn chose is their child. */
  private readonly turns: ModelTurnSpans;

  constructor(private readonly options: McpSpanOptions = {}) {
    this.maxOpen = options.maxOpen ?? 10_000;
    this.maxSessions = options.maxSessions ?? 10_000;
    this.maxBody = options.maxBodyChars ?? 8 * 1024;
    this.turns = new ModelTurnSpans({ bodies: options.bodies, redact: options.redact, body: (v) => this.body(v) });
  }

  /** How many request spans are open now. */
  get openSpans(): number {
    return this.open.size;
  }

  /**
   * Initialize answers waiting for their session's next upsert: the recorder learns the session
   * id and protocol version from that answer and commits the session at the end of the same batch,
   * after any other messages of that batch (of this session or others), so the span ends then and
   * carries them too. Keyed by session; bounded (the oldest ends as it is).
   */
  private readonly initAnswers = new Map<string, { span: OpenSpan; answer: MessageEvent }>();

  /** Appends to `out` the ops for one stored event. */
  feed(e: McpscopeEvent, out: SpanOp[]): void {
    if (e.type === 'session') {
      this.session(e.session, out);
      const waiting = this.initAnswers.get(e.session.id);
      if (waiting) {
        this.initAnswers.delete(e.session.id);
        this.finish(waiting.span, waiting.answer, out);
      }
    } else if (e.type === 'message') this.message(e, out);
    else if (e.type === 'model-turn') this.turns.feed(e, out);
  }

  /** Ends every open span now (mcpscope stops): requests as unfinished, sessions without a close. */
  endAll(time: number, out: SpanOp[]): void {
    for (const { span, answer } of this.initAnswers.values()) this.finish(span, answer, out);
    this.initAnswers.clear();
    for (const [seq, span] of [...this.open]) this.endUnfinished(seq, span, time, 'mcpscope-stopped', out);
    for (const [id, s] of [...this.sessions]) this.endSession(id, s, time, { 'mcpscope.unfinished': 'mcpscope-stopped' }, out, false);
  }

  // ---------------------------------------------------------------- sessions

  private text(s: string): string {
    return this.options.redact ? this.options.redact.text(s) : s;
  }

  private session(info: SessionInfo, out: SpanOp[]): void {
    if (info.transport === 'http') return; // plain HTTP buckets are not MCP
    if (this.ended.has(info.id)) {
      // Ended, unless it was reopened (an expired session the server served again): then a new session span.
      if (info.status !== 'open') return;
      this.ended.delete(info.id);
    }
    let s = this.sessions.get(info.id);
    if (!s) s = this.startSession(info, out);
    s.info = info;
    this.setCommon(s);
    if (info.status === 'closed') {
      const attrs: Attrs = {};
      if (info.closeReason) attrs['mcpscope.close_reason'] = info.closeReason;
      this.endSession(info.id, s, info.endedAt ?? info.startedAt, attrs, out, true);
    }
  }

  private setCommon(s: SessionState): void {
    s.metricCommon = this.commonAttrs(s.info, false);
    s.common = this.commonAttrs(s.info, true);
  }

  private commonAttrs(info: SessionInfo, withId: boolean): Attrs {
    const a: Attrs = {};
    if (info.transport === 'stdio') a['network.transport'] = 'pipe';
    else {
      a['network.transport'] = 'tcp';
      a['network.protocol.name'] = 'http';
      Object.assign(a, serverOf(this.options.redact ? this.options.redact.url(info.target) : info.target));
    }
    if (withId && info.mcpSessionId !== undefined) a['mcp.session.id'] = this.text(info.mcpSessionId);
    if (info.protocolVersion !== undefined) a['mcp.protocol.version'] = info.protocolVersion;
    return a;
  }

  private startSession(info: SessionInfo, out: SpanOp[]): SessionState {
    if (this.sessions.size >= this.maxSessions) {
      const [oldId, old] = this.sessions.entries().next().value as [string, SessionState];
      this.endSession(oldId, old, info.startedAt, { 'mcpscope.unfinished': 'too-many-sessions' }, out, false);
    }
    const s: SessionState = { info, open: new Set(), common: {}, metricCommon: {} };
    this.setCommon(s);
    this.sessions.set(info.id, s);
    const attributes: Attrs = { ...s.common, 'mcpscope.session': info.id, 'mcpscope.transport': info.transport };
    if (info.targetName !== undefined) attributes['mcpscope.target_name'] = this.text(info.targetName);
    out.push({ op: 'start', key: `s:${info.id}`, name: SESSION_SPAN_NAME, kind: 'internal', time: info.startedAt, attributes });
    return s;
  }

  private endSession(id: string, s: SessionState, time: number, extra: Attrs, out: SpanOp[], closed: boolean): void {
    const waiting = this.initAnswers.get(id);
    if (waiting) {
      this.initAnswers.delete(id);
      this.finish(waiting.span, waiting.answer, out);
    }
    for (const seq of [...s.open]) {
      const span = this.open.get(seq);
      if (span) this.endUnfinished(seq, span, time, 'session-ended', out);
    }
    this.sessions.delete(id);
    this.ended.add(id);
    if (this.ended.size > this.maxSessions) this.ended.delete(this.ended.values().next().value as string);
    const info = s.info;
    const attributes: Attrs = { ...s.common, ...extra };
    if (info.clientInfo?.name) attributes['mcpscope.client.name'] = this.text(info.clientInfo.name);
    if (info.clientInfo?.version) attributes['mcpscope.client.version'] = this.text(info.clientInfo.version);
    if (info.serverInfo?.name) attributes['mcpscope.server.name'] = this.text(info.serverInfo.name);
    if (info.serverInfo?.version) attributes['mcpscope.server.version'] = this.text(info.serverInfo.version);
    attributes['mcpscope.session.requests'] = info.counts.requests;
    attributes['mcpscope.session.errors'] = info.counts.errors;
    const failed = closed && info.closeReason !== undefined && FAILED_CLOSE.has(info.closeReason);
    if (failed) attributes['error.type'] = info.closeReason!;
    out.push({ op: 'end', key: `s:${id}`, time, attributes, ...(failed ? { error: { message: `session ${info.closeReason}` } } : {}) });
    if (!closed) return;
    const m: Attrs = {};
    for (const k of ['mcp.protocol.version', 'network.transport', 'network.protocol.name'] as const)
      if (s.common[k] !== undefined) m[k] = s.common[k];
    if (failed) m['error.type'] = info.closeReason!;
    const seconds = Math.max(0, time - info.startedAt) / 1000;
    out.push({ op: 'metric', name: 'mcp.client.session.duration', seconds, attributes: m });
    out.push({ op: 'metric', name: 'mcp.server.session.duration', seconds, attributes: m });
  }

  private sessionFor(m: MessageEvent, out: SpanOp[]): SessionState | undefined {
    if (this.ended.has(m.sessionId)) return undefined;
    const s = this.sessions.get(m.sessionId);
    if (s) return s;
    // A message whose session upsert was never seen (evicted before, or the exporter started late).
    const info: SessionInfo = {
      id: m.sessionId,
      transport: m.carrier === 'stdio' ? 'stdio' : 'streamable-http',
      target: '',
      startedAt: m.ts,
      status: 'open',
      counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 0 },
    };
    return this.startSession(info, out);
  }

  // ---------------------------------------------------------------- messages

  private body(value: unknown): string | undefined {
    if (value === undefined) return undefined;
    const redacted = this.options.redact ? this.options.redact.json(value) : value;
    let text: string;
    try {
      text = JSON.stringify(redacted) ?? '';
    } catch {
      return undefined;
    }
    text = this.text(text);
    return text.length > this.maxBody
      ? `${text.slice(0, this.maxBody)}…[${text.length - this.maxBody} more characters cut by mcpscope]`
      : text;
  }

  private message(m: MessageEvent, out: SpanOp[]): void {
    if (m.replayOf !== undefined) return; // a resumed stream's replay: the original was counted
    if (m.kind === 'request') this.request(m, out);
    else if (m.kind === 'response' || m.kind === 'error') this.response(m, out);
    else this.notification(m, out);
  }

  private request(m: MessageEvent, out: SpanOp[]): void {
    const s = this.sessionFor(m, out);
    if (!s) return;
    const method = this.text(m.method ?? '(unknown)');
    const params = paramsOf(m);
    const metricAttrs: Attrs = { ...s.metricCommon, 'mcp.method.name': method };
    let target: string | undefined;
    if (method === 'tools/call' && m.name !== undefined) {
      target = this.text(m.name);
      metricAttrs['gen_ai.tool.name'] = target;
      metricAttrs['gen_ai.operation.name'] = 'execute_tool';
    } else if (method === 'prompts/get' && m.name !== undefined) {
      target = this.text(m.name);
      metricAttrs['gen_ai.prompt.name'] = target;
    }
    const attributes: Attrs = { ...s.common, ...metricAttrs, 'mcpscope.session': m.sessionId, 'mcpscope.direction': m.dir };
    if (m.id !== undefined && m.id !== null) attributes['jsonrpc.request.id'] = this.text(String(m.id));
    if (RESOURCE_METHODS.has(method) && typeof params?.uri === 'string')
      attributes['mcp.resource.uri'] = this.options.redact ? this.options.redact.url(params.uri) : params.uri;
    if (m.sentBy) attributes['mcpscope.sent_by'] = m.sentBy;
    const turnKey = m.modelCall ? this.turns.spanKey(m.modelCall.turn) : undefined;
    if (m.modelCall) {
      attributes['gen_ai.tool.call.id'] = this.text(m.modelCall.callId);
      attributes['mcpscope.model_turn'] = this.text(m.modelCall.turn);
    }
    if (this.options.bodies) {
      if (method === 'tools/call') {
        const args = this.body(params?.arguments);
        if (args !== undefined) attributes['gen_ai.tool.call.arguments'] = args;
      } else {
        const body = this.body(m.jsonrpc);
        if (body !== undefined) attributes['mcpscope.request.body'] = body;
      }
    }
    const meta = params?._meta && typeof params._meta === 'object' ? (params._meta as Record<string, unknown>) : undefined;
    const remote = meta ? parseTraceparent(meta.traceparent, meta.tracestate) : undefined;
    const links: ({ key: string } | { remote: RemoteContext })[] = [{ key: `s:${m.sessionId}` }];
    let parent: { key: string } | { remote: RemoteContext } | undefined;
    if (m.parent !== undefined && this.open.has(m.parent)) {
      parent = { key: `r:${m.parent}` };
      if (remote) links.push({ remote });
    } else if (remote) parent = { remote };
    // The model turn that chose this call ended before it began: its span is the parent, else (a remote parent) a link.
    if (turnKey !== undefined) {
      if (parent === undefined) parent = { key: turnKey };
      else links.push({ key: turnKey });
    }
    if (this.open.size >= this.maxOpen) {
      const [oldSeq, old] = this.open.entries().next().value as [number, OpenSpan];
      this.endUnfinished(oldSeq, old, m.ts, 'too-many-open-spans', out);
    }
    const key = `r:${m.seq}`;
    this.open.set(m.seq, { key, sessionId: m.sessionId, time: m.ts, method, metricAttrs });
    s.open.add(m.seq);
    out.push({
      op: 'start',
      key,
      name: target !== undefined ? `${method} ${target}` : method,
      kind: 'client',
      time: m.ts,
      attributes,
      ...(parent ? { parent } : {}),
      links,
    });
  }

  private close(seq: number): OpenSpan | undefined {
    const span = this.open.get(seq);
    if (!span) return undefined;
    this.open.delete(seq);
    this.sessions.get(span.sessionId)?.open.delete(seq);
    return span;
  }

  private response(m: MessageEvent, out: SpanOp[]): void {
    if (m.pair === undefined) return;
    const span = this.close(m.pair);
    if (!span) return;
    if (span.method === 'initialize' && m.kind === 'response') {
      const earlier = this.initAnswers.get(span.sessionId);
      this.initAnswers.delete(span.sessionId);
      if (earlier) this.finish(earlier.span, earlier.answer, out);
      if (this.initAnswers.size >= MAX_WAITING_INIT) {
        const [oldId, oldest] = this.initAnswers.entries().next().value as [string, { span: OpenSpan; answer: MessageEvent }];
        this.initAnswers.delete(oldId);
        this.finish(oldest.span, oldest.answer, out);
      }
      this.initAnswers.set(span.sessionId, { span, answer: m });
      return;
    }
    this.finish(span, m, out);
  }

  /** Ends a request span with `m`: its response or error, or (`cancelled`) the notifications/cancelled that gave it up. */
  private finish(span: OpenSpan, m: MessageEvent, out: SpanOp[], cancelled = false): void {
    // What the session learnt meanwhile (initialize: the session id and version come with its answer).
    const s = this.sessions.get(span.sessionId);
    const attributes: Attrs = { ...s?.common };
    const metric: Attrs = { ...s?.metricCommon, ...span.metricAttrs };
    let error: { message?: string } | undefined;
    if (cancelled) {
      attributes['error.type'] = metric['error.type'] = 'cancelled';
      const reason = paramsOf(m)?.reason;
      error = { message: typeof reason === 'string' ? this.text(reason) : 'cancelled' };
    } else if (m.kind === 'error' && m.error) {
      const code = String(m.error.code);
      attributes['error.type'] = metric['error.type'] = code;
      attributes['rpc.response.status_code'] = metric['rpc.response.status_code'] = code;
      error = { message: this.text(m.error.message) };
    } else if (m.kind === 'error') {
      attributes['error.type'] = metric['error.type'] = '_OTHER';
      error = {};
    } else if (m.isError) {
      attributes['error.type'] = metric['error.type'] = 'tool_error';
      error = {};
    }
    if (this.options.bodies && !cancelled) {
      const result = (m.jsonrpc as { result?: unknown } | null)?.result;
      if (span.method === 'tools/call' && m.kind === 'response' && !m.isError) {
        const text = this.body(result);
        if (text !== undefined) attributes['gen_ai.tool.call.result'] = text;
      } else {
        const text = this.body(m.jsonrpc);
        if (text !== undefined) attributes['mcpscope.response.body'] = text;
      }
    }
    out.push({ op: 'end', key: span.key, time: Math.max(m.ts, span.time), attributes, ...(error ? { error } : {}) });
    this.durations(span, m.ts, metric, out);
  }

  private durations(span: OpenSpan, time: number, attributes: Attrs, out: SpanOp[]): void {
    const seconds = Math.max(0, time - span.time) / 1000;
    out.push({ op: 'metric', name: 'mcp.client.operation.duration', seconds, attributes });
    out.push({ op: 'metric', name: 'mcp.server.operation.duration', seconds, attributes });
  }

  private notification(m: MessageEvent, out: SpanOp[]): void {
    const method = m.method ?? '';
    if (method === 'notifications/progress' && m.pair !== undefined) {
      const span = this.open.get(m.pair);
      if (!span) return;
      const attributes: Attrs = { 'mcp.method.name': method };
      if (m.progress) {
        attributes['mcpscope.progress'] = m.progress.progress;
        if (m.progress.total !== undefined) attributes['mcpscope.progress.total'] = m.progress.total;
        if (this.options.bodies && m.progress.message !== undefined)
          attributes['mcpscope.progress.message'] = this.text(m.progress.message);
      }
      out.push({ op: 'event', key: span.key, name: method, time: m.ts, attributes });
      return;
    }
    if (method === 'notifications/cancelled' && m.pair !== undefined) {
      const span = this.close(m.pair);
      if (span) this.finish(span, m, out, true);
      return;
    }
    // Another notification on a call's stream (a log line, a resource update…): an event on that call.
    if (m.parent !== undefined && this.open.has(m.parent)) {
      out.push({
        op: 'event',
        key: `r:${m.parent}`,
        name: method || '(notification)',
        time: m.ts,
        attributes: { 'mcp.method.name': method },
      });
    }
  }

  private endUnfinished(seq: number, span: OpenSpan, time: number, why: string, out: SpanOp[]): void {
    this.close(seq);
    this.unfinished += 1;
    out.push({ op: 'end', key: span.key, time: Math.max(time, span.time), attributes: { 'mcpscope.unfinished': why } });
  }
}
