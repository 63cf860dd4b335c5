/**
 * `POST /api/sessions/:id/send` for stdio sessions (main thread): mcpscope sends a request into a
 * wrapped server process. The request goes to the wrapper that runs the process — down its
 * `/ingest` socket (app/serve/ingest.ts registers each connection's processes here), or directly when
 * the wrapper serves this UI itself — which writes it to the server's stdin at a line boundary and
 * takes the answer off the server's stdout before the client sees it (stdio-holds.ts).
 */
import type { EventStore } from '../../recorder/store/event-store.js';
import { checkJsonRpc } from '../../core/rules/action-checks.js';
import { SEND_TIMEOUT_MS, type StdioSendOutcome } from './stdio-holds.js';
import { StdioSendError } from '../../core/model/errors.js';

/** Sends one request into one process and resolves with what became of it. */
export type StdioSender = (message: Record<string, unknown>, timeoutMs: number) => Promise<StdioSendOutcome>;

/** Beyond the wrapper's own time limit: the link itself stopped answering. */
const LINK_GRACE_MS = 5_000;

export class StdioLinks {
  private readonly senders = new Map<string, StdioSender>();
  private counter = 0;

  /** A process (by its recorder xid) that mcpscope can send into; returns the unregister function. */
  register(xid: string, sender: StdioSender): () => void {
    this.senders.set(xid, sender);
    return () => {
      if (this.senders.get(xid) === sender) this.senders.delete(xid);
    };
  }

  has(xid: string): boolean {
    return this.senders.has(xid);
  }

  /**
   * Sends `message` (a JSON-RPC request or notification) into the stdio session `sessionId`. A
   * request keeps its id when the session has not used that id, else gets a fresh `mcpscope-<n>`.
   * Resolves with the server's response (a notification: at once, `response` undefined); rejects
   * with a StdioSendError.
   */
  async send(
    where: { store: EventStore; xidOf(sessionId: string): string | undefined },
    sessionId: string,
    message: Record<string, unknown>,
    timeoutMs = SEND_TIMEOUT_MS,
  ): Promise<{ response: unknown }> {
    const xid = where.xidOf(sessionId);
    const sender = xid !== undefined ? this.senders.get(xid) : undefined;
    if (!sender)
      throw new StdioSendError(
        `Session ${sessionId} is not a running stdio process linked to this mcpscope (it exited, or its wrapper disconnected).`,
        409,
      );
    const problem = checkJsonRpc(message);
    if (problem) throw new StdioSendError(`message: ${problem}`, 400);
    if (typeof message.method !== 'string' || Array.isArray(message))
      throw new StdioSendError('message: only a request or notification (with a method) can be sent', 400);
    const used = new Set(
      where.store
        .messages(sessionId)
        .filter((m) => m.dir === 'c2s' && m.kind === 'request')
        .map((m) => `${typeof m.id}:${String(m.id)}`),
    );
    const unused = (id: unknown) => (typeof id === 'string' || typeof id === 'number') && !used.has(`${typeof id}:${String(id)}`);
    // A notification (no id) is written and answered at once; a request keeps an id the session has not used.
    let id = message.id;
    if ('id' in message) while (!unused(id)) id = `mcpscope-${++this.counter}`;
    const sent = 'id' in message ? { ...message, id } : message;
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      sender(sent, timeoutMs),
      new Promise<StdioSendOutcome>((resolve) => {
        timer = setTimeout(
          () => resolve({ error: `the wrapper did not report an answer within ${timeoutMs + LINK_GRACE_MS} ms`, status: 504 }),
          timeoutMs + LINK_GRACE_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    if ('error' in outcome) throw new StdioSendError(`No answer to ${String(message.method)}: ${outcome.error}.`, outcome.status);
    return { response: outcome.response };
  }
}
