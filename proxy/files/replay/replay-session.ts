/**
 * One replay session, independent of the transport: takes the client's JSON-RPC messages and
 * answers them from the fixture through "sinks" (a POST's SSE stream or JSON body, the standalone
 * GET stream, stdout). The HTTP and stdio front ends are in replay-server.ts.
 *
 * For a matched request it re-emits the recorded server→client messages of that call in their
 * recorded order, then the recorded response:
 * - ids: the response carries the client's request id;
 * - progress: sent only when the client asked for progress, with the client's progressToken;
 * - server→client requests (sampling, elicitation, roots): sent with an id of the mock's own
 *   (the recorded one unless it is in use), and replay waits for the client's reply before
 *   going on, exactly as the recorded server did; the reply itself is not used (the recorded
 *   response follows regardless), but a reply that differs from the recorded one is logged;
 * - messages the recording had on the standalone GET stream after this call (list_changed,
 *   resource updates, logs) go to the GET stream after the response, the first time the call is
 *   replayed (queued until the client opens the stream) — best effort, since their timing
 *   relative to other streams is not reproducible.
 *
 * Timing (`timing`, default `recorded`): each message of a call goes out at its recorded offset
 * from the request (scaled by the factor), so concurrent calls complete in the recorded order and
 * progress keeps its pace. After a server→client request the clock is re-anchored at the client's
 * live reply (as at the recorded reply), so a client that answers slower than the recorded one
 * does not make the rest of the call arrive in a burst. `fast` sends everything at once.
 */
import type { FixtureMessage } from '../../core/model/fixture-format.js';
import { diffJson, formatDifference } from '../../core/model/json-diff.js';
import { callLabel, Matcher, type RecordedCall, type ReplayModel } from './replay-matching.js';
import { describeNegotiation, negotiateVersion } from './replay-version.js';

export type JsonRpcId = string | number;
export type JsonRpcMessage = Record<string, unknown> & { jsonrpc?: string };

export interface ReplaySink {
  /** Writes one message; returns false when the channel is gone. */
  send(message: JsonRpcMessage): boolean;
  readonly closed: boolean;
  /** False for a JSON response body: only the response itself can go there. */
  readonly streaming: boolean;
  /** Registers a callback for when the channel goes away. */
  onClose(callback: () => void): void;
}

/** `recorded` (= 1): the recorded delays; `fast` (= 0): everything at once; a number scales the recorded delays (0.5 = twice as fast, 2 = half speed). */
export type ReplayTiming = 'recorded' | 'fast' | number;

export interface ReplaySessionOptions {
  /**
   * Pace of re-emission (default `recorded`): every message answering a request — progress,
   * logs, server→client requests, the response — goes out at its recorded offset from the
   * request, multiplied by the factor (`recorded` = 1, `fast` = 0: at once; 0.5 is twice as
   * fast, 2 half speed).
   */
  timing?: ReplayTiming;
  /**
   * Deprecated alias kept from the first release: the inverse of `timing` (`speed: 2` is
   * `timing: 0.5`, `speed: 0` is `timing: 'fast'`). Ignored when `timing` is given.
   */
  speed?: number;
  /**
   * Pause this long after a re-emitted notification before the call's next frame (default 0).
   * The stdio front end sets it: the SDK client dispatches notifications on a microtask but
   * responses synchronously, so a progress notification that reaches it in the same read as
   * the response is dropped (its handler is already gone). Over HTTP every SSE event is read
   * separately and no gap is needed.
   */
  frameGapMs?: number;
  /** One line per notable event (matches, misses, sampling replies that differ). */
  log?: (line: string) => void;
  /**
   * Lines saying that the replay departs from the recording: an `initialize` negotiated down to
   * an older protocol version than the recorded one (replay-version.ts). Default: `log`. The CLI
   * prints them even with `--quiet`.
   */
  notice?: (line: string) => void;
}

export function isRequest(m: JsonRpcMessage): boolean {
  return typeof m.method === 'string' && 'id' in m && m.id !== undefined && m.id !== null;
}
export function isNotification(m: JsonRpcMessage): boolean {
  return typeof m.method === 'string' && !('id' in m && m.id !== undefined);
}
export function isResponse(m: JsonRpcMessage): boolean {
  return m.method === undefined && ('result' in m || 'error' in m);
}

