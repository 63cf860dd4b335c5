/**
 * Waits in the store for what a send (session-send.ts) put on the wire, as the recorder saw it:
 * the sent request or notification (a `c2s` message with `sentBy: "mcpscope"`, its id and method,
 * recorded after the send began) and, for a request, its answer — the response or error the
 * correlator paired with it (`pair`), on whatever carried it: the POST's JSON or SSE answer, a
 * legacy session's GET stream. Subscribed before the request leaves, so nothing is missed.
 */
import type { MessageEvent } from '../../core/model/events.js';
import type { EventStore } from '../../recorder/store/event-store.js';

export interface WatchTarget {
  /** The request's id; undefined for a notification. */
  id?: string | number;
  method: string;
  /** Only what was recorded after this seq. */
  afterSeq: number;
  /** The id is mcpscope's own fresh one: an answer with it is ours even if the request was not recorded (too large to parse, say). */
  freshId: boolean;
}

export class AnswerWatch {
  /** The sent message as recorded, once seen. */
  request?: MessageEvent;
  /** The answer, once seen. */
  answer?: MessageEvent;
  private wake?: () => void;
  private readonly unsubscribe: () => void;

  constructor(
    store: EventStore,
    private readonly target: WatchTarget,
  ) {
    this.unsubscribe = store.subscribe((batch) => {
      for (const e of batch) if (e.type === 'message' && e.seq > target.afterSeq) this.see(e);
    }, 'a message sent from the UI waiting for its answer');
  }

  private see(e: MessageEvent): void {
    const t = this.target;
    if (
      !this.request &&
      e.dir === 'c2s' &&
      e.sentBy === 'mcpscope' &&
      e.method === t.method &&
      (t.id === undefined ? e.kind === 'notification' : e.kind === 'request' && e.id === t.id)
    ) {
      this.request = e;
      if (t.id === undefined) this.wake?.();
      return;
    }
    if (this.answer || t.id === undefined || e.dir !== 's2c' || (e.kind !== 'response' && e.kind !== 'error')) return;
    if ((this.request && e.pair === this.request.seq) || (t.freshId && e.id === t.id && e.replayOf === undefined)) {
      this.answer = e;
      this.wake?.();
    }
  }

  /** Resolves once the answer (a notification: its record) is there, or `signal` aborts. */
  done(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const finished = () => (this.target.id === undefined ? this.request !== undefined : this.answer !== undefined);
      if (finished() || signal.aborted) return resolve();
      const onAbort = () => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
      this.wake = () => {
        if (!finished()) return;
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
    });
  }

  stop(): void {
    this.unsubscribe();
  }
}

/** A recorded message's JSON-RPC payload (as kept: redacted). */
export function payloadOf(m: MessageEvent): unknown {
  if (m.jsonrpc !== undefined) return m.jsonrpc;
  try {
    return m.raw === undefined ? undefined : JSON.parse(m.raw);
  } catch {
    return undefined;
  }
}
