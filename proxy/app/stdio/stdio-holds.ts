/**
 * The stdio wrapper's relay of stdin and stdout, with breakpoints and mcpscope's own sends.
 *
 * Each direction is a `Relay`. In pipe mode — whenever no breakpoint rule exists and no send of
 * mcpscope's is under way — it is exactly the plain relay: `source.pipe(dest)` plus the tap that
 * pushes each chunk as a record (the one thing it does beyond that is keep a reference to the last
 * chunk, so that a switch knows whether the destination is mid-line). When a rule exists or a send
 * starts, both directions switch to line mode: the bytes go through a LineHolder
 * (line-holder.ts), which peeks every line, books requests (to match a response by the request it
 * answers), holds what a rule matches, and inserts mcpscope's own lines at line boundaries. Once
 * neither is needed and nothing is held, each direction goes back to its pipe.
 *
 * Rules come from the UI the wrapper reports to (`setRules`: the ingest socket, or the wrapper's
 * own mcpscope); held lines are reported through the `uplink`, and the user's actions come back
 * through `act`.
 */
import type { Readable, Writable } from 'node:stream';
import type { Direction } from '../../core/model/events.js';
import type { WireRecord } from '../../wire/capture/wire-records.js';
import { BreakpointRegistry } from '../../core/rules/breakpoint-rules.js';
import {
  DEFAULT_HOLD_MS,
  type BreakpointEntry,
  type HeldReport,
  type PausedAction,
  type PausedOutcome,
} from '../../core/rules/breakpoint-types.js';
import { CallBook, type Peeked } from '../../addons/breakpoints/wire/wire-peek.js';
import { LineHolder, type HeldModification } from './line-holder.js';

/** Where held lines are reported: the ingest socket, or the wrapper's own mcpscope. */
export interface HoldsUplink {
  held(report: HeldReport): void;
  released(id: string, outcome: PausedOutcome): void;
  /** A `once` rule was used. */
  taken(id: string, serial: number): void;
}

/** What became of a message mcpscope sent into the process. */
export type StdioSendOutcome = { response: unknown } | { error: string; status: number };

/** How long a send waits for its answer (ms). */
export const SEND_TIMEOUT_MS = 30_000;

export interface StdioHoldsOptions {
  xid: string;
  /** The client's side: our stdin and stdout. */
  stdin: Readable;
  stdout: Writable;
  /** The server's side: its stdin and stdout. */
  childStdin: Writable;
  childStdout: Readable;
  /** Pushes a record (an O(1) push onto the ingest client). */
  push(record: Extract<WireRecord, { t: 'stdio-chunk' | 'modification' | 'stdio-note' }>): void;
  /** How long a line is held (the UI's setting, when it sends one, wins). */
  holdMs?: number;
}

const LF = 0x0a;

class Relay {
  mode: 'pipe' | 'line' = 'pipe';
  holder?: LineHolder;
  private last?: Buffer;
  private ended = false;
  private waitingDrain = false;
  private readonly tap = (chunk: Buffer) => {
    this.last = chunk;
    this.record(chunk);
  };
  private readonly onData = (chunk: Buffer) => {
    this.holder!.push(chunk);
    if (this.holder!.holding || this.waitingDrain) this.source.pause();
  };
  private readonly onEnd = () => {
    this.ended = true;
    this.tryEnd();
  };

  constructor(
    readonly dir: Direction,
    private readonly source: Readable,
    private readonly dest: Writable,
    /** Whether the source's end ends the destination (stdin: yes; stdout: the wrapper ends it). */
    private readonly endDest: boolean,
    private readonly desk: StdioHolds,
    private readonly record: (bytes: Buffer, sentBy?: boolean) => void,
  ) {
    source.on('data', this.tap);
    source.pipe(dest, { end: endDest });
  }

  toLine(): void {
    if (this.mode === 'line') return;
    this.mode = 'line';
    this.source.unpipe(this.dest);
    this.source.off('data', this.tap);
    this.holder = this.desk.holderFor(this, this.last !== undefined && this.last[this.last.length - 1] !== LF);
    this.source.on('data', this.onData);
    this.source.on('end', this.onEnd);
    if (this.source.readableEnded) this.onEnd();
    else this.source.resume();
  }

