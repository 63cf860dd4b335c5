/**
 * The option table (proxy/app/cli-options.ts) as the one source of every command's options: the
 * help made from it (proxy/app/cli-help.ts), the values read and checked by it
 * (proxy/app/cli-parse.ts), and the defaults it shows, which are the ones the code applies.
 */
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { DEFAULT_REPLAY_PORT, OPTION_TABLE, optionsOf, WRAPPER_OPTIONS, type CommandName } from '../../../proxy/app/cli-options.js';
import { PAGES, SUBCOMMANDS } from '../../../proxy/app/cli-commands.js';
import { helpText, optionHelp, optionLeft } from '../../../proxy/app/cli-help.js';
import { checkValue, parseCommand, readCommandLine, takeOptionalValues } from '../../../proxy/app/cli-parse.js';
import { UsageError } from '../../../proxy/core/model/errors.js';
import { DEFAULT_GRACE_MS } from '../../../proxy/app/mcpscope.js';
import { DEFAULT_HOLD_MS } from '../../../proxy/core/rules/breakpoint-types.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../../proxy/core/parse/body-reader.js';
import { FIRST_PROXY_PORT } from '../../../proxy/app/commands/client-config-entries.js';
import { DEFAULT_PROXY_PORT, DEFAULT_UI_PORT } from '../../../proxy/wire/ports.js';

