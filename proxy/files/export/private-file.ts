/**
 * The files mcpscope appends what it recorded to (`--record`, `--log <file>`): they hold the
 * traffic, so each is a regular file of the user's that nobody else can read. It is opened for
 * append and created 0600; an existing one that others could read is narrowed to 0600 (with a
 * warning). What is refused, in plain words, before anything is written:
 * - a symbolic link (someone who can write the directory could point it at `~/.bashrc`, and the
 *   capture would be appended there): name the file itself;
 * - anything but a regular file: a FIFO would block mcpscope until something reads it (opened
 *   without waiting here, and refused), a device or socket is not a capture;
 * - a file that stays readable or writable by others: another user's (they read it whatever its
 *   mode), or one whose mode cannot be narrowed (`fchmod` fails, or a file system without modes
 *   keeps it open to everyone).
 */
import { closeSync, constants, fchmodSync, fstatSync, openSync, type Stats } from 'node:fs';

/** The calls that look at and narrow the opened file; tests replace them (they run as root, where chmod always works). */
export interface PrivateFileIo {
  fstat(fd: number): Stats;
  fchmod(fd: number, mode: number): void;
}

const NODE_IO: PrivateFileIo = { fstat: (fd) => fstatSync(fd), fchmod: (fd, mode) => fchmodSync(fd, mode) };

/** Append, create 0600, never follow a symbolic link, never wait for a FIFO's reader. */
const FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/**
 * Opens `path` for append (creating it 0600) and returns its descriptor. `what` names it in the
 * plain-words error thrown when it cannot be used, and in the warning when its mode was narrowed.
 */
export function openPrivateAppend(
  path: string,
  what: string,
  warn: (text: string) => void = (t) => process.emitWarning(t),
  io: PrivateFileIo = NODE_IO,
): number {
  const name = `the ${what} ${JSON.stringify(path)}`;
  let fd: number;
  try {
    fd = openSync(path, FLAGS, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP')
      throw new Error(
        `will not write to ${name}: it is a symbolic link, and mcpscope follows none for the files it records to — give the path of the file itself`,
      );
    if (code === 'ENXIO')
      throw new Error(`will not write to ${name}: it is a FIFO (named pipe) nothing reads — mcpscope records to regular files only`);
    throw new Error(`cannot open ${name} for writing: ${(err as Error).message}`);
  }
  try {
    narrow(fd, `the ${what} ${path}`, name, warn, io);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/** `plain`: the file named as the warning names it; `name`: as the errors do (quoted). */
function narrow(fd: number, plain: string, name: string, warn: (text: string) => void, io: PrivateFileIo): void {
  const st = io.fstat(fd);
  if (!st.isFile()) throw new Error(`will not write to ${name}: it is ${kindOf(st)} — mcpscope records to regular files only`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid)
    throw new Error(
      `will not write to ${name}: it belongs to another user (uid ${st.uid}), who can read what mcpscope writes there — give a file of your own`,
    );
  const mode = st.mode & 0o777;
  if ((mode & 0o077) === 0) return;
  let failure: string | undefined;
  try {
    io.fchmod(fd, 0o600);
    const now = io.fstat(fd).mode & 0o777;
    if ((now & 0o077) !== 0) failure = `its file system keeps it mode ${now.toString(8)}`;
  } catch (err) {
    failure = (err as Error).message;
  }
  if (failure !== undefined)
    throw new Error(
      `will not write to ${name}: others can read it (mode ${mode.toString(8)}) and it cannot be made 0600 (${failure}) — ` +
        'it would hold the traffic; give a file on a file system with permissions, or one you can chmod 600',
    );
  warn(`mcpscope: ${plain} was readable by others (mode ${mode.toString(8)}); it is 0600 now.`);
}
