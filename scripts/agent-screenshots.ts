/**
 * The agent view's screenshots from a real Claude Code run (issue 27): `npx tsx
 * scripts/agent-screenshots.ts [dir]` (needs `npm run build` for the UI in dist/, and the pinned
 * Claude Code from `node scripts/agent-clients.mjs`). The same world as
 * test/agents/claude-code.test.ts: `mcpscope run -- claude -p "call the echo tool"` joins a forward
 * mcpscope started here; Claude Code talks to an HTTPS stand-in of the Anthropic Messages API
 * (scripted: a short text and mcp__se__echo, then the result, with usage like Claude Code's real
 * requests: ~31k input tokens written to the cache on the first turn, read from it on the next)
 * and to server-everything over HTTP. Offline: a fake key, a throwaway HOME.
 * Writes docs/images/agent-loop.png (All sessions: turn → tools/call → result → next turn, the
 * first turn's Model tab) and docs/images/agent-context.png (the Context view: se's tools against
 * Claude Code's built-in ones), in Debian's Chromium (test/support/browser.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMcpscope } from '../proxy/app/mcpscope.js';
import { makeTestCa } from '../test/support/tls-peers.js';
import { startEverythingServer } from '../test/support/peers.js';
import { startAnthropicStandin } from '../test/support/model-apis/anthropic-standin.js';
import { callToolThenAnswer, type ScriptReply, type TurnContext } from '../test/support/model-apis/script.js';
import { agentBin } from '../test/support/agent-clients.js';
import { launchBrowser } from '../test/support/browser.js';

const images = process.argv[2] ? resolve(process.argv[2]) : fileURLToPath(new URL('../docs/images/', import.meta.url));
mkdirSync(images, { recursive: true });
const BIN = fileURLToPath(new URL('../bin/mcpscope.js', import.meta.url));
const CLAUDE = agentBin('claude-code');
const dirs: string[] = [];
const tmp = (p: string) => {
  const d = mkdtempSync(join(tmpdir(), p));
  dirs.push(d);
  return d;
};

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

/**
 * A model takes a while before its first token. The script is synchronous, so the wait is a busy
 * one, here on the main thread; the proxy forwards and timestamps on its own thread, so the turn's
 * time to first token reads as this wait.
 */
function thinkFor(ms: number, reply: (ctx: TurnContext) => ScriptReply): (ctx: TurnContext) => ScriptReply {
  return (ctx) => {
    const until = Date.now() + ms;
    while (Date.now() < until);
    return reply(ctx);
  };
}

const ca = await makeTestCa();
const api = await startAnthropicStandin({
  script: thinkFor(
    900,
    callToolThenAnswer({
      tool: 'echo',
      arguments: { message: 'hello from the model' },
      preamble: "I'll call the echo tool.",
      answer: (results) => `The echo tool answered: "${results.map((r) => r.text).join(' ')}".`,
      usage: [
        { inputTokens: 4, cacheWriteTokens: 31_334, cacheReadTokens: 0, outputTokens: 61 },
        { inputTokens: 120, cacheWriteTokens: 0, cacheReadTokens: 31_334, outputTokens: 18 },
      ],
    }),
  ),
  tls: ca.leaf,
});
const se = await startEverythingServer('streamableHttp');
const scopeHome = tmp('mcpscope-agent-shots-home-');
process.env.MCPSCOPE_HOME = scopeHome;
const scope = await startMcpscope({ forward: { port: 0, upstreamCa: [ca.ca.certPem] }, uiPort: 0, discoveryFile: true });
const browser = await launchBrowser();

try {
  const home = tmp('claude-home-');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    MCPSCOPE_HOME: scopeHome,
    MCPSCOPE_TOKEN: '',
    ANTHROPIC_BASE_URL: api.origin,
    ANTHROPIC_API_KEY: 'sk-ant-api03-SCREENSHOTKEY-0123456789abcdefABCDEF',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  const added = await run(CLAUDE, ['mcp', 'add', '--transport', 'http', 'se', se.url], env);
  if (added.code !== 0) throw new Error(`claude mcp add: ${added.stderr}`);
  const prompt = ['-p', 'call the echo tool', '--allowedTools', 'mcp__se__echo'];
  // Claude Code may send its first request before its MCP servers are connected (no mcp__se__*
  // offered): its own race, tried again (test/agents/claude-code.test.ts does the same).
  for (let attempt = 0; ; attempt++) {
    const from = api.modelCalls().length;
    const ran = await run(process.execPath, [BIN, 'run', '--ui-port', String(scope.ui!.port), '--', CLAUDE, ...prompt], env);
    if (ran.code !== 0) throw new Error(`claude: ${ran.stderr}`);
    const first = api.modelCalls()[from]?.body as { tools?: { name: string }[] } | undefined;
    if (first?.tools?.some((t) => t.name === 'mcp__se__echo')) {
      console.log(`Claude Code answered: ${ran.stdout.trim()}`);
      break;
    }
    if (attempt === 2) throw new Error('Claude Code never offered mcp__se__echo');
    // A run that missed the tool leaves its turns in the store; the screenshots select the last run's.
  }
  await scope.settle();
  await scope.waitFor((s) => {
    const all = [...s.turns.values()];
    const last = all.at(-1);
    return last !== undefined && last.status === 'done' && last.toolResults.length > 0 && all.every((t) => t.context);
  });
  const all = [...scope.store.turns.values()];
  const agent = all[all.length - 1].agent;
  const turns = all.filter((t) => t.agent === agent);
  const first = turns.find((t) => t.toolCalls.length > 0)!;

  const page = await browser.newPage({ viewport: { width: 1880, height: 1080 } });
  await page.goto(scope.ui!.url);
  await page.locator(`[data-testid="row"][data-key="t${first.id}"] .c-time`).click();
  await page.getByTestId('model-tab').waitFor();
  await page.mouse.move(0, 0);
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(images, 'agent-loop.png') });
  await page.getByTestId('context-open').click();
  await page.getByTestId('context-panel').waitFor();
  // Claude Code's own tools folded to their total, so that se's tools show one by one beside it.
  await page.locator('[data-testid="context-server"][data-server="(built-in)"] > button').click();
  await page.mouse.move(0, 0);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(images, 'agent-context.png') });
  await page.close();
  console.log(`wrote ${join(images, 'agent-loop.png')} and agent-context.png`);
} finally {
  await browser.close();
  await scope.close();
  await se.close();
  await api.close();
  ca.remove();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