const COMMANDS = Object.keys(PAGES) as Exclude<CommandName, 'wrapper'>[];
const said = () => {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((c) => (out.push(String(c)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c) => (err.push(String(c)), true));
  return { out, err };
};
afterEach(() => void vi.restoreAllMocks());

/** The message a command line is refused with. */
const refusal = (command: CommandName, argv: string[]): string => {
  try {
    readCommandLine(command, argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`${command} ${argv.join(' ')} was not refused`);
};

describe('the option table', () => {
  it('has a page for every command, the subcommands among them', () => {
    expect(new Set(COMMANDS)).toEqual(new Set(['main', ...SUBCOMMANDS]));
    for (const o of OPTION_TABLE) for (const c of Object.keys(o.in)) expect([...COMMANDS, 'wrapper'], o.name).toContain(c);
  });

  it('gives each command an option name once, and every command --help', () => {
    for (const c of [...COMMANDS, 'wrapper'] as const) {
      const names = optionsOf(c).map((o) => o.name);
      expect(new Set(names).size, c).toBe(names.length);
      expect(names, c).toContain('help');
    }
  });

  it('shows every option of a command in its help, with its help line, in the one format', () => {
    for (const c of COMMANDS) {
      const help = helpText(c);
      expect(help.startsWith(c === 'main' ? 'mcpscope ' : `mcpscope ${c} — ${PAGES[c].summary}\n\nUsage\n`), c).toBe(true);
      expect(help, c).toContain('\nOptions\n');
      const flat = help.replace(/\s+/g, ' ');
      for (const o of optionsOf(c)) {
        expect(help, `${c} ${o.name}`).toMatch(new RegExp(`^  ${optionLeft(o).replace(/[[\]]/g, '\\$&')} `, 'm'));
        expect(flat, `${c} ${o.name}`).toContain(optionHelp(o, c).replace(/\s+/g, ' '));
      }
    }
    // The wrapper's help is the main command's, which says what a wrapper takes.
    expect(helpText('wrapper')).toBe(helpText('main'));
    expect(helpText('main').replace(/\s+/g, ' ')).toContain(
      `takes ${[...WRAPPER_OPTIONS]
        .filter((n) => n !== 'help' && n !== 'version')
        .map((n) => `--${n}`)
        .slice(0, 3)
        .join(', ')}`,
    );
  });

  it('writes the default into the help of every option that has one, and names every choice', () => {
    for (const c of [...COMMANDS, 'wrapper'] as const) {
      for (const o of optionsOf(c)) {
        const own = o.in[c];
        const hasDefault = (typeof own === 'object' && own.default !== undefined) || o.default !== undefined;
        const line = typeof own === 'string' ? own : typeof own === 'object' && own.help ? own.help : o.help;
        expect(line.includes('{default}'), `${c} --${o.name}`).toBe(hasDefault);
        expect(optionHelp(o, c)).not.toContain('{default}');
        if (o.type === 'choice') for (const word of o.choices) expect(optionHelp(o, c), `${c} --${o.name}`).toContain(word);
      }
    }
  });

  it('names in each usage line only options its command takes', () => {
    for (const c of COMMANDS) {
      const names = new Set(optionsOf(c).map((o) => o.name));
      for (const u of PAGES[c].usage)
        for (const [, n] of u.line.matchAll(/--([a-z][\w-]*)/g)) expect(names, `${c}: ${u.line}`).toContain(n);
    }
  });

  it('shows the defaults the code applies', () => {
    const def = (name: string, c: CommandName = 'main') => {
      const o = optionsOf(c).find((x) => x.name === name)!;
      const own = o.in[c];
      return (typeof own === 'object' ? own.default : undefined) ?? o.default;
    };
    expect(def('grace')).toBe(DEFAULT_GRACE_MS);
    expect(def('hold-timeout')).toBe(DEFAULT_HOLD_MS);
    expect(def('max-body')).toBe(DEFAULT_MAX_BODY_BYTES);
    expect(def('port')).toBe(DEFAULT_PROXY_PORT);
    expect(def('ui-port')).toBe(DEFAULT_UI_PORT);
    expect(def('port', 'wrap')).toBe(FIRST_PROXY_PORT);
    expect(def('port', 'replay')).toBe(DEFAULT_REPLAY_PORT);
  });
});

describe('reading a command line by the table', () => {
  it('gives numbers as numbers and choices as their words, typed by the table', () => {
    const { values } = readCommandLine('main', [
      '--port',
      '0',
      '--max-body',
      '1e3',
      '--lint',
      'off',
      '--target',
      'a',
      '--target',
      'b',
      '--log',
    ]);
    expect(values).toEqual({ port: 0, 'max-body': 1000, lint: 'off', target: ['a', 'b'], log: 'stdout' });
    expectTypeOf(values.port).toEqualTypeOf<number | undefined>();
    expectTypeOf(values.lint).toEqualTypeOf<'off' | 'warn' | 'strict' | undefined>();
    expectTypeOf(values.target).toEqualTypeOf<string[] | undefined>();
    expectTypeOf(values.log).toEqualTypeOf<string | undefined>();
    expectTypeOf(values['show-secrets']).toEqualTypeOf<boolean | undefined>();
    const replay = readCommandLine('replay', ['f.json', '--timing', '0.5', '-q']);
    expect(replay.values).toEqual({ timing: 0.5, quiet: true });
    expect(replay.positionals).toEqual(['f.json']);
    expectTypeOf(replay.values.timing).toEqualTypeOf<'recorded' | 'fast' | number | undefined>();
    expect(readCommandLine('verify', ['f', '--target', 'a', '--target', 'b']).values).toEqual({ target: 'b' });
  });

  it('refuses a number option with a bad value in words naming the option and what it takes', () => {
    expect(refusal('main', ['--max-body', 'abc'])).toBe('--max-body must be a positive whole number, not "abc"');
    expect(refusal('wrapper', ['--max-body', '0'])).toBe('--max-body must be a positive whole number, not "0"');
    expect(refusal('main', ['--port', '70000'])).toBe('--port must be a port number from 0 to 65535, not "70000"');
    expect(refusal('main', ['--ui-port', ''])).toBe('--ui-port must be a port number from 0 to 65535, not ""');
    expect(refusal('main', ['--grace=-1'])).toBe('--grace must be a whole number of milliseconds (0 or more), not "-1"');
    expect(refusal('main', ['--grace', ' '])).toBe('--grace must be a whole number of milliseconds (0 or more), not " "');
    expect(refusal('main', ['--hold-timeout', '1.5'])).toBe('--hold-timeout must be a positive whole number, not "1.5"');
    expect(refusal('verify', ['f', '--timeout', '0'])).toBe('--timeout must be a positive number of milliseconds, not "0"');
    expect(refusal('replay', ['f', '--speed', 'x'])).toBe('--speed must be a number (0 or more), not "x"');
    // A command's own lowest value.
    expect(refusal('wrap', ['c.json', '--port', '0'])).toBe('--port must be a port number from 1 to 65535, not "0"');
    expect(refusal('wrap', ['c.json', '--ui-port', 'x'])).toBe('--ui-port must be a port number from 1 to 65535, not "x"');
    expect(readCommandLine('replay', ['f', '--port', '0']).values.port).toBe(0);
  });

  it('refuses a choice option with a bad value in words listing the choices', () => {
    expect(refusal('main', ['--lint', 'loud'])).toBe('--lint must be off, warn or strict, not "loud"');
    expect(refusal('run', ['--model-traffic', 'raw'])).toBe('--model-traffic must be parse or plain, not "raw"');
    expect(refusal('wrapper', ['--log-format', 'yaml'])).toBe('--log-format must be text or json, not "yaml"');
    expect(refusal('verify', ['f', '--transport', 'ws'])).toBe('--transport must be http or sse, not "ws"');
    expect(refusal('replay', ['f', '--timing', 'slow'])).toBe('--timing must be recorded, fast or a factor (0 or more), not "slow"');
    expect(() =>
      checkValue(
        optionsOf('main').find((o) => o.name === 'lint')!,
        'main',
        'warn',
      ),
    ).not.toThrow();
  });

  it('refuses, for a stdio wrapper, the options only the proxy takes, naming the ones it does', () => {
    expect(refusal('wrapper', ['--target', 'http://x/mcp'])).toBe(
      '--target does not apply when wrapping a stdio server (only --ui-port, --token, --show-secrets, --max-body, --log, --log-format, --hold-timeout, --lint, --otlp and --otlp-bodies do).',
    );
    expect(readCommandLine('wrapper', ['--ui-port', '7000', '--log', 'x.log']).values).toEqual({ 'ui-port': 7000, log: 'x.log' });
  });

  it('answers --help with the command’s help whatever else is on the line, and names a misuse with the way to the help', () => {
    for (const c of [...COMMANDS, 'wrapper'] as const) {
      const s = said();
      expect(parseCommand(c, ['--help']), c).toBe(0);
      expect(s.out.join(''), c).toBe(helpText(c));
    }
    const s = said();
    expect(parseCommand('main', ['--lint', 'loud', '-h'])).toBe(0);
    expect(parseCommand('run', ['--nope'])).toBe(2);
    expect(s.err.pop()).toMatch(/^mcpscope run: Unknown option '--nope'.*\nRun mcpscope run --help for the options\.\n$/s);
    expect(parseCommand('main', ['--max-body', 'abc'])).toBe(2);
    expect(s.err.pop()).toBe('mcpscope: --max-body must be a positive whole number, not "abc"\n');
    expect(parseCommand('replay', [])).toBe(2);
    expect(s.err.pop()).toBe('mcpscope replay: which fixture? Usage: mcpscope replay <fixture.json> [options]\n');
    expect(parseCommand('open', ['a', 'b'])).toBe(2);
    expect(s.err.pop()).toBe('mcpscope open: one file at a time. Usage: mcpscope open <file> [options]\n');
    expect(parseCommand('env', ['x'])).toBe(2);
    expect(s.err.pop()).toMatch(/^mcpscope env: Unexpected argument 'x'/);
  });
});

describe('an optional value (--log [file])', () => {
  const take = (...args: string[]) => takeOptionalValues(args, 'main');

  it('bare (last, or before another option) and - mean its bare value, stdout', () => {
    expect(take('--log')).toEqual({ args: [], values: { log: 'stdout' } });
    expect(take('--log', '--target', 'http://x/mcp')).toEqual({ args: ['--target', 'http://x/mcp'], values: { log: 'stdout' } });
    expect(take('--port', '0', '--log', '-', '--ui-port', '0')).toEqual({
      args: ['--port', '0', '--ui-port', '0'],
      values: { log: 'stdout' },
    });
    expect(take('--log=-')).toEqual({ args: [], values: { log: 'stdout' } });
  });

  it('--log <file> and --log=<file> mean a file; other arguments are left as they were', () => {
    expect(take('--log', 'out.log', '--port', '0')).toEqual({ args: ['--port', '0'], values: { log: 'out.log' } });
    expect(take('--log=-odd.log')).toEqual({ args: [], values: { log: '-odd.log' } });
    expect(take('--record', 'r.ndjson', '--log-format', 'json')).toEqual({
      args: ['--record', 'r.ndjson', '--log-format', 'json'],
      values: {},
    });
    // Only the command's own: replay has no --log, so its parser names it.
    expect(takeOptionalValues(['--log'], 'replay')).toEqual({ args: ['--log'], values: {} });
  });

  it('refuses it twice, and an empty --log=', () => {
    expect(() => take('--log', 'a.log', '--log')).toThrow('--log was given twice: give it once (a file name, or nothing for stdout).');
    expect(() => take('--log=')).toThrow('--log= needs a file name (or - for stdout); --log alone means stdout.');
  });
});
