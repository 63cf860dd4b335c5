/**
 * `mcpscope mcp [--ui-port U] [--token T]`: mcpscope as a stdio MCP server for coding agents
 * (Claude Code, Cursor…). It reads the mcpscope running with its UI on U (default 6480) through
 * its API — token from --token, $MCPSCOPE_TOKEN, or that UI's discovery file — and offers tools to
 * list sessions, search messages, show a call, export a session, inject faults and act on
 * breakpoints (proxy/agent/). stdout is the JSON-RPC channel: everything for a person goes to stderr.
 */
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { DEFAULT_UI_PORT } from '../../wire/ports.js';
import { parseUiPortArgs } from './ui-port-args.js';
import { createAgentServer } from '../agent/agent-server.js';
import { UiClient } from '../agent/ui-client.js';
import { defaultExportDir } from '../agent/agent-exports.js';

const USAGE = `Usage: mcpscope mcp [--ui-port <n>] [--token <t>] [--export-dir <dir>]

Serves mcpscope's recorded traffic to a coding agent as an MCP server on stdin/stdout. It reads the
mcpscope running with its UI on --ui-port (default ${DEFAULT_UI_PORT}), with --token, else
$MCPSCOPE_TOKEN, else the token in $MCPSCOPE_HOME/ui-<port>.json (MCPSCOPE_HOME defaults to ~/.mcpscope).
export_session writes only into --export-dir (default $MCPSCOPE_HOME/exports, created 0700), and
replaces only files it wrote there itself.

Add it to Claude Code:     claude mcp add mcpscope -- mcpscope mcp
  (or, from a clone:      claude mcp add mcpscope -- node /abs/path/to/mcpscope/bin/mcpscope.js mcp)
Cursor (.cursor/mcp.json): { "mcpServers": { "mcpscope": { "command": "mcpscope", "args": ["mcp"] } } }

Tools: list_sessions, search_messages, get_exchange, export_session, add_fault, list_faults,
remove_fault, add_breakpoint, and while breakpoints exist list_paused, resume_paused, remove_breakpoint.
See docs/agent-mcp.md.
`;

export async function main(argv: string[]): Promise<number> {
  const args = parseUiPortArgs(argv, {
    name: 'mcp',
    usage: USAGE,
    options: { token: { type: 'string' }, 'export-dir': { type: 'string' } },
  });
  if (typeof args === 'number') return args;
  const { values: v, uiPort } = args;
  // A long-lived server for an agent: a stray failure (a notification to a client that just left)
  // is said on stderr, never a crash that takes the agent's tools away (proxy/last-resort.ts, installed by cli.ts).
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
