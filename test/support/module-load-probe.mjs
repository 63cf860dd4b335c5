// `node --import <this file> …`: records every module URL the process resolves whose URL contains
// $MCPSCOPE_LOAD_PROBE_MATCH (one per line, appended to the file $MCPSCOPE_LOAD_PROBE). Used to show
// that a module is, or is not, loaded (test/e2e/otlp-export.test.ts: OpenTelemetry without an endpoint).
import { register } from 'node:module';

register('./module-load-hooks.mjs', import.meta.url, {
  data: { file: process.env.MCPSCOPE_LOAD_PROBE, match: process.env.MCPSCOPE_LOAD_PROBE_MATCH },
});
