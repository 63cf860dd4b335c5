/**
 * The recorder's side of model turns (issue 27; docs/agent-view.md): a plain HTTP exchange whose
 * request is a model API call (proxy/core/model-api/dialects.ts: by path and body shape, never by host)
 * becomes a turn — its request read when its body has ended, its response read event by event as it
 * streams (or whole, for a JSON answer) — and the turn is joined to the MCP `tools/call`s that carry
 * out the tool calls it chose (proxy/core/model-api/turn-join.ts), and their results to the next request.
 *
 * The seam is narrow: http-exchanges.ts hands over a model exchange's request text, its response
 * head, frames and end; message-path.ts asks `mcpLink` before it stores an MCP message and calls
 * `mcpStored` after. Turns are upserts (`model-turn` events). Everything runs on the main thread, in
 * the recorder; the tokenizer has a thread of its own (token-counter.ts). Nothing here throws at the
 * recorder: a dialect never throws, and what a peer sent wrong is said in the turn's hints.
 */
import type { AgentClient, Hint, MessageEvent, ModelCallLink, ModelToolResult, ModelTurnInfo, SessionInfo } from '../core/model/events.js';
import type { ParsedRequest, RawTool, ResponseParser } from '../core/model-api/dialect.js';
import { detectModelApi } from '../core/model-api/dialects.js';
import { clientOf, clientToolNames, toolOfClientName } from '../core/model-api/tool-names.js';
import { TurnJoin, type OfferedCall } from '../core/model-api/turn-join.js';
import { contextCost, instructionsBySection, textsToCount } from '../core/model-api/context-cost.js';
import { BodyReader, type BodyEnd, type BodyFrame } from '../core/parse/body-reader.js';
import { firstHeader } from '../wire/capture/wire-records.js';
import { parseJson, pathOf } from './plain-http.js';
import { byteLength } from '../core/model/byte-length.js';
import type { RecorderContext } from './recorder-context.js';
import type { ExchangeState } from './http-exchanges.js';
import type { TokenCounter } from './token-counter.js';
import {
  boundText,
  compareResults,
  keptCalls,
  keptEntry,
  keptMessages,
  keptOutput,
  mcpResultText,
  offeredTools,
  SYSTEM_TEXT_CHARS,
  withTotal,
} from './model-turn-build.js';

/** Turns kept in memory for later upserts (a join, a result, an estimate); older ones are final. */
const MAX_LIVE_TURNS = 1000;
const MAX_AGENTS = 256;

export interface LiveTurn {
  info: ModelTurnInfo;
  parser: ResponseParser;
  /** Tool calls of the response already offered to the join. */
  offered: number;
  /** The request's tools and system prompt: what the context cost counts (until it is counted). */
  rawTools?: RawTool[];
  instructions?: Map<string, string>;
  requestBytes: number;
  finished: boolean;
}

interface AgentTurn {
  id: string;
  messageCount: number;
  tools: number;
}

export class ModelTurns {
  private n = 0;
  readonly join = new TurnJoin();
  private readonly live = new Map<string, LiveTurn>();
  private readonly recent = new Map<string, AgentTurn[]>();
  private readonly waitingCost = new Set<string>();
  private readonly sessionTools = new Map<string, Set<string>>();

  constructor(
    private readonly ctx: RecorderContext,
    private readonly counter: TokenCounter | undefined,
  ) {
    if (counter) counter.onCounted = () => this.onCounted();
  }

