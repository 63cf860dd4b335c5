/**
 * Breakpoint rules: validating one from the API, the live rule set, and matching a message.
 *
 * The set is owned by the main thread (edited through /api/breakpoints) and mirrored to every
 * holder: the proxy thread and each stdio wrapper, as a RuleSet (core/rules/rule-set.ts), like
 * fault rules: a mirror reports each `once` rule it used, the owner removes it, and a mirror never
 * re-adopts a `once` rule it already used. With no rule, holders do nothing at all: `size === 0`
 * is their whole check.
 */
import type { Direction } from '../model/events.js';
import type { BreakpointEntry, BreakpointMatch, BreakpointRule, WireSessionKey } from './breakpoint-types.js';
import { RuleSet } from './rule-set.js';

export type { BreakpointEntry, BreakpointMatch, BreakpointRule };

/** Rules at most: every message is matched against each. */
export const MAX_RULES = 1000;

/** What a holder knows of a message when it decides. */
export interface MatchInput {
  dir: Direction;
  /** The method; for a response or error, the method of the request it answers (when known). */
  method?: string;
  /** The tool/prompt/resource name; for a response, that of its request. */
  name?: string;
  /** The session as the holder sees it on the wire. */
  wire: WireSessionKey;
}

/** Validates an untrusted rule definition (from the API); throws an Error saying what is wrong. */
export function parseBreakpointRule(input: unknown, fallbackId: string): BreakpointRule {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new Error('a breakpoint must be a JSON object');
  const o = input as Record<string, unknown>;
  const id = o.id === undefined ? fallbackId : o.id;
  if (typeof id !== 'string' || id === '' || id.length > 100) throw new Error('id must be a non-empty string (up to 100 characters)');
  const m = o.match;
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw new Error('match must be an object with dir "c2s" or "s2c"');
  const mm = m as Record<string, unknown>;
  if (mm.dir !== 'c2s' && mm.dir !== 's2c') throw new Error('match.dir must be "c2s" (client→server) or "s2c" (server→client)');
  const match: BreakpointMatch = { dir: mm.dir };
  for (const k of ['method', 'tool', 'session'] as const) {
    const v = mm[k];
    if (v === undefined || v === '' || v === null) continue;
    if (typeof v !== 'string' || v.length > 1000) throw new Error(`match.${k} must be a string`);
    match[k] = v;
  }
  for (const k of Object.keys(mm))
    if (!['dir', 'method', 'tool', 'session'].includes(k))
      throw new Error(`match.${k} is not a breakpoint field (dir, method, tool, session)`);
  if (o.once !== undefined && typeof o.once !== 'boolean') throw new Error('once must be true or false');
  return { id, match, ...(o.once === true ? { once: true } : {}) };
}

/** Plain-words description of a rule, for modification events, the API and the UI. */
export function describeBreakpoint(rule: BreakpointRule): string {
  const m = rule.match;
  const parts = [m.dir === 'c2s' ? 'client→server' : 'server→client'];
  if (m.method) parts.push(`method ${m.method}`);
  if (m.tool) parts.push(`name ${m.tool}`);
  if (m.session) parts.push(`session ${m.session}`);
  return `breakpoint ${rule.id} (${parts.join(', ')}${rule.once ? ', once' : ''})`;
}

function sameWire(rule: WireSessionKey | undefined, msg: WireSessionKey): boolean {
  if (!rule) return false;
  return (
    (rule.mcpSessionId !== undefined && rule.mcpSessionId === msg.mcpSessionId) ||
    (rule.endpoint !== undefined && rule.endpoint === msg.endpoint) ||
    (rule.process !== undefined && rule.process === msg.process)
  );
}

/** Whether one rule matches a message. A rule naming a session matches only once that session's wire key is known. */
export function ruleMatches(entry: BreakpointEntry, input: MatchInput): boolean {
  const m = entry.rule.match;
  if (m.dir !== input.dir) return false;
  if (m.method !== undefined && m.method !== input.method) return false;
  if (m.tool !== undefined && m.tool !== input.name) return false;
  if (m.session !== undefined && !sameWire(entry.wire, input.wire)) return false;
  return true;
}

/**
 * The live rule set: the owner (main thread) and each mirror (proxy thread, stdio wrapper) hold
 * one (rule-set.ts). `take` finds the first matching rule and, for a `once` rule, uses it up.
 */
export class BreakpointRegistry extends RuleSet<BreakpointRule, BreakpointEntry> {
  /** Owner side: how a rule's `match.session` is recognised on the wire (set by mcpscope.ts). */
  resolveSession?: (sessionId: string) => WireSessionKey | undefined;

  constructor() {
    // Counted per direction, so that a holder can skip a direction no rule names.
    super({
      parse: parseBreakpointRule,
      idPrefix: 'bp-',
      max: MAX_RULES,
      tooMany: `at most ${MAX_RULES} breakpoints at a time: remove some first (DELETE /api/breakpoints/:id)`,
      tally: (rule) => rule.match.dir,
    });
  }

  /** Whether any rule holds messages going this way. */
  has(dir: Direction): boolean {
    return this.count(dir) > 0;
  }

  /** The rules as mirrors get them, each session resolved to its wire key now. */
  override entries(): BreakpointEntry[] {
    return super.entries().map((e) => {
      const s = e.rule.match.session;
      const wire = s !== undefined ? this.resolveSession?.(s) : undefined;
      return wire ? { ...e, wire } : e;
    });
  }

  /** Owner side: tells the mirrors again (a session named by a rule got its wire key). */
  refresh(): void {
    if (this.size > 0) this.changed();
  }

  /** The first rule matching the message (used up when `once`), or undefined. */
  take(input: MatchInput): BreakpointRule | undefined {
    if (!this.has(input.dir)) return undefined;
    return this.takeFirst((e) => ruleMatches(e, input));
  }
}
