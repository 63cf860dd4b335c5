/**
 * A hand-made agent loop as stored events (issue 27), for the tests of what reads model turns (UI,
 * exports, the annotated log, `mcpscope mcp`, OTLP) while the recorder's own output is not needed:
 * Claude Code asks the Anthropic Messages API (turn m1), the model chooses `mcp__se__echo`, the
 * client calls `tools/call echo` on MCP session s1, and the result goes back in the next request
 * (turn m2), which answers with text. Shaped exactly as proxy/core/model/model-turn.ts says; seqs as the
 * store would give them. test/support/scripted-agent.ts drives the real recorder instead.
 */
import type { McpscopeEvent, ModelTurnInfo, SessionInfo, UnsequencedEvent } from '../../proxy/core/model/events.js';

export const SAMPLE_START = Date.UTC(2026, 0, 15, 9, 30, 0);
const t = (ms: number) => SAMPLE_START + ms;

const counts = (messages: number, requests: number, exchanges: number) => ({ messages, requests, pending: 0, errors: 0, exchanges });

const mcpSession: SessionInfo = {
  id: 's1',
  transport: 'streamable-http',
  target: 'http://127.0.0.1:3001/mcp',
  mcpSessionId: 'sess-1',
  protocolVersion: '2025-06-18',
  clientInfo: { name: 'claude-code', version: '2.1.197' },
  serverInfo: { name: 'example-servers/everything', version: '1.0.0' },
  startedAt: t(0),
  status: 'open',
  counts: counts(6, 3, 3),
};

const apiSession: SessionInfo = {
  id: 's2',
  transport: 'http',
  target: 'https://api.anthropic.com',
  grouping: 'Model API traffic to https://api.anthropic.com',
  startedAt: t(100),
  status: 'open',
  counts: counts(0, 0, 2),
};

const tools = [
  { name: 'Bash', descriptionBytes: 1800, schemaBytes: 420, descriptionTokens: 390, schemaTokens: 110 },
  { name: 'mcp__se__echo', server: 'se', tool: 'echo', descriptionBytes: 26, schemaBytes: 130, descriptionTokens: 6, schemaTokens: 38 },
  { name: 'mcp__se__add', server: 'se', tool: 'add', descriptionBytes: 24, schemaBytes: 180, descriptionTokens: 6, schemaTokens: 52 },
];

const context = (total: number) => ({
  encoding: 'o200k_base (js-tiktoken)',
  requestBytes: 86_000,
  toolsBytes: 2580,
  toolsTokens: 602,
  servers: [
    { server: '(built-in)', tools: 1, bytes: 2220, tokens: 500, descriptionTokens: 390, schemaTokens: 110, share: 500 / total },
    { server: 'se', tools: 2, bytes: 360, tokens: 102, descriptionTokens: 12, schemaTokens: 90, share: 102 / total, sessionId: 's1' },
  ],
});

export const TURN_1: ModelTurnInfo = {
  id: 'm1',
  exchangeId: 'x4',
  sessionId: 's2',
  api: 'anthropic-messages',
  client: 'claude-code',
  agent: 'claude-code:7f1c2d9e',
  endpoint: 'POST /v1/messages',
  model: 'claude-sonnet-4-5',
  stream: true,
  startedAt: t(100),
  respondedAt: t(180),
  firstTokenAt: t(240),
  endedAt: t(400),
  status: 'done',
  stopReason: 'tool_use',
  usage: { inputTokens: 4, outputTokens: 61, cacheReadTokens: 0, cacheWriteTokens: 31_334, totalInputTokens: 31_338 },
  system: { role: 'system', kind: 'text', text: 'You are Claude Code, …', bytes: 24 },
  maxTokens: 32000,
  messageCount: 1,
  messagesFrom: 0,
  messages: [{ role: 'user', kind: 'text', text: 'call the echo tool with hello', bytes: 29 }],
  tools,
  output: [
    { role: 'assistant', kind: 'text', text: 'I will call the echo tool.', bytes: 26 },
    { role: 'assistant', kind: 'tool-use', text: '{"message":"hello"}', bytes: 19, callId: 'toolu_01', name: 'mcp__se__echo' },
  ],
  toolCalls: [
    {
      id: 'toolu_01',
      name: 'mcp__se__echo',
      server: 'se',
      tool: 'echo',
      arguments: { message: 'hello' },
      mcpCall: { sessionId: 's1', seq: 9 },
      mcpResult: { sessionId: 's1', seq: 10 },
      resultTurn: 'm2',
    },
  ],
  toolResults: [],
  context: context(31_338),
  hints: [],
};

export const TURN_2: ModelTurnInfo = {
  ...TURN_1,
  id: 'm2',
  exchangeId: 'x6',
  startedAt: t(600),
  respondedAt: t(650),
  firstTokenAt: t(700),
  endedAt: t(800),
  stopReason: 'end_turn',
  usage: { inputTokens: 120, outputTokens: 12, cacheReadTokens: 31_334, cacheWriteTokens: 0, totalInputTokens: 31_454 },
  messageCount: 3,
  messagesFrom: 1,
  messages: [
    { role: 'assistant', kind: 'tool-use', text: '{"message":"hello"}', bytes: 19, callId: 'toolu_01', name: 'mcp__se__echo' },
    { role: 'user', kind: 'tool-result', text: 'Echo: hello', bytes: 11, callId: 'toolu_01' },
  ],
  output: [{ role: 'assistant', kind: 'text', text: 'The echo tool said: Echo: hello', bytes: 31 }],
  toolCalls: [],
  toolResults: [{ callId: 'toolu_01', fromTurn: 'm1', mcpResult: { sessionId: 's1', seq: 10 }, bytes: 11, compared: 'same' }],
  context: context(31_454),
};

