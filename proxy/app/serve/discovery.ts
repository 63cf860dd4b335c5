/**
 * How a stdio wrapper (and `mcpscope run`, and `mcpscope mcp`) finds the token of the mcpscope UI
 * already running on a port.
 *
 * A desktop client launches `mcpscope -- <server>` without knowing the UI's random token, so
 * an mcpscope that serves a UI writes `ui-<port>.json` (`{ token, pid, url }`) into its home
 * directory — `$MCPSCOPE_HOME`, else `~/.mcpscope` — created 0700, the file 0600, and removes it
 * when it closes (only while the file is still its own). The readers use it.
 *
 * Whoever can write that file chooses where the readers send their traffic and which token they
 * present, so a reader trusts it only when nobody else could have written it (`inspectDiscovery`):
 * a regular file (a symlink is not followed: O_NOFOLLOW), owned by this user, writable by nobody
 * else, in a home directory owned by this user and writable by nobody else, naming a process that
 * runs and is this user's (`process.kill(pid, 0)` succeeds; EPERM is another user's process). A
 * file whose process is gone is stale: it is removed (it is ours, or it would not have got this
 * far). Every refusal comes with a plain-words reason for the callers that print one.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { mcpscopeHome } from '../../wire/home.js';

export interface DiscoveryFile {
  token: string;
  pid: number;
  /** The UI's URL, without the token. */
  url: string;
  /** The forward proxy this mcpscope serves (`--forward`), for `mcpscope run` to use: http://127.0.0.1:<port>. */
  forwardProxy?: string;
}

/** What a reader found: the file, or why there is none it may use (`reason`: plain words, no trailing period). */
export type DiscoveryLookup = { ok: true; file: DiscoveryFile; path: string } | { ok: false; path: string; reason: string; missing?: true };

/** The system calls the checks use; tests inject them (a non-root user cannot chown, root's kill(1, 0) succeeds). */
export interface DiscoveryChecks {
  /** The user who may have written the file (undefined: no such notion here, as on Windows). */
  uid?: number;
  /** stat(2) of the home directory (follows a symlink: what counts is the directory it names). */
  statDir(path: string): Stats;
  /** Opens the file without following a symlink and returns its fstat and text. */
  readFile(path: string): { stats: Stats; text: string };
  lstat(path: string): Stats;
  /** `process.kill(pid, 0)`. */
  kill(pid: number): void;
  unlink(path: string): void;
}

export function discoveryPath(port: number, env: NodeJS.ProcessEnv = process.env): string {
  return join(mcpscopeHome(env), `ui-${port}.json`);
}

/** O_NOFOLLOW where the platform has it (not on Windows, where a symlink needs privileges to make). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

export const systemChecks: DiscoveryChecks = {
  uid: typeof process.getuid === 'function' ? process.getuid() : undefined,
  statDir: (path) => statSync(path),
  readFile(path) {
    // Non-blocking, and read only once it is known to be a regular file: a FIFO put there would block the reader for ever.
    const fd = openSync(path, constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0));
    try {
      const stats = fstatSync(fd);
      return { stats, text: stats.isFile() ? readFileSync(fd, 'utf8') : '' };
    } finally {
      closeSync(fd);
    }
  },
  lstat: (path) => lstatSync(path),
  kill: (pid) => void process.kill(pid, 0),
  unlink: (path) => unlinkSync(path),
};

/** The user's, and writable by nobody else. */
function ownedAndPrivate(stats: Stats, uid: number | undefined): string | undefined {
  if (uid === undefined) return undefined;
  if (stats.uid !== uid) return `it belongs to user ${stats.uid}, not to this user (${uid})`;
  if ((stats.mode & 0o022) !== 0) return `others can write it (mode ${(stats.mode & 0o777).toString(8).padStart(4, '0')})`;
  return undefined;
}

/**
 * Whether `pid` is a running process of this user: `kill(pid, 0)` succeeds. EPERM means it runs but
 * belongs to someone else — not ours, so not alive for us; ESRCH, it is gone.
 */
export function processAlive(pid: number, kill: (pid: number) => void = systemChecks.kill): 'ours' | 'foreign' | 'gone' {
  if (!Number.isInteger(pid) || pid <= 0) return 'gone';
  try {
    kill(pid);
    return 'ours';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? 'foreign' : 'gone';
  }
}

