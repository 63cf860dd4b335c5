/**
 * What the breakpoints addon's two halves say to each other across the proxy thread's `addon`
 * messages (proxy/wire/thread/thread-addon.ts): breakpoints-thread.ts on the proxy thread,
 * ../breakpoints-link.ts on the main thread. Types and the name only, so the main thread loads
 * nothing of the proxy-thread half.
 */
import type { HeldReport, PausedAction, PausedOutcome } from '../../../core/rules/breakpoint-types.js';

export const BREAKPOINTS = 'breakpoints';

/** The half's options (plain data, from the main thread). */
export interface BreakpointThreadOptions {
  /** How long a held message waits before it resumes unchanged (ms). */
  holdMs?: number;
  /** `--hash-session-ids`: a rule naming a session compares hashed `Mcp-Session-Id`s. */
  hashSessionIds?: boolean;
}

/** Proxy thread → main thread. */
export type BreakpointThreadMessage =
  /** A message is held (the records before it were sent first). */
  | { kind: 'paused'; report: HeldReport }
  /** A held message went on (or away). */
  | { kind: 'released'; id: string; outcome: PausedOutcome };

/** Main thread → proxy thread: the user's action on a held message (`id`: the desk's local id). */
export interface BreakpointLinkMessage {
  kind: 'action';
  id: string;
  action: PausedAction;
}
