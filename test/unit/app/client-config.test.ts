/** The pure transforms behind `mcpscope wrap` / `unwrap` (proxy/app/commands/client-config.ts). */
import { describe, expect, it } from 'vitest';
import {
  ClientConfigError,
  parseConfig,
  parseWrapped,
  unwrapConfig,
  wrapConfig,
  wrappedCommandLine,
  type Launcher,
} from '../../../proxy/app/commands/client-config.js';

/** What `mcpscope wrap` passes (resolveLauncher): an absolute node and an absolute mcpscope script. */
const LAUNCHER: Launcher = { command: '/usr/local/bin/node', args: ['/usr/local/bin/mcpscope'], shell: 'mcpscope' };
/** What wrap wrote before mcpscope could be installed from a clone (it is not on npm, so this fails). */
const NPX: Launcher = { command: 'npx', args: ['-y', 'mcpscope'], shell: 'npx mcpscope' };

const CLAUDE = `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "files": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Documents"]
    },
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret" }
    },
    "remote": { "url": "https://mcp.example.com/v1/mcp?x=1" }
  }
}
`;

const VSCODE = `{
\t// my servers
\t"inputs": [{ "type": "promptString", "id": "key", "password": true }],
\t"servers": {
\t\t"local": { "type": "stdio", "command": "node", "args": ["server.js"], "env": { "KEY": "\${input:key}" } },
\t\t"api": { "type": "http", "url": "http://localhost:3001/mcp", "headers": { "X-A": "1" } },
\t\t"legacy": { "type": "sse", "url": "https://legacy.example.com/sse" },
\t},
}
`;

