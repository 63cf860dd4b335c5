/**
 * Agent loops for tests, each built the way a real agent is, on the providers' official SDKs:
 * connect an MCP client (@modelcontextprotocol/sdk v1, Streamable HTTP) to a server, list its
 * tools, offer them to the model (Anthropic: `mcp__<server>__<tool>` like Claude Code; the others
 * bare, like Gemini CLI), carry out each tool call the model chose with MCP `tools/call`, send the
 * result back in the next request (tool_result / role:"tool" / function_call_output /
 * functionResponse), until the model answers without a tool call.
 *
 * Through mcpscope: point `baseURL` (and `mcp.url`) at a reverse mcpscope, or give
 * `forwardProxy` (undici ProxyAgent as the fetch dispatcher for both sides, trusting mcpscope's
 * CA), or pass your own `fetch` / `mcp.fetch`.
 *
 * Tool arguments that are not JSON, and tools that were never offered, are answered to the model
 * as error results without an MCP call (what a real client does), and show in `toolCalls` with
 * `called: false`.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI, type Content, type Part } from '@google/genai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { viaProxy, type ClientFetch } from './tls-peers.js';

export interface AgentOptions {
  /** The model API: Anthropic and Gemini the origin (`http://127.0.0.1:1234`), OpenAI with `/v1`. A stand-in's `baseURL`. */
  baseURL: string;
  mcp: {
    /** The MCP server's Streamable HTTP URL. */
    url: string;
    /** The server's name as the agent was configured with it (the `se` of `mcp__se__echo`); default `se`. */
    name?: string;
    /** fetch for the MCP transport (default: `forwardProxy`'s, else Node's). */
    fetch?: FetchLike;
  };
  prompt: string;
  /** Default `sk-standin-agent-key-0000`. */
  apiKey?: string;
  /** Default per provider: `claude-standin`, `gpt-standin`, `gemini-standin`. */
  model?: string;
  /** fetch for the model API calls (default: `forwardProxy`'s, else Node's). */
  fetch?: FetchLike;
  /** Both sides through this forward proxy (HTTPS via CONNECT), trusting `ca` (mcpscope's CA PEM). */
  forwardProxy?: { origin: string; ca?: string };
  /** Streaming model calls (default true). */
  stream?: boolean;
  /** Model calls at most (default 6); past it the run ends with the last text. */
  maxTurns?: number;
  /** Extra headers on every model call (e.g. `x-claude-code-session-id`). */
  headers?: Record<string, string>;
  /** How the agent names an MCP tool to the model. */
  toolName?: (server: string, tool: string) => string;
  /** The MCP client's `clientInfo.name` (default `sdk-agent-<provider>`). */
  clientName?: string;
  /** A system prompt (Anthropic `system`, OpenAI system message / `instructions`, Gemini `systemInstruction`). */
  system?: string;
}

export interface AgentToolCall {
  /** The provider's call id (Gemini: the functionCall's id, else `gemini-<n>`). */
  id: string;
  /** As the model named it. */
  modelName: string;
  /** The MCP tool it maps to (undefined: never offered). */
  mcpName?: string;
  /** Parsed arguments (undefined when they were not JSON). */
  arguments?: Record<string, unknown>;
  /** The arguments as the model sent them (JSON text). */
  rawArguments: string;
  /** Whether an MCP tools/call was made. */
  called: boolean;
  /** The MCP result (when called). */
  result?: CallToolResult;
  /** What was sent back to the model. */
  resultText: string;
  isError: boolean;
}

export type AgentTranscriptEntry =
  | { role: 'user'; text: string }
  | { role: 'assistant'; turn: number; text: string; toolCalls: AgentToolCall[]; stopReason?: string; usage?: unknown }
  | { role: 'tool'; turn: number; call: AgentToolCall };

export interface AgentRun {
  /** The final assistant text. */
  text: string;
  /** Model calls made. */
  turns: number;
  transcript: AgentTranscriptEntry[];
  /** The tool names offered to the model. */
  toolsOffered: string[];
  /** Every tool call the model chose, in order. */
  toolCalls: AgentToolCall[];
  /** Each turn's usage as the SDK gave it (Anthropic `usage`, OpenAI `usage`, Gemini `usageMetadata`). */
  usage: unknown[];
  /** The MCP session's id (Mcp-Session-Id). */
  mcpSessionId?: string;
}

