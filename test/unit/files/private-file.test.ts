/**
 * proxy/files/export/private-file.ts: the --record and --log files are regular files of the user's that
 * nobody else can read — opened for append, created 0600, narrowed when others could read them;
 * a symbolic link, a FIFO, a device, another user's file, or one that cannot be narrowed is
 * refused in plain words before anything is written (issue 26, finding 11: an fchmod that failed
 * was skipped silently, and the capture appended to a file others could read).
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  fstatSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPrivateAppend, type PrivateFileIo } from '../../../proxy/files/export/private-file.js';

const dir = () => mkdtempSync(join(tmpdir(), 'mcpscope-private-file-'));
const isRoot = process.getuid?.() === 0;

/** A file of mode 0644 holding one line. */
function openFile(): string {
  const path = join(dir(), 'shared.ndjson');
  writeFileSync(path, 'before\n');
  chmodSync(path, 0o644);
  return path;
}

describe('openPrivateAppend', () => {
  it('creates the file 0600', () => {
    const path = join(dir(), 'new.log');
    closeSync(openPrivateAppend(path, 'log file', () => undefined));
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('appends to an existing file and narrows it to 0600, saying so', () => {
    const path = join(dir(), 'old.ndjson');
    writeFileSync(path, 'before\n');
    chmodSync(path, 0o644);
    const said: string[] = [];
    const fd = openPrivateAppend(path, 'record file', (t) => said.push(t));
    writeSync(fd, 'after\n');
    closeSync(fd);
    expect(readFileSync(path, 'utf8')).toBe('before\nafter\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(said).toEqual([`mcpscope: the record file ${path} was readable by others (mode 644); it is 0600 now.`]);
  });

  it('says in plain words which file could not be opened', () => {
    const path = join(dir(), 'missing', 'x.log');
    expect(() => openPrivateAppend(path, 'log file')).toThrow(`cannot open the log file ${JSON.stringify(path)} for writing: ENOENT`);
  });

  it('refuses a file whose mode cannot be narrowed (fchmod fails), and leaves it as it was', () => {
    const path = openFile();
    const failing: PrivateFileIo = {
      fstat: (fd) => fstatSync(fd),
      fchmod: () => {
        throw Object.assign(new Error('EPERM: operation not permitted, fchmod'), { code: 'EPERM' });
      },
    };
    expect(() => openPrivateAppend(path, 'record file', () => undefined, failing)).toThrow(
      `will not write to the record file ${JSON.stringify(path)}: others can read it (mode 644) and it cannot be made 0600 (EPERM: operation not permitted, fchmod)`,
    );
    expect(readFileSync(path, 'utf8')).toBe('before\n');
  });

  it('refuses a file on a file system that keeps its mode whatever fchmod says (no permissions)', () => {
    const path = openFile();
    const ignoring: PrivateFileIo = { fstat: (fd) => fstatSync(fd), fchmod: () => undefined };
    expect(() => openPrivateAppend(path, 'log file', () => undefined, ignoring)).toThrow(
      /others can read it \(mode 644\) and it cannot be made 0600 \(its file system keeps it mode 644\)/,
    );
  });

  it.runIf(isRoot)("refuses another user's file, whatever its mode: its owner reads what is written there", () => {
    for (const mode of [0o644, 0o600]) {
      const path = openFile();
      chmodSync(path, mode);
      chownSync(path, 4242, 4242);
      expect(() => openPrivateAppend(path, 'record file', () => undefined)).toThrow(
        `will not write to the record file ${JSON.stringify(path)}: it belongs to another user (uid 4242)`,
      );
      expect(readFileSync(path, 'utf8')).toBe('before\n');
      expect(statSync(path).mode & 0o777).toBe(mode);
    }
  });

  it('refuses a symbolic link, and the file it points to is untouched', () => {
    const d = dir();
    const target = join(d, 'bashrc');
    writeFileSync(target, 'export PATH\n', { mode: 0o600 });
    const link = join(d, 'capture.ndjson');
    symlinkSync(target, link);
    expect(() => openPrivateAppend(link, 'record file')).toThrow(
      `will not write to the record file ${JSON.stringify(link)}: it is a symbolic link, and mcpscope follows none for the files it records to — give the path of the file itself`,
    );
    expect(readFileSync(target, 'utf8')).toBe('export PATH\n');
    // A dangling link is not created through either.
    const dangling = join(d, 'dangling.log');
    symlinkSync(join(d, 'made-by-the-link'), dangling);
    expect(() => openPrivateAppend(dangling, 'log file')).toThrow(/it is a symbolic link/);
    expect(() => lstatSync(join(d, 'made-by-the-link'))).toThrow(/ENOENT/);
  });

  it('refuses a FIFO at once (nothing reads it: opening it would wait forever) and a device', () => {
    const fifo = join(dir(), 'pipe.log');
    execFileSync('mkfifo', [fifo]);
    expect(() => openPrivateAppend(fifo, 'log file')).toThrow(
      `will not write to the log file ${JSON.stringify(fifo)}: it is a FIFO (named pipe) nothing reads — mcpscope records to regular files only`,
    );
    expect(() => openPrivateAppend('/dev/null', 'record file')).toThrow(
      'will not write to the record file "/dev/null": it is a character device — mcpscope records to regular files only',
    );
    expect(statSync('/dev/null').mode & 0o777).toBe(0o666);
  });
});
