/**
 * Event fixtures for the UI state tests: a small builder that stamps seq/ts like the recorder
 * does, and `scenario()`, a realistic sequence covering what the timeline must show.
 */
import type {
  Carrier,
  FrameLocation,
  Direction,
  ExchangeInfo,
  Hint,
  JsonRpcId,
  McpscopeEvent,
  MessageEvent,
  MessageKind,
  ProblemEvent,
  SessionInfo,
  SseFrameEvent,
} from '../../proxy/core/model/events.js';

export const T0 = Date.UTC(2026, 4, 1, 12, 0, 0);

type MessageInit = {
  sessionId?: string;
  exchangeId?: string;
  dir: Direction;
  kind: MessageKind;
  carrier: Carrier;
  jsonrpc: unknown;
  id?: JsonRpcId;
  method?: string;
  name?: string;
  pair?: number;
  parent?: number;
  latencyMs?: number;
  progressToken?: string | number;
  progress?: MessageEvent['progress'];
  error?: MessageEvent['error'];
  isError?: boolean;
  replayOf?: number;
  location?: MessageEvent['location'];
  hints?: Hint[];
  /** Leave `raw` out (as the recorder does for redacted or huge frames). */
  noRaw?: boolean;
  /** Advance the clock by this many ms before the event (default 1). */
  after?: number;
};

/** Stamps events with increasing seq and ts, as the store would. */
export class EventBuilder {
  readonly events: McpscopeEvent[] = [];
  seq: number;
  ts: number;
  /** Next byte offset per exchange stream. */
  private offsets = new Map<string, number>();
  private eventIds = 0;

  constructor(startSeq = 1, startTs = T0) {
    this.seq = startSeq - 1;
    this.ts = startTs;
  }

  private stamp(after = 1): { seq: number; ts: number } {
    this.ts += after;
    return { seq: ++this.seq, ts: this.ts };
  }

