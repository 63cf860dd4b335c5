/**
 * What `GET /api/stats` answers (proxy/app/mcpscope.ts): the bounded store's counts
 * (proxy/recorder/store/event-store.ts), and while OTLP export is on, its counts
 * (proxy/addons/telemetry/otlp-exporter.ts). The UI's header reads it (ui/src/components/LiveStats.tsx).
 */

/** How spans and metrics are encoded over OTLP/HTTP (`OTEL_EXPORTER_OTLP_PROTOCOL`). */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** The store's counts: what it keeps, and what it evicted to stay within its caps. */
export interface StoreStats {
  events: number;
  bytes: number;
  evictedEvents: number;
  evictedSessions: number;
  maxEvents: number;
  maxBytes: number;
}

/** `/api/stats`'s `telemetry` (only while OTLP export is on); proxy/addons/telemetry/otlp-exporter.ts counts. */
export interface TelemetryStats {
  /** Where spans go (no credentials, no query). */
  endpoint: string;
  protocol: OtlpProtocol;
  /** Spans the collector accepted. */
  spansExported: number;
  /** Spans lost: a queue was full (mcpscope's or the SDK's), or their batch's export failed (collector down, 5xx, too slow). */
  spansDropped: number;
  /** Request spans ended without an answer: their session ended, too many were open, or mcpscope stopped. */
  spansUnfinished: number;
  /** Metric exports the collector accepted, and those that failed (each a collection lost); only when metrics are exported. */
  metricExports?: number;
  metricExportsFailed?: number;
  /** The last export failure of either signal, in the exporter's words after the signal's name (`traces: …`, `metrics: Not Found`). */
  lastError?: string;
}

/** The whole answer of `GET /api/stats`. */
export interface ApiStats extends StoreStats {
  /** Only while OTLP export is on. */
  telemetry?: TelemetryStats;
}
