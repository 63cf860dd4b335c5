/**
 * Carrying out fault-injection rules on the proxy thread (the rules themselves, and how a request
 * is matched, are in fault-rules.ts). Off unless a rule exists: the forwarding then never calls
 * in here. Every fault is recorded as a `modification` saying what mcpscope did instead of
 * forwarding faithfully.
 */
import { PassThrough, Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { WireRecord } from '../../../wire/capture/wire-records.js';
import { now } from '../../../wire/capture/clock.js';
import {
  FAULT_BODY_MAX,
  describeAction,
  describeMatch,
  rpcSummary,
  type FaultRegistry,
  type FaultRule,
} from '../../../core/rules/fault-rules.js';
import type { ExchangeContext } from '../../../wire/forwarder/exchange-context.js';
import type { WireAddon } from '../../../wire/stages.js';
import { pathOf } from '../../../wire/forwarder/headers.js';
import { jsonRpcIdFrom, upstreamBrokeOff } from '../../../wire/forwarder/upstream-errors.js';
import { CLIENT_CLOSED, clientAbort } from '../../../wire/forwarder/drain.js';

export interface FaultActions {
  /** Decides whether a rule applies to this request and carries it out; `done` forwards the request. */
  decide(request: FastifyRequest, reply: FastifyReply, registry: FaultRegistry, done: () => void): void;
  /** Forwards an SSE response until `afterEvents` events have passed, then ends it (and the upstream request). */
  dropStreamAfter(ctx: ExchangeContext, source: Readable, raw: ServerResponse, drop: { rule: FaultRule; afterEvents: number }): void;
}

export function createFaultActions(capture: (record: WireRecord) => void): FaultActions {
  /**
   * Decides whether a fault rule applies to this request, then carries it out. When a rule names a
   * JSON-RPC method or tool, the POST body is held first (up to FAULT_BODY_MAX) to read it; the held
   * bytes are then forwarded unchanged, followed by the rest of the body.
   */
  function decide(request: FastifyRequest, reply: FastifyReply, registry: FaultRegistry, done: () => void): void {
    const path = pathOf(request.url);
    const hasSession = typeof request.headers['mcp-session-id'] === 'string';
    const body = request.body;
    if (!registry.needsBody || request.method !== 'POST' || !(body instanceof Readable)) {
      const rule = registry.take({ httpMethod: request.method, path }, hasSession);
      if (!rule) return done();
      return applyFault(request, reply, rule, done);
    }
    const held: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (ended: boolean, err?: Error) => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      if (!ended) body.pause();
      const rest = new PassThrough();
      for (const c of held) rest.write(c);
      if (err) rest.destroy(err);
      else if (ended) rest.end();
      else body.pipe(rest);
      (request as { body: unknown }).body = rest;
      const rpc = ended && !err ? rpcSummary(Buffer.concat(held)) : undefined;
      const rule = registry.take({ httpMethod: request.method, path, rpc }, hasSession);
      if (!rule) return done();
      applyFault(request, reply, rule, done);
    };
    const onData = (chunk: Buffer) => {
      held.push(chunk);
      size += chunk.length;
      if (size >= FAULT_BODY_MAX) settle(false);
    };
    const onEnd = () => settle(true);
    const onError = (err: Error) => settle(true, err);
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
  }

  function recordFault(xid: string, rule: FaultRule, after: string, text: string): void {
    capture({
      t: 'modification',
      xid,
      ts: now(),
      what: 'fault-injection',
      before: `rule ${rule.id}: ${describeMatch(rule.match)} → ${describeAction(rule.action)}${rule.once ? ' (once)' : ''}`,
      after,
      text,
    });
  }

  function applyFault(request: FastifyRequest, reply: FastifyReply, rule: FaultRule, done: () => void): void {
    const ctx = request.mcpscope!;
    const what = `${request.method} ${pathOf(request.url)}`;
    const action = rule.action;
    switch (action.type) {
      case 'delay': {
        recordFault(
          ctx.xid,
          rule,
          `forwarded after ${action.ms} ms`,
          `Fault injection (rule ${rule.id}): mcpscope held ${what} for ${action.ms} ms before forwarding it to the upstream.`,
        );
        const onClose = () => {
          // The client gave up while the request was held: forward nothing.
          clearTimeout(timer);
          ctx.responded = true;
          capture(
            clientAbort(ctx.xid, 'the client went away while mcpscope held the request (fault injection: delay); it was not forwarded'),
          );
        };
        const timer = setTimeout(() => {
          reply.raw.off('close', onClose);
          done();
        }, action.ms);
        reply.raw.once('close', onClose);
        return;
      }
      case 'drop-stream':
        ctx.relayStream = (stream, raw) => dropStreamAfter(ctx, stream, raw, { rule, afterEvents: action.afterEvents });
        return done();
      case 'status': {
        const id = jsonRpcIdFrom(ctx.head);
        const body =
          action.body ??
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            error: { code: -32000, message: `mcpscope fault injection: HTTP ${action.status} (rule ${rule.id})` },
          });
        recordFault(
          ctx.xid,
          rule,
          `HTTP ${action.status}: ${body}`,
          `Fault injection (rule ${rule.id}): mcpscope answered ${what} with HTTP ${action.status} itself; the request was not forwarded to the upstream.`,
        );
        return answerLocally(request, reply, action.status, body);
      }
      case 'expire-session': {
        const id = jsonRpcIdFrom(ctx.head);
        const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message: 'Session not found' } });
        recordFault(
          ctx.xid,
          rule,
          `HTTP 404: ${body}`,
          `Fault injection (rule ${rule.id}): mcpscope answered ${what} with 404 for its session id (Mcp-Session-Id), as a server does for an expired session; the request was not forwarded. A client should start a new session (initialize again).`,
        );
        return answerLocally(request, reply, 404, body);
      }
    }
  }

  /** mcpscope answers the request itself (a fault): the body is read and recorded, nothing is forwarded. */
  function answerLocally(request: FastifyRequest, reply: FastifyReply, status: number, text: string): void {
    const ctx = request.mcpscope!;
    ctx.responded = true;
    const raw = reply.raw;
    if (ctx.onEarlyClose) raw.off('close', ctx.onEarlyClose);
    const body = request.body;
    if (body instanceof Readable) body.resume();
    reply.hijack();
    const out = Buffer.from(text, 'utf8');
    const headers = { 'content-type': 'application/json', 'content-length': String(out.length), 'x-mcpscope-fault': 'injected' };
    capture({ t: 'response', xid: ctx.xid, ts: now(), status, headers });
    capture({ t: 'response-chunk', xid: ctx.xid, ts: now(), chunk: out });
    raw.writeHead(status, headers);
    raw.end(out, () => capture({ t: 'response-end', xid: ctx.xid, ts: now() }));
  }

  /** Forwards an SSE response until `afterEvents` events have passed, then ends it (and the upstream request). */
  function dropStreamAfter(
    ctx: ExchangeContext,
    source: Readable,
    raw: ServerResponse,
    drop: { rule: FaultRule; afterEvents: number },
  ): void {
    const xid = ctx.xid;
    const cutter = sseEventCutter(drop.afterEvents);
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      source.off('data', onData);
      source.off('end', onEnd);
      raw.off('close', onClientClose);
      recordFault(
        xid,
        drop.rule,
        `stream ended after ${cutter.events} event${cutter.events === 1 ? '' : 's'}`,
        `Fault injection (rule ${drop.rule.id}): mcpscope ended this SSE response after ${drop.afterEvents} event${drop.afterEvents === 1 ? '' : 's'}, as a dropped connection or proxy timeout would; it closed the upstream request too.`,
      );
      raw.end(() => capture({ t: 'response-end', xid, ts: now() }));
      source.on('error', () => undefined);
      ctx.abort.abort();
      source.destroy();
    };
    const onData = (chunk: Buffer) => {
      const cut = cutter.cutIn(chunk);
      if (cut < 0) {
        if (!raw.write(chunk)) {
          source.pause();
          raw.once('drain', () => source.resume());
        }
        return;
      }
      raw.write(chunk.subarray(0, cut));
      finish();
    };
    const onEnd = () => {
      if (finished) return;
      finished = true;
      raw.off('close', onClientClose);
      raw.end(() => capture({ t: 'response-end', xid, ts: now() }));
    };
    const onClientClose = () => {
      if (finished) return;
      finished = true;
      capture(clientAbort(xid, CLIENT_CLOSED));
      source.on('error', () => undefined);
      source.destroy();
    };
    source.on('error', (err) => {
      if (finished) return;
      finished = true;
      capture(upstreamBrokeOff(xid, err));
      raw.destroy();
    });
    if (drop.afterEvents === 0) return finish();
    source.on('data', onData);
    source.on('end', onEnd);
    raw.once('close', onClientClose);
  }

  return { decide, dropStreamAfter };
}

