/**
 * `mcpscope wrap` / `mcpscope unwrap` as a user runs them (the built CLI, bin/mcpscope.js) on
 * config files in temp directories. Requires `npm run build` (npm test runs it first).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));

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

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const backups = (dir: string) => readdirSync(dir).filter((f) => /\.bak-\d{8}-\d{6}(-\d+)?$/.test(f));

describe('mcpscope wrap / unwrap', () => {
  it('prints the wrapped config without touching the file', () => {
    const dir = tempDir();
    const file = join(dir, 'claude_desktop_config.json');
    writeFileSync(file, CLAUDE);
    const r = cli('wrap', file, '--ui-port', '7001');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.mcpServers.files.command).toBe('npx');
    expect(out.mcpServers.files.args.slice(0, 6)).toEqual(['-y', 'mcpscope', '--ui-port', '7001', '--', 'npx']);
    expect(out.mcpServers.github.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_secret' });
    expect(out.mcpServers.remote.url).toBe('http://127.0.0.1:6481/mcp');
    expect(out.globalShortcut).toBe('');
    expect(r.stderr).toContain('npx mcpscope --target https://mcp.example.com/mcp --port 6481 --ui-port 7001');
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE);
    expect(readdirSync(dir)).toEqual(['claude_desktop_config.json']);
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
    expect(JSON.parse(wrapped).mcpServers.github.args).toEqual(['-y', 'mcpscope', '--ui-port', '6480', '--', 'docker', 'run', '-i', '--rm', 'ghcr.io/github/github-mcp-server']);
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
    const text = '{\n  // local tools\n  "servers": {\n    "local": { "type": "stdio", "command": "node", "args": ["s.js"] },\n    "api": { "type": "http", "url": "http://localhost:3001/mcp" }, // my API\n  },\n}\n';
    writeFileSync(file, text);
    expect(cli('wrap', file, '--write').code).toBe(0);
    const wrapped = readFileSync(file, 'utf8');
    expect(wrapped).toContain('// local tools');
    expect(wrapped).toContain('"api": { "type": "http", "url": "http://127.0.0.1:6481/mcp" }, // my API');
    expect(wrapped).toContain('"command": "npx", "args": ["-y", "mcpscope", "--ui-port", "6480", "--", "node", "s.js"]');
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
});
