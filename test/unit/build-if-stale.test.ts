/** scripts/build-if-stale.mjs: `prepare` (run by `npm install` and `npm install -g .`) builds only what is not built yet. */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error: a plain .mjs script, no types
import { inputsHash } from '../../scripts/build-if-stale.mjs';

const hash = inputsHash as (root: string) => string;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tree(): string {
  const root = mkdtempSync(join(tmpdir(), 'mcpscope-stale-'));
  dirs.push(root);
  for (const d of ['proxy', 'ui/src', 'bin', 'dist/proxy/app', 'node_modules/x', 'ui/node_modules/y'])
    mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"name":"mcpscope"}');
  writeFileSync(join(root, 'proxy/cli.ts'), 'export {};');
  writeFileSync(join(root, 'ui/src/App.tsx'), 'export {};');
  writeFileSync(join(root, 'bin/mcpscope.js'), '');
  return root;
}

describe('inputsHash', () => {
  it('changes with any source, config or lock file, and with nothing the build writes or installs', () => {
    const root = tree();
    const before = hash(root);
    expect(hash(root)).toBe(before);
    // What the build writes and what npm installs are not inputs.
    writeFileSync(join(root, 'dist/proxy/app/cli.js'), 'built');
    writeFileSync(join(root, 'node_modules/x/index.js'), 'dep');
    writeFileSync(join(root, 'ui/node_modules/y/index.js'), 'dep');
    expect(hash(root)).toBe(before);
    for (const [file, text] of [
      ['proxy/cli.ts', 'export const x = 1;'],
      ['ui/src/App.tsx', 'export const y = 1;'],
      ['package.json', '{"name":"mcpscope","version":"2"}'],
      ['package-lock.json', '{}'],
      ['proxy/new-module.ts', ''],
    ]) {
      const was = hash(root);
      writeFileSync(join(root, file), text);
      expect(hash(root), file).not.toBe(was);
    }
  });

  it('is what prepare runs, and npm run build stamps what it built', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.prepare).toBe('node scripts/build-if-stale.mjs');
    expect(pkg.scripts.build).toMatch(/&& node scripts\/build-if-stale\.mjs --stamp$/);
  });
});
