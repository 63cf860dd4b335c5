/**
 * The stdio wrapper's relay thread loads nothing that records (issue 26, finding 1): walking the
 * imports from proxy/app/stdio/stdio-wrapper.ts (static and `import()`, types aside) reaches no recorder, store, linter,
 * UI server, export or telemetry module, and not mcpscope.ts — those load on the recorder thread
 * (recorder-worker.ts), which the relay starts by file name only.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Every module the relay's entry loads, transitively (relative imports, `import()` included; `import type` and `export type` skipped). */
function loaded(entry: string): Set<string> {
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const statics = [...text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?'(\.[^']+)'/gm)];
    // import(): loaded later, but on the same thread all the same.
    const dynamics = [...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)];
    for (const m of [...statics, ...dynamics]) walk(resolve(dirname(file), m[1].replace(/\.js$/, '.ts')));
  };
  walk(join(ROOT, entry));
  return new Set([...seen].map((f) => relative(ROOT, f)));
}

describe('the stdio relay thread', () => {
  it('loads no recorder, store, linter, server, export or telemetry module', () => {
    const modules = [...loaded('proxy/app/stdio/stdio-wrapper.ts')];
    expect(modules).toContain('proxy/app/stdio/stdio-holds.ts');
    expect(modules).toContain('proxy/wire/capture/capture-queue.ts');
    const forbidden = modules.filter(
      (m) =>
        /^proxy\/(recorder|core\/lint|core\/correlate|core\/annotate|files|addons\/telemetry)\//.test(m) ||
        m === 'proxy/app/mcpscope.ts' ||
        /^proxy\/app\/serve\/(?!discovery\.ts$)/.test(m) ||
        /^proxy\/app\/stdio\/(ingest-link|ingest-client|ship-redaction|stdio-log|recorder-worker)\.ts$/.test(m),
    );
    expect(forbidden).toEqual([]);
  });
});
