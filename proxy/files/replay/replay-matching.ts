/**
 * The replay model of a fixture: every recorded client request as a `RecordedCall` (its match
 * key, the recorded server→client messages that belonged to it — progress, logs, server→client
 * requests with the client's recorded replies — in wire order ending with its response, and the
 * standalone-stream notifications it triggered), and the matcher that picks the recorded call
 * answering a live request.
 *
 * Matching (documented in docs/testing-with-fixtures.md):
 * - key = method + params with `params._meta` removed (progress tokens, client info and other
 *   volatile metadata live there), compared as canonical JSON (key order does not matter);
 *   a request with no params and one with `params: {}` are the same;
 * - `initialize` matches on the method alone (client info and capabilities vary by client);
 * - among recorded calls with the same key the n-th live call gets the n-th recording, and
 *   once they are used up the last one is repeated;
 * - no match: `-32601` when the method was never recorded, else `-32602` naming the closest
 *   recorded request of that method (fewest differing paths) and how it differs.
 */
import type { Carrier } from '../../core/model/events.js';
import type { Fixture, FixtureMessage } from '../../core/model/fixture-format.js';
import { canonicalJson, diffJson, formatPath, formatValue, type JsonDifference } from '../../core/model/json-diff.js';
import { headerValue } from '../../core/model/headers.js';

export interface RecordedCall {
  /** Position among the recorded client requests (0-based). */
  index: number;
  request: FixtureMessage;
  method: string;
  /** The recorded params without `_meta` ({} when there were none). */
  params: Record<string, unknown>;
  key: string;
  /** Recorded server→client messages of this call in wire order; the last is the response when there was one. */
  followers: FixtureMessage[];
  response?: FixtureMessage;
  /** Recorded client replies to the server→client requests among `followers`, by the server request's seq. */
  clientReplies: Map<number, FixtureMessage>;
  /** How the response travelled (`post-sse`, `post-json`, `stdio`…). */
  carrier?: Carrier;
  /** Standalone-stream (GET) messages that followed this call in the recording: sent after its response, once. */
  background: FixtureMessage[];
}

/** A recorded server→client request (sampling, elicitation, roots…), wherever it travelled. */
export interface RecordedServerRequest {
  request: FixtureMessage;
  /** The recorded client's answer (response or error), when there was one. */
  reply?: FixtureMessage;
  /** The call it was replayed with (a follower of it), if any. */
  owner?: RecordedCall;
  /**
   * How sure the recording is about `owner`: `stream` — it rode on that call's own POST stream
   * (`parent`); `guess` — stdio or legacy SSE, where it was merely sent while that call was the
   * only one pending; `none` — the standalone GET stream or no pending call (no owner).
   */
  attribution: 'stream' | 'guess' | 'none';
}

export interface ReplayModel {
  fixture: Fixture;
  calls: RecordedCall[];
  byKey: Map<string, RecordedCall[]>;
  byMethod: Map<string, RecordedCall[]>;
  /** The recorded initialize (or one synthesised from the session's recorded metadata). */
  initialize: RecordedCall;
  /** Standalone-stream messages recorded before any client request. */
  preamble: FixtureMessage[];
  /** Every recorded server→client request in wire order, with the client's recorded reply. */
  serverRequests: RecordedServerRequest[];
  /** The recorded client replies to server→client requests, by the server request's seq. */
  clientReplies: Map<number, FixtureMessage>;
  /** The MCP endpoint path of the recording (`/mcp`). */
  path: string;
  /** The recorded server assigned an Mcp-Session-Id. */
  stateful: boolean;
  /** The recorded server refused the standalone GET stream (405). */
  noGetStream: boolean;
  /** The carrier most responses used. */
  defaultCarrier: Carrier;
}

