/**
 * Issue 28's acceptance, the real-client matrix (`npm run test:clients`): the real Claude Code and
 * Gemini CLI (pinned, installed from npm into a cache folder outside the repository by
 * scripts/agent-clients.mjs) add server-everything with their own `mcp add` and health-check it
 * with `mcp list` through each of mcpscope's ways in, started as the built CLI
 * (`node bin/mcpscope.js`) as a user starts it:
 *
 * - reverse: `mcpscope --target <server-everything> --port 0 --ui-port 0`, the client given the
 *   proxy URL it prints;
 * - stdio wrapper: `<client> mcp add se … node bin/mcpscope.js --ui-port <U> [--] node <everything> stdio`,
 *   the wrapper recording into a running forward mcpscope's UI (found by its discovery file in
 *   MCPSCOPE_HOME, which both clients pass on to their stdio servers);
 * - forward: `mcpscope run --ui-port <U> claude mcp list` (no `--`) and `… run --ui-port <U> -- gemini mcp list`,
 *   the server added at its real URL, plain HTTP (http://127.0.0.1:<port>/mcp: neither client
 *   bypasses the proxy for loopback, and run's NO_PROXY names only the UI port) and HTTPS
 *   (https://localhost:<port>/mcp behind a TLS terminator with a test CA, which mcpscope trusts
 *   with --upstream-ca; the client trusts mcpscope's CA through what run sets);
 * - Claude Code only: a project's .mcp.json wrapped by `mcpscope wrap --write`, pending approval
 *   until the server is approved by name.
 *
 * Every cell: `mcp list` says Connected, and mcpscope's API (GET /api/sessions, then
 * /api/sessions/<id>/messages, with the UI token) shows initialize and tools/list (Claude Code)
 * or ping (Gemini CLI) each paired with its answer. Then the MCP Inspector's launch lines of
 * docs/clients.md and the README, run as written with only their placeholders replaced
 * (docs-lines.ts), with the local devDependency Inspector CLI. A matrix of the results is printed
 * at the end.
 *
 * Offline: no API key, Claude Code's non-essential traffic off, Gemini CLI's statistics,
 * telemetry and update checks off; every server is on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SessionInfo } from '../../proxy/core/model/events.js';
import { agentBin } from '../support/agent-clients.js';
import { everythingEntry, inspectorCliBin, startEverythingServer, type RunningPeer } from '../support/peers.js';
import { makeTestCa, type TestCa } from '../support/tls-peers.js';
import {
  BIN,
  ROOT,
  clientEnv,
  describeRun,
  expectRecorded,
  listedLine,
  removeDirs,
  runCommand,
  sessionIds,
  startScopeCli,
  startTlsFront,
  tempDir,
  writeGeminiSettings,
  type Ran,
  type ScopeCli,
  type TlsFront,
} from './client-rig.js';
import { inspectorDocsLines, kindOf, substitute, type Places } from './docs-lines.js';

const CLAUDE = agentBin('claude-code');
const GEMINI = agentBin('gemini-cli');
const BINS = [dirname(CLAUDE), dirname(GEMINI)];
const NODE = process.execPath;
const SE_STDIO = ['node', everythingEntry, 'stdio'];
const INSPECTOR_DIR = dirname(inspectorCliBin);

const MODES = ['reverse', 'stdio, with --', 'stdio, without --', 'forward, http', 'forward, https', 'wrapped .mcp.json'] as const;
type Mode = (typeof MODES)[number];
const CLIENTS = ['Claude Code', 'Gemini CLI', 'MCP Inspector'] as const;
type Client = (typeof CLIENTS)[number];

interface Outcome {
  client: Client;
  mode: Mode;
  ok: boolean;
  /** "Connected" and what was recorded, or why it failed. */
  text: string;
}
const outcomes: Outcome[] = [];
const notes: string[] = [];

/** Runs a cell's body, keeps its outcome for the matrix (its failure in words), rethrows a failure. */
async function cell(client: Client, mode: Mode, body: () => Promise<string>): Promise<void> {
  try {
    outcomes.push({ client, mode, ok: true, text: await body() });
  } catch (e) {
    outcomes.push({ client, mode, ok: false, text: (e as Error).message });
    throw e;
  }
}

