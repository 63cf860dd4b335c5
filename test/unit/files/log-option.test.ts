/**
 * Where `--log <path>` may write (a file of the user's, or a terminal: test/e2e/log-cli.test.ts runs
 * `--log /dev/stderr` on one), and `mcpscope run`'s refusal of a log on stdout (the client's).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLogFile } from '../../../proxy/files/export/log-option.js';
import { main as runMain } from '../../../proxy/app/commands/run.js';

afterEach(() => vi.restoreAllMocks());

describe('mcpscope run --log', () => {
  it('refuses stdout (the command it runs owns it) in plain words, before starting anything', async () => {
    let said = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      said += String(chunk);
      return true;
    });
    expect(await runMain(['--log', '--', 'node', '-e', '0'])).toBe(2);
    expect(said).toMatch(/--log needs a file here: mcpscope run's stdout belongs to the command it runs/);
    said = '';
    expect(await runMain(['--log-format', 'json', '--', 'node', '-e', '0'])).toBe(2);
    expect(said).toMatch(/--log needs a file here/);
  });
});

describe('openLogFile', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'mcpscope-log-option-'));

  it('a file: created 0600, and a link to one is refused as private-file.ts refuses it', () => {
    const d = dir();
    const path = join(d, 'mcpscope.log');
    closeSync(openLogFile(path));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, 'before\n');
    const link = join(d, 'link.log');
    symlinkSync(path, link);
    expect(() => openLogFile(link)).toThrow(/it is a symbolic link/);
    expect(readFileSync(path, 'utf8')).toBe('before\n');
  });

  it('refuses a pipe, and a link to one (as /dev/stderr is when a client reads it), in words that say so', () => {
    const d = dir();
    const fifo = join(d, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const link = join(d, 'stderr');
    symlinkSync(fifo, link);
    for (const path of [fifo, link])
      expect(() => openLogFile(path)).toThrow(
        `will not write to the log file ${JSON.stringify(path)}: it leads to a pipe, not a file or a terminal — give a file, or a terminal such as /dev/tty`,
      );
  });

  it('refuses a device that is not a terminal, and leaves it as it was', () => {
    const before = statSync('/dev/null').mode;
    expect(() => openLogFile('/dev/null')).toThrow(
      'will not write to the log file "/dev/null": it is a device, not a file or a terminal — give a file, or a terminal such as /dev/tty',
    );
    expect(statSync('/dev/null').mode).toBe(before);
  });
});