/**
 * Counts SSE events across the chunks of a stream (an event ends at a blank line: LF, CRLF or CR
 * line ends, split anywhere) and finds where event number `afterEvents` ends: `cutIn` returns the
 * index just past that blank line in the chunk that holds it, else -1. Stateful, one per stream.
 */
export function sseEventCutter(afterEvents: number): { cutIn(chunk: Uint8Array): number; readonly events: number } {
  let events = 0;
  let atLineStart = false;
  let lastCr = false;
  return {
    get events() {
      return events;
    },
    cutIn(chunk: Uint8Array): number {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i];
        if (b === 0x0a && lastCr) {
          lastCr = false;
          continue;
        }
        lastCr = b === 0x0d;
        if (b === 0x0a || b === 0x0d) {
          if (atLineStart) {
            events += 1;
            atLineStart = false;
            if (events >= afterEvents) return b === 0x0d && chunk[i + 1] === 0x0a ? i + 2 : i + 1;
          } else atLineStart = true;
        } else atLineStart = false;
      }
      return -1;
    },
  };
}

/** Faults at the wire stages: before-upstream, off (one size check) while no rule exists. */
export function faultSteps(capture: (record: WireRecord) => void, registry: FaultRegistry): WireAddon {
  const actions = createFaultActions(capture);
  return () => ({
    beforeUpstream: { active: () => registry.size > 0, run: (request, reply, next) => actions.decide(request, reply, registry, next) },
  });
}
