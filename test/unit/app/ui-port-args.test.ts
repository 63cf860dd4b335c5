/** proxy/app/commands/ui-port-args.ts: the argument parsing of `mcpscope env` and `mcpscope mcp`. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseUiPortArgs } from '../../../proxy/app/commands/ui-port-args.js';
import { helpText } from '../../../proxy/app/cli-help.js';

const said = () => {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((c) => (out.push(String(c)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c) => (err.push(String(c)), true));
  return { out, err };
};
afterEach(() => void vi.restoreAllMocks());

describe('parseUiPortArgs', () => {
  it('gives the UI port (6480 by default) and the command’s own options', () => {
    expect(parseUiPortArgs([], 'env')).toMatchObject({ uiPort: 6480 });
    expect(parseUiPortArgs(['--ui-port', '7000', '--token', 't0k'], 'mcp')).toEqual({
      uiPort: 7000,
      values: { 'ui-port': 7000, token: 't0k' },
    });
  });

  it('answers --help on stdout (exit 0), and refuses unknown options, bad ports and port 0 on stderr (exit 2)', () => {
    const s = said();
    expect(parseUiPortArgs(['--help'], 'env')).toBe(0);
    expect(s.out).toEqual([helpText('env')]);
    expect(parseUiPortArgs(['--nope'], 'env')).toBe(2);
    expect(s.err.pop()).toMatch(/^mcpscope env: Unknown option '--nope'.*\nRun mcpscope env --help for the options\.\n$/s);
    expect(parseUiPortArgs(['--ui-port', 'abc'], 'mcp')).toBe(2);
    expect(s.err.pop()).toBe('mcpscope mcp: --ui-port must be a port number from 0 to 65535, not "abc"\n');
    expect(parseUiPortArgs(['--ui-port', '0'], 'env')).toBe(2);
    expect(s.err.pop()).toBe('mcpscope env: --ui-port must name the port of a running mcpscope UI, not 0\n');
  });
});
