/**
 * What checking a value against a tool's schema costs the main thread (proxy/core/lint/tool-schemas.ts,
 * issue 26): per check, for the shapes real servers send and for one that needs the time guard.
 *   npx tsx bench/lint-checks.ts
 * Prints µs of CPU per check (after 2,000 untimed ones) and how many of them ran under the guard.
 * For docs/performance.md ("Spec linting"); not part of `npm run bench`.
 */
import { ToolSchemas } from '../proxy/core/lint/tool-schemas.js';

const cases: [string, object, (i: number) => unknown][] = [
  ['input {text}', { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, (i) => ({ text: `hello ${i}` })],
  [
    'output with a pattern',
    { type: 'object', properties: { text: { type: 'string', pattern: '^hello [0-9]+$' }, at: { type: 'string' } }, required: ['text'] },
    (i) => ({ text: `hello ${i}`, at: 'x' }),
  ],
  [
    'output with format date-time',
    { type: 'object', properties: { text: { type: 'string' }, at: { type: 'string', format: 'date-time' } }, required: ['text'] },
    (i) => ({ text: `hello ${i}`, at: '2026-12-01T10:00:00Z' }),
  ],
  [
    'output with format uri',
    { type: 'object', properties: { at: { type: 'string', format: 'uri' } } },
    () => ({ at: 'https://example.com/a/b?c=d' }),
  ],
  [
    'pydantic $defs and $ref',
    {
      $defs: { I: { type: 'object', properties: { name: { type: 'string' }, n: { type: 'integer' } } } },
      type: 'object',
      properties: { items: { type: 'array', items: { $ref: '#/$defs/I' } } },
    },
    (i) => ({
      items: [
        { name: 'a', n: i },
        { name: 'b', n: 2 },
      ],
    }),
  ],
  ['format duration (guarded)', { type: 'object', properties: { d: { type: 'string', format: 'duration' } } }, () => ({ d: 'P1DT2H' })],
];

const checker = new ToolSchemas();
for (const [name, schema, value] of cases) {
  for (let i = 0; i < 2_000; i++) checker.check(schema, value(i), '/a');
  const guarded = checker.guarded;
  const n = name.includes('guarded') ? 20_000 : 100_000;
  const t = process.cpuUsage();
  for (let i = 0; i < n; i++) checker.check(schema, value(i), '/a');
  const c = process.cpuUsage(t);
  console.log(`${name}: ${((c.user + c.system) / n).toFixed(2)} µs per check (${checker.guarded - guarded} of ${n} under the guard)`);
}
