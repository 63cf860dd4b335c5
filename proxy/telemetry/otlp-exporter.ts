/**
 * OTLP export of the recorded MCP traffic (issue 20): spans and the MCP duration metrics, sent to
 * the collector the user names (`--otlp`, OTEL_EXPORTER_OTLP_*), over OTLP/HTTP with the official
 * OpenTelemetry JS SDK. The only module of mcpscope that imports OpenTelemetry; proxy/mcpscope.ts
 * loads it with `import()` only when proxy/telemetry/otlp-options.ts resolved a configuration.
 *
 * It runs on the main thread as a store subscriber, never on the proxy thread (an ESLint rule
 * keeps the proxy thread's modules from importing proxy/telemetry/): committed events are queued
 * (bounded: 50,000 messages; past it requests are dropped and counted), turned into span ops by
 * proxy/telemetry/mcp-spans.ts in slices on setImmediate, and the spans ended with their wire
 * times go through the SDK's BatchSpanProcessor (OTEL_BSP_* honoured) to the OTLP/HTTP exporter.
 *
 * Drops are counted, never waited for: a span that finds the processor's queue full is dropped
 * here before the SDK would drop it silently (a processor wrapper that knows how many spans the
 * exporter has taken), and a batch whose export fails (collector down, answering 5xx, too slow)
 * counts its spans as dropped (an exporter wrapper reading each export's result). A plain-words
 * notice says once that the collector cannot be reached, and once that it is back.
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
import type { McpscopeEvent } from '../model/events.js';
import type { Redactor } from '../record/redact.js';
import type { EventStore } from '../store/event-store.js';
import { packageVersion } from '../version.js';
import { MCP_DURATION_BUCKETS, McpSpanBuilder, type McpMetricName, type RemoteContext, type SpanOp } from './mcp-spans.js';
import { displayUrl, type OtlpConfig, type TelemetryStats } from './otlp-options.js';

export type { TelemetryStats };

export interface OtlpExport {
  stats(): TelemetryStats;
  /** Stops: ends open spans as unfinished, flushes (at most `timeoutMs`, default 2 s) and shuts the SDK down. Never rejects. */
  close(timeoutMs?: number): Promise<void>;
}

export interface OtlpExportOptions {
  /** Export redaction (always on): proxy/export/export-common.ts's exportRedactor with the token. */
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

/** The OTLP exporter, counting each batch by its result. */
class CountingExporter implements SpanExporter {
  handed = 0;
  exported = 0;
  failed = 0;
  constructor(
    private readonly inner: SpanExporter,
    private readonly onResult: (ok: boolean, error?: Error) => void,
  ) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.handed += spans.length;
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) this.exported += spans.length;
      else this.failed += spans.length;
      this.onResult(result.code === ExportResultCode.SUCCESS, result.error);
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * The OTLP metric exporter, counting each export by its result (a failed one is a collection
 * lost: the periodic reader does not retry it). Everything else is the exporter's own — the
 * temporality and aggregation it selects included.
 */
function countingMetrics(
  inner: PushMetricExporter,
  counts: { exported: number; failed: number },
  onResult: (ok: boolean, error?: Error) => void,
): PushMetricExporter {
  return Object.assign(Object.create(inner) as PushMetricExporter, {
    export(metrics: Parameters<PushMetricExporter['export']>[0], done: (result: ExportResult) => void): void {
      inner.export(metrics, (result) => {
        if (result.code === ExportResultCode.SUCCESS) counts.exported += 1;
        else counts.failed += 1;
        onResult(result.code === ExportResultCode.SUCCESS, result.error);
        done(result);
      });
    },
  });
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
  const endpoint = displayUrl(config.tracesUrl ?? config.metricsUrl ?? '');
  const protocol = config.tracesUrl ? config.tracesProtocol : config.metricsProtocol;
  let lastError: string | undefined;
  let reachable: boolean | undefined;
  const onResult = (ok: boolean, error?: Error) => {
    if (ok) {
      if (reachable === false) options.onNotice?.(`mcpscope: OpenTelemetry export to ${endpoint} works again.`);
      reachable = true;
      return;
    }
    lastError = error?.message || 'export failed';
    if (reachable !== false)
      options.onNotice?.(
        `mcpscope: cannot send OpenTelemetry data to ${endpoint} (${lastError}); spans are dropped and counted (/api/stats) until it answers. The traffic is not affected.`,
      );
    reachable = false;
  };

  // ---------------------------------------------------------------- traces
  let provider: BasicTracerProvider | undefined;
  let processor: CountingProcessor | undefined;
  let exporter: CountingExporter | undefined;
  if (config.tracesUrl) {
    const exporterConfig = { url: config.tracesUrl, ...(config.timeoutMs !== undefined ? { timeoutMillis: config.timeoutMs } : {}) };
    const otlp: SpanExporter =
      config.tracesProtocol === 'http/json'
        ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(exporterConfig)
        : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(exporterConfig);
    const counting = new CountingExporter(otlp, onResult);
    exporter = counting;
    const batch = new BatchSpanProcessor(counting, {
      maxQueueSize: config.maxQueueSize,
      maxExportBatchSize: config.maxExportBatchSize,
      scheduledDelayMillis: config.scheduledDelayMs,
      exportTimeoutMillis: config.exportTimeoutMs,
    });
    processor = new CountingProcessor(batch, config.maxQueueSize, () => counting.handed);
    provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  }
  const tracer = provider?.getTracer('mcpscope', packageVersion());

  // ---------------------------------------------------------------- metrics
  const metricCounts = { exported: 0, failed: 0 };
  let meterProvider: MeterProvider | undefined;
  const histograms = new Map<McpMetricName, Histogram>();
  if (config.metricsUrl) {
    const exporterConfig = { url: config.metricsUrl, ...(config.timeoutMs !== undefined ? { timeoutMillis: config.timeoutMs } : {}) };
    const metricExporter: PushMetricExporter =
      config.metricsProtocol === 'http/json'
        ? new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter(exporterConfig)
        : new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter(exporterConfig);
    const reader = new PeriodicExportingMetricReader({
      exporter: countingMetrics(metricExporter, metricCounts, onResult),
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
          const p = spans.get(op.parent.key);
          if (p) parent = trace.setSpan(ROOT_CONTEXT, p);
        } else if (op.parent) parent = trace.setSpanContext(ROOT_CONTEXT, remoteContext(op.parent.remote));
        const links: Link[] = [];
        for (const l of op.links ?? []) {
          if ('key' in l) {
            const target = spans.get(l.key);
            if (target) links.push({ context: target.spanContext() });
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
      if (e.type === 'session') pending.push(e);
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
  // What was recorded before this started (it is loaded after the proxy ports open), then every batch.
  listener(store.snapshot());
  const unsubscribe = store.subscribe(listener, 'the OpenTelemetry export');

  const stats = (): TelemetryStats => ({
    endpoint,
    protocol,
    spansExported: exporter?.exported ?? 0,
    spansDropped: queueDropped + (processor?.dropped ?? 0) + (exporter?.failed ?? 0),
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
