/**
 * The annotated log: mcpscope's events as the lines a person reads in a terminal or pastes into a
 * bug report, in the style of an annotated wire log —
 *
 *   09:30:00.005 s1   >>> REQUEST POST http://127.0.0.1:3001/mcp  (x1)
 *   09:30:00.006 s1   #3 C→S request initialize (id 0)
 *                       {  …the message, pretty-printed, bounded…  }
 *                       ↳ what it means (the hints the UI shows)
 *   09:30:00.012 s1   <<< RESPONSE 200 OK (POST http://127.0.0.1:3001/mcp) 7.0 ms  application/json
 *   09:30:00.013 s1   #4 S→C response to #3 initialize (id 0), 8.0 ms
 *   09:30:00.063 s1   SSE << id: e0
 *
 * PURE: no Node builtin (eslint.config.js keeps it so): it imports only the model, its renderer and
 * the hints' word helpers, so the UI or any other consumer can format events too. The live log (`--log`, proxy/files/export/log-writer.ts) and the
 * text export (`format=text`) are the same code path: a `TextLog` fed the store's events in seq
 * order, superseded session/exchange upserts included (`EventStore.history()`), so a session's
 * export is exactly the live log's lines for that session.
 *
 * The events given here must already be redacted for export (export-common.ts `redactEvent`):
 * this module quotes what it is given.
 *
 * Session and exchange upserts print their transitions only: a session once when it appears, when
 * it gets its Mcp-Session-Id, its endpoint, its negotiated version, and when it closes; an exchange's
 * request line once, its response line once the status is known (before the first message of the
 * response), and an end line for event streams, failures, aborts and late hints.
 */
