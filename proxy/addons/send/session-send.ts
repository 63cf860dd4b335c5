/**
 * Sends a request or notification into a session, as its client would (POST
 * /api/sessions/:id/send, send-routes.ts). It goes through mcpscope's own proxy — an HTTP request
 * from this thread to the proxy port that carried the session (reverse mode), or through the
 * forward proxy with mcpscope's CA trusted (forward mode) — so the recorder captures and
 * correlates it like the client's traffic, and the timeline shows it, marked `sentBy` (the
 * `x-mcpscope-origin: send` header). It carries the client's latest headers (kept-requests.ts: in
 * memory only) and, for a 2026-07-28 stateless session, the client's `_meta`.
 *
 * The answer is waited for in the store (answer-watch.ts): the response the correlator paired with
 * the sent request, whatever carried it (JSON, the POST's SSE stream, a legacy GET stream).
 * stdio sessions are handed to `stdio` (the wrapper writes the line).
 */
import { ERRORS, McpscopeError, SAY, type ErrorCode } from '../../core/model/errors.js';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import { VERIFY_UPSTREAM } from '../../wire/forwarder/upstream-tls.js';
import type { EventStore } from '../../recorder/store/event-store.js';
import type { KeptRequest } from '../../recorder/kept-requests.js';
import { firstHeader } from '../../core/model/headers.js';
import { AnswerWatch, payloadOf } from './answer-watch.js';
import { SendIds, checkSendBody, outgoingMessage, sendHeaders } from './send-message.js';

export interface SessionSendDeps {
  store: EventStore;
  /** The session's latest client POST (Recorder.keptRequest). */
  keptRequest(sessionId: string): KeptRequest | undefined;
  /** Brings everything the proxy thread captured so far into the store (McpscopeCore.settle). */
  settle(): Promise<void>;
  /** Reverse mode: the origin of the proxy port in front of this route target (or that the client reached as `proxyOrigin`). */
  reverseOrigin(target: string, proxyOrigin: string): string | undefined;
  /** The forward proxy's origin, when one runs. */
  forwardProxy?: string;
  /** mcpscope's CA (PEM): what the forward proxy's TLS leaves are signed with. */
  caPem?: string;
  /** Under --hash-session-ids the recorder sees hashed Mcp-Session-Id values: the real one, when known. */
  realSessionId?(shown: string): string | undefined;
  /** stdio sessions: writes the message to the server's stdin through its wrapper and resolves with the answer. */
  stdio?: (sessionId: string, message: Record<string, unknown>) => Promise<{ response: unknown }>;
}

export interface SendOutcome {
  status: number;
  body: Record<string, unknown>;
}

/** A refusal in the UI API's error shape (`{ error, code }`, app/serve/error-handler.ts) with what the caller needs besides. */
const fail = (code: ErrorCode, error: string, extra: Record<string, unknown> = {}, status: number = ERRORS[code].status): SendOutcome => ({
  status,
  body: { error, code, ...extra },
});

export class SessionSender {
  private readonly ids = new SendIds();
  private agent?: Agent;
  private readonly proxyAgents = new Map<string, ProxyAgent>();

  constructor(private readonly deps: SessionSendDeps) {}

