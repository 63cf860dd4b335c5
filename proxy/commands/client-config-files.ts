/**
 * File side of `mcpscope wrap` / `unwrap`: reading the config and its record (the sidecar
 * `<config>.mcpscope.json`), timestamped backups and atomic writes (temp file + rename).
 */
import { chmodSync, closeSync, constants, copyFileSync, fsyncSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ClientConfigError, parseRecord, type WrapRecord } from './client-config.js';

export function recordPath(configPath: string): string {
  return `${configPath}.mcpscope.json`;
}

export function readConfig(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new ClientConfigError(`there is no file ${JSON.stringify(path)}.`);
    if (e.code === 'EISDIR') throw new ClientConfigError(`${JSON.stringify(path)} is a directory; give the config file itself (e.g. claude_desktop_config.json or .vscode/mcp.json).`);
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

