/**
 * A real OTLP/HTTP receiver for tests, as a collector's `otlp` receiver on its HTTP port is:
 * `POST /v1/traces` and `POST /v1/metrics`, `application/x-protobuf` (decoded with protobufjs and the
 * OTLP messages of otlp-subset.proto, upstream's field numbers) or `application/json` (OTLP/JSON:
 * hex ids, camelCase fields), gzip accepted. It listens on 127.0.0.1, on a port the OS picks.
 *
 * It can be told to misbehave: `unavailable` answers 503 (a collector shedding load), `slow` holds
 * every answer until told otherwise (a collector that does not keep up), and `notFound` answers 404
 * on a signal's path (a collector whose pipelines take only the other signal).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

const root = protobuf.parse(readFileSync(new URL('./otlp-subset.proto', import.meta.url), 'utf8')).root;
const TraceRequest = root.lookupType('otlp.subset.ExportTraceServiceRequest');
const MetricsRequest = root.lookupType('otlp.subset.ExportMetricsServiceRequest');

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  traceState: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  events: { name: string; timeNs: bigint; attributes: Record<string, unknown> }[];
  links: { traceId: string; spanId: string }[];
  /** OTLP's StatusCode: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  resource: Record<string, unknown>;
  scope: string;
  /** How it arrived. */
  encoding: 'protobuf' | 'json';
}

export interface ReceivedHistogramPoint {
  attributes: Record<string, unknown>;
  count: number;
  sum: number;
  explicitBounds: number[];
  bucketCounts: number[];
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  /** Histogram data points (the MCP metrics are histograms); empty for other kinds. */
  points: ReceivedHistogramPoint[];
  resource: Record<string, unknown>;
  encoding: 'protobuf' | 'json';
}

export interface OtlpReceiver {
  /** The base URL (`http://127.0.0.1:<port>`), as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans: ReceivedSpan[];
  metrics: ReceivedMetric[];
  /** Every request's path, content type and headers, in arrival order. */
  requests: { path: string; contentType: string; headers: IncomingMessage['headers'] }[];
  /** `ok` (200), `unavailable` (503), `slow` (answers only when the mode changes or the receiver closes). */
  mode: 'ok' | 'unavailable' | 'slow';
  setMode(mode: 'ok' | 'unavailable' | 'slow'): void;
  /** Paths answered 404 whatever the mode (`/v1/metrics`: a collector with a traces pipeline only). */
  notFound: Set<string>;
  /** Resolves once `predicate` holds over what was received (polled as requests arrive), or rejects after `timeoutMs`. */
  until<T>(predicate: (r: OtlpReceiver) => T | undefined | false, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

const hex = (v: unknown): string => {
  if (v === undefined || v === null || v === '') return '';
  if (typeof v === 'string')
    return /^[0-9a-f]*$/i.test(v) && (v.length === 32 || v.length === 16) ? v.toLowerCase() : Buffer.from(v, 'base64').toString('hex');
  return Buffer.from(v as Uint8Array).toString('hex');
};
const big = (v: unknown): bigint => (v === undefined || v === null ? 0n : BigInt(String(v)));

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: unknown;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: unknown;
};
type KeyValue = { key: string; value?: AnyValue };

function value(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(value);
  if (v.kvlistValue !== undefined) return attrs(v.kvlistValue.values);
  return undefined;
}
function attrs(list: KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list ?? []) out[kv.key] = value(kv.value);
  return out;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- OTLP's JSON and protobufjs's objects, read field by field */
function spansOf(body: any, encoding: 'protobuf' | 'json'): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          traceState: s.traceState ?? '',
          name: s.name,
          kind: Number(s.kind ?? 0),
          startNs: big(s.startTimeUnixNano),
          endNs: big(s.endTimeUnixNano),
          attributes: attrs(s.attributes),
          events: (s.events ?? []).map((e: any) => ({ name: e.name, timeNs: big(e.timeUnixNano), attributes: attrs(e.attributes) })),
          links: (s.links ?? []).map((l: any) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
          status: { code: Number(s.status?.code ?? 0), message: s.status?.message ?? '' },
          resource,
          scope: ss.scope?.name ?? '',
          encoding,
        });
  }
  return out;
}

function metricsOf(body: any, encoding: 'protobuf' | 'json'): ReceivedMetric[] {
  const out: ReceivedMetric[] = [];
  for (const rm of body.resourceMetrics ?? []) {
    const resource = attrs(rm.resource?.attributes);
    for (const sm of rm.scopeMetrics ?? [])
      for (const m of sm.metrics ?? [])
        out.push({
          name: m.name,
          unit: m.unit ?? '',
          points: (m.histogram?.dataPoints ?? []).map((p: any) => ({
            attributes: attrs(p.attributes),
            count: Number(p.count ?? 0),
            sum: Number(p.sum ?? 0),
            explicitBounds: (p.explicitBounds ?? []).map(Number),
            bucketCounts: (p.bucketCounts ?? []).map(Number),
          })),
          resource,
          encoding,
        });
  }
  return out;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const held: (() => void)[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };

  const receiver: OtlpReceiver = {
    url: '',
    spans: [],
    metrics: [],
    requests: [],
    mode: 'ok',
    notFound: new Set(),
    setMode(mode) {
      receiver.mode = mode;
      if (mode !== 'slow') for (const release of held.splice(0)) release();
    },
    until<T>(predicate: (r: OtlpReceiver) => T | undefined | false, timeoutMs = 15_000): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const check = () => {
          const v = predicate(receiver);
          if (v === undefined || v === false) return false;
          cleanup();
          resolve(v as T);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `OTLP receiver: condition not met within ${timeoutMs} ms (${receiver.spans.length} spans, ${receiver.metrics.length} metrics received)`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: async () => undefined,
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    const contentType = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      .trim();
    receiver.requests.push({ path, contentType, headers: req.headers });
    if (req.method !== 'POST' || (path !== '/v1/traces' && path !== '/v1/metrics') || receiver.notFound.has(path)) {
      res.writeHead(404).end();
      notify();
      return;
    }
    const answer = () => {
      if (receiver.mode === 'unavailable') {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
        return;
      }
      const raw = req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
      const json = contentType === 'application/json';
      const encoding = json ? 'json' : 'protobuf';
      const Type = path === '/v1/traces' ? TraceRequest : MetricsRequest;
      const decoded = json
        ? JSON.parse(raw.toString('utf8'))
        : Type.toObject(Type.decode(raw), { longs: String, enums: Number, bytes: String, defaults: false, oneofs: false });
      if (path === '/v1/traces') receiver.spans.push(...spansOf(decoded, encoding));
      else receiver.metrics.push(...metricsOf(decoded, encoding));
      if (json) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      notify();
    };
    if (receiver.mode === 'slow') held.push(answer);
    else answer();
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        handle(req, res, Buffer.concat(chunks));
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = async () => {
    held.splice(0);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
