/** docs/fixture.schema.json compiled with ajv (draft 2020-12, strict), for tests. */
import Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';

export const FIXTURE_SCHEMA = JSON.parse(readFileSync(new URL('../../docs/fixture.schema.json', import.meta.url), 'utf8')) as Record<
  string,
  unknown
>;

/** RFC 3339 date-time (what `format: "date-time"` means), checked without an extra dependency. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

let compiled: ValidateFunction | undefined;
/** Validates a fixture against the published schema; the errors in one readable string, or undefined when valid. */
export function fixtureErrors(fixture: unknown): string | undefined {
  if (!compiled) {
    // allowUnionTypes: the schema uses `type: [...]` (valid JSON Schema that ajv's strict mode asks to confirm).
    const ajv = new Ajv2020.default({
      allErrors: true,
      allowUnionTypes: true,
      strict: true,
      strictRequired: false,
      formats: { 'date-time': (s: string) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)) },
    });
    compiled = ajv.compile(FIXTURE_SCHEMA);
  }
  if (compiled(fixture)) return undefined;
  return (compiled.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`).join('\n');
}
