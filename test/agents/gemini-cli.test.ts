/**
 * Issue 27's acceptance with the real Gemini CLI (npm @google/gemini-cli 0.61.0, a Node bundle,
 * installed by scripts/agent-clients.mjs into a cache folder outside the repository; run with
 * `npm run test:agents`), as claude-code.test.ts does it for Claude Code:
 * - `gemini mcp list` through `mcpscope run` health-checks server-everything over the forward proxy
 *   (no API key needed): mcpscope records the MCP session (initialize, then a ping — `mcp list`
 *   asks for no tools/list);
 * - `mcpscope run -- gemini -p … --yolo` joins a running forward mcpscope; Gemini CLI talks to an
 *   HTTPS stand-in of the Gemini API (test/support/model-apis/gemini-standin.ts) through the TLS
 *   interception, and to server-everything over HTTP.
 *
 * What Gemini CLI 0.61 needs (read in its bundle, chunk-*.js / gemini-*.js):
 * - the API base from `GOOGLE_GEMINI_BASE_URL` (its content generator passes it to @google/genai
 *   as `httpOptions.baseUrl`); that variable alone makes the auth type `gateway`, which its
 *   non-interactive check rejects ("Invalid auth method selected."), so the settings pin
 *   `security.auth.selectedType: "gemini-api-key"` (the base URL still applies) and
 *   `GEMINI_API_KEY` is the fake key;
 * - `-m gemini-2.5-flash`: with the default `auto` model it first asks a flash-lite classifier
 *   (NumericalClassifierStrategy, a generateJson call) which model to route to, retried 5 times
 *   against a stand-in that answers no JSON; a named model bypasses the router;
 * - no trust prompt: `GEMINI_CLI_TRUST_WORKSPACE=true` (what `--skip-trust` sets);
 * - offline: `privacy.usageStatisticsEnabled: false` (Clearcut logging to play.googleapis.com),
 *   `telemetry.enabled: false`, `general.enableAutoUpdate(Notification): false`; it honours
 *   `HTTPS_PROXY`/`NO_PROXY` (undici's EnvHttpProxyAgent as the global dispatcher) and
 *   `NODE_EXTRA_CA_CERTS`, so every host it reaches shows up in mcpscope: only 127.0.0.1 and
 *   localhost do;
 * - MCP tools are offered as `mcp_<server>_<tool>` (tool-names.ts); a functionCall the API sent
 *   without an id is given one by the client (`<name>_<Date.now()>_<index>`), which its history and
 *   functionResponse carry in the next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpscopeCore } from '../../proxy/app/mcpscope.js';
import type { MessageEvent, ModelTurnInfo, SessionInfo } from '../../proxy/core/model/events.js';
import type { RunningPeer } from '../support/peers.js';
import { startGeminiStandin, type GeminiStandin } from '../support/model-apis/gemini-standin.js';
import { callToolThenAnswer } from '../support/model-apis/script.js';
import type { CollectedFeed } from '../support/feed.js';
import { expectCostPerServer, expectUnchangedAndKeyless } from './agent-checks.js';
import { runProcess, startAgentRig, type AgentRig } from './agent-rig.js';
import { agentBin } from '../support/agent-clients.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const GEMINI = agentBin('gemini-cli');
const API_KEY = 'AIzaSyAGENTTESTKEY-0123456789abcdefABCD';
const MODEL = 'gemini-2.5-flash';
/** As the stand-in sends them: promptTokenCount, candidatesTokenCount, cachedContentTokenCount, thoughtsTokenCount. */
const USAGE = [
  { inputTokens: 14_210, cacheReadTokens: 0, outputTokens: 41, reasoningTokens: 17 },
  { inputTokens: 14_400, cacheReadTokens: 12_000, outputTokens: 15 },
] as const;

let rig: AgentRig<GeminiStandin>;
let caFile: string;
let api: GeminiStandin;
let se: RunningPeer;
let scope: McpscopeCore;
let feed: CollectedFeed;
let logFile: string;
let scopeHome: string;
let tmp: (prefix: string) => string;

beforeAll(async () => {
  rig = await startAgentRig((tls) =>
    startGeminiStandin({
      script: callToolThenAnswer({
        tool: 'mcp_se_echo',
        arguments: { message: 'hello from the model' },
        usage: [{ ...USAGE[0] }, { ...USAGE[1] }],
      }),
      tls,
    }),
  );
  ({ caFile, api, se, scope, feed, logFile, scopeHome, tmp } = rig);
}, 60_000);

afterAll(async () => {
  await rig?.close();
});

interface Gemini {
  env: NodeJS.ProcessEnv;
  /** A throwaway working folder (the workspace Gemini CLI reads and trusts). */
  cwd: string;
}

