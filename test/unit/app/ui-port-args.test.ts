/** proxy/app/commands/ui-port-args.ts: the argument parsing of `mcpscope env` and `mcpscope mcp`. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseUiPortArgs } from '../../../proxy/app/commands/ui-port-args.js';

const USAGE = 'Usage: mcpscope x [--ui-port <n>]\n';
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
    expect(parseUiPortArgs([], { name: 'x', usage: USAGE })).toMatchObject({ uiPort: 6480 });
    expect(
      parseUiPortArgs(['--ui-port', '7000', '--token', 't0k'], { name: 'x', usage: USAGE, options: { token: { type: 'string' } } }),
    ).toEqual({
      uiPort: 7000,
      values: { 'ui-port': '7000', token: 't0k' },
    });
  });

  it('answers --help on stdout (exit 0), and refuses unknown options, bad ports and port 0 on stderr (exit 2)', () => {
    const s = said();
    expect(parseUiPortArgs(['--help'], { name: 'x', usage: USAGE })).toBe(0);
    expect(s.out).toEqual([USAGE]);
    expect(parseUiPortArgs(['--nope'], { name: 'x', usage: USAGE })).toBe(2);
    expect(s.err.pop()).toMatch(/^mcpscope x: Unknown option '--nope'.*\n\nUsage: mcpscope x/s);
    expect(parseUiPortArgs(['--ui-port', 'abc'], { name: 'x', usage: USAGE })).toBe(2);
    expect(s.err.pop()).toMatch(/^mcpscope x: --ui-port/);
    expect(parseUiPortArgs(['--ui-port', '0'], { name: 'x', usage: USAGE })).toBe(2);
    expect(s.err.pop()).toBe('mcpscope x: --ui-port must name the port of a running mcpscope UI, not 0\n');
  });
});
