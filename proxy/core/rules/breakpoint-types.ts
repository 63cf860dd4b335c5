/**
 * Breakpoints (issue 18): rules that hold single JSON-RPC messages on their way, and the held
 * messages a user resumes, edits, drops or answers. Plain serializable data shared by the proxy
 * thread, the stdio wrapper, the API and the UI (no Node APIs here: the browser imports it).
 *
 * Where each part lives:
 * - breakpoint-rules.ts: validating a rule, the rule set (owner on the main thread, mirrors on
 *   the proxy thread and in stdio wrappers) and matching;
 * - wire-peek.ts: what a holder reads off a message to match it;
 * - http-holds.ts (proxy thread): holding POST bodies, JSON answers and SSE events;
 * - paused-registry.ts (main thread): the held messages of every holder, and the API's actions;
 * - routes.ts: /api/breakpoints and /api/paused.
 */
import type { Carrier, Direction, MessageKind } from '../model/events.js';

export interface BreakpointMatch {
  /** `c2s`: client→server messages; `s2c`: server→client. */
  dir: Direction;
  /** JSON-RPC method; for a response or error, the method of the request it answers. */
  method?: string;
  /**
   * Tool, prompt or resource the message is about (`tools/call` params.name, `prompts/get`
   * params.name, `resources/read` params.uri); for a response, that of the request it answers.
   */
  tool?: string;
  /** mcpscope's session id (`s3`): only messages of that session. */
  session?: string;
}

export interface BreakpointRule {
  id: string;
  match: BreakpointMatch;
  /** Removed once it has held one message. */
  once?: boolean;
}

/** The session a rule names, as its holder can tell it from the wire (resolved on the main thread). */
export interface WireSessionKey {
  /** HTTP: the `Mcp-Session-Id` header value (as the store shows it: hashed under --hash-session-ids). */
  mcpSessionId?: string;
  /** Legacy HTTP+SSE: the path and query of the endpoint the client posts to. */
  endpoint?: string;
  /** stdio: the wrapper's process xid (as the recorder names it). */
  process?: string;
}

/** A rule as a mirror gets it: `serial` tells two additions of one id apart; `wire` resolves `match.session`. */
export interface BreakpointEntry {
  rule: BreakpointRule;
  serial: number;
  /** Set when the rule names a session: how a holder recognises it (none known yet: matches nothing). */
  wire?: WireSessionKey;
}

/** What the user does with a held message (POST /api/paused/:id). */
export type PausedAction =
  /** Let it go on; with `message`, the edited message (any valid JSON-RPC) replaces the original on the wire. */
  | { action: 'resume'; message?: unknown }
  /** It never arrives. */
  | { action: 'drop' }
  /** A request only: answer it in the other side's place (a JSON-RPC response or error); it never reaches that side. */
  | { action: 'respond'; message: unknown };

/** How a held message ended. */
export type PausedOutcome = 'resumed' | 'edited' | 'dropped' | 'responded' | 'timed-out' | 'gone';

/** A held message as its holder (the proxy thread, a stdio wrapper) reports it. */
export interface HeldReport {
  /** Unique per holder; the main thread prefixes it per holder (`h` proxy thread, `i3:` a wrapper). */
  id: string;
  /** The exchange (HTTP) or process (stdio) it belongs to, in the holder's xid space. */
  xid: string;
  dir: Direction;
  carrier: Carrier;
  /** The message's JSON text exactly as it came (a batch: the whole body). Unredacted: the API is token-guarded and never keeps it. */
  text: string;
  kind: MessageKind | 'batch';
  method?: string;
  /** The tool/prompt/resource name (see BreakpointMatch.tool). */
  name?: string;
  /** The id of the rule that matched. */
  rule: string;
  since: number;
  /** When it resumes by itself, unchanged (epoch ms). */
  expiresAt: number;
}

/** GET /api/paused: one held message. */
export interface PausedMessage {
  id: string;
  dir: Direction;
  /** mcpscope's session id, once the recorder knows it (null for a request that opens a session). */
  sessionId: string | null;
  exchangeId?: string;
  carrier: Carrier;
  kind: MessageKind | 'batch';
  method?: string;
  name?: string;
  /** The held message (parsed), exactly as it came. */
  message: unknown;
  rule: string;
  since: number;
  expiresAt: number;
}

/** How long a held message waits for the user before it resumes unchanged (default). */
export const DEFAULT_HOLD_MS = 5 * 60_000;

/** Messages one holder holds at a time at most: past it, a matching message goes on unheld (and a modification says so). */
export const MAX_HELD = 1000;

/** Largest message a holder holds (a larger body or event is forwarded unchanged, and a problem says so). */
export const HOLD_MAX_BYTES = 1024 * 1024;

/** The `x-mcpscope-origin` header value on requests mcpscope itself sends (resend, respond): the recorder marks those exchanges. */
export const SENT_BY_HEADER = 'x-mcpscope-origin';