/** Gemini CLI with a throwaway HOME (settings as above) where `gemini mcp add` configured server-everything as `se`. */
async function gemini(): Promise<Gemini> {
  const home = tmp('gemini-home-');
  mkdirSync(join(home, '.gemini'));
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      security: { auth: { selectedType: 'gemini-api-key' } },
    }),
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    MCPSCOPE_HOME: scopeHome,
    MCPSCOPE_TOKEN: '',
    GEMINI_API_KEY: API_KEY,
    GOOGLE_GEMINI_BASE_URL: api.origin,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    // Run in this process rather than relaunch a child Node with a larger heap (a second start-up).
    GEMINI_CLI_NO_RELAUNCH: 'true',
  };
  const cwd = tmp('gemini-work-');
  const added = await runProcess(GEMINI, ['mcp', 'add', '--scope', 'user', '--transport', 'http', 'se', se.url], env, cwd);
  expect(added.code, added.stderr).toBe(0);
  return { env, cwd };
}

const throughScope = (args: string[]) => [BIN, 'run', '--ui-port', String(scope.ui!.port), '--', GEMINI, ...args];

const PROMPT = ['-p', 'call the echo tool', '--yolo', '-m', MODEL, '--output-format', 'json'];
/** Gemini CLI's own answer, without what changes run to run (session id, latencies). */
const answer = (stdout: string) => {
  const j = JSON.parse(stdout) as {
    response: string;
    stats: {
      models: Record<string, { api: { totalRequests: number; totalErrors: number }; tokens: unknown }>;
      tools: { totalCalls: number; totalSuccess: number; totalFail: number; byName: Record<string, { count: number; success: number }> };
    };
  };
  const m = j.stats.models[MODEL];
  const byName = Object.fromEntries(Object.entries(j.stats.tools.byName).map(([k, v]) => [k, { count: v.count, success: v.success }]));
  return {
    response: j.response,
    requests: m?.api.totalRequests,
    errors: m?.api.totalErrors,
    tokens: m?.tokens,
    tools: { calls: j.stats.tools.totalCalls, success: j.stats.tools.totalSuccess, fail: j.stats.tools.totalFail, byName },
  };
};

const hostOf = (url: string | undefined) => (url ? new URL(url).hostname : undefined);
const sessions = () => scope.store.snapshot().flatMap((e) => (e.type === 'session' ? [e.session as SessionInfo] : []));

