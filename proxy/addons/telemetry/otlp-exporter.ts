/**
 * OTLP export of the recorded MCP traffic: spans and the MCP duration metrics, sent to
 * the collector the user names (`--otlp`, OTEL_EXPORTER_OTLP_*), over OTLP/HTTP with the official
 * OpenTelemetry JS SDK. The only module of mcpscope that imports OpenTelemetry; proxy/app/mcpscope.ts
 * loads it with `import()` only when proxy/addons/telemetry/otlp-options.ts resolved a configuration.
 *
 * It runs on the main thread as a store subscriber, never on the proxy thread (an ESLint rule
 * keeps the proxy thread's modules from importing proxy/telemetry/): committed events are queued
 * (bounded: 50,000 messages; past it requests are dropped and counted), turned into span ops by
 * proxy/addons/telemetry/mcp-spans.ts in slices on setImmediate, and the spans ended with their wire
 * times go through the SDK's BatchSpanProcessor (OTEL_BSP_* honoured) to the OTLP/HTTP exporter.
 *
 * Drops are counted, never waited for: a span that finds the processor's queue full is dropped
 * here before the SDK would drop it silently (a processor wrapper that knows how many spans the
 * exporter has taken), and a batch whose export fails (collector down, answering 5xx, too slow)
 * counts its spans as dropped (an exporter wrapper reading each export's result). A plain-words
 * notice says once that a signal's endpoint cannot be reached, and once that it is back (traces and
 * metrics each: a collector may take one and refuse the other).
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Link, type Span, type SpanContext } from '@opentelemetry/api';
import { ExportResultCode, TraceState, type ExportResult } from '@opentelemetry/core';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { Histogram } from '@opentelemetry/api';
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { resolve as resolvePath } from 'node:path';
import { VERIFY_UPSTREAM } from '../../wire/forwarder/upstream-tls.js';
import type { McpscopeEvent } from '../../core/model/events.js';
import type { Redactor } from '../../recorder/redact/redact.js';
import type { EventStore } from '../../recorder/store/event-store.js';
import { packageVersion } from '../../files/package-version.js';
import { MCP_DURATION_BUCKETS, McpSpanBuilder, type McpMetricName, type RemoteContext, type SpanOp } from './mcp-spans.js';
import { displayUrl, otlpDisplay, type OtlpConfig, type OtlpProtocol, type TelemetryStats } from './otlp-options.js';

export interface OtlpExport {
  stats(): TelemetryStats;
  /** Stops: ends open spans as unfinished, flushes (at most `timeoutMs`, default 2 s) and shuts the SDK down. Never rejects. */
  close(timeoutMs?: number): Promise<void>;
}

export interface OtlpExportOptions {
  /** Export redaction (always on): proxy/files/export/export-common.ts's exportRedactor with the token. */
  redactor: Redactor;
  /** Plain-words lines for a person (the CLI writes them to stderr). */
  onNotice?: (line: string) => void;
}

/** Messages waiting for the span builder, at most; past it requests are dropped (and counted). */
const MAX_PENDING = 50_000;
/** Events turned into spans per setImmediate slice. */
const SLICE = 2_000;

/** A processor in front of the BatchSpanProcessor: counts what it passes on, and drops (counting) what the SDK's queue has no room for. */
class CountingProcessor implements SpanProcessor {
  passed = 0;
  dropped = 0;
  constructor(
    private readonly inner: SpanProcessor,
    private readonly maxQueueSize: number,
    private readonly handed: () => number,
  ) {}
  onStart(span: Parameters<SpanProcessor['onStart']>[0], parent: Context): void {
    this.inner.onStart(span, parent);
  }
  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & 1) === 0) return; // not sampled: never exported, not a drop
    // Spans in the SDK's queue = passed on − taken by the exporter; at its size the SDK would drop this one silently.
    if (this.passed - this.handed() >= this.maxQueueSize) {
      this.dropped += 1;
      return;
    }
    this.passed += 1;
    this.inner.onEnd(span);
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

/** What went through an exporter: items handed to it, and those of exports that succeeded or failed. */
interface ExportCounts {
  handed: number;
  exported: number;
  failed: number;
}

