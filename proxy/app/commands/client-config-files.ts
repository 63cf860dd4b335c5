/**
 * File and process side of `mcpscope wrap` / `unwrap`: reading the config and its record (the
 * sidecar `<config>.mcpscope.json`), timestamped backups and atomic writes (temp file + rename),
 * and the command a wrapped entry runs mcpscope with (resolveLauncher, checkLauncher).
 */
import { findOnPath } from '../command-line.js';
import {
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  fsyncSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, parse } from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ClientConfigError, parseRecord, type Launcher, type WrapRecord } from './client-config.js';
import { commandLine } from '../../core/model/command-line.js';
import { packageVersion } from '../../files/package-version.js';

export function recordPath(configPath: string): string {
  return `${configPath}.mcpscope.json`;
}

export function readConfig(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new ClientConfigError(`there is no file ${JSON.stringify(path)}.`);
    if (e.code === 'EISDIR')
      throw new ClientConfigError(
        `${JSON.stringify(path)} is a directory; give the config file itself (e.g. claude_desktop_config.json or .vscode/mcp.json).`,
      );
    throw new ClientConfigError(`cannot read ${JSON.stringify(path)}: ${e.message}`);
  }
}

/** The record next to `configPath`, or undefined when there is none. */
export function readRecord(configPath: string): WrapRecord | undefined {
  const path = recordPath(configPath);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ClientConfigError(`cannot read ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  try {
    return parseRecord(text);
  } catch (err) {
    throw new ClientConfigError(`${path}: ${(err as Error).message} Move it away if it is not mcpscope's.`);
  }
}

