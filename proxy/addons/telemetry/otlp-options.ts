/**
 * Whether and where mcpscope exports OpenTelemetry (OTLP/HTTP): `--otlp <url>`, `--otlp-bodies`
 * and the standard `OTEL_*` environment variables, resolved into one plain object.
 *
 * Pure: no OpenTelemetry import, no I/O. proxy/app/mcpscope.ts and proxy/app/cli.ts import this module
 * only; the SDK (proxy/addons/telemetry/otlp-exporter.ts) is loaded with `import()` when this returns a
 * configuration — with nothing configured nothing of OpenTelemetry is loaded at all.
 *
 * The rules (docs/team-setup.md lists them for users):
 * - `--otlp <url>` is a base URL like OTEL_EXPORTER_OTLP_ENDPOINT (`/v1/traces` and `/v1/metrics`
 *   are appended); a URL already ending in `/v1/traces` or `/v1/metrics` is taken as that signal's
 *   endpoint and the other one derived from it. It wins over every endpoint variable.
 * - OTEL_EXPORTER_OTLP_ENDPOINT: the base URL; OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and
 *   OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: used as they are (the specification's rule).
 * - OTEL_EXPORTER_OTLP_PROTOCOL (and its _TRACES_/_METRICS_ variants): `http/protobuf` (default) or
 *   `http/json`. `grpc` is refused with a plain error: mcpscope speaks OTLP over HTTP only (the
 *   collector's port 4318), and sending HTTP to a gRPC port would only fail later, quietly.
 * - OTEL_SDK_DISABLED=true turns off what the environment configured (an explicit --otlp still
 *   exports: it is asked for on the command line). OTEL_TRACES_EXPORTER=none / OTEL_METRICS_EXPORTER=none
 *   turn off that signal.
 * - OTEL_EXPORTER_OTLP_TIMEOUT (and its _TRACES_/_METRICS_ variants), OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_QUEUE_SIZE,
 *   OTEL_BSP_MAX_EXPORT_BATCH_SIZE, OTEL_BSP_EXPORT_TIMEOUT, OTEL_METRIC_EXPORT_INTERVAL and
 *   OTEL_METRIC_EXPORT_TIMEOUT are read here, so that mcpscope's own drop counting knows the queue
 *   size the SDK uses. OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_COMPRESSION,
 *   OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES are read by the SDK itself.
 */

import type { OtlpProtocol, TelemetryStats } from '../../core/model/api-stats.js';
import { OtlpOptionsError } from '../../core/model/errors.js';

export type { OtlpProtocol, TelemetryStats } from '../../core/model/api-stats.js';

export interface OtlpConfig {
  /** Where spans go (`…/v1/traces`); undefined when traces are off (OTEL_TRACES_EXPORTER=none). */
  tracesUrl?: string;
  /** Where the MCP duration metrics go (`…/v1/metrics`); undefined when metrics are off. */
  metricsUrl?: string;
  tracesProtocol: OtlpProtocol;
  metricsProtocol: OtlpProtocol;
  /** `--otlp-bodies`: redacted, bounded request/response bodies on the spans. Default false. */
  bodies: boolean;
  /**
   * Per export request, ms: OTEL_EXPORTER_OTLP_TRACES_TIMEOUT / _METRICS_TIMEOUT, else
   * OTEL_EXPORTER_OTLP_TIMEOUT (the SDK's default, 10 s, when unset). Given to each exporter, whose
   * own configuration wins over the environment: so each signal gets its own here.
   */
  tracesTimeoutMs?: number;
  metricsTimeoutMs?: number;
  /** The batch span processor (OTEL_BSP_*): delay between exports, queue size, batch size, export timeout. */
  scheduledDelayMs: number;
  maxQueueSize: number;
  maxExportBatchSize: number;
  exportTimeoutMs: number;
  /** OTEL_METRIC_EXPORT_INTERVAL / _TIMEOUT (ms). */
  metricIntervalMs: number;
  metricTimeoutMs: number;
  /** Things worth a line on stderr (an ignored exporter name…), in plain words. */
  warnings: string[];
}

