/**
 * Breakpoints: the rules (off until one is added), the messages held now,
 * /api/breakpoints and /api/paused, and the link to the proxy thread's holds
 * (breakpoints-link.ts). Stdio wrappers linked to the UI hold lines with the same rules (they get
 * them through the ingest link).
 */
import { BreakpointRegistry } from '../../core/rules/breakpoint-rules.js';
import type { WireSessionKey } from '../../core/rules/breakpoint-types.js';
import type { McpscopeAddon } from '../addon.js';
import { breakpointsLink } from './breakpoints-link.js';
import { PausedRegistry, type PausedRegistryOptions } from './paused-registry.js';
import { breakpointRoutes } from './routes.js';
import { BREAKPOINTS } from './wire/breakpoint-messages.js';

export interface BreakpointsAddon extends McpscopeAddon {
  readonly rules: BreakpointRegistry;
  readonly paused: PausedRegistry;
}

export interface BreakpointsAddonOptions extends PausedRegistryOptions {
  /** A session's wire key (the recorder's), for rules naming a session. */
  resolveSession(sessionId: string): WireSessionKey | undefined;
  /** Runs the recorder on what was captured so far. */
  flush(): void;
  /** Resolves once every holder (the proxy thread, each linked stdio wrapper) adopted the current rules. */
  applied(): Promise<void>;
  holdMs?: number;
  hashSessionIds?: boolean;
}

export function breakpointsAddon(o: BreakpointsAddonOptions): BreakpointsAddon {
  const rules = new BreakpointRegistry();
  rules.resolveSession = (id) => o.resolveSession(id);
  const paused = new PausedRegistry({ locate: o.locate, emit: o.emit, redact: o.redact });
  return {
    name: BREAKPOINTS,
    rules,
    paused,
    thread: breakpointsLink({ rules, paused, flush: o.flush, holdMs: o.holdMs, hashSessionIds: o.hashSessionIds }),
    routes: () => breakpointRoutes({ rules, paused, applied: o.applied }),
  };
}
