/**
 * Breakpoints in the UI: which messages are held now (reduced from the feed's `paused`
 * events), the answer templates offered for a held request, the countdown to a held message's
 * time limit, what a row says about being edited or sent by mcpscope, and the calls to
 * /api/breakpoints and /api/paused (through state/api.ts, the one fetch helper).
 */
import type { PausedEvent } from '../../../proxy/core/model/events.js';
import type { BreakpointMatch, BreakpointRule, PausedAction, PausedMessage } from '../../../proxy/core/rules/breakpoint-types.js';
import type { MessageEvent, Row } from './types.js';
import { apiErrorText, apiFetch } from './api.js';

export type { BreakpointMatch, BreakpointRule, PausedMessage };

/**
 * Folds one `paused` event into the map of held messages (pausedId → its `held` event): `held`
 * adds it, `released` removes it. A release that arrives for an id never seen held (its `held`
 * was evicted or dropped by the feed) changes nothing. Returns whether the map changed.
 */
export function reduceHeld(held: Map<string, PausedEvent>, e: PausedEvent): boolean {
  if (typeof e.pausedId !== 'string') return false;
  if (e.state === 'held') {
    held.set(e.pausedId, e);
    return true;
  }
  if (e.state === 'released') return held.delete(e.pausedId);
  return false;
}

/** The held messages after a run of events (any order of other event types is ignored). */
export function heldFrom(events: Iterable<{ type: string }>): PausedEvent[] {
  const held = new Map<string, PausedEvent>();
  for (const e of events) if (e.type === 'paused') reduceHeld(held, e as PausedEvent);
  return [...held.values()];
}

/** "4:59", "0:07", or "resuming…" once the time limit has passed. */
export function countdown(expiresAt: number, now: number): string {
  const left = Math.ceil((expiresAt - now) / 1000);
  if (!(left > 0)) return 'resuming…';
  const m = Math.floor(left / 60);
  const s = left % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}

/**
 * The answer the "Respond" button starts from, for a held request with this method and id: a
 * result the requester can read — a sampling result with role, content and model, an elicitation
 * accepted with empty content, an empty roots list, a tool result with one text item — else `{}`.
 */
export function respondTemplate(method: string | undefined, id: unknown): Record<string, unknown> {
  let result: Record<string, unknown>;
  switch (method) {
    case 'sampling/createMessage':
      result = { role: 'assistant', content: { type: 'text', text: '' }, model: 'answered-in-mcpscope', stopReason: 'endTurn' };
      break;
    case 'elicitation/create':
      result = { action: 'accept', content: {} };
      break;
    case 'roots/list':
      result = { roots: [] };
      break;
    case 'tools/call':
      result = { content: [{ type: 'text', text: '' }], isError: false };
      break;
    case 'tools/list':
      result = { tools: [] };
      break;
    default:
      result = {};
  }
  return { jsonrpc: '2.0', id: id ?? null, result };
}

/** The id of a JSON-RPC request held as `message` (undefined when it has none). */
export function requestIdOf(message: unknown): unknown {
  return message && typeof message === 'object' && !Array.isArray(message) ? (message as { id?: unknown }).id : undefined;
}

/** A rule's match in words: "client→server tools/call · echo in s2". */
export function matchText(m: BreakpointMatch): string {
  const parts = [m.dir === 'c2s' ? 'client→server' : 'server→client'];
  parts.push(m.method ?? 'any method');
  if (m.tool) parts.push(`· ${m.tool}`);
  if (m.session) parts.push(`in ${m.session}`);
  return parts.join(' ');
}

/** The breakpoint "Break on this" adds for a message: its direction, method and tool/prompt/resource name. */
export function matchFor(m: MessageEvent): BreakpointMatch {
  const match: BreakpointMatch = { dir: m.dir };
  if (m.method) match.method = m.method;
  if (m.name) match.tool = m.name;
  return match;
}

/** The `edited` seq of a row's messages (the modification holding the original), if one was edited. */
export function editedOf(row: Row): number | undefined {
  if (row.type === 'call') return row.request.edited ?? row.response?.edited;
  if (row.type === 'notification' || row.type === 'orphan') return row.message.edited;
  return undefined;
}

/** Whether mcpscope itself sent the row's message (a resend, a tool called from the UI, an answer given at a breakpoint). */
export function sentByMcpscope(row: Row): boolean {
  if (row.type === 'call') return row.request.sentBy === 'mcpscope' || row.response?.sentBy === 'mcpscope';
  if (row.type === 'notification' || row.type === 'orphan') return row.message.sentBy === 'mcpscope';
  if (row.type === 'http') return row.exchange.sentBy !== undefined;
  return false;
}

// ---- API ------------------------------------------------------------------------------------

async function json<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await apiFetch(path, init);
  if (!res.ok) throw new Error(await apiErrorText(res));
  return (await res.json()) as T;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

export function loadPaused(): Promise<PausedMessage[]> {
  return json<PausedMessage[]>('paused');
}

/** Resume, edit, drop or answer a held message; rejects with mcpscope's reason in words. */
export async function actOnPaused(id: string, action: PausedAction): Promise<void> {
  await json<unknown>(`paused/${encodeURIComponent(id)}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(action) });
}

export function loadBreakpoints(): Promise<BreakpointRule[]> {
  return json<BreakpointRule[]>('breakpoints');
}

export function addBreakpoint(match: BreakpointMatch, once = false): Promise<BreakpointRule> {
  return json<BreakpointRule>('breakpoints', {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify(once ? { match, once } : { match }),
  });
}

export async function removeBreakpoint(id: string): Promise<void> {
  await json<unknown>(`breakpoints/${encodeURIComponent(id)}`, { method: 'DELETE' });
}