  session(id: string, init: Partial<SessionInfo> = {}): SessionInfo {
    const s: SessionInfo = {
      id,
      transport: 'streamable-http',
      target: 'http://127.0.0.1:3001/mcp',
      startedAt: this.ts,
      status: 'open',
      counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 0 },
      ...init,
    };
    this.events.push({ type: 'session', ...this.stamp(0), session: s });
    return s;
  }

  exchange(id: string, sessionId: string, init: Partial<ExchangeInfo> = {}): ExchangeInfo {
    const x: ExchangeInfo = {
      id,
      sessionId,
      method: 'POST',
      url: '/mcp',
      requestHeaders: { host: '127.0.0.1:6481', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      startedAt: this.ts,
      requestBytes: 0,
      responseBytes: 0,
      hints: [],
      ...init,
    };
    this.events.push({ type: 'exchange', ...this.stamp(0), exchange: x });
    return x;
  }

  /** Re-sends an exchange with changes (an upsert). */
  update(x: ExchangeInfo, changes: Partial<ExchangeInfo>): ExchangeInfo {
    const next = { ...x, ...changes };
    this.events.push({ type: 'exchange', ...this.stamp(0), exchange: next });
    return next;
  }

  /** Where the next SSE block of `exchangeId` sits (advances the stream offset). */
  private place(exchangeId: string, length: number, eventId?: string, eventType?: string): FrameLocation {
    const offset = this.offsets.get(exchangeId) ?? 0;
    this.offsets.set(exchangeId, offset + length);
    return { offset, length, eventId, eventType };
  }

  message(init: MessageInit): MessageEvent {
    const { after, noRaw, hints, sessionId, ...rest } = init;
    const raw = JSON.stringify(init.jsonrpc);
    let location = init.location;
    if (!location && init.exchangeId !== undefined) {
      if (init.carrier === 'post-sse' || init.carrier === 'get-sse' || init.carrier === 'legacy-sse') {
        const eventId = String(++this.eventIds);
        location = this.place(init.exchangeId, `id: ${eventId}\nevent: message\ndata: ${raw}\n\n`.length, eventId, 'message');
      } else location = { offset: 0, length: raw.length };
    }
    const stamp = this.stamp(after);
    // Like the correlator: a response's latency is the time since its request.
    if ((init.kind === 'response' || init.kind === 'error') && init.pair !== undefined && rest.latencyMs === undefined) {
      const request = this.events.find((e) => e.seq === init.pair);
      if (request) rest.latencyMs = stamp.ts - request.ts;
    }
    const m: MessageEvent = {
      type: 'message',
      ...stamp,
      sessionId: sessionId ?? 's1',
      ...rest,
      ...(noRaw ? {} : { raw }),
      size: raw.length,
      location,
      hints: hints ?? [],
    };
    this.events.push(m);
    return m;
  }

  sse(exchangeId: string, what: SseFrameEvent['what'], init: Partial<SseFrameEvent> = {}): SseFrameEvent {
    const raw =
      init.raw ??
      (what === 'comment'
        ? `: ${init.comment ?? 'ping'}\n\n`
        : what === 'priming'
          ? `id: ${init.eventId ?? ''}\ndata: \n\n`
          : `data: ${init.data ?? ''}\n\n`);
    const e: SseFrameEvent = {
      type: 'sse',
      ...this.stamp(init.ts !== undefined ? 0 : 1),
      sessionId: 's1',
      exchangeId,
      what,
      raw,
      location: this.place(exchangeId, raw.length, init.eventId, init.eventType),
      hints: [],
      ...init,
    };
    this.events.push(e);
    return e;
  }

  problem(init: { sessionId?: string; exchangeId?: string; code: string; text: string; level?: 'warn' | 'error'; raw?: string }) {
    const e = { type: 'problem' as const, ...this.stamp(), level: init.level ?? 'error', ...init };
    this.events.push(e);
    return e;
  }

  /** A spec violation (issue 19) as the linter records it: a problem naming the message it is about. */
  violation(init: {
    message?: number;
    rule: string;
    path?: string;
    expected?: string;
    specRef?: string;
    level?: 'warn' | 'error';
    sessionId?: string;
    exchangeId?: string;
    text?: string;
    /** `lint-not-checked`: a linter note (what it could not check) rather than a violation. */
    code?: 'spec-violation' | 'lint-not-checked';
  }): ProblemEvent {
    const { text, level, sessionId, code, ...rest } = init;
    const e: ProblemEvent = {
      type: 'problem',
      ...this.stamp(),
      sessionId: sessionId ?? 's1',
      level: level ?? 'warn',
      code: code ?? 'spec-violation',
      text: text ?? `Breaks ${init.rule}.`,
      ...rest,
    };
    this.events.push(e);
    return e;
  }

  modification(exchangeId: string, what: string, before: string, after: string, text: string, sessionId = 's1') {
    const e = { type: 'modification' as const, ...this.stamp(), sessionId, exchangeId, what, before, after, text };
    this.events.push(e);
    return e;
  }

  log(text: string, sessionId?: string) {
    const e = { type: 'log' as const, ...this.stamp(), sessionId, source: 'mcpscope' as const, text };
    this.events.push(e);
    return e;
  }

  /** Advances the clock. */
  wait(ms: number): void {
    this.ts += ms;
  }
}

export interface Scenario {
  events: McpscopeEvent[];
  /** seqs of the interesting messages. */
  seq: {
    initialize: number;
    initializeResult: number;
    initialized: number;
    slowTask: number;
    progress: number[];
    slowLog: number;
    add: number;
    addResult: number;
    sampling: number;
    samplingAnswer: number;
    slowTaskResult: number;
    longJob: number;
    cancel: number;
    orphan: number;
    flaky: number;
    flakyResult: number;
    crash: number;
    crashError: number;
    hang: number;
    listChanged: number;
    replay: number;
    problem: number;
    legacyRequest: number;
    legacyResponse: number;
  };
}

/**
 * One Streamable HTTP session (s1) and one legacy SSE session (s2):
 * initialize; a GET stream with a priming event and keep-alives; tools/call slow_task with four
 * progress notifications and a log line on its POST stream, overtaken by a fast tools/call add
 * (out-of-order completion); a sampling request nested under slow_task with the client's answer;
 * a cancelled call; an orphan response; a tool error and a JSON-RPC error; a call left pending;
 * a list_changed notification on the GET stream and its replay on a resumed stream; a problem;
 * and a legacy session with an endpoint event and its rewrite.
 */