/** The SDK's defaults (OpenTelemetry's environment variable specification). */
const DEFAULTS = {
  scheduledDelayMs: 5000,
  maxQueueSize: 2048,
  maxExportBatchSize: 512,
  exportTimeoutMs: 30000,
  metricIntervalMs: 60000,
  metricTimeoutMs: 30000,
};

type Env = Readonly<Record<string, string | undefined>>;

function nonEmpty(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

function checkUrl(url: string, from: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new OtlpOptionsError(`${from} must be an http:// or https:// URL, not ${JSON.stringify(url)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new OtlpOptionsError(`${from} must be an http:// or https:// URL (OTLP over HTTP), not ${JSON.stringify(url)}`);
  return url;
}

/** `base` + `v1/traces`, with exactly one slash between (the specification's rule for OTEL_EXPORTER_OTLP_ENDPOINT). */
export function signalUrl(base: string, signal: 'traces' | 'metrics'): string {
  const u = new URL(base);
  u.pathname = `${u.pathname.endsWith('/') ? u.pathname : `${u.pathname}/`}v1/${signal}`;
  return u.toString();
}

/** `--otlp`'s URL: a base, or a signal's own endpoint (`…/v1/traces`) from which the other is derived. */
function flagUrls(url: string): { traces: string; metrics: string } {
  checkUrl(url, '--otlp');
  const m = /^(.*?)\/v1\/(traces|metrics)\/?$/.exec(new URL(url).pathname);
  if (!m) return { traces: signalUrl(url, 'traces'), metrics: signalUrl(url, 'metrics') };
  const u = new URL(url);
  u.pathname = m[1] || '/';
  const base = u.toString();
  return { traces: signalUrl(base, 'traces'), metrics: signalUrl(base, 'metrics') };
}

function protocolOf(env: Env, signal: 'TRACES' | 'METRICS'): OtlpProtocol {
  const name =
    nonEmpty(env, `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`) !== undefined
      ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`
      : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = nonEmpty(env, name)?.toLowerCase();
  if (value === undefined || value === 'http/protobuf') return 'http/protobuf';
  if (value === 'http/json') return 'http/json';
  if (value === 'grpc')
    throw new OtlpOptionsError(
      `${name}=grpc is not supported: mcpscope exports OTLP over HTTP only. Point it at the collector's OTLP/HTTP port (4318) and set ${name}=http/protobuf (or http/json).`,
    );
  throw new OtlpOptionsError(`${name} must be http/protobuf or http/json, not ${JSON.stringify(env[name])}`);
}

function numberOf(env: Env, names: string[], fallback: number, warnings: string[]): number;
function numberOf(env: Env, names: string[], fallback: undefined, warnings: string[]): number | undefined;
function numberOf(env: Env, names: string[], fallback: number | undefined, warnings: string[]): number | undefined {
  for (const name of names) {
    const raw = nonEmpty(env, name);
    if (raw === undefined) continue;
    const n = Number(raw);
    if (Number.isFinite(n) && n > 0) return Math.floor(n);
    const line = `${name}=${JSON.stringify(raw)} is not a positive number; using ${fallback === undefined ? 'the default' : fallback}.`;
    // (OTEL_EXPORTER_OTLP_TIMEOUT is read for each signal: said once.)
    if (!warnings.includes(line)) warnings.push(line);
    return fallback;
  }
  return fallback;
}

/** Whether an OTEL_*_EXPORTER list turns the signal off (`none`), warning about names other than otlp. */
function exporterOn(env: Env, name: string, warnings: string[]): boolean {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return true;
  const names = raw.split(',').map((s) => s.trim().toLowerCase());
  if (names.includes('none')) return false;
  const other = names.filter((n) => n !== 'otlp' && n !== '');
  if (other.length > 0) warnings.push(`${name}=${raw}: mcpscope exports OTLP only; ${other.join(', ')} ignored.`);
  return true;
}

/**
 * The export configuration, or undefined when nothing asks for export (no --otlp and no endpoint
 * variable, or the environment's export is disabled). Throws OtlpOptionsError on a value that
 * cannot work.
 */
export function resolveOtlpOptions(flags: { url?: string; bodies?: boolean }, env: Env): OtlpConfig | undefined {
  return resolve(flags, env, []);
}

/**
 * What the command lines (proxy/app/cli.ts, proxy/app/commands/run.ts) do with `--otlp`, `--otlp-bodies`
 * and OTEL_*: the configuration (undefined: no export) and the warnings to print. Throws
 * OtlpOptionsError on a value that cannot work, and for `--otlp-bodies` with no endpoint.
 */
export function resolveOtlpForCli(flags: { url?: string; bodies?: boolean }, env: Env): { config?: OtlpConfig; warnings: string[] } {
  const warnings: string[] = [];
  const config = resolve(flags, env, warnings);
  if (flags.bodies && !config)
    throw new OtlpOptionsError('--otlp-bodies needs an OTLP endpoint: give --otlp <url> (or set OTEL_EXPORTER_OTLP_ENDPOINT).');
  return { config, warnings };
}

function resolve(flags: { url?: string; bodies?: boolean }, env: Env, warnings: string[]): OtlpConfig | undefined {
  let traces: string | undefined;
  let metrics: string | undefined;
  if (flags.url !== undefined) {
    ({ traces, metrics } = flagUrls(flags.url));
  } else {
    if (nonEmpty(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
    const base = nonEmpty(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    if (base !== undefined) checkUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    const ownTraces = nonEmpty(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
    const ownMetrics = nonEmpty(env, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT');
    traces = ownTraces !== undefined ? checkUrl(ownTraces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') : base && signalUrl(base, 'traces');
    metrics = ownMetrics !== undefined ? checkUrl(ownMetrics, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT') : base && signalUrl(base, 'metrics');
    // A metrics endpoint alone does not turn export on: mcpscope's export is the spans, the metrics come with them.
    if (traces === undefined) return undefined;
  }
  if (!exporterOn(env, 'OTEL_TRACES_EXPORTER', warnings)) traces = undefined;
  if (!exporterOn(env, 'OTEL_METRICS_EXPORTER', warnings)) metrics = undefined;
  if (traces === undefined && metrics === undefined) return undefined;
  const maxQueueSize = numberOf(env, ['OTEL_BSP_MAX_QUEUE_SIZE'], DEFAULTS.maxQueueSize, warnings);
  return {
    tracesUrl: traces,
    metricsUrl: metrics,
    tracesProtocol: protocolOf(env, 'TRACES'),
    metricsProtocol: protocolOf(env, 'METRICS'),
    bodies: flags.bodies ?? false,
    tracesTimeoutMs: numberOf(env, ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT'], undefined, warnings),
    metricsTimeoutMs: numberOf(env, ['OTEL_EXPORTER_OTLP_METRICS_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT'], undefined, warnings),
    scheduledDelayMs: numberOf(env, ['OTEL_BSP_SCHEDULE_DELAY'], DEFAULTS.scheduledDelayMs, warnings),
    maxQueueSize,
    maxExportBatchSize: Math.min(maxQueueSize, numberOf(env, ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE'], DEFAULTS.maxExportBatchSize, warnings)),
    exportTimeoutMs: numberOf(env, ['OTEL_BSP_EXPORT_TIMEOUT'], DEFAULTS.exportTimeoutMs, warnings),
    metricIntervalMs: numberOf(env, ['OTEL_METRIC_EXPORT_INTERVAL'], DEFAULTS.metricIntervalMs, warnings),
    metricTimeoutMs: numberOf(env, ['OTEL_METRIC_EXPORT_TIMEOUT'], DEFAULTS.metricTimeoutMs, warnings),
    warnings,
  };
}

/** A URL as shown in /api/stats and notices: no userinfo, no query (a collector URL can carry a key). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.toString();
  } catch {
    return url;
  }
}

/** Where and how export goes, as the banner and /api/stats show it: the traces endpoint (else the metrics one), without credentials. */
export function otlpDisplay(config: OtlpConfig): Pick<TelemetryStats, 'endpoint' | 'protocol'> {
  return config.tracesUrl
    ? { endpoint: displayUrl(config.tracesUrl), protocol: config.tracesProtocol }
    : { endpoint: displayUrl(config.metricsUrl ?? ''), protocol: config.metricsProtocol };
}
