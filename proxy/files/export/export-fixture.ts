/**
 * Store → fixture (docs/fixture-format.md): one session as a self-contained, versioned JSON
 * document. Times are relative to the session's start; everything is redacted again on the way
 * out (see export-common.ts), and the proxy token never appears.
 */
import type { ExchangeInfo, McpscopeEvent, MessageEvent, ModelTurnInfo } from '../../core/model/events.js';
import type { EventStore } from '../../recorder/store/event-store.js';
import {
  FIXTURE_FORMAT,
  FIXTURE_VERSION,
  type Fixture,
  type FixtureExchange,
  type FixtureMessage,
  type FixtureModelTurn,
  type FixtureModification,
  type FixtureProblem,
  type FixtureSession,
  type FixtureSseFrame,
} from '../../core/model/fixture-format.js';
import {
  compact,
  exportRedactor,
  mcpscopeVersion,
  ms,
  redactLooseText,
  redactPreview,
  redactSseRaw,
  redactTarget,
  scrub,
  sessionEventsOf,
  type ExportRedactionOptions,
} from './export-common.js';
import { redactTurn } from './export-model-turn.js';
import { UnknownSessionError } from '../../core/model/errors.js';

export interface ExportFixtureOptions extends ExportRedactionOptions {
  /** Written to `generator`; default "mcpscope <version>". */
  generator?: string;
  /** Time of export (tests pin it). */
  now?: () => Date;
}

export function exportFixture(store: EventStore, sessionId: string, options: ExportFixtureOptions = {}): Fixture {
  const info = store.sessions.get(sessionId);
  if (!info) throw new UnknownSessionError(sessionId);
  const r = exportRedactor(options);
  const events = sessionEventsOf(store, sessionId);
  const start = info.startedAt;
  const rel = (ts: number) => ms(ts - start);

  const lastTs = events.reduce((max, e) => Math.max(max, e.ts), start);
  const end = info.endedAt ?? lastTs;
  const session: FixtureSession = compact({
    id: info.id,
    transport: info.transport,
    target: redactTarget(info.target, r),
    protocolVersion: info.protocolVersion,
    clientInfo: info.clientInfo && r.json(info.clientInfo),
    serverInfo: info.serverInfo && r.json(info.serverInfo),
    clientCapabilities: info.clientCapabilities && r.json(info.clientCapabilities),
    serverCapabilities: info.serverCapabilities && r.json(info.serverCapabilities),
    instructions: info.instructions,
    startedAt: start,
    durationMs: ms(Math.max(0, end - start)),
    closeReason: info.closeReason,
  });

  // Exchanges, in the order they started.
  const exchangeInfos = events.filter((e): e is McpscopeEvent & { type: 'exchange' } => e.type === 'exchange').map((e) => e.exchange);
  exchangeInfos.sort((a, b) => a.startedAt - b.startedAt || idNumber(a.id) - idNumber(b.id));
  const sseByExchange = new Map<string, FixtureSseFrame[]>();
  const endpointByExchange = new Map<string, string>();
  const messages: FixtureMessage[] = [];
  const modifications: FixtureModification[] = [];
  const problems: FixtureProblem[] = [];
  const modelTurns: FixtureModelTurn[] = [];

  for (const e of events) {
    switch (e.type) {
      case 'message':
        messages.push(fixtureMessage(e, rel, r));
        break;
      case 'sse': {
        const data = e.data === undefined ? undefined : e.what === 'endpoint' ? r.url(e.data) : redactLooseText(e.data, r);
        if (e.what === 'endpoint' && data !== undefined) endpointByExchange.set(e.exchangeId, data.trim());
        let list = sseByExchange.get(e.exchangeId);
        if (!list) sseByExchange.set(e.exchangeId, (list = []));
        list.push(
          compact({
            t: rel(e.ts),
            what: e.what,
            eventId: e.eventId,
            eventType: e.eventType,
            retry: e.retry,
            data,
            comment: e.comment === undefined ? undefined : redactSseRaw(e.comment, r),
          }),
        );
        break;
      }
      case 'modification':
        modifications.push(compact({ t: rel(e.ts), exchange: e.exchangeId, what: e.what, before: e.before, after: e.after, text: e.text }));
        break;
      case 'problem':
        problems.push(
          compact({
            t: rel(e.ts),
            exchange: e.exchangeId,
            level: e.level,
            code: e.code,
            text: e.text,
            rule: e.rule,
            specRef: e.specRef,
            message: e.message,
            path: e.path,
            expected: e.expected,
          }),
        );
        break;
      case 'model-turn':
        modelTurns.push(fixtureModelTurn(redactTurn(e.turn, r), rel));
        break;
      default:
        break;
    }
  }

  const exchanges = exchangeInfos.map((x) => fixtureExchange(x, rel, r, sseByExchange.get(x.id), endpointByExchange.get(x.id)));
  const fixture: Fixture = {
    format: FIXTURE_FORMAT,
    version: FIXTURE_VERSION,
    generator: options.generator ?? `mcpscope ${mcpscopeVersion()}`,
    exportedAt: (options.now?.() ?? new Date()).toISOString(),
    session,
    exchanges,
    messages,
  };
  if (modifications.length > 0) fixture.modifications = modifications;
  if (problems.length > 0) fixture.problems = problems;
  if (modelTurns.length > 0) fixture.modelTurns = modelTurns.sort((a, b) => a.t - b.t || idNumber(a.id) - idNumber(b.id));
  return scrub(fixture, r);
}

