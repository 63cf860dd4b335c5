/**
 * Model turns of every provider, recorded and joined over real sockets (issue 27): the official
 * SDK agent loops of test/support/sdk-agents.ts (Anthropic Messages, OpenAI Chat Completions and
 * Responses, Gemini; streaming and not) through one mcpscope — the forward proxy for both sides
 * (HTTPS stand-ins and an HTTPS MCP server, decrypted), and a reverse `target` at an
 * OpenAI-compatible gateway under /proxy/openai/v1 with the MCP server behind a second reverse
 * port — against the official-SDK MCP server of test/support/tls-peers.ts. Each turn's API,
 * model, usage (as the stand-in's script says it), stop reason and first token; the tool call
 * joined both ways to its MCP tools/call, its result to the next request's tool result
 * (compared `same`); the context cost; no key anywhere; nothing modified; the agent's own result
 * as in a direct run. Then what goes wrong: a cut stream, broken argument JSON, an error event,
 * two agents at once, another JSON API at /v1/messages, a Gemini key in the query.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { MessageEvent, ModelApi, ModelTurnInfo, ModelUsage } from '../../proxy/core/model/events.js';
import { exportNdjson } from '../../proxy/files/export/export-ndjson.js';
import { exportHar } from '../../proxy/files/export/export-har.js';
import { startAnthropicStandin, type AnthropicStandin } from '../support/model-apis/anthropic-standin.js';
import { startGeminiStandin, type GeminiStandin } from '../support/model-apis/gemini-standin.js';
import { startOpenAiStandin, type OpenAiStandin } from '../support/model-apis/openai-standin.js';
import { pickTool, type Script, type ScriptReply, type ScriptUsage } from '../support/model-apis/script.js';
import { sendJson, startStandinServer } from '../support/model-apis/standin-server.js';
import {
  runAnthropicAgent,
  runGeminiAgent,
  runOpenAiChatAgent,
  runOpenAiResponsesAgent,
  type AgentOptions,
  type AgentRun,
} from '../support/sdk-agents.js';
import { direct, makeTestCa, startSdkServer, viaProxy, type SdkServer, type TestCa } from '../support/tls-peers.js';
import { collectFeed, type CollectedFeed } from '../support/feed.js';

const KEYS = {
  anthropic: 'sk-ant-api03-E2EMODELTURNS-0123456789abcdefABCDEFghij',
  openai: 'sk-proj-E2EMODELTURNS-0123456789abcdefABCDEFghijklmn',
  gemini: 'AIzaSyE2EMODELTURNS-0123456789abcdefAB',
};
const USAGE: [ScriptUsage, ScriptUsage] = [
  { inputTokens: 900, outputTokens: 20, cacheReadTokens: 100, cacheWriteTokens: 10, reasoningTokens: 5 },
  { inputTokens: 950, outputTokens: 12, cacheReadTokens: 40, cacheWriteTokens: 0, reasoningTokens: 0 },
];
/** The models the stand-ins answer with (the requests ask for `claude-standin`, `gpt-standin`, `gemini-standin`). */
const ANSWERED = { anthropic: 'claude-standin-20250101', openai: 'gpt-standin-2025-01-01', gemini: 'gemini-standin-001' };

/** Call `echo` with the prompt as its message (call id from the prompt, so a direct run and one through mcpscope match), then answer its result. */
function script(idPrefix?: string): Script {
  return (ctx): ScriptReply => {
    const name = pickTool(ctx.toolNames, 'echo');
    if (ctx.toolResults.length > 0) return { text: `The tool said: ${ctx.toolResults.map((r) => r.text).join('\n')}`, usage: USAGE[1] };
    if (!ctx.toolNames.includes(name)) return { text: 'OK.', usage: USAGE[1] };
    const id = idPrefix !== undefined ? { id: `${idPrefix}_${(ctx.userText ?? '').replace(/\W+/g, '_')}` } : {};
    return { toolCalls: [{ name, arguments: { message: ctx.userText ?? '' }, ...id }], usage: USAGE[0] };
  };
}

