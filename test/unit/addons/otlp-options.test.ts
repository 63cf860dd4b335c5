/** proxy/addons/telemetry/otlp-options.ts: --otlp, --otlp-bodies and the OTEL_* variables → one configuration. */
import { describe, expect, it } from 'vitest';
import { displayUrl, otlpDisplay, resolveOtlpForCli, resolveOtlpOptions, signalUrl } from '../../../proxy/addons/telemetry/otlp-options.js';
import { OtlpOptionsError } from '../../../proxy/core/model/errors.js';

const resolve = (flags: { url?: string; bodies?: boolean }, env: Record<string, string> = {}) => resolveOtlpOptions(flags, env);

describe('resolveOtlpOptions', () => {
  it('is undefined when nothing asks for export', () => {
    expect(resolve({})).toBeUndefined();
    expect(resolve({}, { OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBeUndefined();
    // a metrics endpoint alone: mcpscope's export is the spans
    expect(resolve({}, { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://c:4318/v1/metrics' })).toBeUndefined();
  });

  it('takes --otlp as a base URL, like OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    expect(resolve({ url: 'http://127.0.0.1:4318' })).toMatchObject({
      tracesUrl: 'http://127.0.0.1:4318/v1/traces',
      metricsUrl: 'http://127.0.0.1:4318/v1/metrics',
      tracesProtocol: 'http/protobuf',
      metricsProtocol: 'http/protobuf',
      bodies: false,
    });
    expect(resolve({ url: 'https://otel.example.com/ingest/' })?.tracesUrl).toBe('https://otel.example.com/ingest/v1/traces');
  });

  it('accepts a signal endpoint as --otlp and derives the other one', () => {
    expect(resolve({ url: 'http://c:4318/v1/traces' })).toMatchObject({
      tracesUrl: 'http://c:4318/v1/traces',
      metricsUrl: 'http://c:4318/v1/metrics',
    });
    expect(resolve({ url: 'http://c:4318/otlp/v1/metrics' })).toMatchObject({
      tracesUrl: 'http://c:4318/otlp/v1/traces',
      metricsUrl: 'http://c:4318/otlp/v1/metrics',
    });
  });

  it('lets --otlp win over the endpoint variables', () => {
    const c = resolve(
      { url: 'http://flag:4318' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://env:4318/t' },
    );
    expect(c?.tracesUrl).toBe('http://flag:4318/v1/traces');
  });

  it('reads OTEL_EXPORTER_OTLP_ENDPOINT as a base and the per-signal endpoints as they are', () => {
    expect(resolve({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toMatchObject({
      tracesUrl: 'http://collector:4318/v1/traces',
      metricsUrl: 'http://collector:4318/v1/metrics',
    });
    expect(
      resolve(
        {},
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://other:9999/custom/path' },
      ),
    ).toMatchObject({ tracesUrl: 'http://other:9999/custom/path', metricsUrl: 'http://collector:4318/v1/metrics' });
    expect(resolve({}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:1/x' })).toMatchObject({
      tracesUrl: 'http://t:1/x',
      metricsUrl: undefined,
    });
  });

  it('reads the protocol, per signal first', () => {
    expect(resolve({ url: 'http://c' }, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toMatchObject({
      tracesProtocol: 'http/json',
      metricsProtocol: 'http/json',
    });
    expect(
      resolve({ url: 'http://c' }, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }),
    ).toMatchObject({
      tracesProtocol: 'http/protobuf',
      metricsProtocol: 'http/json',
    });
  });

  it('refuses grpc and unknown protocols in plain words', () => {
    expect(() => resolve({ url: 'http://c:4317' }, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(OtlpOptionsError);
    expect(() => resolve({ url: 'http://c:4317' }, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported.*4318/,
    );
    expect(() => resolve({ url: 'http://c' }, { OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=grpc/,
    );
    expect(() => resolve({ url: 'http://c' }, { OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' })).toThrow(/http\/protobuf or http\/json/);
  });

  it('refuses URLs that are not http(s)', () => {
    expect(() => resolve({ url: 'collector:4318' })).toThrow(/--otlp must be an http/);
    expect(() => resolve({ url: 'not a url' })).toThrow(OtlpOptionsError);
    expect(() => resolve({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://c' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });

  it('honours OTEL_SDK_DISABLED for the environment, not for an explicit --otlp', () => {
    expect(resolve({}, { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' })).toBeUndefined();
    expect(resolve({}, { OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' })).toBeDefined();
    expect(resolve({ url: 'http://c' }, { OTEL_SDK_DISABLED: 'true' })).toBeDefined();
  });

  it('turns a signal off with OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER=none', () => {
    expect(resolve({ url: 'http://c' }, { OTEL_METRICS_EXPORTER: 'none' })).toMatchObject({
      tracesUrl: 'http://c/v1/traces',
      metricsUrl: undefined,
    });
    expect(resolve({ url: 'http://c' }, { OTEL_TRACES_EXPORTER: 'none' })).toMatchObject({
      tracesUrl: undefined,
      metricsUrl: 'http://c/v1/metrics',
    });
    expect(resolve({ url: 'http://c' }, { OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' })).toBeUndefined();
    expect(resolve({ url: 'http://c' }, { OTEL_TRACES_EXPORTER: 'console,otlp' })?.warnings).toEqual([
      'OTEL_TRACES_EXPORTER=console,otlp: mcpscope exports OTLP only; console ignored.',
    ]);
  });

  it('reads the batch, timeout and metric interval settings, with the SDK defaults', () => {
    expect(resolve({ url: 'http://c' })).toMatchObject({
      scheduledDelayMs: 5000,
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
      exportTimeoutMs: 30000,
      metricIntervalMs: 60000,
      tracesTimeoutMs: undefined,
      metricsTimeoutMs: undefined,
      warnings: [],
    });
    const c = resolve(
      { url: 'http://c', bodies: true },
      {
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_BSP_MAX_QUEUE_SIZE: '64',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '128',
        OTEL_BSP_EXPORT_TIMEOUT: '900',
        OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
        OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '1500',
        OTEL_METRIC_EXPORT_INTERVAL: '10000',
      },
    );
    expect(c).toMatchObject({
      bodies: true,
      scheduledDelayMs: 100,
      maxQueueSize: 64,
      maxExportBatchSize: 64, // never above the queue size
      exportTimeoutMs: 900,
      tracesTimeoutMs: 1500,
      metricsTimeoutMs: 2000, // OTEL_EXPORTER_OTLP_TIMEOUT: the traces' own is not the metrics'
      metricIntervalMs: 10000,
    });
    expect(resolve({ url: 'http://c' }, { OTEL_EXPORTER_OTLP_TIMEOUT: '2000', OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: '700' })).toMatchObject({
      tracesTimeoutMs: 2000,
      metricsTimeoutMs: 700,
    });
    // Read for each signal, said once.
    expect(resolve({ url: 'http://c' }, { OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' })?.warnings).toEqual([
      'OTEL_EXPORTER_OTLP_TIMEOUT="soon" is not a positive number; using the default.',
    ]);
    const bad = resolve({ url: 'http://c' }, { OTEL_BSP_MAX_QUEUE_SIZE: 'lots' });
    expect(bad?.maxQueueSize).toBe(2048);
    expect(bad?.warnings[0]).toMatch(/OTEL_BSP_MAX_QUEUE_SIZE="lots" is not a positive number/);
  });
});

describe('resolveOtlpForCli (mcpscope, a stdio wrapper, mcpscope run)', () => {
  it('gives the configuration and the warnings to print', () => {
    const on = resolveOtlpForCli({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_EXPORTER: 'zipkin' });
    expect(on.config?.tracesUrl).toBe('http://c/v1/traces');
    expect(on.warnings).toEqual(['OTEL_TRACES_EXPORTER=zipkin: mcpscope exports OTLP only; zipkin ignored.']);
    expect(resolveOtlpForCli({}, {})).toEqual({ config: undefined, warnings: [] });
  });

  it('refuses --otlp-bodies with no endpoint', () => {
    expect(() => resolveOtlpForCli({ bodies: true }, {})).toThrow(OtlpOptionsError);
    expect(() => resolveOtlpForCli({ bodies: true }, {})).toThrow('--otlp-bodies needs an OTLP endpoint');
    expect(resolveOtlpForCli({ bodies: true }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }).config?.bodies).toBe(true);
  });
});

describe('signalUrl and displayUrl', () => {
  it('joins with exactly one slash', () => {
    expect(signalUrl('http://c:4318', 'traces')).toBe('http://c:4318/v1/traces');
    expect(signalUrl('http://c:4318/', 'metrics')).toBe('http://c:4318/v1/metrics');
    expect(signalUrl('http://c:4318/base', 'traces')).toBe('http://c:4318/base/v1/traces');
  });

  it('shows no credentials', () => {
    expect(displayUrl('https://user:secret@otel.example.com/v1/traces?api-key=abc')).toBe('https://otel.example.com/v1/traces');
  });

  it('shows the traces endpoint and protocol, else the metrics ones (otlpDisplay)', () => {
    const env = { OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json' };
    expect(otlpDisplay(resolve({ url: 'https://k:s@c/?key=1' }, env)!)).toEqual({
      endpoint: 'https://c/v1/traces',
      protocol: 'http/protobuf',
    });
    expect(otlpDisplay(resolve({ url: 'https://c' }, { ...env, OTEL_TRACES_EXPORTER: 'none' })!)).toEqual({
      endpoint: 'https://c/v1/metrics',
      protocol: 'http/json',
    });
  });
});
