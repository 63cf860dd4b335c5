/**
 * docs/architecture.md's "Layers" table is the map of proxy/: every folder of the tree (down to an
 * addon's wire/ folder) has a row, and every row names a folder that exists. And every source file
 * the docs name by its path (`proxy/…/x.ts`) exists.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every folder under proxy/, as `proxy/a/b/`. */
function folders(dir = 'proxy/'): string[] {
  return readdirSync(ROOT + dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => [`${dir}${d.name}/`, ...folders(`${dir}${d.name}/`)]);
}

/** The first cells of the Layers table's rows. */
export function documentedFolders(doc: string): string[] {
  const start = doc.indexOf('\n## Layers\n');
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  const table = section.slice(0, section.indexOf('\n### ') === -1 ? undefined : section.indexOf('\n### '));
  return [...table.matchAll(/^\| `(proxy\/[^`]*)` \|/gm)].map((m) => m[1]!);
}

describe('docs/architecture.md, Layers', () => {
  const doc = readFileSync(ROOT + 'docs/architecture.md', 'utf8');
  const listed = documentedFolders(doc);

  it('lists every folder of proxy/, and only folders that exist', () => {
    expect(listed.length).toBeGreaterThan(20);
    expect([...listed].sort()).toEqual(folders().sort());
  });

  it('has at most 8 top-level folders in proxy/ and no loose file there', () => {
    const top = readdirSync(ROOT + 'proxy', { withFileTypes: true });
    expect(top.filter((d) => !d.isDirectory()).map((d) => d.name)).toEqual([]);
    expect(top.length).toBeLessThanOrEqual(8);
  });

  it('reads a table the way the check above does (a row missing or extra is seen)', () => {
    const sample = '## Layers\n\n| Folder | x |\n|---|---|\n| `proxy/a/` | y |\n| `proxy/b/` | z |\n\n### More\n| `proxy/c/` | no |\n';
    expect(documentedFolders('\n' + sample)).toEqual(['proxy/a/', 'proxy/b/']);
  });
});

/** Every `proxy/….ts(x)` path a text names (not as the tail of a longer path). */
export function namedSourcePaths(text: string): string[] {
  return [...text.matchAll(/(?<![\w/.-])proxy\/[a-z0-9-]+(?:\/[a-z0-9-]+)*\.tsx?(?![\w])/g)].map((m) => m[0]);
}

describe('source paths in docs/ and README.md', () => {
  it('name files that exist', () => {
    const docs = [
      'README.md',
      ...readdirSync(ROOT + 'docs')
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const missing = docs.flatMap((d) =>
      namedSourcePaths(readFileSync(ROOT + d, 'utf8'))
        .filter((p) => !existsSync(ROOT + p))
        .map((p) => `${d}: ${p}`),
    );
    expect(missing).toEqual([]);
    expect(docs.reduce((n, d) => n + namedSourcePaths(readFileSync(ROOT + d, 'utf8')).length, 0)).toBeGreaterThan(50);
  });

  it('reads paths the way the check above does', () => {
    expect(namedSourcePaths('see `proxy/app/cli.ts`, wire/forward-proxy/ca.ts and (proxy/core/model/events.ts).')).toEqual([
      'proxy/app/cli.ts',
      'proxy/core/model/events.ts',
    ]);
  });
});
