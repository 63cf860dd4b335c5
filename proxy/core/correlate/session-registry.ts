/**
 * Which MCP session an HTTP exchange belongs to (pure, I/O-free).
 *
 * - Streamable HTTP: the `Mcp-Session-Id` the server assigned on the InitializeResult response
 *   and the client repeats on every later request.
 * - Legacy HTTP+SSE: the GET stream is the session; its `endpoint` event names the URL the
 *   client POSTs to, so POSTs are matched by path and query.
 * - Stateless traffic (no session id): an `initialize` starts a session; later requests without
 *   a session id join the newest session of the same client and upstream that the server gave no
 *   id (2026-07-28 requests carry their client's name in `_meta`; with the target it is the
 *   grouping key).
 */
import type { SessionInfo, TransportKind } from '../model/events.js';

export class SessionRegistry {
  private nextId = 0;
  readonly sessions = new Map<string, SessionInfo>();
  private byMcpSessionId = new Map<string, string>();
  private byEndpoint = new Map<string, string>();
  /** grouping key → newest open session without a server-assigned id. */
  private headerless = new Map<string, string>();
  /** per session: SSE event id → exchange that carried it (for Last-Event-ID resumption). */
  private eventExchanges = new Map<string, Map<string, string>>();

  create(transport: TransportKind, target: string, ts: number, extra: Partial<SessionInfo> = {}): SessionInfo {
    this.nextId += 1;
    const session: SessionInfo = {
      id: `s${this.nextId}`,
      transport,
      target,
      startedAt: ts,
      status: 'open',
      counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 0 },
      ...extra,
    };
    this.sessions.set(session.id, session);
    if (session.mcpSessionId) this.byMcpSessionId.set(session.mcpSessionId, session.id);
    return session;
  }

  get(id: string | undefined): SessionInfo | undefined {
    return id === undefined ? undefined : this.sessions.get(id);
  }

  byMcpId(mcpSessionId: string): SessionInfo | undefined {
    return this.get(this.byMcpSessionId.get(mcpSessionId));
  }

  /** The server assigned an id to this session. */
  assignMcpId(session: SessionInfo, mcpSessionId: string): void {
    session.mcpSessionId = mcpSessionId;
    this.byMcpSessionId.set(mcpSessionId, session.id);
    for (const [key, id] of this.headerless) if (id === session.id) this.headerless.delete(key);
  }

  /** Legacy HTTP+SSE: POSTs to this path+query belong to the session. */
  mapEndpoint(session: SessionInfo, pathAndQuery: string): void {
    session.endpoint = pathAndQuery;
    this.byEndpoint.set(pathAndQuery, session.id);
  }

  byEndpointPath(pathAndQuery: string): SessionInfo | undefined {
    return this.get(this.byEndpoint.get(pathAndQuery));
  }

  /** Remember a session that got no server-assigned id, as the home of later id-less requests. */
  markHeaderless(session: SessionInfo, groupingKey: string): void {
    this.headerless.set(groupingKey, session.id);
  }

  headerlessFor(groupingKey: string): SessionInfo | undefined {
    const s = this.get(this.headerless.get(groupingKey));
    return s && s.status === 'open' ? s : undefined;
  }

  /** The session is no home for id-less requests after all (a legacy HTTP+SSE stream). */
  unmarkHeaderless(session: SessionInfo): void {
    for (const [key, id] of this.headerless) if (id === session.id) this.headerless.delete(key);
  }

  /** The newest open session without a server-assigned id whose requests went to `target` (any client). */
  headerlessTo(target: string): SessionInfo | undefined {
    let newest: SessionInfo | undefined;
    const suffix = ` to ${target}`;
    for (const [key, id] of this.headerless) {
      const s = key.endsWith(suffix) ? this.get(id) : undefined;
      if (s && s.status === 'open' && (!newest || s.startedAt > newest.startedAt)) newest = s;
    }
    return newest;
  }

  noteEventId(session: SessionInfo, eventId: string, exchangeId: string): void {
    let m = this.eventExchanges.get(session.id);
    if (!m) this.eventExchanges.set(session.id, (m = new Map()));
    if (!m.has(eventId)) m.set(eventId, exchangeId);
  }

  exchangeOfEvent(session: SessionInfo, eventId: string): string | undefined {
    return this.eventExchanges.get(session.id)?.get(eventId);
  }

  close(session: SessionInfo, ts: number, reason: string): boolean {
    if (session.status === 'closed') return false;
    session.status = 'closed';
    session.endedAt = ts;
    session.closeReason = reason;
    // Only its own mapping: a newer session may have been handed the same (fixed) endpoint path.
    if (session.endpoint && this.byEndpoint.get(session.endpoint) === session.id) this.byEndpoint.delete(session.endpoint);
    for (const [key, id] of this.headerless) if (id === session.id) this.headerless.delete(key);
    this.eventExchanges.delete(session.id);
    return true;
  }

  /** A closed session goes on after all (see RecorderContext.servedAgain). False if it was open. */
  reopen(session: SessionInfo): boolean {
    if (session.status !== 'closed') return false;
    session.status = 'open';
    delete session.endedAt;
    delete session.closeReason;
    return true;
  }
}

/** The client an id-less request names: the client name a 2026-07-28 request carries in `_meta`, else one shared `anonymous` group. */
export function clientGroupOf(params: unknown): string {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const info = meta?.['io.modelcontextprotocol/clientInfo'] as { name?: unknown; version?: unknown } | undefined;
  if (info && typeof info.name === 'string') return `client:${info.name}@${typeof info.version === 'string' ? info.version : ''}`;
  return 'anonymous';
}

/**
 * The grouping key of an id-less request: its client group (`clientGroupOf`) and the upstream it
 * went to (`target`, the exchange's target: the upstream URL in reverse mode, the server's origin
 * in forward mode), so that id-less requests to two servers never join one session.
 */
export function groupingKeyOf(params: unknown, target?: string): string {
  const group = clientGroupOf(params);
  return target ? `${group} to ${target}` : group;
}
