/**
 * mcpscope is not on npm: the README installs it from the clone (`npm install`, then
 * `npm install -g .`). This does that for real — into a temporary npm prefix, never the real global
 * one — and then uses the installed `mcpscope` the way a new user would, from directories outside
 * the clone:
 *
 * - `mcpscope --help` / `--version` by name, from a temp directory;
 * - `mcpscope -- node server.mjs` (a tiny stdio server on the official SDK) driven by the official
 *   SDK's stdio client;
 * - `mcpscope wrap <config> --write`, then each server entry exactly as written launched by the
 *   SDK client from `/` — one of them with a PATH that holds neither node nor mcpscope, as a desktop
 *   app may give it;
 * - `mcpscope --log calls.log -- node server.mjs` writes the annotated log to the user's directory,
 *   and `mcpscope mcp` (the agent server, by name) finds the recorded call;
 * - `npm uninstall -g mcpscope` removes it and leaves the clone.
 *
 * `npm install -g .` runs the `prepare` script (the build) of a folder it links; here it runs with
 * --ignore-scripts so that the test does not rebuild the working tree's dist/ while other tests
 * use it. dist/ exists already (the clone's `npm install` built it, and `npm test` builds first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { packageVersion } from '../../proxy/files/package-version.js';
import { startMcpscope } from '../../proxy/app/mcpscope.js';
import { freePort } from '../support/free-port.js';

const CLONE = realpathSync(fileURLToPath(new URL('../..', import.meta.url)));
const SDK = join(CLONE, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');

/** A tiny stdio MCP server on the official SDK, imported by absolute path from the clone's node_modules. */
const SERVER = `
import { Server } from ${JSON.stringify(pathToFileURL(join(SDK, 'server', 'index.js')).href)};
import { StdioServerTransport } from ${JSON.stringify(pathToFileURL(join(SDK, 'server', 'stdio.js')).href)};
import { CallToolRequestSchema, ListToolsRequestSchema } from ${JSON.stringify(pathToFileURL(join(SDK, 'types.js')).href)};
const server = new Server({ name: 'anywhere-server', version: '1.2.3' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'add', description: 'a + b', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } }],
}));
server.setRequestHandler(CallToolRequestSchema, async (req) => ({
  content: [{ type: 'text', text: String(req.params.arguments.a + req.params.arguments.b) + (process.env.GREETING ? ' ' + process.env.GREETING : '') }],
}));
await server.connect(new StdioServerTransport());
`;

let root: string;
let prefix: string;
/** The installed command: `<prefix>/bin/mcpscope`. */
let installed: string;
/** A directory outside the clone: the user's "somewhere else". */
let work: string;
/** MCPSCOPE_HOME for the wrappers (their UI discovery file), not ~/.mcpscope. */
let home: string;

