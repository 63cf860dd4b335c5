/**
 * The UI port's `/ingest` WebSocket: stdio wrappers (proxy/app/stdio/stdio-wrapper.ts) send their
 * wire records here, so that every wrapped stdio server of a desktop client shows up in one UI
 * beside the HTTP sessions. Records go into this mcpscope's own capture queue: correlation and
 * seq assignment happen in one place.
 *
 * Each connection gets its own xid namespace (`i3:` + the wrapper's xid), so two wrappers never
 * collide. A process whose wrapper disconnects without reporting its exit is closed as
 * `wrapper-disconnected`.
 *
 * Trust goes both ways, and the token never crosses the socket: the wrapper's first message is
 * `hello` with a random nonce, answered at once with `proof`, HMAC-SHA256(token, nonce), and a
 * nonce of this UI's, which the wrapper answers with `auth`, its own HMAC over it
 * (ingest-control.ts). A wrapper sends no record before it has checked the proof, so a program that
 * holds the port without the token gets nothing from it, not even the token; and this UI takes
 * nothing but `auth` from a socket until it is right (AUTH_MS to give it; a wrong one closes the
 * socket), reads no message over 1 KiB before it, and lets MAX_UNPROVEN sockets wait at once. A client that presented the token in its upgrade request (`Authorization: Bearer`, as
 * the guard checks for every route) is trusted from the start.
 *
 * A wrapper writing a `--log` file asks (`log` in its hello) for what this UI records of its
 * processes: after each store commit, the events of its sessions go down its socket (`recorded`,
 * in their feed form), so that its log carries this UI's session ids and seqs, with how many of
 * its records are recorded by then (`through`, only when nothing waits in the capture queue).
 */
import type { WebSocket } from 'ws';
import type { WireRecord } from '../../wire/capture/wire-records.js';
import type { McpscopeEvent } from '../../core/model/events.js';
import { toFeed, unserializableStub } from '../../core/model/feed-form.js';
import { eventSession, type EventStore } from '../../recorder/store/event-store.js';
import { decodeBatch } from '../../wire/capture/wire-codec.js';
import type { BreakpointRegistry } from '../../core/rules/breakpoint-rules.js';
import type { BreakpointEntry } from '../../core/rules/breakpoint-types.js';
import type { PausedHolder, PausedRegistry } from '../../addons/breakpoints/paused-registry.js';
import { checkIngestAuth, ingestNonce, ingestProof, isControl, parseControlUp, type ControlDown } from '../stdio/ingest-control.js';
import type { StdioLinks } from '../stdio/stdio-send.js';
import type { StdioSendOutcome } from '../stdio/stdio-holds.js';

/**
 * Breakpoints and sends on stdio: the rules go down each socket (on connect and on
 * every change), the lines a wrapper holds come up into `paused`, the user's actions go back
 * down, and `links` learns each running process so that mcpscope can send into it.
 */
export interface IngestHubOptions {
  breakpoints?: BreakpointRegistry;
  paused?: PausedRegistry;
  /** The hold time wrappers use (this mcpscope's `holdMs`). */
  holdMs?: number;
  links?: StdioLinks;
  /** This UI's token: what it proves it knows when a wrapper says `hello`. */
  token?: string;
  /** Whether this mcpscope exports OpenTelemetry (--otlp): said in the proof, so a wrapper with --otlp can tell its user. */
  exports?: boolean;
  /** What this mcpscope records, for the wrappers that write a --log file (`recorded`). */
  recorded?: {
    store: Pick<EventStore, 'subscribe'>;
    /** The session a process (its xid here: `i3:` + the wrapper's) was recorded as. */
    sessionOf(xid: string): string | undefined;
    /** Whether every record captured so far has been recorded (the capture queue is empty). */
    idle(): boolean;
  };
}

/** A wrapper that asked for what is recorded of its processes. */
interface Follower {
  ws: WebSocket;
  ready(): boolean;
  /** Its processes (xid here) → their session, once the recorder made it. */
  processes: Map<string, string | undefined>;
  sessions: Set<string>;
  /** Records this socket brought, and the count last said to be recorded. */
  received: number;
  acked: number;
  /** Events not sent while the socket was backed up, to be said in the next message. */
  skipped: number;
}

