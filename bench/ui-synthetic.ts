/**
 * Synthetic traffic: `syntheticEvents(n)` produces a realistic, deterministic event sequence with
 * exactly `n` JSON-RPC frames (message events), plus the session/exchange upserts, SSE priming
 * events and keep-alives around them — concurrent tools/call requests completing out of order,
 * progress, log notifications riding on POST streams, sampling requests nested under calls (with
 * the client's answers), tool errors, JSON-RPC errors, GET-stream notifications and the odd
 * problem. Bench data, not part of the UI: used by the UI performance script (bench/ui-timeline.ts)
 * and the store tests.
 */
import type { ExchangeInfo, McpscopeEvent, MessageEvent, SessionInfo } from '../proxy/core/model/events.js';

export interface SyntheticOptions {
  /** Sessions the calls are spread over (default 1). */
  sessions?: number;
  /** PRNG seed (default 1): the same seed gives the same events. */
  seed?: number;
  /** seq of the first event (default 1). */
  startSeq?: number;
  /** ts of the first event (default 2026-01-01T00:00:00Z). */
  startTs?: number;
  /** Approximate length of a tool result's text (default 160). */
  payloadBytes?: number;
  /** Calls in flight at once per session (default 6). */
  concurrency?: number;
}

/** A word that appears in about 1 % of tool arguments: handy for text-search measurements. */
export const SYNTHETIC_RARE_WORD = 'zanzibar';

const WORDS = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliet',
  'kilo',
  'lima',
  'mike',
  'november',
  'oscar',
  'papa',
  'quebec',
  'romeo',
  'sierra',
  'tango',
  'uniform',
  'victor',
  'whiskey',
  'xray',
  'yankee',
  'zulu',
];
const TOOLS = ['search', 'fetch_page', 'read_file', 'list_dir', 'run_query', 'slow_task', 'summarize', 'translate'];

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An event before seq/ts are stamped (ts optional). */
type Draft = McpscopeEvent extends infer E ? (E extends McpscopeEvent ? Omit<E, 'seq' | 'ts'> & { ts?: number } : never) : never;

type Step = 'progress' | 'log' | 'sampling' | 'samplingAnswer' | 'response';

interface Flight {
  session: SessionState;
  requestSeq: number;
  requestTs: number;
  id: number;
  tool: string;
  exchange: ExchangeInfo;
  steps: Step[];
  primed: boolean;
  offset: number;
  progressToken?: number;
  progressDone: number;
  progressTotal: number;
  sampling?: { seq: number; ts: number; id: number };
}

interface SessionState {
  info: SessionInfo;
  nextClientId: number;
  nextServerId: number;
  nextEventId: number;
  flights: Flight[];
  get?: { exchange: ExchangeInfo; offset: number };
}