  /**
   * A plain exchange's request body has ended and parsed as `body`: a model API call? If so the
   * exchange becomes a turn (`ex.model`) and true is returned.
   */
  request(ex: ExchangeState, body: unknown, bytes: number, ts: number): boolean {
    if (body === undefined || ex.info.method !== 'POST') return false;
    const dialect = detectModelApi(ex.info.method, pathOf(ex.url), body);
    if (!dialect) return false;
    const request = dialect.parseRequest(body, ex.url);
    const client = clientOf(ex.requestHeaders);
    const r = this.ctx.redactor;
    const agent = r.text(agentKey(client, ex));
    const resolve = (name: string) => this.resolveTool(name, client, agent);
    const prev = this.previous(agent, request);
    const kept = keptMessages(request, prev ? prev.messageCount : 0, r);
    this.n += 1;
    const info: ModelTurnInfo = {
      id: `m${this.n}`,
      exchangeId: ex.info.id,
      sessionId: ex.session?.id ?? '',
      api: dialect.api,
      client,
      agent,
      endpoint: `POST ${r.text(pathOf(ex.url))}`,
      stream: request.stream,
      startedAt: ex.info.startedAt,
      status: 'pending',
      messageCount: request.messageCount,
      messagesFrom: kept.from,
      messages: kept.entries,
      tools: offeredTools(request.tools, resolve, r).map((t) => ({ ...t, descriptionTokens: 0, schemaTokens: 0 })),
      output: [],
      toolCalls: [],
      toolResults: [],
      hints: [],
    };
    if (request.model !== undefined) info.model = r.text(request.model);
    if (request.system !== undefined) info.system = keptEntry({ role: 'system', kind: 'text', text: request.system }, r, SYSTEM_TEXT_CHARS);
    if (request.toolChoice !== undefined) info.toolChoice = r.text(request.toolChoice);
    if (request.maxTokens !== undefined) info.maxTokens = request.maxTokens;
    for (const note of request.notes.slice(0, 8)) info.hints.push({ level: 'info', code: 'model-request-note', text: r.text(note) });
    const live: LiveTurn = {
      info,
      parser: dialect.newResponse(request),
      offered: 0,
      rawTools: request.tools.slice(0, info.tools.length),
      instructions: instructionsBySection(request.system),
      requestBytes: bytes,
      finished: false,
    };
    ex.model = live;
    this.keep(live);
    this.remember(agent, { id: info.id, messageCount: request.messageCount, tools: request.tools.length });
    this.linkResults(live, request);
    if (ex.session && ex.session.transport === 'http' && !ex.session.grouping?.startsWith('Model API')) {
      ex.session.grouping = `Model API traffic to ${ex.session.target}`;
      this.ctx.markSession(ex.session);
    }
    this.cost(live);
    this.emit(live, ts);
    return true;
  }

  /** The response head of a model exchange: the reader its body is read with (events one by one, or the whole JSON body). */
  responseReader(ex: ExchangeState, ts: number, encoding: string | undefined): BodyReader | undefined {
    const live = ex.model;
    if (!live) return undefined;
    live.info.respondedAt = ts;
    const type = ex.info.responseType;
    if (type === 'text/event-stream') return new BodyReader({ framing: 'sse', encoding, maxBytes: this.ctx.maxBodyBytes });
    return new BodyReader({ framing: 'json', encoding, maxBytes: this.ctx.maxBodyBytes });
  }

  /** One SSE event of a model exchange's response. */
  frame(ex: ExchangeState, f: BodyFrame, ts: number): void {
    const live = ex.model;
    if (!live || !f.sse?.dispatch) return;
    if (live.parser.event(f.sse.event, f.truncated ? '' : f.text) && live.info.firstTokenAt === undefined) live.info.firstTokenAt = ts;
    if (f.truncated)
      live.info.hints.push(
        this.hint(
          'warn',
          'model-event-too-large',
          `An event of ${f.length} bytes is larger than mcpscope parses; it was forwarded in full and skipped here.`,
        ),
      );
    this.offerCalls(live);
  }

  /** The response body's end (a whole JSON body is read here). */
  body(ex: ExchangeState, end: BodyEnd): void {
    const live = ex.model;
    if (!live) return;
    for (const f of end.frames) {
      if (f.sse) continue;
      if (f.truncated) {
        live.info.hints.push(
          this.hint(
            'warn',
            'model-body-too-large',
            `The answer of ${end.bytes} bytes is larger than mcpscope parses (${this.ctx.maxBodyBytes}); it was forwarded in full, and not read here.`,
          ),
        );
        continue;
      }
      let value: unknown;
      try {
        value = f.text.trim() === '' ? undefined : (JSON.parse(f.text) as unknown);
      } catch {
        value = undefined;
      }
      live.parser.json(value);
    }
  }

