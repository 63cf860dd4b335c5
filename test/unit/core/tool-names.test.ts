/**
 * Clients and their MCP tool names (proxy/core/model-api/tool-names.ts): the headers each client
 * sends, and each client's naming read back — Claude Code `mcp__<server>__<tool>`, Codex's
 * namespace flattened to the same (older Codex `<server>__<tool>`), Gemini CLI `mcp_<server>_<tool>`
 * (older: bare, or `<server>__<tool>`).
 */
import { describe, expect, it } from 'vitest';
import { clientOf, clientToolNames, toolOfClientName } from '../../../proxy/core/model-api/tool-names.js';

describe('clientOf', () => {
  it('tells each client by its headers', () => {
    expect(clientOf({ 'user-agent': 'claude-cli/2.1.197 (external, cli)' })).toBe('claude-code');
    expect(clientOf({ 'user-agent': 'Anthropic/JS 0.60.0', 'x-claude-code-session-id': 'abc' })).toBe('claude-code');
    expect(clientOf({ 'user-agent': 'GeminiCLI/0.56.0/gemini-2.5-pro (linux; x64; terminal)' })).toBe('gemini-cli');
    expect(clientOf({ 'user-agent': 'GeminiCLI-zed/0.56.0/gemini-2.5-pro (darwin; arm64; terminal)' })).toBe('gemini-cli');
    // Gemini CLI 0.61.0's headless run (-p), as it came through mcpscope.
    expect(clientOf({ 'user-agent': 'GeminiCLI-tui/0.61.0/gemini-2.5-flash (linux; x64; terminal)' })).toBe('gemini-cli');
    expect(clientOf({ 'user-agent': 'CloudCodeVSCode/0.56.0 (aidev_client; os_type=Linux; proxy_client=geminicli)' })).toBe('gemini-cli');
    expect(clientOf({ originator: 'codex_cli_rs', 'user-agent': 'codex_cli_rs/0.40.0 (Ubuntu 24.4.0; x86_64) xterm' })).toBe('codex');
    expect(clientOf({ originator: 'codex_exec' })).toBe('codex');
    expect(clientOf({ 'user-agent': ['codex-tui/0.50.0 (Mac OS 15.0; arm64)'] })).toBe('codex');
    expect(clientOf({ 'user-agent': 'OpenAI/JS 6.49.0' })).toBe('other');
    expect(clientOf({})).toBe('other');
    expect(clientOf(undefined)).toBe('other');
  });
});

describe('toolOfClientName', () => {
  it('Claude Code: mcp__<server>__<tool>; its own tools are no MCP tools', () => {
    expect(toolOfClientName('mcp__se__echo', 'claude-code')).toEqual({ server: 'se', tool: 'echo' });
    expect(toolOfClientName('mcp__my-server__get_weather__v2', 'claude-code')).toEqual({ server: 'my-server', tool: 'get_weather__v2' });
    expect(toolOfClientName('Bash', 'claude-code')).toEqual({});
    expect(toolOfClientName('mcp__se', 'claude-code')).toEqual({});
    expect(toolOfClientName('mcp____x', 'claude-code')).toEqual({});
  });

  it('Codex: the flattened namespace mcp__<server>__<tool>, and the older <server>__<tool>', () => {
    expect(toolOfClientName('mcp__se__echo', 'codex')).toEqual({ server: 'se', tool: 'echo' });
    expect(toolOfClientName('se__echo', 'codex')).toEqual({ server: 'se', tool: 'echo' });
    expect(toolOfClientName('shell', 'codex')).toEqual({});
  });

  it('Gemini CLI: mcp_<server>_<tool> as its parseMcpToolName reads it, and the older <server>__<tool>', () => {
    expect(toolOfClientName('mcp_se_echo', 'gemini-cli')).toEqual({ server: 'se', tool: 'echo' });
    expect(toolOfClientName('mcp_everything_get_sum', 'gemini-cli')).toEqual({ server: 'everything', tool: 'get_sum' });
    expect(toolOfClientName('se__echo', 'gemini-cli')).toEqual({ server: 'se', tool: 'echo' });
    expect(toolOfClientName('read_file', 'gemini-cli')).toEqual({});
  });

  it('another client: either qualified form', () => {
    expect(toolOfClientName('mcp__se__echo', 'other')).toEqual({ server: 'se', tool: 'echo' });
    expect(toolOfClientName('mcp_se_echo', 'other')).toEqual({ server: 'se', tool: 'echo' });
    expect(toolOfClientName('echo', 'other')).toEqual({});
  });
});

describe('clientToolNames', () => {
  it('the names each client gives a server tool, normalised as it does', () => {
    expect(clientToolNames('my server', 'get.weather', 'claude-code')).toEqual(['mcp__my_server__get_weather']);
    expect(clientToolNames('se', 'echo', 'codex')).toEqual(['mcp__se__echo', 'se__echo']);
    expect(clientToolNames('my server', 'get.weather', 'gemini-cli')).toEqual([
      'mcp_my_server_get.weather',
      'get.weather',
      'my_server__get.weather',
    ]);
    const long = clientToolNames('s', 'x'.repeat(80), 'gemini-cli')[0];
    expect(long).toBe(`mcp_s_${'x'.repeat(24)}...${'x'.repeat(30)}`);
    expect(long.length).toBe(63);
    expect(clientToolNames('se', 'echo', 'other')).toEqual(['mcp__se__echo', 'mcp_se_echo', 'se__echo']);
  });

  it('reads back what it makes', () => {
    for (const client of ['claude-code', 'codex', 'gemini-cli'] as const) {
      expect(toolOfClientName(clientToolNames('se', 'echo', client)[0], client)).toEqual({ server: 'se', tool: 'echo' });
    }
  });
});
