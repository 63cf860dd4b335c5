/**
 * An MCP server whose tools carry hostile JSON Schemas (issue 26): the official SDK's low-level
 * `Server` (McpServer would validate its own output with a backtracking RegExp and hang itself)
 * over Streamable HTTP on an OS-chosen loopback port. Its tools:
 *
 * - `redos`: `outputSchema` with `"pattern": "^(a+)+$"`, answering `structuredContent` of 40 `a`s
 *   and a `!` — V8's RegExp never finishes that match;
 * - `wide`: an `outputSchema` of 3,000 properties (ajv took 6.3 s on it, then failed and printed
 *   1.7 MB of its generated code);
 * - `deep`: `anyOf` over a recursive `$ref`, answering a value 30 levels deep — 2^30 checks;
 * - `fine`: an ordinary tool, to show recording goes on; `shaped`: one with an ordinary
 *   outputSchema, to warm a new mcpscope up (the first message of each kind costs a fresh process
 *   a few hundred ms: V8 and zod compile their code then).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export const REDOS_VALUE = `${'a'.repeat(40)}!`;

function wideSchema(width: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < width; i++) properties[`p${i}`] = { type: 'string', description: `property ${i}` };
  return { type: 'object', properties };
}

function deepValue(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { b: 'x' };
  for (let i = 0; i < depth; i++) value = { a: value, b: 'x' };
  return value;
}

export const HOSTILE_TOOLS = [
  {
    name: 'redos',
    description: 'Its outputSchema has a pattern that backtracks.',
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } },
  },
  { name: 'wide', description: 'An outputSchema of 3,000 properties.', inputSchema: { type: 'object' }, outputSchema: wideSchema(3_000) },
  {
    name: 'deep',
    description: 'anyOf over a recursive $ref.',
    inputSchema: { type: 'object' },
    outputSchema: {
      type: 'object',
      $defs: {
        n: {
          anyOf: [
            { type: 'object', properties: { a: { $ref: '#/$defs/n' }, b: { type: 'number' } } },
            { type: 'object', properties: { a: { $ref: '#/$defs/n' } } },
          ],
        },
      },
      $ref: '#/$defs/n',
    },
  },
  { name: 'fine', description: 'An ordinary tool.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  {
    name: 'shaped',
    description: 'An ordinary tool with an outputSchema.',
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^[a-z]+$' } }, required: ['s'] },
  },
];

const RESULTS: Record<string, Record<string, unknown>> = {
  redos: { content: [{ type: 'text', text: 'redos' }], structuredContent: { s: REDOS_VALUE } },
  wide: { content: [{ type: 'text', text: 'wide' }], structuredContent: { p0: 'x' } },
  deep: { content: [{ type: 'text', text: 'deep' }], structuredContent: deepValue(30) },
  shaped: { content: [{ type: 'text', text: 'shaped' }], structuredContent: { s: 'fine' } },
};

export interface HostileSchemaServer {
  url: string;
  close(): Promise<void>;
}

export async function startHostileSchemaServer(): Promise<HostileSchemaServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http: HttpServer = createServer((req, res) => {
    const sid = req.headers['mcp-session-id'];
    const existing = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (existing) return void existing.handleRequest(req, res);
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const server = new Server({ name: 'hostile-schemas', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: HOSTILE_TOOLS }) as never);
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const name = request.params.name;
      const args = (request.params.arguments ?? {}) as { text?: string };
      return (RESULTS[name] ?? { content: [{ type: 'text', text: `fine: ${args.text ?? ''}` }] }) as never;
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (id) => void transports.set(id, transport),
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      for (const t of transports.values()) await t.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
