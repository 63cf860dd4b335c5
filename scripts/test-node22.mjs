#!/usr/bin/env node
// `npm run test:node22`: the whole vitest suite on Node 22, whatever Node runs npm. Node 22 comes
// from npm's node-<platform>-<arch>@22 package (a registry package shipping the official binary),
// installed once into a cache folder — no system install — and put first on PATH, so every
// process the tests start (process.execPath, `node` by name) is Node 22 too. Builds dist/ first
// with the Node at hand, as `npm test` does. Extra arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAJOR = 22;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cache = process.env.MCPSCOPE_NODE22_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mcpscope-node22');
const pkg = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
const pkgDir = join(cache, 'node_modules', pkg);
const bin = join(pkgDir, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
const run = (cmd, args, options = {}) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...options });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

const version = () => {
  try {
    return JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
};
if (!existsSync(bin) || !String(version()).startsWith(`${MAJOR}.`)) {
  console.log(`Installing ${pkg}@${MAJOR} into ${cache} (once; reused afterwards)…`);
  mkdirSync(cache, { recursive: true });
  run(
    npm[0],
    [...npm.slice(1), 'install', '--prefix', cache, '--no-save', '--no-audit', '--no-fund', '--loglevel', 'error', `${pkg}@${MAJOR}`],
    { cwd: cache },
  );
}
console.log(`Node ${spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim()} from ${bin}`);
run(npm[0], [...npm.slice(1), 'run', 'build'], { cwd: root });
const env = { ...process.env, PATH: `${dirname(bin)}${delimiter}${process.env.PATH ?? ''}` };
run(bin, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)], { cwd: root, env });
