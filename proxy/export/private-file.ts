/**
 * The files mcpscope appends what it recorded to (`--record`, `--log`): opened for append, created
 * 0600, and an existing one that others could read narrowed to 0600 (with a warning) — they hold
 * the traffic, redacted or not.
 */
import { fchmodSync, fstatSync, openSync } from 'node:fs';

/**
 * Opens `path` for append (creating it 0600) and returns its descriptor. `what` names it in the
 * plain-words error thrown when it cannot be opened, and in the warning when its mode was narrowed.
 */
export function openPrivateAppend(path: string, what: string, warn: (text: string) => void = (t) => process.emitWarning(t)): number {
  let fd: number;
  try {
    fd = openSync(path, 'a', 0o600);
  } catch (err) {
    throw new Error(`cannot open the ${what} ${JSON.stringify(path)} for writing: ${(err as Error).message}`);
  }
  try {
    const mode = fstatSync(fd).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      fchmodSync(fd, 0o600);
      warn(`mcpscope: the ${what} ${path} was readable by others (mode ${mode.toString(8)}); it is 0600 now.`);
    }
  } catch {
    /* not ours to change (another user's file we may append to): left as it is */
  }
  return fd;
}
