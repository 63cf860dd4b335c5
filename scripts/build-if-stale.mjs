#!/usr/bin/env node
/**
 * The `prepare` script: builds dist/ (`npm run build`: tsc and vite) unless it is already built
 * from exactly these sources. `npm install` runs `prepare`, and so does `npm install -g .` for the
 * folder it links — which used to rebuild everything (over a minute) right after `npm install` had
 * built it. The build's inputs (every file of proxy/, ui/ and bin/, the tsconfigs, package.json and
 * package-lock.json) are hashed; the hash of the last build is kept in dist/.build-inputs, written
 * only after a build that succeeded. Same hash and the outputs there: nothing to do (≈ 0.1 s).
 *
 *   node scripts/build-if-stale.mjs           build if stale
 *   node scripts/build-if-stale.mjs --check   exit 0 if up to date, 1 if a build is needed
 *   node scripts/build-if-stale.mjs --stamp   record the sources as built (the end of `npm run build`)
 *
 * Works from any directory. `npm run build` always builds, and stamps what it built.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(ROOT, 'dist', '.build-inputs');
const OUTPUTS = ['dist/proxy/app/cli.js', 'dist/proxy/app/mcpscope.js', 'dist/ui/index.html'];
const SKIP = new Set(['node_modules', 'dist', '.git']);

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (SKIP.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.isFile()) yield p;
  }
}

/** sha256 over the build's inputs: each file's path and contents. */
export function inputsHash(root = ROOT) {
  const h = createHash('sha256');
  const top = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'].map((f) => join(root, f));
  const all = [...top.filter((f) => existsSync(f)), ...['proxy', 'ui', 'bin'].flatMap((d) => [...files(join(root, d))])];
  for (const f of all) {
    h.update(relative(root, f)).update('\0').update(readFileSync(f)).update('\0');
  }
  return h.digest('hex');
}

function upToDate(hash) {
  if (!OUTPUTS.every((f) => existsSync(join(ROOT, f)))) return false;
  try {
    return readFileSync(STAMP, 'utf8').trim() === hash;
  } catch {
    return false;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const hash = inputsHash();
  if (process.argv.includes('--stamp')) {
    writeFileSync(STAMP, `${hash}\n`);
    process.exit(0);
  }
  if (upToDate(hash)) {
    process.stderr.write(`mcpscope: dist/ is already built from these sources (${Date.now() - started} ms to check); nothing to build.\n`);
    process.exit(0);
  }
  if (process.argv.includes('--check')) {
    process.stderr.write('mcpscope: dist/ is not built from these sources: run npm run build.\n');
    process.exit(1);
  }
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['run', 'build'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(r.status ?? 1);
}
