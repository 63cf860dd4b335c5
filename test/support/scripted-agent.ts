/**
 * A scripted agent loop as wire records (issue 27), driven through the real Recorder: what the
 * forward proxy captures when Claude Code runs one tool call — the MCP session (initialize,
 * tools/list, tools/call echo) and the two calls to the Anthropic Messages API (the first streams a
 * tool_use whose arguments come in two input_json_delta fragments; the second carries the
 * tool_result back and streams text). Fixed clock, no sockets: deterministic.
 *
 * The pieces are exported so that tests can build other loops (two agents, a cut stream, broken
 * argument JSON) from them.
 */
import type { HeaderMap, WireRecord } from '../../proxy/wire/capture/wire-records.js';

export const AGENT_START = Date.UTC(2026, 0, 15, 9, 30, 0);
export const API_KEY = 'sk-ant-api03-SECRETSECRETSECRETSECRET-abcdef';
const MCP = 'http://127.0.0.1:3001';
const API = 'https://api.anthropic.com';
const PROXY = 'http://127.0.0.1:6481';

const enc = (s: string) => new TextEncoder().encode(s);

export class AgentWire {
  t = AGENT_START;
  private n = 0;
  readonly records: WireRecord[] = [];
  xid(): string {
    this.n += 1;
    return `x${this.n}`;
  }
  ts(step = 5): number {
    this.t += step;
    return this.t;
  }
  push(...r: WireRecord[]): void {
    this.records.push(...r);
  }

  /** A POST with a body, answered `status` with `chunks` of `type`. Returns the xid. */
  exchange(o: {
    origin: string;
    url: string;
    headers: HeaderMap;
    body: string;
    status?: number;
    type?: string;
    chunks?: string[];
    /** Stop after the chunks: `abort` (the upstream broke off), or nothing more (left open). */
    end?: 'end' | 'abort' | 'open';
    target?: string;
  }): string {
    const xid = this.xid();
    this.push(
      {
        t: 'request',
        xid,
        ts: this.ts(),
        method: 'POST',
        url: o.url,
        upstreamUrl: `${o.origin}${o.url}`,
        headers: o.headers,
        proxyOrigin: PROXY,
        target: o.target ?? o.origin,
      },
      { t: 'request-chunk', xid, ts: this.ts(1), chunk: enc(o.body) },
      { t: 'request-end', xid, ts: this.ts(1) },
      { t: 'response', xid, ts: this.ts(), status: o.status ?? 200, headers: { 'content-type': o.type ?? 'application/json' } },
    );
    for (const c of o.chunks ?? []) this.push({ t: 'response-chunk', xid, ts: this.ts(3), chunk: enc(c) });
    if ((o.end ?? 'end') === 'end') this.push({ t: 'response-end', xid, ts: this.ts(1) });
    if (o.end === 'abort') this.push({ t: 'abort', xid, ts: this.ts(1), side: 'upstream', reason: 'The upstream reset the connection' });
    return xid;
  }

  /** One MCP JSON-RPC POST on session `sid`, answered with JSON. */
  mcp(sid: string, message: unknown, answer?: unknown): string {
    return this.exchange({
      origin: MCP,
      url: '/mcp',
      target: `${MCP}/mcp`,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify(message),
      status: answer === undefined ? 202 : 200,
      chunks: answer === undefined ? [] : [JSON.stringify(answer)],
    });
  }

  /** An MCP session's start: initialize (which assigns `sid`), initialized, tools/list with echo and add. */
  mcpStart(sid: string): void {
    const xid = this.xid();
    const init = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code', version: '2.1.197' } },
    };
    this.push(
      {
        t: 'request',
        xid,
        ts: this.ts(),
        method: 'POST',
        url: '/mcp',
        upstreamUrl: `${MCP}/mcp`,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        proxyOrigin: PROXY,
        target: `${MCP}/mcp`,
      },
      { t: 'request-chunk', xid, ts: this.ts(1), chunk: enc(JSON.stringify(init)) },
      { t: 'request-end', xid, ts: this.ts(1) },
      { t: 'response', xid, ts: this.ts(), status: 200, headers: { 'content-type': 'application/json', 'mcp-session-id': sid } },
      {
        t: 'response-chunk',
        xid,
        ts: this.ts(),
        chunk: enc(
          JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            result: {
              protocolVersion: '2025-06-18',
              capabilities: { tools: {} },
              serverInfo: { name: 'everything', version: '1.0.0' },
              instructions: 'Use echo to test.',
            },
          }),
        ),
      },
      { t: 'response-end', xid, ts: this.ts(1) },
    );
    this.mcp(sid, { jsonrpc: '2.0', method: 'notifications/initialized' });
    this.mcp(sid, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 1, result: { tools: ECHO_TOOLS } });
  }

  /** A Messages API call (streamed) by the Claude Code session `agent`. */
  messages(
    agent: string,
    body: unknown,
    events: string[],
    opts: { end?: 'end' | 'abort' | 'open'; status?: number; type?: string } = {},
  ): string {
    return this.exchange({
      origin: API,
      url: '/v1/messages?beta=true',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'anthropic-version': '2023-06-01',
        'x-api-key': API_KEY,
        'user-agent': 'claude-cli/2.1.197 (external, sdk-cli)',
        'x-claude-code-session-id': agent,
      },
      body: JSON.stringify(body),
      status: opts.status,
      type: opts.type ?? 'text/event-stream',
      chunks: events,
      end: opts.end,
    });
  }
}