/** What the recorder must report for USAGE: OpenAI and Gemini count the cached tokens in the prompt, the recorder not. */
function expectedUsage(api: ModelApi, i: 0 | 1): ModelUsage {
  const u = USAGE[i];
  if (api === 'anthropic-messages')
    return {
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      cacheReadTokens: u.cacheReadTokens,
      cacheWriteTokens: u.cacheWriteTokens,
      totalInputTokens: u.inputTokens + u.cacheReadTokens! + u.cacheWriteTokens!,
    };
  return {
    inputTokens: u.inputTokens - u.cacheReadTokens!,
    outputTokens: u.outputTokens,
    cacheReadTokens: u.cacheReadTokens,
    // The Gemini stand-in (as the API) leaves out a thoughtsTokenCount of 0; OpenAI says reasoning_tokens: 0.
    ...(api !== 'gemini' || u.reasoningTokens ? { reasoningTokens: u.reasoningTokens } : {}),
    totalInputTokens: u.inputTokens,
  };
}

let ca: TestCa;
let tlsMcp: SdkServer;
let plainMcp: SdkServer;
let anthropic: AnthropicStandin;
let openai: OpenAiStandin;
let gateway: OpenAiStandin;
let gemini: GeminiStandin;
let scope: Mcpscope;
let feed: CollectedFeed;
const GATEWAY_PREFIX = '/proxy/openai/v1';

beforeAll(async () => {
  ca = await makeTestCa();
  tlsMcp = await startSdkServer({ tls: ca.leaf });
  plainMcp = await startSdkServer();
  anthropic = await startAnthropicStandin({ script: script('toolu'), tls: ca.leaf, model: ANSWERED.anthropic });
  openai = await startOpenAiStandin({ script: script('call'), tls: ca.leaf, model: ANSWERED.openai });
  gateway = await startOpenAiStandin({ script: script('call'), model: ANSWERED.openai });
  gemini = await startGeminiStandin({ script: script(), tls: ca.leaf, model: ANSWERED.gemini });
  scope = await startMcpscope({
    forward: { port: 0, upstreamCa: [ca.ca.certPem] },
    target: `${gateway.origin}${GATEWAY_PREFIX}`,
    targetName: 'openai-gateway',
    moreTargets: [{ name: 'se', target: plainMcp.url, port: 0 }],
    port: 0,
    uiPort: 0,
  });
  feed = collectFeed(scope.ui!.url);
}, 60_000);

afterAll(async () => {
  feed?.close();
  await scope?.close();
  for (const s of [anthropic, openai, gateway, gemini]) await s?.close();
  await tlsMcp?.close();
  await plainMcp?.close();
  ca?.remove();
});

const forward = () => ({ forwardProxy: { origin: scope.forwardProxy!.origin, ca: scope.ca!.certPem } });
/** The MCP server behind mcpscope's second reverse port. */
const reverseMcpUrl = () => scope.proxies[1].origin + new URL(plainMcp.url).pathname;

interface Case {
  name: string;
  api: ModelApi;
  stream: boolean;
  via: 'forward' | 'reverse';
  offered: string;
  stops: [string, string];
  answered: string;
  key: string;
  run: (o: AgentOptions) => Promise<AgentRun>;
  /** The options of a run: through mcpscope, or direct. */
  options(through: boolean, prompt: string): AgentOptions;
}

function tlsCase(c: Omit<Case, 'options' | 'via'>, baseURL: () => string): Case {
  return {
    ...c,
    via: 'forward',
    options: (through, prompt) => {
      if (through) return { baseURL: baseURL(), mcp: { url: tlsMcp.url }, prompt, stream: c.stream, apiKey: c.key, ...forward() };
      const d = direct(ca.ca.certPem);
      return { baseURL: baseURL(), mcp: { url: tlsMcp.url, fetch: d.fetch }, fetch: d.fetch, prompt, stream: c.stream, apiKey: c.key };
    },
  };
}

