/**
 * Scripted WireRecord sequences for driving the Recorder without sockets (shared by the
 * recorder unit tests): a clock, request/response builders that split bodies at awkward places,
 * and store queries.
 */
import { Recorder } from '../../proxy/recorder/recorder.js';
import { createRedactor } from '../../proxy/recorder/redact/redact.js';
import { EventStore } from '../../proxy/recorder/store/event-store.js';
import type { HeaderMap, WireRecord } from '../../proxy/wire/capture/wire-records.js';
import type { ExchangeInfo, McpscopeEvent, MessageEvent, ProblemEvent, SessionInfo, SseFrameEvent } from '../../proxy/core/model/events.js';

export const TARGET = 'http://upstream.test/mcp';
export const ORIGIN = 'http://127.0.0.1:6481';
export const PROXY_TOKEN = 'mcpscope-proxy-token-XYZ123';
export const enc = (s: string) => new TextEncoder().encode(s);
export const json = (v: unknown) => JSON.stringify(v);

/** Splits bytes at the given offsets (awkward places: inside keys, inside multi-byte chars, between CR and LF). */
export function pieces(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const c of [...cuts.filter((c) => c > 0 && c < bytes.length), bytes.length]) {
    if (c > at) out.push(bytes.subarray(at, c));
    at = c;
  }
  return out;
}

/** Builds record sequences with an increasing clock (10 ms per record). */
export class Wire {
  t = 1_000;
  private n = 0;
  xid(): string {
    this.n += 1;
    return `x${this.n}`;
  }
  ts(): number {
    this.t += 10;
    return this.t;
  }
  request(xid: string, method: string, url: string, headers: HeaderMap = {}): WireRecord {
    const u = new URL(url, TARGET);
    return {
      t: 'request',
      xid,
      ts: this.ts(),
      method,
      url,
      upstreamUrl: `http://upstream.test${u.pathname}${u.search}`,
      headers,
      proxyOrigin: ORIGIN,
      target: TARGET,
    };
  }
  /** A request head, its body (split at `cuts`) and its end. */
  send(xid: string, method: string, url: string, headers: HeaderMap, body?: string | Uint8Array, cuts: number[] = []): WireRecord[] {
    const recs = [this.request(xid, method, url, headers)];
    if (body !== undefined)
      for (const chunk of pieces(typeof body === 'string' ? enc(body) : body, cuts))
        recs.push({ t: 'request-chunk', xid, ts: this.ts(), chunk });
    recs.push({ t: 'request-end', xid, ts: this.ts() });
    return recs;
  }
  head(xid: string, status: number, headers: HeaderMap = {}): WireRecord {
    return { t: 'response', xid, ts: this.ts(), status, headers };
  }
  chunks(xid: string, body: string | Uint8Array, cuts: number[] = []): WireRecord[] {
    return pieces(typeof body === 'string' ? enc(body) : body, cuts).map((chunk) => ({ t: 'response-chunk', xid, ts: this.ts(), chunk }));
  }
  end(xid: string): WireRecord {
    return { t: 'response-end', xid, ts: this.ts() };
  }
  /** A whole response: head, body chunks, end. */
  reply(xid: string, status: number, headers: HeaderMap, body: string | Uint8Array = '', cuts: number[] = []): WireRecord[] {
    return [this.head(xid, status, headers), ...this.chunks(xid, body, cuts), this.end(xid)];
  }
}

export function setup(options: { maxBodyBytes?: number; showSecrets?: boolean; lint?: 'off' | 'warn' | 'strict' } = {}) {
  const store = new EventStore();
  const recorder = new Recorder({
    store,
    redactor: createRedactor({ extraSecrets: [PROXY_TOKEN], showSecrets: options.showSecrets }),
    ...options,
  });
  const committed: McpscopeEvent[][] = [];
  store.subscribe((b) => committed.push([...b]));
  const w = new Wire();
  return { store, recorder, w, committed, feed: (records: WireRecord[]) => recorder.handle(records) };
}

export const messages = (store: EventStore): MessageEvent[] => store.snapshot().filter((e): e is MessageEvent => e.type === 'message');
/** The recorder's problems, spec violations aside: scripted sessions skip steps (notifications/initialized…) that the linter flags, and its own tests read those with violations(). */
export const problems = (store: EventStore): ProblemEvent[] =>
  store.snapshot().filter((e): e is ProblemEvent => e.type === 'problem' && e.code !== 'spec-violation');
/** The linter's spec violations (problem events with code spec-violation). */
export const violations = (store: EventStore): ProblemEvent[] =>
  store.snapshot().filter((e): e is ProblemEvent => e.type === 'problem' && e.code === 'spec-violation');
export const sseEvents = (store: EventStore): SseFrameEvent[] => store.snapshot().filter((e): e is SseFrameEvent => e.type === 'sse');
export const logs = (store: EventStore) => store.snapshot().filter((e) => e.type === 'log');
export const sessionOf = (store: EventStore, id = 's1'): SessionInfo => {
  const s = store.sessions.get(id);
  if (!s) throw new Error(`no session ${id}`);
  return s;
};
export const exchangeOf = (store: EventStore, id: string): ExchangeInfo => {
  const x = store.exchanges.get(id);
  if (!x) throw new Error(`no exchange ${id}`);
  return x;
};
export const codes = (hints: { code: string }[]) => hints.map((h) => h.code);
export const sse = (fields: string) => `${fields}\n\n`;

/** Each session's latest upsert in a list of events (an import's, an export's). */
export function latestSessions(events: readonly McpscopeEvent[]): Map<string, SessionInfo> {
  const out = new Map<string, SessionInfo>();
  for (const e of events) if (e.type === 'session') out.set(e.session.id, e.session);
  return out;
}