/**
 * The OTLP exporter, counting each export by its result (`size` items: a batch's spans, or 1 for a
 * metric collection, which the periodic reader does not retry when it fails). Everything else is
 * the exporter's own, reached through the prototype: shutdown, flush, and the metric exporter's
 * temporality and aggregation selection.
 */
function counting<B, E extends { export(batch: B, done: (result: ExportResult) => void): void }>(
  inner: E,
  size: (batch: B) => number,
  counts: ExportCounts,
  onResult: (ok: boolean, error?: Error) => void,
): E {
  return Object.assign(Object.create(inner) as E, {
    export(batch: B, done: (result: ExportResult) => void): void {
      const n = size(batch);
      counts.handed += n;
      inner.export(batch, (result) => {
        const ok = result.code === ExportResultCode.SUCCESS;
        if (ok) counts.exported += n;
        else counts.failed += n;
        onResult(ok, result.error);
        done(result);
      });
    },
  });
}

/**
 * The exporter's HTTP agents, certificates checked whatever NODE_TLS_REJECT_UNAUTHORIZED says
 * (issue 26: mcpscope's own connections verify TLS themselves). The SDK's agent options from
 * OTEL_EXPORTER_OTLP_[SIGNAL_]CERTIFICATE, _CLIENT_CERTIFICATE and _CLIENT_KEY are read the way the
 * SDK reads them (a file that cannot be read is left out, as there), since giving agent options
 * replaces the SDK's own.
 */
