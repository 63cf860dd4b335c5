/** Reads an mcpscope fixture (docs/fixture-format.md) back into events, links kept (import-capture.ts). */
import type { Carrier, ExchangeInfo, Hint, McpscopeEvent, MessageEvent, SessionInfo, UnsequencedEvent } from '../../core/model/events.js';
import { plainHttpHints } from '../../core/annotate/oauth-hints.js';
import { parseJson, readRequestBody } from '../../recorder/plain-http.js';
import { STATELESS_VERSION, versionAtLeast } from '../../core/model/protocol-version.js';
import { firstHeader } from '../../wire/capture/wire-records.js';
import { FIXTURE_VERSION, type Fixture, type FixtureMessage, type FixtureSseFrame } from '../../core/model/fixture-format.js';
import { compact } from '../../core/model/compact.js';
import { mediaType } from '../../core/model/media-type.js';
import { byteLength } from '../../core/model/byte-length.js';
import { httpRefusal } from '../../core/model/call-state.js';
import { type CaptureImport } from './import-capture-format.js';
import { CaptureFormatError } from '../../core/model/errors.js';
import { fixtureTurnEvents } from './fixture-model-turns.js';
import { modelCallProblem } from './model-turn-shape.js';

export function fixtureImport(obj: Record<string, unknown>): CaptureImport {
  if (obj.version !== FIXTURE_VERSION) {
    throw new CaptureFormatError(
      typeof obj.version === 'number' && obj.version > FIXTURE_VERSION
        ? `This fixture is format version ${obj.version}; this mcpscope reads version ${FIXTURE_VERSION}. Upgrade mcpscope to open it.`
        : `This fixture has no valid "version" (${JSON.stringify(obj.version)}); expected ${FIXTURE_VERSION}.`,
    );
  }
  const f = obj as unknown as Fixture;
  const s = f.session as Fixture['session'] | undefined;
  if (!s || typeof s !== 'object' || typeof s.startedAt !== 'number' || typeof s.transport !== 'string') {
    throw new CaptureFormatError('This fixture has no valid "session" (it needs at least transport and startedAt).');
  }
  if (!Array.isArray(f.messages)) throw new CaptureFormatError('This fixture has no "messages" list.');
  if (f.exchanges !== undefined && !Array.isArray(f.exchanges)) throw new CaptureFormatError('This fixture\'s "exchanges" is not a list.');
  const bad = f.messages.findIndex(
    (m) =>
      !m || typeof m !== 'object' || typeof m.seq !== 'number' || typeof m.t !== 'number' || !m.message || typeof m.message !== 'object',
  );
  if (bad >= 0) throw new CaptureFormatError(`Message ${bad + 1} of this fixture is not valid (it needs seq, t and message).`);
  const badCall = f.messages.findIndex((m) => m.modelCall !== undefined && modelCallProblem(m.modelCall) !== undefined);
  if (badCall >= 0)
    throw new CaptureFormatError(
      `Message ${badCall + 1} of this fixture is not valid: it ${modelCallProblem(f.messages[badCall].modelCall)}.`,
    );

  const start = s.startedAt;
  const sid = typeof s.id === 'string' && s.id !== '' ? s.id : 's1';
  const exchanges = f.exchanges ?? [];
  const messages = [...f.messages].sort((a, b) => a.seq - b.seq);

  // Counts, as the recorder would have kept them.
  const live = messages.filter((m) => m.replayOf === undefined);
  // An `http` bucket (plain HTTP, not MCP) counts exchanges only.
  const plain = s.transport === 'http';
  // A spec violation counts as a violation, and as an error only when it was one (--lint strict).
  const violations = (f.problems ?? []).filter((p) => p.code === 'spec-violation');
  // Under --lint strict a message with a violation is an error, once, unless it already was one (lint-messages.ts).
  const errorSeqs = new Set(live.filter((m) => m.kind === 'error' || isErrorResult(m.message)).map((m) => m.seq));
  const strictErrors = new Set(
    violations.filter((p) => p.level === 'error' && p.message !== undefined && !errorSeqs.has(p.message)).map((p) => p.message),
  );
  const otherProblems = (f.problems?.length ?? 0) - violations.length + strictErrors.size;
  const calls = callCountsOf(s, live, exchanges);
  const counts = {
    messages: live.length,
    requests: live.filter((m) => m.kind === 'request').length,
    pending: calls.pending,
    ...(calls.failed > 0 ? { failed: calls.failed } : {}),
    errors: live.filter((m) => m.kind === 'error' || isErrorResult(m.message)).length + (plain ? 0 : otherProblems),
    exchanges: exchanges.length,
    ...(violations.length > 0 ? { violations: violations.length } : {}),
  };
  const mcpSessionId = exchanges
    .map((x) => firstHeader(x.responseHeaders, 'mcp-session-id') ?? firstHeader(x.requestHeaders, 'mcp-session-id'))
    .find((v) => v !== undefined);
  const closed = s.closeReason !== undefined;
  const session: SessionInfo = compact({
    id: sid,
    transport: s.transport,
    target: s.target ?? '',
    mcpSessionId,
    protocolVersion: s.protocolVersion,
    clientInfo: s.clientInfo,
    serverInfo: s.serverInfo,
    clientCapabilities: s.clientCapabilities,
    serverCapabilities: s.serverCapabilities,
    instructions: s.instructions,
    startedAt: start,
    endedAt: closed && s.durationMs !== undefined ? start + s.durationMs : undefined,
    status: closed ? 'closed' : 'open',
    closeReason: s.closeReason,
    counts,
  });

  // Positions of SSE blocks and messages within each stream, as the reassembled stream would have them.
  const locations = streamLocations(exchanges, messages);

  const others: UnsequencedEvent[] = [];
  for (const x of exchanges) {
    const info: ExchangeInfo = compact({
      id: x.id,
      sessionId: sid,
      method: x.method,
      url: x.url,
      upstreamUrl: x.upstreamUrl,
      requestHeaders: x.requestHeaders ?? {},
      status: x.status,
      responseHeaders: x.responseHeaders,
      carrier: x.carrier,
      requestType: mediaType(firstHeader(x.requestHeaders, 'content-type')),
      responseType: mediaType(firstHeader(x.responseHeaders, 'content-type')),
      startedAt: start + x.t,
      respondedAt: x.waitMs !== undefined ? start + x.t + x.waitMs : undefined,
      endedAt: x.durationMs !== undefined ? start + x.t + x.durationMs : undefined,
      requestBytes: x.requestBytes ?? 0,
      responseBytes: x.responseBytes ?? 0,
      aborted: x.aborted,
      error: x.error,
      resumes: x.resumes,
      lastEventId: x.lastEventId,
      truncated: x.truncated,
      requestPreview: x.requestPreview,
      responsePreview: x.responsePreview,
      plain: plain || undefined,
      hints: [],
    });
    if (plain) info.hints = fixturePlainHints(info);
    others.push({ type: 'exchange', ts: start + x.t, exchange: info });
    for (const [i, b] of (x.sse ?? []).entries()) {
      const loc = locations.sse.get(`${x.id}#${i}`) ?? { offset: 0, length: byteLength(sseBlock(b)) };
      const frame: UnsequencedEvent = compact({
        type: 'sse' as const,
        ts: start + b.t,
        sessionId: sid,
        exchangeId: x.id,
        what: b.what,
        raw: sseBlock(b),
        eventType: b.eventType,
        eventId: b.eventId,
        retry: b.retry,
        data: b.data,
        comment: b.comment,
        location: { ...loc, eventId: b.eventId, eventType: b.eventType },
        hints: [],
      });
      others.push(frame);
    }
  }
  for (const p of f.problems ?? []) {
    others.push(
      compact({
        type: 'problem' as const,
        ts: start + p.t,
        sessionId: sid,
        exchangeId: p.exchange,
        level: p.level ?? 'warn',
        code: p.code,
        text: p.text,
        rule: p.rule,
        specRef: p.specRef,
        message: p.message,
        path: p.path,
        expected: p.expected,
      }),
    );
  }
  for (const m of f.modifications ?? []) {
    others.push(
      compact({
        type: 'modification' as const,
        ts: start + (m.t ?? 0),
        sessionId: sid,
        exchangeId: m.exchange ?? '',
        what: m.what,
        before: m.before,
        after: m.after,
        text: m.text ?? '',
      }),
    );
  }
  others.push(...fixtureTurnEvents(f.modelTurns, sid, start));
  others.sort((a, b) => a.ts - b.ts);
  // A spec violation follows its message, as it did live (the UI links it to a message it knows).
  const violationsOf = new Map<number, UnsequencedEvent[]>();
  const seqs = new Set(messages.map((m) => m.seq));
  for (let i = others.length - 1; i >= 0; i--) {
    const o = others[i];
    if (o.type !== 'problem' || o.message === undefined || !seqs.has(o.message)) continue;
    others.splice(i, 1);
    violationsOf.set(o.message, [o, ...(violationsOf.get(o.message) ?? [])]);
  }

  // Merge the messages (kept in seq order) with everything else by time; then number them.
  const ordered: { e: UnsequencedEvent; oldSeq?: number }[] = [{ e: { type: 'session', ts: start, session } }];
  let oi = 0;
  for (const m of messages) {
    const ts = start + m.t;
    while (oi < others.length && others[oi].ts <= ts) ordered.push({ e: others[oi++] });
    ordered.push({ e: fixtureMessageEvent(m, sid, start, locations.messages.get(m.seq)), oldSeq: m.seq });
    for (const v of violationsOf.get(m.seq) ?? []) ordered.push({ e: v });
  }
  while (oi < others.length) ordered.push({ e: others[oi++] });

  const seqMap = new Map<number, number>();
  ordered.forEach((o, i) => {
    if (o.oldSeq !== undefined) seqMap.set(o.oldSeq, i + 1);
  });
  const events = ordered.map((o, i) => {
    const e = { ...o.e, seq: i + 1 } as McpscopeEvent;
    remapLinks(e, seqMap);
    return e;
  });
  return { kind: 'fixture', events, warnings: [] };
}