  /** The exchange is over (ended, cut, or never answered): the turn is final, but for later links. */
  finish(ex: ExchangeState): void {
    const live = ex.model;
    if (!live || live.finished) return;
    live.finished = true;
    const info = live.info;
    const cut = ex.info.aborted !== undefined || (ex.info.error !== undefined && ex.info.status === undefined);
    const state = live.parser.end(cut || !live.parser.state().complete);
    this.offerCalls(live);
    const r = this.ctx.redactor;
    info.endedAt = ex.info.endedAt ?? info.startedAt;
    // `model` stays the one asked for; what the response named is kept beside it.
    if (state.model !== undefined) info.responseModel = r.text(state.model);
    if (state.stopReason !== undefined) info.stopReason = r.text(state.stopReason);
    const usage = withTotal(state.usage);
    if (usage) info.usage = usage;
    info.output = keptOutput(state, r);
    for (const note of state.notes.slice(0, 8)) info.hints.push({ level: 'info', code: 'model-response-note', text: r.text(note) });
    const status = ex.info.status;
    if (state.error !== undefined || (status !== undefined && status >= 400)) {
      info.status = 'error';
      info.error = boundText(r.text(state.error ?? `HTTP ${status}`), 1024).text;
    } else if (cut || !state.complete) {
      info.status = 'cut';
      const why = ex.info.error ?? (ex.info.aborted === 'client' ? 'the client closed it' : 'the stream ended before its last event');
      info.error = boundText(r.text(why), 1024).text;
      info.hints.push(
        this.hint(
          'warn',
          'model-stream-cut',
          `The model's answer broke off before its end (${info.error}): kept as far as it came, ${info.output.length} output part(s) and ${info.toolCalls.length} tool call(s).`,
        ),
      );
    } else info.status = 'done';
    this.cost(live);
    this.emit(live, info.endedAt);
  }

  /**
   * Before an MCP message is stored: the model turn it carries out (a tools/call request joined to a
   * waiting tool call; its response, the same link), and a hint when a call of an agent's session
   * was asked for by no turn.
   */
  mcpLink(
    session: SessionInfo,
    m: { seq: number; dir: 'c2s' | 's2c'; kind: string; method?: string; params?: unknown; pair?: number },
  ): { link?: ModelCallLink; hint?: Hint } {
    if (m.method !== 'tools/call' || session.transport === 'http') return {};
    if (m.kind === 'request' && m.dir === 'c2s') {
      const p = (m.params ?? {}) as { name?: unknown; arguments?: unknown };
      if (typeof p.name !== 'string') return {};
      const tool = p.name;
      const join = this.join.matchCall(session.id, m.seq, tool, p.arguments ?? {}, (w) => this.nameMatches(w, tool, session.id));
      if (join === 'ambiguous')
        return {
          hint: this.hint(
            'info',
            'model-call-ambiguous',
            'More than one agent asked its model for this very call (same tool, same arguments), and nothing yet tells which agent this MCP session belongs to: it is not linked to a model turn.',
          ),
        };
      if (join)
        return { link: { turn: join.turnId, callId: this.ctx.redactor.text(join.callId), name: this.ctx.redactor.text(join.name) } };
      if (this.join.agentOf(session.id) !== undefined)
        return {
          hint: this.hint(
            'info',
            'mcp-call-not-from-model',
            'No model turn mcpscope saw asked for this call: the client made it on its own (a user command, a start-up check), or its model request did not pass through mcpscope.',
          ),
        };
      return {};
    }
    if ((m.kind === 'response' || m.kind === 'error') && m.pair !== undefined) {
      const join = this.join.joinOfRequest(m.pair);
      if (join)
        return { link: { turn: join.turnId, callId: this.ctx.redactor.text(join.callId), name: this.ctx.redactor.text(join.name) } };
    }
    return {};
  }

