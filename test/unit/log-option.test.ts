/**
 * `--log`'s optional value (proxy/log-option.ts), which node's parseArgs cannot express, and
 * `mcpscope run`'s refusal of a log on stdout (the client's).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { logFormatOption, takeLogOption } from '../../proxy/log-option.js';
import { main as runMain } from '../../proxy/commands/run.js';

afterEach(() => vi.restoreAllMocks());

describe('takeLogOption', () => {
  it('bare --log (last, or before another option) and --log - mean stdout', () => {
    expect(takeLogOption(['--log'])).toEqual({ args: [], log: { to: 'stdout' } });
    expect(takeLogOption(['--log', '--target', 'http://x/mcp'])).toEqual({ args: ['--target', 'http://x/mcp'], log: { to: 'stdout' } });
    expect(takeLogOption(['--port', '0', '--log', '-', '--ui-port', '0'])).toEqual({
      args: ['--port', '0', '--ui-port', '0'],
      log: { to: 'stdout' },
    });
    expect(takeLogOption(['--log=-'])).toEqual({ args: [], log: { to: 'stdout' } });
  });

  it('--log <file> and --log=<file> mean a file; other arguments are left as they were', () => {
    expect(takeLogOption(['--log', 'out.log', '--port', '0'])).toEqual({ args: ['--port', '0'], log: { to: 'out.log' } });
    expect(takeLogOption(['--log=-odd.log'])).toEqual({ args: [], log: { to: '-odd.log' } });
    expect(takeLogOption(['--record', 'r.ndjson', '--log-format', 'json'])).toEqual({
      args: ['--record', 'r.ndjson', '--log-format', 'json'],
    });
  });

  it('refuses --log twice and an empty --log=', () => {
    expect(() => takeLogOption(['--log', 'a.log', '--log'])).toThrow(/--log was given twice/);
    expect(() => takeLogOption(['--log='])).toThrow(/--log= needs a file name/);
  });

  it('--log-format is text or json', () => {
    expect(logFormatOption(undefined)).toBeUndefined();
    expect(logFormatOption('json')).toBe('json');
    expect(() => logFormatOption('yaml')).toThrow(/--log-format must be text or json, not "yaml"/);
  });
});

describe('mcpscope run --log', () => {
  it('refuses stdout (the command it runs owns it) in plain words, before starting anything', async () => {
    let said = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      said += String(chunk);
      return true;
    });
    expect(await runMain(['--log', '--', 'node', '-e', '0'])).toBe(2);
    expect(said).toMatch(/--log needs a file here: mcpscope run's stdout belongs to the command it runs/);
    said = '';
    expect(await runMain(['--log-format', 'json', '--', 'node', '-e', '0'])).toBe(2);
    expect(said).toMatch(/--log needs a file here/);
  });
});