function fixtureMessageEvent(m: FixtureMessage, sid: string, start: number, location: MessageEvent['location']): Omit<MessageEvent, 'seq'> {
  const msg = m.message as {
    id?: MessageEvent['id'];
    method?: unknown;
    params?: Record<string, unknown>;
    result?: unknown;
    error?: { code?: unknown; message?: unknown };
  };
  const params = msg.params && typeof msg.params === 'object' ? msg.params : undefined;
  const method = m.method ?? (typeof msg.method === 'string' ? msg.method : undefined);
  const isProgress = m.kind === 'notification' && method === 'notifications/progress';
  const meta = params?._meta as { progressToken?: unknown } | undefined;
  const token = isProgress ? params?.progressToken : m.kind === 'request' ? meta?.progressToken : undefined;
  const progress =
    isProgress && typeof params?.progress === 'number'
      ? compact({
          progress: params.progress,
          total: typeof params.total === 'number' ? params.total : undefined,
          message: typeof params.message === 'string' ? params.message : undefined,
        })
      : undefined;
  const err =
    m.kind === 'error' && msg.error && typeof msg.error === 'object'
      ? { code: Number(msg.error.code), message: String(msg.error.message ?? '') }
      : undefined;
  return compact({
    type: 'message' as const,
    ts: start + m.t,
    sessionId: sid,
    exchangeId: m.exchange,
    dir: m.dir,
    kind: m.kind,
    carrier: m.carrier,
    jsonrpc: m.message,
    size: byteLength(JSON.stringify(m.message)),
    id: m.id !== undefined ? m.id : 'id' in msg ? msg.id : undefined,
    method,
    name: m.name,
    pair: m.pair,
    latencyMs: m.latencyMs,
    parent: m.parent,
    progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
    progress,
    error: err,
    isError: m.kind === 'response' && isErrorResult(m.message) ? true : undefined,
    batch: m.batch,
    location,
    replayOf: m.replayOf,
    modelCall: m.modelCall,
    hints: [],
  });
}