describe('real Gemini CLI through mcpscope run, joined to the MCP wire', () => {
  let turns: ModelTurnInfo[];
  let messages: MessageEvent[];

  it('`gemini mcp list` checks server-everything through the forward proxy, and mcpscope records that MCP session', async () => {
    const g = await gemini();
    const listed = await runProcess(process.execPath, throughScope(['mcp', 'list']), g.env, g.cwd);
    expect(listed.code, listed.stderr).toBe(0);
    // Gemini CLI prints the list on stderr; the server keeps its real URL (a forward proxy).
    expect(listed.stdout + listed.stderr).toContain(`✓ se: ${se.url} (http) - Connected`);
    await scope.settle();
    const target = new URL(se.url).origin;
    const session = sessions().find((s) => s.target === target && s.transport === 'streamable-http');
    expect(session, JSON.stringify(sessions())).toBeDefined();
    const methods = scope.store
      .snapshot()
      .filter((e): e is MessageEvent => e.type === 'message' && e.sessionId === session!.id && e.kind === 'request')
      .map((m) => m.method);
    expect(methods[0]).toBe('initialize');
    expect(methods).toContain('ping');
    expect(session!.clientInfo?.name).toBeTruthy();
    // Gemini CLI 0.61 wraps the SDK's transport in its McpComplianceTransport, which does not pass
    // setProtocolVersion on: no request after initialize carries MCP-Protocol-Version, and mcpscope says so.
    const problems = scope.store.snapshot().filter((e) => e.type === 'problem' && e.sessionId === session!.id);
    expect(problems.map((p) => (p as { text: string }).text).join('\n')).toContain('no MCP-Protocol-Version header');
  }, 120_000);

  it('gives Gemini CLI the same answer as a direct run, and records both model turns with their usage', async () => {
    // Direct: the stand-in trusted through NODE_EXTRA_CA_CERTS, no proxy.
    const d = await gemini();
    const direct = await runProcess(GEMINI, PROMPT, { ...d.env, NODE_EXTRA_CA_CERTS: caFile }, d.cwd);
    expect(direct.code, direct.stderr).toBe(0);
    const callsBefore = api.modelCalls().length;
    const before = new Set(scope.store.turns.keys());
    const sessionsBefore = new Set(sessions().map((s) => s.id));

    const g = await gemini();
    const through = await runProcess(process.execPath, throughScope(PROMPT), g.env, g.cwd);
    expect(through.code, through.stderr).toBe(0);
    expect(answer(through.stdout)).toEqual(answer(direct.stdout));
    expect(answer(through.stdout)).toMatchObject({
      response: 'The tool said: <untrusted_context>\nEcho: hello from the model\n</untrusted_context>',
      requests: 2,
      errors: 0,
      tools: { calls: 1, success: 1, fail: 0, byName: { mcp_se_echo: { count: 1, success: 1 } } },
    });
    expect(api.modelCalls().length).toBe(callsBefore + 2);
    process.stderr.write(`gemini-cli: direct run ${direct.ms} ms, through mcpscope ${through.ms} ms\n`);

    await scope.settle();
    // The token estimates come from the tokenizer's thread, in a later upsert.
    await scope.waitFor((s) => {
      const fresh = [...s.turns.values()].filter((t) => !before.has(t.id));
      return fresh.length >= 2 && fresh.every((t) => t.status === 'done' && t.context);
    });
    turns = [...scope.store.turns.values()].filter((t) => !before.has(t.id));
    messages = scope.store.snapshot().filter((e): e is MessageEvent => e.type === 'message');
    // Offline: every host Gemini CLI reached (all of them through the proxy) is the stand-in or server-everything.
    const reached = sessions().filter((s) => !sessionsBefore.has(s.id));
    expect(new Set(reached.map((s) => hostOf(s.target)))).toEqual(new Set(['127.0.0.1', 'localhost']));

    // No session header: one agent is the client's user agent and the origin it talks to.
    expect(new Set(turns.map((t) => t.agent))).toEqual(
      new Set([`gemini-cli:GeminiCLI-tui/0.61.0/${MODEL} (linux; x64; terminal)@${api.origin}`]),
    );
    expect(turns.map((t) => [t.api, t.client, t.status, t.stream, t.model])).toEqual([
      ['gemini', 'gemini-cli', 'done', true, MODEL],
      ['gemini', 'gemini-cli', 'done', true, MODEL],
    ]);
    expect(turns[0].endpoint).toBe(`POST /v1beta/models/${MODEL}:streamGenerateContent`);
    expect(turns[0].usage).toEqual({ inputTokens: 14_210, outputTokens: 41, reasoningTokens: 17, totalInputTokens: 14_210 });
    expect(turns[1].usage).toEqual({ inputTokens: 2_400, cacheReadTokens: 12_000, outputTokens: 15, totalInputTokens: 14_400 });
    expect(turns[0].stopReason).toBe('STOP');
    expect(turns[0].firstTokenAt).toBeGreaterThanOrEqual(turns[0].startedAt);
    // The user's prompt is the newest entry of the first request.
    expect(turns[0].messages.at(-1)).toMatchObject({ role: 'user', kind: 'text', text: 'call the echo tool' });
  }, 240_000);

  it('links the functionCall to the MCP tools/call, both ways', () => {
    const [m1] = turns;
    expect(m1.toolCalls).toHaveLength(1);
    const use = m1.toolCalls[0];
    expect(use).toMatchObject({
      name: 'mcp_se_echo',
      server: 'se',
      tool: 'echo',
      arguments: { message: 'hello from the model' },
    });
    const call = messages.find((m) => m.seq === use.mcpCall?.seq)!;
    const result = messages.find((m) => m.seq === use.mcpResult?.seq)!;
    expect(call).toMatchObject({
      method: 'tools/call',
      kind: 'request',
      name: 'echo',
      modelCall: { turn: m1.id, callId: use.id, name: 'mcp_se_echo' },
    });
    expect(result).toMatchObject({ kind: 'response', pair: call.seq, modelCall: { turn: m1.id } });
    // What Gemini CLI carried back: its own id for the call, in the history and on the functionResponse.
    const next = api.modelCalls().at(-1)!.body as { contents: { role: string; parts: Record<string, { id?: string; name?: string }>[] }[] };
    const [asked, answered] = next.contents.slice(-2);
    expect(asked.parts[0].functionCall).toMatchObject({ name: 'mcp_se_echo', id: expect.stringMatching(/^mcp_se_echo_\d+_0$/) });
    expect(answered.parts[0].functionResponse).toMatchObject({ name: 'mcp_se_echo', id: asked.parts[0].functionCall.id });
  });

  // The call's id in m1 is the recorder's `gemini-0` (the API sent none); the functionResponse in
  // m2 carries Gemini CLI's own `mcp_se_echo_<ms>_0`: joined through the history's functionCall
  // (same name and arguments; turn-join.ts, sameCall). Failed before that.
  it('links the functionResponse to the next turn (compared with the MCP result)', () => {
    const [m1, m2] = turns;
    const use = m1.toolCalls[0];
    expect(use.resultTurn).toBe(m2.id);
    expect(m2.toolResults).toEqual([
      // Under Gemini CLI's own id for the call. Gemini CLI 0.61 wraps what the server answered in
      // `<untrusted_context>` tags before the model reads it: a change the comparison says in words.
      expect.objectContaining({
        callId: expect.stringMatching(/^mcp_se_echo_\d+_0$/),
        fromTurn: m1.id,
        mcpResult: use.mcpResult,
        compared: 'changed',
        note: "the client wrapped the server's 26 bytes in 67",
      }),
    ]);
  });

  it('costs the tools per server: se with every tool server-everything lists, in every request', () => {
    expectCostPerServer(turns, messages);
  });

  it('changes nothing on the wire, and keeps the API key out of the store, the feed, the exports and the log', async () => {
    const log = await expectUnchangedAndKeyless(scope, feed, logFile, API_KEY, turns[1].id);
    // It did go through: the stand-in saw it in x-goog-api-key.
    expect(api.modelCalls().at(-1)!.headers['x-goog-api-key']).toBe(API_KEY);
    expect(log).toMatch(/MODEL gemini-/);
  });
});