const CASES: Case[] = [true, false].flatMap((stream): Case[] => [
  tlsCase(
    {
      name: 'Anthropic Messages',
      api: 'anthropic-messages',
      stream,
      offered: 'mcp__se__echo',
      stops: ['tool_use', 'end_turn'],
      answered: ANSWERED.anthropic,
      key: KEYS.anthropic,
      run: runAnthropicAgent,
    },
    () => anthropic.baseURL,
  ),
  {
    name: 'OpenAI Chat Completions',
    api: 'openai-chat',
    stream,
    via: 'reverse',
    offered: 'echo',
    stops: ['tool_calls', 'stop'],
    answered: ANSWERED.openai,
    key: KEYS.openai,
    run: runOpenAiChatAgent,
    options: (through, prompt) =>
      through
        ? { baseURL: scope.proxy.origin + GATEWAY_PREFIX, mcp: { url: reverseMcpUrl() }, prompt, stream, apiKey: KEYS.openai }
        : { baseURL: gateway.origin + GATEWAY_PREFIX, mcp: { url: plainMcp.url }, prompt, stream, apiKey: KEYS.openai },
  },
  tlsCase(
    {
      name: 'OpenAI Responses',
      api: 'openai-responses',
      stream,
      offered: 'echo',
      stops: ['completed', 'completed'],
      answered: ANSWERED.openai,
      key: KEYS.openai,
      run: runOpenAiResponsesAgent,
    },
    () => openai.baseURL,
  ),
  tlsCase(
    {
      name: 'Gemini',
      api: 'gemini',
      stream,
      offered: 'echo',
      stops: ['STOP', 'STOP'],
      answered: ANSWERED.gemini,
      key: KEYS.gemini,
      run: runGeminiAgent,
    },
    () => gemini.baseURL,
  ),
]);

const messages = () => scope.store.snapshot().filter((e): e is MessageEvent => e.type === 'message');

/** The turns made since `before`, once `done(turns)` holds (the estimates come later, from the tokenizer's thread). */
function newTurns(before: Set<string>, done: (t: ModelTurnInfo[]) => boolean): Promise<ModelTurnInfo[]> {
  return scope
    .waitFor((s) => {
      const t = [...s.turns.values()].filter((x) => !before.has(x.id));
      return done(t) ? t : undefined;
    }, 20_000)
    .catch((err: Error) => {
      const t = [...scope.store.turns.values()].filter((x) => !before.has(x.id));
      throw new Error(`${err.message}; the new turns: ${JSON.stringify(t, null, 1).slice(0, 6000)}`);
    });
}

const joinedLoop = (n: number) => (t: ModelTurnInfo[]) =>
  t.length === n &&
  t.every((x) => x.status !== 'pending' && x.context !== undefined) &&
  t.some((x) => x.toolResults.some((r) => r.compared !== undefined));

/** Without what differs run to run (the MCP session's id). */
const agentResult = (r: AgentRun) => ({ ...r, mcpSessionId: undefined });

