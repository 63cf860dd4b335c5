/**
 * The `/ingest` socket's control messages, besides the wrapper's record batches (JSON arrays,
 * wire/capture/wire-codec.ts). Each is one JSON object per WebSocket text message.
 *
 * Down (the UI → a wrapper):
 *   breakpoints  the rule set as that wrapper matches it (its process's session key translated to
 *                the wrapper's xid), sent on connect and on every change, with the UI's hold time
 *   act          the user's action on a line the wrapper holds
 *   send         a request mcpscope sends into the process (POST /api/sessions/:id/send)
 *   proof        the answer to `hello`: HMAC-SHA256(token, "mcpscope-ingest-proof\n" + nonce), so
 *                that the wrapper knows this UI holds the token before it sends a record; and the
 *                UI's own fresh nonce, for the wrapper to prove itself with in turn; `records`:
 *                this UI sends `recorded` to a wrapper whose hello asks for it
 *   recorded     to a wrapper that asked (`--log`): the events this UI recorded of its processes,
 *                with this UI's session ids and seqs (one message per store commit), and `through`,
 *                how many of the records this socket brought are recorded by now (the wrapper
 *                sends those that were not again to the next UI, should this one go away);
 *                `skipped`: events left out while the wrapper did not read (it says so in the log)
 * Up (a wrapper → the UI):
 *   hello             the wrapper's first message: a fresh random nonce for the UI to prove itself with;
 *                     `log`: send me `recorded` (the wrapper writes a --log file in this UI's numbers)
 *   auth              the wrapper's proof, HMAC-SHA256(token, "mcpscope-ingest-auth\n" + the UI's nonce):
 *                     neither side ever sends the token itself, so a program that holds the port learns
 *                     nothing it could use (a wrapper that sent the token in its upgrade gave it away)
 *   held / released   a line held at a breakpoint, and how it went on
 *   taken             a `once` rule was used
 *   rules             the rule set numbered `seq` is in force (the API's answer waits for it)
 *   sent              the answer to a `send` (or why there is none)
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { BreakpointEntry, HeldReport, PausedAction, PausedOutcome } from '../../core/rules/breakpoint-types.js';
import type { McpscopeEvent } from '../../core/model/events.js';

/** The upgrade header of a wrapper that proves it knows the token over the socket (`challenge`) instead of sending it. */
export const INGEST_AUTH_HEADER = 'x-mcpscope-ingest-auth';

export type ControlDown =
  /** `seq` numbers the rule sets sent down one socket: the wrapper answers `rules` with it once adopted. */
  | { type: 'breakpoints'; entries: BreakpointEntry[]; holdMs?: number; seq?: number }
  | { type: 'act'; id: string; action: PausedAction }
  | { type: 'send'; ref: number; xid: string; message: Record<string, unknown>; timeoutMs?: number }
  /** `exports`: whether that mcpscope exports OpenTelemetry (a wrapper with --otlp says when it does not). `records`: it sends `recorded` when asked. */
  | { type: 'proof'; hmac: string; nonce?: string; exports?: boolean; records?: boolean }
  /** What the UI recorded of this socket's processes (in its feed form, proxy/core/model/feed-form.ts); `through`: records of this socket recorded so far. */
  | { type: 'recorded'; events: McpscopeEvent[]; through?: number; skipped?: number };

export type ControlUp =
  | { type: 'hello'; nonce: string; log?: boolean }
  | { type: 'auth'; hmac: string }
  | { type: 'held'; report: HeldReport }
  | { type: 'released'; id: string; outcome: PausedOutcome }
  | { type: 'taken'; id: string; serial: number }
  /** The rule set `seq` is in force here (so that the API answers a rule change once every holder has it). */
  | { type: 'rules'; seq: number }
  | { type: 'sent'; ref: number; response?: unknown; error?: string; status?: number };

const OUTCOMES: readonly string[] = ['resumed', 'edited', 'dropped', 'responded', 'timed-out', 'gone'];
const KINDS: readonly string[] = ['request', 'notification', 'response', 'error', 'batch'];

const str = (v: unknown, max = 1000): v is string => typeof v === 'string' && v.length <= max;
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** What the UI proves it knows the token with: HMAC-SHA256 keyed with the token, over a fixed prefix and the wrapper's nonce (base64url). */
export function ingestProof(token: string, nonce: string): string {
  return hmacOf(token, 'mcpscope-ingest-proof', nonce);
}

/** What the wrapper proves it knows the token with, over the UI's nonce (another prefix: one proof is never the other). */
export function ingestAuth(token: string, nonce: string): string {
  return hmacOf(token, 'mcpscope-ingest-auth', nonce);
}

/** Whether `hmac` is the UI's proof for `token` and `nonce` (compared in constant time). */
export function checkIngestProof(token: string, nonce: string, hmac: unknown): boolean {
  return sameHmac(ingestProof(token, nonce), hmac);
}

/** Whether `hmac` is the wrapper's proof for `token` and the UI's `nonce` (compared in constant time). */
export function checkIngestAuth(token: string, nonce: string, hmac: unknown): boolean {
  return sameHmac(ingestAuth(token, nonce), hmac);
}

/** A fresh nonce: 32 random bytes, base64url. */
export function ingestNonce(): string {
  return randomBytes(32).toString('base64url');
}