export function syntheticEvents(n: number, options: SyntheticOptions = {}): McpscopeEvent[] {
  const rand = mulberry32(options.seed ?? 1);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const payloadBytes = options.payloadBytes ?? 160;
  const concurrency = Math.max(1, options.concurrency ?? 6);
  const sessionCount = Math.max(1, options.sessions ?? 1);
  const out: McpscopeEvent[] = [];
  let seq = (options.startSeq ?? 1) - 1;
  let ts = options.startTs ?? Date.UTC(2026, 0, 1);
  let frames = 0;
  let exchangeSerial = 0;
  let progressSerial = 0;

  const tick = () => (ts += 0.05 + rand() * 1.5);
  const words = (k: number) => {
    const w: string[] = [];
    for (let i = 0; i < k; i++) w.push(rand() < 0.002 ? SYNTHETIC_RARE_WORD : pick(WORDS));
    return w.join(' ');
  };
  const text = (len: number) => {
    let s = '';
    while (s.length < len) s += `${pick(WORDS)} `;
    return s.slice(0, len);
  };

  const push = (e: Draft): McpscopeEvent => {
    const event = { ...e, seq: ++seq, ts: e.ts ?? tick() } as McpscopeEvent;
    out.push(event);
    return event;
  };
  const upsertExchange = (x: ExchangeInfo) => push({ type: 'exchange', exchange: { ...x, hints: [...x.hints] } });
  const upsertSession = (s: SessionState) => push({ type: 'session', session: { ...s.info, counts: { ...s.info.counts } } });

  const message = (
    s: SessionState,
    m: Omit<MessageEvent, 'type' | 'seq' | 'ts' | 'sessionId' | 'raw' | 'size' | 'hints'> & { hints?: MessageEvent['hints'] },
  ): MessageEvent => {
    const raw = JSON.stringify(m.jsonrpc);
    frames++;
    s.info.counts.messages++;
    return push({ type: 'message', sessionId: s.info.id, raw, size: raw.length, hints: [], ...m }) as MessageEvent;
  };

  const newExchange = (s: SessionState, method: string, requestBytes: number): ExchangeInfo => {
    s.info.counts.exchanges++;
    return {
      id: `x${++exchangeSerial}`,
      sessionId: s.info.id,
      method,
      url: '/mcp',
      upstreamUrl: 'http://127.0.0.1:3001/mcp',
      requestHeaders: {
        host: '127.0.0.1:6481',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': `sid-${s.info.id}`,
      },
      startedAt: ts,
      requestBytes,
      responseBytes: 0,
      hints: [],
    };
  };

  const sessions: SessionState[] = [];
  for (let i = 1; i <= sessionCount; i++) {
    const s: SessionState = {
      info: {
        id: `s${i}`,
        transport: 'streamable-http',
        target: 'http://127.0.0.1:3001/mcp',
        mcpSessionId: `sid-s${i}`,
        protocolVersion: '2025-11-25',
        clientInfo: { name: 'synthetic-client', version: '1.0.0' },
        serverInfo: { name: 'synthetic-server', version: '1.0.0' },
        startedAt: ts,
        status: 'open',
        counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 0 },
      },
      nextClientId: 1,
      nextServerId: 0,
      nextEventId: 1,
      flights: [],
    };
    sessions.push(s);
    upsertSession(s);
  }

  const sseFrame = (f: Flight, payload: string) => {
    const eventId = String(f.session.nextEventId++);
    const length = `id: ${eventId}\nevent: message\ndata: ${payload}\n\n`.length;
    const location = { offset: f.offset, length, eventId, eventType: 'message' };
    f.offset += length;
    f.exchange.responseBytes = f.offset;
    return location;
  };

  const prime = (f: Flight) => {
    if (f.primed) return;
    f.primed = true;
    const eventId = String(f.session.nextEventId++);
    const raw = `id: ${eventId}\ndata: \n\n`;
    f.exchange.status = 200;
    f.exchange.carrier = 'post-sse';
    f.exchange.responseType = 'text/event-stream';
    f.exchange.respondedAt = tick();
    f.exchange.hints = [{ level: 'info', code: 'sse-response', text: 'The server opened an SSE stream for this request.' }];
    push({
      type: 'sse',
      sessionId: f.session.info.id,
      exchangeId: f.exchange.id,
      what: 'priming',
      raw,
      eventId,
      data: '',
      location: { offset: 0, length: raw.length, eventId },
      hints: [],
    });
    f.offset = raw.length;
    upsertExchange(f.exchange);
  };

  const startCall = (s: SessionState) => {
    const tool = pick(TOOLS);
    const id = s.nextClientId++;
    const slow = tool === 'slow_task' || rand() < 0.1;
    const progressToken = slow ? ++progressSerial : undefined;
    const params: Record<string, unknown> = { name: tool, arguments: { query: words(4), limit: 1 + Math.floor(rand() * 50) } };
    if (progressToken !== undefined) params._meta = { progressToken };
    const jsonrpc = { jsonrpc: '2.0', id, method: 'tools/call', params };
    const exchange = newExchange(s, 'POST', JSON.stringify(jsonrpc).length);
    upsertExchange(exchange);
    s.info.counts.requests++;
    s.info.counts.pending++;
    const req = message(s, {
      exchangeId: exchange.id,
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      jsonrpc,
      id,
      method: 'tools/call',
      name: tool,
      progressToken,
      location: { offset: 0, length: exchange.requestBytes },
    });
    const steps: Step[] = [];
    const progressTotal = slow ? 2 + Math.floor(rand() * 3) : 0;
    for (let i = 0; i < progressTotal; i++) steps.push('progress');
    if (rand() < 0.25) steps.splice(Math.floor(rand() * (steps.length + 1)), 0, 'log');
    if (rand() < 0.03) steps.push('sampling', 'samplingAnswer');
    steps.push('response');
    s.flights.push({
      session: s,
      requestSeq: req.seq,
      requestTs: req.ts,
      id,
      tool,
      exchange,
      steps,
      primed: false,
      offset: 0,
      progressToken,
      progressDone: 0,
      progressTotal,
    });
  };

  const advance = (f: Flight) => {
    const s = f.session;
    prime(f);
    const step = f.steps.shift()!;
    switch (step) {
      case 'progress': {
        f.progressDone++;
        const jsonrpc = {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: {
            progressToken: f.progressToken,
            progress: f.progressDone,
            total: f.progressTotal,
            message: `step ${f.progressDone} of ${f.progressTotal}`,
          },
        };
        message(s, {
          exchangeId: f.exchange.id,
          dir: 's2c',
          kind: 'notification',
          carrier: 'post-sse',
          jsonrpc,
          method: 'notifications/progress',
          pair: f.requestSeq,
          parent: f.requestSeq,
          progressToken: f.progressToken,
          progress: { progress: f.progressDone, total: f.progressTotal, message: `step ${f.progressDone} of ${f.progressTotal}` },
          location: sseFrame(f, JSON.stringify(jsonrpc)),
        });
        break;
      }
      case 'log': {
        const jsonrpc = {
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'info', logger: f.tool, data: `working on ${words(3)}` },
        };
        message(s, {
          exchangeId: f.exchange.id,
          dir: 's2c',
          kind: 'notification',
          carrier: 'post-sse',
          jsonrpc,
          method: 'notifications/message',
          parent: f.requestSeq,
          location: sseFrame(f, JSON.stringify(jsonrpc)),
        });
        break;
      }
      case 'sampling': {
        const id = s.nextServerId++;
        const jsonrpc = {
          jsonrpc: '2.0',
          id,
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: words(6) } }], maxTokens: 200 },
        };
        s.info.counts.requests++;
        s.info.counts.pending++;
        const m = message(s, {
          exchangeId: f.exchange.id,
          dir: 's2c',
          kind: 'request',
          carrier: 'post-sse',
          jsonrpc,
          id,
          method: 'sampling/createMessage',
          parent: f.requestSeq,
          location: sseFrame(f, JSON.stringify(jsonrpc)),
        });
        f.sampling = { seq: m.seq, ts: m.ts, id };
        break;
      }
      case 'samplingAnswer': {
        const sm = f.sampling!;
        const jsonrpc = {
          jsonrpc: '2.0',
          id: sm.id,
          result: { role: 'assistant', content: { type: 'text', text: words(8) }, model: 'synthetic-model', stopReason: 'endTurn' },
        };
        const x = newExchange(s, 'POST', JSON.stringify(jsonrpc).length);
        upsertExchange(x);
        s.info.counts.pending--;
        const m = message(s, {
          exchangeId: x.id,
          dir: 'c2s',
          kind: 'response',
          carrier: 'post-body',
          jsonrpc,
          id: sm.id,
          method: 'sampling/createMessage',
          pair: sm.seq,
          parent: f.requestSeq,
          latencyMs: ts - sm.ts,
          location: { offset: 0, length: x.requestBytes },
        });
        m.latencyMs = m.ts - sm.ts;
        x.status = 202;
        x.respondedAt = tick();
        x.endedAt = x.respondedAt;
        x.hints = [{ level: 'info', code: 'accepted-202', text: 'Accepted: the server took the message and will answer on a stream.' }];
        upsertExchange(x);
        break;
      }
      case 'response': {
        const r = rand();
        let jsonrpc: unknown;
        let kind: MessageEvent['kind'] = 'response';
        let isError: boolean | undefined;
        let error: MessageEvent['error'];
        let hints: MessageEvent['hints'] = [];
        if (r < 0.03) {
          kind = 'error';
          error = {
            code: -32603,
            message: `Internal error in ${f.tool}`,
            meaning: 'Internal error: the receiver failed while handling the request',
          };
          jsonrpc = { jsonrpc: '2.0', id: f.id, error: { code: error.code, message: error.message } };
          hints = [{ level: 'error', code: 'jsonrpc-error', text: `JSON-RPC error ${error.code}.` }];
          s.info.counts.errors++;
        } else if (r < 0.07) {
          isError = true;
          jsonrpc = { jsonrpc: '2.0', id: f.id, result: { content: [{ type: 'text', text: `failed: ${words(5)}` }], isError: true } };
          hints = [{ level: 'warn', code: 'tool-error', text: 'The tool reported an error (isError: true).' }];
          s.info.counts.errors++;
        } else {
          jsonrpc = {
            jsonrpc: '2.0',
            id: f.id,
            result: { content: [{ type: 'text', text: text(Math.max(8, Math.round(payloadBytes * (0.5 + rand())))) }] },
          };
        }
        s.info.counts.pending--;
        const m = message(s, {
          exchangeId: f.exchange.id,
          dir: 's2c',
          kind,
          carrier: 'post-sse',
          jsonrpc,
          id: f.id,
          method: 'tools/call',
          name: f.tool,
          pair: f.requestSeq,
          latencyMs: 0,
          isError,
          error,
          hints,
          location: sseFrame(f, JSON.stringify(jsonrpc)),
        });
        m.latencyMs = m.ts - f.requestTs;
        f.exchange.endedAt = tick();
        upsertExchange(f.exchange);
        s.flights.splice(s.flights.indexOf(f), 1);
        break;
      }
    }
  };

  const getStreamNotification = (s: SessionState) => {
    if (!s.get) {
      const x = newExchange(s, 'GET', 0);
      x.requestHeaders = { ...x.requestHeaders, accept: 'text/event-stream' };
      x.status = 200;
      x.carrier = 'get-sse';
      x.responseType = 'text/event-stream';
      x.respondedAt = ts;
      upsertExchange(x);
      s.get = { exchange: x, offset: 0 };
    }
    const g = s.get;
    if (rand() < 0.3) {
      const raw = ': keep-alive\n\n';
      push({
        type: 'sse',
        sessionId: s.info.id,
        exchangeId: g.exchange.id,
        what: 'comment',
        raw,
        comment: 'keep-alive',
        location: { offset: g.offset, length: raw.length },
        hints: [],
      });
      g.offset += raw.length;
      return;
    }
    const uri = `file:///docs/${pick(WORDS)}.md`;
    const jsonrpc = { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } };
    const payload = JSON.stringify(jsonrpc);
    const eventId = String(s.nextEventId++);
    const length = `id: ${eventId}\ndata: ${payload}\n\n`.length;
    message(s, {
      exchangeId: g.exchange.id,
      dir: 's2c',
      kind: 'notification',
      carrier: 'get-sse',
      jsonrpc,
      method: 'notifications/resources/updated',
      name: uri,
      location: { offset: g.offset, length, eventId },
    });
    g.offset += length;
  };

  let sinceUpsert = 0;
  while (frames < n) {
    const s = sessions[Math.floor(rand() * sessions.length)];
    const r = rand();
    if (r < 0.01) getStreamNotification(s);
    else if (r < 0.0105) {
      push({
        type: 'problem',
        sessionId: s.info.id,
        level: 'warn',
        code: 'invalid-json',
        text: 'An SSE data line was not valid JSON.',
        raw: '{"jsonrpc":"2.0",',
      });
    } else if (s.flights.length === 0 || (s.flights.length < concurrency && r < 0.4)) startCall(s);
    else advance(s.flights[Math.floor(rand() * s.flights.length)]);
    if (++sinceUpsert >= 5000) {
      sinceUpsert = 0;
      for (const x of sessions) upsertSession(x);
    }
  }
  for (const s of sessions) upsertSession(s);
  return out;
}
