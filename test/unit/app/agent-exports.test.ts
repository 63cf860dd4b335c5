/**
 * proxy/app/agent/agent-exports.ts: export_session writes only into the export directory the user
 * chose (`mcpscope mcp --export-dir`, default $MCPSCOPE_HOME/exports, created 0700) and never over
 * a file its exports did not write (issue 26, finding 6: an agent obeying a server's text
 * overwrote a shell rc file with an export).
 */
import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultExportDir, EXPORT_INDEX, ExportDir } from '../../../proxy/app/agent/agent-exports.js';

const temp = () => mkdtempSync(join(tmpdir(), 'mcpscope-agent-exports-'));

function setup() {
  const base = temp();
  const dir = join(base, 'exports');
  const outside = join(base, 'home');
  mkdirSync(outside);
  const rc = join(outside, '.bashrc');
  writeFileSync(rc, 'export PATH=$PATH:~/bin\n');
  return { base, dir, outside, rc, exports: new ExportDir(dir) };
}

describe('ExportDir', () => {
  it('defaults to $MCPSCOPE_HOME/exports, created 0700 on the first export, and writes files 0600 in it', async () => {
    const home = temp();
    const dir = defaultExportDir({ MCPSCOPE_HOME: home });
    expect(dir).toBe(join(home, 'exports'));
    const exports = new ExportDir(dir);
    const out = await exports.write(undefined, 'mcpscope-s1.json', '{"a":1}', false);
    expect(out).toEqual({ path: join(dir, 'mcpscope-s1.json'), bytes: 7 });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(out.path).mode & 0o777).toBe(0o600);
    expect(readFileSync(out.path, 'utf8')).toBe('{"a":1}');
    expect((await exports.write('named.log', 'x', 'text', false)).path).toBe(join(dir, 'named.log'));
    expect((await exports.write(join(dir, 'absolute.json'), 'x', '{}', false)).path).toBe(join(dir, 'absolute.json'));
    expect(statSync(join(dir, EXPORT_INDEX)).mode & 0o777).toBe(0o600);
  });

  it('refuses, in plain words, any path outside it: .., an absolute path elsewhere, a folder that links out', async () => {
    const { dir, outside, rc, exports } = setup();
    await exports.write('first.json', 'x', '{}', false);
    for (const path of ['../home/.bashrc', rc, `${dir}/../home/.bashrc`, 'sub/../../home/x']) {
      await expect(exports.write(path, 'x', 'pwned', true)).rejects.toThrow(
        `export_session writes only into the export directory ${dir} (mcpscope mcp --export-dir): ${JSON.stringify(path)} is outside it.`,
      );
    }
    symlinkSync(outside, join(dir, 'link-out'));
    await expect(exports.write('link-out/.bashrc', 'x', 'pwned', true)).rejects.toThrow(/is outside it/);
    await expect(exports.write('link-out/new.json', 'x', 'pwned', false)).rejects.toThrow(/is outside it/);
    expect(readFileSync(rc, 'utf8')).toBe('export PATH=$PATH:~/bin\n');
    await expect(exports.write('no/such/folder.json', 'x', '{}', false)).rejects.toThrow(/The folder .* does not exist: create it inside/);
    await expect(exports.write(EXPORT_INDEX, 'x', '{}', true)).rejects.toThrow(/mcpscope's own index of its exports/);
    // A folder inside it is fine.
    mkdirSync(join(dir, 'runs'));
    expect((await exports.write('runs/one.json', 'x', '{}', false)).path).toBe(join(dir, 'runs', 'one.json'));
  });

  it('never writes through a symbolic link planted at the file’s name', async () => {
    const { dir, rc, exports } = setup();
    await exports.write('first.json', 'x', '{}', false);
    symlinkSync(rc, join(dir, 'session.json'));
    for (const overwrite of [false, true])
      await expect(exports.write('session.json', 'x', 'pwned', overwrite)).rejects.toThrow(
        /is a symbolic link: export_session never writes through one/,
      );
    expect(readFileSync(rc, 'utf8')).toBe('export PATH=$PATH:~/bin\n');
  });

  it('overwrite replaces only a file its exports wrote and nobody changed since', async () => {
    const { dir, exports } = setup();
    const mine = await exports.write('s1.json', 'x', 'first', false);
    await expect(exports.write('s1.json', 'x', 'second', false)).rejects.toThrow(
      /exists already: choose another path, or pass overwrite: true/,
    );
    expect(await exports.write('s1.json', 'x', 'second', true)).toEqual({ path: mine.path, bytes: 6 });
    expect(readFileSync(mine.path, 'utf8')).toBe('second');
    expect(statSync(mine.path).mode & 0o777).toBe(0o600);
    // Replaced again: the index follows the new file.
    expect((await exports.write('s1.json', 'x', 'third', true)).bytes).toBe(5);

    // The user's own file in the directory, and an export the user edited since.
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    await expect(exports.write('notes.txt', 'x', 'pwned', true)).rejects.toThrow(
      `${join(dir, 'notes.txt')} was not written by mcpscope's exports (or was changed since): overwrite replaces only an export of its own.`,
    );
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
    appendFileSync(mine.path, ' edited');
    await expect(exports.write('s1.json', 'x', 'fourth', true)).rejects.toThrow(
      /was not written by mcpscope's exports \(or was changed since\)/,
    );
    expect(readFileSync(mine.path, 'utf8')).toBe('third edited');
    // Another process of mcpscope mcp on the same directory knows the same exports (the index is on disk).
    const other = new ExportDir(dir);
    const fresh = await other.write('s2.json', 'x', 'a', false);
    expect((await exports.write('s2.json', 'x', 'b', true)).path).toBe(fresh.path);
  });

  it('makes the directory again when it was removed while mcpscope mcp runs (a clean-up of old exports)', async () => {
    const { dir, exports } = setup();
    await exports.write('first.json', 'x', '{}', false);
    rmSync(dir, { recursive: true });
    const out = await exports.write(undefined, 'mcpscope-s1.json', '{}', false);
    expect(out.path).toBe(join(dir, 'mcpscope-s1.json'));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('says so when the export directory is a file', async () => {
    const base = temp();
    writeFileSync(join(base, 'file'), '');
    await expect(new ExportDir(join(base, 'file')).write(undefined, 'x.json', '{}', false)).rejects.toThrow(
      /is not a directory: start mcpscope mcp with --export-dir/,
    );
  });
});