const DEFAULT_KEY = 'sk-standin-agent-key-0000';

interface McpSide {
  client: Client;
  transport: StreamableHTTPClientTransport;
  tools: Tool[];
  /** model-side name → MCP tool name */
  names: Map<string, string>;
  close(): Promise<void>;
}

interface Sides {
  modelFetch?: FetchLike;
  mcp: McpSide;
  close(): Promise<void>;
}

async function openSides(o: AgentOptions, provider: string, defaultNaming: (server: string, tool: string) => string): Promise<Sides> {
  const proxy: ClientFetch | undefined = o.forwardProxy ? viaProxy(o.forwardProxy.origin, { ca: o.forwardProxy.ca }) : undefined;
  const mcpFetch = o.mcp.fetch ?? proxy?.fetch;
  const client = new Client({ name: o.clientName ?? `sdk-agent-${provider}`, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(o.mcp.url), mcpFetch ? { fetch: mcpFetch } : {});
  try {
    await client.connect(transport);
    const tools = (await client.listTools()).tools;
    const naming = o.toolName ?? defaultNaming;
    const server = o.mcp.name ?? 'se';
    const names = new Map(tools.map((t) => [naming(server, t.name), t.name]));
    const mcp: McpSide = {
      client,
      transport,
      tools,
      names,
      async close() {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      },
    };
    return {
      modelFetch: o.fetch ?? proxy?.fetch,
      mcp,
      async close() {
        await mcp.close();
        await proxy?.close();
      },
    };
  } catch (err) {
    await client.close().catch(() => undefined);
    await proxy?.close();
    throw err;
  }
}

function textOfResult(result: CallToolResult): string {
  return (result.content ?? []).map((c) => (c.type === 'text' ? c.text : JSON.stringify(c))).join('\n');
}

/** Carries out one tool call the model chose (or answers it with an error without an MCP call). */
async function carryOut(
  mcp: McpSide,
  id: string,
  modelName: string,
  rawArguments: string | Record<string, unknown>,
): Promise<AgentToolCall> {
  const raw = typeof rawArguments === 'string' ? rawArguments : JSON.stringify(rawArguments);
  const mcpName = mcp.names.get(modelName);
  let args: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = typeof rawArguments === 'string' ? JSON.parse(rawArguments === '' ? '{}' : rawArguments) : rawArguments;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed as Record<string, unknown>;
  } catch {
    args = undefined;
  }
  const base = {
    id,
    modelName,
    ...(mcpName !== undefined ? { mcpName } : {}),
    ...(args !== undefined ? { arguments: args } : {}),
    rawArguments: raw,
  };
  if (mcpName === undefined) return { ...base, called: false, resultText: `Error: no such tool: ${modelName}`, isError: true };
  if (args === undefined)
    return { ...base, called: false, resultText: `Error: the tool arguments are not a JSON object: ${raw}`, isError: true };
  const result = (await mcp.client.callTool({ name: mcpName, arguments: args })) as CallToolResult;
  return { ...base, called: true, result, resultText: textOfResult(result), isError: result.isError === true };
}

function finish(transcript: AgentTranscriptEntry[], turns: number, mcp: McpSide, toolsOffered: string[], usage: unknown[]): AgentRun {
  const assistants = transcript.filter((e): e is Extract<AgentTranscriptEntry, { role: 'assistant' }> => e.role === 'assistant');
  return {
    text: assistants.at(-1)?.text ?? '',
    turns,
    transcript,
    toolsOffered,
    toolCalls: assistants.flatMap((a) => a.toolCalls),
    usage,
    ...(mcp.transport.sessionId !== undefined ? { mcpSessionId: mcp.transport.sessionId } : {}),
  };
}

