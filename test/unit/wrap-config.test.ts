/** The pure transforms behind `mcpscope wrap` / `unwrap` (proxy/commands/client-config.ts). */
import { describe, expect, it } from 'vitest';
import { ClientConfigError, parseJsonc, unwrapConfig, wrapConfig, wrappedCommandLine } from '../../proxy/commands/client-config.js';

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
  it('routes stdio servers through npx mcpscope and URL servers through proxies on 6481, 6482…', () => {
    const r = wrapConfig(CLAUDE, { uiPort: 7000 });
    const out = JSON.parse(r.text);
    expect(out.globalShortcut).toBe('Ctrl+Space');
    expect(out.mcpServers.files).toEqual({
      command: 'npx',
      args: ['-y', 'mcpscope', '--ui-port', '7000', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Documents'],
    });
    expect(out.mcpServers.github).toEqual({
      command: 'npx',
      args: ['-y', 'mcpscope', '--ui-port', '7000', '--', 'docker', 'run', '-i', '--rm', 'ghcr.io/github/github-mcp-server'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_secret' },
    });
    expect(out.mcpServers.remote).toEqual({ url: 'http://127.0.0.1:6481/v1/mcp?x=1' });
    expect(r.proxies).toEqual([
      { name: 'remote', target: 'https://mcp.example.com/v1/mcp?x=1', port: 6481, command: "npx mcpscope --target 'https://mcp.example.com/v1/mcp?x=1' --port 6481 --ui-port 7000" },
    ]);
    expect(r.changed).toBe(true);
    expect(Object.keys(r.record.servers)).toEqual(['files', 'github', 'remote']);
  });

  it('keeps the file\'s indentation, key order and everything outside the changed entries', () => {
    const r = wrapConfig(CLAUDE);
    // Untouched lines stay byte for byte; the rewritten entries use the file's 2-space indentation.
    expect(r.text.startsWith('{\n  "globalShortcut": "Ctrl+Space",\n  "mcpServers": {\n    "files": {\n      "command": "npx",\n      "args": [\n        "-y",\n        "mcpscope",')).toBe(true);
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
    const once = wrapConfig(CLAUDE);
    const twice = wrapConfig(once.text, { record: once.record });
    expect(twice.text).toBe(once.text);
    expect(twice.changed).toBe(false);
    expect(twice.servers.every((s) => s.action === 'already-wrapped')).toBe(true);
    expect(twice.record).toEqual(once.record);
    // Even without the record, stdio entries are recognised as wrapped (URL ones by their proxy port).
    const blind = wrapConfig(once.text);
    expect(blind.changed).toBe(false);
  });

  it('gives a new URL server the next free port, not one already in use', () => {
    const once = wrapConfig(CLAUDE);
    const grown = once.text.replace('"remote": {', '"second": { "url": "http://127.0.0.1:6482/mcp" },\n    "third": { "url": "https://third.example/mcp" },\n    "remote": {');
    const r = wrapConfig(grown, { record: once.record });
    const out = JSON.parse(r.text);
    expect(out.mcpServers.second.url).toBe('http://127.0.0.1:6482/mcp'); // already a local proxy port: left alone
    expect(out.mcpServers.third.url).toBe('http://127.0.0.1:6483/mcp'); // 6481 is remote's, 6482 is taken
    expect(out.mcpServers.remote.url).toBe('http://127.0.0.1:6481/v1/mcp?x=1');
  });

  it('handles the VS Code shape: "servers", type stdio/http/sse, comments and trailing commas outside entries kept', () => {
    const r = wrapConfig(VSCODE);
    expect(r.key).toBe('servers');
    expect(r.text).toContain('\t// my servers\n');
    expect(r.text).toContain('\t"inputs": [{ "type": "promptString", "id": "key", "password": true }],\n');
    // one-line entries stay on one line
    expect(r.text).toContain(
      '\t\t"local": { "type": "stdio", "command": "npx", "args": ["-y", "mcpscope", "--ui-port", "6480", "--", "node", "server.js"], "env": { "KEY": "${input:key}" } },\n',
    );
    expect(r.text).toContain('\t\t"api": { "type": "http", "url": "http://127.0.0.1:6481/mcp", "headers": { "X-A": "1" } },\n');
    expect(r.text).toContain('\t\t"legacy": { "type": "sse", "url": "http://127.0.0.1:6482/sse" },\n\t},\n}\n');
    expect(r.proxies.map((p) => [p.name, p.target, p.port])).toEqual([
      ['api', 'http://localhost:3001/mcp', 6481],
      ['legacy', 'https://legacy.example.com/sse', 6482],
    ]);
    // an mcpscope --target does not join another's UI: the second proxy gets a UI of its own
    expect(r.proxies[0].command).toBe('npx mcpscope --target http://localhost:3001/mcp --port 6481');
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
    const w = wrapConfig(CLAUDE);
    const u = unwrapConfig(w.text);
    const out = JSON.parse(u.text);
    expect(out.mcpServers.files).toEqual({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Documents'] });
    expect(out.mcpServers.github.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_secret' });
    expect(out.mcpServers.remote.url).toBe('http://127.0.0.1:6481/v1/mcp?x=1');
    expect(u.servers.find((s) => s.name === 'remote')!.detail).toMatch(/no record of its original URL/);
  });

  it('restores a URL entry edited since wrap, keeping the edit', () => {
    const w = wrapConfig(CLAUDE);
    const edited = w.text.replace('{ "url": "http://127.0.0.1:6481/v1/mcp?x=1" }', '{ "url": "http://127.0.0.1:6481/v1/mcp?x=1", "headers": { "A": "b" } }');
    const out = JSON.parse(unwrapConfig(edited, w.record).text);
    expect(out.mcpServers.remote).toEqual({ url: 'https://mcp.example.com/v1/mcp?x=1', headers: { A: 'b' } });
  });

  it('unwraps a hand-wrapped entry (README style, no --ui-port)', () => {
    const text = '{ "mcpServers": { "f": { "command": "npx", "args": ["-y", "mcpscope", "--", "node", "s.js"] } } }';
    expect(unwrapConfig(text).text).toBe('{ "mcpServers": { "f": { "command": "node", "args": ["s.js"] } } }');
  });
});

describe('helpers', () => {
  it('wrappedCommandLine recognises only mcpscope wrappers', () => {
    expect(wrappedCommandLine({ command: 'npx', args: ['-y', 'mcpscope', '--ui-port', '1', '--', 'a', 'b'] })).toEqual(['a', 'b']);
    expect(wrappedCommandLine({ command: 'mcpscope', args: ['--', 'a'] })).toEqual(['a']);
    expect(wrappedCommandLine({ command: 'npx', args: ['-y', 'other', '--', 'a'] })).toBeUndefined();
    expect(wrappedCommandLine({ command: 'node', args: ['s.js', '--', 'x'] })).toBeUndefined();
  });

  it('parseJsonc records comments and accepts trailing commas', () => {
    const p = parseJsonc('{ // a\n "x": [1, 2,], /* b */ }');
    expect(p.comments).toHaveLength(2);
    expect(p.root.type).toBe('object');
  });
});