function verifiedAgents(signal: 'traces' | 'metrics'): (protocol: string) => Promise<HttpAgent | HttpsAgent> {
  const read = (name: string): Buffer | undefined => {
    const file = process.env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_${name}`] || process.env[`OTEL_EXPORTER_OTLP_${name}`];
    if (!file) return undefined;
    try {
      return readFileSync(resolvePath(process.cwd(), file));
    } catch {
      return undefined;
    }
  };
  const tls = { ...VERIFY_UPSTREAM, ca: read('CERTIFICATE'), cert: read('CLIENT_CERTIFICATE'), key: read('CLIENT_KEY') };
  return async (protocol) => (protocol === 'http:' ? new HttpAgent({ keepAlive: true }) : new HttpsAgent({ keepAlive: true, ...tls }));
}

/** One signal's OTLP/HTTP exporter, JSON or protobuf, loaded when asked for. */
async function otlpExporter(signal: 'traces', url: string, protocol: OtlpProtocol, timeoutMs?: number): Promise<SpanExporter>;
async function otlpExporter(signal: 'metrics', url: string, protocol: OtlpProtocol, timeoutMs?: number): Promise<PushMetricExporter>;
async function otlpExporter(
  signal: 'traces' | 'metrics',
  url: string,
  protocol: OtlpProtocol,
  timeoutMs?: number,
): Promise<SpanExporter | PushMetricExporter> {
  const config = { url, httpAgentOptions: verifiedAgents(signal), ...(timeoutMs !== undefined ? { timeoutMillis: timeoutMs } : {}) };
  const json = protocol === 'http/json';
  if (signal === 'traces')
    return json
      ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(config)
      : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(config);
  return json
    ? new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter(config)
    : new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter(config);
}

/**
 * The notices of one signal's endpoint: once when it cannot be reached (naming the URL and what is
 * lost), once when it answers again. Each signal has its own: a collector may take spans and
 * answer 404 for metrics, and one signal's success says nothing of the other.
 */
function notifier(
  signal: 'traces' | 'metrics',
  url: string,
  onNotice: ((line: string) => void) | undefined,
  onError: (message: string) => void,
) {
  const shown = displayUrl(url);
  const lost = signal === 'traces' ? 'spans are' : 'metric data is';
  let reachable: boolean | undefined;
  return (ok: boolean, error?: Error): void => {
    if (ok) {
      if (reachable === false) onNotice?.(`mcpscope: OpenTelemetry export to ${shown} works again.`);
      reachable = true;
      return;
    }
    const message = error?.message || 'export failed';
    onError(`${signal}: ${message}`);
    if (reachable !== false)
      onNotice?.(
        `mcpscope: cannot send OpenTelemetry data to ${shown} (${message}); ${lost} dropped and counted (/api/stats) until it answers. The traffic is not affected.`,
      );
    reachable = false;
  };
}

function remoteContext(r: RemoteContext): SpanContext {
  return {
    traceId: r.traceId,
    spanId: r.spanId,
    traceFlags: r.traceFlags,
    isRemote: true,
    ...(r.traceState !== undefined ? { traceState: new TraceState(r.traceState) } : {}),
  };
}

export async function startOtlpExport(store: EventStore, config: OtlpConfig, options: OtlpExportOptions): Promise<OtlpExport> {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'mcpscope', 'service.version': packageVersion() }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, as every SDK reads them.
    .merge(detectResources({ detectors: [envDetector] }));
  const { endpoint, protocol } = otlpDisplay(config);
  /** The last export failure of either signal, after its name (`metrics: Not Found`). */
  let lastError: string | undefined;
  const setError = (message: string) => (lastError = message);

  // ---------------------------------------------------------------- traces
  let provider: BasicTracerProvider | undefined;
  let processor: CountingProcessor | undefined;
  const spanCounts: ExportCounts = { handed: 0, exported: 0, failed: 0 };
  if (config.tracesUrl) {
    const exporter = counting(
      await otlpExporter('traces', config.tracesUrl, config.tracesProtocol, config.tracesTimeoutMs),
      (spans: ReadableSpan[]) => spans.length,
      spanCounts,
      notifier('traces', config.tracesUrl, options.onNotice, setError),
    );
    const batch = new BatchSpanProcessor(exporter, {
      maxQueueSize: config.maxQueueSize,
      maxExportBatchSize: config.maxExportBatchSize,
      scheduledDelayMillis: config.scheduledDelayMs,
      exportTimeoutMillis: config.exportTimeoutMs,
    });
    processor = new CountingProcessor(batch, config.maxQueueSize, () => spanCounts.handed);
    provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  }
  const tracer = provider?.getTracer('mcpscope', packageVersion());

  // ---------------------------------------------------------------- metrics
  const metricCounts: ExportCounts = { handed: 0, exported: 0, failed: 0 };
  let meterProvider: MeterProvider | undefined;
  const histograms = new Map<McpMetricName, Histogram>();
  if (config.metricsUrl) {
    const reader = new PeriodicExportingMetricReader({
      exporter: counting(
        await otlpExporter('metrics', config.metricsUrl, config.metricsProtocol, config.metricsTimeoutMs),
        () => 1,
        metricCounts,
        notifier('metrics', config.metricsUrl, options.onNotice, setError),
      ),
      exportIntervalMillis: config.metricIntervalMs,
      exportTimeoutMillis: Math.min(config.metricTimeoutMs, config.metricIntervalMs),
    });
    meterProvider = new MeterProvider({ resource, readers: [reader] });
    const meter = meterProvider.getMeter('mcpscope', packageVersion());
    const describe: Record<McpMetricName, string> = {
      'mcp.client.operation.duration':
        'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received (at mcpscope: request to response on the wire).',
      'mcp.server.operation.duration':
        'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent (at mcpscope: request to response on the wire).',
      'mcp.client.session.duration':
        'The duration of the MCP session as observed on the MCP client (at mcpscope: first to last message of the session).',
      'mcp.server.session.duration':
        'The duration of the MCP session as observed on the MCP server (at mcpscope: first to last message of the session).',
    };
    for (const name of Object.keys(describe) as McpMetricName[])
      histograms.set(
        name,
        meter.createHistogram(name, { unit: 's', description: describe[name], advice: { explicitBucketBoundaries: MCP_DURATION_BUCKETS } }),
      );
  }

  // ---------------------------------------------------------------- events → spans
  const builder = new McpSpanBuilder({ bodies: config.bodies, redact: options.redactor });
  /** Open spans by key (requests `r:<seq>`, sessions `s:<id>`); bounded by the builder's own limits. */
  const spans = new Map<string, Span>();
  // Model turns' spans end at once (mcp-spans.ts makes them whole); the MCP calls they chose come
  // later and name them as parent: their contexts are kept after they end (the newest 10,000).
  const endedTurns = new Map<string, SpanContext>();
  const contextOf = (key: string): SpanContext | undefined => spans.get(key)?.spanContext() ?? endedTurns.get(key);
  let queueDropped = 0;
  const apply = (ops: SpanOp[]) => {
    for (const op of ops) {
      if (op.op === 'metric') {
        histograms.get(op.name)?.record(op.seconds, op.attributes);
        continue;
      }
      if (!tracer) continue;
      if (op.op === 'start') {
        let parent: Context = ROOT_CONTEXT;
        if (op.parent && 'key' in op.parent) {
          const p = contextOf(op.parent.key);
          if (p) parent = trace.setSpanContext(ROOT_CONTEXT, p);
        } else if (op.parent) parent = trace.setSpanContext(ROOT_CONTEXT, remoteContext(op.parent.remote));
        const links: Link[] = [];
        for (const l of op.links ?? []) {
          if ('key' in l) {
            const target = contextOf(l.key);
            if (target) links.push({ context: target });
          } else links.push({ context: remoteContext(l.remote) });
        }
        const span = tracer.startSpan(
          op.name,
          { kind: op.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, startTime: op.time, attributes: op.attributes, links },
          parent,
        );
        spans.set(op.key, span);
      } else if (op.op === 'event') {
        spans.get(op.key)?.addEvent(op.name, op.attributes, op.time);
      } else {
        const span = spans.get(op.key);
        if (!span) continue;
        spans.delete(op.key);
        if (op.key.startsWith('t:')) {
          if (endedTurns.size >= 10_000) endedTurns.delete(endedTurns.keys().next().value as string);
          endedTurns.set(op.key, span.spanContext());
        }
        span.setAttributes(op.attributes);
        if (op.error) span.setStatus({ code: SpanStatusCode.ERROR, ...(op.error.message ? { message: op.error.message } : {}) });
        span.end(op.time);
      }
    }
  };

  let pending: McpscopeEvent[] = [];
  let pendingMessages = 0;
  let scheduled: NodeJS.Immediate | undefined;
  const drain = () => {
    scheduled = undefined;
    const slice = pending.length > SLICE ? pending.splice(0, SLICE) : pending;
    if (slice === pending) pending = [];
    const ops: SpanOp[] = [];
    for (const e of slice) {
      if (e.type === 'message') pendingMessages -= 1;
      builder.feed(e, ops);
    }
    apply(ops);
    if (pending.length > 0) scheduled = setImmediate(drain);
  };
  const listener = (batch: readonly McpscopeEvent[]) => {
    for (const e of batch) {
      // A model turn's span is made from its first finished upsert (model-spans.ts): pending ones are not queued.
      if (e.type === 'session' || (e.type === 'model-turn' && e.turn.status !== 'pending')) pending.push(e);
      else if (e.type === 'message') {
        if (pendingMessages >= MAX_PENDING) {
          if (e.kind === 'request') queueDropped += 1;
          continue;
        }
        pendingMessages += 1;
        pending.push(e);
      }
    }
    if (pending.length > 0 && !scheduled) scheduled = setImmediate(drain);
  };
  // What the store holds already (proxy/app/mcpscope.ts starts this before anything listens; a later start misses nothing), then every batch.
  listener(store.snapshot());
  const unsubscribe = store.subscribe(listener, 'the OpenTelemetry export');

  const stats = (): TelemetryStats => ({
    endpoint,
    protocol,
    spansExported: spanCounts.exported,
    spansDropped: queueDropped + (processor?.dropped ?? 0) + spanCounts.failed,
    spansUnfinished: builder.unfinished,
    ...(config.metricsUrl ? { metricExports: metricCounts.exported, metricExportsFailed: metricCounts.failed } : {}),
    ...(lastError !== undefined ? { lastError } : {}),
  });

  let closing: Promise<void> | undefined;
  const close = (timeoutMs = 2000): Promise<void> =>
    (closing ??= (async () => {
      unsubscribe();
      if (scheduled) clearImmediate(scheduled);
      scheduled = undefined;
      const ops: SpanOp[] = [];
      for (const e of pending) builder.feed(e, ops);
      pending = [];
      builder.endAll(Date.now(), ops);
      apply(ops);
      let timer: NodeJS.Timeout | undefined;
      // Shutting down exports what is left: the spans' queue, and the metrics' last collection.
      const flushed = Promise.allSettled([provider?.shutdown(), meterProvider?.shutdown()]);
      await Promise.race([flushed, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs).unref()))]);
      clearTimeout(timer);
    })());

  return { stats, close };
}