export function scenario(b = new EventBuilder()): Scenario {
  b.session('s1', { protocolVersion: '2025-11-25' });

  // initialize (POST answered on an SSE stream)
  let x1 = b.exchange('x1', 's1');
  const initialize = b.message({
    exchangeId: 'x1',
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    id: 0,
    method: 'initialize',
    jsonrpc: {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: 'fixture-client', version: '1.0.0' } },
    },
  });
  x1 = b.update(x1, { status: 200, carrier: 'post-sse', responseType: 'text/event-stream', respondedAt: b.ts + 2 });
  b.sse('x1', 'priming', { eventId: '0', retry: 3000 });
  const initializeResult = b.message({
    exchangeId: 'x1',
    dir: 's2c',
    kind: 'response',
    carrier: 'post-sse',
    id: 0,
    method: 'initialize',
    pair: initialize.seq,
    after: 3,
    jsonrpc: {
      jsonrpc: '2.0',
      id: 0,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {}, logging: {} },
        serverInfo: { name: 'fixture-server', version: '2.0.0' },
      },
    },
  });
  b.update(x1, { endedAt: b.ts });
  b.session('s1', {
    protocolVersion: '2025-11-25',
    serverInfo: { name: 'fixture-server', version: '2.0.0' },
    clientInfo: { name: 'fixture-client', version: '1.0.0' },
    mcpSessionId: 'abc',
  });

  b.exchange('x2', 's1', { status: 202 });
  const initialized = b.message({
    exchangeId: 'x2',
    dir: 'c2s',
    kind: 'notification',
    carrier: 'post-body',
    method: 'notifications/initialized',
    jsonrpc: { jsonrpc: '2.0', method: 'notifications/initialized' },
  });

  // The standalone GET stream: priming, keep-alive.
  b.exchange('x3', 's1', {
    method: 'GET',
    status: 200,
    carrier: 'get-sse',
    responseType: 'text/event-stream',
    requestHeaders: { host: '127.0.0.1:6481', accept: 'text/event-stream' },
  });
  b.sse('x3', 'priming', { eventId: '100' });
  b.sse('x3', 'comment', { comment: 'ping' });

  // tools/call slow_task with progress.
  b.exchange('x4', 's1', { status: 200, carrier: 'post-sse', responseType: 'text/event-stream' });
  const slowTask = b.message({
    exchangeId: 'x4',
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    id: 1,
    method: 'tools/call',
    name: 'slow_task',
    progressToken: 'p1',
    jsonrpc: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'slow_task', arguments: { steps: 4 }, _meta: { progressToken: 'p1' } },
    },
  });
  b.sse('x4', 'priming', { eventId: '200' });
  const progress: number[] = [];
  const progressMsg = (i: number) =>
    b.message({
      exchangeId: 'x4',
      dir: 's2c',
      kind: 'notification',
      carrier: 'post-sse',
      method: 'notifications/progress',
      pair: slowTask.seq,
      parent: slowTask.seq,
      progressToken: 'p1',
      progress: { progress: i, total: 4, message: `step ${i} of 4` },
      after: 100,
      jsonrpc: {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p1', progress: i, total: 4, message: `step ${i} of 4` },
      },
    }).seq;
  progress.push(progressMsg(1));
  const slowLog = b.message({
    exchangeId: 'x4',
    dir: 's2c',
    kind: 'notification',
    carrier: 'post-sse',
    method: 'notifications/message',
    parent: slowTask.seq,
    jsonrpc: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'slow_task', data: 'finished step 1/4' } },
  }).seq;

  // A fast call that overtakes it.
  b.exchange('x5', 's1', { status: 200, carrier: 'post-json', responseType: 'application/json' });
  const add = b.message({
    exchangeId: 'x5',
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    id: 2,
    method: 'tools/call',
    name: 'add',
    jsonrpc: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
  });
  const addResult = b.message({
    exchangeId: 'x5',
    dir: 's2c',
    kind: 'response',
    carrier: 'post-json',
    id: 2,
    method: 'tools/call',
    name: 'add',
    pair: add.seq,
    after: 4,
    jsonrpc: { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '5' }] } },
  });

  progress.push(progressMsg(2));
  // The server asks the client for a completion, on slow_task's stream.
  const sampling = b.message({
    exchangeId: 'x4',
    dir: 's2c',
    kind: 'request',
    carrier: 'post-sse',
    id: 0,
    method: 'sampling/createMessage',
    parent: slowTask.seq,
    jsonrpc: {
      jsonrpc: '2.0',
      id: 0,
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'Summarize step 2' } }], maxTokens: 50 },
    },
  });
  b.exchange('x6', 's1', { status: 202 });
  const samplingAnswer = b.message({
    exchangeId: 'x6',
    dir: 'c2s',
    kind: 'response',
    carrier: 'post-body',
    id: 0,
    method: 'sampling/createMessage',
    pair: sampling.seq,
    parent: slowTask.seq,
    after: 30,
    jsonrpc: {
      jsonrpc: '2.0',
      id: 0,
      result: { role: 'assistant', content: { type: 'text', text: 'Step 2 summarized.' }, model: 'fixture-model' },
    },
  });
  progress.push(progressMsg(3));
  b.sse('x4', 'comment', { comment: 'keep-alive' });
  progress.push(progressMsg(4));
  const slowTaskResult = b.message({
    exchangeId: 'x4',
    dir: 's2c',
    kind: 'response',
    carrier: 'post-sse',
    id: 1,
    method: 'tools/call',
    name: 'slow_task',
    pair: slowTask.seq,
    after: 20,
    jsonrpc: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'slow task done' }] } },
  });

  // A call the client cancels.
  b.exchange('x7', 's1', { status: 200, carrier: 'post-sse', responseType: 'text/event-stream' });
  const longJob = b.message({
    exchangeId: 'x7',
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    id: 3,
    method: 'tools/call',
    name: 'long_job',
    jsonrpc: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'long_job', arguments: {} } },
  });
  b.exchange('x8', 's1', { status: 202 });
  const cancel = b.message({
    exchangeId: 'x8',
    dir: 'c2s',
    kind: 'notification',
    carrier: 'post-body',
    method: 'notifications/cancelled',
    name: 'long_job',
    pair: longJob.seq,
    after: 50,
    jsonrpc: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'user pressed cancel' } },
  });

  // A response nobody asked for.
  b.exchange('x9', 's1', { status: 200, carrier: 'post-json' });
  const orphan = b.message({
    exchangeId: 'x9',
    dir: 's2c',
    kind: 'response',
    carrier: 'post-json',
    id: 99,
    jsonrpc: { jsonrpc: '2.0', id: 99, result: {} },
    hints: [{ level: 'error', code: 'unknown-id', text: 'Response to id 99, but no client request with that id was seen.' }],
  });

  // A tool error and a JSON-RPC error.
  b.exchange('x10', 's1', { status: 200, carrier: 'post-json' });
  const flaky = b.message({
    exchangeId: 'x10',
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    id: 4,
    method: 'tools/call',
    name: 'flaky',
    jsonrpc: { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'flaky', arguments: {} } },
  });
  const flakyResult = b.message({
    exchangeId: 'x10',
    dir: 's2c',
    kind: 'response',
    carrier: 'post-json',
    id: 4,
    method: 'tools/call',
    name: 'flaky',
    pair: flaky.seq,
    isError: true,
    after: 8,
    jsonrpc: { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'Flaky failure: try again' }], isError: true } },
  });
  b.exchange('x11', 's1', { status: 200, carrier: 'post-json' });
  const crash = b.message({
    exchangeId: 'x11',
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    id: 5,
    method: 'tools/call',
    name: 'crash',
    jsonrpc: { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'crash', arguments: {} } },
  });
  const crashError = b.message({
    exchangeId: 'x11',
    dir: 's2c',
    kind: 'error',
    carrier: 'post-json',
    id: 5,
    method: 'tools/call',
    name: 'crash',
    pair: crash.seq,
    after: 2,
    error: { code: -32603, message: 'boom', meaning: 'Internal error' },
    jsonrpc: { jsonrpc: '2.0', id: 5, error: { code: -32603, message: 'boom' } },
  });

  // A call that never gets an answer.
  b.exchange('x12', 's1');
  const hang = b.message({
    exchangeId: 'x12',
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    id: 6,
    method: 'tools/call',
    name: 'hang',
    jsonrpc: { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'hang', arguments: {} } },
  });

  // A notification on the GET stream, then the stream is resumed and replays it.
  const listChanged = b.message({
    exchangeId: 'x3',
    dir: 's2c',
    kind: 'notification',
    carrier: 'get-sse',
    method: 'notifications/tools/list_changed',
    jsonrpc: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
  });
  b.exchange('x13', 's1', {
    method: 'GET',
    status: 200,
    carrier: 'get-sse',
    responseType: 'text/event-stream',
    resumes: 'x3',
    lastEventId: '100',
  });
  const replay = b.message({
    exchangeId: 'x13',
    dir: 's2c',
    kind: 'notification',
    carrier: 'get-sse',
    method: 'notifications/tools/list_changed',
    replayOf: listChanged.seq,
    jsonrpc: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    hints: [{ level: 'info', code: 'replayed', text: 'Replayed after a reconnect.' }],
  });

  // Something that is not JSON-RPC.
  b.exchange('x14', 's1', { status: 200, carrier: 'post-sse', responseType: 'text/event-stream' });
  const problem = b.problem({
    sessionId: 's1',
    exchangeId: 'x14',
    code: 'invalid-json',
    text: 'An SSE data line was not valid JSON.',
    raw: '{"jsonrpc":',
  }).seq;

  // A legacy HTTP+SSE session: endpoint event (rewritten), request on a POST, answer on the stream.
  b.session('s2', { transport: 'legacy-sse', target: 'http://127.0.0.1:4000/sse', endpoint: '/messages?sessionId=L1' });
  b.exchange('x20', 's2', { method: 'GET', url: '/sse', status: 200, carrier: 'legacy-sse', responseType: 'text/event-stream' });
  b.sse('x20', 'endpoint', { sessionId: 's2', eventType: 'endpoint', data: '/messages?sessionId=L1' });
  b.modification(
    'x20',
    'endpoint-rewrite',
    'http://127.0.0.1:4000/messages?sessionId=L1',
    '/messages?sessionId=L1',
    'The absolute endpoint URL was rewritten to go through the proxy.',
    's2',
  );
  b.exchange('x21', 's2', { url: '/messages?sessionId=L1', status: 202 });
  const legacyRequest = b.message({
    sessionId: 's2',
    exchangeId: 'x21',
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    id: 1,
    method: 'tools/list',
    jsonrpc: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });
  const legacyResponse = b.message({
    sessionId: 's2',
    exchangeId: 'x20',
    dir: 's2c',
    kind: 'response',
    carrier: 'legacy-sse',
    id: 1,
    method: 'tools/list',
    pair: legacyRequest.seq,
    after: 7,
    jsonrpc: { jsonrpc: '2.0', id: 1, result: { tools: [] } },
  });
  b.log('Session s2 was first seen mid-way.', 's2');

  return {
    events: b.events,
    seq: {
      initialize: initialize.seq,
      initializeResult: initializeResult.seq,
      initialized: initialized.seq,
      slowTask: slowTask.seq,
      progress,
      slowLog,
      add: add.seq,
      addResult: addResult.seq,
      sampling: sampling.seq,
      samplingAnswer: samplingAnswer.seq,
      slowTaskResult: slowTaskResult.seq,
      longJob: longJob.seq,
      cancel: cancel.seq,
      orphan: orphan.seq,
      flaky: flaky.seq,
      flakyResult: flakyResult.seq,
      crash: crash.seq,
      crashError: crashError.seq,
      hang: hang.seq,
      listChanged: listChanged.seq,
      replay: replay.seq,
      problem,
      legacyRequest: legacyRequest.seq,
      legacyResponse: legacyResponse.seq,
    },
  };
}

