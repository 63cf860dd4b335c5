/**
 * Issue 27's acceptance with the real Claude Code (npm @anthropic-ai/claude-code, a native binary,
 * installed by scripts/agent-clients.mjs into a cache folder outside the repository; run with
 * `npm run test:agents`): `mcpscope run -- claude -p … --allowedTools mcp__se__echo` joins a
 * running forward mcpscope; Claude Code talks to an HTTPS stand-in of the Anthropic Messages API
 * (test/support/model-apis/anthropic-standin.ts, proven with @anthropic-ai/sdk in
 * test/e2e/model-standins.test.ts) through the TLS interception and to server-everything over
 * HTTP. Offline: a fake key, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, a throwaway HOME.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { McpscopeCore } from '../../proxy/app/mcpscope.js';
import type { MessageEvent, ModelTurnInfo } from '../../proxy/core/model/events.js';
import type { RunningPeer } from '../support/peers.js';
import { startAnthropicStandin, type AnthropicStandin } from '../support/model-apis/anthropic-standin.js';
import { callToolThenAnswer } from '../support/model-apis/script.js';
import type { CollectedFeed } from '../support/feed.js';
import { expectCostPerServer, expectUnchangedAndKeyless } from './agent-checks.js';
import { runProcess, startAgentRig, type AgentRig } from './agent-rig.js';
import { agentBin } from '../support/agent-clients.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const CLAUDE = agentBin('claude-code');
const API_KEY = 'sk-ant-api03-AGENTTESTKEY-0123456789abcdefABCDEF';
const USAGE = [
  { inputTokens: 4, cacheWriteTokens: 31_334, cacheReadTokens: 0, outputTokens: 61 },
  { inputTokens: 120, cacheWriteTokens: 0, cacheReadTokens: 31_334, outputTokens: 12 },
] as const;

let rig: AgentRig<AnthropicStandin>;
let caFile: string;
let api: AnthropicStandin;
let se: RunningPeer;
let scope: McpscopeCore;
let feed: CollectedFeed;
let logFile: string;
let scopeHome: string;
let tmp: (prefix: string) => string;

beforeAll(async () => {
  rig = await startAgentRig((tls) =>
    startAnthropicStandin({
      script: callToolThenAnswer({
        tool: 'echo',
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

/** Claude Code with a throwaway HOME where `claude mcp add` configured server-everything as `se`. */
async function claudeEnv(): Promise<NodeJS.ProcessEnv> {
  const home = tmp('claude-home-');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    MCPSCOPE_HOME: scopeHome,
    MCPSCOPE_TOKEN: '',
    ANTHROPIC_BASE_URL: api.origin,
    ANTHROPIC_API_KEY: API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  const added = await runProcess(CLAUDE, ['mcp', 'add', '--transport', 'http', 'se', se.url], env);
  expect(added.code, added.stderr).toBe(0);
  return env;
}

const PROMPT = ['-p', 'call the echo tool', '--allowedTools', 'mcp__se__echo', '--output-format', 'json'];
/** Claude Code's own answer, without what changes run to run (ids, timings, cost). */
const answer = (stdout: string) => {
  const j = JSON.parse(stdout) as { result: string; num_turns: number; is_error: boolean; stop_reason: string };
  return { result: j.result, num_turns: j.num_turns, is_error: j.is_error, stop_reason: j.stop_reason };
};