/** The discovery file of the UI on `port`, checked (see the top of this file), or why it is not used. */
export function inspectDiscovery(
  port: number,
  env: NodeJS.ProcessEnv = process.env,
  checks: DiscoveryChecks = systemChecks,
): DiscoveryLookup {
  const home = mcpscopeHome(env);
  const path = discoveryPath(port, env);
  const refuse = (reason: string, missing?: true): DiscoveryLookup => ({ ok: false, path, reason, ...(missing ? { missing } : {}) });
  let dir: Stats;
  try {
    dir = checks.statDir(home);
  } catch {
    return refuse(`there is no discovery file ${path}`, true);
  }
  if (!dir.isDirectory()) return refuse(`${home} is not a directory`);
  const dirProblem = ownedAndPrivate(dir, checks.uid);
  if (dirProblem) return refuse(`its directory ${home} cannot be trusted: ${dirProblem}`);
  let read: { stats: Stats; text: string };
  try {
    read = checks.readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return refuse(`there is no discovery file ${path}`, true);
    if (code === 'ELOOP') return refuse(`${path} is a symbolic link, not a file mcpscope wrote`);
    return refuse(`${path} cannot be read (${(err as Error).message})`);
  }
  if (!read.stats.isFile()) return refuse(`${path} is not a regular file`);
  const fileProblem = ownedAndPrivate(read.stats, checks.uid);
  if (fileProblem) return refuse(`${path} cannot be trusted: ${fileProblem}`);
  let v: Partial<DiscoveryFile>;
  try {
    v = JSON.parse(read.text) as Partial<DiscoveryFile>;
  } catch {
    return refuse(`${path} is not JSON`);
  }
  if (!v || typeof v !== 'object' || typeof v.token !== 'string' || v.token === '') return refuse(`${path} holds no token`);
  const pid = Number(v.pid);
  const state = processAlive(pid, checks.kill);
  if (state === 'foreign') return refuse(`${path} names process ${pid}, which belongs to another user`);
  if (state === 'gone') {
    // Stale (its mcpscope was killed): remove it, unless another mcpscope replaced it since we read it.
    try {
      const now = checks.lstat(path);
      if (now.ino === read.stats.ino && now.dev === read.stats.dev) checks.unlink(path);
    } catch {
      /* gone already */
    }
    return refuse(`${path} was stale (process ${Number.isFinite(pid) ? pid : '?'} is not running) and was removed`);
  }
  return {
    ok: true,
    path,
    file: {
      token: v.token,
      pid,
      url: String(v.url ?? ''),
      ...(typeof v.forwardProxy === 'string' ? { forwardProxy: v.forwardProxy } : {}),
    },
  };
}

/** The discovery file of the UI on `port`, if there is one that passes the checks (`inspectDiscovery` says why not). */
export function readDiscovery(port: number, env: NodeJS.ProcessEnv = process.env): DiscoveryFile | undefined {
  const found = inspectDiscovery(port, env);
  return found.ok ? found.file : undefined;
}

/**
 * Announces the UI on `port`. Returns the function that removes the file again — only if it still
 * names this process and token (another mcpscope may have taken the port over since).
 */
export function writeDiscovery(
  port: number,
  info: { token: string; url: string; forwardProxy?: string },
  env: NodeJS.ProcessEnv = process.env,
): () => void {
  const dir = mcpscopeHome(env);
  const file = discoveryPath(port, env);
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is filtered by the umask: set it exactly on the directory we created.
  if (created !== undefined) chmodSync(dir, 0o700);
  const content: DiscoveryFile = {
    token: info.token,
    pid: process.pid,
    url: info.url,
    ...(info.forwardProxy ? { forwardProxy: info.forwardProxy } : {}),
  };
  // A fresh name, created exclusively: nothing planted there (a symlink) is followed.
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(content)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    removeOwnDiscovery(port, info.token, env);
  };
}

/**
 * Removes `ui-<port>.json` if it names this process and `token` (a stdio wrapper whose UI thread
 * had to be stopped cleans up after it this way).
 */
export function removeOwnDiscovery(port: number, token: string, env: NodeJS.ProcessEnv = process.env): void {
  const file = discoveryPath(port, env);
  let current: Partial<DiscoveryFile>;
  try {
    if (!lstatSync(file).isFile()) return;
    current = JSON.parse(readFileSync(file, 'utf8')) as Partial<DiscoveryFile>;
  } catch {
    return;
  }
  if (current.pid === process.pid && current.token === token) {
    try {
      unlinkSync(file);
    } catch {
      /* already gone */
    }
  }
}