describe.each(CASES)('$name (stream: $stream), through mcpscope ($via)', (c) => {
  let turns: ModelTurnInfo[];
  let run: AgentRun;
  const prompt = `${c.api} ${c.stream ? 'streaming' : 'whole'}`;

  it('the agent gets what it gets directly, and both turns are recorded as the script says', async () => {
    const directRun = await c.run(c.options(false, prompt));
    const before = new Set(scope.store.turns.keys());
    run = await c.run(c.options(true, prompt));
    expect(agentResult(run)).toEqual(agentResult(directRun));
    expect(run.text).toBe(`The tool said: echo: ${prompt}`);
    expect(run.toolCalls.map((x) => x.modelName)).toEqual([c.offered]);

    turns = await newTurns(before, joinedLoop(2));
    expect(turns.map((t) => [t.api, t.stream, t.status, t.model, t.responseModel, t.stopReason])).toEqual([
      [c.api, c.stream, 'done', requested(c.api), c.answered, c.stops[0]],
      [c.api, c.stream, 'done', requested(c.api), c.answered, c.stops[1]],
    ]);
    expect(turns[0].usage).toEqual(expectedUsage(c.api, 0));
    expect(turns[1].usage).toEqual(expectedUsage(c.api, 1));
    for (const t of turns) {
      expect(t.respondedAt).toBeGreaterThanOrEqual(t.startedAt);
      if (c.stream) {
        expect(t.firstTokenAt).toBeGreaterThanOrEqual(t.respondedAt!);
        expect(t.endedAt).toBeGreaterThanOrEqual(t.firstTokenAt!);
      } else expect(t.firstTokenAt).toBeUndefined();
      expect(t.endpoint).not.toContain('?');
    }
    if (c.via === 'reverse') expect(turns[0].endpoint).toBe(`POST ${GATEWAY_PREFIX}/chat/completions`);
  });

  it('joins the tool call to the MCP tools/call both ways, and its result to the next request (same)', () => {
    const [m1, m2] = turns;
    expect(m1.toolCalls).toHaveLength(1);
    const call = m1.toolCalls[0];
    expect(call).toMatchObject({ id: run.toolCalls[0].id, name: c.offered, arguments: { message: prompt }, resultTurn: m2.id });
    expect(call.mcpCall).toBeDefined();
    expect(call.mcpResult).toBeDefined();
    const all = messages();
    const request = all.find((m) => m.sessionId === call.mcpCall!.sessionId && m.seq === call.mcpCall!.seq)!;
    const response = all.find((m) => m.sessionId === call.mcpResult!.sessionId && m.seq === call.mcpResult!.seq)!;
    expect(request).toMatchObject({ method: 'tools/call', kind: 'request', name: 'echo' });
    expect((request.jsonrpc as { params: unknown }).params).toMatchObject({ name: 'echo', arguments: { message: prompt } });
    expect(request.modelCall).toEqual({ turn: m1.id, callId: call.id, name: c.offered });
    expect(response).toMatchObject({ kind: 'response', pair: request.seq, modelCall: { turn: m1.id, callId: call.id } });
    expect(m2.toolResults).toEqual([
      expect.objectContaining({ callId: call.id, fromTurn: m1.id, mcpResult: call.mcpResult, compared: 'same' }),
    ]);
    expect(m2.toolCalls).toEqual([]);
  });

  it('costs the tools offered, per server, in both requests', () => {
    for (const t of turns) {
      const ctx = t.context!;
      expect(ctx.encoding).toContain('o200k_base');
      expect(ctx.servers.reduce((n, s) => n + s.tools, 0)).toBe(run.toolsOffered.length);
      // Anthropic's mcp__se__<tool> names say the server; the bare names of the others are the
      // tools an MCP session lists, named by its server (startSdkServer's serverInfo: tls-peer).
      const server = ctx.servers.find((s) => s.server === (c.api === 'anthropic-messages' ? 'se' : 'tls-peer'))!;
      expect(server.tools).toBe(run.toolsOffered.length);
      expect(server.tokens).toBeGreaterThan(10);
      expect(server.share).toBeCloseTo(server.tokens / t.usage!.totalInputTokens!, 6);
      expect(ctx.toolsTokens).toBe(server.tokens);
    }
  });
});

function requested(api: ModelApi): string {
  return api === 'anthropic-messages' ? 'claude-standin' : api === 'gemini' ? 'gemini-standin' : 'gpt-standin';
}

describe('what is kept', () => {
  it('keeps no API key in the store, the feed or the exports, and modifies nothing', async () => {
    const last = [...scope.store.turns.values()].at(-1)!;
    await feed.until((events) => events.some((e) => e.type === 'model-turn' && e.turn.id === last.id && e.turn.context));
    const places = {
      store: JSON.stringify(scope.store.history()),
      feed: JSON.stringify(feed.events),
      ndjson: exportNdjson(scope.store),
      har: JSON.stringify(exportHar(scope.store)),
    };
    for (const [where, text] of Object.entries(places))
      for (const [provider, key] of Object.entries(KEYS)) expect(text.includes(key), `${provider} key in ${where}`).toBe(false);
    expect(scope.store.snapshot().filter((e) => e.type === 'modification')).toEqual([]);
    // The turns are there (16: each provider's two turns, streaming and not).
    expect(scope.store.turns.size).toBeGreaterThanOrEqual(16);
  });
});

