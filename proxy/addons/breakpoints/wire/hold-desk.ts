/**
 * The desk where a holder keeps its held messages: it numbers them, reports each to the main
 * thread (after the records before it, so that its exchange is known there), starts its time
 * limit, and hands the user's action — or the time limit's resume — to whoever holds the bytes,
 * exactly once. Used by the proxy thread's HTTP holds; no Node APIs beyond timers.
 */
import type { HeldReport, PausedAction, PausedOutcome } from '../../../core/rules/breakpoint-types.js';
import { DEFAULT_HOLD_MS } from '../../../core/rules/breakpoint-types.js';

/** What a holder says of a message it holds: the report's fields the desk does not fill in itself. */
export type HoldRequest = Pick<HeldReport, 'xid' | 'dir' | 'carrier' | 'text' | 'kind' | 'method' | 'name' | 'rule'>;

/** Carries out an action on the held bytes and says how it went; `timedOut`: the time limit resumed it. */
export type HoldAction = (action: PausedAction, timedOut: boolean) => PausedOutcome;

export interface HeldTicket {
  /** The id the main thread (and the records) know it by. */
  readonly publicId: string;
  readonly since: number;
  /** The bytes' stream or client went away while held: it is released as `gone`. */
  gone(): void;
}

export interface HoldDeskOptions {
  /** Tells the main thread: a message is held / was released. */
  report(report: HeldReport): void;
  released(id: string, outcome: PausedOutcome): void;
  /** Sends the records captured so far before a report (their exchange must be known first). */
  beforeReport?(): void;
  /** The id prefix the main thread adds (`h` for the proxy thread): records name held messages by it. */
  prefix: string;
  holdMs?: number;
}

export class HoldDesk {
  private next = 0;
  private readonly held = new Map<string, { onAction: HoldAction; timer: ReturnType<typeof setTimeout> }>();
  holdMs: number;

  constructor(private readonly options: HoldDeskOptions) {
    this.holdMs = options.holdMs ?? DEFAULT_HOLD_MS;
  }

  get size(): number {
    return this.held.size;
  }

  hold(request: HoldRequest, onAction: HoldAction): HeldTicket {
    this.next += 1;
    const id = String(this.next);
    const since = Date.now();
    const expiresAt = since + this.holdMs;
    const timer = setTimeout(() => this.settle(id, { action: 'resume' }, true), this.holdMs);
    this.held.set(id, { onAction, timer });
    this.options.beforeReport?.();
    this.options.report({ id, since, expiresAt, ...request });
    return {
      publicId: this.options.prefix + id,
      since,
      gone: () => {
        const h = this.held.get(id);
        if (!h) return;
        clearTimeout(h.timer);
        this.held.delete(id);
        this.options.released(id, 'gone');
      },
    };
  }

  /** The user's action on held message `id` (ignored when it was released meanwhile). */
  act(id: string, action: PausedAction): void {
    this.settle(id, action, false);
  }

  /** Everything held is let go unchanged (breakpoints cleared while shutting down, the thread closing). */
  releaseAll(): void {
    for (const id of [...this.held.keys()]) this.settle(id, { action: 'resume' }, true);
  }

  private settle(id: string, action: PausedAction, timedOut: boolean): void {
    const h = this.held.get(id);
    if (!h) return;
    clearTimeout(h.timer);
    this.held.delete(id);
    let outcome: PausedOutcome;
    try {
      outcome = h.onAction(action, timedOut);
    } catch {
      outcome = 'gone';
    }
    this.options.released(id, outcome);
  }
}