  /** Back to the plain pipe once nothing is held or waiting here. */
  toPipe(): void {
    const h = this.holder;
    if (this.mode === 'pipe' || !h || !h.idle) return;
    const partial = h.takePartial();
    if (partial.length > 0) this.write(partial);
    this.mode = 'pipe';
    this.holder = undefined;
    this.source.off('data', this.onData);
    this.source.off('end', this.onEnd);
    if (this.ended) return;
    this.source.on('data', this.tap);
    if (this.waitingDrain) this.source.pause();
    this.source.pipe(this.dest, { end: this.endDest });
  }

  /** Relays and records (line mode). */
  write(bytes: Buffer, sentBy = false): void {
    this.record(bytes, sentBy);
    this.last = bytes;
    if (this.dest.destroyed || this.dest.writableEnded) return;
    if (!this.dest.write(bytes) && !this.waitingDrain) {
      this.waitingDrain = true;
      this.source.pause();
      this.dest.once('drain', () => {
        this.waitingDrain = false;
        this.resume();
      });
    }
  }

  /** A whole line mcpscope writes itself, at a line boundary. */
  insert(line: Buffer, sentBy = true): boolean {
    if (this.dest.destroyed || this.dest.writableEnded) return false;
    this.toLine();
    this.holder!.insert(line, sentBy);
    return true;
  }

  resume(): void {
    if (this.mode === 'line' && !this.waitingDrain && !this.holder?.holding && !this.ended) this.source.resume();
    this.tryEnd();
  }

  private tryEnd(): void {
    if (!this.ended || this.mode !== 'line' || this.holder?.holding) return;
    this.holder!.finish(true);
    if (this.endDest && !this.dest.writableEnded) this.dest.end();
  }

  get canWrite(): boolean {
    return !this.dest.destroyed && !this.dest.writableEnded && !(this.endDest && this.ended);
  }
}

interface PendingSend {
  progressToken?: string | number;
  resolve(outcome: StdioSendOutcome): void;
  timer: NodeJS.Timeout;
}

const typedKey = (id: unknown) => `${typeof id}:${String(id)}`;

export class StdioHolds {
  /** The wrapper's mirror of the UI's rules. */
  readonly rules = new BreakpointRegistry();
  private readonly book = new CallBook();
  private readonly c2s: Relay;
  private readonly s2c: Relay;
  private readonly reports = new Map<string, HeldReport>();
  private readonly pending = new Map<string, PendingSend>();
  private holdMs: number;
  private counter = 0;
  private gone = false;
  uplink?: HoldsUplink;

  constructor(private readonly options: StdioHoldsOptions) {
    this.holdMs = options.holdMs ?? DEFAULT_HOLD_MS;
    const rec = (dir: Direction) => (chunk: Buffer, sentBy?: boolean) =>
      options.push({ t: 'stdio-chunk', xid: options.xid, ts: Date.now(), dir, chunk, ...(sentBy ? { sentBy: 'mcpscope' as const } : {}) });
    this.c2s = new Relay('c2s', options.stdin, options.childStdin, true, this, rec('c2s'));
    this.s2c = new Relay('s2c', options.childStdout, options.stdout, false, this, rec('s2c'));
    this.rules.onTaken = (id, serial) => this.uplink?.taken(id, serial);
    // Not at once: a `once` rule changes the set in the middle of matching a line.
    this.rules.onChange(() => this.scheduleUpdate());
  }

  /** The rules as the UI has them now (and its hold time, when it says). */
  setRules(entries: readonly BreakpointEntry[], holdMs?: number): void {
    if (holdMs !== undefined && holdMs > 0) this.holdMs = holdMs;
    this.rules.mirror(entries);
  }

  /** The held lines, to report again to a UI linked anew. */
  held(): HeldReport[] {
    return [...this.reports.values()];
  }

  /** The link to the UI is gone: nobody can act on what is held, so it goes on unchanged, and the rules go. */
  unlinked(): void {
    this.uplink = undefined;
    this.rules.mirror([]);
    for (const id of [...this.reports.keys()]) this.act(id, { action: 'resume' });
  }

  /** The user's action on a held line; false when it is not held here. */
  act(id: string, action: PausedAction): boolean {
    return !!(this.c2s.holder?.act(id, action) || this.s2c.holder?.act(id, action));
  }