describe('what goes wrong, over real sockets', () => {
  const since = () => new Set(scope.store.turns.keys());
  const turnsAfter = (before: Set<string>, n: number, ready: (t: ModelTurnInfo) => boolean = (t) => t.status !== 'pending') =>
    newTurns(before, (t) => t.length >= n && t.every(ready));

  it('a stream cut mid-way: the turn is cut, kept as far as it came, said in a hint', async () => {
    const standin = await startOpenAiStandin({
      script: [
        {
          text: 'Let me look that up for you.',
          toolCalls: [{ name: 'echo', arguments: { message: 'cut' } }],
          fault: { kind: 'cut', afterEvents: 3 },
        },
      ],
      tls: ca.leaf,
    });
    try {
      const before = since();
      await expect(
        runOpenAiChatAgent({ baseURL: standin.baseURL, mcp: { url: tlsMcp.url }, prompt: 'cut', ...forward() }),
      ).rejects.toThrow();
      const [t] = await turnsAfter(before, 1);
      expect(t).toMatchObject({ api: 'openai-chat', status: 'cut', toolCalls: [] });
      expect(t.output.map((o) => o.kind)).toEqual(['text']);
      expect(t.output[0].text.length).toBeGreaterThan(0);
      expect('Let me look that up for you.'.startsWith(t.output[0].text)).toBe(true);
      expect(t.hints.map((h) => h.code)).toContain('model-stream-cut');
    } finally {
      await standin.close();
    }
  });

  it('broken JSON in the argument deltas: the call is kept with its text and why, never joined; the next turn says no MCP call', async () => {
    const standin = await startOpenAiStandin({
      script: [{ toolCalls: [{ name: 'echo', arguments: { message: 'broken' } }], fault: { kind: 'broken-json' } }, { text: 'gave up' }],
      tls: ca.leaf,
    });
    try {
      const before = since();
      const run = await runOpenAiChatAgent({ baseURL: standin.baseURL, mcp: { url: tlsMcp.url }, prompt: 'broken', ...forward() });
      expect(run.toolCalls.map((c) => c.called)).toEqual([false]);
      const [m1, m2] = await turnsAfter(before, 2);
      expect(m1.status).toBe('done');
      expect(m1.toolCalls).toHaveLength(1);
      expect(m1.toolCalls[0].arguments).toBeUndefined();
      expect(m1.toolCalls[0].argumentsText).toBe(run.toolCalls[0].rawArguments);
      expect(m1.toolCalls[0].argumentsError).toBeTruthy();
      expect(m1.toolCalls[0].mcpCall).toBeUndefined();
      expect(m2.toolResults).toEqual([expect.objectContaining({ callId: run.toolCalls[0].id, fromTurn: m1.id })]);
      expect(m2.toolResults[0].mcpResult).toBeUndefined();
      expect(m2.toolResults[0].compared).toBeUndefined();
    } finally {
      await standin.close();
    }
  });

  it('an error event: the turn is an error with the API’s type and message', async () => {
    const standin = await startAnthropicStandin({
      script: [{ text: 'partial', fault: { kind: 'error-event', afterEvents: 2, errorType: 'overloaded_error', message: 'Overloaded' } }],
      tls: ca.leaf,
    });
    try {
      const before = since();
      await expect(
        runAnthropicAgent({ baseURL: standin.baseURL, mcp: { url: tlsMcp.url }, prompt: 'err', ...forward() }),
      ).rejects.toThrow();
      const [t] = await turnsAfter(before, 1);
      expect(t).toMatchObject({ api: 'anthropic-messages', status: 'error' });
      expect(t.error).toContain('overloaded_error');
      expect(t.error).toContain('Overloaded');
    } finally {
      await standin.close();
    }
  });

  it('two agents through one proxy at once, each joined to its own turns (told apart by a session header, and by arguments alone)', async () => {
    const sessions = ['7f1c2d9e-0000-4000-8000-00000000000a', '7f1c2d9e-0000-4000-8000-00000000000b'];
    const before = since();
    const runs = await Promise.all([
      ...sessions.map((id, i) =>
        runAnthropicAgent({
          baseURL: anthropic.baseURL,
          mcp: { url: tlsMcp.url },
          prompt: `agent ${i}`,
          headers: { 'x-claude-code-session-id': id },
          ...forward(),
        }),
      ),
      // The same user agent through the same port: one agent key, two MCP sessions.
      ...[2, 3].map((i) =>
        runOpenAiResponsesAgent({ baseURL: openai.baseURL, mcp: { url: tlsMcp.url }, prompt: `agent ${i}`, ...forward() }),
      ),
    ]);
    for (const [i, r] of runs.entries()) expect(r.text).toBe(`The tool said: echo: agent ${i}`);
    const turns = await newTurns(before, joinedLoop(8));
    const all = messages();
    for (const [i, r] of runs.entries()) {
      const prompt = `agent ${i}`;
      const m1 = turns.find(
        (t) => t.toolCalls[0]?.arguments !== undefined && (t.toolCalls[0].arguments as { message: string }).message === prompt,
      )!;
      if (i < 2) expect(m1.agent).toBe(`claude-code:${sessions[i]}`);
      const call = m1.toolCalls[0];
      const request = all.find((m) => m.sessionId === call.mcpCall?.sessionId && m.seq === call.mcpCall.seq)!;
      expect((request.jsonrpc as { params: unknown }).params).toMatchObject({ name: 'echo', arguments: { message: prompt } });
      expect(request.modelCall).toEqual({ turn: m1.id, callId: call.id, name: r.toolCalls[0].modelName });
      const m2 = turns.find((t) => t.id === call.resultTurn)!;
      expect(m2.toolResults).toEqual([
        expect.objectContaining({ callId: call.id, fromTurn: m1.id, mcpResult: call.mcpResult, compared: 'same' }),
      ]);
      expect(m2.agent).toBe(m1.agent);
    }
    // The two MCP sessions of the Responses agents are two, each carrying its own call.
    const sids = [2, 3].map(
      (i) =>
        turns.find((t) => (t.toolCalls[0]?.arguments as { message?: string } | undefined)?.message === `agent ${i}`)!.toolCalls[0].mcpCall!
          .sessionId,
    );
    expect(new Set(sids).size).toBe(2);
  });

  it('a JSON API of another shape at /v1/messages: plain HTTP, no turn', async () => {
    const chat = await startStandinServer((req, res) => sendJson(res, 200, { ok: true, id: 'msg-1', got: req.body }));
    const client = viaProxy(scope.forwardProxy!.origin, { tunnel: false });
    try {
      const before = since();
      const res = await client.fetch(`${chat.origin}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: 'alice', messages: 'hello there', model: 7 }),
      });
      expect(res.status).toBe(200);
      await res.text();
      const ex = await scope.waitFor((s) =>
        [...s.exchanges.values()].find((x) => x.upstreamUrl === `${chat.origin}/v1/messages` && x.endedAt !== undefined),
      );
      await scope.settle();
      expect(ex.status).toBe(200);
      expect([...scope.store.turns.values()].filter((t) => !before.has(t.id))).toEqual([]);
    } finally {
      await client.close();
      await chat.close();
    }
  });

  it('a Gemini key sent as ?key= reaches neither the turn’s endpoint nor anything kept', async () => {
    const key = 'AIzaSyQUERYKEYE2E-0123456789abcdefABCDE';
    const standin = await startGeminiStandin({ script: script(), tls: ca.leaf });
    const proxied = viaProxy(scope.forwardProxy!.origin, { ca: scope.ca!.certPem });
    // The key moved from the header into the query, as curl examples and some clients send it.
    const inQuery: typeof proxied.fetch = (url, init) => {
      const u = new URL(String(url));
      const headers = new Headers(init?.headers);
      headers.delete('x-goog-api-key');
      u.searchParams.set('key', key);
      return proxied.fetch(u, { ...init, headers });
    };
    try {
      const before = since();
      const run = await runGeminiAgent({
        baseURL: standin.baseURL,
        mcp: { url: tlsMcp.url },
        prompt: 'query key',
        apiKey: key,
        fetch: inQuery,
        ...forward(),
      });
      expect(run.text).toBe('The tool said: echo: query key');
      expect(standin.modelCalls().map((c) => c.query.key)).toEqual([key, key]);
      expect(standin.modelCalls().every((c) => c.headers['x-goog-api-key'] === undefined)).toBe(true);
      const turns = await newTurns(before, joinedLoop(2));
      expect(turns.map((t) => t.endpoint)).toEqual([
        'POST /v1beta/models/gemini-standin:streamGenerateContent',
        'POST /v1beta/models/gemini-standin:streamGenerateContent',
      ]);
      expect(turns[1].toolResults[0].compared).toBe('same');
      await feed.until((events) => events.some((e) => e.type === 'model-turn' && e.turn.id === turns[1].id && e.turn.context));
      const places = {
        store: JSON.stringify(scope.store.history()),
        feed: JSON.stringify(feed.events),
        ndjson: exportNdjson(scope.store),
        har: JSON.stringify(exportHar(scope.store)),
      };
      for (const [where, text] of Object.entries(places)) expect(text.includes(key), where).toBe(false);
    } finally {
      await proxied.close();
      await standin.close();
    }
  });
});