export interface SpecScenario {
  events: McpscopeEvent[];
  seq: {
    /** tools/call add {a: 2, b: 3}: compliant. */
    goodAdd: number;
    goodAddResult: number;
    /** tools/call add {a: "2", b: 3}, twice: tools/arguments-schema at /params/arguments/a. */
    badAdd: number;
    badAddResult: number;
    badAdd2: number;
    /** tools/call echo answered with a result without content: schema/tools-call-result at /result/content. */
    echo: number;
    echoResult: number;
    /** The violations, in seq order: badAdd's, echoResult's, one naming no message, badAdd2's. */
    violations: number[];
    /** The violation naming no message (a problem row of its own). */
    loose: number;
  };
}

export const SPEC_REF_TOOLS = '2025-11-25 server/tools#calling-tools';
export const SPEC_URL_TOOLS = 'https://modelcontextprotocol.io/specification/2025-11-25/server/tools#calling-tools';

/**
 * One Streamable HTTP session (s1, 2025-11-25) whose traffic broke the MCP specification, the
 * violations as the linter records them (each right after its message; `level` is the linter's
 * mode: warn, or error under --lint strict), and a session s2 that broke nothing.
 */
export function specScenario(level: 'warn' | 'error' = 'warn', b = new EventBuilder()): SpecScenario {
  const counts = { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 0 };
  b.session('s1', { protocolVersion: '2025-11-25', counts });
  b.session('s2', { protocolVersion: '2025-11-25', counts });
  const violations: number[] = [];
  const call = (xid: string, id: number, name: string, args: unknown, result: unknown) => {
    b.exchange(xid, 's1', { status: 200, carrier: 'post-json', responseType: 'application/json' });
    const req = b.message({
      exchangeId: xid,
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      id,
      method: 'tools/call',
      name,
      jsonrpc: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
    });
    const res = b.message({
      exchangeId: xid,
      dir: 's2c',
      kind: 'response',
      carrier: 'post-json',
      id,
      method: 'tools/call',
      name,
      pair: req.seq,
      after: 3,
      isError: (result as { isError?: boolean }).isError,
      jsonrpc: { jsonrpc: '2.0', id, result },
    });
    return { req: req.seq, res: res.seq };
  };
  const argumentsViolation = (message: number) =>
    violations.push(
      b.violation({
        message,
        level,
        rule: 'tools/arguments-schema',
        specRef: SPEC_REF_TOOLS,
        path: '/params/arguments/a',
        expected: 'a number',
        text: "The arguments do not match the tool's inputSchema: /a is not a number.",
      }).seq,
    );

  const good = call('x1', 1, 'add', { a: 2, b: 3 }, { content: [{ type: 'text', text: '5' }] });
  const bad = call('x2', 2, 'add', { a: '2', b: 3 }, { content: [{ type: 'text', text: 'a must be a number' }], isError: true });
  argumentsViolation(bad.req);
  const echo = call('x3', 3, 'echo', { text: 'hi' }, { structured: true });
  violations.push(
    b.violation({
      message: echo.res,
      level,
      rule: 'schema/tools-call-result',
      specRef: SPEC_REF_TOOLS,
      path: '/result/content',
      expected: 'an array of content blocks',
      text: 'A tools/call result needs content.',
    }).seq,
  );
  const loose = b.violation({
    exchangeId: 'x3',
    level,
    rule: 'transport/protocol-version-header',
    specRef: '2025-11-25 basic/transports#protocol-version-header',
    text: 'A POST after initialize lacks MCP-Protocol-Version.',
  }).seq;
  violations.push(loose);
  const bad2 = call('x4', 4, 'add', { a: '2', b: 3 }, { content: [{ type: 'text', text: 'a must be a number' }], isError: true });
  argumentsViolation(bad2.req);
  b.session('s1', { protocolVersion: '2025-11-25', counts: { ...counts, messages: 8, requests: 4, violations: violations.length } });
  return {
    events: b.events,
    seq: {
      goodAdd: good.req,
      goodAddResult: good.res,
      badAdd: bad.req,
      badAddResult: bad.res,
      badAdd2: bad2.req,
      echo: echo.req,
      echoResult: echo.res,
      violations,
      loose,
    },
  };
}
