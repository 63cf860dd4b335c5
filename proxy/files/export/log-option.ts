/**
 * Where `--log <path>` writes. The option itself — `--log` alone or `--log -` for stdout, `--log
 * <file>`, `--log=<file>` for a name starting with "-", `--log-format text|json` — is read with
 * every other option from the option table (proxy/app/cli-options.ts, an `optional` value).
 *
 * `openLogFile` is here, away from the log writer and the recorder it needs: a stdio wrapper
 * opens its log file before it starts the server, and loads nothing else for it until then.
 */
import { closeSync, constants, openSync, statSync, type Stats } from 'node:fs';
import { isatty } from 'node:tty';
import { openPrivateAppend } from './private-file.js';

/**
 * Opens where `--log <path>` writes: a file for append, 0600 (narrowing an existing file others
 * could read; refusing what it cannot keep private: proxy/files/export/private-file.ts), or a terminal.
 * A terminal (`--log /dev/stderr` or `/dev/stdout` on one, `/dev/tty`) is where the log is shown,
 * not a file mcpscope keeps — as `--log` on stdout is — so it is opened as it is, through a link,
 * never created and never narrowed (a terminal's mode is its owner's `mesg`; the checks before
 * would have made it 0600, or refused /dev/stderr as a link). A pipe is refused in words of its
 * own (a link to one would be called a link), and so is any other device. Throws a plain-words error.
 */
export function openLogFile(path: string, warn?: (text: string) => void): number {
  let st: Stats | undefined;
  try {
    st = statSync(path);
  } catch {
    // Not there (it is made), or unreachable: openPrivateAppend says which.
  }
  if (st?.isFIFO() || st?.isSocket())
    throw new Error(
      `will not write to the log file ${JSON.stringify(path)}: it leads to a ${st.isFIFO() ? 'pipe' : 'socket'}, not a file or a terminal — give a file, or a terminal such as /dev/tty`,
    );
  if (st?.isCharacterDevice()) {
    let fd: number;
    try {
      fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOCTTY);
    } catch (err) {
      throw new Error(`cannot open the log file ${JSON.stringify(path)} for writing: ${(err as Error).message}`);
    }
    // Checked on what was opened (the path may have changed since).
    if (isatty(fd)) return fd;
    closeSync(fd);
    throw new Error(
      `will not write to the log file ${JSON.stringify(path)}: it is a device, not a file or a terminal — give a file, or a terminal such as /dev/tty`,
    );
  }
  return openPrivateAppend(path, 'log file', warn);
}