  /**
   * Writes a request into the server's stdin at a line boundary and waits for its answer, which
   * (with its progress notifications) is recorded but never reaches the client.
   */
  send(message: Record<string, unknown>, timeoutMs = SEND_TIMEOUT_MS): Promise<StdioSendOutcome> {
    const id = message.id;
    if (this.gone || !this.c2s.canWrite) return Promise.resolve({ error: "the server process's stdin is closed", status: 409 });
    if (id === undefined) {
      // A notification: nothing comes back.
      this.c2s.insert(Buffer.from(`${JSON.stringify(message)}\n`), true);
      this.scheduleUpdate();
      return Promise.resolve({ response: undefined });
    }
    if (typeof id !== 'string' && typeof id !== 'number')
      return Promise.resolve({ error: 'the id must be a string or a number', status: 400 });
    const key = typedKey(id);
    if (this.pending.has(key)) return Promise.resolve({ error: `a message with id ${JSON.stringify(id)} is already waiting`, status: 409 });
    const meta = (message.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta;
    const token = meta?.progressToken;
    return new Promise<StdioSendOutcome>((resolve) => {
      const done = (outcome: StdioSendOutcome) => {
        clearTimeout(entry.timer);
        this.pending.delete(key);
        resolve(outcome);
        this.scheduleUpdate();
      };
      const entry: PendingSend = {
        ...(typeof token === 'string' || typeof token === 'number' ? { progressToken: token } : {}),
        resolve: done,
        timer: setTimeout(() => done({ error: `no answer from the server within ${timeoutMs} ms`, status: 504 }), timeoutMs),
      };
      this.pending.set(key, entry);
      this.update();
      this.c2s.insert(Buffer.from(`${JSON.stringify(message)}\n`), true);
    });
  }

  /** The process exited and its output was read: what is held or waiting is gone. */
  processGone(): void {
    this.gone = true;
    for (const r of [this.c2s, this.s2c]) r.holder?.finish(false);
    for (const p of [...this.pending.values()]) p.resolve({ error: 'the server process exited before it answered', status: 502 });
  }

  /** Line mode is needed while a rule exists or a send waits. */
  wanted(): boolean {
    return this.rules.size > 0 || this.pending.size > 0;
  }

  /** @internal Relay → its holder. */
  holderFor(relay: Relay, midLine: boolean): LineHolder {
    const other = relay === this.c2s ? this.s2c : this.c2s;
    return new LineHolder({
      dir: relay.dir,
      registry: this.rules,
      book: this.book,
      xid: this.options.xid,
      holdMs: () => this.holdMs,
      nextId: () => `s${++this.counter}`,
      midLine,
      hooks: {
        write: (bytes, sentBy) => {
          relay.write(bytes, sentBy);
          if (!this.wanted()) this.scheduleUpdate();
        },
        record: (bytes, sentBy) =>
          this.options.push({
            t: 'stdio-chunk',
            xid: this.options.xid,
            ts: Date.now(),
            dir: relay.dir,
            chunk: bytes,
            ...(sentBy ? { sentBy: 'mcpscope' as const } : {}),
          }),
        answer: (line) => void other.insert(line, true),
        modification: (m: HeldModification) => this.options.push({ t: 'modification', xid: this.options.xid, ts: Date.now(), ...m }),
        held: (report) => {
          this.reports.set(report.id, report);
          this.uplink?.held(report);
        },
        released: (id, outcome) => {
          this.reports.delete(id);
          this.uplink?.released(id, outcome);
          this.scheduleUpdate();
        },
        note: (code, text) => this.options.push({ t: 'stdio-note', xid: this.options.xid, ts: Date.now(), dir: relay.dir, code, text }),
        intercept: relay.dir === 's2c' ? (messages, text) => this.intercept(messages, text) : undefined,
        onHolding: (holding) => (holding ? undefined : relay.resume()),
      },
    });
  }

  /** A server line that answers (or reports progress on) one of mcpscope's sends is mcpscope's. */
  private intercept(messages: readonly Peeked[], text: string): boolean {
    if (this.pending.size === 0 || messages.length !== 1) return false;
    const m = messages[0];
    if (m.kind === 'response' || m.kind === 'error') {
      const p = this.pending.get(typedKey(m.id));
      if (!p) return false;
      p.resolve({ response: JSON.parse(text) });
      return true;
    }
    if (m.method !== 'notifications/progress') return false;
    const token = (JSON.parse(text) as { params?: { progressToken?: unknown } }).params?.progressToken;
    if (token === undefined) return false;
    for (const p of this.pending.values()) if (p.progressToken === token) return true;
    return false;
  }

  private updating = false;

  private scheduleUpdate(): void {
    if (this.updating) return;
    this.updating = true;
    queueMicrotask(() => {
      this.updating = false;
      this.update();
    });
  }

  private update(): void {
    const want = this.wanted();
    for (const r of [this.c2s, this.s2c]) {
      if (want) r.toLine();
      else r.toPipe();
    }
  }
}