  /** After an MCP message is stored: tools/list answers (which tools a session has), joined calls and their results. */
  mcpStored(stored: MessageEvent, value: { result?: unknown }): void {
    if (stored.method === 'tools/list' && stored.kind === 'response') {
      const tools = (value.result as { tools?: unknown } | undefined)?.tools;
      if (Array.isArray(tools)) {
        const names = new Set(
          tools.flatMap((t) => (typeof (t as { name?: unknown })?.name === 'string' ? [(t as { name: string }).name] : [])),
        );
        this.sessionTools.set(stored.sessionId, names);
        if (this.sessionTools.size > 4096) this.sessionTools.delete(this.sessionTools.keys().next().value as string);
      }
      return;
    }
    if (!stored.modelCall) return;
    const ref = { sessionId: stored.sessionId, seq: stored.seq };
    if (stored.kind === 'request') {
      const join = this.join.joinOfRequest(stored.seq);
      const live = join && this.live.get(join.turnId);
      const call = live?.info.toolCalls.find((c) => c.id === stored.modelCall!.callId);
      if (!live || !call) return;
      call.mcpCall = ref;
      this.updateServerSession(live, join.server, stored.sessionId);
      this.emit(live, stored.ts);
      return;
    }
    if (stored.pair === undefined) return;
    const failed = stored.kind === 'error' || stored.isError === true;
    const join = this.join.callResult(
      stored.pair,
      ref,
      failed,
      stored.kind === 'response' ? mcpResultText((value as { result?: unknown }).result) : undefined,
    );
    const live = join && this.live.get(join.turnId);
    const call = live?.info.toolCalls.find((c) => c.id === stored.modelCall!.callId);
    if (!live || !call) return;
    call.mcpResult = ref;
    if (failed) call.mcpFailed = true;
    this.emit(live, stored.ts);
  }

  /** Stops the tokenizer thread. */
  close(): void {
    this.counter?.close();
  }

  // — internals —

  /**
   * The MCP server and tool a client's tool name stands for: by the client's convention
   * (tool-names.ts), else — a bare name, as SDK agents and older Gemini CLIs give — the MCP session
   * that lists a tool of that name, the agent's own sessions first, named by its server's name.
   */
  private resolveTool(name: string, client: AgentClient, agent: string): { server?: string; tool?: string } {
    const r = toolOfClientName(name, client);
    if (r.server !== undefined) return r;
    let found: string | undefined;
    for (const [sessionId, names] of this.sessionTools) {
      if (!names.has(name)) continue;
      found = sessionId;
      if (this.join.agentOf(sessionId) === agent) break;
    }
    if (found === undefined) return r;
    const session = this.ctx.registry.sessions.get(found);
    return { server: session?.serverInfo?.name ?? session?.targetName ?? found, tool: name };
  }

  private nameMatches(w: OfferedCall, tool: string, sessionId: string): boolean {
    if (w.tool === tool || w.name === tool) return true;
    // The client's name for the tool is a sanitized one (`mcp__se__get_x` for `get.x`): the names it would give this tool.
    const client = this.live.get(w.turnId)?.info.client ?? 'other';
    if (w.server !== undefined && clientToolNames(w.server, tool, client).includes(w.name)) return true;
    // A name the client's convention did not explain: only if it is the session's own tool of that name.
    return w.tool === undefined && this.sessionTools.get(sessionId)?.has(w.name) === true && w.name === tool;
  }

  /** Offers the response's tool calls completed so far to the join, and keeps them on the turn. */
  private offerCalls(live: LiveTurn): void {
    const state = live.parser.state();
    if (state.toolCalls.length <= live.offered) return;
    const resolve = (name: string) => this.resolveTool(name, live.info.client, live.info.agent);
    const kept = keptCalls(state, resolve, this.ctx.redactor);
    for (let i = live.offered; i < state.toolCalls.length && i < kept.length; i++) {
      const c = state.toolCalls[i];
      const r = resolve(c.name);
      this.join.offer(live.info.agent, {
        turnId: live.info.id,
        callId: c.id,
        name: c.name,
        server: r.server,
        tool: r.tool,
        arguments: c.arguments,
        unparsed: c.arguments === undefined || undefined,
      });
    }
    // Links made earlier (a call joined before the stream ended) stay on the calls kept.
    const before = new Map(live.info.toolCalls.map((c) => [c.id, c]));
    live.info.toolCalls = kept.map((c) => ({ ...c, ...pickLinks(before.get(c.id)) }));
    live.offered = state.toolCalls.length;
  }