function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

function progressTokenOf(params: unknown): string | number | undefined {
  const meta = (params as { _meta?: { progressToken?: unknown } } | undefined)?._meta;
  const token = meta?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

class Aborted extends Error {}

/** The factor applied to recorded delays: 0 = at once. Throws a RangeError for a meaningless value. */
export function timingFactor(options: Pick<ReplaySessionOptions, 'timing' | 'speed'> = {}): number {
  const { timing, speed } = options;
  if (timing !== undefined) {
    if (timing === 'recorded') return 1;
    if (timing === 'fast') return 0;
    if (typeof timing === 'number' && Number.isFinite(timing) && timing >= 0) return timing;
    throw new RangeError(`timing must be "recorded", "fast" or a factor ≥ 0, not ${JSON.stringify(timing)}`);
  }
  if (speed !== undefined) {
    if (!Number.isFinite(speed) || speed < 0) throw new RangeError(`speed must be a number ≥ 0, not ${JSON.stringify(speed)}`);
    return speed === 0 ? 0 : 1 / speed;
  }
  return 1;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return signal.aborted ? Promise.reject(new Aborted()) : Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Aborted());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Aborted());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export class ReplaySession {
  readonly matcher: Matcher;
  /** Multiplies recorded delays; 0 = answer at once. */
  readonly factor: number;
  private readonly frameGapMs: number;
  private readonly log: (line: string) => void;
  private readonly notice: (line: string) => void;
  /** Server→client requests waiting for the client's reply, by the id the mock gave them. */
  private readonly awaitingReply = new Map<
    string,
    { resolve: (reply: JsonRpcMessage) => void; method: string; recordedReply?: FixtureMessage }
  >();
  /** In-flight client requests (for notifications/cancelled), by id. */
  private readonly inflight = new Map<string, AbortController>();
  private background: ReplaySink | undefined;
  private backgroundQueue: JsonRpcMessage[] = [];
  private readonly backgroundSent = new Set<RecordedCall>();
  private nextServerId: number;
  private closed = false;
  private readonly closing = new AbortController();
  private preambleQueued = false;

  constructor(
    readonly model: ReplayModel,
    options: ReplaySessionOptions = {},
  ) {
    this.matcher = new Matcher(model);
    this.factor = timingFactor(options);
    this.frameGapMs = options.frameGapMs ?? 0;
    this.log = options.log ?? (() => undefined);
    this.notice = options.notice ?? this.log;
    let max = 0;
    for (const m of model.fixture.messages)
      if (m.dir === 's2c' && m.kind === 'request' && typeof m.message.id === 'number') max = Math.max(max, m.message.id);
    this.nextServerId = max + 1;
  }

  /** Handles any client message; requests are answered through `sink`. Resolves when done with it. */
  async handle(message: JsonRpcMessage, sink: ReplaySink): Promise<void> {
    if (isRequest(message)) return this.handleRequest(message, sink);
    if (isNotification(message)) return this.handleNotification(message);
    if (isResponse(message)) {
      this.handleReply(message);
      return;
    }
    if ('id' in message && message.id !== undefined && message.id !== null) {
      sink.send({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 request, notification or response' },
      });
    }
  }

  /** Which carrier the recording used to answer a request like this one (for the HTTP layer's choice of SSE or JSON). */
  carrierFor(message: JsonRpcMessage): string {
    if (typeof message.method !== 'string') return this.model.defaultCarrier;
    return this.matcher.peek(message.method, message.params)?.carrier ?? this.model.defaultCarrier;
  }

  async handleRequest(request: JsonRpcMessage, sink: ReplaySink): Promise<void> {
    const id = request.id as JsonRpcId;
    const method = request.method as string;
    if (method === 'ping') {
      sink.send({ jsonrpc: '2.0', id, result: {} });
      return;
    }
    const matched = this.matcher.match(method, request.params);
    if ('error' in matched) {
      this.log(`✗ ${callLabel(method, request.params)}: ${matched.error.message}`);
      sink.send({ jsonrpc: '2.0', id, error: matched.error });
      return;
    }
    const { call, occurrence } = matched;
    const again = occurrence >= (this.model.byKey.get(call.key)?.length ?? 1) ? ' (repeated: recorded fewer times)' : '';
    this.log(
      call.response
        ? `→ ${callLabel(method, request.params)}: answered from recorded seq ${call.request.seq}${again}`
        : `→ ${callLabel(method, request.params)}: matches recorded seq ${call.request.seq}, which never got a response (cancelled?); none is sent`,
    );

    const response =
      call.response && method === 'initialize' ? this.negotiate(call.response.message, request.params) : call.response?.message;

    const abort = new AbortController();
    const key = idKey(id);
    this.inflight.set(key, abort);
    sink.onClose(() => abort.abort());
    const token = progressTokenOf(request.params);
    // The clock: `anchor` (now) corresponds to the recorded time `anchorT`; each message is due
    // at anchor + (its recorded t − anchorT) × factor.
    let anchor = Date.now();
    let anchorT = call.request.t;
    let afterNotification = false;
    try {
      for (const f of call.followers) {
        if (this.factor > 0) await delay(anchor + (f.t - anchorT) * this.factor - Date.now(), abort.signal);
        if (afterNotification && this.frameGapMs > 0) await delay(this.frameGapMs, abort.signal);
        if (abort.signal.aborted || this.closed) return;
        afterNotification = f.kind === 'notification';
        if (f === call.response) {
          sink.send({ ...response, id });
          break;
        }
        await this.emitFollower(call, f, token, sink, abort.signal);
        if (f.kind === 'request') {
          // Went on once the client answered: from here on, time runs from its reply.
          anchor = Date.now();
          anchorT = Math.max(anchorT, call.clientReplies.get(f.seq)?.t ?? f.t);
        }
      }
    } catch (err) {
      if (err instanceof Aborted) return;
      throw err;
    } finally {
      this.inflight.delete(key);
    }
    if (!this.backgroundSent.has(call) && call.background.length > 0) {
      this.backgroundSent.add(call);
      if (this.factor === 0) for (const m of call.background) this.sendBackground(m);
      else void this.paceBackground(call.background, anchor, anchorT);
    }
  }

  /**
   * The recorded initialize answer with the protocol version negotiated for this client
   * (replay-version.ts): only `result.protocolVersion` may change. A recorded error, or a result
   * without a version, goes out as recorded.
   */
  private negotiate(recorded: JsonRpcMessage, params: unknown): JsonRpcMessage {
    const result = recorded.result as Record<string, unknown> | undefined;
    if (result === null || typeof result !== 'object' || typeof result.protocolVersion !== 'string') return recorded;
    const requested = params !== null && typeof params === 'object' ? (params as { protocolVersion?: unknown }).protocolVersion : undefined;
    const n = negotiateVersion(requested, result.protocolVersion);
    if (n.outcome === 'down') this.notice(describeNegotiation(n));
    else this.log(`  ${describeNegotiation(n)}`);
    return n.answered === result.protocolVersion ? recorded : { ...recorded, result: { ...result, protocolVersion: n.answered } };
  }

  /** Standalone-stream messages at their recorded offsets (never before the call's response, which has just gone). */
  private async paceBackground(messages: FixtureMessage[], anchor: number, anchorT: number): Promise<void> {
    try {
      for (const m of messages) {
        await delay(anchor + (m.t - anchorT) * this.factor - Date.now(), this.closing.signal);
        if (this.closed) return;
        this.sendBackground(m);
      }
    } catch (err) {
      if (!(err instanceof Aborted)) this.log(`! ${(err as Error).message}`);
    }
  }

  private async emitFollower(
    call: RecordedCall,
    f: FixtureMessage,
    token: string | number | undefined,
    sink: ReplaySink,
    signal: AbortSignal,
  ): Promise<void> {
    const msg = f.message;
    if (f.kind === 'notification') {
      let out: JsonRpcMessage = msg;
      if (msg.method === 'notifications/progress') {
        if (token === undefined) return; // the client did not ask for progress
        out = { ...msg, params: { ...(msg.params as object), progressToken: token } };
      }
      (sink.streaming ? sink : this.backgroundSink())?.send(out);
      return;
    }
    if (f.kind === 'request') {
      const target = sink.streaming ? sink : this.background;
      if (!target || target.closed) {
        this.log(`  (skipped ${String(msg.method)}: no stream to send a server→client request on)`);
        return;
      }
      const reply = this.sendServerRequest(f, call.clientReplies.get(f.seq), target);
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(new Aborted());
        signal.addEventListener('abort', onAbort, { once: true });
        reply.then(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        }, reject);
      });
    }
  }

  /** Sends a recorded server→client request with an id of the mock's own; resolves with the client's reply. */
  private sendServerRequest(f: FixtureMessage, recordedReply: FixtureMessage | undefined, sink: ReplaySink): Promise<JsonRpcMessage> {
    const recordedId = f.message.id as JsonRpcId | undefined;
    const id: JsonRpcId = recordedId !== undefined && !this.awaitingReply.has(idKey(recordedId)) ? recordedId : this.nextServerId++;
    const method = String(f.message.method);
    return new Promise((resolve) => {
      this.awaitingReply.set(idKey(id), { resolve, method, recordedReply });
      this.log(`  ← ${method} sent to the client (id ${JSON.stringify(id)}), waiting for its reply`);
      if (!sink.send({ ...f.message, id })) this.awaitingReply.delete(idKey(id));
    });
  }

  private handleReply(reply: JsonRpcMessage): void {
    const key = idKey(reply.id);
    const waiting = this.awaitingReply.get(key);
    if (!waiting) {
      this.log(`  (a reply with id ${JSON.stringify(reply.id)} answers no request of the mock; ignored)`);
      return;
    }
    this.awaitingReply.delete(key);
    const recorded = waiting.recordedReply?.message;
    if (recorded) {
      const before = 'error' in recorded ? { error: recorded.error } : { result: recorded.result };
      const after = 'error' in reply ? { error: reply.error } : { result: reply.result };
      const diffs = diffJson(before, after, { ignoreVolatile: true, limit: 3 });
      this.log(
        diffs.length === 0
          ? `  → the client answered ${waiting.method} as recorded`
          : `  → the client's answer to ${waiting.method} differs from the recording (the recorded response is sent anyway): ${diffs.map((d) => formatDifference(d, 50)).join('; ')}`,
      );
    } else this.log(`  → the client answered ${waiting.method}`);
    waiting.resolve(reply);
  }

  private handleNotification(n: JsonRpcMessage): void {
    if (n.method === 'notifications/cancelled') {
      const requestId = (n.params as { requestId?: unknown } | undefined)?.requestId;
      const inflight = this.inflight.get(idKey(requestId));
      if (inflight) {
        this.log(`× request ${JSON.stringify(requestId)} cancelled by the client`);
        inflight.abort();
      }
    }
  }

  private backgroundSink(): ReplaySink | undefined {
    return this.background && !this.background.closed ? this.background : undefined;
  }

  private sendBackground(m: FixtureMessage): void {
    let out: JsonRpcMessage = m.message;
    if (m.kind === 'request') {
      const recordedId = m.message.id as JsonRpcId | undefined;
      const id = recordedId !== undefined && !this.awaitingReply.has(idKey(recordedId)) ? recordedId : this.nextServerId++;
      out = { ...m.message, id };
      // Nothing waits for it; the reply is just accepted.
      this.awaitingReply.set(idKey(id), {
        resolve: () => undefined,
        method: String(m.message.method),
        recordedReply: this.model.clientReplies.get(m.seq),
      });
    }
    const sink = this.backgroundSink();
    if (sink) sink.send(out);
    else this.backgroundQueue.push(out);
  }

  /** The client opened its standalone stream: queued background messages go out now. */
  attachBackground(sink: ReplaySink): void {
    this.background = sink;
    if (!this.preambleQueued) {
      this.preambleQueued = true;
      for (const m of this.model.preamble) this.sendBackground(m);
    }
    const queued = this.backgroundQueue;
    this.backgroundQueue = [];
    for (const m of queued) sink.send(m);
  }

  hasBackground(): boolean {
    return this.backgroundSink() !== undefined;
  }

  detachBackground(sink: ReplaySink): void {
    if (this.background === sink) this.background = undefined;
  }

  close(): void {
    this.closed = true;
    this.closing.abort();
    for (const a of this.inflight.values()) a.abort();
    this.inflight.clear();
    this.awaitingReply.clear();
  }
}
