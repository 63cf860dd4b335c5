/**
 * `--log` takes an optional value, which node's parseArgs cannot express: it is taken out of the
 * arguments before they are parsed.
 *
 *   --log              (last, or followed by another option) the annotated log on stdout
 *   --log -            stdout
 *   --log <file>       appended to <file> (created 0600), or written to it when it is a terminal
 *   --log=<file>       the same (--log=- is stdout)
 *
 * So a file name starting with "-" needs `--log=./-name`. `--log-format text|json` is an ordinary
 * option (parsed with the rest); given without --log it means `--log` to stdout.
 *
 * `openLogFile` is here too, away from the log writer and the recorder it needs: a stdio wrapper
 * opens its log file before it starts the server, and loads nothing else for it until then.
 */
import { closeSync, constants, openSync, statSync, type Stats } from 'node:fs';
import { isatty } from 'node:tty';
import { openPrivateAppend } from './private-file.js';

export interface LogArgument {
  /** `stdout`, or a file path. */
  to: 'stdout' | string;
}

/** Whether the argument after a bare `--log` is its value (a file, or `-`): anything but another option. */
export function logValueFollows(next: string | undefined): next is string {
  return next !== undefined && (!next.startsWith('-') || next === '-');
}

/** The arguments without `--log` (and its value), and what it asked for. Throws a plain-words Error on a misuse. */
export function takeLogOption(args: readonly string[]): { args: string[]; log?: LogArgument } {
  const rest: string[] = [];
  let log: LogArgument | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    let to: string | undefined;
    if (a === '--log') {
      const next = args[i + 1];
      if (!logValueFollows(next)) to = 'stdout';
      else {
        to = next === '-' ? 'stdout' : next;
        i += 1;
      }
    } else if (a.startsWith('--log=')) {
      const value = a.slice('--log='.length);
      if (value === '') throw new Error('--log= needs a file name (or - for stdout); --log alone writes to stdout.');
      to = value === '-' ? 'stdout' : value;
    } else {
      rest.push(a);
      continue;
    }
    if (log) throw new Error('--log was given twice: give it once (a file, or nothing for stdout).');
    log = { to };
  }
  return { args: rest, log };
}

/** `--log-format`: text (default) or json. */
export function logFormatOption(value: string | undefined): 'text' | 'json' | undefined {
  if (value === undefined) return undefined;
  if (value === 'text' || value === 'json') return value;
  throw new Error(`--log-format must be text or json, not ${JSON.stringify(value)}`);
}

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
