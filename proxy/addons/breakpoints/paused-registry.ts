/**
 * The held messages of every holder, on the main thread: the proxy thread (HTTP) and each stdio
 * wrapper report what they hold (`add`) and how it ended (`released`); the API lists them and
 * passes the user's action back to the holder that holds the message (`act`). Each held message
 * and its release become `paused` events in the store, so the UI's count is live.
 *
 * A held message's text is kept here as it came (the user edits it), never in the store: the
 * store's `paused` event carries a redacted preview, like everything it keeps.
 */
import type { Carrier, Direction, MessageKind, UnsequencedEvent } from '../../core/model/events.js';
import type { HeldReport, PausedAction, PausedMessage, PausedOutcome } from '../../core/rules/breakpoint-types.js';
import { checkAnswer, checkJsonRpc } from '../../core/rules/action-checks.js';
import { McpscopeError, SAY } from '../../core/model/errors.js';

/** Where a held message's action goes: the proxy thread, or the stdio wrapper that holds it. */
export interface PausedHolder {
  act(localId: string, action: PausedAction): void;
}

interface Held {
  id: string;
  prefix: string;
  localId: string;
  holder: PausedHolder;
  report: HeldReport;
  /** The holder's xid in the recorder's space (prefixed for a wrapper). */
  xid: string;
  message: unknown;
}

export interface PausedRegistryOptions {
  /** The session and exchange of a recorder xid, as far as the recorder knows now. */
  locate(xid: string): { sessionId?: string; exchangeId?: string };
  /** Appends a `paused` event to the store (redacting its preview). */
  emit(event: UnsequencedEvent): void;
  /** Redacts a preview for the store. */
  redact(text: string): string;
}

const PREVIEW_CHARS = 8 * 1024;

export class PausedRegistry {
  private readonly held = new Map<string, Held>();
  private readonly waiters = new Map<string, (() => void)[]>();

  constructor(private readonly options: PausedRegistryOptions) {}

  get size(): number {
    return this.held.size;
  }

  /**
   * A holder holds a message. `prefix` names the holder (`h` for the proxy thread, `i3:` for a
   * wrapper) and makes its ids and xids unique here.
   */
  add(prefix: string, holder: PausedHolder, report: HeldReport): void {
    const id = prefix + report.id;
    let message: unknown;
    try {
      message = JSON.parse(report.text);
    } catch {
      message = report.text;
    }
    const xid = prefix === 'h' ? report.xid : prefix + report.xid;
    const entry: Held = { id, prefix, localId: report.id, holder, report, xid, message };
    this.held.set(id, entry);
    this.emit(entry, 'held');
  }

  /** The holder says how one of its messages ended. */
  released(prefix: string, localId: string, outcome: PausedOutcome): void {
    const id = prefix + localId;
    const entry = this.held.get(id);
    if (!entry) return;
    this.held.delete(id);
    this.emit(entry, 'released', outcome);
    for (const w of this.waiters.get(id) ?? []) w();
    this.waiters.delete(id);
  }

  /** Resolves once `id` is released (at once when it is not held), or after `timeoutMs` whatever happened. */
  whenReleased(id: string, timeoutMs = 5000): Promise<void> {
    if (!this.held.has(id)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      const list = this.waiters.get(id) ?? [];
      list.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this.waiters.set(id, list);
    });
  }

  /** A holder went away (a wrapper disconnected, the proxy thread restarted): what it held is gone. */
  forget(holder: PausedHolder): void {
    for (const entry of [...this.held.values()]) if (entry.holder === holder) this.released(entry.prefix, entry.localId, 'gone');
  }

  list(): PausedMessage[] {
    return [...this.held.values()].map((e) => this.describe(e));
  }

  get(id: string): PausedMessage | undefined {
    const e = this.held.get(id);
    return e && this.describe(e);
  }

  /**
   * The user's action on a held message. Checked here (valid JSON-RPC; `respond` only to a
   * request, with its id), then passed to the holder, which answers with `released`.
   * Returns the error (NO_HELD, BAD_ACTION) in plain words, or undefined when the action went to the holder.
   */
  act(id: string, input: unknown): McpscopeError | undefined {
    const entry = this.held.get(id);
    if (!entry) return new McpscopeError('NO_HELD', SAY.noHeld(id));
    if (!input || typeof input !== 'object' || Array.isArray(input))
      return new McpscopeError('BAD_ACTION', 'the body must be a JSON object with an action');
    const o = input as Record<string, unknown>;
    let action: PausedAction;
    switch (o.action) {
      case 'resume': {
        if (o.message === undefined) {
          action = { action: 'resume' };
          break;
        }
        const problem = checkJsonRpc(o.message);
        if (problem) return new McpscopeError('BAD_ACTION', `message: ${problem}`);
        action = { action: 'resume', message: o.message };
        break;
      }
      case 'drop':
        action = { action: 'drop' };
        break;
      case 'respond': {
        if (entry.report.kind !== 'request')
          return new McpscopeError('BAD_ACTION', `only a request can be answered; this held message is a ${entry.report.kind}`);
        const checked = checkAnswer(o.message, (entry.message as { id?: unknown }).id);
        if ('error' in checked) return new McpscopeError('BAD_ACTION', `message: ${checked.error}`);
        action = { action: 'respond', message: checked.answer };
        break;
      }
      default:
        return new McpscopeError(
          'BAD_ACTION',
          'action must be "resume" (optionally with an edited "message"), "drop" or "respond" (with a "message")',
        );
    }
    entry.holder.act(entry.localId, action);
    return undefined;
  }

  private describe(e: Held): PausedMessage {
    const where = this.options.locate(e.xid);
    const r = e.report;
    return {
      id: e.id,
      dir: r.dir,
      sessionId: where.sessionId ?? null,
      ...(where.exchangeId ? { exchangeId: where.exchangeId } : {}),
      carrier: r.carrier,
      kind: r.kind,
      ...(r.method !== undefined ? { method: r.method } : {}),
      ...(r.name !== undefined ? { name: r.name } : {}),
      message: e.message,
      rule: r.rule,
      since: r.since,
      expiresAt: r.expiresAt,
    };
  }

  private emit(e: Held, state: 'held' | 'released', outcome?: PausedOutcome): void {
    const where = this.options.locate(e.xid);
    const r = e.report;
    const text = r.text.length > PREVIEW_CHARS ? `${r.text.slice(0, PREVIEW_CHARS)}…` : r.text;
    this.options.emit({
      type: 'paused',
      ts: Date.now(),
      pausedId: e.id,
      state,
      ...(outcome ? { outcome } : {}),
      ...(where.sessionId ? { sessionId: where.sessionId } : {}),
      ...(where.exchangeId ? { exchangeId: where.exchangeId } : {}),
      dir: r.dir as Direction,
      carrier: r.carrier as Carrier,
      kind: r.kind as MessageKind | 'batch',
      ...(r.method !== undefined ? { method: r.method } : {}),
      ...(r.name !== undefined ? { name: this.options.redact(r.name) } : {}),
      rule: r.rule,
      since: r.since,
      expiresAt: r.expiresAt,
      ...(state === 'held' ? { preview: this.options.redact(text) } : {}),
    });
  }
}
