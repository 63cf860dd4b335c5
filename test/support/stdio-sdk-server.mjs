// A stdio MCP server on the official SDK (McpServer + StdioServerTransport), for the stdio
// breakpoint tests (test/e2e/stdio-breakpoints.test.ts):
//   echo {text}  → "echo: <text>"
//   ask {question} → asks the client to sample (sampling/createMessage, server→client) and
//                    returns "answer: <the sampled text>"
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'stdio-breakpoints-fixture', version: '1.0.0' });
server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text: `echo: ${text}` }],
}));
server.registerTool('ask', { inputSchema: { question: z.string() } }, async ({ question }) => {
  const r = await server.server.createMessage({
    messages: [{ role: 'user', content: { type: 'text', text: question } }],
    maxTokens: 10,
  });
  return { content: [{ type: 'text', text: `answer: ${r.content.type === 'text' ? r.content.text : '?'}` }] };
});
await server.connect(new StdioServerTransport());
process.stderr.write('ready\n');