/** A Claude Code–like loop over @anthropic-ai/sdk (Messages API; the key sent as `x-api-key`, as Claude Code does). */
export async function runAnthropicAgent(o: AgentOptions): Promise<AgentRun> {
  const sides = await openSides(o, 'anthropic', (server, tool) => `mcp__${server}__${tool}`);
  try {
    const client = new Anthropic({
      baseURL: o.baseURL,
      apiKey: null,
      authToken: null,
      maxRetries: 0,
      defaultHeaders: { 'x-api-key': o.apiKey ?? DEFAULT_KEY, ...o.headers },
      ...(sides.modelFetch ? { fetch: sides.modelFetch as typeof fetch } : {}),
    });
    const tools = [...sides.mcp.names].map(([name, mcpName]) => {
      const t = sides.mcp.tools.find((x) => x.name === mcpName)!;
      return {
        name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        input_schema: t.inputSchema as Anthropic.Tool.InputSchema,
      };
    });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: o.prompt }];
    const transcript: AgentTranscriptEntry[] = [{ role: 'user', text: o.prompt }];
    const usage: unknown[] = [];
    let turns = 0;
    while (turns < (o.maxTurns ?? 6)) {
      const params = {
        model: o.model ?? 'claude-standin',
        max_tokens: 1024,
        tools,
        messages,
        ...(o.system !== undefined ? { system: o.system } : {}),
      };
      const message = o.stream === false ? await client.messages.create(params) : await client.messages.stream(params).finalMessage();
      turns += 1;
      usage.push(message.usage);
      const calls: AgentToolCall[] = [];
      for (const b of message.content)
        if (b.type === 'tool_use') calls.push(await carryOut(sides.mcp, b.id, b.name, b.input as Record<string, unknown>));
      const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      transcript.push({
        role: 'assistant',
        turn: turns,
        text,
        toolCalls: calls,
        ...(message.stop_reason ? { stopReason: message.stop_reason } : {}),
        usage: message.usage,
      });
      for (const call of calls) transcript.push({ role: 'tool', turn: turns, call });
      if (calls.length === 0) break;
      messages.push({
        role: 'assistant',
        content: message.content.flatMap((b): Anthropic.ContentBlockParam[] =>
          b.type === 'text'
            ? [{ type: 'text', text: b.text }]
            : b.type === 'tool_use'
              ? [{ type: 'tool_use', id: b.id, name: b.name, input: b.input }]
              : b.type === 'thinking'
                ? [{ type: 'thinking', thinking: b.thinking, signature: b.signature }]
                : [],
        ),
      });
      messages.push({
        role: 'user',
        content: calls.map((c) => ({
          type: 'tool_result',
          tool_use_id: c.id,
          content: [{ type: 'text', text: c.resultText }],
          ...(c.isError ? { is_error: true } : {}),
        })),
      });
    }
    return finish(
      transcript,
      turns,
      sides.mcp,
      tools.map((t) => t.name),
      usage,
    );
  } finally {
    await sides.close();
  }
}

function openAiClient(o: AgentOptions, sides: Sides): OpenAI {
  return new OpenAI({
    baseURL: o.baseURL,
    apiKey: o.apiKey ?? DEFAULT_KEY,
    maxRetries: 0,
    ...(o.headers ? { defaultHeaders: o.headers } : {}),
    ...(sides.modelFetch ? { fetch: sides.modelFetch as typeof fetch } : {}),
  });
}

const bare = (_server: string, tool: string) => tool;