/** Unsent bytes on a follower's socket past which its events are left out (counted, and said). */
const MAX_FOLLOWER_BUFFER = 16 * 1024 * 1024;

/** A rule as one connection's wrapper matches it: a session key in its xid space, or none (matches nothing there). */
function forConnection(e: BreakpointEntry, prefix: string): BreakpointEntry {
  if (!e.wire) return e;
  const { wire, ...rest } = e;
  return wire.process?.startsWith(prefix) ? { ...rest, wire: { process: wire.process.slice(prefix.length) } } : rest;
}

/** How long a socket that did not present the token has to prove it knows it (`auth`). */
export const AUTH_MS = 5_000;

/**
 * How many sockets may wait for their proof at once (anyone on this machine can open one, without
 * the token); one more is cut at once. A wrapper's proof takes a round trip, so they wait
 * milliseconds each; the bound is what sockets that never prove anything can hold (AUTH_MS each,
 * and what ws buffers of a message, INGEST_MAX_PAYLOAD at most).
 */
export const MAX_UNPROVEN = 32;

/** The most a socket may send in one message before its proof (hello and auth are ~100 bytes). */
const MAX_UNPROVEN_MESSAGE = 1024;

/** Largest ingest message: a wrapper sends ~256 KiB batches (base64), plus one large chunk at most. */
export const INGEST_MAX_PAYLOAD = 16 * 1024 * 1024;

export class IngestHub {
  private next = 0;
  private readonly sockets = new Set<WebSocket>();
  /** Per socket: sends it the rules as they are now. */
  private readonly ruleSenders = new Map<WebSocket, () => void>();
  /** Per socket that was sent rules: the seq of the last set sent, and of the last it said it adopted. */
  private readonly ruleSeqs = new Map<WebSocket, { sent: number; adopted: number }>();
  private readonly adoptedWaiters = new Set<() => void>();
  private readonly stopRules?: () => void;
  /** Sockets open and not yet proven (MAX_UNPROVEN). */
  private unproven = 0;
  private readonly followers = new Set<Follower>();
  private readonly stopRecorded?: () => void;

  constructor(
    private readonly capture: (record: WireRecord) => void,
    private readonly options: IngestHubOptions = {},
  ) {
    this.stopRules = options.breakpoints?.onChange(() => {
      for (const send of this.ruleSenders.values()) send();
    });
    this.stopRecorded = options.recorded?.store.subscribe((batch) => this.sendRecorded(batch), "the stdio wrappers' --log feed");
  }

  /** After a store commit: each following wrapper gets its processes' events, and how many of its records are recorded. */
  private sendRecorded(batch: readonly McpscopeEvent[]): void {
    const recorded = this.options.recorded!;
    if (this.followers.size === 0) return;
    const idle = recorded.idle();
    for (const f of this.followers) {
      if (!f.ready()) continue;
      for (const [xid, session] of f.processes) {
        if (session !== undefined) continue;
        const found = recorded.sessionOf(xid);
        if (found === undefined) continue;
        f.processes.set(xid, found);
        f.sessions.add(found);
      }
      const events: string[] = [];
      if (f.sessions.size > 0)
        for (const e of batch) {
          const session = eventSession(e);
          if (session === undefined || !f.sessions.has(session)) continue;
          if (f.ws.bufferedAmount > MAX_FOLLOWER_BUFFER) {
            f.skipped += 1;
            continue;
          }
          events.push(feedJson(e));
        }
      const through = idle && f.received !== f.acked ? f.received : undefined;
      if (events.length === 0 && through === undefined) continue;
      if (through !== undefined) f.acked = through;
      const skipped = f.skipped > 0 && events.length > 0 ? f.skipped : 0;
      if (skipped > 0) f.skipped = 0;
      f.ws.send(
        `{"type":"recorded"${through !== undefined ? `,"through":${through}` : ''}${skipped > 0 ? `,"skipped":${skipped}` : ''},"events":[${events.join(',')}]}`,
      );
    }
  }

  get connections(): number {
    return this.sockets.size;
  }

