/**
 * Breakpoints on one direction of a stdio relay (proxy/app/stdio/stdio-holds.ts drives two of these):
 * the stream is cut into lines (LF; a CRLF line keeps its CR), each complete line is peeked
 * (addons/breakpoints/wire/wire-peek.ts), its requests are booked so that a response can be matched by the
 * request it answers, and a line a rule matches is held. The lines after it wait behind it, in
 * order (the relay stops reading that stream meanwhile: `onHolding`); the other direction flows on.
 *
 * Used only while a breakpoint rule exists or mcpscope's own send is under way: with neither, the
 * wrapper relays with plain stream pipes and none of this runs.
 *
 * What it writes is what gets recorded (`write` records and relays): an edited line is recorded
 * as sent, after a `modification` record keeping the original.
 */
import type { Direction } from '../../core/model/events.js';
import type { BreakpointRegistry } from '../../core/rules/breakpoint-rules.js';
import { HOLD_MAX_BYTES, type HeldReport, type PausedAction, type PausedOutcome } from '../../core/rules/breakpoint-types.js';
import { bookKey, peekMessages, type CallBook, type Peeked } from '../../addons/breakpoints/wire/wire-peek.js';

export interface HeldModification {
  /** As on HTTP: `breakpoint` (went on unchanged), `breakpoint-edit`, `breakpoint-drop`, `breakpoint-respond`. */
  what: 'breakpoint' | 'breakpoint-edit' | 'breakpoint-drop' | 'breakpoint-respond';
  pausedId: string;
  before: string;
  after: string;
  text: string;
  edited?: Direction;
}

export interface LineHolderHooks {
  /** Relays bytes to this direction's destination and records them (`sentBy`: mcpscope's own bytes). */
  write(bytes: Buffer, sentBy?: boolean): void;
  /** Records bytes that are not relayed: a held request answered by the user, a line mcpscope consumed. */
  record(bytes: Buffer, sentBy?: boolean): void;
  /** An answer to a held request, for its requester (the other direction's destination). */
  answer(line: Buffer): void;
  modification(m: HeldModification): void;
  held(report: HeldReport): void;
  released(id: string, outcome: PausedOutcome): void;
  /** A plain-words note for the recording (a line too long to hold). */
  note(code: string, text: string): void;
  /** Whether mcpscope takes this line for itself (the answer to its own send): then it is recorded, not relayed. */
  intercept?(messages: readonly Peeked[], text: string): boolean;
  /** The holder started or stopped holding: the relay stops or resumes reading the source. */
  onHolding(holding: boolean): void;
}

export interface LineHolderOptions {
  dir: Direction;
  /** The wrapper's mirror of the rules. */
  registry: BreakpointRegistry;
  /** Requests in flight, shared by both directions of the process. */
  book: CallBook;
  /** The process's xid as the wrapper names it. */
  xid: string;
  holdMs(): number;
  /** A fresh id for a held message (unique within the wrapper). */
  nextId(): string;
  /** The destination's last bytes did not end a line (the relay was piping mid-line when it switched). */
  midLine?: boolean;
  hooks: LineHolderHooks;
  now?: () => number;
}

interface Held {
  id: string;
  line: Buffer;
  text: string;
  ending: string;
  requestId?: unknown;
  timer: NodeJS.Timeout;
}

const LF = 0x0a;
const CR = 0x0d;

export class LineHolder {
  /** Bytes read and not yet relayed: the held line's successors and a partial last line. */
  private rest: Buffer = Buffer.alloc(0);
  /** Where in `rest` to look for the next LF (bytes before it have none). */
  private scanFrom = 0;
  /** Passing through the rest of a line too long to hold, up to its LF. */
  private skipping = false;
  private held?: Held;
  /** The destination is mid-line: lines mcpscope inserts wait for its end. */
  private outMid: boolean;
  private readonly inserts: { line: Buffer; sentBy: boolean }[] = [];
  private readonly key: string;
  private readonly now: () => number;

  constructor(private readonly options: LineHolderOptions) {
    this.outMid = !!options.midLine;
    this.key = bookKey({ process: options.xid });
    this.now = options.now ?? Date.now;
  }