/** An SDK agent over OpenAI Chat Completions (streaming with `stream_options.include_usage`). */
export async function runOpenAiChatAgent(o: AgentOptions): Promise<AgentRun> {
  const sides = await openSides(o, 'openai-chat', bare);
  try {
    const client = openAiClient(o, sides);
    const tools: OpenAI.ChatCompletionTool[] = [...sides.mcp.names].map(([name, mcpName]) => {
      const t = sides.mcp.tools.find((x) => x.name === mcpName)!;
      return {
        type: 'function',
        function: { name, ...(t.description !== undefined ? { description: t.description } : {}), parameters: t.inputSchema },
      };
    });
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      ...(o.system !== undefined ? [{ role: 'system' as const, content: o.system }] : []),
      { role: 'user', content: o.prompt },
    ];
    const transcript: AgentTranscriptEntry[] = [{ role: 'user', text: o.prompt }];
    const usage: unknown[] = [];
    let turns = 0;
    while (turns < (o.maxTurns ?? 6)) {
      const model = o.model ?? 'gpt-standin';
      let text = '';
      let finishReason: string | undefined;
      let turnUsage: unknown;
      const wanted: { id: string; name: string; args: string }[] = [];
      if (o.stream === false) {
        const completion = await client.chat.completions.create({ model, tools, messages });
        const choice = completion.choices[0];
        text = choice?.message.content ?? '';
        finishReason = choice?.finish_reason ?? undefined;
        turnUsage = completion.usage;
        for (const c of choice?.message.tool_calls ?? [])
          if (c.type === 'function') wanted.push({ id: c.id, name: c.function.name, args: c.function.arguments });
      } else {
        const stream = await client.chat.completions.create({
          model,
          tools,
          messages,
          stream: true,
          stream_options: { include_usage: true },
        });
        for await (const chunk of stream) {
          if (chunk.usage) turnUsage = chunk.usage;
          for (const choice of chunk.choices) {
            if (choice.finish_reason) finishReason = choice.finish_reason;
            text += choice.delta.content ?? '';
            for (const t of choice.delta.tool_calls ?? []) {
              const w = (wanted[t.index] ??= { id: '', name: '', args: '' });
              if (t.id) w.id = t.id;
              if (t.function?.name) w.name += t.function.name;
              if (t.function?.arguments) w.args += t.function.arguments;
            }
          }
        }
      }
      turns += 1;
      usage.push(turnUsage);
      const calls: AgentToolCall[] = [];
      for (const w of wanted.filter(Boolean)) calls.push(await carryOut(sides.mcp, w.id, w.name, w.args));
      transcript.push({
        role: 'assistant',
        turn: turns,
        text,
        toolCalls: calls,
        ...(finishReason ? { stopReason: finishReason } : {}),
        usage: turnUsage,
      });
      for (const call of calls) transcript.push({ role: 'tool', turn: turns, call });
      if (calls.length === 0) break;
      messages.push({
        role: 'assistant',
        content: text === '' ? null : text,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.modelName, arguments: c.rawArguments } })),
      });
      for (const c of calls) messages.push({ role: 'tool', tool_call_id: c.id, content: c.resultText });
    }
    return finish(
      transcript,
      turns,
      sides.mcp,
      tools.map((t) => (t.type === 'function' ? t.function.name : '')),
      usage,
    );
  } finally {
    await sides.close();
  }
}

/** A Codex-like agent over OpenAI Responses (stateless: the whole input every turn, `store: false`). */
export async function runOpenAiResponsesAgent(o: AgentOptions): Promise<AgentRun> {
  const sides = await openSides(o, 'openai-responses', bare);
  try {
    const client = openAiClient(o, sides);
    const tools: OpenAI.Responses.FunctionTool[] = [...sides.mcp.names].map(([name, mcpName]) => {
      const t = sides.mcp.tools.find((x) => x.name === mcpName)!;
      return { type: 'function', name, description: t.description ?? null, parameters: t.inputSchema, strict: false };
    });
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: o.prompt }];
    const transcript: AgentTranscriptEntry[] = [{ role: 'user', text: o.prompt }];
    const usage: unknown[] = [];
    let turns = 0;
    while (turns < (o.maxTurns ?? 6)) {
      const params = {
        model: o.model ?? 'gpt-standin',
        tools,
        input,
        store: false,
        ...(o.system !== undefined ? { instructions: o.system } : {}),
      };
      const response = o.stream === false ? await client.responses.create(params) : await client.responses.stream(params).finalResponse();
      turns += 1;
      usage.push(response.usage);
      const calls: AgentToolCall[] = [];
      for (const item of response.output)
        if (item.type === 'function_call') calls.push(await carryOut(sides.mcp, item.call_id, item.name, item.arguments));
      const stopReason =
        response.status === 'incomplete' ? (response.incomplete_details?.reason ?? 'incomplete') : (response.status ?? undefined);
      transcript.push({
        role: 'assistant',
        turn: turns,
        text: response.output_text,
        toolCalls: calls,
        ...(stopReason ? { stopReason } : {}),
        usage: response.usage,
      });
      for (const call of calls) transcript.push({ role: 'tool', turn: turns, call });
      if (calls.length === 0) break;
      for (const item of response.output) {
        if (item.type === 'message') input.push({ role: 'assistant', content: response.output_text });
        if (item.type === 'function_call')
          input.push({ type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments });
      }
      for (const c of calls) input.push({ type: 'function_call_output', call_id: c.id, output: c.resultText });
    }
    return finish(
      transcript,
      turns,
      sides.mcp,
      tools.map((t) => t.name),
      usage,
    );
  } finally {
    await sides.close();
  }
}

