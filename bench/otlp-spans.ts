/**
 * What OTLP export costs the main thread per exchange (issue 20), without the proxy:
 *   tsx bench/otlp-spans.ts [--exchanges N] [--batch K] [--bodies]
 * 1. the span builder alone (proxy/addons/telemetry/mcp-spans.ts): stored events → span ops;
 * 2. the whole export (proxy/addons/telemetry/otlp-exporter.ts): events committed to a store in batches
 *    of K (as the recorder commits them), spans made with the SDK, batched and sent as
 *    http/protobuf to a local receiver that answers 200 — CPU until every span was accepted.
 * Each exchange is a tools/call request and its result (two message events). Prints µs of CPU per
 * exchange. For docs/performance.md; not part of `npm run bench`. Nothing here runs without
 * --otlp in mcpscope itself: the store has no such subscriber then.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpscopeEvent, MessageEvent, SessionInfo } from '../proxy/core/model/events.js';
import { createRedactor } from '../proxy/recorder/redact/redact.js';
import { EventStore } from '../proxy/recorder/store/event-store.js';
import { McpSpanBuilder, type SpanOp } from '../proxy/addons/telemetry/mcp-spans.js';
import { resolveOtlpOptions } from '../proxy/addons/telemetry/otlp-options.js';
import { startOtlpExport } from '../proxy/addons/telemetry/otlp-exporter.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const EXCHANGES = arg('exchanges', 20_000);
const BATCH = arg('batch', 10);
const BODIES = process.argv.includes('--bodies');

type Unsequenced<T> = Omit<T, 'seq'>;
const session: SessionInfo = {
  id: 's1',
  transport: 'streamable-http',
  target: 'http://127.0.0.1:3001/mcp',
  mcpSessionId: '795126c6b7d949009b0945c85fe0fc06',
  protocolVersion: '2025-11-25',
  startedAt: 1000,
  status: 'open',
  counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 0 },
};
/** A tools/call and its result; `seq` is the seq the store will give the request (the result's `pair`). */
function exchange(i: number, t: number, seq: number): Unsequenced<MessageEvent>[] {
  const base = { type: 'message' as const, sessionId: 's1', carrier: 'post-body' as const, size: 100, hints: [] };
  return [
    {
      ...base,
      ts: t,
      dir: 'c2s',
      kind: 'request',
      id: i,
      method: 'tools/call',
      name: 'echo',
      jsonrpc: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { text: `hello ${i}` } } },
    },
    {
      ...base,
      ts: t + 0.4,
      dir: 's2c',
      kind: 'response',
      carrier: 'post-json',
      id: i,
      method: 'tools/call',
      name: 'echo',
      pair: seq,
      latencyMs: 0.4,
      jsonrpc: { jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: `hello ${i}` }] } },
    },
  ];
}

// 1. The builder alone, over events with seqs (a store assigns them).
{
  const store = new EventStore({ maxEvents: 10 * EXCHANGES });
  store.append({ type: 'session', ts: 1000, session });
  for (let i = 0; i < EXCHANGES; i++) for (const e of exchange(i, 1001 + i, store.peekSeq())) store.append(e as never);
  store.commit();
  const events: McpscopeEvent[] = store.snapshot();
  // The setup's garbage is not the builder's (run with node --expose-gc for a clean start).
  (globalThis as { gc?: () => void }).gc?.();
  const builder = new McpSpanBuilder({ bodies: BODIES, redact: process.argv.includes('--no-redact') ? undefined : createRedactor({}) });
  const t0 = process.cpuUsage();
  let ops = 0;
  for (let k = 0; k < events.length; k += BATCH) {
    const out: SpanOp[] = [];
    for (const e of events.slice(k, k + BATCH)) builder.feed(e, out);
    ops += out.length;
  }
  const c = process.cpuUsage(t0);
  console.log(
    `span builder: ${((c.user + c.system) / EXCHANGES).toFixed(2)} µs CPU per exchange (${ops} ops${BODIES ? ', with bodies' : ''})`,
  );
}

// 2. The whole export, to a local receiver.
{
  let accepted = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      accepted += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const config = resolveOtlpOptions(
    { url, bodies: BODIES },
    { OTEL_BSP_MAX_QUEUE_SIZE: String(4 * EXCHANGES), OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_METRICS_EXPORTER: 'none' },
  )!;
  const store = new EventStore({ maxEvents: 10 * EXCHANGES });
  const exporter = await startOtlpExport(store, config, { redactor: createRedactor({}) });
  store.append({ type: 'session', ts: 1000, session });
  store.commit();
  const t0 = process.cpuUsage();
  const w0 = performance.now();
  for (let i = 0; i < EXCHANGES; i += BATCH) {
    for (let j = i; j < Math.min(EXCHANGES, i + BATCH); j++)
      for (const e of exchange(j, 1001 + j, store.peekSeq())) store.append(e as never);
    store.commit();
    if ((i / BATCH) % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  // (the exporter counts a batch once the receiver's answer is read: poll)
  while (exporter.stats().spansExported + exporter.stats().spansDropped < EXCHANGES) await new Promise((resolve) => setTimeout(resolve, 5));
  const c = process.cpuUsage(t0);
  const s = exporter.stats();
  console.log(
    `whole export (http/protobuf, batches of ${BATCH} events): ${((c.user + c.system) / EXCHANGES).toFixed(2)} µs CPU per exchange, ${(performance.now() - w0).toFixed(0)} ms wall; ${s.spansExported} spans exported in ${accepted} requests, ${s.spansDropped} dropped`,
  );
  await exporter.close();
  receiver.close();
}