describe('wrapConfig', () => {
  it('routes stdio servers through the launcher (node + mcpscope) and URL servers through proxies on 6481, 6482…', () => {
    const r = wrapConfig(CLAUDE, { uiPort: 7000, launcher: LAUNCHER });
    const out = JSON.parse(r.text);
    expect(out.globalShortcut).toBe('Ctrl+Space');
    expect(out.mcpServers.files).toEqual({
      command: '/usr/local/bin/node',
      args: [
        '/usr/local/bin/mcpscope',
        '--ui-port',
        '7000',
        '--',
        'npx',
        '-y',
        '@modelcontextprotocol/server-filesystem',
        '/Users/me/Documents',
      ],
    });
    expect(out.mcpServers.github).toEqual({
      command: '/usr/local/bin/node',
      args: ['/usr/local/bin/mcpscope', '--ui-port', '7000', '--', 'docker', 'run', '-i', '--rm', 'ghcr.io/github/github-mcp-server'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_secret' },
    });
    expect(out.mcpServers.remote).toEqual({ url: 'http://127.0.0.1:6481/v1/mcp?x=1' });
    // The proxies are typed in a terminal: the launcher's shell form.
    expect(r.proxies).toEqual([
      {
        name: 'remote',
        target: 'https://mcp.example.com/v1/mcp?x=1',
        port: 6481,
        command: "mcpscope --target 'https://mcp.example.com/v1/mcp?x=1' --port 6481 --ui-port 7000",
      },
    ]);
    expect(r.changed).toBe(true);
    expect(Object.keys(r.record.servers)).toEqual(['files', 'github', 'remote']);
  });

  it("keeps the file's indentation, key order and everything outside the changed entries", () => {
    const r = wrapConfig(CLAUDE, { launcher: LAUNCHER });
    // Untouched lines stay byte for byte; the rewritten entries use the file's 2-space indentation.
    expect(
      r.text.startsWith(
        '{\n  "globalShortcut": "Ctrl+Space",\n  "mcpServers": {\n    "files": {\n      "command": "/usr/local/bin/node",\n      "args": [\n        "/usr/local/bin/mcpscope",\n        "--ui-port",',
      ),
    ).toBe(true);
    expect(r.text).toContain('    "remote": { "url": "http://127.0.0.1:6481/v1/mcp?x=1" }\n  }\n}\n');
    // command stays before args, env after
    const g = r.text.slice(r.text.indexOf('"github"'));
    expect(g.indexOf('"command"')).toBeLessThan(g.indexOf('"args"'));
    expect(g.indexOf('"args"')).toBeLessThan(g.indexOf('"env"'));
  });

  it('round-trips: unwrap with the record gives the original byte for byte', () => {
    const w = wrapConfig(CLAUDE);
    const u = unwrapConfig(w.text, w.record);
    expect(u.text).toBe(CLAUDE);
    expect(u.record.servers).toEqual({});
  });

  it('is idempotent: wrapping a wrapped config changes nothing', () => {
    const once = wrapConfig(CLAUDE, { launcher: LAUNCHER });
    const twice = wrapConfig(once.text, { record: once.record, launcher: LAUNCHER });
    expect(twice.text).toBe(once.text);
    expect(twice.changed).toBe(false);
    expect(twice.servers.every((s) => s.action === 'already-wrapped')).toBe(true);
    expect(twice.record).toEqual(once.record);
    // Even without the record, stdio entries are recognised as wrapped (URL ones by their proxy port).
    const blind = wrapConfig(once.text, { launcher: LAUNCHER });
    expect(blind.changed).toBe(false);
  });

  it('re-wraps entries wrapped through another launcher (the old npx -y mcpscope, a moved checkout): only the launcher changes', () => {
    // A config wrapped by the old wrap, with its record: every stdio server under `npx -y mcpscope`.
    const old = wrapConfig(CLAUDE, { uiPort: 7000, launcher: NPX });
    expect(JSON.parse(old.text).mcpServers.github.args.slice(0, 5)).toEqual(['-y', 'mcpscope', '--ui-port', '7000', '--']);
    const r = wrapConfig(old.text, { record: old.record, launcher: LAUNCHER });
    const out = JSON.parse(r.text);
    // The launcher is replaced; mcpscope's options (--ui-port 7000) and the server's command line stay.
    expect(out.mcpServers.github).toEqual({
      command: '/usr/local/bin/node',
      args: ['/usr/local/bin/mcpscope', '--ui-port', '7000', '--', 'docker', 'run', '-i', '--rm', 'ghcr.io/github/github-mcp-server'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_secret' },
    });
    expect(r.servers.find((s) => s.name === 'files')).toMatchObject({
      action: 'wrapped',
      detail: expect.stringContaining('ran under `npx -y mcpscope`, now under `/usr/local/bin/node /usr/local/bin/mcpscope`'),
    });
    expect(r.servers.find((s) => s.name === 'remote')!.action).toBe('already-wrapped');
    // The record still holds the true originals: unwrap gives CLAUDE back byte for byte.
    expect(unwrapConfig(r.text, r.record).text).toBe(CLAUDE);
    // Then stable under the new launcher.
    expect(wrapConfig(r.text, { record: r.record, launcher: LAUNCHER }).changed).toBe(false);

    // Without a record (wrapped by hand, or the sidecar lost), the original is rebuilt from after "--".
    const hand = '{ "mcpServers": { "f": { "command": "npx", "args": ["-y", "mcpscope", "--", "node", "s.js"], "env": { "A": "1" } } } }';
    const moved =
      '{ "mcpServers": { "f": { "command": "/old/node", "args": ["/old/clone/bin/mcpscope.js", "--ui-port", "7001", "--", "node", "s.js"] } } }';
    const h = wrapConfig(hand, { launcher: LAUNCHER });
    expect(h.text).toBe(
      '{ "mcpServers": { "f": { "command": "/usr/local/bin/node", "args": ["/usr/local/bin/mcpscope", "--", "node", "s.js"], "env": { "A": "1" } } } }',
    );
    expect(unwrapConfig(h.text, h.record).text).toBe(
      '{ "mcpServers": { "f": { "command": "node", "args": ["s.js"], "env": { "A": "1" } } } }',
    );
    expect(wrapConfig(moved, { launcher: LAUNCHER }).text).toBe(
      '{ "mcpServers": { "f": { "command": "/usr/local/bin/node", "args": ["/usr/local/bin/mcpscope", "--ui-port", "7001", "--", "node", "s.js"] } } }',
    );
  });

  it('gives a new URL server the next free port, not one already in use', () => {
    const once = wrapConfig(CLAUDE);
    const grown = once.text.replace(
      '"remote": {',
      '"second": { "url": "http://127.0.0.1:6482/mcp" },\n    "third": { "url": "https://third.example/mcp" },\n    "remote": {',
    );
    const r = wrapConfig(grown, { record: once.record });
    const out = JSON.parse(r.text);
    expect(out.mcpServers.second.url).toBe('http://127.0.0.1:6482/mcp'); // already a local proxy port: left alone
    expect(out.mcpServers.third.url).toBe('http://127.0.0.1:6483/mcp'); // 6481 is remote's, 6482 is taken
    expect(out.mcpServers.remote.url).toBe('http://127.0.0.1:6481/v1/mcp?x=1');
  });

  it('handles the VS Code shape: "servers", type stdio/http/sse, comments and trailing commas outside entries kept', () => {
    const r = wrapConfig(VSCODE, { launcher: LAUNCHER });
    expect(r.key).toBe('servers');
    expect(r.text).toContain('\t// my servers\n');
    expect(r.text).toContain('\t"inputs": [{ "type": "promptString", "id": "key", "password": true }],\n');
    // one-line entries stay on one line
    expect(r.text).toContain(
      '\t\t"local": { "type": "stdio", "command": "/usr/local/bin/node", "args": ["/usr/local/bin/mcpscope", "--ui-port", "6480", "--", "node", "server.js"], "env": { "KEY": "${input:key}" } },\n',
    );
    expect(r.text).toContain('\t\t"api": { "type": "http", "url": "http://127.0.0.1:6481/mcp", "headers": { "X-A": "1" } },\n');
    expect(r.text).toContain('\t\t"legacy": { "type": "sse", "url": "http://127.0.0.1:6482/sse" },\n\t},\n}\n');
    expect(r.proxies.map((p) => [p.name, p.target, p.port])).toEqual([
      ['api', 'http://localhost:3001/mcp', 6481],
      ['legacy', 'https://legacy.example.com/sse', 6482],
    ]);
    // an mcpscope --target does not join another's UI: the second proxy gets a UI of its own
    expect(r.proxies[0].command).toBe('mcpscope --target http://localhost:3001/mcp --port 6481');
    expect(r.proxies[1].command).toContain('--ui-port 0');
    expect(unwrapConfig(r.text, r.record).text).toBe(VSCODE);
  });

  it('refuses, in plain words, to rewrite an entry that contains a comment', () => {
    const text = '{ "mcpServers": { "a": { "command": "node", /* keep me */ "args": ["s.js"] } } }';
    expect(() => wrapConfig(text)).toThrow(ClientConfigError);
    expect(() => wrapConfig(text)).toThrow(/"a" contains a comment.*nothing was changed/);
  });

  it('explains a missing servers key, a non-object file and invalid JSON with line and column', () => {
    expect(() => wrapConfig('{ "theme": "dark" }')).toThrow(/no "mcpServers" key .* no "servers" key/);
    expect(() => wrapConfig('[1, 2]')).toThrow(/not a JSON object/);
    expect(() => wrapConfig('{ "mcpServers": [] }')).toThrow(/"mcpServers" should be an object/);
    expect(() => wrapConfig('{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}')).toThrow(/line 4, column 5/);
    expect(() => wrapConfig('{ "mcpServers": { "a": 1 }')).toThrow(/line 1, column 27.*end of the file/);
  });

  it('leaves entries it does not understand alone', () => {
    const text = '{ "mcpServers": { "odd": { "disabled": true }, "ws": { "url": "ws://x/mcp" } } }';
    const r = wrapConfig(text);
    expect(r.text).toBe(text);
    expect(r.servers.map((s) => s.action)).toEqual(['skipped', 'skipped']);
  });

  it("leaves mcpscope's own MCP server for agents (mcpscope mcp) alone, in every form", () => {
    const text = JSON.stringify({
      mcpServers: {
        byName: { command: 'mcpscope', args: ['mcp'] },
        npx: { command: 'npx', args: ['-y', 'mcpscope@1.2.0', 'mcp', '--ui-port', '7000'] },
        clone: { command: '/usr/bin/node', args: ['/home/me/mcpscope/bin/mcpscope.js', 'mcp'] },
        windows: { command: 'C:\\bin\\mcpscope.cmd', args: ['mcp'] },
        server: { command: 'node', args: ['mcp'] },
        other: { command: 'npx', args: ['-y', 'mcp'] },
      },
    });
    const r = wrapConfig(text, { launcher: LAUNCHER });
    expect(r.servers.map((s) => `${s.name}:${s.action}`)).toEqual([
      'byName:skipped',
      'npx:skipped',
      'clone:skipped',
      'windows:skipped',
      'server:wrapped',
      'other:wrapped',
    ]);
    expect(r.servers[0].detail).toMatch(/mcpscope mcp/);
  });

  it('starts URL proxies at firstProxyPort (wrap --port) when asked, skipping ports in use', () => {
    const two = CLAUDE.replace(
      '"remote": { "url": "https://mcp.example.com/v1/mcp?x=1" }',
      '"remote": { "url": "https://mcp.example.com/v1/mcp?x=1" },\n    "local": { "url": "http://127.0.0.1:7101/mcp" },\n    "other": { "url": "https://other.example.com/mcp" }',
    );
    const w = wrapConfig(two, { firstProxyPort: 7100 });
    const out = JSON.parse(w.text);
    expect(out.mcpServers.remote.url).toBe('http://127.0.0.1:7100/v1/mcp?x=1');
    // 7101 is the local server's own port: skipped.
    expect(out.mcpServers.local.url).toBe('http://127.0.0.1:7102/mcp');
    expect(out.mcpServers.other.url).toBe('http://127.0.0.1:7103/mcp');
    expect(w.proxies.map((p) => p.port)).toEqual([7100, 7102, 7103]);
  });

  it("wraps Claude Code's ~/.claude.json: the user servers and every project's (projects[…].mcpServers); unwrap restores them byte for byte", () => {
    const claudeJson = `{
  "numStartups": 12,
  "mcpServers": {
    "everything": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": {} }
  },
  "projects": {
    "/home/me/app": {
      "allowedTools": [],
      "mcpServers": {
        "db": { "type": "stdio", "command": "node", "args": ["db-server.js"], "env": {} },
        "docs": { "type": "http", "url": "https://docs.example.com/mcp" }
      }
    },
    "/home/me/empty": { "allowedTools": [], "mcpServers": {} }
  }
}
`;
    const w = wrapConfig(claudeJson, { launcher: LAUNCHER });
    const out = JSON.parse(w.text);
    expect(out.mcpServers.everything.args).toEqual([
      '/usr/local/bin/mcpscope',
      '--ui-port',
      '6480',
      '--',
      'npx',
      '-y',
      '@modelcontextprotocol/server-everything',
    ]);
    const app = out.projects['/home/me/app'].mcpServers;
    expect(app.db).toEqual({
      type: 'stdio',
      command: '/usr/local/bin/node',
      args: ['/usr/local/bin/mcpscope', '--ui-port', '6480', '--', 'node', 'db-server.js'],
      env: {},
    });
    expect(app.docs).toEqual({ type: 'http', url: 'http://127.0.0.1:6481/mcp' });
    expect(w.servers.map((x) => [x.name, x.action])).toEqual([
      ['everything', 'wrapped'],
      ['db (project /home/me/app)', 'wrapped'],
      ['docs (project /home/me/app)', 'wrapped'],
    ]);
    expect(out.numStartups).toBe(12);
    expect(wrapConfig(w.text, { launcher: LAUNCHER, record: w.record }).changed).toBe(false);
    expect(unwrapConfig(w.text, w.record).text).toBe(claudeJson);
    // A ~/.claude.json with project servers only.
    const only = `{ "projects": { "/p": { "mcpServers": { "s": { "command": "srv" } } } } }`;
    expect(JSON.parse(wrapConfig(only).text).projects['/p'].mcpServers.s.args).toEqual(['--ui-port', '6480', '--', 'srv']);
  });

  it('keeps CRLF line endings', () => {
    const crlf = CLAUDE.replace(/\n/g, '\r\n');
    const r = wrapConfig(crlf);
    expect(r.text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(unwrapConfig(r.text, r.record).text).toBe(crlf);
  });
});

describe('unwrapConfig', () => {
  it('changes nothing in a config that is not wrapped', () => {
    const u = unwrapConfig(CLAUDE);
    expect(u.text).toBe(CLAUDE);
    expect(u.changed).toBe(false);
    expect(unwrapConfig(VSCODE).text).toBe(VSCODE);
  });

  it('without the record, rebuilds stdio entries from the command after "--" and leaves proxied URLs', () => {
    const w = wrapConfig(CLAUDE, { launcher: LAUNCHER });
    const u = unwrapConfig(w.text);
    const out = JSON.parse(u.text);
    expect(out.mcpServers.files).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Documents'],
    });
    expect(out.mcpServers.github.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_secret' });
    expect(out.mcpServers.remote.url).toBe('http://127.0.0.1:6481/v1/mcp?x=1');
    expect(u.servers.find((s) => s.name === 'remote')!.detail).toMatch(/no record of its original URL/);
  });

  it('restores a URL entry edited since wrap, keeping the edit', () => {
    const w = wrapConfig(CLAUDE);
    const edited = w.text.replace(
      '{ "url": "http://127.0.0.1:6481/v1/mcp?x=1" }',
      '{ "url": "http://127.0.0.1:6481/v1/mcp?x=1", "headers": { "A": "b" } }',
    );
    const out = JSON.parse(unwrapConfig(edited, w.record).text);
    expect(out.mcpServers.remote).toEqual({ url: 'https://mcp.example.com/v1/mcp?x=1', headers: { A: 'b' } });
  });

  it('restores a URL whose proxy port was changed by hand since wrap (the sidecar knows the target)', () => {
    const w = wrapConfig(CLAUDE);
    const moved = w.text.replace('http://127.0.0.1:6481/v1/mcp?x=1', 'http://127.0.0.1:17300/v1/mcp?x=1');
    const u = unwrapConfig(moved, w.record);
    expect(JSON.parse(u.text).mcpServers.remote).toEqual({ url: 'https://mcp.example.com/v1/mcp?x=1' });
    expect(u.servers.find((x) => x.name === 'remote')).toMatchObject({
      action: 'restored',
      detail: expect.stringContaining('had become 17300'),
    });
    expect(u.record.servers).toEqual({});
    // Pointed somewhere else altogether (another path): not wrap's proxy any more, left as is.
    const elsewhere = w.text.replace('http://127.0.0.1:6481/v1/mcp?x=1', 'http://127.0.0.1:17300/other');
    expect(unwrapConfig(elsewhere, w.record).servers.find((x) => x.name === 'remote')).toMatchObject({ action: 'skipped' });
  });

  it('unwraps hand-wrapped entries and those the old wrap wrote (npx -y mcpscope), no --ui-port', () => {
    const plain = '{ "mcpServers": { "f": { "command": "node", "args": ["s.js"] } } }';
    for (const [command, args] of [
      ['npx', ['-y', 'mcpscope']],
      ['mcpscope', []],
      ['/usr/local/bin/mcpscope', []],
      ['/usr/bin/node', ['/home/me/mcpscope/bin/mcpscope.js']],
    ] as const) {
      const text = JSON.stringify({ mcpServers: { f: { command, args: [...args, '--', 'node', 's.js'] } } });
      expect(JSON.parse(unwrapConfig(text).text)).toEqual(JSON.parse(plain));
    }
    const npx = '{ "mcpServers": { "f": { "command": "npx", "args": ["-y", "mcpscope", "--", "node", "s.js"] } } }';
    expect(unwrapConfig(npx).text).toBe(plain);
  });
});

describe('helpers', () => {
  it('wrappedCommandLine recognises only mcpscope wrappers', () => {
    expect(wrappedCommandLine({ command: 'npx', args: ['-y', 'mcpscope', '--ui-port', '1', '--', 'a', 'b'] })).toEqual(['a', 'b']);
    expect(wrappedCommandLine({ command: 'mcpscope', args: ['--', 'a'] })).toEqual(['a']);
    expect(wrappedCommandLine({ command: '/usr/local/bin/node', args: ['/usr/local/bin/mcpscope', '--ui-port', '1', '--', 'a'] })).toEqual([
      'a',
    ]);
    expect(
      wrappedCommandLine({ command: 'C:\\Program Files\\nodejs\\node.exe', args: ['C:\\src\\mcpscope\\bin\\mcpscope.js', '--', 'a'] }),
    ).toEqual(['a']);
    expect(wrappedCommandLine({ command: 'npx', args: ['-y', 'other', '--', 'a'] })).toBeUndefined();
    expect(wrappedCommandLine({ command: 'node', args: ['s.js', '--', 'x'] })).toBeUndefined();
    expect(wrappedCommandLine({ command: 'node', args: ['/x/mcpscope-like.js', '--', 'x'] })).toBeUndefined();
    expect(wrappedCommandLine({ command: '/usr/bin/node', args: ['/x/bin/mcpscope.js', '--'] })).toBeUndefined(); // nothing to run
    // Written without "--" (`gemini mcp add se mcpscope --ui-port 17200 -- node s.js` stores none): still wrapped.
    expect(wrappedCommandLine({ command: 'mcpscope', args: ['--ui-port', '17200', 'node', 's.js', '--port', '1'] })).toEqual([
      'node',
      's.js',
      '--port',
      '1',
    ]);
    // A subcommand wraps nothing.
    expect(wrappedCommandLine({ command: 'mcpscope', args: ['mcp', '--ui-port', '1'] })).toBeUndefined();
    expect(wrappedCommandLine({ command: 'mcpscope', args: ['--ui-port', '1'] })).toBeUndefined();
  });

  it("parseWrapped separates the launcher, mcpscope's options and the server's command line", () => {
    expect(parseWrapped({ command: 'npx', args: ['-y', 'mcpscope@0.1.0', '--ui-port', '7000', '--', 'node', 's.js'] })).toEqual({
      launcher: ['npx', '-y', 'mcpscope@0.1.0'],
      options: ['--ui-port', '7000'],
      line: ['node', 's.js'],
    });
    expect(
      parseWrapped({ command: '/usr/bin/node', args: ['--no-warnings', '/opt/mcpscope/bin/mcpscope.js', '--token', 't', '--', 'x'] }),
    ).toEqual({
      launcher: ['/usr/bin/node', '--no-warnings', '/opt/mcpscope/bin/mcpscope.js'],
      options: ['--token', 't'],
      line: ['x'],
    });
    expect(parseWrapped({ command: '/usr/local/bin/mcpscope', args: ['--', 'x'] })).toEqual({
      launcher: ['/usr/local/bin/mcpscope'],
      options: [],
      line: ['x'],
    });
  });
});

describe('parseConfig (jsonc-parser, as VS Code reads JSONC)', () => {
  it('records comments and accepts trailing commas', () => {
    const p = parseConfig('{ // a\n "x": [1, 2,], /* b */ }');
    expect(p.comments).toEqual([
      [2, 6],
      [22, 29],
    ]);
    expect(p.root.type).toBe('object');
  });

  it('a byte-order mark, CRLF, tabs, comments between entries and trailing commas stay byte for byte outside the rewritten entries', () => {
    const text =
      '\uFEFF{\r\n\t// servers\r\n\t"mcpServers": {\r\n\t\t"files": {\r\n\t\t\t"command": "npx",\r\n\t\t\t"args": ["-y", "fs",],\r\n\t\t},\r\n' +
      '\t\t/* between */\r\n\t\t"remote": { "url": "https://e.com/mcp", }, // after\r\n\t},\r\n}\r\n';
    const w = wrapConfig(text, { launcher: LAUNCHER });
    expect(w.text).toBe(
      '\uFEFF{\r\n\t// servers\r\n\t"mcpServers": {\r\n\t\t"files": {\r\n\t\t\t"command": "/usr/local/bin/node",\r\n\t\t\t"args": [\r\n' +
        '\t\t\t\t"/usr/local/bin/mcpscope",\r\n\t\t\t\t"--ui-port",\r\n\t\t\t\t"6480",\r\n\t\t\t\t"--",\r\n\t\t\t\t"npx",\r\n\t\t\t\t"-y",\r\n\t\t\t\t"fs"\r\n\t\t\t]\r\n\t\t},\r\n' +
        '\t\t/* between */\r\n\t\t"remote": { "url": "http://127.0.0.1:6481/mcp" }, // after\r\n\t},\r\n}\r\n',
    );
    expect(unwrapConfig(w.text, w.record).text).toBe(text);
  });

  it('reports the first error in plain words, at its line and column', () => {
    const error = (text: string) => {
      try {
        parseConfig(text);
      } catch (e) {
        expect(e).toBeInstanceOf(ClientConfigError);
        return (e as Error).message.replace(/^invalid JSON at /, '');
      }
      return 'parsed';
    };
    expect(error('')).toBe('line 1, column 1: unexpected the end of the file');
    expect(error('{ mcpServers: {} }')).toBe('line 1, column 3: expected a "quoted" key or "}", found "m"');
    expect(error("{ 'mcpServers': {} }")).toBe('line 1, column 3: expected a "quoted" key or "}", found "\'"');
    expect(error('{ "mcpServers" {} }')).toBe('line 1, column 16: expected ":" after the key "mcpServers", found "{"');
    expect(error('{ "a": [1 2] }')).toBe('line 1, column 11: expected "," or "]" in a list, found "2"');
    expect(error('{ "a": 1,, }')).toBe('line 1, column 10: expected a "quoted" key or "}", found ","');
    expect(error('{ "a": NaN }')).toBe('line 1, column 8: unexpected "NaN"');
    expect(error('{ "a": truex }')).toBe('line 1, column 8: unexpected "truex"');
    expect(error('{ "a": 1. }')).toBe('line 1, column 8: the number "1." is cut short');
    // A string's fault at the character itself, not at its opening quote.
    expect(error('{ "a": "x\ty" }')).toBe('line 1, column 10: control character in a string');
    expect(error('{ "a": "x\\\\\\qy" }')).toBe('line 1, column 12: invalid escape in a string');
    expect(error('{\r\n  "a": "x }\r\n}')).toBe('line 2, column 8: a string is never closed before the end of the line');
    expect(error('{ "a": "x')).toBe('line 1, column 8: a string is never closed');
    expect(error('{ "a": 1 "b": 2 }')).toBe('line 1, column 10: expected "," or "}" after the value of "a", found "\\""');
    expect(error('{ "a": /* x }')).toBe('line 1, column 8: a /* comment is never closed');
    expect(error('{ "a": 1 } x')).toBe('line 1, column 12: unexpected "x" after the end of the JSON value');
    expect(error('{ "a": { "b": 1 }')).toBe('line 1, column 18: expected "," or "}" after the value of "a", found the end of the file');
    // Deep nesting is refused before the parser's recursion could overflow the stack.
    expect(error(`{ "a": ${'['.repeat(100_000)}${']'.repeat(100_000)} }`)).toBe('line 1, column 208: nested too deeply');
    expect(error(`{ "a": ${'['.repeat(200)}${']'.repeat(200)} }`)).toBe('parsed');
  });

  it('a lone CR ends a line and a // comment, as VS Code reads the file', () => {
    const p = parseConfig('{ "mcpServers": {}, // a\r"x": 1 }');
    expect(p.comments).toEqual([[20, 24]]);
    expect(() => parseConfig('{ "mcpServers": {}\r"x": 1 }')).toThrow(
      /line 2, column 1: expected "," or "}" after the value of "mcpServers"/,
    );
  });

  it('keeps a "__proto__" key of a rewritten entry (an own key, as JSON.parse reads it)', () => {
    const w = wrapConfig('{ "mcpServers": { "r": { "url": "https://e.com/m", "headers": { "__proto__": "x" } } } }');
    expect(w.text).toBe('{ "mcpServers": { "r": { "url": "http://127.0.0.1:6481/m", "headers": { "__proto__": "x" } } } }');
  });
});