/** A Gemini CLI–like loop over @google/genai (bare tool names; results as functionResponse `{ output }` / `{ error }`). */
export async function runGeminiAgent(o: AgentOptions): Promise<AgentRun> {
  const sides = await openSides(o, 'gemini', bare);
  try {
    const ai = new GoogleGenAI({
      apiKey: o.apiKey ?? DEFAULT_KEY,
      httpOptions: {
        baseUrl: o.baseURL,
        ...(o.headers ? { headers: o.headers } : {}),
        ...(sides.modelFetch ? { fetch: sides.modelFetch as typeof fetch } : {}),
      },
    });
    const functionDeclarations = [...sides.mcp.names].map(([name, mcpName]) => {
      const t = sides.mcp.tools.find((x) => x.name === mcpName)!;
      return { name, ...(t.description !== undefined ? { description: t.description } : {}), parametersJsonSchema: t.inputSchema };
    });
    const config = { tools: [{ functionDeclarations }], ...(o.system !== undefined ? { systemInstruction: o.system } : {}) };
    const contents: Content[] = [{ role: 'user', parts: [{ text: o.prompt }] }];
    const transcript: AgentTranscriptEntry[] = [{ role: 'user', text: o.prompt }];
    const usage: unknown[] = [];
    let turns = 0;
    let callCount = 0;
    while (turns < (o.maxTurns ?? 6)) {
      const model = o.model ?? 'gemini-standin';
      const parts: Part[] = [];
      let finishReason: string | undefined;
      let turnUsage: unknown;
      const take = (r: { candidates?: { content?: Content; finishReason?: string }[]; usageMetadata?: unknown }) => {
        const c = r.candidates?.[0];
        parts.push(...(c?.content?.parts ?? []));
        if (c?.finishReason) finishReason = c.finishReason;
        if (r.usageMetadata) turnUsage = r.usageMetadata;
      };
      if (o.stream === false) take(await ai.models.generateContent({ model, contents, config }));
      else for await (const chunk of await ai.models.generateContentStream({ model, contents, config })) take(chunk);
      turns += 1;
      usage.push(turnUsage);
      const calls: AgentToolCall[] = [];
      for (const p of parts)
        if (p.functionCall)
          calls.push(
            await carryOut(sides.mcp, p.functionCall.id ?? `gemini-${callCount++}`, p.functionCall.name ?? '', p.functionCall.args ?? {}),
          );
      const text = parts.map((p) => (p.text !== undefined && p.thought !== true ? p.text : '')).join('');
      transcript.push({
        role: 'assistant',
        turn: turns,
        text,
        toolCalls: calls,
        ...(finishReason ? { stopReason: finishReason } : {}),
        usage: turnUsage,
      });
      for (const call of calls) transcript.push({ role: 'tool', turn: turns, call });
      if (calls.length === 0) break;
      contents.push({ role: 'model', parts: parts.filter((p) => p.thought !== true) });
      contents.push({
        role: 'user',
        parts: calls.map((c) => {
          const given = parts.find((p) => p.functionCall?.id === c.id);
          return {
            functionResponse: {
              ...(given ? { id: c.id } : {}),
              name: c.modelName,
              response: c.isError ? { error: c.resultText } : { output: c.resultText },
            },
          };
        }),
      });
    }
    return finish(
      transcript,
      turns,
      sides.mcp,
      functionDeclarations.map((d) => d.name),
      usage,
    );
  } finally {
    await sides.close();
  }
}