const exchange = (id: string, sessionId: string, url: string, startedAt: number, endedAt: number, responseType: string) => ({
  id,
  sessionId,
  method: 'POST',
  url,
  requestHeaders: { 'content-type': 'application/json', 'x-api-key': '[redacted]' },
  status: 200,
  requestType: 'application/json',
  responseType,
  startedAt,
  respondedAt: startedAt + 50,
  endedAt,
  requestBytes: 86_000,
  responseBytes: 1200,
  plain: true,
  hints: [],
});

/** The events in store order: MCP session s1 (initialize, tools/list), turn m1, tools/call echo (joined), turn m2. */
export function sampleAgentEvents(): McpscopeEvent[] {
  const events: UnsequencedEvent[] = [
    { type: 'session', ts: t(0), session: { ...mcpSession, counts: counts(0, 0, 0) } },
    {
      type: 'message',
      ts: t(5),
      sessionId: 's1',
      exchangeId: 'x1',
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      jsonrpc: {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code', version: '2.1.197' } },
      },
      size: 120,
      id: 0,
      method: 'initialize',
      hints: [],
    },
    {
      type: 'message',
      ts: t(20),
      sessionId: 's1',
      exchangeId: 'x1',
      dir: 's2c',
      kind: 'response',
      carrier: 'post-json',
      jsonrpc: {
        jsonrpc: '2.0',
        id: 0,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'example-servers/everything', version: '1.0.0' },
        },
      },
      size: 140,
      id: 0,
      method: 'initialize',
      pair: 2,
      latencyMs: 15,
      hints: [],
    },
    {
      type: 'message',
      ts: t(30),
      sessionId: 's1',
      exchangeId: 'x2',
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      jsonrpc: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      size: 46,
      id: 1,
      method: 'tools/list',
      hints: [],
    },
    {
      type: 'message',
      ts: t(40),
      sessionId: 's1',
      exchangeId: 'x2',
      dir: 's2c',
      kind: 'response',
      carrier: 'post-json',
      jsonrpc: {
        jsonrpc: '2.0',
        id: 1,
        result: {
          tools: [
            {
              name: 'echo',
              description: 'Echoes back the input',
              inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
            },
            {
              name: 'add',
              description: 'Adds two numbers',
              inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
            },
          ],
        },
      },
      size: 300,
      id: 1,
      method: 'tools/list',
      pair: 4,
      latencyMs: 10,
      hints: [],
    },
    { type: 'session', ts: t(100), session: { ...apiSession, counts: counts(0, 0, 1) } },
    { type: 'exchange', ts: t(100), exchange: exchange('x4', 's2', '/v1/messages?beta=true', t(100), t(400), 'text/event-stream') },
    {
      type: 'model-turn',
      ts: t(400),
      sessionId: 's2',
      turn: { ...TURN_1, toolCalls: [{ ...TURN_1.toolCalls[0], mcpCall: undefined, mcpResult: undefined, resultTurn: undefined }] },
    },
    {
      type: 'message',
      ts: t(450),
      sessionId: 's1',
      exchangeId: 'x5',
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      jsonrpc: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hello' } } },
      size: 80,
      id: 2,
      method: 'tools/call',
      name: 'echo',
      modelCall: { turn: 'm1', callId: 'toolu_01', name: 'mcp__se__echo' },
      hints: [],
    },
    {
      type: 'message',
      ts: t(470),
      sessionId: 's1',
      exchangeId: 'x5',
      dir: 's2c',
      kind: 'response',
      carrier: 'post-json',
      jsonrpc: { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Echo: hello' }] } },
      size: 70,
      id: 2,
      method: 'tools/call',
      name: 'echo',
      pair: 9,
      latencyMs: 20,
      modelCall: { turn: 'm1', callId: 'toolu_01', name: 'mcp__se__echo' },
      hints: [],
    },
    {
      type: 'model-turn',
      ts: t(470),
      sessionId: 's2',
      turn: { ...TURN_1, toolCalls: [{ ...TURN_1.toolCalls[0], resultTurn: undefined }] },
    },
    { type: 'exchange', ts: t(600), exchange: exchange('x6', 's2', '/v1/messages?beta=true', t(600), t(800), 'text/event-stream') },
    { type: 'model-turn', ts: t(800), sessionId: 's2', turn: TURN_2 },
    { type: 'model-turn', ts: t(800), sessionId: 's2', turn: TURN_1 },
    { type: 'session', ts: t(800), session: { ...apiSession, counts: counts(0, 0, 2) } },
    { type: 'session', ts: t(800), session: mcpSession },
  ];
  // seqs as the store gives them: 1, 2, …; the sample's cross-references (pair 2, 4, 9; mcpCall seq 9, mcpResult 10) rely on this order.
  return events.map((e, i) => ({ ...e, seq: i + 1 }) as McpscopeEvent);
}