describe('real Claude Code through mcpscope run, joined to the MCP wire', () => {
  let turns: ModelTurnInfo[];
  let messages: MessageEvent[];

  it('gives Claude Code the same answer as a direct run, and records both model turns with their usage', async () => {
    // Direct: the stand-in trusted through NODE_EXTRA_CA_CERTS, no proxy.
    const direct = await runProcess(CLAUDE, PROMPT, { ...(await claudeEnv()), NODE_EXTRA_CA_CERTS: caFile });
    expect(direct.code, direct.stderr).toBe(0);
    const callsBefore = api.modelCalls().length;

    // Claude Code may send its first request before its MCP servers are connected (then it offers
    // no mcp__se__* tool and the scripted model cannot choose one): its own race, retried once.
    let through: Awaited<ReturnType<typeof runProcess>> | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      const from = api.modelCalls().length;
      through = await runProcess(
        process.execPath,
        [BIN, 'run', '--ui-port', String(scope.ui!.port), '--', CLAUDE, ...PROMPT],
        await claudeEnv(),
      );
      const first = api.modelCalls()[from]?.body as { tools?: { name: string }[] } | undefined;
      if (first?.tools?.some((t) => t.name === 'mcp__se__echo')) break;
    }
    expect(through!.code, through!.stderr).toBe(0);
    expect(answer(through!.stdout)).toEqual(answer(direct.stdout));
    expect(answer(through!.stdout)).toMatchObject({ num_turns: 2, result: 'The tool said: Echo: hello from the model' });
    expect(api.modelCalls().length).toBeGreaterThan(callsBefore);

    await scope.settle();
    // The token estimates come from the tokenizer's thread, in a later upsert.
    await scope.waitFor((s) => {
      const last = [...s.turns.values()].at(-1);
      return last !== undefined && last.status === 'done' && last.toolResults.length > 0 && [...s.turns.values()].every((t) => t.context);
    });
    const all = [...scope.store.turns.values()];
    // The turns of the last run (one Claude Code session: one agent).
    const agent = all[all.length - 1].agent;
    turns = all.filter((t) => t.agent === agent);
    messages = scope.store.snapshot().filter((e): e is MessageEvent => e.type === 'message');
    expect(agent).toMatch(/^claude-code:[0-9a-f-]{36}$/);
    expect(turns).toHaveLength(2);
    expect(turns.map((t) => [t.api, t.client, t.status, t.stream])).toEqual([
      ['anthropic-messages', 'claude-code', 'done', true],
      ['anthropic-messages', 'claude-code', 'done', true],
    ]);
    expect(turns[0].usage).toEqual({
      inputTokens: 4,
      cacheWriteTokens: 31_334,
      cacheReadTokens: 0,
      outputTokens: 61,
      totalInputTokens: 31_338,
    });
    expect(turns[1].usage).toEqual({
      inputTokens: 120,
      cacheWriteTokens: 0,
      cacheReadTokens: 31_334,
      outputTokens: 12,
      totalInputTokens: 31_454,
    });
    expect(turns[0].stopReason).toBe('tool_use');
    expect(turns[1].stopReason).toBe('end_turn');
    expect(turns[0].firstTokenAt).toBeGreaterThanOrEqual(turns[0].startedAt);
  }, 180_000);

  it('links the tool use to the MCP tools/call and its result to the next turn’s tool_result, both ways', () => {
    const [m1, m2] = turns;
    expect(m1.toolCalls).toHaveLength(1);
    const use = m1.toolCalls[0];
    expect(use).toMatchObject({
      name: 'mcp__se__echo',
      server: 'se',
      tool: 'echo',
      arguments: { message: 'hello from the model' },
      resultTurn: m2.id,
    });
    const call = messages.find((m) => m.seq === use.mcpCall?.seq)!;
    const result = messages.find((m) => m.seq === use.mcpResult?.seq)!;
    expect(call).toMatchObject({
      method: 'tools/call',
      kind: 'request',
      name: 'echo',
      modelCall: { turn: m1.id, callId: use.id, name: 'mcp__se__echo' },
    });
    expect(result).toMatchObject({ kind: 'response', pair: call.seq, modelCall: { turn: m1.id } });
    expect(m2.toolResults).toEqual([
      expect.objectContaining({ callId: use.id, fromTurn: m1.id, mcpResult: use.mcpResult, compared: 'same' }),
    ]);
  });

  it('costs the tools per server: se with every tool server-everything lists, in every request', () => {
    expectCostPerServer(turns, messages);
  });

  it('changes nothing on the wire, and keeps the API key out of the store, the feed, the exports and the log', async () => {
    const log = await expectUnchangedAndKeyless(scope, feed, logFile, API_KEY, turns[1].id);
    // What it is there for: the log line of each turn.
    expect(log).toMatch(/MODEL claude-/);
  });
});
