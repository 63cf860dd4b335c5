/**
 * Fault injection for the user (issue 6, item 8): rules that make the proxy misbehave on purpose
 * so a client's robustness can be tested — delay a response, answer an HTTP error instead of
 * forwarding, drop a POST's SSE stream after N events, or expire the session (404).
 *
 * The rule *definitions* are plain, serializable data (what the API and UI exchange); how each
 * action is carried out lives in the proxy (proxy/wire/reverse-proxy/proxy-server.ts), mockttp style.
 * Off by default: with no rules, the proxy's only cost is one `size === 0` check per request.
 */

import type { FaultAction, FaultMatch, FaultRule } from './fault-types.js';

export type { FaultAction, FaultMatch, FaultRule };

/** What the proxy knows about a request when it decides. `rpc` is present only when the body was read. */
export interface FaultRequest {
  httpMethod: string;
  path: string;
  rpc?: { method?: string; tool?: string }[];
}

/** Largest POST body held to read the JSON-RPC method (when a rule names a method or tool). */
export const FAULT_BODY_MAX = 1024 * 1024;

const STATUSES = new Set([500, 502, 503, 404]);
const MAX_DELAY_MS = 10 * 60_000;

/** Validates an untrusted rule definition (from the API); throws an Error saying what is wrong. */
export function parseFaultRule(input: unknown, fallbackId: string): FaultRule {
  if (!input || typeof input !== 'object') throw new Error('a fault rule must be a JSON object');
  const o = input as Record<string, unknown>;
  const id = o.id === undefined ? fallbackId : o.id;
  if (typeof id !== 'string' || id === '' || id.length > 100) throw new Error('id must be a non-empty string');
  const m = (o.match ?? {}) as Record<string, unknown>;
  if (typeof m !== 'object' || m === null) throw new Error('match must be an object');
  const match: FaultMatch = {};
  for (const k of ['method', 'tool', 'path'] as const) {
    const v = m[k];
    if (v === undefined || v === '') continue;
    if (typeof v !== 'string' || v.length > 1000) throw new Error(`match.${k} must be a string`);
    match[k] = v;
  }
  const a = o.action as Record<string, unknown> | undefined;
  if (!a || typeof a !== 'object') throw new Error('action must be an object');
  let action: FaultAction;
  switch (a.type) {
    case 'delay': {
      const ms = Number(a.ms);
      if (!Number.isInteger(ms) || ms < 0 || ms > MAX_DELAY_MS) throw new Error(`delay ms must be an integer from 0 to ${MAX_DELAY_MS}`);
      action = { type: 'delay', ms };
      break;
    }
    case 'status': {
      const status = Number(a.status);
      if (!STATUSES.has(status)) throw new Error('status must be one of 500, 502, 503, 404');
      if (a.body !== undefined && (typeof a.body !== 'string' || a.body.length > 65536))
        throw new Error('body must be a string (up to 64 KiB)');
      action = { type: 'status', status: status as 500 | 502 | 503 | 404, ...(a.body !== undefined ? { body: a.body as string } : {}) };
      break;
    }
    case 'drop-stream': {
      const n = Number(a.afterEvents);
      if (!Number.isInteger(n) || n < 0) throw new Error('afterEvents must be a non-negative integer');
      action = { type: 'drop-stream', afterEvents: n };
      break;
    }
    case 'expire-session':
      action = { type: 'expire-session' };
      break;
    default:
      throw new Error('action.type must be delay, status, drop-stream or expire-session');
  }
  return { id, match, action, ...(o.once === true ? { once: true } : {}) };
}

/** The JSON-RPC requests in a body (object or batch): their method and, for tools/call, the tool. */
export function rpcSummary(body: Buffer): { method?: string; tool?: string }[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.map((m) => {
    if (!m || typeof m !== 'object') return {};
    const o = m as { method?: unknown; params?: { name?: unknown } };
    const method = typeof o.method === 'string' ? o.method : undefined;
    const tool = method === 'tools/call' && typeof o.params?.name === 'string' ? o.params.name : undefined;
    return { method, tool };
  });
}

/** Plain-words description of a rule's action, for modification events and the UI. */
export function describeAction(action: FaultAction): string {
  switch (action.type) {
    case 'delay':
      return `delay the request by ${action.ms} ms`;
    case 'status':
      return `answer HTTP ${action.status} instead of forwarding`;
    case 'drop-stream':
      return `drop the SSE stream after ${action.afterEvents} event${action.afterEvents === 1 ? '' : 's'}`;
    case 'expire-session':
      return 'answer 404 for the session id (session expired)';
  }
}