import type { ExchangeInfo, Hint, JsonRpcId, McpscopeEvent, MessageEvent, SessionInfo } from '../../core/model/events.js';
import { formatBytes, formatMs } from '../../core/model/units.js';
import { plural } from '../../core/annotate/hint-text.js';
import { ModelTurnLog } from './text-log-model.js';
import { idText, prettyJsonLines, renderEntry, wrap, type LogEntry, type Segment, type TextLogOptions } from './text-log-render.js';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  304: 'Not Modified',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The headers a request line shows (lower-case, as recorded), and a response line's. */
const REQUEST_HEADERS = ['authorization', 'mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'last-event-id'];
const RESPONSE_HEADERS = ['mcp-session-id', 'www-authenticate', 'location'];

/** Requests remembered for correlation text ("response to #12 tools/call echo"): the newest this many. */
const MAX_REMEMBERED = 100_000;
/** Exchanges remembered at once (an exchange is forgotten when it ends). */
const MAX_EXCHANGES = 20_000;
/** Sessions remembered (what was printed of each): the newest this many. */
const MAX_SESSIONS = 50_000;

interface ExchangeState {
  info: ExchangeInfo;
  requestShown: boolean;
  responseShown: boolean;
  endShown: boolean;
  hintsShown: Set<string>;
}

interface SessionState {
  /** The latest wire time seen in this session: the time shown for its changes (its upserts are stamped when recorded, not on the wire). */
  lastTs: number;
  shownMcpId?: string;
  shownEndpoint?: string;
  initialized: boolean;
  closed: boolean;
}

/** The incremental formatter: feed it events in seq order, batch by batch; it returns the entries to print. */
export class TextLog {
  private readonly exchanges = new Map<string, ExchangeState>();
  private readonly sessions = new Map<string, SessionState>();
  /** seq of a request → what it was (for its response, progress, cancellation). */
  private readonly requests = new Map<number, { method?: string; name?: string; id?: JsonRpcId }>();
  private readonly width: number;
  private readonly maxJsonLines: number;
  private readonly maxLineChars: number;
  private readonly turns = new ModelTurnLog(
    (s) => this.cut(s),
    (h) => this.hintLines(h),
  );

  constructor(options: TextLogOptions = {}) {
    this.width = options.width ?? 100;
    this.maxJsonLines = options.maxJsonLines ?? 20;
    this.maxLineChars = options.maxLineChars ?? 200;
  }

  /** The entries for one batch of events (in seq order, superseded upserts included). */
  push(batch: readonly McpscopeEvent[]): LogEntry[] {
    // An exchange's upserts are made at the end of a recorder batch, after the messages they
    // carried: the next upsert of each exchange after each event, so that the response line can
    // come before the response's first message. (Within the events given: the live log gets the
    // recorder's batch whole, the export the whole history — the same upsert either way.)
    const next: (ExchangeInfo | undefined)[] = new Array(batch.length);
    const latest = new Map<string, ExchangeInfo>();
    for (let i = batch.length - 1; i >= 0; i--) {
      const e = batch[i];
      if (e.type === 'exchange') latest.set(e.exchange.id, e.exchange);
      else if ('exchangeId' in e && e.exchangeId !== undefined) next[i] = latest.get(e.exchangeId);
    }
    const out: LogEntry[] = [];
    batch.forEach((e, i) => this.one(e, next[i], out));
    return out;
  }

  private one(e: McpscopeEvent, nextInfo: ExchangeInfo | undefined, out: LogEntry[]): void {
    if (e.type !== 'session') {
      const st = this.sessions.get((e.type === 'exchange' ? e.exchange.sessionId : e.sessionId) ?? '');
      const ts = e.type === 'exchange' ? (e.exchange.endedAt ?? e.exchange.respondedAt ?? e.exchange.startedAt) : e.ts;
      if (st && ts > st.lastTs) st.lastTs = ts;
    }
    switch (e.type) {
      case 'session':
        return this.session(e.seq, e.session, out);
      case 'exchange':
        return this.exchange(e.seq, e.exchange, out);
      case 'message': {
        const x = e.exchangeId !== undefined ? this.exchanges.get(e.exchangeId) : undefined;
        if (x) this.before(x, e.seq, e.sessionId, e.dir === 's2c', nextInfo, out);
        return void out.push(this.message(e));
      }
      case 'sse': {
        const x = this.exchanges.get(e.exchangeId);
        if (x) this.before(x, e.seq, e.sessionId, true, nextInfo, out);
        const lines: Segment[][] = [];
        for (const raw of e.raw.replace(/(\r\n|\r|\n)+$/, '').split(/\r\n|\r|\n/)) lines.push([['sse', `SSE << ${this.cut(raw)}`]]);
        if (e.what === 'priming') lines[lines.length - 1].push(['note', '  (priming event)']);
        return void out.push({
          seq: e.seq,
          ts: e.ts,
          session: e.sessionId,
          exchange: e.exchangeId,
          kind: 'sse',
          dir: 's2c',
          hints: e.hints,
          correlation: e.what === 'endpoint' ? `endpoint ${e.data ?? ''}` : e.what,
          lines: [...lines, ...this.hintLines(e.hints)],
        });
      }
      case 'problem': {
        const x = e.exchangeId !== undefined ? this.exchanges.get(e.exchangeId) : undefined;
        if (x) this.before(x, e.seq, e.sessionId, false, undefined, out);
        const lines: Segment[][] = [
          [
            [e.level === 'error' ? 'error' : 'warn', `!!! ${e.level === 'error' ? 'ERROR' : 'WARNING'} ${e.code}`],
            ['plain', e.message !== undefined ? ` (message #${e.message}${e.path ? ` at ${e.path}` : ''})` : ''],
          ],
          ...wrap(e.text, this.width).map((t): Segment[] => [['plain', `  ${t}`]]),
        ];
        if (e.expected) lines.push([['note', `  expected: ${e.expected}`]]);
        if (e.specRef) lines.push([['note', `  spec: ${e.specRef}${e.rule ? ` (${e.rule})` : ''}`]]);
        if (e.raw) lines.push([['json', `  bytes: ${this.cut(JSON.stringify(e.raw))}`]]);
        return void out.push({
          seq: e.seq,
          ts: e.ts,
          session: e.sessionId,
          exchange: e.exchangeId,
          kind: 'problem',
          correlation: e.code,
          hints: [{ level: e.level, code: e.code, text: e.text }],
          lines,
        });
      }
      case 'modification':
        return void out.push({
          seq: e.seq,
          ts: e.ts,
          session: e.sessionId,
          exchange: e.exchangeId,
          kind: 'modification',
          correlation: e.what,
          hints: [],
          lines: [
            [['warn', `~~~ CHANGED BY MCPSCOPE (${e.what})`]],
            ...wrap(e.text, this.width).map((t): Segment[] => [['plain', `  ${t}`]]),
            [['note', `  before: ${this.cut(e.before)}`]],
            [['note', `  after:  ${this.cut(e.after)}`]],
          ],
        });
      case 'model-turn':
        return this.turns.push(e, out);
      case 'log':
        return void out.push({
          seq: e.seq,
          ts: e.ts,
          session: e.sessionId,
          kind: 'log',
          correlation: e.source,
          hints: [],
          lines: wrap(e.text, e.source === 'stderr' ? 0 : this.width).map((t, i): Segment[] => [
            ['note', i === 0 ? (e.source === 'stderr' ? 'stderr: ' : 'mcpscope: ') : '  '],
            ['plain', this.cut(t)],
          ]),
        });
      case 'paused':
        return void out.push({
          seq: e.seq,
          ts: e.ts,
          session: e.sessionId,
          exchange: e.exchangeId,
          kind: 'paused',
          dir: e.dir,
          method: e.method,
          name: e.name,
          correlation: e.state === 'held' ? `held by ${e.rule}` : `released: ${e.outcome ?? 'resumed'}`,
          hints: [],
          lines: [
            [
              ['warn', e.state === 'held' ? '||| HELD AT A BREAKPOINT' : `||| RELEASED (${e.outcome ?? 'resumed'})`],
              ['plain', ` ${e.dir === 'c2s' ? 'C→S' : 'S→C'} ${e.kind}${e.method ? ` ${e.method}` : ''}${e.name ? ` ${e.name}` : ''}`],
              ['note', e.state === 'held' ? ` (rule ${e.rule}; paused id ${e.pausedId})` : ` (paused id ${e.pausedId})`],
            ],
          ],
        });
    }
  }

  // ------------------------------------------------------------------ sessions

  private session(seq: number, s: SessionInfo, out: LogEntry[]): void {
    let st = this.sessions.get(s.id);
    const lines: Segment[][] = [];
    if (!st) {
      if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
      st = { lastTs: s.startedAt, initialized: false, closed: false };
      this.sessions.set(s.id, st);
      const what =
        s.transport === 'http'
          ? `HTTP traffic that is not MCP, to ${s.target}`
          : `${s.transport}${s.targetName ? ` ${s.targetName}` : ''} → ${s.target}${s.grouping ? ` (${s.grouping})` : ''}`;
      lines.push([
        ['session', `=== SESSION ${s.id} `],
        ['plain', what],
      ]);
    }
    if (s.mcpSessionId !== undefined && st.shownMcpId !== s.mcpSessionId) {
      st.shownMcpId = s.mcpSessionId;
      lines.push([
        ['session', `=== SESSION ${s.id} `],
        ['plain', `Mcp-Session-Id: ${s.mcpSessionId}`],
      ]);
    }
    if (s.endpoint !== undefined && st.shownEndpoint !== s.endpoint) {
      st.shownEndpoint = s.endpoint;
      lines.push([
        ['session', `=== SESSION ${s.id} `],
        ['plain', `endpoint: ${s.endpoint} (the client POSTs its messages there)`],
      ]);
    }
    if (!st.initialized && s.serverInfo !== undefined) {
      st.initialized = true;
      const peer = (p?: { name: string; version?: string }) => (p ? `${p.name}${p.version ? ` ${p.version}` : ''}` : '?');
      lines.push([
        ['session', `=== SESSION ${s.id} initialized: `],
        ['plain', `client ${peer(s.clientInfo)}, server ${peer(s.serverInfo)}, protocol ${s.protocolVersion ?? '?'}`],
      ]);
    }
    if (st.closed && s.status === 'open') {
      st.closed = false;
      lines.push([
        ['session', `=== SESSION ${s.id} reopened`],
        ['plain', ': the server served it again'],
      ]);
    }
    if (!st.closed && s.status === 'closed') {
      st.closed = true;
      const c = s.counts;
      const tally =
        s.transport === 'http'
          ? plural(c.exchanges, 'exchange')
          : `${plural(c.messages, 'message')}, ${plural(c.requests, 'request')}, ${plural(c.errors, 'error')}${c.violations ? `, ${plural(c.violations, 'spec violation')}` : ''}`;
      lines.push([
        ['session', `=== SESSION ${s.id} closed`],
        ['plain', `${s.closeReason ? ` (${s.closeReason})` : ''}: ${tally}`],
      ]);
    }
    if (lines.length === 0) return;
    out.push({
      seq,
      ts: s.status === 'closed' && s.endedAt !== undefined ? s.endedAt : st.lastTs,
      session: s.id,
      kind: 'session',
      correlation: s.status,
      hints: [],
      lines,
    });
  }

  // ------------------------------------------------------------------ exchanges

  private exchange(seq: number, info: ExchangeInfo, out: LogEntry[]): void {
    let x = this.exchanges.get(info.id);
    if (!x) {
      if (this.exchanges.size >= MAX_EXCHANGES) this.exchanges.delete(this.exchanges.keys().next().value as string);
      x = { info, requestShown: false, responseShown: false, endShown: false, hintsShown: new Set() };
      this.exchanges.set(info.id, x);
    }
    x.info = info;
    // A request that belongs to no session yet (an initialize, a GET stream, OAuth) waits for
    // what makes its session known: its first message, or its response.
    if (!x.requestShown && (info.sessionId !== undefined || info.status !== undefined || info.endedAt !== undefined))
      out.push(this.requestLine(seq, x, info.sessionId));
    if (x.requestShown && !x.responseShown && info.status !== undefined) out.push(this.responseLine(seq, x, info));
    if (x.requestShown && !x.endShown && info.endedAt !== undefined) {
      const end = this.endLine(seq, x, info);
      if (end) out.push(end);
      x.endShown = true;
      this.exchanges.delete(info.id);
    }
  }

  /** Before an event on exchange `x`: its request line, and (for what the server sent) its response line. */
  private before(
    x: ExchangeState,
    seq: number,
    session: string | undefined,
    s2c: boolean,
    nextInfo: ExchangeInfo | undefined,
    out: LogEntry[],
  ) {
    if (!x.requestShown) out.push(this.requestLine(seq, x, session ?? x.info.sessionId));
    if (s2c && !x.responseShown) {
      const info = nextInfo?.status !== undefined ? nextInfo : x.info.status !== undefined ? x.info : undefined;
      if (info) out.push(this.responseLine(seq, x, info));
    }
  }

  private newHints(x: ExchangeState, hints: readonly Hint[]): Hint[] {
    const fresh = hints.filter((h) => !x.hintsShown.has(h.code));
    for (const h of fresh) x.hintsShown.add(h.code);
    return fresh;
  }

  private target(info: ExchangeInfo): string {
    return this.cut(info.upstreamUrl ?? info.url);
  }

  private requestLine(seq: number, x: ExchangeState, session: string | undefined): LogEntry {
    x.requestShown = true;
    const info = x.info;
    const sent = info.sentBy ? ` sent by mcpscope (${info.sentBy})` : '';
    const type = info.requestType ? `  ${info.requestType}` : '';
    return {
      seq,
      ts: info.startedAt,
      session: session ?? info.sessionId,
      exchange: info.id,
      kind: 'request',
      dir: 'c2s',
      method: info.method,
      hints: [],
      lines: [
        [
          ['request', `>>> REQUEST ${info.method} ${this.target(info)}`],
          ['note', `  (${info.id})${type}${sent}`],
        ],
        ...this.headerLine(info.requestHeaders, REQUEST_HEADERS),
      ],
    };
  }

  /** The headers that matter to MCP, on one line (values as redacted for export). */
  private headerLine(headers: Record<string, string | string[]> | undefined, names: readonly string[]): Segment[][] {
    if (!headers) return [];
    const parts: string[] = [];
    for (const name of names) {
      const v = headers[name];
      if (v !== undefined) parts.push(`${name}: ${Array.isArray(v) ? v.join(', ') : v}`);
    }
    return parts.length > 0 ? [[['note', this.cut(`Headers: ${parts.join(' · ')}`)]]] : [];
  }

  private responseLine(seq: number, x: ExchangeState, info: ExchangeInfo): LogEntry {
    x.responseShown = true;
    const status = info.status!;
    const latency = info.respondedAt !== undefined ? info.respondedAt - info.startedAt : undefined;
    const hints = this.newHints(x, info.hints);
    const preview = info.responsePreview !== undefined && !info.responseType?.includes('event-stream') ? info.responsePreview : undefined;
    return {
      seq,
      ts: info.respondedAt ?? info.startedAt,
      session: info.sessionId,
      exchange: info.id,
      kind: 'response',
      dir: 's2c',
      method: info.method,
      status,
      latencyMs: latency,
      correlation: `response to ${info.method} ${info.url}`,
      hints,
      lines: [
        [
          [status >= 400 ? 'bad' : 'ok', `<<< RESPONSE ${status}${STATUS_TEXT[status] ? ` ${STATUS_TEXT[status]}` : ''}`],
          ['plain', ` (${info.method} ${this.target(info)})${latency !== undefined ? ` ${formatMs(latency)}` : ''}`],
          ['note', info.responseType ? `  ${info.responseType}` : ''],
        ],
        ...this.headerLine(info.responseHeaders, RESPONSE_HEADERS),
        ...(preview !== undefined && preview !== '' ? [[['json', `Body: ${this.cut(preview.replace(/\s+/g, ' '))}`] as Segment]] : []),
        ...this.hintLines(hints),
      ],
    };
  }

  private endLine(seq: number, x: ExchangeState, info: ExchangeInfo): LogEntry | undefined {
    const hints = this.newHints(x, info.hints);
    const stream = info.carrier === 'post-sse' || info.carrier === 'get-sse' || info.carrier === 'legacy-sse';
    if (!stream && !info.aborted && !info.error && hints.length === 0 && x.responseShown) return undefined;
    const took = info.endedAt! - info.startedAt;
    const head: Segment[] = info.error
      ? [
          ['error', `!!! FAILED ${info.method} ${this.target(info)}`],
          ['plain', `: ${info.error}`],
        ]
      : info.aborted
        ? [
            ['error', `!!! ABORTED ${info.method} ${this.target(info)}`],
            [
              'plain',
              ` after ${formatMs(took)}: ${info.aborted === 'client' ? 'the client went away' : info.aborted === 'upstream' ? 'the server closed or reset the connection' : 'mcpscope cut it off'}`,
            ],
          ]
        : [
            ['note', `=== END ${info.method} ${this.target(info)}`],
            ['plain', `${info.status !== undefined ? ` ${info.status}` : ''}, ${formatBytes(info.responseBytes)} in ${formatMs(took)}`],
          ];
    return {
      seq,
      ts: info.endedAt!,
      session: info.sessionId,
      exchange: info.id,
      kind: 'end',
      method: info.method,
      status: info.status,
      latencyMs: took,
      correlation: info.error ? 'failed' : info.aborted ? `aborted by ${info.aborted}` : 'ended',
      hints,
      lines: [head, ...this.hintLines(hints)],
    };
  }

  // ------------------------------------------------------------------ messages

  private message(m: MessageEvent): LogEntry {
    const arrow = m.dir === 'c2s' ? 'C→S' : 'S→C';
    const req = m.pair !== undefined ? this.requests.get(m.pair) : undefined;
    const method = m.method ?? req?.method;
    const name = m.name ?? req?.name;
    const what = `${method ?? ''}${name ? ` ${name}` : ''}`;
    const of = (seq: number | undefined) => {
      if (seq === undefined) return '';
      const r = this.requests.get(seq);
      return ` of #${seq}${r?.method ? ` ${r.method}` : ''}${r?.name ? ` ${r.name}` : ''}`;
    };
    let correlation: string;
    switch (m.kind) {
      case 'request':
        correlation = `request ${what} (id ${idText(m.id)})${m.parent !== undefined ? `, on the stream${of(m.parent)}` : ''}`;
        if (this.requests.size >= MAX_REMEMBERED) this.requests.delete(this.requests.keys().next().value as number);
        this.requests.set(m.seq, { method: m.method, name: m.name, id: m.id });
        break;
      case 'response':
      case 'error': {
        const to = m.pair !== undefined ? `to #${m.pair} ${what}`.trimEnd() : `to an unseen request`;
        const head = m.kind === 'error' ? `error ${m.error?.code ?? ''} ${m.error?.message ?? ''}`.replace(/\s+/g, ' ').trim() : 'response';
        correlation = `${head} ${to} (id ${idText(m.id)})${m.latencyMs !== undefined ? `, ${formatMs(m.latencyMs)}` : ''}${m.isError ? ', tool error (isError)' : ''}`;
        break;
      }
      default:
        if (m.progress) {
          const p = m.progress;
          correlation = `progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}${of(m.pair)}${p.message ? ` "${p.message}"` : ''}`;
        } else if (method === 'notifications/cancelled') correlation = `cancellation${of(m.pair)}`;
        else correlation = `notification ${method ?? '?'}${m.parent !== undefined ? `, on the stream${of(m.parent)}` : ''}`;
    }
    const extra = [
      m.carrier === 'post-sse' || m.carrier === 'get-sse' || m.carrier === 'legacy-sse'
        ? [
            m.location?.eventId ? `event id ${m.location.eventId}` : '',
            m.location?.eventType && m.location.eventType !== 'message' ? `event ${m.location.eventType}` : '',
          ]
            .filter(Boolean)
            .join(', ') || undefined
        : undefined,
      m.batch ? `batch ${m.batch.index + 1}/${m.batch.size}` : undefined,
      m.replayOf !== undefined ? `replay of #${m.replayOf}` : undefined,
      m.sentBy ? 'sent by mcpscope' : undefined,
      m.edited !== undefined ? `edited at a breakpoint (#${m.edited})` : undefined,
      m.truncated ? 'truncated: only a prefix was kept' : undefined,
    ].filter((s): s is string => s !== undefined);
    const sse = m.carrier === 'post-sse' || m.carrier === 'get-sse' || m.carrier === 'legacy-sse';
    const bad = m.kind === 'error' || m.isError === true;
    const lines: Segment[][] = [
      [
        ['note', `#${m.seq} `],
        [m.dir === 'c2s' ? 'c2s' : 's2c', `${sse ? 'SSE << ' : ''}${arrow} `],
        [bad ? 'error' : 'plain', correlation],
        ['note', extra.length > 0 ? `  [${extra.join(', ')}]` : ''],
        ['note', m.modelCall && m.kind === 'request' ? this.cut(`  ← model turn ${m.modelCall.turn} (${m.modelCall.name})`) : ''],
      ],
    ];
    const pretty = prettyJsonLines(m.jsonrpc, this.maxJsonLines, this.maxLineChars);
    for (const l of pretty.lines) lines.push([['json', l]]);
    if (pretty.more > 0)
      lines.push([['note', `… ${pretty.more} more line${pretty.more === 1 ? '' : 's'} (${formatBytes(m.size)} in all)`]]);
    lines.push(...this.hintLines(m.hints));
    return {
      seq: m.seq,
      ts: m.ts,
      session: m.sessionId,
      exchange: m.exchangeId,
      kind: 'message',
      dir: m.dir,
      method,
      name,
      id: m.id,
      correlation,
      latencyMs: m.latencyMs,
      hints: m.hints,
      message: m.jsonrpc,
      size: m.size,
      lines,
    };
  }

  private hintLines(hints: readonly Hint[]): Segment[][] {
    const out: Segment[][] = [];
    for (const h of hints) {
      const label = h.level === 'info' ? '' : `${h.level === 'warn' ? 'warning' : 'error'}: `;
      wrap(`${label}${h.text}`, this.width).forEach((t, i) => out.push([[h.level, `${i === 0 ? '↳ ' : '  '}${t}`]]));
    }
    return out;
  }

  private cut(s: string): string {
    return s.length > this.maxLineChars ? `${s.slice(0, this.maxLineChars - 1)}…` : s;
  }
}

/**
 * The events of one session in a store's history (seq order, superseded upserts included): those
 * tagged with it, and every upsert of and event on its exchanges (some are recorded before the
 * exchange is tied to the session).
 */
export function sessionHistory(history: readonly McpscopeEvent[], sessionId: string): McpscopeEvent[] {
  const exchanges = new Set<string>();
  for (const e of history) if (e.type === 'exchange' && e.exchange.sessionId === sessionId) exchanges.add(e.exchange.id);
  return history.filter((e) => {
    if (e.type === 'session') return e.session.id === sessionId;
    if (e.type === 'exchange') return exchanges.has(e.exchange.id);
    if ('sessionId' in e && e.sessionId === sessionId) return true;
    const xid = 'exchangeId' in e ? e.exchangeId : undefined;
    return xid !== undefined && exchanges.has(xid);
  });
}

/** A whole list of events (already redacted for export) as the annotated log: the text export. */
export function formatTextLog(events: readonly McpscopeEvent[], options: TextLogOptions = {}): string {
  let out = '';
  for (const entry of new TextLog(options).push(events)) out += renderEntry(entry, options);
  return out;
}