  /** A line is held (its successors wait). */
  get holding(): boolean {
    return this.held !== undefined;
  }

  /** Nothing held, nothing waiting but (at most) a partial line, no insert queued. */
  get idle(): boolean {
    return !this.held && this.inserts.length === 0 && this.rest.indexOf(LF) < 0;
  }

  /** The id of the held line, if any. */
  get heldId(): string | undefined {
    return this.held?.id;
  }

  /** Bytes read from the source. */
  push(chunk: Buffer): void {
    this.rest = this.rest.length === 0 ? chunk : Buffer.concat([this.rest, chunk]);
    if (!this.held) this.run();
  }

  /**
   * A whole line (ending in LF) mcpscope sends itself: written at once when the destination is
   * at a line boundary, else right after the line being written ends.
   */
  insert(line: Buffer, sentBy = true): void {
    if (this.outMid) this.inserts.push({ line, sentBy });
    else this.out(line, sentBy);
  }

  /** The user's action on the held line; false when `id` is not (or no longer) held here. */
  act(id: string, action: PausedAction): boolean {
    const h = this.held;
    if (!h || h.id !== id) return false;
    this.release(h, action);
    return true;
  }

  /** Leaving line mode: the partial line read so far (relayed by the caller as is). */
  takePartial(): Buffer {
    const bytes = this.rest;
    this.rest = Buffer.alloc(0);
    this.scanFrom = 0;
    this.skipping = false;
    if (bytes.length > 0) this.outMid = bytes[bytes.length - 1] !== LF;
    return bytes;
  }

  /**
   * The source ended or the destination is gone. `deliver`: relay the held line unchanged and
   * whatever follows (the source's end); otherwise drop them (the process is gone).
   */
  finish(deliver: boolean): void {
    const h = this.held;
    if (h) {
      clearTimeout(h.timer);
      this.held = undefined;
      if (deliver) this.out(h.line);
      this.options.hooks.released(h.id, 'gone');
    }
    if (deliver) {
      this.run();
      if (this.rest.length > 0) this.out(this.takePartial());
    } else this.takePartial();
  }

  // ------------------------------------------------------------------ lines

  private run(): void {
    while (!this.held) {
      if (this.skipping) {
        const lf = this.rest.indexOf(LF);
        if (lf < 0) {
          if (this.rest.length > 0) this.out(this.takeRest(this.rest.length));
          return;
        }
        this.out(this.takeRest(lf + 1));
        this.skipping = false;
        continue;
      }
      const lf = this.rest.indexOf(LF, this.scanFrom);
      if (lf < 0) {
        this.scanFrom = this.rest.length;
        if (this.rest.length <= HOLD_MAX_BYTES) return;
        this.tooLong();
        continue;
      }
      if (lf + 1 > HOLD_MAX_BYTES) {
        // A complete line past the bound: relayed unchanged, like one still arriving.
        this.tooLong();
        continue;
      }
      this.line(this.takeRest(lf + 1));
    }
    this.options.hooks.onHolding(true);
  }

  private takeRest(n: number): Buffer {
    const bytes = this.rest.subarray(0, n);
    this.rest = this.rest.subarray(n);
    this.scanFrom = 0;
    return bytes;
  }

  private tooLong(): void {
    const dir = this.options.dir;
    this.options.hooks.note(
      'breakpoint-line-too-long',
      `A ${dir === 'c2s' ? 'client' : 'server'} line longer than ${HOLD_MAX_BYTES} bytes (the most mcpscope holds at a breakpoint) was relayed unchanged, without being checked against the breakpoints.`,
    );
    this.skipping = true;
  }