export function describeMatch(match: FaultMatch): string {
  const parts: string[] = [];
  if (match.method) parts.push(`method ${match.method}`);
  if (match.tool) parts.push(`tool ${match.tool}`);
  if (match.path) parts.push(`path ${match.path}`);
  return parts.length ? parts.join(', ') : 'any request';
}

/** A rule as the owner of a rule set hands it to a mirror: `serial` tells two additions of one id apart. */
export interface FaultRuleEntry {
  rule: FaultRule;
  serial: number;
}

/**
 * The live rule set, shared by every proxy port of one mcpscope and the API that edits it.
 *
 * The proxy runs on its own thread (proxy/wire/thread/proxy-thread.ts), so it decides with a mirror of
 * this set: the owner (main thread, edited by the API) tells listeners of every change
 * (`onChange` → `entries()`), the mirror adopts them (`mirror`) and reports each `once` rule it
 * used (`onTaken`), which the owner then removes (`removeTaken`). A mirror never re-adopts a
 * `once` rule it already used, even if the owner's next list still has it.
 */
export class FaultRegistry {
  private readonly rules = new Map<string, FaultRule>();
  private readonly serials = new Map<string, number>();
  private counter = 0;
  private serial = 0;
  /** Rules that name a JSON-RPC method or tool (they need the POST body). */
  private bodyRules = 0;
  private readonly listeners = new Set<() => void>();
  /** Mirror side: `${id}#${serial}` of the `once` rules this registry used. */
  private readonly used = new Set<string>();
  /** Called when a `once` rule is taken (the mirror tells the owner). */
  onTaken?: (id: string, serial: number) => void;

  /** 0 when fault injection is off: the proxy's whole check. */
  get size(): number {
    return this.rules.size;
  }

  /** Whether deciding needs the POST body (at least one rule names a method or tool). */
  get needsBody(): boolean {
    return this.bodyRules > 0;
  }

  list(): FaultRule[] {
    return [...this.rules.values()];
  }

  entries(): FaultRuleEntry[] {
    return [...this.rules.values()].map((rule) => ({ rule, serial: this.serials.get(rule.id)! }));
  }

  /** Calls `listener` after every change to the rule set; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  add(input: unknown): FaultRule {
    this.counter += 1;
    const rule = parseFaultRule(input, `fault-${this.counter}`);
    this.put(rule, ++this.serial);
    this.changed();
    return rule;
  }

  remove(id: string): boolean {
    const removed = this.drop(id);
    if (removed) this.changed();
    return removed;
  }

  /** Owner side: a mirror used this `once` rule; remove it unless the id was added anew since. */
  removeTaken(id: string, serial: number): void {
    if (this.serials.get(id) === serial) this.remove(id);
  }

  clear(): void {
    this.rules.clear();
    this.serials.clear();
    this.bodyRules = 0;
    this.changed();
  }

  /** Mirror side: adopt the owner's rule set. */
  mirror(entries: readonly FaultRuleEntry[]): void {
    this.rules.clear();
    this.serials.clear();
    this.bodyRules = 0;
    for (const { rule, serial } of entries) if (!this.used.has(`${rule.id}#${serial}`)) this.put(rule, serial);
  }

  /**
   * The first rule matching this request (removed if `once`). A rule that names a method or tool
   * matches only a request whose body was read and holds such a JSON-RPC request. `expire-session`
   * matches only requests that carry a session id.
   */
  take(req: FaultRequest, hasSession: boolean): FaultRule | undefined {
    for (const rule of this.rules.values()) {
      const m = rule.match;
      if (m.path !== undefined && m.path !== req.path) continue;
      if (m.method !== undefined || m.tool !== undefined) {
        if (!req.rpc?.some((r) => (m.method === undefined || r.method === m.method) && (m.tool === undefined || r.tool === m.tool)))
          continue;
      }
      if (rule.action.type === 'expire-session' && !hasSession) continue;
      if (rule.once) {
        const serial = this.serials.get(rule.id)!;
        this.used.add(`${rule.id}#${serial}`);
        this.remove(rule.id);
        this.onTaken?.(rule.id, serial);
      }
      return rule;
    }
    return undefined;
  }

  private put(rule: FaultRule, serial: number): void {
    this.drop(rule.id);
    this.rules.set(rule.id, rule);
    this.serials.set(rule.id, serial);
    if (rule.match.method || rule.match.tool) this.bodyRules += 1;
  }

  private drop(id: string): boolean {
    const rule = this.rules.get(id);
    if (!rule) return false;
    this.rules.delete(id);
    this.serials.delete(id);
    if (rule.match.method || rule.match.tool) this.bodyRules -= 1;
    return true;
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
