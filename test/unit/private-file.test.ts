/** proxy/export/private-file.ts: the --record and --log files are opened for append, 0600, and narrowed when others could read them. */
import { describe, expect, it } from 'vitest';
import { chmodSync, closeSync, mkdtempSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPrivateAppend } from '../../proxy/export/private-file.js';

const dir = () => mkdtempSync(join(tmpdir(), 'mcpscope-private-file-'));

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
});
