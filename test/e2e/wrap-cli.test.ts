/**
 * `mcpscope wrap` / `mcpscope unwrap` as a user runs them (the built CLI, bin/mcpscope.js) on
 * config files in temp directories, and the command wrap writes (resolveLauncher, checkLauncher).
 * Requires `npm run build` (npm test runs it first).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrapConfig } from '../../proxy/app/commands/client-config.js';
import { checkLauncher, resolveLauncher } from '../../proxy/app/commands/client-config-files.js';
import { commandLine } from '../../proxy/core/model/command-line.js';
import { packageVersion } from '../../proxy/files/package-version.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
/** What wrap puts after the node: this checkout's script (no mcpscope from it is on the PATH the tests give). */
const SCRIPT = realpathSync(BIN);

// The CLI runs with PATH = a directory holding only `node` (a link to this node), so what wrap
// writes does not depend on the machine: that `node`, by its absolute path, and SCRIPT.
let pathDir: string;
let NODE: string;
beforeAll(() => {
  pathDir = mkdtempSync(join(tmpdir(), 'mcpscope-wrap-path-'));
  NODE = join(pathDir, 'node');
  symlinkSync(process.execPath, NODE);
});
afterAll(() => rmSync(pathDir, { recursive: true, force: true }));

const CLAUDE = `{
  "mcpServers": {
    "files": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Documents"]
    },
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"],
      "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret"
      }
    },
    "remote": {
      "url": "https://mcp.example.com/mcp"
    }
  },
  "globalShortcut": ""
}
`;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'mcpscope-wrap-'));
  dirs.push(d);
  return d;
}

