/**
 * Which client drove a model API call (from its request headers), and how each client names an
 * MCP server's tools to the model — so a tool call the model chose can be mapped to the MCP
 * server and tool it stands for. A name's reading is a guess: the recorder confirms it against
 * the MCP sessions' `tools/list` (with `clientToolNames`, the names a client would give a tool).
 *
 * Sources read (2026-09):
 * - Claude Code (no public source; its MCP docs and `--allowedTools mcp__<server>__<tool>`, and
 *   the requests of Claude Code 2.1.197 seen through mcpscope, ../shared/protocol-notes.md §9):
 *   `mcp__<server>__<tool>`, server and tool names with every character outside [A-Za-z0-9_-]
 *   replaced by `_`. Requests carry `user-agent: claude-cli/<version> (…)` and
 *   `x-claude-code-session-id`.
 * - Codex (openai/codex, codex-rs/codex-mcp/src/tools.rs): MCP tools are offered in a Responses
 *   `namespace` tool named `mcp__<server>` (LEGACY_MCP_TOOL_NAME_PREFIX + the sanitized server
 *   name; sanitize_responses_api_tool_name keeps [A-Za-z0-9_-]), each tool under its sanitized
 *   name; openai-responses.ts flattens that to `mcp__<server>__<tool>`. Older Codex named them
 *   `<server>__<tool>` (MCP_TOOL_NAME_DELIMITER = "__"), flat; names over 64 bytes or colliding
 *   get a sha1 suffix, which cannot be read back (the tools/list check finds them). Requests carry
 *   `originator: codex_cli_rs` (or codex_exec, codex-tui, codex_vscode, "Codex …") and a
 *   user agent that starts with the originator.
 * - Gemini CLI (google-gemini/gemini-cli, packages/core/src/tools/mcp-tool.ts, 0.34 and later,
 *   through the 0.56 source read): `mcp_<server>_<tool>` made by generateValidName — characters
 *   outside [A-Za-z0-9_.:-] become `_`, and a name over 63 characters keeps its first 30 and last
 *   30 around `...`; parseMcpToolName reads the server as the text up to the first `_`. Before
 *   0.34 a tool kept its bare name, or `<server>__<tool>` when two servers clashed. Requests carry
 *   `User-Agent: GeminiCLI/<version>/<model> (…)` (or `GeminiCLI-<client>/…`, or
 *   `CloudCodeVSCode/… proxy_client=geminicli`). Gemini CLI 0.61.0 seen through mcpscope
 *   (test/agents/gemini-cli.test.ts): `mcp_se_echo` for server `se`'s `echo`, `User-Agent:
 *   GeminiCLI-tui/0.61.0/<model> (linux; x64; terminal)`.
 */
import type { AgentClient } from '../model/model-turn.js';
import { firstHeader, type HeaderMap } from '../model/headers.js';

export interface ClientToolName {
  server?: string;
  tool?: string;
}

/** Which client sent a request, by its headers; `other` when they do not tell. */
export function clientOf(headers: HeaderMap | undefined): AgentClient {
  const ua = firstHeader(headers, 'user-agent') ?? '';
  const originator = firstHeader(headers, 'originator') ?? '';
  if (/^claude-cli\//i.test(ua) || firstHeader(headers, 'x-claude-code-session-id') !== undefined) return 'claude-code';
  if (/^GeminiCLI[/-]/.test(ua) || /proxy_client=geminicli/i.test(ua)) return 'gemini-cli';
  if (/^codex[_-]/i.test(originator) || /^Codex /.test(originator) || /^codex[_-]/i.test(ua)) return 'codex';
  return 'other';
}

/** `mcp__<server>__<tool>`: the server up to the first `__` after the prefix. */
function doubleUnderscore(name: string, prefix: string): ClientToolName {
  if (!name.startsWith(prefix)) return {};
  const rest = name.slice(prefix.length);
  const at = rest.indexOf('__');
  if (at <= 0 || at + 2 >= rest.length) return {};
  return { server: rest.slice(0, at), tool: rest.slice(at + 2) };
}

/** Gemini CLI's `mcp_<server>_<tool>` (its own parseMcpToolName: the server has no `_`). */
function geminiName(name: string): ClientToolName {
  const m = /^mcp_([^_]+)_(.+)$/.exec(name);
  return m ? { server: m[1], tool: m[2] } : {};
}

/**
 * The MCP server and tool a client's tool name stands for, as far as the name tells; `{}` for a
 * client's own tools (Bash, shell, read_file) and names it does not qualify.
 */
export function toolOfClientName(name: string, client: AgentClient): ClientToolName {
  switch (client) {
    case 'claude-code':
      return doubleUnderscore(name, 'mcp__');
    case 'codex': {
      const named = doubleUnderscore(name, 'mcp__');
      return named.server !== undefined ? named : doubleUnderscore(name, '');
    }
    case 'gemini-cli': {
      if (name.startsWith('mcp_') && !name.startsWith('mcp__')) return geminiName(name);
      return doubleUnderscore(name, '');
    }
    default: {
      const named = doubleUnderscore(name, 'mcp__');
      if (named.server !== undefined) return named;
      return name.startsWith('mcp_') ? geminiName(name) : {};
    }
  }
}

const claudeSafe = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');
const geminiSafe = (s: string) => s.replace(/[^A-Za-z0-9_\-.:]/g, '_');

/** Gemini CLI's generateValidName (mcp-tool.ts). */
function geminiValidName(name: string): string {
  let valid = geminiSafe(name.startsWith('mcp_') ? name : `mcp_${name}`);
  if (valid.length > 63) valid = `${valid.slice(0, 30)}...${valid.slice(-30)}`;
  return valid;
}

/** The names a client may give the tool `tool` of the MCP server it calls `server` (most likely first). */
export function clientToolNames(server: string, tool: string, client: AgentClient): string[] {
  const claude = `mcp__${claudeSafe(server)}__${claudeSafe(tool)}`;
  const codexLegacy = `${claudeSafe(server)}__${claudeSafe(tool)}`;
  const gemini = geminiValidName(`${server}_${tool}`);
  switch (client) {
    case 'claude-code':
      return [claude];
    case 'codex':
      return [claude, codexLegacy];
    case 'gemini-cli':
      return [gemini, tool, `${geminiSafe(server)}__${geminiSafe(tool)}`];
    default:
      return [...new Set([claude, gemini, codexLegacy])];
  }
}