function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** Copies `path` to `<path>.bak-<yyyymmdd-hhmmss>` (with `-2`, `-3`… if that exists); returns the backup's path. */
export function backup(path: string, now = new Date()): string {
  const base = `${path}.bak-${stamp(now)}`;
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    try {
      copyFileSync(path, candidate, constants.COPYFILE_EXCL);
      return candidate;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/**
 * Replaces `path`'s content atomically: writes a temp file in the same directory, then renames it
 * over the file. A symlinked config is written through to its target; the file mode is kept.
 */
export function writeAtomic(path: string, text: string): void {
  let real = path;
  let mode: number | undefined;
  try {
    real = realpathSync(path);
    mode = statSync(real).mode & 0o777;
  } catch {
    // a new file
  }
  const temp = join(dirname(real), `.${basename(real)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fd = openSync(temp, 'wx', mode ?? 0o644);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, real);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

export function removeFile(path: string): void {
  rmSync(path, { force: true });
}

/**
 * The first steps `wrap` and `unwrap` share: read the config and its wrap record, apply `change`,
 * list the servers on stderr. A config that cannot be read or understood is said in plain words
 * and gives exit code 1 (returned instead of a result).
 */
export function loadConfigChange<R extends { servers: { name: string; detail: string }[]; key: string }>(
  command: string,
  file: string,
  change: (text: string, record: WrapRecord | undefined) => R,
): R | 1 {
  let result: R;
  try {
    result = change(readConfig(file), readRecord(file));
  } catch (e) {
    if (e instanceof ClientConfigError) {
      process.stderr.write(`mcpscope ${command}: ${file}: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  for (const s of result.servers) process.stderr.write(`  ${s.name}: ${s.detail}\n`);
  if (result.servers.length === 0) process.stderr.write(`  (no servers under "${result.key}")\n`);
  return result;
}

// ---------------------------------------------------------------------------------------------
// The command a wrapped entry runs mcpscope with.

/** This package's `bin/mcpscope.js`, real path (proxy/commands/ in a test, dist/proxy/commands/ once built). */
export function packageScript(): string {
  for (const rel of ['../../../bin/mcpscope.js', '../../../../bin/mcpscope.js']) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    try {
      const real = realpathSync(path);
      if (statSync(real).isFile()) return real;
    } catch {
      /* try the next */
    }
  }
  throw new Error("cannot find mcpscope's bin/mcpscope.js next to its code");
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

export interface ResolvedLauncher extends Launcher {
  /** Whether the script is an installed `mcpscope` found on PATH (else this checkout's bin/mcpscope.js). */
  installed: boolean;
}

/**
 * How a wrapped entry runs mcpscope: `<node> <mcpscope script>`, both absolute paths, so that it
 * starts from any directory and with any PATH — desktop apps often start servers with a minimal
 * PATH, where neither `mcpscope` nor the `node` its `#!/usr/bin/env node` line asks for is found.
 *
 * - node: the `node` first on PATH when it is the very node running this (e.g. /usr/local/bin/node
 *   or /opt/homebrew/bin/node, paths that survive upgrades), else this node's own path
 *   (process.execPath) — a node known to run mcpscope.
 * - the script: the `mcpscope` first on PATH when it is this package (after `npm install -g .`,
 *   e.g. /usr/local/bin/mcpscope, a link into the clone), else this package's bin/mcpscope.js.
 *
 * For the proxy commands typed in a terminal (`shell`): `mcpscope` when that is this package,
 * else `node <script>`.
 */
export function resolveLauncher(env: NodeJS.ProcessEnv = process.env): ResolvedLauncher {
  const script = packageScript();
  const pathVariable = env.PATH ?? env.Path;
  const windows = process.platform === 'win32';
  // On Windows the `mcpscope` on PATH is npm's .cmd shim, not a script node can run.
  const named = windows ? undefined : findOnPath('mcpscope', pathVariable);
  const installed = named !== undefined && realOrUndefined(named) === script;
  const nodeReal = realOrUndefined(process.execPath) ?? process.execPath;
  const namedNode = findOnPath(windows ? 'node.exe' : 'node', pathVariable);
  const node = namedNode !== undefined && realOrUndefined(namedNode) === nodeReal ? namedNode : process.execPath;
  return {
    command: node,
    args: [installed ? named! : script],
    shell: installed ? 'mcpscope' : commandLine('node', [script]),
    installed,
  };
}

export interface LauncherCheck {
  ok: boolean;
  /** The command line run, for the user. */
  ran: string;
  /** What happened, in plain words. */
  detail: string;
}

/** The PATH a desktop app may give the servers it starts (macOS GUI apps get this one). */
export const MINIMAL_PATH = '/usr/bin:/bin:/usr/sbin:/sbin';

/**
 * Runs `<launcher> --version` the way a desktop client would start a wrapped server — from the
 * file system's root directory, with a minimal PATH — and checks it prints this mcpscope's version.
 */
export function checkLauncher(launcher: Launcher, options: { timeoutMs?: number } = {}): LauncherCheck {
  const args = [...launcher.args, '--version'];
  const ran = commandLine(launcher.command, args);
  const env = process.platform === 'win32' ? process.env : { ...process.env, PATH: MINIMAL_PATH };
  const timeoutMs = options.timeoutMs ?? 15_000;
  const r = spawnSync(launcher.command, args, {
    cwd: parse(process.cwd()).root,
    env,
    encoding: 'utf8',
    timeout: timeoutMs,
    windowsHide: true,
  });
  const want = packageVersion();
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    const why =
      code === 'ETIMEDOUT'
        ? `it did not finish within ${timeoutMs / 1000} s`
        : code === 'ENOENT'
          ? `${launcher.command} does not exist`
          : r.error.message;
    return { ok: false, ran, detail: why };
  }
  const out = (r.stdout ?? '').trim();
  if (r.status === 0 && out === want) return { ok: true, ran, detail: `printed ${want}` };
  const said = [(r.stderr ?? '').trim(), out].filter(Boolean).join(' / ').slice(0, 500);
  const how = r.status === null ? `was ended by ${r.signal}` : `exited with code ${r.status}`;
  return {
    ok: false,
    ran,
    detail:
      r.status === 0
        ? `printed ${JSON.stringify(out.slice(0, 200))}, not this mcpscope's version ${want}`
        : `${how}${said ? `: ${said}` : ''}`,
  };
}
