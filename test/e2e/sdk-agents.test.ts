/**
 * The agent loops of test/support/sdk-agents.ts work: each runs its provider's official SDK
 * against its stand-in and an official-SDK MCP server (test/support/tls-peers.ts: `echo`, `add`),
 * directly, and through mcpscope (forward proxy over HTTPS with a throwaway CA; reverse proxy at
 * a stand-in). What is checked is the loop itself: the tool offered under the agent's name, the
 * MCP tools/call made with the model's arguments, the result carried back in the next request in
 * the provider's shape, the final text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';
import { startAnthropicStandin } from '../support/model-apis/anthropic-standin.js';
import { startGeminiStandin } from '../support/model-apis/gemini-standin.js';
import { startOpenAiStandin } from '../support/model-apis/openai-standin.js';
import { callToolThenAnswer, type ScriptUsage } from '../support/model-apis/script.js';
import type { RecordedRequest } from '../support/model-apis/script.js';
import { runAnthropicAgent, runGeminiAgent, runOpenAiChatAgent, runOpenAiResponsesAgent, type AgentRun } from '../support/sdk-agents.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { makeTestCa, startSdkServer, type SdkServer, type TestCa } from '../support/tls-peers.js';

const USAGE: [ScriptUsage, ScriptUsage] = [
  { inputTokens: 900, outputTokens: 20, cacheReadTokens: 100, cacheWriteTokens: 10 },
  { inputTokens: 950, outputTokens: 12 },
];
const script = () => callToolThenAnswer({ tool: 'echo', arguments: { message: 'from the model' }, usage: USAGE });

let mcp: SdkServer;
beforeAll(async () => void (mcp = await startSdkServer()));
afterAll(() => mcp?.close());

function expectLoop(run: AgentRun, offered: string) {
  expect(run.turns).toBe(2);
  expect(run.toolsOffered).toContain(offered);
  expect(run.toolCalls).toHaveLength(1);
  expect(run.toolCalls[0]).toMatchObject({
    modelName: offered,
    mcpName: 'echo',
    arguments: { message: 'from the model' },
    called: true,
    resultText: 'echo: from the model',
    isError: false,
  });
  expect(run.text).toBe('The tool said: echo: from the model');
  expect(run.transcript.map((e) => e.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  expect(run.mcpSessionId).toBeTruthy();
}

describe('each loop, directly against its stand-in', () => {
  it('Anthropic: mcp__se__echo offered, tool_result sent back, x-api-key as Claude Code sends it', async () => {
    const standin = await startAnthropicStandin({ script: script() });
    try {
      const run = await runAnthropicAgent({
        baseURL: standin.baseURL,
        mcp: { url: mcp.url },
        prompt: 'echo something',
        apiKey: 'sk-ant-test-1',
      });
      expectLoop(run, 'mcp__se__echo');
      expect(run.usage[0]).toMatchObject({
        input_tokens: 900,
        output_tokens: 20,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 10,
      });
      const [first, second] = standin.modelCalls();
      expect(first.headers['x-api-key']).toBe('sk-ant-test-1');
      expect(first.headers.authorization).toBeUndefined();
      expect(first.body).toMatchObject({
        stream: true,
        tools: expect.arrayContaining([expect.objectContaining({ name: 'mcp__se__echo', input_schema: expect.any(Object) })]),
      });
      const last = (second.body as { messages: { role: string; content: unknown }[] }).messages.at(-1)!;
      expect(last).toEqual({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: run.toolCalls[0].id, content: [{ type: 'text', text: 'echo: from the model' }] }],
      });
    } finally {
      await standin.close();
    }
  });

  it('OpenAI Chat Completions, streaming and not: role:"tool" result sent back', async () => {
    const standin = await startOpenAiStandin({ script: script() });
    try {
      for (const stream of [true, false]) {
        const before = standin.modelCalls().length;
        const run = await runOpenAiChatAgent({ baseURL: standin.baseURL, mcp: { url: mcp.url }, prompt: 'echo', stream });
        expectLoop(run, 'echo');
        expect(run.usage[0]).toMatchObject({ prompt_tokens: 900, completion_tokens: 20 });
        const second = standin.modelCalls()[before + 1].body as { stream?: boolean; messages: unknown[] };
        expect(second.stream ?? false).toBe(stream);
        expect(second.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: run.toolCalls[0].id, content: 'echo: from the model' });
      }
    } finally {
      await standin.close();
    }
  });

  it('OpenAI Responses: function_call_output sent back with the whole input (store: false)', async () => {
    const standin = await startOpenAiStandin({ script: script() });
    try {
      const run = await runOpenAiResponsesAgent({ baseURL: standin.baseURL, mcp: { url: mcp.url }, prompt: 'echo' });
      expectLoop(run, 'echo');
      expect(run.usage[1]).toMatchObject({ input_tokens: 950, output_tokens: 12 });
      const second = standin.modelCalls()[1].body as { input: { type?: string }[]; store: boolean };
      expect(second.store).toBe(false);
      expect(second.input.map((i) => i.type ?? 'message')).toEqual(['message', 'function_call', 'function_call_output']);
      expect(second.input.at(-1)).toEqual({ type: 'function_call_output', call_id: run.toolCalls[0].id, output: 'echo: from the model' });
    } finally {
      await standin.close();
    }
  });

  it('Gemini: bare names, functionResponse { output } sent back', async () => {
    const standin = await startGeminiStandin({ script: script() });
    try {
      const run = await runGeminiAgent({ baseURL: standin.baseURL, mcp: { url: mcp.url }, prompt: 'echo' });
      expectLoop(run, 'echo');
      expect(run.toolCalls[0].id).toBe('gemini-0');
      expect(run.usage[0]).toMatchObject({ promptTokenCount: 900, candidatesTokenCount: 20, cachedContentTokenCount: 100 });
      const second = standin.modelCalls()[1];
      expect(second.path).toBe('/v1beta/models/gemini-standin:streamGenerateContent');
      const contents = (second.body as { contents: unknown[] }).contents;
      expect(contents.at(-1)).toEqual({
        role: 'user',
        parts: [{ functionResponse: { name: 'echo', response: { output: 'echo: from the model' } } }],
      });
    } finally {
      await standin.close();
    }
  });

  it('arguments that are not JSON and a tool never offered: error results to the model, no MCP call', async () => {
    const standin = await startOpenAiStandin({
      script: [
        { toolCalls: [{ name: 'echo', arguments: { message: 'x' } }], fault: { kind: 'broken-json' } },
        { toolCalls: [{ name: 'nope', arguments: {} }] },
        { text: 'gave up' },
      ],
    });
    const rpcMethods: string[] = [];
    const recording: FetchLike = (url, init) => {
      if (typeof init?.body === 'string') rpcMethods.push(String((JSON.parse(init.body) as { method?: string }).method));
      return fetch(url, init);
    };
    try {
      const run = await runOpenAiChatAgent({ baseURL: standin.baseURL, mcp: { url: mcp.url, fetch: recording }, prompt: 'x' });
      expect(run.turns).toBe(3);
      expect(run.toolCalls.map((c) => [c.modelName, c.called, c.isError])).toEqual([
        ['echo', false, true],
        ['nope', false, true],
      ]);
      expect(run.text).toBe('gave up');
      expect(rpcMethods).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
      const third = standin.modelCalls()[2].body as { messages: { role: string; content: string }[] };
      expect(third.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Error: no such tool: nope' });
    } finally {
      await standin.close();
    }
  });
});

describe('through mcpscope', () => {
  let ca: TestCa;
  let tlsMcp: SdkServer;
  let scope: McpscopeCore;
  beforeAll(async () => {
    ca = await makeTestCa();
    tlsMcp = await startSdkServer({ tls: ca.leaf });
    scope = await startMcpscope({ forward: { port: 0, upstreamCa: [ca.ca.certPem] }, uiPort: 0 });
  });
  afterAll(async () => {
    await scope?.close();
    await tlsMcp?.close();
    ca?.remove();
  });

  it('the forward proxy for both sides: an HTTPS Anthropic stand-in and an HTTPS MCP server, decrypted with mcpscope’s CA', async () => {
    const standin = await startAnthropicStandin({ script: script(), tls: ca.leaf });
    try {
      const run = await runAnthropicAgent({
        baseURL: standin.baseURL,
        mcp: { url: tlsMcp.url },
        prompt: 'echo',
        forwardProxy: { origin: scope.forwardProxy!.origin, ca: scope.ca!.certPem },
      });
      expectLoop(run, 'mcp__se__echo');
      expect(standin.modelCalls()).toHaveLength(2);
      // mcpscope saw (decrypted) both sides.
      const seen = await scope.waitFor((s) => {
        const urls = [...s.exchanges.values()].map((x) => x.upstreamUrl ?? '');
        return urls.filter((u) => u === `${standin.origin}/v1/messages`).length === 2 && urls.some((u) => u === tlsMcp.url)
          ? urls
          : undefined;
      });
      expect(seen.length).toBeGreaterThan(2);
    } finally {
      await standin.close();
    }
  });

  it('a reverse mcpscope in front of the Gemini stand-in: just a baseURL', async () => {
    const standin = await startGeminiStandin({ script: script() });
    const reverse = await startMcpscope({ target: standin.origin, port: 0, uiPort: 0 });
    try {
      const run = await runGeminiAgent({ baseURL: reverse.proxy!.origin, mcp: { url: mcp.url }, prompt: 'echo' });
      expectLoop(run, 'echo');
      const calls: RecordedRequest[] = standin.modelCalls();
      expect(calls).toHaveLength(2);
      await reverse.waitFor((s) => ([...s.exchanges.values()].length >= 2 ? true : undefined));
    } finally {
      await reverse.close();
      await standin.close();
    }
  });
});