  /** The tool results this request carries back, linked to the calls and MCP results they answer. */
  private linkResults(live: LiveTurn, request: ParsedRequest): void {
    if (request.toolResults.length === 0) return;
    const r = this.ctx.redactor;
    // The calls as the request's history shows them, for a result under an id the model never gave (turn-join.ts, sameCall).
    const history = new Map<string, { name: string; arguments: unknown }>();
    for (const e of request.messages)
      if (e.kind === 'tool-use' && e.callId !== undefined && e.name !== undefined && !history.has(e.callId))
        history.set(e.callId, { name: e.name, arguments: parseJson(e.text) });
    const links = this.join.results(
      live.info.agent,
      request.toolResults.map((t) => t.callId),
      (id) => history.get(id),
    );
    const results: ModelToolResult[] = [];
    for (let i = 0; i < links.length && results.length < 128; i++) {
      const link = links[i];
      const tr = request.toolResults[i];
      // Results of calls older than the turns mcpscope saw (a conversation it joined late): not listed.
      if (!link.call && !link.join) continue;
      const out: ModelToolResult = { callId: r.text(tr.callId), bytes: byteLength(tr.text) };
      if (tr.isError) out.isError = true;
      if (link.fromTurn) out.fromTurn = link.fromTurn;
      const join = link.join;
      if (join?.mcpResult) {
        out.mcpResult = join.mcpResult;
        if (join.resultText !== undefined) {
          const note = compareResults(join.resultText, tr.text, join.resultTruncated === true);
          out.compared = note === undefined ? 'same' : 'changed';
          if (note) out.note = note;
        }
      } else if (link.call && link.call.server !== undefined) {
        live.info.hints.push(
          this.hint(
            'warn',
            'tool-not-called',
            `The model asked for ${r.text(link.call.name)} (${r.text(link.call.callId)}) in turn ${link.call.turnId}, and the client answered it without an MCP call mcpscope saw (denied by the user or a permission rule, an unknown server, or a call that did not pass through mcpscope). What the client told the model: "${boundText(r.text(tr.text), 200).text}"`,
          ),
        );
      }
      results.push(out);
      const from = link.fromTurn ? this.live.get(link.fromTurn) : undefined;
      const call = from?.info.toolCalls.find((c) => c.id === link.callId);
      if (from && call && call.resultTurn !== live.info.id) {
        call.resultTurn = live.info.id;
        this.emit(from, live.info.startedAt);
      }
    }
    live.info.toolResults = results;
  }

  /** The context cost, once every text is counted; asks the tokenizer for what is missing. */
  private cost(live: LiveTurn): void {
    if (!this.counter || !live.rawTools) return;
    if (this.counter.failed) {
      if (!live.info.hints.some((h) => h.code === 'token-estimates-unavailable'))
        live.info.hints.push(this.hint('info', 'token-estimates-unavailable', `No token estimates for the tools: ${this.counter.failed}.`));
      return;
    }
    const instructions = live.instructions ?? new Map<string, string>();
    const result = contextCost({
      encoding: this.counter.encoding,
      requestBytes: live.requestBytes,
      raw: live.rawTools,
      tools: live.info.tools,
      instructions,
      totalInputTokens: live.info.usage?.totalInputTokens,
      count: (t) => this.counter!.count(t),
      sessionOf: (server) => this.join.sessionOf(live.info.agent, server),
    });
    if (!result) {
      this.waitingCost.add(live.info.id);
      this.counter.want(textsToCount(live.rawTools, instructions));
      return;
    }
    this.waitingCost.delete(live.info.id);
    live.info.tools = result.tools;
    live.info.context = result.cost;
    // Once final (its usage known), the texts are let go: the estimate stays on the turn.
    if (live.finished) {
      live.rawTools = undefined;
      live.instructions = undefined;
    }
  }