function hmacOf(token: string, label: string, nonce: string): string {
  return createHmac('sha256', token).update(`${label}\n${nonce}`).digest('base64url');
}

function sameHmac(expected: string, hmac: unknown): boolean {
  if (typeof hmac !== 'string') return false;
  const want = Buffer.from(expected);
  const got = Buffer.from(hmac);
  return got.length === want.length && timingSafeEqual(got, want);
}

/** A nonce is base64url, 16 to 128 characters (the wrapper sends 43: 32 random bytes). */
const NONCE = /^[A-Za-z0-9_-]{16,128}$/;

/** Whether a socket message is a control message (an object) rather than a batch (an array). */
export function isControl(text: string): boolean {
  return text.trimStart().startsWith('{');
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A wrapper's control message, checked field by field (the UI trusts a wrapper's token, not its bytes). */
export function parseControlUp(text: string): ControlUp | string {
  const o = parseObject(text);
  if (!o) return 'a control message must be a JSON object';
  switch (o.type) {
    case 'hello':
      if (typeof o.nonce !== 'string' || !NONCE.test(o.nonce)) return 'hello needs a nonce (16 to 128 base64url characters)';
      return { type: 'hello', nonce: o.nonce, ...(o.log === true ? { log: true } : {}) };
    case 'auth':
      if (!str(o.hmac, 200)) return 'auth needs an hmac';
      return { type: 'auth', hmac: o.hmac };
    case 'held': {
      const r = o.report as Record<string, unknown> | undefined;
      if (
        !r ||
        !str(r.id, 100) ||
        !str(r.xid, 200) ||
        (r.dir !== 'c2s' && r.dir !== 's2c') ||
        r.carrier !== 'stdio' ||
        !str(r.text, 2 * 1024 * 1024) ||
        !KINDS.includes(r.kind as string) ||
        !str(r.rule, 100) ||
        !num(r.since) ||
        !num(r.expiresAt) ||
        (r.method !== undefined && !str(r.method)) ||
        (r.name !== undefined && !str(r.name))
      )
        return 'a held report needs id, xid, dir, carrier "stdio", text, kind, rule, since and expiresAt';
      return { type: 'held', report: r as unknown as HeldReport };
    }
    case 'released':
      if (!str(o.id, 100) || !OUTCOMES.includes(o.outcome as string)) return 'released needs an id and an outcome';
      return { type: 'released', id: o.id, outcome: o.outcome as PausedOutcome };
    case 'taken':
      if (!str(o.id, 100) || !num(o.serial)) return 'taken needs an id and a serial';
      return { type: 'taken', id: o.id, serial: o.serial };
    case 'rules':
      if (!num(o.seq)) return 'rules needs a seq';
      return { type: 'rules', seq: o.seq };
    case 'sent':
      if (!num(o.ref) || (o.error !== undefined && !str(o.error)) || (o.status !== undefined && !num(o.status))) return 'sent needs a ref';
      return {
        type: 'sent',
        ref: o.ref,
        ...('response' in o ? { response: o.response } : {}),
        ...(o.error !== undefined ? { error: o.error as string, status: (o.status as number | undefined) ?? 502 } : {}),
      };
    default:
      return `unknown control message ${JSON.stringify(o.type)}`;
  }
}

/** The UI's control message, as a wrapper reads it (undefined: not one it knows). */
export function parseControlDown(text: string): ControlDown | undefined {
  const o = parseObject(text);
  if (!o) return undefined;
  if (o.type === 'proof' && str(o.hmac, 200))
    return {
      type: 'proof',
      hmac: o.hmac,
      ...(typeof o.nonce === 'string' && NONCE.test(o.nonce) ? { nonce: o.nonce } : {}),
      ...(typeof o.exports === 'boolean' ? { exports: o.exports } : {}),
      ...(o.records === true ? { records: true } : {}),
    };
  if (o.type === 'recorded' && Array.isArray(o.events) && (o.through === undefined || num(o.through)))
    return {
      type: 'recorded',
      // The UI proved it knows the token; an entry that is not an event at all is left out.
      events: (o.events as unknown[]).filter(
        (e): e is McpscopeEvent =>
          !!e && typeof e === 'object' && typeof (e as { type?: unknown }).type === 'string' && num((e as { seq?: unknown }).seq),
      ),
      ...(o.through !== undefined ? { through: o.through as number } : {}),
      ...(num(o.skipped) && o.skipped > 0 ? { skipped: o.skipped } : {}),
    };
  if (o.type === 'breakpoints' && Array.isArray(o.entries))
    return {
      type: 'breakpoints',
      entries: o.entries as BreakpointEntry[],
      ...(num(o.holdMs) ? { holdMs: o.holdMs } : {}),
      ...(num(o.seq) ? { seq: o.seq } : {}),
    };
  if (o.type === 'act' && str(o.id, 100) && o.action && typeof o.action === 'object')
    return { type: 'act', id: o.id, action: o.action as PausedAction };
  if (o.type === 'send' && num(o.ref) && str(o.xid, 200) && o.message && typeof o.message === 'object' && !Array.isArray(o.message))
    return {
      type: 'send',
      ref: o.ref,
      xid: o.xid,
      message: o.message as Record<string, unknown>,
      ...(num(o.timeoutMs) ? { timeoutMs: o.timeoutMs } : {}),
    };
  return undefined;
}
