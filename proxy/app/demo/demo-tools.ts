/**
 * The demo's MCP server for one session (proxy/app/demo/demo-server.ts serves it over HTTP): its
 * tools, prompts and resources, built so that every interesting kind of MCP traffic shows up —
 * progress, logging, tool errors, a JSON-RPC error from a crashing tool, sampling, elicitation,
 * out-of-order completion, cancellation, list_changed.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  isJSONRPCRequest,
  LoggingLevelSchema,
  SetLevelRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';

const SERVER_INFO = { name: 'mcpscope-demo', title: 'mcpscope demo server', version: '1.0.0' };

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

// ---------------------------------------------------------------------------------------------
// Small helpers for the tools
// ---------------------------------------------------------------------------------------------

/** Waits `ms`, rejecting early (and clearing the timer) when `signal` aborts. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason ?? new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

const LEVEL_ORDER = LoggingLevelSchema.options;

// ---------------------------------------------------------------------------------------------
// One session's MCP server
// ---------------------------------------------------------------------------------------------

/** Builds the McpServer of one session: tools, prompt, resources, logging. */
export function createDemoMcpServer(): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: false },
      resources: { listChanged: false },
      logging: {},
    },
    instructions:
      'mcpscope demo server. Tools show typical MCP traffic: echo, add, slow_task (progress + logs), ' +
      'flaky (tool error), crash (JSON-RPC error), ask_llm (sampling), confirm_action (elicitation), ' +
      'random_delay (out-of-order completion) and toggle_bonus_tool (tools/list_changed).',
  });

  // Logging level chosen by the client with logging/setLevel (one server per session, so one value).
  // The SDK's own handler keeps the level privately; ours keeps it where the tools can read it.
  let minLevel: LoggingLevel | undefined;
  server.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    minLevel = request.params.level;
    return {};
  });
  const log = async (extra: Extra, level: LoggingLevel, logger: string, data: unknown): Promise<void> => {
    if (minLevel !== undefined && LEVEL_ORDER.indexOf(level) < LEVEL_ORDER.indexOf(minLevel)) return;
    // Sent through `extra` so it travels on the POST stream of the request that caused it.
    await extra.sendNotification({ method: 'notifications/message', params: { level, logger, data } });
  };

  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Returns the given text unchanged.',
      inputSchema: { text: z.string().describe('Text to send back') },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ text: value }) => text(value),
  );

  server.registerTool(
    'add',
    {
      title: 'Add two numbers',
      description: 'Adds a and b. The sum is returned as text and as structured content.',
      inputSchema: { a: z.number().describe('First addend'), b: z.number().describe('Second addend') },
      outputSchema: { sum: z.number().describe('a + b') },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: `${a} + ${b} = ${a + b}` }],
      structuredContent: { sum: a + b },
    }),
  );

  server.registerTool(
    'slow_task',
    {
      title: 'Slow task with progress',
      description:
        'Works through `steps` steps of `delayMs` each. For every step it sends notifications/progress ' +
        '(when the request carries a progressToken) and a notifications/message log line. Cancellable.',
      inputSchema: {
        steps: z.number().int().min(1).max(50).default(4).describe('Number of steps'),
        delayMs: z.number().int().min(0).max(10_000).default(300).describe('Time per step in milliseconds'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ steps, delayMs }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        await delay(delayMs, extra.signal);
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress: step, total: steps, message: `step ${step} of ${steps}` },
          });
        }
        await log(extra, 'info', 'slow_task', `finished step ${step}/${steps}`);
      }
      return text(`done after ${steps} steps`);
    },
  );

  server.registerTool(
    'flaky',
    {
      title: 'Flaky upstream',
      description: 'Always fails the way a tool fails: a result with isError: true (not a JSON-RPC error).',
      annotations: { openWorldHint: true },
    },
    async (extra) => {
      await log(extra, 'warning', 'flaky', 'upstream answered 429 Too Many Requests');
      return {
        content: [{ type: 'text', text: 'upstream quota exceeded: 429 Too Many Requests (retry after 30s)' }],
        isError: true,
      };
    },
  );

  server.registerTool(
    'crash',
    {
      title: 'Crash',
      description: 'Fails with a JSON-RPC error response (-32603 Internal error), as a buggy server would.',
      annotations: { openWorldHint: false },
    },
    // Not reached over HTTP: answerCrashWithJsonRpcError() answers `crash` before McpServer sees it
    // (McpServer would turn this throw into an `isError: true` result).
    async () => {
      throw new Error(CRASH_MESSAGE);
    },
  );

  server.registerTool(
    'ask_llm',
    {
      title: 'Ask the client LLM',
      description: 'Sends sampling/createMessage to the client and returns what its model answered.',
      inputSchema: { question: z.string().describe('Question for the model') },
      annotations: { openWorldHint: true },
    },
    async ({ question }, extra) => {
      const result = await server.server.createMessage(
        {
          messages: [{ role: 'user', content: { type: 'text', text: question } }],
          systemPrompt: 'You are a concise assistant inside the mcpscope demo.',
          maxTokens: 200,
          temperature: 0.2,
        },
        // relatedRequestId: the request travels on this tools/call's POST stream (a parent link).
        { relatedRequestId: extra.requestId, signal: extra.signal },
      );
      const answer = result.content.type === 'text' ? result.content.text : `[${result.content.type} content]`;
      return text(`${result.model} says: ${answer}`);
    },
  );

  server.registerTool(
    'confirm_action',
    {
      title: 'Confirm an action',
      description: 'Asks the user (elicitation/create, form mode) whether to perform the action.',
      inputSchema: { action: z.string().describe('What would be done') },
      annotations: { destructiveHint: true, openWorldHint: false },
    },
    async ({ action }, extra) => {
      const result = await server.server.elicitInput(
        {
          mode: 'form',
          message: `Do you want to ${action}?`,
          requestedSchema: {
            type: 'object',
            properties: {
              confirm: { type: 'boolean', title: 'Confirm', description: `Perform "${action}"`, default: false },
            },
            required: ['confirm'],
          },
        },
        { relatedRequestId: extra.requestId, signal: extra.signal },
      );
      if (result.action !== 'accept') return text(`user chose to ${result.action}: nothing done`);
      return result.content?.confirm === true ? text(`confirmed: ${action}`) : text(`not confirmed: ${action}`);
    },
  );

  server.registerTool(
    'random_delay',
    {
      title: 'Random delay',
      description: 'Waits a random time up to maxMs, so concurrent calls complete out of order.',
      inputSchema: { maxMs: z.number().int().min(0).max(60_000).default(800).describe('Upper bound in milliseconds') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ maxMs }, extra) => {
      const waited = Math.floor(Math.random() * (maxMs + 1));
      await delay(waited, extra.signal);
      return text(`waited ${waited} ms`);
    },
  );

  // A tool that appears and disappears: each toggle makes McpServer send
  // notifications/tools/list_changed (on the standalone GET stream, as it relates to no request).
  const bonus = server.registerTool(
    'lucky_number',
    {
      title: 'Lucky number',
      description: 'Returns a lucky number. Only listed while toggle_bonus_tool has enabled it.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => text(String(1 + Math.floor(Math.random() * 99))),
  );
  bonus.disable();
  server.registerTool(
    'toggle_bonus_tool',
    {
      title: 'Toggle the bonus tool',
      description: 'Enables or disables the lucky_number tool; the server then sends notifications/tools/list_changed.',
      annotations: { openWorldHint: false },
    },
    async () => {
      if (bonus.enabled) bonus.disable();
      else bonus.enable();
      return text(`lucky_number is now ${bonus.enabled ? 'enabled' : 'disabled'}`);
    },
  );

  server.registerPrompt(
    'summarize',
    {
      title: 'Summarize text',
      description: 'Asks the model for a short summary of the given text.',
      argsSchema: {
        text: z.string().describe('Text to summarize'),
        style: z.string().optional().describe('Optional style, e.g. "one sentence" or "bullet points"'),
      },
    },
    ({ text: input, style }) => ({
      description: 'Summarize the text',
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: `Summarize the following${style ? ` as ${style}` : ''}:\n\n${input}` },
        },
      ],
    }),
  );

  server.registerResource(
    'readme',
    'demo://readme',
    { title: 'Demo README', description: 'What this demo server is for.', mimeType: 'text/markdown' },
    async (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'text/markdown',
          text:
            '# mcpscope demo server\n\nA tiny MCP server that produces realistic traffic for mcpscope to show: ' +
            'progress, logs, errors, sampling, elicitation and out-of-order responses.\n',
        },
      ],
    }),
  );

  server.registerResource(
    'note',
    new ResourceTemplate('demo://notes/{id}', {
      list: async () => ({
        resources: ['1', '2', '3'].map((id) => ({ uri: `demo://notes/${id}`, name: `note-${id}`, mimeType: 'text/plain' })),
      }),
    }),
    { title: 'Numbered note', description: 'A generated note for any id.', mimeType: 'text/plain' },
    async (uri, variables) => {
      const id = Array.isArray(variables.id) ? variables.id.join(',') : variables.id;
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Note ${id}: remember to check the progress bars.` }] };
    },
  );

  return server;
}

const CRASH_MESSAGE = 'demo crash: the tool handler threw (simulated server bug)';

/**
 * McpServer turns every error thrown by a tool into a `CallToolResult` with `isError: true`, so a
 * tool cannot produce a JSON-RPC error response by throwing. The `crash` tool must, so its calls are
 * answered at the transport boundary (public `Transport.onmessage`/`send`, set up by `connect()`)
 * with a -32603 error before the protocol layer dispatches them. Everything else passes through.
 */
export function answerCrashWithJsonRpcError(transport: Transport): void {
  const dispatch = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (
      isJSONRPCRequest(message) &&
      message.method === 'tools/call' &&
      (message.params as { name?: unknown } | undefined)?.name === 'crash'
    ) {
      transport
        .send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: ErrorCode.InternalError, message: CRASH_MESSAGE, data: { tool: 'crash' } },
        })
        .catch((error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error))));
      return;
    }
    dispatch?.(message, extra);
  };
}