  /**
   * A wrapper's socket. `authenticated`: it presented the token in its upgrade; otherwise it must
   * answer this UI's nonce (`auth`) before anything else it sends is read.
   */
  add(ws: WebSocket, o: { authenticated?: boolean } = {}): void {
    let authenticated = o.authenticated ?? true;
    if (!authenticated) {
      if (this.unproven >= MAX_UNPROVEN) return ws.terminate();
      this.unproven += 1;
    }
    let counted = !authenticated;
    const proven = () => {
      if (counted) this.unproven -= 1;
      counted = false;
    };
    const uiNonce = ingestNonce();
    const deadline = authenticated
      ? undefined
      : setTimeout(() => ws.close(1008, `no proof of the token within ${AUTH_MS} ms`), AUTH_MS).unref();
    this.next += 1;
    const prefix = `i${this.next}:`;
    /** Processes of this connection that started and have not exited. */
    const running = new Set<string>();
    this.sockets.add(ws);
    const { breakpoints, paused, links } = this.options;
    const down = (m: ControlDown) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
    };
    // The wrapper's held lines: the user's actions go back down this socket.
    const holder: PausedHolder = { act: (id, action) => down({ type: 'act', id, action }) };
    // The rules go down once the wrapper has spoken (its first batch): by then it listens.
    let greeted = false;
    if (breakpoints) {
      const sendRules = () => {
        if (!greeted || !authenticated) return;
        const seqs = this.ruleSeqs.get(ws) ?? { sent: 0, adopted: 0 };
        seqs.sent += 1;
        this.ruleSeqs.set(ws, seqs);
        down({
          type: 'breakpoints',
          entries: breakpoints.entries().map((e) => forConnection(e, prefix)),
          ...(this.options.holdMs !== undefined ? { holdMs: this.options.holdMs } : {}),
          seq: seqs.sent,
        });
      };
      this.ruleSenders.set(ws, sendRules);
    }
    /** Set when the wrapper asked for what is recorded of its processes (its --log). */
    let follower: Follower | undefined;
    /** Sends into this connection's processes that await their answer. */
    const sends = new Map<number, (o: StdioSendOutcome) => void>();
    const unlinks = new Map<string, () => void>();
    let ref = 0;
    const control = (text: string, first: boolean) => {
      const m = parseControlUp(text);
      if (typeof m === 'string') return ws.close(1007, m.slice(0, 120));
      if (m.type === 'hello') {
        if (!first) ws.close(1008, 'hello comes first, once');
      } else if (m.type === 'auth') {
        if (authenticated || !this.options.token || !checkIngestAuth(this.options.token, uiNonce, m.hmac))
          return void ws.close(1008, authenticated ? 'auth comes once, after the proof' : 'wrong proof of the token');
        authenticated = true;
        proven();
        clearTimeout(deadline);
        this.ruleSenders.get(ws)?.();
      } else if (m.type === 'held') paused?.add(prefix, holder, m.report);
      else if (m.type === 'released') paused?.released(prefix, m.id, m.outcome);
      else if (m.type === 'taken') breakpoints?.removeTaken(m.id, m.serial);
      else if (m.type === 'rules') {
        const seqs = this.ruleSeqs.get(ws);
        if (seqs) seqs.adopted = Math.max(seqs.adopted, m.seq);
        for (const w of this.adoptedWaiters) w();
      } else {
        sends.get(m.ref)?.(m.error !== undefined ? { error: m.error, status: m.status ?? 502 } : { response: m.response });
        sends.delete(m.ref);
      }
    };
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        ws.close(1003, 'send batches as JSON text');
        return;
      }
      const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      if (!authenticated && bytes.length > MAX_UNPROVEN_MESSAGE)
        return void ws.close(1009, `at most ${MAX_UNPROVEN_MESSAGE} bytes before the proof of the token`);
      const text = bytes.toString('utf8');
      const first = !greeted;
      if (first) {
        greeted = true;
        // The proof first: the wrapper reads nothing else before it.
        const hello = isControl(text) ? parseControlUp(text) : undefined;
        if (hello && typeof hello !== 'string' && hello.type === 'hello' && this.options.token) {
          down({
            type: 'proof',
            hmac: ingestProof(this.options.token, hello.nonce),
            ...(authenticated ? {} : { nonce: uiNonce }),
            exports: this.options.exports === true,
            ...(this.options.recorded ? { records: true } : {}),
          });
          if (hello.log && this.options.recorded) {
            follower = {
              ws,
              ready: () => authenticated && ws.readyState === ws.OPEN,
              processes: new Map(),
              sessions: new Set(),
              received: 0,
              acked: 0,
              skipped: 0,
            };
            this.followers.add(follower);
          }
        } else if (!authenticated) return void ws.close(1008, 'say hello first: this UI proves itself, then you');
        this.ruleSenders.get(ws)?.();
      } else if (!authenticated) {
        const m = isControl(text) ? parseControlUp(text) : undefined;
        if (!m || typeof m === 'string' || m.type !== 'auth')
          return void ws.close(1008, 'prove that you know the token (auth) before sending anything else');
      }
      if (isControl(text)) return control(text, first);
      const decoded = decodeBatch(text);
      if ('error' in decoded) {
        ws.close(1007, decoded.error.slice(0, 120));
        return;
      }
      if (follower) follower.received += decoded.records.length;
      for (const r of decoded.records) {
        const xid = prefix + r.xid;
        if (r.t === 'stdio-start') {
          running.add(xid);
          if (follower && !follower.processes.has(xid)) follower.processes.set(xid, undefined);
          const local = r.xid;
          if (links && !unlinks.has(xid))
            unlinks.set(
              xid,
              links.register(xid, (message, timeoutMs) => {
                const n = ++ref;
                return new Promise((resolve) => {
                  sends.set(n, resolve);
                  down({ type: 'send', ref: n, xid: local, message, timeoutMs });
                });
              }),
            );
        } else if (r.t === 'stdio-exit') {
          running.delete(xid);
          unlinks.get(xid)?.();
          unlinks.delete(xid);
        }
        // A breakpoint's modification names its held line as the main registry does (prefixed, like the xid).
        this.capture(r.t === 'modification' && r.pausedId !== undefined ? { ...r, xid, pausedId: prefix + r.pausedId } : { ...r, xid });
      }
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      clearTimeout(deadline);
      proven();
      if (follower) this.followers.delete(follower);
      this.sockets.delete(ws);
      this.ruleSenders.delete(ws);
      this.ruleSeqs.delete(ws);
      for (const w of this.adoptedWaiters) w();
      paused?.forget(holder);
      for (const unlink of unlinks.values()) unlink();
      for (const resolve of sends.values()) resolve({ error: 'its mcpscope wrapper disconnected from this UI', status: 502 });
      sends.clear();
      const ts = Date.now();
      for (const xid of running)
        this.capture({ t: 'abort', xid, ts, side: 'proxy', reason: 'its mcpscope wrapper disconnected from this UI' });
      running.clear();
    });
  }

  /**
   * Resolves once every wrapper that was sent rules has adopted the last set it was sent (a wrapper
   * that does not answer within `timeoutMs` is not waited for longer).
   */
  rulesAdopted(timeoutMs = 2000): Promise<void> {
    const done = () => [...this.ruleSeqs.values()].every((s) => s.adopted >= s.sent);
    if (done()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.adoptedWaiters.delete(check);
        resolve();
      };
      const check = () => {
        if (done()) finish();
      };
      const timer = setTimeout(finish, timeoutMs);
      this.adoptedWaiters.add(check);
    });
  }

  /** Says goodbye to every wrapper (they reconnect to whichever UI takes the port next); cuts off any that does not answer within `graceMs`. */
  close(graceMs = 500): Promise<void> {
    this.stopRules?.();
    this.stopRecorded?.();
    const closing = [...this.sockets].map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === ws.CLOSED) return resolve();
          const timer = setTimeout(() => ws.terminate(), graceMs);
          ws.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          ws.close(1001, 'mcpscope is shutting down');
        }),
    );
    return Promise.all(closing).then(() => undefined);
  }
}

/** An event as JSON in its feed form (a stand-in when it cannot be serialized). */
function feedJson(e: McpscopeEvent): string {
  try {
    return JSON.stringify(toFeed(e, Infinity));
  } catch (err) {
    return JSON.stringify(unserializableStub(e, (err as Error).message));
  }
}