/** SSE block text of a frame that carried no message. */
function sseBlock(b: FixtureSseFrame): string {
  let raw = '';
  if (b.comment !== undefined) for (const line of b.comment.split('\n')) raw += `:${line}\n`;
  if (b.eventId !== undefined) raw += `id: ${b.eventId}\n`;
  if (b.eventType !== undefined) raw += `event: ${b.eventType}\n`;
  if (b.retry !== undefined) raw += `retry: ${b.retry}\n`;
  if (b.data !== undefined && (b.data !== '' || b.what === 'priming')) for (const line of b.data.split('\n')) raw += `data: ${line}\n`;
  return `${raw}\n`;
}

/**
 * Byte offsets of each block (SSE frames and messages) within its exchange's stream, as the
 * stream would read reassembled in time order (the fixture keeps no byte positions; these keep
 * the UI's event-stream table in order). Batch members share their block.
 */
function streamLocations(exchanges: Fixture['exchanges'], messages: FixtureMessage[]) {
  const sse = new Map<string, { offset: number; length: number }>();
  const msgs = new Map<number, MessageEvent['location']>();
  const streamCarriers = new Set<Carrier>(['post-sse', 'get-sse', 'legacy-sse']);
  const byExchange = new Map<string, FixtureMessage[]>();
  for (const m of messages) {
    if (m.exchange === undefined || m.dir !== 's2c' || !streamCarriers.has(m.carrier)) continue;
    let list = byExchange.get(m.exchange);
    if (!list) byExchange.set(m.exchange, (list = []));
    list.push(m);
  }
  for (const x of exchanges) {
    type Item = { t: number; order: number; text: string; sse?: string; members?: FixtureMessage[] };
    const items: Item[] = [];
    (x.sse ?? []).forEach((b, i) => items.push({ t: b.t, order: -1, text: sseBlock(b), sse: `${x.id}#${i}` }));
    const batches = new Map<string, Item>();
    for (const m of byExchange.get(x.id) ?? []) {
      const key = m.batch ? `${m.t}:${m.eventId ?? ''}` : undefined;
      const existing = key !== undefined ? batches.get(key) : undefined;
      if (existing) {
        existing.members!.push(m);
        continue;
      }
      const item: Item = { t: m.t, order: m.seq, text: '', members: [m] };
      if (key !== undefined) batches.set(key, item);
      items.push(item);
    }
    for (const it of items) {
      if (!it.members) continue;
      const data = it.members.length > 1 ? JSON.stringify(it.members.map((m) => m.message)) : JSON.stringify(it.members[0].message);
      const id = it.members[0].eventId;
      it.text = `${id !== undefined ? `id: ${id}\n` : ''}data: ${data}\n\n`;
    }
    items.sort((a, b) => a.t - b.t || a.order - b.order);
    let offset = 0;
    for (const it of items) {
      const length = byteLength(it.text);
      if (it.sse) sse.set(it.sse, { offset, length });
      for (const m of it.members ?? []) msgs.set(m.seq, compact({ offset, length, eventId: m.eventId }));
      offset += length;
    }
  }
  return { sse, messages: msgs };
}