const RESPONSE_KINDS = new Set(['response', 'error']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Params as matched: `_meta` removed, missing params as {}. */
export function matchParams(params: unknown): Record<string, unknown> {
  if (!isPlainObject(params)) return params === undefined || params === null ? {} : { '(params)': params };
  const { _meta: _ignored, ...rest } = params;
  return rest;
}

export function matchKey(method: string, params: unknown): string {
  return method === 'initialize' ? 'initialize' : `${method} ${canonicalJson(matchParams(params))}`;
}

/** The name a person knows the call by: `tools/call echo`, `resources/read demo://x`, `tools/list`. */
export function callLabel(method: string, params: unknown): string {
  const p = isPlainObject(params) ? params : {};
  const name = typeof p.name === 'string' ? p.name : typeof p.uri === 'string' ? p.uri : undefined;
  return name !== undefined && (method === 'tools/call' || method === 'prompts/get' || method.startsWith('resources/'))
    ? `${method} ${name}`
    : method;
}

export function buildReplayModel(fixture: Fixture): ReplayModel {
  const messages = fixture.messages.filter((m) => m.replayOf === undefined);
  const calls: RecordedCall[] = [];
  const callBySeq = new Map<number, RecordedCall>();
  const responseSeq = new Map<number, number>();
  for (const m of messages) if (m.dir === 's2c' && RESPONSE_KINDS.has(m.kind) && m.pair !== undefined) responseSeq.set(m.pair, m.seq);

  for (const m of messages) {
    if (m.dir !== 'c2s' || m.kind !== 'request') continue;
    const method = String(m.message.method ?? m.method ?? '');
    const call: RecordedCall = {
      index: calls.length,
      request: m,
      method,
      params: matchParams(m.message.params),
      key: matchKey(method, m.message.params),
      followers: [],
      clientReplies: new Map(),
      background: [],
    };
    calls.push(call);
    callBySeq.set(m.seq, call);
  }

  // Which call owns each server→client message.
  const lastRequestBefore = (seq: number): RecordedCall | undefined => {
    let found: RecordedCall | undefined;
    for (const c of calls) {
      if (c.request.seq < seq) found = c;
      else break;
    }
    return found;
  };
  const pendingAt = (seq: number): RecordedCall[] =>
    calls.filter((c) => c.request.seq < seq && (responseSeq.get(c.request.seq) ?? Infinity) > seq);

  const preamble: FixtureMessage[] = [];
  const serverRequests: RecordedServerRequest[] = [];
  const serverRequestBySeq = new Map<number, RecordedServerRequest>();
  const clientReplies = new Map<number, FixtureMessage>();
  for (const m of messages) {
    if (m.dir === 's2c') {
      if (RESPONSE_KINDS.has(m.kind)) {
        const call = m.pair !== undefined ? callBySeq.get(m.pair) : undefined;
        if (call && !call.response) {
          call.response = m;
          call.carrier = m.carrier;
          call.followers.push(m);
        }
        continue;
      }
      let owner: RecordedCall | undefined;
      if (m.parent !== undefined) owner = callBySeq.get(m.parent);
      if (!owner && m.pair !== undefined && m.message.method === 'notifications/progress') owner = callBySeq.get(m.pair);
      if (!owner && m.carrier !== 'get-sse' && m.carrier !== 'post-sse') {
        // stdio and legacy SSE have no per-request stream: a message sent while exactly one call
        // was pending is taken to belong to it (best effort).
        const pending = pendingAt(m.seq).filter((c) => c.method !== 'initialize');
        if (pending.length === 1) owner = pending[0];
      }
      const owned = owner !== undefined && (owner.response === undefined || owner.response.seq > m.seq);
      if (m.kind === 'request') {
        const entry: RecordedServerRequest = {
          request: m,
          owner: owned ? owner : undefined,
          attribution: !owned ? 'none' : m.parent !== undefined && m.parent === owner!.request.seq ? 'stream' : 'guess',
        };
        serverRequests.push(entry);
        serverRequestBySeq.set(m.seq, entry);
      }
      if (owned) {
        owner!.followers.push(m);
        continue;
      }
      const trigger = lastRequestBefore(m.seq);
      if (trigger) trigger.background.push(m);
      else preamble.push(m);
    } else if (m.dir === 'c2s' && RESPONSE_KINDS.has(m.kind) && m.pair !== undefined) {
      const entry = serverRequestBySeq.get(m.pair);
      if (entry && !entry.reply) {
        entry.reply = m;
        clientReplies.set(m.pair, m);
      }
      entry?.owner?.clientReplies.set(m.pair, m);
    }
  }

  const byKey = new Map<string, RecordedCall[]>();
  const byMethod = new Map<string, RecordedCall[]>();
  for (const c of calls) {
    (byKey.get(c.key) ?? byKey.set(c.key, []).get(c.key)!).push(c);
    (byMethod.get(c.method) ?? byMethod.set(c.method, []).get(c.method)!).push(c);
  }

  const carriers = new Map<Carrier, number>();
  for (const c of calls) if (c.carrier) carriers.set(c.carrier, (carriers.get(c.carrier) ?? 0) + 1);
  const defaultCarrier =
    [...carriers.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? (fixture.session.transport === 'stdio' ? 'stdio' : 'post-sse');

  let initialize = byKey.get('initialize')?.[0];
  if (!initialize) {
    initialize = synthesizeInitialize(fixture);
    byKey.set('initialize', [initialize]);
    byMethod.set('initialize', [initialize]);
  }

  const exchanges = fixture.exchanges ?? [];
  const initExchange = exchanges.find((x) => x.id === initialize.request.exchange) ?? exchanges.find((x) => x.method === 'POST');
  let path = '/mcp';
  if (fixture.session.transport === 'streamable-http' && initExchange) {
    try {
      path = new URL(initExchange.url, 'http://replay.invalid').pathname;
    } catch {
      /* keep /mcp */
    }
  }
  const stateful =
    fixture.session.transport !== 'streamable-http' ||
    exchanges.some(
      (x) =>
        headerValue(x.responseHeaders, 'mcp-session-id') !== undefined || headerValue(x.requestHeaders, 'mcp-session-id') !== undefined,
    );
  const gets = exchanges.filter((x) => x.method === 'GET' && x.lastEventId === undefined);
  const noGetStream = gets.length > 0 && gets.every((x) => x.status === 405);

  return {
    fixture,
    calls,
    byKey,
    byMethod,
    initialize,
    preamble,
    serverRequests,
    clientReplies,
    path,
    stateful,
    noGetStream,
    defaultCarrier,
  };
}

/** A fixture that starts mid-session has no initialize: answer one from the session's recorded metadata. */
function synthesizeInitialize(fixture: Fixture): RecordedCall {
  const s = fixture.session;
  const result: Record<string, unknown> = {
    protocolVersion: s.protocolVersion ?? '2025-06-18',
    capabilities: s.serverCapabilities ?? {},
    serverInfo: s.serverInfo ?? { name: 'mcpscope-replay', version: '0.0.0' },
  };
  if (s.instructions !== undefined) result.instructions = s.instructions;
  const request: FixtureMessage = {
    seq: -2,
    t: 0,
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    message: { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} },
  };
  const response: FixtureMessage = {
    seq: -1,
    t: 0,
    dir: 's2c',
    kind: 'response',
    carrier: 'post-json',
    pair: -2,
    message: { jsonrpc: '2.0', id: 0, result },
  };
  return {
    index: -1,
    request,
    method: 'initialize',
    params: {},
    key: 'initialize',
    followers: [response],
    response,
    clientReplies: new Map(),
    background: [],
  };
}

export interface MatchError {
  code: number;
  message: string;
  data?: {
    method: string;
    closest?: { seq: number; params: Record<string, unknown>; differences: { path: string; recorded?: unknown; received?: unknown }[] };
    recordedMethods?: string[];
  };
}

export type MatchResult = { call: RecordedCall; occurrence: number } | { error: MatchError };

/** How a live request's params differ from a recorded call's, for a person. */
export function describeParamDifference(d: JsonDifference): string {
  const where = formatPath(d.path) || 'params';
  switch (d.kind) {
    case 'changed':
      return `${where}: recorded ${formatValue(d.before, 60)}, got ${formatValue(d.after, 60)}`;
    case 'removed':
      return `${where}: recorded ${formatValue(d.before, 60)}, missing here`;
    case 'added':
      return `${where}: not in the recording (got ${formatValue(d.after, 60)})`;
  }
}

/** The recorded call of `method` whose params are closest to `params` (fewest differing paths; earliest on ties). */
/** The tool, prompt or resource a request is about (`params.name` / `params.uri`). */
function subjectOf(params: Record<string, unknown>): string | undefined {
  return typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
}

export function closestCall(
  model: ReplayModel,
  method: string,
  params: unknown,
): { call: RecordedCall; differences: JsonDifference[] } | undefined {
  const candidates = model.byMethod.get(method);
  if (!candidates || candidates.length === 0) return undefined;
  const live = matchParams(params);
  const subject = subjectOf(live);
  let best: { call: RecordedCall; differences: JsonDifference[]; score: number } | undefined;
  for (const call of candidates) {
    const differences = diffJson(call.params, live, { ignoreKeys: new Set() });
    // Another tool/prompt/resource is further away than any difference in arguments.
    const score = differences.length + (subjectOf(call.params) === subject ? 0 : 1000);
    if (!best || score < best.score) best = { call, differences, score };
  }
  return best && { call: best.call, differences: best.differences };
}

/** Picks recorded answers for one replay session (each session counts repeated calls on its own). */
export class Matcher {
  private readonly used = new Map<string, number>();

  constructor(readonly model: ReplayModel) {}

  /** Which recorded call would answer this request, without counting it. */
  peek(method: string, params: unknown): RecordedCall | undefined {
    const list = this.model.byKey.get(matchKey(method, params));
    if (!list) return undefined;
    return list[Math.min(this.used.get(matchKey(method, params)) ?? 0, list.length - 1)];
  }

  match(method: string, params: unknown): MatchResult {
    const key = matchKey(method, params);
    const list = this.model.byKey.get(key);
    if (list && list.length > 0) {
      const n = this.used.get(key) ?? 0;
      this.used.set(key, n + 1);
      return { call: list[Math.min(n, list.length - 1)], occurrence: n };
    }
    return { error: noMatchError(this.model, method, params) };
  }
}

export function noMatchError(model: ReplayModel, method: string, params: unknown): MatchError {
  const closest = closestCall(model, method, params);
  if (!closest) {
    const recordedMethods = [...model.byMethod.keys()];
    return {
      code: -32601,
      message:
        `mcpscope replay: ${method} was never called in the recorded session, so there is no answer for it` +
        ` (recorded methods: ${recordedMethods.join(', ') || 'none'})`,
      data: { method, recordedMethods },
    };
  }
  const { call, differences } = closest;
  const shown = differences.slice(0, 3).map(describeParamDifference);
  const more = differences.length > 3 ? `; and ${differences.length - 3} more` : '';
  const label = callLabel(call.method, call.params);
  const subject = subjectOf(matchParams(params));
  const neverSubject =
    subject !== undefined && subject !== subjectOf(call.params)
      ? ` ${method} ${JSON.stringify(subject)} was never called in the recorded session (recorded: ${[
          ...new Set((model.byMethod.get(method) ?? []).map((c) => callLabel(c.method, c.params))),
        ].join(', ')}).`
      : '';
  return {
    code: -32602,
    message:
      `mcpscope replay: no recorded ${method} request has these params.${neverSubject} Closest recorded: ${label} ` +
      `${formatValue(call.params, 120)} (seq ${call.request.seq}); it differs at ${shown.join('; ')}${more}`,
    data: {
      method,
      closest: {
        seq: call.request.seq,
        params: call.params,
        differences: differences.map((d) => ({ path: formatPath(d.path), recorded: d.before, received: d.after })),
      },
    },
  };
}