function cliWith(
  options: { nodeArgs?: string[]; env?: Record<string, string> },
  ...args: string[]
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    encoding: 'utf8',
    timeout: 20_000,
    env: { ...process.env, PATH: pathDir, ...options.env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const cli = (...args: string[]) => cliWith({}, ...args);

const backups = (dir: string) => readdirSync(dir).filter((f) => /\.bak-\d{8}-\d{6}(-\d+)?$/.test(f));

describe('mcpscope wrap / unwrap', () => {
  it('prints the wrapped config without touching the file', () => {
    const dir = tempDir();
    const file = join(dir, 'claude_desktop_config.json');
    writeFileSync(file, CLAUDE);
    const r = cli('wrap', file, '--ui-port', '7001');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    // An absolute node and this checkout's script: no npx (mcpscope is not on npm), no PATH needed.
    expect(out.mcpServers.files.command).toBe(NODE);
    expect(out.mcpServers.files.args.slice(0, 5)).toEqual([SCRIPT, '--ui-port', '7001', '--', 'npx']);
    expect(out.mcpServers.github.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_secret' });
    expect(out.mcpServers.remote.url).toBe('http://127.0.0.1:6481/mcp');
    expect(out.globalShortcut).toBe('');
    expect(r.stderr).toContain(`${commandLine('node', [SCRIPT])} --target https://mcp.example.com/mcp --port 6481 --ui-port 7001`);
    expect(r.stderr).not.toContain('npx mcpscope');
    // The dry run shows the check of that command.
    expect(r.stderr).toContain(
      `Checked: ${commandLine(NODE, [SCRIPT, '--version'])} from / with PATH=/usr/bin:/bin:/usr/sbin:/sbin printed ${packageVersion()}.`,
    );
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE);
    expect(readdirSync(dir)).toEqual(['claude_desktop_config.json']);
  });

  it('--port sets the first proxy port for URL servers, and the messages name the real MCPSCOPE_HOME', () => {
    const dir = tempDir();
    const file = join(dir, 'claude_desktop_config.json');
    writeFileSync(file, CLAUDE);
    const home = join(dir, 'my-mcpscope-home');
    const r = cliWith({ env: { MCPSCOPE_HOME: home } }, 'wrap', file, '--port', '17300');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).mcpServers.remote.url).toBe('http://127.0.0.1:17300/mcp');
    expect(r.stderr).toContain('--target https://mcp.example.com/mcp --port 17300');
    expect(r.stderr).toContain(`the token being in ${join(home, 'ui-6480.json')} while a UI runs`);
    expect(r.stderr).not.toContain('~/.mcpscope');
    const bad = cli('wrap', file, '--port', 'x');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port must be a port number from 1 to 65535, not "x"');
  });

  it('round-trips with --write: backup, record, idempotent, unwrap restores byte for byte', () => {
    const dir = tempDir();
    const file = join(dir, 'claude_desktop_config.json');
    writeFileSync(file, CLAUDE);

    const w = cli('wrap', file, '--write');
    expect(w.code).toBe(0);
    expect(w.stdout).toBe('');
    const wrapped = readFileSync(file, 'utf8');
    expect(wrapped).not.toBe(CLAUDE);
    expect(JSON.parse(wrapped).mcpServers.github.command).toBe(NODE);
    expect(JSON.parse(wrapped).mcpServers.github.args).toEqual([
      SCRIPT,
      '--ui-port',
      '6480',
      '--',
      'docker',
      'run',
      '-i',
      '--rm',
      'ghcr.io/github/github-mcp-server',
    ]);
    const [bak] = backups(dir);
    expect(bak).toBeDefined();
    expect(readFileSync(join(dir, bak), 'utf8')).toBe(CLAUDE);
    expect(existsSync(`${file}.mcpscope.json`)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    // Twice: nothing changes, no new backup.
    const again = cli('wrap', file, '--write');
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('Nothing to wrap');
    expect(readFileSync(file, 'utf8')).toBe(wrapped);
    expect(backups(dir)).toHaveLength(1);

    const u = cli('unwrap', file, '--write');
    expect(u.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE);
    expect(existsSync(`${file}.mcpscope.json`)).toBe(false);
    expect(backups(dir)).toHaveLength(2);
    expect(backups(dir).map((b) => readFileSync(join(dir, b), 'utf8'))).toContain(wrapped);

    // Unwrapping an unwrapped config changes nothing.
    const u2 = cli('unwrap', file, '--write');
    expect(u2.code).toBe(0);
    expect(u2.stderr).toContain('Nothing to unwrap');
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE);
    expect(backups(dir)).toHaveLength(2);
  });

  it('wraps a VS Code .vscode/mcp.json with comments, keeping them', () => {
    const dir = tempDir();
    const file = join(dir, 'mcp.json');
    const text =
      '{\n  // local tools\n  "servers": {\n    "local": { "type": "stdio", "command": "node", "args": ["s.js"] },\n    "api": { "type": "http", "url": "http://localhost:3001/mcp" }, // my API\n  },\n}\n';
    writeFileSync(file, text);
    expect(cli('wrap', file, '--write').code).toBe(0);
    const wrapped = readFileSync(file, 'utf8');
    expect(wrapped).toContain('// local tools');
    expect(wrapped).toContain('"api": { "type": "http", "url": "http://127.0.0.1:6481/mcp" }, // my API');
    expect(wrapped).toContain(
      `"command": ${JSON.stringify(NODE)}, "args": [${JSON.stringify(SCRIPT)}, "--ui-port", "6480", "--", "node", "s.js"]`,
    );
    expect(cli('unwrap', file, '--write').code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('explains errors in plain words and leaves the file alone', () => {
    const dir = tempDir();
    const missing = cli('wrap', join(dir, 'nope.json'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/there is no file ".*nope\.json"/);

    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{\n  "mcpServers": {\n    "a": { "command": "x", }\n    "b": {}\n  }\n}\n');
    const invalid = cli('wrap', bad, '--write');
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/invalid JSON at line 4, column 5/);

    const other = join(dir, 'settings.json');
    writeFileSync(other, '{ "theme": "dark" }\n');
    const nokey = cli('unwrap', other, '--write');
    expect(nokey.code).toBe(1);
    expect(nokey.stderr).toMatch(/no "mcpServers" key/);

    const commented = join(dir, 'c.json');
    const ctext = '{ "mcpServers": { "a": { "command": "node" /* why */ } } }';
    writeFileSync(commented, ctext);
    const refused = cli('wrap', commented, '--write');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/contains a comment/);
    expect(readFileSync(commented, 'utf8')).toBe(ctext);

    expect(cli('wrap').code).toBe(2);
    expect(backups(dir)).toEqual([]);
  });

  it('refuses to write a command that does not start, and says so in the dry run too', () => {
    const dir = tempDir();
    const file = join(dir, 'claude_desktop_config.json');
    writeFileSync(file, CLAUDE);
    // A node that is gone by the time the client starts the servers (as after an uninstall).
    const preload = join(dir, 'gone-node.mjs');
    writeFileSync(preload, "process.execPath = '/nonexistent/mcpscope-test/node';\n");
    const nodeArgs = ['--import', preload];

    const dry = cliWith({ nodeArgs }, 'wrap', file);
    expect(dry.code).toBe(1);
    expect(JSON.parse(dry.stdout).mcpServers.files.command).toBe('/nonexistent/mcpscope-test/node');
    expect(dry.stderr).toContain(
      `this command does not work: ${commandLine('/nonexistent/mcpscope-test/node', [SCRIPT, '--version'])} from / with PATH=`,
    );
    expect(dry.stderr).toContain('/nonexistent/mcpscope-test/node does not exist');
    expect(dry.stderr).toContain('--write would refuse');

    const w = cliWith({ nodeArgs }, 'wrap', file, '--write');
    expect(w.code).toBe(1);
    expect(w.stderr).toContain('Nothing was written');
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE);
    expect(readdirSync(dir).sort()).toEqual(['claude_desktop_config.json', 'gone-node.mjs']); // no backup, no record

    // A config with nothing to wrap runs no check and is not refused.
    const urlOnly = join(dir, 'url.json');
    writeFileSync(urlOnly, '{ "mcpServers": { "r": { "url": "http://127.0.0.1:6481/mcp" } } }\n');
    expect(cliWith({ nodeArgs }, 'wrap', urlOnly, '--write').code).toBe(0);
  });

  it('re-wraps a config the old wrap wrote (npx -y mcpscope, which fails: not on npm); unwrap still restores it byte for byte', () => {
    const dir = tempDir();
    const file = join(dir, 'claude_desktop_config.json');
    // Exactly what the old `wrap --write` left: the config under npx, and its record.
    const old = wrapConfig(CLAUDE, { launcher: { command: 'npx', args: ['-y', 'mcpscope'], shell: 'npx mcpscope' } });
    writeFileSync(file, old.text);
    writeFileSync(`${file}.mcpscope.json`, `${JSON.stringify(old.record, null, 2)}\n`);

    const w = cli('wrap', file, '--write');
    expect(w.code).toBe(0);
    const servers = JSON.parse(readFileSync(file, 'utf8')).mcpServers;
    expect(servers.files).toEqual({
      command: NODE,
      args: [SCRIPT, '--ui-port', '6480', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Documents'],
    });
    expect(w.stderr).toMatch(/files: stdio: .* ran under `npx -y mcpscope`, now under /);
    expect(cli('wrap', file, '--write').stderr).toContain('Nothing to wrap');

    expect(cli('unwrap', file, '--write').code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE);
  });
});

describe.skipIf(process.platform === 'win32')('the command wrap writes', () => {
  it("is the installed mcpscope when the first one on PATH is this package, else this checkout's script; node by its PATH name when that is this node", () => {
    const dir = tempDir();
    // Nothing on PATH: this node's own path, and the script.
    expect(resolveLauncher({ PATH: '' })).toEqual({
      command: process.execPath,
      args: [SCRIPT],
      shell: commandLine('node', [SCRIPT]),
      installed: false,
    });

    // `npm install -g .` puts a link to bin/mcpscope.js on PATH: wrap uses that link, by its path.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(BIN, join(bin, 'mcpscope'));
    symlinkSync(process.execPath, join(bin, 'node'));
    expect(resolveLauncher({ PATH: `${bin}:/usr/bin:/bin` })).toEqual({
      command: join(bin, 'node'),
      args: [join(bin, 'mcpscope')],
      shell: 'mcpscope',
      installed: true,
    });

    // A `mcpscope` first on PATH that is something else (another copy): not ours, the script it is.
    const other = join(dir, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'mcpscope'), '#!/bin/sh\necho 9.9.9\n', { mode: 0o755 });
    writeFileSync(join(other, 'node'), '#!/bin/sh\n', { mode: 0o755 });
    expect(resolveLauncher({ PATH: `${other}:${bin}` })).toEqual({
      command: process.execPath,
      args: [SCRIPT],
      shell: commandLine('node', [SCRIPT]),
      installed: false,
    });
  });

  it('is checked by running it with --version from / with a minimal PATH', () => {
    const dir = tempDir();
    const good = checkLauncher(resolveLauncher({ PATH: '' }));
    expect(good).toEqual({ ok: true, ran: commandLine(process.execPath, [SCRIPT, '--version']), detail: `printed ${packageVersion()}` });

    const missing = checkLauncher({ command: join(dir, 'no-node'), args: [SCRIPT], shell: '' });
    expect(missing.ok).toBe(false);
    expect(missing.detail).toBe(`${join(dir, 'no-node')} does not exist`);

    const wrong = join(dir, 'wrong.mjs');
    writeFileSync(wrong, "console.log('9.9.9');\n");
    expect(checkLauncher({ command: process.execPath, args: [wrong], shell: '' }).detail).toBe(
      `printed "9.9.9", not this mcpscope's version ${packageVersion()}`,
    );

    const failing = join(dir, 'failing.mjs');
    writeFileSync(failing, "process.stderr.write('mcpscope: the compiled CLI is missing');\nprocess.exit(1);\n");
    expect(checkLauncher({ command: process.execPath, args: [failing], shell: '' }).detail).toBe(
      'exited with code 1: mcpscope: the compiled CLI is missing',
    );

    const hanging = join(dir, 'hanging.mjs');
    writeFileSync(hanging, 'setTimeout(() => {}, 60_000);\n');
    expect(checkLauncher({ command: process.execPath, args: [hanging], shell: '' }, { timeoutMs: 500 }).detail).toBe(
      'it did not finish within 0.5 s',
    );

    // It runs where a desktop app would start it: from /, and with PATH reduced to the system's.
    const where = join(dir, 'where.mjs');
    writeFileSync(
      where,
      `console.log(process.cwd() === '/' && process.env.PATH === '/usr/bin:/bin:/usr/sbin:/sbin' ? ${JSON.stringify(packageVersion())} : 'elsewhere');\n`,
    );
    expect(checkLauncher({ command: process.execPath, args: [where], shell: '' }).ok).toBe(true);
  });
});