/**
 * The requests still pending, and those answered by HTTP alone (`failed`), as the recorder counts
 * them (proxy/core/model/call-state.ts): neither is a request answered (a response or error paired
 * with it) or cancelled (a notifications/cancelled paired with it; 2026-07-28: the client closing
 * the stream of the POST that carried it), nor a subscriptions/listen whose stream has ended; of
 * the rest, one its exchange refused (a status of 400 or more, or no response) is failed. A closed
 * session has nothing pending.
 */
function callCountsOf(
  s: Fixture['session'],
  live: readonly FixtureMessage[],
  exchanges: Fixture['exchanges'],
): { pending: number; failed: number } {
  const answered = new Set<number>();
  const cancelled = new Set<number>();
  for (const m of live) {
    if (m.pair === undefined) continue;
    if (m.kind === 'response' || m.kind === 'error') answered.add(m.pair);
    else if (m.kind === 'notification' && (m.method ?? m.message.method) === 'notifications/cancelled') cancelled.add(m.pair);
  }
  const byId = new Map(exchanges?.map((x) => [x.id, x]));
  let pending = 0;
  let failed = 0;
  for (const m of live) {
    if (m.kind !== 'request' || answered.has(m.seq) || cancelled.has(m.seq)) continue;
    const x = m.exchange !== undefined ? byId.get(m.exchange) : undefined;
    if (x) {
      const ended = x.aborted !== undefined || x.durationMs !== undefined;
      if ((m.method ?? m.message.method) === 'subscriptions/listen' && ended) continue;
      const version = firstHeader(x.requestHeaders, 'mcp-protocol-version')?.trim() ?? s.protocolVersion;
      if (m.dir === 'c2s' && x.aborted === 'client' && versionAtLeast(version, STATELESS_VERSION)) continue;
      if (m.dir === 'c2s' && httpRefusal(x) !== undefined) {
        failed += 1;
        continue;
      }
    }
    pending += 1;
  }
  return { pending: s.closeReason !== undefined ? 0 : pending, failed };
}

function isErrorResult(message: Record<string, unknown>): boolean {
  const result = message.result as { isError?: unknown } | undefined;
  return !!result && typeof result === 'object' && result.isError === true;
}

/** An event's links to other events by seq, renumbered (a link to an event not there is dropped): a message's pair, parent, replayOf and edited (its breakpoint modification), a spec violation's message. */
export function remapLinks(e: McpscopeEvent, seqMap: Map<number, number>): void {
  const links =
    e.type === 'message' ? (['pair', 'parent', 'replayOf', 'edited'] as const) : e.type === 'problem' ? (['message'] as const) : [];
  const target = e as unknown as Record<string, number | undefined>;
  for (const k of links) {
    const v = target[k];
    if (v === undefined) continue;
    const n = seqMap.get(v);
    if (n === undefined) delete target[k];
    else target[k] = n;
  }
}

/** The error message of mcpscope's own JSON-RPC answer (wire/forwarder/forwarder.ts), if the body is one. */
export function ownAnswerMessage(text: string | undefined): string | undefined {
  const message = (parseJson(text ?? '') as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? message : undefined;
}

/** A plain HTTP exchange's hints again, from its (redacted) previews: the fixture does not keep hints. */
function fixturePlainHints(x: ExchangeInfo): Hint[] {
  const request = x.requestPreview !== undefined ? readRequestBody(x.requestPreview, x.requestType) : {};
  const responseJson = x.responsePreview !== undefined ? parseJson(x.responsePreview) : undefined;
  return plainHttpHints({
    method: x.method,
    url: x.url,
    requestType: x.requestType,
    requestHeaders: x.requestHeaders,
    ...request,
    status: x.status,
    responseType: x.responseType,
    responseHeaders: x.responseHeaders,
    responseJson,
  });
}