const dirs: string[] = [];
let scopeHome: string;
let ca: TestCa;
let caFile: string;
let se: RunningPeer;
let tls: TlsFront;
/** A reverse mcpscope in front of server-everything. */
let reverse: ScopeCli;
/** A forward mcpscope (--upstream-ca: the test CA): run joins it, the stdio wrappers record into it. */
let forward: ScopeCli;
const started = Date.now();

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'proxy', 'app', 'cli.js')))
    throw new Error('dist/ is not built: run `npm run build` (npm run test:clients does)');
  scopeHome = tempDir('mcpscope-clients-home-', dirs);
  ca = await makeTestCa();
  caFile = join(tempDir('mcpscope-clients-ca-', dirs), 'test-ca.pem');
  writeFileSync(caFile, ca.ca.certPem);
  se = await startEverythingServer('streamableHttp');
  tls = await startTlsFront(ca.leaf, Number(new URL(se.url).port));
  const env = { ...clientEnv(tempDir('mcpscope-clients-scope-', dirs), scopeHome, []), MCPSCOPE_TOKEN: '' };
  [reverse, forward] = await Promise.all([
    startScopeCli(['--target', se.url, '--port', '0', '--ui-port', '0', '--grace', '0'], env),
    startScopeCli(['--forward', '--port', '0', '--ui-port', '0', '--upstream-ca', caFile, '--grace', '0'], env),
  ]);
}, 60_000);

afterAll(async () => {
  printMatrix();
  await Promise.all([reverse?.close(), forward?.close()]);
  await tls?.close();
  await se?.close();
  ca?.remove();
  removeDirs(dirs);
});