  private onCounted(): void {
    for (const id of [...this.waitingCost]) {
      const live = this.live.get(id);
      if (!live) {
        this.waitingCost.delete(id);
        continue;
      }
      const had = live.info.context;
      this.cost(live);
      if (live.info.context !== had || this.counter?.failed) this.emit(live, live.info.endedAt ?? live.info.startedAt);
    }
    this.ctx.flushDirty();
    this.ctx.store.commit();
  }

  private updateServerSession(live: LiveTurn, server: string | undefined, sessionId: string): void {
    const s = server !== undefined ? live.info.context?.servers.find((c) => c.server === server) : undefined;
    if (s && s.sessionId === undefined) s.sessionId = sessionId;
  }

  /** The agent's earlier turn this request continues (same tool count, fewer messages): its messages are not kept again. */
  private previous(agent: string, request: ParsedRequest): AgentTurn | undefined {
    const list = this.recent.get(agent) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const t = list[i];
      if (t.tools === request.tools.length && t.messageCount < request.messageCount) return t;
    }
    return undefined;
  }

  private remember(agent: string, t: AgentTurn): void {
    let list = this.recent.get(agent);
    if (!list) {
      this.recent.set(agent, (list = []));
      if (this.recent.size > MAX_AGENTS) this.recent.delete(this.recent.keys().next().value as string);
    }
    list.push(t);
    if (list.length > 8) list.shift();
  }

  private keep(live: LiveTurn): void {
    this.live.set(live.info.id, live);
    while (this.live.size > MAX_LIVE_TURNS) {
      const oldest = this.live.keys().next().value as string;
      this.live.delete(oldest);
      this.waitingCost.delete(oldest);
    }
  }

  private emit(live: LiveTurn, ts: number): void {
    const info = live.info;
    // A copy of what goes on changing (links, estimates, hints): the stored upsert is a fact of its
    // moment. Transcript entries never change once made, so they are shared, not copied.
    const turn: ModelTurnInfo = {
      ...info,
      toolCalls: info.toolCalls.map((c) => ({ ...c })),
      toolResults: info.toolResults.map((t) => ({ ...t })),
      hints: [...info.hints],
    };
    if (info.usage) turn.usage = { ...info.usage };
    if (info.context) turn.context = { ...info.context, servers: info.context.servers.map((s) => ({ ...s })) };
    this.ctx.store.append({ type: 'model-turn', ts, sessionId: info.sessionId, turn });
  }

  private hint(level: Hint['level'], code: string, text: string): Hint {
    return { level, code, text };
  }
}

function pickLinks(c: ModelTurnInfo['toolCalls'][number] | undefined): Partial<ModelTurnInfo['toolCalls'][number]> {
  if (!c) return {};
  const out: Partial<ModelTurnInfo['toolCalls'][number]> = {};
  if (c.mcpCall) out.mcpCall = c.mcpCall;
  if (c.mcpResult) out.mcpResult = c.mcpResult;
  if (c.mcpFailed) out.mcpFailed = true;
  if (c.resultTurn) out.resultTurn = c.resultTurn;
  return out;
}

/**
 * Which agent a request came from: Claude Code names its session in a header; other clients are
 * told apart by their user agent and the proxy port they came through (two of the same kind through
 * one port share one agent: their calls still join by tool and arguments).
 */
function agentKey(client: string, ex: ExchangeState): string {
  const h = ex.requestHeaders;
  const cc = firstHeader(h, 'x-claude-code-session-id');
  if (cc) return `claude-code:${cc.slice(0, 80)}`;
  const sid = firstHeader(h, 'session_id') ?? firstHeader(h, 'conversation_id') ?? firstHeader(h, 'x-session-id');
  if (sid) return `${client}:${sid.slice(0, 80)}`;
  const ua = (firstHeader(h, 'user-agent') ?? 'no user agent').slice(0, 80);
  return `${client}:${ua}@${ex.proxyOrigin}`;
}
