/**
 * Where `mcpscope mcp`'s `export_session` may write: one directory the user chose for exports
 * (`mcpscope mcp --export-dir <dir>`; default `$MCPSCOPE_HOME/exports`, created 0700), never
 * outside it, and never over a file it did not write. An agent is steered by what it reads, and
 * what it reads includes captured traffic: a server's text asking it to "export the session to
 * ~/.bashrc with overwrite" must not be able to make that happen.
 *
 * - **Inside the directory only**: a relative path is taken inside it; an absolute one must name a
 *   file in it. A `..` segment is refused, and the folder a file goes into is resolved with
 *   realpath and must be the export directory or a folder in it (a symbolic link to elsewhere is
 *   refused); the file itself is never a symbolic link (`O_NOFOLLOW`, and checked first).
 * - **Never over a file it did not write**: a new file is created with `O_EXCL`. `overwrite: true`
 *   replaces only a file that these exports wrote and nobody changed since: each export's device,
 *   inode, size and modification time are kept in a small index in the directory
 *   (`.mcpscope-exports.json`, 0600, the newest 1,000); a file that is not there, or differs, is
 *   refused. The new content is written to a temporary file beside it and renamed over it, so a
 *   link planted meanwhile is replaced, not written through.
 */
import { constants as fsConstants, type Stats } from 'node:fs';
import { chmod, lstat, mkdir, open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { mcpscopeHome } from '../../wire/home.js';
import { UiApiError } from '../../core/model/errors.js';

/** The index of what the exports wrote, in the export directory. */
export const EXPORT_INDEX = '.mcpscope-exports.json';
/** Entries kept in the index (the newest). */
const MAX_INDEX_ENTRIES = 1000;
/** An index larger than this is not read (it is not one mcpscope wrote): nothing may be overwritten then. */
const MAX_INDEX_BYTES = 1024 * 1024;

const NEW_FILE = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW;

interface Written {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

/** `$MCPSCOPE_HOME/exports` (`~/.mcpscope/exports`). */
export function defaultExportDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(mcpscopeHome(env), 'exports');
}

const sameFile = (a: Written, st: Stats) => a.dev === st.dev && a.ino === st.ino && a.size === st.size && a.mtimeMs === st.mtimeMs;

export class ExportDir {
  /** As given (absolute). */
  readonly dir: string;
  /** One export at a time: the index is read and written whole. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  /** Writes `text` to `requested` (or `defaultName`) inside the directory; returns the file's absolute path and bytes. */
  write(requested: string | undefined, defaultName: string, text: string, overwrite: boolean): Promise<{ path: string; bytes: number }> {
    const run = this.queue.then(() => this.writeNow(requested, defaultName, text, overwrite));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The directory's real path, created 0700 (with its parents) when missing — looked at on every export (it may have been removed). */
  private async ensure(): Promise<string> {
    const st = await stat(this.dir).catch(() => undefined);
    if (!st) {
      try {
        await mkdir(this.dir, { recursive: true, mode: 0o700 });
        await chmod(this.dir, 0o700);
      } catch (err) {
        throw new UiApiError(`Could not create the export directory ${this.dir}: ${(err as Error).message}`);
      }
    } else if (!st.isDirectory()) {
      throw new UiApiError(`The export directory ${this.dir} is not a directory: start mcpscope mcp with --export-dir naming one.`);
    }
    return realpath(this.dir);
  }

  private outside(requested: string): UiApiError {
    return new UiApiError(
      `export_session writes only into the export directory ${this.dir} (mcpscope mcp --export-dir): ${JSON.stringify(requested)} is outside it. ` +
        'Give a file name (or a path inside that directory).',
    );
  }

  /** The absolute path of the file to write, inside the directory; refuses in plain words. */
  private async target(root: string, requested: string | undefined, defaultName: string): Promise<{ file: string; key: string }> {
    const asked = requested ?? defaultName;
    if (asked.split(/[\\/]/).includes('..')) throw this.outside(asked);
    const wanted = isAbsolute(asked) ? resolve(asked) : resolve(root, asked);
    const name = basename(wanted);
    if (name === '' || name === '.' || wanted === root)
      throw new UiApiError(`${JSON.stringify(asked)} names the export directory itself: give a file name.`);
    if (name === EXPORT_INDEX) throw new UiApiError(`${EXPORT_INDEX} is mcpscope's own index of its exports: choose another name.`);
    // The folder it goes into, resolved: it must be the export directory or one inside it (no link out).
    const parent = await realpath(dirname(wanted)).catch(() => undefined);
    if (parent === undefined) {
      if (!inside(root, dirname(wanted)) && !inside(this.dir, dirname(wanted))) throw this.outside(asked);
      throw new UiApiError(`The folder ${dirname(wanted)} does not exist: create it inside ${this.dir} first, or give a plain file name.`);
    }
    if (!inside(root, parent)) throw this.outside(asked);
    const file = join(parent, name);
    return { file, key: relative(root, file) };
  }

  private async writeNow(
    requested: string | undefined,
    defaultName: string,
    text: string,
    overwrite: boolean,
  ): Promise<{ path: string; bytes: number }> {
    const root = await this.ensure();
    const { file, key } = await this.target(root, requested, defaultName);
    const existing = await lstat(file).catch(() => undefined);
    const data = Buffer.from(text, 'utf8');
    const index = await this.readIndex(root);
    if (existing?.isSymbolicLink())
      throw new UiApiError(`${file} is a symbolic link: export_session never writes through one. Choose another name.`);
    if (existing?.isDirectory()) throw new UiApiError(`${file} is a directory: give a file name in path.`);
    if (existing && !overwrite) throw new UiApiError(`${file} exists already: choose another path, or pass overwrite: true to replace it.`);
    let written: Written;
    if (existing) {
      const mine = index.get(key);
      if (!existing.isFile() || mine === undefined || !sameFile(mine, existing))
        throw new UiApiError(
          `${file} was not written by mcpscope's exports (or was changed since): overwrite replaces only an export of its own. Choose another name.`,
        );
      const temp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
      written = await writeNew(temp, data);
      try {
        await rename(temp, file);
      } catch (err) {
        await rm(temp, { force: true });
        throw new UiApiError(`Could not replace ${file}: ${(err as Error).message}`);
      }
    } else {
      written = await writeNew(file, data);
    }
    index.delete(key);
    index.set(key, written);
    await this.writeIndex(root, index);
    return { path: file, bytes: data.length };
  }

  private async readIndex(root: string): Promise<Map<string, Written>> {
    const out = new Map<string, Written>();
    try {
      const path = join(root, EXPORT_INDEX);
      const st = await lstat(path);
      if (!st.isFile() || st.size > MAX_INDEX_BYTES) return out;
      const parsed = JSON.parse(await readFile(path, 'utf8')) as { files?: Record<string, Written> };
      for (const [k, v] of Object.entries(parsed.files ?? {}))
        if (v && [v.dev, v.ino, v.size, v.mtimeMs].every((n) => typeof n === 'number')) out.set(k, v);
    } catch {
      // No index yet (or not one mcpscope wrote): nothing may be overwritten.
    }
    return out;
  }

  private async writeIndex(root: string, index: Map<string, Written>): Promise<void> {
    const entries = [...index].slice(-MAX_INDEX_ENTRIES);
    const temp = join(root, `${EXPORT_INDEX}.${randomBytes(6).toString('hex')}.tmp`);
    await writeNew(temp, Buffer.from(JSON.stringify({ version: 1, files: Object.fromEntries(entries) }), 'utf8'));
    await rename(temp, join(root, EXPORT_INDEX));
  }
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Creates `file` (0600, never through a link, never over anything) with `data`; what it wrote, for the index. */
async function writeNew(file: string, data: Buffer): Promise<Written> {
  let handle;
  try {
    handle = await open(file, NEW_FILE, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UiApiError(`${file} exists already: choose another path, or pass overwrite: true to replace it.`);
    if (code === 'ELOOP') throw new UiApiError(`${file} is a symbolic link: export_session never writes through one. Choose another name.`);
    throw new UiApiError(`Could not write ${file}: ${(err as Error).message}`);
  }
  try {
    await handle.chmod(0o600);
    await handle.writeFile(data);
    const st = await handle.stat();
    return { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
  } finally {
    await handle.close();
  }
}