function printMatrix(): void {
  const cellText = (client: Client, mode: Mode) => {
    const o = outcomes.filter((x) => x.client === client && x.mode === mode);
    if (o.length === 0) return '—';
    if (!o.every((x) => x.ok)) return 'FAILED';
    return client === 'MCP Inspector' ? 'tools/list ok' : 'Connected';
  };
  const rows = [['', ...MODES], ...CLIENTS.map((c) => [c, ...MODES.map((m) => cellText(c, m))])];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((x, i) => x.padEnd(widths[i])).join(' | ')} |`;
  let out = `\nReal-client matrix (mcp list / Inspector CLI through mcpscope; ${((Date.now() - started) / 1000).toFixed(1)} s):\n`;
  out += `${line(rows[0])}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${rows.slice(1).map(line).join('\n')}\n\n`;
  for (const o of outcomes)
    out += `${o.ok ? 'ok    ' : 'FAILED'} ${o.client} × ${o.mode}: ${o.ok ? o.text : o.text.split('\n').slice(0, 8).join('\n         ')}\n`;
  if (notes.length > 0) out += `\nNotes:\n${notes.map((n) => `- ${n}`).join('\n')}\n`;
  process.stdout.write(out);
}

// ---------------------------------------------------------------------------------------------
// The clients
// ---------------------------------------------------------------------------------------------

interface ClientRun {
  env: NodeJS.ProcessEnv;
  cwd: string;
  home: string;
}

function claudeHome(): ClientRun {
  const home = tempDir('claude-home-', dirs);
  const cwd = tempDir('claude-work-', dirs);
  return { home, cwd, env: clientEnv(home, scopeHome, BINS, { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' }) };
}

function geminiHome(): ClientRun {
  const home = tempDir('gemini-home-', dirs);
  const cwd = tempDir('gemini-work-', dirs);
  writeGeminiSettings(home, cwd);
  // Run in this process rather than relaunch a child Node with a larger heap (a second start-up).
  return { home, cwd, env: clientEnv(home, scopeHome, BINS, { GEMINI_CLI_NO_RELAUNCH: 'true' }) };
}

const claudeRun = (c: ClientRun, args: string[]) => runCommand(CLAUDE, args, { env: c.env, cwd: c.cwd });
const geminiRun = (c: ClientRun, args: string[]) => runCommand(GEMINI, args, { env: c.env, cwd: c.cwd });

function expectExit0(what: string, r: Ran): void {
  if (r.code !== 0 || r.killed) throw new Error(describeRun(what, r));
}

/** `mcp list`'s `se` line says Connected, or the error says what it printed. */
function expectConnected(what: string, r: Ran): string {
  const out = r.stdout + r.stderr;
  const listed = listedLine(out, 'se');
  if (!listed.connected)
    throw new Error(
      `${what} did not list se as Connected: ${listed.line ? `it printed "${listed.line}"` : 'it printed no line for se'}\n${describeRun(what, r)}`,
    );
  if (r.code !== 0) throw new Error(describeRun(what, r));
  return listed.line!;
}

const isStdioSe = (s: SessionInfo) => s.transport === 'stdio' && s.target.includes(everythingEntry);
const hasTarget = (t: string) => (s: SessionInfo) => s.target === t;
/**
 * The session is the client's own (a late session of the cell before cannot pass for it): Claude
 * Code names itself `claude-code`; Gemini CLI's `mcp list` check is `mcp-test-client`, on its
 * SDK's latest protocol version, 2025-06-18 (docs/clients.md says both).
 */
const byClaude = (m: (s: SessionInfo) => boolean) => (s: SessionInfo) => s.clientInfo?.name === 'claude-code' && m(s);
const byGemini = (m: (s: SessionInfo) => boolean) => (s: SessionInfo) =>
  s.clientInfo?.name === 'mcp-test-client' && s.protocolVersion === '2025-06-18' && m(s);

/** mcpscope's stdio wrapper command line, with or without the `--` before the server's command. */
const wrapperLine = (dashes: boolean) => [NODE, BIN, '--ui-port', String(forward.uiPort), ...(dashes ? ['--'] : []), ...SE_STDIO];

describe('Claude Code 2.1.197: claude mcp add / claude mcp list', () => {
  it('reverse: the proxy URL mcpscope printed', async () => {
    await cell('Claude Code', 'reverse', async () => {
      const c = claudeHome();
      expectExit0('claude mcp add', await claudeRun(c, ['mcp', 'add', '-s', 'user', '--transport', 'http', 'se', reverse.proxy]));
      const before = await sessionIds(reverse);
      const listed = expectConnected('claude mcp list', await claudeRun(c, ['mcp', 'list']));
      return `${listed} — ${await expectRecorded(reverse, before, byClaude(hasTarget(se.url)), 'claude mcp list (reverse)')}`;
    });
  }, 90_000);

  for (const dashes of [true, false]) {
    const mode: Mode = dashes ? 'stdio, with --' : 'stdio, without --';
    it(`stdio wrapper: claude mcp add se -- node bin/mcpscope.js --ui-port <U> ${dashes ? '-- ' : ''}node <everything> stdio`, async () => {
      await cell('Claude Code', mode, async () => {
        const c = claudeHome();
        expectExit0('claude mcp add', await claudeRun(c, ['mcp', 'add', '-s', 'user', 'se', '--', ...wrapperLine(dashes)]));
        // Claude Code keeps the arguments after its own `--` as they are: the inner `--` too.
        const stored = (JSON.parse(readFileSync(join(c.home, '.claude.json'), 'utf8')) as { mcpServers: Record<string, unknown> })
          .mcpServers.se;
        expect(stored, 'what claude mcp add stored in ~/.claude.json').toMatchObject({ command: NODE, args: wrapperLine(dashes).slice(1) });
        const before = await sessionIds(forward);
        const listed = expectConnected('claude mcp list', await claudeRun(c, ['mcp', 'list']));
        return `${listed} — ${await expectRecorded(forward, before, byClaude(isStdioSe), 'claude mcp list (stdio wrapper)')}`;
      });
    }, 90_000);
  }

  for (const scheme of ['http', 'https'] as const) {
    it(`forward, ${scheme}: mcpscope run --ui-port <U> claude mcp list (no --), the server at its real URL`, async () => {
      await cell('Claude Code', `forward, ${scheme}`, async () => {
        const c = claudeHome();
        const url = scheme === 'http' ? se.url : tls.url;
        expectExit0('claude mcp add', await claudeRun(c, ['mcp', 'add', '-s', 'user', '--transport', 'http', 'se', url]));
        const before = await sessionIds(forward);
        const r = await runCommand(NODE, [BIN, 'run', '--ui-port', String(forward.uiPort), 'claude', 'mcp', 'list'], {
          env: c.env,
          cwd: c.cwd,
        });
        const listed = expectConnected('mcpscope run claude mcp list', r);
        expect(r.stderr, 'mcpscope run joins the running forward mcpscope').toMatch(
          new RegExp(`recording into .*${forward.uiOrigin.replace(/\./g, '\\.')}/`),
        );
        expect(listed).toContain(url);
        return `${listed} — ${await expectRecorded(forward, before, byClaude(hasTarget(new URL(url).origin)), `claude mcp list (forward, ${scheme})`)}`;
      });
    }, 90_000);
  }

  // A project's .mcp.json server needs approval ("Pending approval (run `claude` to approve)"):
  // `claude mcp list` does not start it until then. Approval goes by the server's name (a
  // trusted folder and the name in enabledMcpjsonServers, where Claude Code's dialog puts it),
  // so wrapping the entry keeps an approval given before, and an approval given after applies.
  it('wrapped .mcp.json: mcpscope wrap --write, pending approval until approved by name, then Connected and recorded', async () => {
    await cell('Claude Code', 'wrapped .mcp.json', async () => {
      const c = claudeHome();
      writeFileSync(
        join(c.cwd, '.mcp.json'),
        JSON.stringify({ mcpServers: { se: { command: 'node', args: [everythingEntry, 'stdio'] } } }, null, 2),
      );
      const wrap = await runCommand(NODE, [BIN, 'wrap', '.mcp.json', '--write', '--ui-port', String(forward.uiPort)], {
        env: c.env,
        cwd: c.cwd,
      });
      expectExit0('mcpscope wrap .mcp.json --write', wrap);
      expect(readFileSync(join(c.cwd, '.mcp.json'), 'utf8'), 'the wrapped .mcp.json').toContain(BIN);
      const before = await sessionIds(forward);

      const pending = await claudeRun(c, ['mcp', 'list']);
      expectExit0('claude mcp list (not approved)', pending);
      const line = listedLine(pending.stdout + pending.stderr, 'se').line;
      expect(line, 'an unapproved .mcp.json server').toMatch(/ - ⏸ Pending approval \(run `claude` to approve\)$/);

      // What approving in Claude Code leaves behind: the folder trusted, the server's name approved.
      const config = join(c.home, '.claude.json');
      const json = JSON.parse(readFileSync(config, 'utf8')) as { projects?: Record<string, object> };
      json.projects = { ...json.projects, [c.cwd]: { ...json.projects?.[c.cwd], hasTrustDialogAccepted: true } };
      writeFileSync(config, JSON.stringify(json, null, 2));
      mkdirSync(join(c.cwd, '.claude'));
      writeFileSync(join(c.cwd, '.claude', 'settings.local.json'), JSON.stringify({ enabledMcpjsonServers: ['se'] }));

      const listed = expectConnected('claude mcp list (approved)', await claudeRun(c, ['mcp', 'list']));
      const recorded = await expectRecorded(forward, before, byClaude(isStdioSe), 'claude mcp list (wrapped .mcp.json)');
      // The unapproved run started nothing: one wrapped session in all (the approved run's).
      const fresh = (await forward.api<SessionInfo[]>('/api/sessions')).filter((s) => !before.has(s.id) && isStdioSe(s));
      expect(
        fresh.map((s) => s.id),
        'stdio sessions recorded across both runs (the pending one must start none)',
      ).toHaveLength(1);
      // An approval given before a wrap holds after it (it goes by the server's name, which wrap
      // keeps; docs/clients.md says so): unwrap, wrap again, still Connected, without approving again.
      const inClone = { env: c.env, cwd: c.cwd };
      expectExit0('mcpscope unwrap .mcp.json --write', await runCommand(NODE, [BIN, 'unwrap', '.mcp.json', '--write'], inClone));
      expect(readFileSync(join(c.cwd, '.mcp.json'), 'utf8'), 'the unwrapped .mcp.json').not.toContain(BIN);
      const rewrap = [BIN, 'wrap', '.mcp.json', '--write', '--ui-port', String(forward.uiPort)];
      expectExit0('mcpscope wrap .mcp.json --write (again)', await runCommand(NODE, rewrap, inClone));
      expectConnected('claude mcp list (approved before this wrap)', await claudeRun(c, ['mcp', 'list']));
      notes.push(`Claude Code, unapproved .mcp.json server: "${line}"`);
      return `${listed} — ${recorded}`;
    });
  }, 90_000);
});

describe('Gemini CLI 0.61.0: gemini mcp add / gemini mcp list (folder trusted by ~/.gemini/trustedFolders.json)', () => {
  it('reverse: the proxy URL mcpscope printed', async () => {
    await cell('Gemini CLI', 'reverse', async () => {
      const g = geminiHome();
      expectExit0('gemini mcp add', await geminiRun(g, ['mcp', 'add', '-s', 'user', '--transport', 'http', 'se', reverse.proxy]));
      const before = await sessionIds(reverse);
      const listed = expectConnected('gemini mcp list', await geminiRun(g, ['mcp', 'list']));
      return `${listed} — ${await expectRecorded(reverse, before, byGemini(hasTarget(se.url)), 'gemini mcp list (reverse)')}`;
    });
  }, 90_000);

  for (const dashes of [true, false]) {
    const mode: Mode = dashes ? 'stdio, with --' : 'stdio, without --';
    it(`stdio wrapper: gemini mcp add se node bin/mcpscope.js --ui-port <U> ${dashes ? '-- ' : ''}node <everything> stdio`, async () => {
      await cell('Gemini CLI', mode, async () => {
        const g = geminiHome();
        expectExit0('gemini mcp add', await geminiRun(g, ['mcp', 'add', '-s', 'user', 'se', ...wrapperLine(dashes)]));
        // Gemini CLI (yargs) drops the `--`: both forms are stored the same, without it.
        const stored = (
          JSON.parse(readFileSync(join(g.home, '.gemini', 'settings.json'), 'utf8')) as { mcpServers: Record<string, unknown> }
        ).mcpServers.se;
        expect(stored, 'what gemini mcp add stored in ~/.gemini/settings.json').toEqual({
          command: NODE,
          args: wrapperLine(false).slice(1),
        });
        if (dashes)
          notes.push(
            `Gemini CLI stores \`gemini mcp add se ${wrapperLine(true).join(' ')}\` as args ${JSON.stringify(wrapperLine(false).slice(1))} (no --)`,
          );
        const before = await sessionIds(forward);
        const listed = expectConnected('gemini mcp list', await geminiRun(g, ['mcp', 'list']));
        return `${listed} — ${await expectRecorded(forward, before, byGemini(isStdioSe), 'gemini mcp list (stdio wrapper)')}`;
      });
    }, 90_000);
  }

  for (const scheme of ['http', 'https'] as const) {
    it(`forward, ${scheme}: mcpscope run --ui-port <U> -- gemini mcp list, the server at its real URL`, async () => {
      await cell('Gemini CLI', `forward, ${scheme}`, async () => {
        const g = geminiHome();
        const url = scheme === 'http' ? se.url : tls.url;
        expectExit0('gemini mcp add', await geminiRun(g, ['mcp', 'add', '-s', 'user', '--transport', 'http', 'se', url]));
        const before = await sessionIds(forward);
        const r = await runCommand(NODE, [BIN, 'run', '--ui-port', String(forward.uiPort), '--', 'gemini', 'mcp', 'list'], {
          env: g.env,
          cwd: g.cwd,
        });
        const listed = expectConnected('mcpscope run -- gemini mcp list', r);
        expect(r.stderr, 'mcpscope run joins the running forward mcpscope').toMatch(
          new RegExp(`recording into .*${forward.uiOrigin.replace(/\./g, '\\.')}/`),
        );
        expect(listed).toContain(url);
        return `${listed} — ${await expectRecorded(forward, before, byGemini(hasTarget(new URL(url).origin)), `gemini mcp list (forward, ${scheme})`)}`;
      });
    }, 90_000);
  }
});

