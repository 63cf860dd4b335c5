/**
 * Breakpoints on the HTTP proxies (proxy thread): holding one JSON-RPC message of a POST body, of
 * a JSON answer, or one event of an SSE stream (POST or GET, Streamable HTTP or legacy), until
 * the user resumes, edits, drops or answers it (docs/architecture.md, "Breakpoints").
 *
 * Off unless a rule exists: the forwarder asks `holds.size` once per request and, for an event
 * stream, keeps it in a set so that a rule added later can still hold its next events. While
 * rules exist, POST bodies and JSON answers are read whole (up to HOLD_MAX_BYTES) before they go
 * on, and SSE streams go on event by event; requests seen are booked so that a response can be
 * matched by the method and name of the request it answers.
 *
 * What is captured is what was sent: a held body or event is captured after the decision, with a
 * `modification` record before it naming the held message (and, for an edit, the original).
 */
import { Readable, Transform, type TransformCallback } from 'node:stream';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import type { Carrier, Direction } from '../../../core/model/events.js';
import type { WireRecord } from '../../../wire/capture/wire-records.js';
import { now } from '../../../wire/capture/clock.js';
import { hashSessionId } from '../../../wire/capture/session-hash.js';
import type { ExchangeContext } from '../../../wire/forwarder/exchange-context.js';
import { clientAbort } from '../../../wire/forwarder/drain.js';
import type { BreakpointRegistry, BreakpointRule } from '../../../core/rules/breakpoint-rules.js';
import { describeBreakpoint } from '../../../core/rules/breakpoint-rules.js';
import {
  HOLD_MAX_BYTES,
  MAX_HELD,
  SENT_BY_HEADER,
  type PausedAction,
  type PausedOutcome,
  type WireSessionKey,
} from '../../../core/rules/breakpoint-types.js';
import type { LiveStream, RequestVerdict, WireAddon } from '../../../wire/stages.js';
import type { HoldDesk } from './hold-desk.js';
import { bookKey, CallBook, peekMessages, type Peeked } from './wire-peek.js';
import { SseHoldStage, type SseVerdict } from './sse-hold-stage.js';
import { answerClient, firstEndpoint, sendAnswerUpstream } from './own-messages.js';

export interface HttpHoldsOptions {
  registry: BreakpointRegistry;
  desk: HoldDesk;
  capture: (record: WireRecord) => void;
  /** `--hash-session-ids`: rules name sessions by the hashed id the store shows. */
  hashSessionIds?: boolean;
}

const text = (b: Buffer) => b.toString('utf8');

/**
 * What holds a server's request on the stream of a request mcpscope sent itself: nobody else would
 * answer it (the user does, in the Paused panel, or it goes on unanswered at the time limit).
 */
const ANSWER_FOR_SEND: BreakpointRule = { id: 'mcpscope-send', match: { dir: 's2c' } };

export class HttpHolds {
  private readonly book = new CallBook();
  private readonly streams = new Set<LiveStream>();
  private readonly staged = new WeakSet<LiveStream>();

  constructor(
    private readonly options: HttpHoldsOptions,
    private readonly agent: Dispatcher,
  ) {}

  /** 0 when breakpoints are off: the forwarder's whole check. */
  get size(): number {
    return this.options.registry.size;
  }

  /** The rules changed: event streams open since before the first rule get their stage now. */
  rulesChanged(): void {
    if (this.size === 0) return;
    for (const s of this.streams) if (!this.staged.has(s)) this.stage(s, true);
  }

  // ------------------------------------------------------------------ sessions as the wire shows them

  private wireOf(request: FastifyRequest, ctx: ExchangeContext): WireSessionKey {
    if (ctx.wire) return ctx.wire;
    const h = request.headers['mcp-session-id'];
    const sid = typeof h === 'string' ? h : undefined;
    const wire: WireSessionKey = {
      ...(sid !== undefined ? { mcpSessionId: this.options.hashSessionIds ? hashSessionId(sid) : sid } : {}),
      // A legacy POST names its session by the endpoint's query.
      ...(request.method === 'POST' ? { endpoint: request.url } : {}),
    };
    ctx.wire = wire;
    return wire;
  }

  /** The method and name a message is matched by: a response's are those of the request it answers. */
  private matchFields(ctx: ExchangeContext, key: string, dir: Direction, m: Peeked): { method?: string; name?: string } {
    if (m.kind === 'request' || m.kind === 'notification') return { method: m.method, name: m.name };
    if (m.id === undefined || m.id === null) return {};
    // A response on a POST's own stream answers that POST's request.
    const own = dir === 's2c' ? ctx.calls?.get(`${typeof m.id}:${String(m.id)}`) : undefined;
    return own ?? this.book.answer(key, dir, m.id) ?? {};
  }

