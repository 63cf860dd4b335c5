/**
 * The named stages of an HTTP exchange where a feature's proxy-thread step acts (mitmproxy's
 * hooks, fastify's lifecycle), in the order an exchange reaches them. The forwarder runs the
 * steps it is given and imports no feature: each addon's `wire/` folder implements the stages it
 * needs (breakpoints: request-body, response-json, response-stream; faults: before-upstream).
 * With no rule, a stage costs its `active()` check and nothing else.
 */
import type { Readable, Transform } from 'node:stream';
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import type { ExchangeContext } from './forwarder/exchange-context.js';
import type { UpstreamResponse } from './forwarder/rewrites.js';

/** What becomes of a POST body a request-body step held. */
export type RequestVerdict =
  | { go: 'forward' }
  /** mcpscope answers the client itself (the user's response; 202 for a dropped notification). */
  | { go: 'answer'; status: number; body: string }
  /** Nothing: a dropped request is never answered (the client times out, as if it were lost). */
  | { go: 'nothing' };

/** request-body: a POST body, before the capture taps it (what the step lets through is what is recorded and sent). */
export interface RequestBodyStep {
  active(): boolean;
  /** Takes over `request.body`; `then` gets the verdict once it is known (never before the capture started). */
  hold(request: FastifyRequest, reply: FastifyReply, ctxOf: () => ExchangeContext, then: (v: RequestVerdict) => void): void;
  /** Answers the client in the server's place (a verdict `answer`). */
  answer(request: FastifyRequest, reply: FastifyReply, status: number, body: string): void;
}

/**
 * before-upstream: the captured request, about to go upstream. A step may answer in the server's
 * place, delay, or set `ctx.relayStream` to relay the answer's event stream itself; it calls
 * `next` to let the request go on.
 */
export interface BeforeUpstreamStep {
  active(): boolean;
  run(request: FastifyRequest, reply: FastifyReply, next: () => void): void;
}

/** response-json: a JSON answer to a POST. `relay` returns true when it took the answer over (read whole, sent as decided). */
export interface ResponseJsonStep {
  active(): boolean;
  relay(
    request: FastifyRequest,
    raw: ServerResponse,
    status: number,
    headers: Record<string, string | string[]>,
    res: UpstreamResponse,
  ): boolean;
}

/** One event stream being relayed, as the forwarder lets a response-stream step splice a stage into it. */
export interface LiveStream {
  ctx: ExchangeContext;
  request: FastifyRequest;
  raw: ServerResponse;
  /** The upstream's body. */
  source: Readable;
  /** Puts a stage right after the upstream body (capture then reads the stage's output). */
  splice(stage: Transform): void;
}

/** response-stream: every event stream, watched from its start (a rule added later still acts on its next events). */
export interface ResponseStreamStep {
  /** Returns the unwatch to call when the stream ends. */
  watch(stream: LiveStream): () => void;
}

/** The steps one addon plugs into one proxy server's exchanges. */
export interface WireSteps {
  requestBody?: RequestBodyStep;
  beforeUpstream?: BeforeUpstreamStep;
  responseJson?: ResponseJsonStep;
  responseStream?: ResponseStreamStep;
  /** The rules changed (the proxy thread was told): a step watching open streams takes them up now. */
  rulesChanged?(): void;
}

/** An addon's proxy-thread half: the steps it plugs into each proxy server (made per server: they need its upstream agent). */
export type WireAddon = (server: { agent: Dispatcher }) => WireSteps;

/** The steps of every addon, stage by stage, in the order the addons were given. */
export interface StageSteps {
  requestBody: RequestBodyStep[];
  beforeUpstream: BeforeUpstreamStep[];
  responseJson: ResponseJsonStep[];
  responseStream: ResponseStreamStep[];
}

export function stageSteps(all: readonly WireSteps[]): StageSteps {
  const pick = <K extends keyof WireSteps>(k: K) => all.flatMap((s) => (s[k] ? [s[k]!] : [])) as NonNullable<WireSteps[K]>[];
  return {
    requestBody: pick('requestBody'),
    beforeUpstream: pick('beforeUpstream'),
    responseJson: pick('responseJson'),
    responseStream: pick('responseStream'),
  };
}

/** The first step of a stage whose rules could act on this exchange (one `active()` check per step). */
export function firstActive<S extends { active(): boolean }>(steps: readonly S[]): S | undefined {
  for (const s of steps) if (s.active()) return s;
  return undefined;
}
