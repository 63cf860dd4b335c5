/**
 * Fault injection for the user (issue 6, item 8): rules that make the proxy misbehave on purpose
 * so a client's robustness can be tested — delay a response, answer an HTTP error instead of
 * forwarding, drop a POST's SSE stream after N events, or expire the session (404).
 *
 * The rule *definitions* are plain, serializable data (what the API and UI exchange); how each
 * action is carried out lives on the proxy thread (proxy/addons/faults/wire/fault-actions.ts),
 * mockttp style.
 * Off by default: with no rules, the proxy's only cost is one `size === 0` check per request.
 */

import type { FaultAction, FaultMatch, FaultRule } from './fault-types.js';
import { RuleSet, type RuleEntry } from './rule-set.js';

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
export type FaultRuleEntry = RuleEntry<FaultRule>;

/**
 * The live rule set, shared by every proxy port of one mcpscope and the API that edits it.
 *
 * The proxy runs on its own thread (proxy/wire/thread/proxy-thread.ts), so it decides with a mirror
 * of this set (rule-set.ts: how the owner and its mirrors keep `once` rules used once).
 */
export class FaultRegistry extends RuleSet<FaultRule> {
  constructor() {
    // Rules that name a JSON-RPC method or tool need the POST body.
    super({ parse: parseFaultRule, idPrefix: 'fault-', tally: (rule) => (rule.match.method || rule.match.tool ? 'body' : undefined) });
  }

  /** Whether deciding needs the POST body (at least one rule names a method or tool). */
  get needsBody(): boolean {
    return this.count('body') > 0;
  }

  /**
   * The first rule matching this request (removed if `once`). A rule that names a method or tool
   * matches only a request whose body was read and holds such a JSON-RPC request. `expire-session`
   * matches only requests that carry a session id.
   */
  take(req: FaultRequest, hasSession: boolean): FaultRule | undefined {
    return this.takeFirst(({ rule }) => {
      const m = rule.match;
      if (m.path !== undefined && m.path !== req.path) return false;
      if (m.method !== undefined || m.tool !== undefined) {
        if (!req.rpc?.some((r) => (m.method === undefined || r.method === m.method) && (m.tool === undefined || r.tool === m.tool)))
          return false;
      }
      return rule.action.type !== 'expire-session' || hasSession;
    });
  }
}