/** This process's environment without npm's own variables (`npm test` sets npm_config_*), npm's cache in the temp dir. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return {
    ...env,
    npm_config_cache: join(root, 'npm-cache'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

function npm(args: string[], cwd: string) {
  const r = spawnSync('npm', args, { cwd, env: npmEnv(), encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

/** The user's shell after the install: the npm prefix's bin first on PATH. */
function shellEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${join(prefix, 'bin')}${delimiter}${process.env.PATH ?? ''}`, MCPSCOPE_HOME: home };
}

/** Connects the official SDK stdio client with `params`; initialize, list the tools, call one; close. */
async function exercise(params: ConstructorParameters<typeof StdioClientTransport>[0]) {
  const transport = new StdioClientTransport({ ...params, stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: 'install-anywhere', version: '1.0.0' });
  try {
    await client.connect(transport);
    const server = client.getServerVersion();
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const call = await client.callTool({ name: 'add', arguments: { a: 19, b: 23 } });
    return { server, tools, call, stderr: () => stderr };
  } finally {
    await client.close();
  }
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'mcpscope-anywhere-'));
  prefix = join(root, 'prefix');
  installed = join(prefix, 'bin', 'mcpscope');
  work = join(root, 'work');
  home = join(root, 'home');
  mkdirSync(work);
  mkdirSync(home, { mode: 0o700 });
  writeFileSync(join(work, 'server.mjs'), SERVER);
  // The README's step, run in the clone; --prefix keeps it out of the real global prefix.
  const r = npm(['install', '-g', '.', '--prefix', prefix, '--ignore-scripts', '--offline'], CLONE);
  expect(r.code, r.out).toBe(0);
}, 150_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(process.platform === 'win32')('installed from the clone, used from anywhere', () => {
  it('npm install -g . links the clone into the prefix and puts mcpscope on its bin', () => {
    // A link, not a copy: `git pull && npm install` in the clone updates the installed command.
    const linked = join(prefix, 'lib', 'node_modules', 'mcpscope');
    expect(lstatSync(linked).isSymbolicLink()).toBe(true);
    expect(realpathSync(linked)).toBe(CLONE);
    expect(realpathSync(installed)).toBe(join(CLONE, 'bin', 'mcpscope.js'));
    expect(existsSync(join(CLONE, 'dist', 'proxy', 'app', 'cli.js'))).toBe(true);
  });

  it('mcpscope --help and --version work by name from a directory outside the clone', () => {
    const help = spawnSync('mcpscope', ['--help'], { cwd: work, env: shellEnv(), encoding: 'utf8', timeout: 20_000 });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain(`mcpscope ${packageVersion()} — a debug proxy for the Model Context Protocol`);
    expect(help.stdout).toContain('Usage');
    const version = spawnSync('mcpscope', ['--version'], { cwd: work, env: shellEnv(), encoding: 'utf8', timeout: 20_000 });
    expect(version.stdout).toBe(`${packageVersion()}\n`);
  });

  it("mcpscope run -- node … sends a Node client's fetch through the forward proxy from a directory outside the clone", async () => {
    // The preload (the clone's bin/env-proxy-preload.mjs, found through the installed link) must
    // load from here: a fetch of a closed port then gets the proxy's 502 instead of ECONNREFUSED.
    const closed = await freePort();
    const ui = await freePort();
    const script = `fetch('http://127.0.0.1:${closed}/').then((r) => console.log('status ' + r.status), (e) => console.log('threw ' + (e.cause?.code ?? e.message)))`;
    const r = spawnSync('mcpscope', ['run', '--ui-port', String(ui), '--', 'node', '-e', script], {
      cwd: work,
      env: shellEnv(),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('status 502');
    expect(r.stderr).toContain(`open the UI: http://127.0.0.1:${ui}/`);
  });

  it('mcpscope -- node server.mjs serves the official SDK stdio client: initialize, tools/list, tools/call', async () => {
    const port = await freePort();
    const r = await exercise({
      command: installed,
      args: ['--ui-port', String(port), '--', 'node', 'server.mjs'],
      cwd: work,
      env: { MCPSCOPE_HOME: home },
    });
    expect(r.server).toMatchObject({ name: 'anywhere-server', version: '1.2.3' });
    expect(r.tools).toEqual(['add']);
    expect(r.call).toEqual({ content: [{ type: 'text', text: '42' }] });
    // The wrapper was in between (and served the UI itself, none running on that port).
    expect(r.stderr()).toContain(`mcpscope: no mcpscope UI was running on port ${port}, so this one serves it while node server.mjs runs`);
  });

  it('a config written by mcpscope wrap --write starts its servers from any directory, even without node on PATH', async () => {
    const port = await freePort();
    const server = join(work, 'server.mjs');
    const file = join(work, 'claude_desktop_config.json');
    writeFileSync(
      file,
      `${JSON.stringify({ mcpServers: { 'by-name': { command: 'node', args: [server] }, 'by-path': { command: process.execPath, args: [server], env: { GREETING: 'hi' } } } }, null, 2)}\n`,
    );
    const w = spawnSync('mcpscope', ['wrap', 'claude_desktop_config.json', '--write', '--ui-port', String(port)], {
      cwd: work,
      env: shellEnv(),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(w.status, w.stderr).toBe(0);
    expect(w.stderr).toContain('Checked:');
    const servers = JSON.parse(readFileSync(file, 'utf8')).mcpServers as Record<
      string,
      { command: string; args: string[]; env?: Record<string, string> }
    >;
    for (const entry of Object.values(servers)) {
      // An absolute node (this one) and the installed mcpscope by its absolute path: nothing from npm.
      expect(realpathSync(entry.command)).toBe(realpathSync(process.execPath));
      expect(entry.args.slice(0, 4)).toEqual([installed, '--ui-port', String(port), '--']);
    }
    expect(servers['by-name'].args.slice(4)).toEqual(['node', server]);

    // Exactly as written, started from / — as a desktop client does.
    const byName = await exercise({
      command: servers['by-name'].command,
      args: servers['by-name'].args,
      cwd: '/',
      env: { ...servers['by-name'].env, MCPSCOPE_HOME: home },
    });
    expect(byName.server).toMatchObject({ name: 'anywhere-server' });
    expect(byName.tools).toEqual(['add']);
    expect(byName.call).toEqual({ content: [{ type: 'text', text: '42' }] });

    // A PATH with neither node nor mcpscope on it: the written command needs neither.
    const emptyPath = mkdtempSync(join(root, 'empty-path-'));
    const byPath = await exercise({
      command: servers['by-path'].command,
      args: servers['by-path'].args,
      cwd: '/',
      env: { ...servers['by-path'].env, PATH: emptyPath, MCPSCOPE_HOME: home },
    });
    expect(byPath.call).toEqual({ content: [{ type: 'text', text: '42 hi' }] });
    expect(byPath.stderr()).toMatch(/^mcpscope: /m);
  });

  it('mcpscope --log <file> -- node server.mjs, and mcpscope mcp, by name from a directory outside the clone', async () => {
    // A UI for the wrapper to join (the wrapper and the agent server find it by --ui-port and --token).
    const port = await freePort();
    const token = 'anywhere-token-3f9c1d2e7a';
    const scope = await startMcpscope({ uiPort: port, token });
    try {
      const r = await exercise({
        command: installed,
        args: ['--ui-port', String(port), '--token', token, '--log', 'calls.log', '--', 'node', 'server.mjs'],
        cwd: work,
        env: { MCPSCOPE_HOME: home },
      });
      expect(r.call).toEqual({ content: [{ type: 'text', text: '42' }] });
      // The relative log file is the user's directory's, written by the wrapper as its process ends.
      const logFile = join(work, 'calls.log');
      const deadline = Date.now() + 15_000;
      while (!(existsSync(logFile) && readFileSync(logFile, 'utf8').includes('response to')) && Date.now() < deadline)
        await new Promise((resolve) => setImmediate(resolve));
      const log = readFileSync(logFile, 'utf8');
      expect(log).toMatch(/C→S request tools\/call add/);
      expect(log).toMatch(/S→C response to #\d+ tools\/call add/);
      expect(log).not.toContain(token);
      expect(statSync(logFile).mode & 0o777).toBe(0o600);

      // The agent server, by name, from the same directory: it finds the recorded call.
      await scope.waitFor((s) => [...s.sessions.values()].some((x) => x.transport === 'stdio' && x.counts.requests >= 3));
      const transport = new StdioClientTransport({
        command: 'mcpscope',
        args: ['mcp', '--ui-port', String(port), '--token', token],
        cwd: work,
        env: shellEnv() as Record<string, string>,
        stderr: 'pipe',
      });
      const agent = new Client({ name: 'anywhere-agent', version: '1.0.0' });
      await agent.connect(transport);
      try {
        expect(agent.getServerVersion()).toMatchObject({ name: 'mcpscope' });
        const found = await agent.callTool({ name: 'search_messages', arguments: { tool: 'add' } });
        expect(found.isError).toBeFalsy();
        const hits = (found.structuredContent as { hits: { method?: string; name?: string }[] }).hits;
        expect(hits.some((h) => h.method === 'tools/call' && h.name === 'add')).toBe(true);
      } finally {
        await agent.close();
      }
    } finally {
      await scope.close();
    }
  });

  it('npm uninstall -g mcpscope removes the command and leaves the clone', () => {
    const r = npm(['uninstall', '-g', 'mcpscope', '--prefix', prefix], work);
    expect(r.code, r.out).toBe(0);
    expect(existsSync(installed)).toBe(false);
    expect(existsSync(join(prefix, 'lib', 'node_modules', 'mcpscope'))).toBe(false);
    expect(existsSync(join(CLONE, 'bin', 'mcpscope.js'))).toBe(true);
    expect(existsSync(join(CLONE, 'package.json'))).toBe(true);
  });
});
