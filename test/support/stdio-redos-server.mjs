// A stdio MCP server on the official SDK's low-level Server (McpServer would check its own output
// against the schema with a backtracking RegExp and hang itself), for test/e2e/stdio-isolation:
//   redos → a tool whose outputSchema has "pattern": "^(a+)+$", answering structuredContent
//           { s: 40 a's and a "!" } — a backtracking matcher never finishes that match
//   fine  → an ordinary tool
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'stdio-redos', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'redos',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } },
    },
    { name: 'fine', inputSchema: { type: 'object' } },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (req) =>
  req.params.name === 'redos'
    ? { content: [{ type: 'text', text: 'redos' }], structuredContent: { s: `${'a'.repeat(40)}!` } }
    : { content: [{ type: 'text', text: 'fine' }] },
);
await server.connect(new StdioServerTransport());
process.stderr.write('ready\n');