  /** Books a body's requests and finds the first rule one of its messages matches. */
  private judge(ctx: ExchangeContext, request: FastifyRequest, dir: Direction, body: string) {
    const peeked = peekMessages(body);
    if (!peeked) return undefined;
    const wire = this.wireOf(request, ctx);
    const key = bookKey(wire);
    this.book.book(key, dir, peeked.messages);
    if (dir === 'c2s' && peeked.messages.some((m) => m.kind === 'request')) {
      ctx.calls ??= new Map();
      for (const m of peeked.messages)
        if (m.kind === 'request' && m.id !== undefined && m.id !== null)
          ctx.calls.set(`${typeof m.id}:${String(m.id)}`, { method: m.method, name: m.name });
    }
    if (dir === 's2c' && ctx.ownSend) {
      const asked = peeked.messages.find((m) => m.kind === 'request');
      if (asked) return { rule: ANSWER_FOR_SEND, peeked, kind: asked.kind, first: { method: asked.method, name: asked.name } };
    }
    if (!this.options.registry.has(dir)) return undefined;
    if (this.options.desk.size >= MAX_HELD) {
      this.options.capture({
        t: 'modification',
        xid: ctx.xid,
        ts: now(),
        what: 'breakpoint-skipped',
        before: body.length > 200 ? `${body.slice(0, 200)}…` : body,
        after: '(forwarded as it came)',
        text: `mcpscope already holds ${MAX_HELD} messages at breakpoints, as many as it holds at a time: this message went on without being matched. Resume or drop some held messages.`,
      });
      return undefined;
    }
    for (const m of peeked.messages) {
      const fields = this.matchFields(ctx, key, dir, m);
      const rule = this.options.registry.take({ dir, ...fields, wire });
      if (rule) return { rule, peeked, kind: m.kind, first: fields };
    }
    return undefined;
  }

  private record(xid: string, publicId: string, what: string, before: string, after: string, words: string, edited?: Direction): void {
    this.options.capture({
      t: 'modification',
      xid,
      ts: now(),
      what,
      before,
      after,
      text: words,
      pausedId: publicId,
      ...(edited ? { edited } : {}),
    });
  }

  private holdFor(since: number): string {
    const ms = Date.now() - since;
    return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
  }

  // ------------------------------------------------------------------ client → server: POST bodies