  /** One complete line (with its ending). */
  private line(line: Buffer): void {
    const crlf = line.length >= 2 && line[line.length - 2] === CR;
    const bodyEnd = line.length - (crlf ? 2 : 1);
    const text = line.toString('utf8', 0, bodyEnd);
    const peek = text.trim() === '' ? undefined : peekMessages(text);
    if (!peek) return this.out(line);
    const { dir, registry, book } = this.options;
    if (this.options.hooks.intercept?.(peek.messages, text)) {
      this.options.hooks.record(line, true);
      return;
    }
    let rule: string | undefined;
    let method: string | undefined;
    let name: string | undefined;
    for (const [i, m] of peek.messages.entries()) {
      const asked = m.kind === 'response' || m.kind === 'error' ? book.answer(this.key, dir, m.id) : m;
      if (i === 0) ({ method, name } = asked ?? {});
      if (rule === undefined)
        rule = registry.take({ dir, method: asked?.method, name: asked?.name, wire: { process: this.options.xid } })?.id;
    }
    book.book(this.key, dir, peek.messages);
    if (rule === undefined) return this.out(line);
    const since = this.now();
    const id = this.options.nextId();
    const first = peek.messages[0];
    const held: Held = {
      id,
      line,
      text,
      ending: crlf ? '\r\n' : '\n',
      requestId: first.kind === 'request' && !peek.batch ? first.id : undefined,
      timer: setTimeout(() => this.release(held, { action: 'resume' }, 'timed-out'), this.options.holdMs()),
    };
    held.timer.unref?.();
    this.held = held;
    this.options.hooks.held({
      id,
      xid: this.options.xid,
      dir,
      carrier: 'stdio',
      text,
      kind: peek.batch ? 'batch' : first.kind,
      ...(method !== undefined ? { method } : {}),
      ...(name !== undefined ? { name } : {}),
      rule,
      since,
      expiresAt: since + this.options.holdMs(),
    });
  }

  private release(h: Held, action: PausedAction, timedOut?: 'timed-out'): void {
    clearTimeout(h.timer);
    this.held = undefined;
    const { hooks, dir } = this.options;
    const where = `${dir === 'c2s' ? 'client→server' : 'server→client'} message held at a breakpoint`;
    let outcome: PausedOutcome;
    if (action.action === 'resume' && action.message === undefined) {
      hooks.modification({
        what: 'breakpoint',
        pausedId: h.id,
        before: h.text,
        after: h.text,
        text: timedOut ? `This ${where} went on unchanged at its time limit.` : `The user let this ${where} go on unchanged.`,
      });
      this.out(h.line);
      outcome = timedOut ?? 'resumed';
    } else if (action.action === 'resume') {
      const after = JSON.stringify(action.message);
      hooks.modification({
        what: 'breakpoint-edit',
        pausedId: h.id,
        before: h.text,
        after,
        text: `The user edited this ${where} before it went on.`,
        edited: dir,
      });
      this.out(Buffer.from(after + h.ending));
      outcome = 'edited';
    } else if (action.action === 'drop') {
      hooks.modification({
        what: 'breakpoint-drop',
        pausedId: h.id,
        before: h.text,
        after: '(dropped)',
        text: `The user dropped this ${where}: it never arrived.`,
      });
      outcome = 'dropped';
    } else {
      const answer = JSON.stringify(action.message);
      // The request as it came (so that its answer pairs with it), then what became of it.
      hooks.record(h.line);
      hooks.modification({
        what: 'breakpoint-respond',
        pausedId: h.id,
        before: h.text,
        after: `(answered: ${answer})`,
        text: `The user answered this ${where} in the ${dir === 'c2s' ? 'server' : 'client'}'s place: it never reached the ${dir === 'c2s' ? 'server' : 'client'}.`,
      });
      if (h.requestId !== undefined) this.options.book.answer(this.key, dir === 'c2s' ? 's2c' : 'c2s', h.requestId as string | number);
      hooks.answer(Buffer.from(answer + h.ending));
      outcome = 'responded';
    }
    hooks.released(h.id, outcome);
    this.run();
    if (!this.held) hooks.onHolding(false);
  }

  private out(bytes: Buffer, sentBy = false): void {
    if (bytes.length === 0) return;
    this.options.hooks.write(bytes, sentBy);
    this.outMid = bytes[bytes.length - 1] !== LF;
    while (!this.outMid && this.inserts.length > 0) {
      const next = this.inserts.shift()!;
      this.options.hooks.write(next.line, next.sentBy);
    }
  }
}