describe("the MCP Inspector's launch lines in docs/clients.md and the README, run as written (the local Inspector CLI)", () => {
  const lines = inspectorDocsLines(ROOT);
  /** A reverse mcpscope started from the docs' own `mcpscope --target http://127.0.0.1:3001/mcp` line. */
  let docsReverse: ScopeCli | undefined;
  const reverseStart = lines.find((l) => kindOf(l.text).kind === 'reverse-start');
  beforeAll(async () => {
    if (!reverseStart) return;
    // On free ports (--port 0 --ui-port 0): 6481 and 6480 are not the test's.
    const argv = substitute(reverseStart.text, places());
    docsReverse = await startScopeCli([...argv.slice(2), '--port', '0', '--ui-port', '0', '--grace', '0'], {
      ...clientEnv(tempDir('mcpscope-clients-rev-', dirs), scopeHome, []),
      MCPSCOPE_TOKEN: '',
    });
  }, 60_000);
  afterAll(async () => {
    await docsReverse?.close();
  });

  const places = (): Places => ({
    mcpscope: [NODE, BIN],
    uiPort: forward.uiPort,
    inspector: [NODE, inspectorCliBin],
    serverJs: SE_STDIO,
    urls: {
      'https://mcp.example.com/mcp': tls.url,
      'http://127.0.0.1:3001/mcp': se.url,
      ...(docsReverse ? { 'http://127.0.0.1:6481/mcp': docsReverse.proxy } : {}),
    },
  });

  it('finds the lines: the run line, the stdio line, the reverse lines', () => {
    const kinds = lines.map((l) => kindOf(l.text));
    expect(
      kinds.some((k) => k.kind === 'cli' && k.via === 'run'),
      JSON.stringify(lines),
    ).toBe(true);
    expect(
      kinds.some((k) => k.kind === 'reverse-start'),
      JSON.stringify(lines),
    ).toBe(true);
    expect(
      kinds.some((k) => k.kind === 'cli' && k.via === 'reverse proxy'),
      JSON.stringify(lines),
    ).toBe(true);
    // The stdio line must be one the CLI runs: a line that lost its --cli would be skipped, not pass.
    expect(
      lines.some((l) => {
        const k = kindOf(l.text);
        return k.kind === 'cli' && k.via === 'stdio wrapper' && / mcpscope (-- )?node server\.js/.test(l.text);
      }),
      JSON.stringify(lines),
    ).toBe(true);
  });

  /** Runs an Inspector CLI line (from the Inspector's build/ folder: inspector-cli 1.0.3 runs only there, see peers.ts). */
  async function runInspectorLine(text: string, where: string, mode: Mode): Promise<void> {
    const kind = kindOf(text);
    if (kind.kind !== 'cli') throw new Error(`not a CLI line: ${text}`);
    const argv = substitute(text, places());
    const scope = kind.via === 'reverse proxy' ? docsReverse : forward;
    if (!scope) throw new Error(`${text}: no reverse mcpscope to connect to (the docs' \`mcpscope --target …\` line was not found)`);
    const before = await sessionIds(scope);
    const home = tempDir('inspector-home-', dirs);
    const r = await runCommand(argv[0], argv.slice(1), { env: clientEnv(home, scopeHome, []), cwd: INSPECTOR_DIR, timeoutMs: 60_000 });
    const what = `\`${text}\` (${where})`;
    if (r.code !== 0) throw new Error(describeRun(what, r));
    let tools: string[] = [];
    try {
      tools = (JSON.parse(r.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    } catch {
      throw new Error(`${what} printed no tools/list JSON on stdout\n${describeRun(what, r)}`);
    }
    if (!tools.includes('echo')) throw new Error(`${what} listed no echo tool: ${tools.join(', ')}`);
    const match = (s: SessionInfo) =>
      s.clientInfo?.name === 'inspector-cli' &&
      (kind.via === 'stdio wrapper' ? isStdioSe(s) : kind.via === 'run' ? s.target === tls.origin : s.target === se.url);
    const recorded = await expectRecorded(scope, before, match, what);
    outcomes.push({ client: 'MCP Inspector', mode, ok: true, text: `\`${text}\` — tools/list ${tools.length} tools — ${recorded}` });
  }

  for (const { where, text } of lines) {
    const kind = kindOf(text);
    if (kind.kind === 'elided' || kind.kind === 'web-ui') {
      // Not a test: a line the CLI cannot run is said in the report, never counted as passing.
      notes.push(`skipped \`${text}\` (${where}): ${kind.why}`);
      continue;
    }
    if (kind.kind === 'reverse-start') {
      it(`starts \`${text}\` (${where}) on free ports (--port 0 --ui-port 0: 6481 and 6480 are not the test's)`, () => {
        expect(docsReverse?.proxy, 'the reverse mcpscope started from this line').toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        notes.push(`\`${text}\` (${where}) started with --port 0 --ui-port 0; http://127.0.0.1:6481/mcp read as its printed proxy URL`);
      });
      continue;
    }
    const mode: Mode =
      kind.via === 'run'
        ? 'forward, https'
        : kind.via === 'reverse proxy'
          ? 'reverse'
          : / mcpscope (\S+ )*-- /.test(text)
            ? 'stdio, with --'
            : 'stdio, without --';
    it(`runs \`${text}\` (${where})`, async () => {
      try {
        await runInspectorLine(text, where, mode);
      } catch (e) {
        outcomes.push({ client: 'MCP Inspector', mode, ok: false, text: (e as Error).message });
        throw e;
      }
    }, 90_000);
  }
});