  /**
   * Reads a POST body whole before it goes on (the forwarder taps what this stage lets through,
   * so the capture is what was sent), and decides: `next` gets the verdict once it is known. A
   * body larger than HOLD_MAX_BYTES, or encoded, goes on untouched.
   */
  holdRequest(request: FastifyRequest, reply: FastifyReply, ctxOf: () => ExchangeContext, next: (v: RequestVerdict) => void): void {
    const source = request.body as Readable;
    const chunks: Buffer[] = [];
    let size = 0;
    let passing = request.headers['content-encoding'] !== undefined && request.headers['content-encoding'] !== 'identity';
    let decided = false;
    const decide = (v: RequestVerdict) => {
      if (decided) return;
      decided = true;
      next(v);
    };
    // (after the caller's capture has started: a verdict never comes before it)
    if (passing) queueMicrotask(() => decide({ go: 'forward' }));
    const stage = new Transform({
      transform: (chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) => {
        if (passing) return cb(null, chunk);
        chunks.push(chunk);
        size += chunk.length;
        if (size > HOLD_MAX_BYTES) {
          // Too large to hold: it goes on as it came.
          passing = true;
          for (const c of chunks.splice(0)) stage.push(c);
          decide({ go: 'forward' });
        }
        cb();
      },
      flush: (cb: TransformCallback) => {
        if (passing) return cb();
        const body = Buffer.concat(chunks);
        const ctx = ctxOf();
        const found = this.judge(ctx, request, 'c2s', text(body));
        if (!found) {
          stage.push(body);
          cb();
          return decide({ go: 'forward' });
        }
        const { rule, peeked, first } = found;
        const kind = peeked.batch ? ('batch' as const) : found.kind;
        const hasRequests = peeked.messages.some((m) => m.kind === 'request');
        let onClose: (() => void) | undefined;
        const ticket = this.options.desk.hold(
          { xid: ctx.xid, dir: 'c2s', carrier: 'post-body', text: text(body), kind, ...first, rule: rule.id },
          (action: PausedAction, timedOut: boolean): PausedOutcome => {
            if (onClose) reply.raw.off('close', onClose);
            const held = this.holdFor(ticket.since);
            const what = `${describeBreakpoint(rule)}`;
            if (action.action === 'resume' && action.message !== undefined) {
              const out = Buffer.from(JSON.stringify(action.message), 'utf8');
              this.record(
                ctx.xid,
                ticket.publicId,
                'breakpoint-edit',
                text(body),
                text(out),
                `Held at ${what} for ${held}, then sent as the user edited it.`,
                'c2s',
              );
              if (request.headers['content-length'] !== undefined) request.headers['content-length'] = String(out.length);
              stage.push(out);
              cb();
              decide({ go: 'forward' });
              return 'edited';
            }
            if (action.action === 'resume') {
              this.record(
                ctx.xid,
                ticket.publicId,
                'breakpoint',
                text(body),
                text(body),
                timedOut
                  ? `Held at ${what} until its time limit (${held}); then forwarded unchanged.`
                  : `Held at ${what} for ${held}; then forwarded unchanged.`,
              );
              stage.push(body);
              cb();
              decide({ go: 'forward' });
              return timedOut ? 'timed-out' : 'resumed';
            }
            // Dropped or answered: the client's message is recorded as it came, and never forwarded.
            stage.push(body);
            cb();
            if (action.action === 'respond') {
              const answer = JSON.stringify(action.message);
              this.record(
                ctx.xid,
                ticket.publicId,
                'breakpoint-respond',
                text(body),
                answer,
                `Held at ${what} for ${held}; the user answered it in the server's place. The request was not forwarded.`,
              );
              decide({ go: 'answer', status: 200, body: answer });
              return 'responded';
            }
            this.record(
              ctx.xid,
              ticket.publicId,
              'breakpoint-drop',
              text(body),
              '(dropped)',
              hasRequests
                ? `Held at ${what} for ${held}; the user dropped it. It was not forwarded, and mcpscope does not answer it: the client waits as for a lost message.`
                : `Held at ${what} for ${held}; the user dropped it. It was not forwarded; mcpscope answered 202 Accepted as the server would.`,
            );
            decide(hasRequests ? { go: 'nothing' } : { go: 'answer', status: 202, body: '' });
            return 'dropped';
          },
        );
        onClose = () => {
          if (decided) return;
          ticket.gone();
          decided = true;
          ctx.responded = true;
          this.options.capture(
            clientAbort(ctx.xid, 'the client went away while mcpscope held its message at a breakpoint; it was not forwarded'),
          );
        };
        reply.raw.once('close', onClose);
      },
    });
    source.on('error', (err) => stage.destroy(err));
    source.pipe(stage);
    (request as { body: unknown }).body = stage;
  }

  /** mcpscope answers a held request itself (the user's answer, or 202 for a dropped notification). */
  answer(request: FastifyRequest, reply: FastifyReply, status: number, body: string): void {
    answerClient(request, reply, this.options.capture, status, body);
  }

  // ------------------------------------------------------------------ server → client: JSON answers

