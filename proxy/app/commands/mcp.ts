/**
 * `mcpscope mcp [--ui-port U] [--token T]`: mcpscope as a stdio MCP server for coding agents
 * (Claude Code, Cursor…). It reads the mcpscope running with its UI on U (default 6480) through
 * its API — token from --token, $MCPSCOPE_TOKEN, or that UI's discovery file — and offers tools to
 * list sessions, search messages, show a call, export a session, inject faults and act on
 * breakpoints (proxy/agent/). stdout is the JSON-RPC channel: everything for a person goes to stderr.
 */
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { parseUiPortArgs } from './ui-port-args.js';
import { createAgentServer } from '../agent/agent-server.js';
import { UiClient } from '../agent/ui-client.js';
import { defaultExportDir } from '../agent/agent-exports.js';

export async function main(argv: string[]): Promise<number> {
  const args = parseUiPortArgs(argv, 'mcp');
  if (typeof args === 'number') return args;
  const { values: v, uiPort } = args;
  // A long-lived server for an agent: a stray failure (a notification to a client that just left)
  // is said on stderr, never a crash that takes the agent's tools away (proxy/wire/last-resort.ts, installed by cli.ts).
  const client = new UiClient({ uiPort, token: v.token });
  const exportDir = resolve(v['export-dir'] || defaultExportDir());
  const agent = createAgentServer({ client, exportDir });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
  });
  await agent.server.connect(transport);
  agent.startPolling();
  process.stderr.write(
    `mcpscope mcp: serving the mcpscope UI on 127.0.0.1:${uiPort} to an MCP client on stdio; exports go to ${exportDir}\n`,
  );
  await closed;
  await agent.close().catch(() => undefined);
  return 0;
}