export const ECHO_TOOLS = [
  {
    name: 'echo',
    description: 'Echoes back the input',
    inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'Message to echo' } }, required: ['message'] },
  },
  {
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  },
];

export const SYSTEM_PROMPT = [
  { type: 'text', text: 'You are Claude Code, an interactive CLI tool.' },
  {
    type: 'text',
    text: '# MCP Server Instructions\n\nThe following MCP servers have provided instructions:\n\n## se\nUse echo to test.\n\n# Environment\nplatform: linux',
  },
];

/** Claude Code's tools for the request: one built-in, then the server's as `mcp__se__<tool>`. */
export function claudeTools(server = 'se') {
  return [
    {
      name: 'Bash',
      description: 'Executes a bash command in a persistent shell session. '.repeat(8),
      input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    },
    ...ECHO_TOOLS.map((t) => ({ name: `mcp__${server}__${t.name}`, description: t.description, input_schema: t.inputSchema })),
  ];
}

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The streamed answer: optional text, then a tool_use whose input arrives in `fragments`. */
export function toolUseStream(o: {
  id: string;
  name: string;
  fragments: string[];
  usage?: { input: number; cacheWrite?: number; cacheRead?: number; output: number };
}): string[] {
  const u = o.usage ?? { input: 4, cacheWrite: 31_334, cacheRead: 0, output: 61 };
  return [
    sse('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_01',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: u.input,
          cache_creation_input_tokens: u.cacheWrite ?? 0,
          cache_read_input_tokens: u.cacheRead ?? 0,
          output_tokens: 1,
        },
      },
    }),
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    sse('ping', { type: 'ping' }),
    sse('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'I will call the echo tool.' },
    }),
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('content_block_start', {
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: o.id, name: o.name, input: {} },
    }) +
      o.fragments
        .map((f) =>
          sse('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: f } }),
        )
        .join(''),
    sse('content_block_stop', { type: 'content_block_stop', index: 1 }) +
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: u.output },
      }) +
      sse('message_stop', { type: 'message_stop' }),
  ];
}

export function textStream(text: string, usage = { input: 120, cacheRead: 31_334, output: 12 }): string[] {
  return [
    sse('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_02',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input, cache_creation_input_tokens: 0, cache_read_input_tokens: usage.cacheRead, output_tokens: 1 },
      },
    }),
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }) +
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: usage.output },
      }) +
      sse('message_stop', { type: 'message_stop' }),
  ];
}

/** The whole loop: MCP session `sess-1`, turn 1 (tool_use mcp__se__echo), tools/call echo, turn 2 (tool_result → text). */
export function scriptedAgentLoop(o: { agent?: string; sid?: string; message?: string } = {}): AgentWire {
  const w = new AgentWire();
  const agent = o.agent ?? '7f1c2d9e-0000-4000-8000-000000000001';
  const sid = o.sid ?? 'sess-1';
  const message = o.message ?? 'hello';
  w.mcpStart(sid);
  const user = { role: 'user', content: [{ type: 'text', text: `call the echo tool with ${message}` }] };
  const base = { model: 'claude-sonnet-4-5-20250929', max_tokens: 32000, stream: true, system: SYSTEM_PROMPT, tools: claudeTools() };
  w.messages(
    agent,
    { ...base, messages: [user] },
    toolUseStream({ id: 'toolu_01', name: 'mcp__se__echo', fragments: ['{"message": "', `${message}"}`] }),
  );
  w.mcp(
    sid,
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message } } },
    { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: `Echo: ${message}` }] } },
  );
  w.messages(
    agent,
    {
      ...base,
      messages: [
        user,
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'I will call the echo tool.' },
            { type: 'tool_use', id: 'toolu_01', name: 'mcp__se__echo', input: { message } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: `Echo: ${message}` }] }],
        },
      ],
    },
    textStream(`The echo tool said: Echo: ${message}`),
  );
  return w;
}