function fixtureMessage(m: MessageEvent, rel: (ts: number) => number, r: ReturnType<typeof exportRedactor>): FixtureMessage {
  const message = r.json(m.jsonrpc);
  return compact({
    seq: m.seq,
    t: rel(m.ts),
    dir: m.dir,
    kind: m.kind,
    carrier: m.carrier,
    exchange: m.exchangeId,
    eventId: m.location?.eventId,
    message: (message && typeof message === 'object' && !Array.isArray(message) ? message : { value: message }) as Record<string, unknown>,
    id: m.id,
    method: m.method,
    name: m.name,
    pair: m.pair,
    parent: m.parent,
    latencyMs: m.latencyMs === undefined ? undefined : ms(m.latencyMs),
    batch: m.batch,
    replayOf: m.replayOf,
    modelCall: m.modelCall && { turn: m.modelCall.turn, callId: m.modelCall.callId, name: m.modelCall.name },
  });
}

/** A (redacted) turn with its times made relative to the session's start. */
function fixtureModelTurn(turn: ModelTurnInfo, rel: (ts: number) => number): FixtureModelTurn {
  const { sessionId: _session, startedAt, respondedAt, firstTokenAt, endedAt, ...rest } = turn;
  const after = (ts: number | undefined) => (ts === undefined ? undefined : ms(ts - startedAt));
  return compact({
    ...rest,
    t: rel(startedAt),
    waitMs: after(respondedAt),
    firstTokenMs: after(firstTokenAt),
    durationMs: after(endedAt),
  });
}

function fixtureExchange(
  x: ExchangeInfo,
  rel: (ts: number) => number,
  r: ReturnType<typeof exportRedactor>,
  sse: FixtureSseFrame[] | undefined,
  endpoint: string | undefined,
): FixtureExchange {
  return compact({
    id: x.id,
    t: rel(x.startedAt),
    waitMs: x.respondedAt === undefined ? undefined : ms(x.respondedAt - x.startedAt),
    durationMs: x.endedAt === undefined ? undefined : ms(x.endedAt - x.startedAt),
    method: x.method,
    url: r.url(x.url),
    upstreamUrl: x.upstreamUrl === undefined ? undefined : r.url(x.upstreamUrl),
    status: x.status,
    carrier: x.carrier,
    requestHeaders: r.headers(x.requestHeaders),
    responseHeaders: x.responseHeaders && r.headers(x.responseHeaders),
    requestBytes: x.requestBytes,
    responseBytes: x.responseBytes,
    responsePreview: x.responsePreview === undefined ? undefined : redactPreview(x.responsePreview, x.responseType, r),
    requestPreview: x.requestPreview === undefined ? undefined : redactPreview(x.requestPreview, x.requestType, r),
    endpoint,
    sse: sse && sse.length > 0 ? sse : undefined,
    resumes: x.resumes,
    lastEventId: x.lastEventId,
    aborted: x.aborted,
    error: x.error,
    truncated: x.truncated || undefined,
  });
}

/** `x12` → 12 (ids of one proxy are numbered in order of arrival). */
function idNumber(id: string): number {
  const n = Number(/\d+$/.exec(id)?.[0]);
  return Number.isFinite(n) ? n : 0;
}
