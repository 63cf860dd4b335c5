/**
 * `--otlp`: spans and MCP metrics exported over OTLP (docs/team-setup.md), a store subscriber on
 * the main thread. OpenTelemetry's SDK is loaded with import() here only when export is
 * configured. An export that cannot start says so and the launch goes on without it; it runs
 * before the UI listens, so /api/stats has `telemetry` from its first answer.
 */
import type { EventStore } from '../../recorder/store/event-store.js';
import type { McpscopeAddon } from '../addon.js';
import type { OtlpConfig, TelemetryStats } from './otlp-options.js';
import type { OtlpExport } from './otlp-exporter.js';

export interface TelemetryAddon extends McpscopeAddon {
  /** The export's counts, once it runs (undefined before, or when it could not start). */
  readonly export: { stats(): TelemetryStats } | undefined;
}

export function telemetryAddon(o: {
  store: EventStore;
  config: OtlpConfig;
  token: string;
  onNotice?: (line: string) => void;
}): TelemetryAddon {
  let running: OtlpExport | undefined;
  return {
    name: 'telemetry',
    get export() {
      return running;
    },
    async start() {
      try {
        const [{ startOtlpExport }, { exportRedactor }] = await Promise.all([
          import('./otlp-exporter.js'),
          import('../../files/export/export-common.js'),
        ]);
        running = await startOtlpExport(o.store, o.config, { redactor: exportRedactor({ token: o.token }), onNotice: o.onNotice });
      } catch (err) {
        process.emitWarning(`mcpscope: OpenTelemetry export could not start, nothing is exported: ${(err as Error).message}`);
      }
    },
    // Flushes what is left, for 2 s at most: a collector that is down or slow never holds the exit.
    close: ({ launchFailed }) => running?.close(launchFailed ? 0 : 2000),
  };
}