  async send(sessionId: string, body: unknown): Promise<SendOutcome> {
    const checked = checkSendBody(body);
    if ('error' in checked) return fail('BAD_SEND', checked.error);
    const { store } = this.deps;
    const session = store.sessions.get(sessionId);
    if (!session) return fail('NO_SESSION', SAY.noSession(sessionId));
    if (session.transport === 'http')
      return fail('BAD_SEND', `Session ${sessionId} is not an MCP session: it collects the plain HTTP traffic to ${session.target}.`);
    if (session.status === 'closed')
      return fail(
        'BAD_SEND',
        `Session ${sessionId} is closed${session.closeReason ? ` (${session.closeReason})` : ''}: there is nothing left to send into.`,
      );
    if (session.transport === 'stdio') return this.sendStdio(sessionId, checked);
    if (session.transport !== 'streamable-http' && session.transport !== 'legacy-sse')
      return fail('BAD_SEND', `Session ${sessionId} uses a transport mcpscope cannot send into (${String(session.transport)}).`);
    const kept = this.deps.keptRequest(sessionId);
    if (!kept)
      return fail(
        'BAD_SEND',
        `mcpscope has seen no request from the client of session ${sessionId} since it started watching, so it does not know where to send or with which headers. Let the client make one call first.`,
      );
    const route = this.routeOf(kept);
    if (!route)
      return fail(
        'BAD_SEND',
        `No mcpscope proxy port carries session ${sessionId} any more (its upstream ${session.target} is not proxied now).`,
      );

    const taken = (id: string) => store.messages(sessionId).some((m) => m.id === id);
    const { message, id } = outgoingMessage(checked, () => this.ids.next(taken), kept.meta);
    const clientHeaders = { ...kept.headers };
    const shownId = firstHeader(clientHeaders, 'mcp-session-id');
    if (shownId !== undefined && this.deps.realSessionId) clientHeaders['mcp-session-id'] = this.deps.realSessionId(shownId) ?? shownId;
    const headers = sendHeaders({
      client: clientHeaders,
      message,
      mirror: firstHeader(kept.headers, 'mcp-method') !== undefined || kept.meta?.['io.modelcontextprotocol/protocolVersion'] !== undefined,
      toolSchema: message.method === 'tools/call' ? this.toolSchema(sessionId, message) : undefined,
    });
    const idField = id === undefined ? {} : { id };

    const watch = new AnswerWatch(store, {
      id,
      method: message.method as string,
      afterSeq: store.lastSeq,
      freshId: id !== undefined && !(checked.keepId && checked.message.id === id),
    });
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), checked.timeoutMs);
    const exchangeOf = () => (watch.request?.exchangeId !== undefined ? { exchangeId: watch.request.exchangeId } : {});
    const timedOut = async () => {
      await this.deps.settle().catch(() => undefined);
      return fail('SEND_FAILED', `No answer within ${checked.timeoutMs} ms.`, { ...exchangeOf(), ...idField }, 504);
    };
    try {
      let res: Dispatcher.ResponseData;
      try {
        res = await request(route.url, {
          method: 'POST',
          headers,
          body: JSON.stringify(message),
          dispatcher: route.dispatcher,
          signal: timeout.signal,
        });
      } catch (err) {
        if (timeout.signal.aborted) return await timedOut();
        return fail('SEND_FAILED', `mcpscope could not send it through its proxy (${(err as Error).message}).`, idField);
      }
      if (res.statusCode >= 400) {
        await res.body.text().catch(() => undefined);
        await this.deps.settle();
        const answer = watch.answer ? { response: payloadOf(watch.answer) } : {};
        return fail(
          'SEND_FAILED',
          `The server answered HTTP ${res.statusCode}${res.statusCode === 502 || res.statusCode === 504 ? ' (or mcpscope did, for a server it could not reach)' : ''}.`,
          {
            upstreamStatus: res.statusCode,
            ...answer,
            ...exchangeOf(),
            ...idField,
          },
        );
      }
      const bodyEnded = drain(res.body);
      await Promise.race([watch.done(timeout.signal), bodyEnded]);
      if (!watch.answer && !timeout.signal.aborted) {
        // The body ended: bring over what the proxy thread has, which the answer may be part of.
        await this.deps.settle();
        const empty = res.statusCode === 202 || firstHeader(res.headers as Record<string, string>, 'content-length') === '0';
        // A 202 (a notification accepted; a legacy session's request, answered on its GET stream): wait on.
        if (id !== undefined && !watch.answer && !empty && session.transport !== 'legacy-sse')
          return fail(
            'SEND_FAILED',
            `The server's answer (HTTP ${res.statusCode}) ended without a response to request ${JSON.stringify(id)}.`,
            {
              ...exchangeOf(),
              ...idField,
            },
          );
        if (id !== undefined) await watch.done(timeout.signal);
        else if (!watch.request) await watch.done(timeout.signal);
      }
      if (timeout.signal.aborted && (id === undefined ? !watch.request : !watch.answer)) return await timedOut();
      if (id === undefined) return { status: 200, body: { accepted: true, ...exchangeOf() } };
      return { status: 200, body: { response: payloadOf(watch.answer!), ...exchangeOf(), ...idField } };
    } finally {
      clearTimeout(timer);
      watch.stop();
    }
  }

  private async sendStdio(sessionId: string, checked: Exclude<ReturnType<typeof checkSendBody>, { error: string }>): Promise<SendOutcome> {
    if (!this.deps.stdio)
      return fail(
        'CANNOT_SEND',
        `Session ${sessionId} is a stdio session, and this mcpscope cannot send into stdio sessions (no stdio sender is connected).`,
      );
    const { message, id } = outgoingMessage(
      checked,
      () => this.ids.next((x) => this.deps.store.messages(sessionId).some((m) => m.id === x)),
      undefined,
    );
    try {
      const { response } = await this.deps.stdio(sessionId, message);
      return { status: 200, body: id === undefined ? { accepted: true } : { response, id } };
    } catch (err) {
      // The stdio sender's errors carry the status that fits (400, 409, 502, 504).
      const status = (err as { status?: unknown }).status;
      return fail(
        err instanceof McpscopeError ? err.code : 'SEND_FAILED',
        (err as Error).message,
        id === undefined ? {} : { id },
        typeof status === 'number' && status >= 400 && status < 600 ? status : 502,
      );
    }
  }

  /** Where the session's traffic goes in: its reverse proxy port, or the forward proxy. */
  private routeOf(kept: KeptRequest): { url: string; dispatcher: Dispatcher } | undefined {
    const reverse = this.deps.reverseOrigin(kept.target, kept.proxyOrigin);
    if (reverse) {
      this.agent ??= new Agent({ connect: VERIFY_UPSTREAM });
      return { url: reverse + kept.url, dispatcher: this.agent };
    }
    const forward = this.deps.forwardProxy;
    if (!forward || !kept.upstreamUrl) return undefined;
    let agent = this.proxyAgents.get(forward);
    if (!agent) {
      // mcpscope's own certificate, verified against its CA (upstream-tls.ts: whatever NODE_TLS_REJECT_UNAUTHORIZED says).
      agent = new ProxyAgent({
        uri: forward,
        requestTls: { ...(this.deps.caPem ? { ca: this.deps.caPem } : {}), ...VERIFY_UPSTREAM },
        proxyTls: VERIFY_UPSTREAM,
      });
      this.proxyAgents.set(forward, agent);
    }
    return { url: kept.upstreamUrl, dispatcher: agent };
  }

  /** The tool's inputSchema as the session's latest tools/list answer described it (for Mcp-Param-* headers). */
  private toolSchema(sessionId: string, message: Record<string, unknown>): unknown {
    const name = (message.params as { name?: unknown } | undefined)?.name;
    const messages = this.deps.store.messages(sessionId);
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i];
      if (m.kind !== 'response' || m.method !== 'tools/list') continue;
      const tools = (payloadOf(m) as { result?: { tools?: { name?: unknown; inputSchema?: unknown }[] } } | undefined)?.result?.tools;
      const tool = Array.isArray(tools) ? tools.find((t) => t?.name === name) : undefined;
      if (tool) return tool.inputSchema;
    }
    return undefined;
  }

  async close(): Promise<void> {
    await this.agent?.close().catch(() => undefined);
    for (const a of this.proxyAgents.values()) await a.close().catch(() => undefined);
  }
}

/** Reads a response body to its end (its bytes are recorded by the proxy; this side needs none of them). */
async function drain(body: Dispatcher.ResponseData['body']): Promise<void> {
  try {
    for await (const chunk of body) void chunk;
  } catch {
    // Aborted (the timeout) or broken: the recorder says what happened on the exchange.
  }
}