  /**
   * Holds a JSON answer to a POST until its end, then writes the head (Content-Length set to what
   * is sent) and the body, or nothing for a dropped answer. Captures what it sends. Returns false
   * when it does not apply (no s2c rule, an encoded body): the forwarder relays as usual.
   */
  relayJson(
    request: FastifyRequest,
    raw: ServerResponse,
    status: number,
    headers: Record<string, string | string[]>,
    res: { headers: IncomingHttpHeaders; stream: Readable },
  ): boolean {
    if (!this.options.registry.has('s2c')) return false;
    const enc = res.headers['content-encoding'];
    if (enc !== undefined && enc !== 'identity') return false;
    const ctx = request.mcpscope!;
    const xid = ctx.xid;
    const capture = this.options.capture;
    const chunks: Buffer[] = [];
    let size = 0;
    let passing = false;
    let clientGone = false;
    const onClientClose = () => {
      if (raw.writableFinished) return;
      clientGone = true;
      capture(clientAbort(xid, 'the client went away while mcpscope held the answer at a breakpoint'));
      res.stream.on('error', () => undefined);
      res.stream.destroy();
    };
    raw.once('close', onClientClose);
    const send = (body: Buffer, contentLength: boolean) => {
      raw.off('close', onClientClose);
      if (clientGone) return;
      if (contentLength && headers['content-length'] !== undefined) headers['content-length'] = String(body.length);
      raw.writeHead(status, headers);
      if (body.length) capture({ t: 'response-chunk', xid, ts: now(), chunk: body });
      raw.end(body, () => capture({ t: 'response-end', xid, ts: now() }));
    };
    res.stream.on('data', (chunk: Buffer) => {
      if (passing) {
        capture({ t: 'response-chunk', xid, ts: now(), chunk });
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
      if (size > HOLD_MAX_BYTES) {
        // Too large to hold: it goes on as it came.
        passing = true;
        raw.off('close', onClientClose);
        raw.writeHead(status, headers);
        const soFar = chunks.splice(0);
        for (const c of soFar) capture({ t: 'response-chunk', xid, ts: now(), chunk: c });
        raw.write(Buffer.concat(soFar));
        raw.once('finish', () => capture({ t: 'response-end', xid, ts: now() }));
        res.stream.pipe(raw);
      }
    });
    res.stream.once('error', (err) => {
      if (clientGone) return;
      raw.off('close', onClientClose);
      capture({
        t: 'abort',
        xid,
        ts: now(),
        side: 'upstream',
        reason: `the upstream broke off the answer while mcpscope read it for a breakpoint (${err.message})`,
      });
      raw.destroy();
    });
    res.stream.once('end', () => {
      if (passing) return;
      const body = Buffer.concat(chunks);
      const found = this.judge(ctx, request, 's2c', text(body));
      if (!found) return send(body, false);
      const { rule, peeked, first } = found;
      const ticket = this.options.desk.hold(
        { xid, dir: 's2c', carrier: 'post-json', text: text(body), kind: peeked.batch ? 'batch' : found.kind, ...first, rule: rule.id },
        (action, timedOut) => {
          const held = this.holdFor(ticket.since);
          const what = describeBreakpoint(rule);
          if (clientGone) return 'gone';
          if (action.action === 'resume' && action.message !== undefined) {
            const out = Buffer.from(JSON.stringify(action.message), 'utf8');
            this.record(
              xid,
              ticket.publicId,
              'breakpoint-edit',
              text(body),
              text(out),
              `Held at ${what} for ${held}, then sent to the client as the user edited it.`,
              's2c',
            );
            send(out, true);
            return 'edited';
          }
          if (action.action === 'drop') {
            this.record(
              xid,
              ticket.publicId,
              'breakpoint-drop',
              text(body),
              '(dropped)',
              `Held at ${what} for ${held}; the user dropped it. The client gets no answer to its request (as if it were lost); mcpscope keeps the connection open until the client gives up.`,
            );
            // Recorded as the server sent it; the exchange ends when the client gives up (onClientClose).
            capture({ t: 'response-chunk', xid, ts: now(), chunk: body });
            return 'dropped';
          }
          this.record(
            xid,
            ticket.publicId,
            'breakpoint',
            text(body),
            text(body),
            timedOut
              ? `Held at ${what} until its time limit (${held}); then sent unchanged.`
              : `Held at ${what} for ${held}; then sent unchanged.`,
          );
          send(body, false);
          return timedOut ? 'timed-out' : 'resumed';
        },
      );
      raw.once('close', () => ticket.gone());
    });
    return true;
  }

  // ------------------------------------------------------------------ server → client: SSE events

  /** An event stream is being relayed: held from now on when rules exist, else when the first one comes. */
  watch(stream: LiveStream): () => void {
    this.streams.add(stream);
    // mcpscope's own request (a resend, a tool called from the UI): no client reads its stream, so a
    // server request on it (sampling, elicitation) is held for the user to answer, rules or not.
    if (stream.request.headers[SENT_BY_HEADER] === 'send') stream.ctx.ownSend = true;
    if (this.size > 0 || stream.ctx.ownSend) this.stage(stream, false);
    else if (stream.request.method === 'GET')
      // A legacy stream names its session in its first event (`endpoint`): kept, so that a rule
      // added later can match the responses on it by the request they answer. One look, at the first chunk.
      stream.source.once('data', (chunk: Buffer) => {
        if (!this.staged.has(stream)) this.learnEndpoint(stream, firstEndpoint(chunk));
      });
    return () => this.streams.delete(stream);
  }

  private learnEndpoint(stream: LiveStream, data: string | undefined): void {
    if (data === undefined) return;
    const { ctx, request } = stream;
    try {
      const u = new URL(data, ctx.route.upstreamOrigin + request.url);
      ctx.legacyEndpoint = u.pathname + u.search;
      ctx.wire = { ...this.wireOf(request, ctx), endpoint: ctx.legacyEndpoint };
    } catch {
      /* not a URL: nothing learnt */
    }
  }

  private stage(stream: LiveStream, midStream: boolean): void {
    this.staged.add(stream);
    const { ctx, request } = stream;
    const carrier: Carrier = request.method === 'POST' ? 'post-sse' : ctx.legacyEndpoint !== undefined ? 'legacy-sse' : 'get-sse';
    const stage = new SseHoldStage(
      (event, verdict) => this.onEvent(stream, event.data ?? '', event.type, carrier, verdict, event.raw),
      midStream,
      (bytes) =>
        this.options.capture({
          t: 'modification',
          xid: ctx.xid,
          ts: now(),
          what: 'breakpoint-skipped',
          before: `an SSE event of more than ${bytes} bytes`,
          after: '(forwarded as it came)',
          text: `An event larger than mcpscope holds (${HOLD_MAX_BYTES} bytes) came on this stream: the rest of the stream was forwarded without breakpoints.`,
        }),
    );
    stream.splice(stage);
  }

  private onEvent(
    stream: LiveStream,
    data: string,
    type: string | undefined,
    carrier: Carrier,
    verdict: (v: SseVerdict) => void,
    raw: Buffer,
  ): void {
    const { ctx, request } = stream;
    if (type === 'endpoint') {
      // Legacy HTTP+SSE: the endpoint names this stream's session (its POSTs go there).
      this.learnEndpoint(stream, data);
      return verdict({ send: 'as-is' });
    }
    const found = this.judge(ctx, request, 's2c', data);
    if (!found) return verdict({ send: 'as-is' });
    const { rule, peeked, first } = found;
    const xid = ctx.xid;
    const ticket = this.options.desk.hold(
      {
        xid,
        dir: 's2c',
        carrier: ctx.legacyEndpoint !== undefined ? 'legacy-sse' : carrier,
        text: data,
        kind: peeked.batch ? 'batch' : found.kind,
        ...first,
        rule: rule.id,
      },
      (action, timedOut) => {
        const held = this.holdFor(ticket.since);
        const what = describeBreakpoint(rule);
        if (action.action === 'resume' && action.message !== undefined) {
          const out = JSON.stringify(action.message);
          this.record(
            xid,
            ticket.publicId,
            'breakpoint-edit',
            data,
            out,
            `Held at ${what} for ${held}, then sent to the client as the user edited it (the event's data lines replaced, its other lines kept).`,
            's2c',
          );
          verdict({ send: 'data', data: out });
          return 'edited';
        }
        if (action.action === 'drop') {
          this.record(
            xid,
            ticket.publicId,
            'breakpoint-drop',
            data,
            '(dropped)',
            `Held at ${what} for ${held}; the user dropped it: the event was taken out of the stream, the events after it went on.`,
          );
          // Recorded as the server sent it (the modification says the client never got it).
          this.options.capture({ t: 'response-chunk', xid, ts: now(), chunk: raw });
          verdict({ send: 'nothing' });
          return 'dropped';
        }
        if (action.action === 'respond') {
          const answer = JSON.stringify(action.message);
          this.record(
            xid,
            ticket.publicId,
            'breakpoint-respond',
            data,
            answer,
            `Held at ${what} for ${held}; the user answered this server request in the client's place: the client never saw it, and mcpscope POSTed the answer to the server.`,
          );
          this.options.capture({ t: 'response-chunk', xid, ts: now(), chunk: raw });
          verdict({ send: 'nothing' });
          sendAnswerUpstream(this.agent, this.options.capture, ctx, request, answer);
          return 'responded';
        }
        this.record(
          xid,
          ticket.publicId,
          'breakpoint',
          data,
          data,
          timedOut
            ? `Held at ${what} until its time limit (${held}); then sent unchanged.`
            : `Held at ${what} for ${held}; then sent unchanged.`,
        );
        verdict({ send: 'as-is' });
        return timedOut ? 'timed-out' : 'resumed';
      },
    );
    // The client went away while the event was held: nothing will be sent.
    stream.raw.once('close', () => ticket.gone());
  }
}

/** Breakpoints at the wire stages: request-body, response-json (both off while no rule exists) and response-stream. */
export function breakpointSteps(options: HttpHoldsOptions): WireAddon {
  return ({ agent }) => {
    const holds = new HttpHolds(options, agent);
    const active = () => holds.size > 0;
    return {
      requestBody: {
        active,
        hold: (req, reply, ctxOf, then) => holds.holdRequest(req, reply, ctxOf, then),
        answer: (req, reply, status, body) => holds.answer(req, reply, status, body),
      },
      responseJson: { active, relay: (req, raw, status, headers, res) => holds.relayJson(req, raw, status, headers, res) },
      responseStream: { watch: (stream) => holds.watch(stream) },
      rulesChanged: () => holds.rulesChanged(),
    };
  };
}
