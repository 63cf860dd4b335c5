import { describe, expect, it } from 'vitest';
import { delimiter, dirname, join } from 'node:path';
import { findOnPath, splitCommandLine } from '../../../proxy/app/command-line.js';
import { OPTIONS, optionsOf, shapesOf } from '../../../proxy/app/cli-options.js';
import { parseArgsOptions } from '../../../proxy/app/cli-parse.js';

// The main command's options as the option table declares them (--log with its optional value included).
const split = (...argv: string[]) => splitCommandLine(argv, OPTIONS);

describe('splitCommandLine', () => {
  it('starts the command at the first argument that is not an option (launchers drop the --)', () => {
    // What `gemini mcp add se mcpscope --ui-port 17200 -- node server.js stdio` stores.
    expect(split('--ui-port', '17200', 'node', 'server.js', 'stdio')).toEqual({
      own: ['--ui-port', '17200'],
      command: ['node', 'server.js', 'stdio'],
      dashes: false,
    });
    expect(split('node', 'server.js')).toEqual({ own: [], command: ['node', 'server.js'], dashes: false });
  });

  it('leaves the command its own options, even ones named like mcpscope’s', () => {
    expect(split('--lint', 'off', 'node', 'server.js', '--port', '3', '--', 'x')).toEqual({
      own: ['--lint', 'off'],
      command: ['node', 'server.js', '--port', '3', '--', 'x'],
      dashes: false,
    });
  });

  it('takes an explicit --, and tolerates more of them', () => {
    expect(split('--ui-port', '1', '--', 'node', 's.js')).toEqual({ own: ['--ui-port', '1'], command: ['node', 's.js'], dashes: true });
    expect(split('--', '--', '--', 'node')).toEqual({ own: [], command: ['node'], dashes: true });
    expect(split('--token', 't', '--')).toEqual({ own: ['--token', 't'], command: [], dashes: true });
  });

  it('reads values as the option parser does: --name=value, booleans, short flags, --log with or without a file', () => {
    expect(split('--ui-port=5', '--show-secrets', 'srv').own).toEqual(['--ui-port=5', '--show-secrets']);
    expect(split('-h')).toEqual({ own: ['-h'], command: [], dashes: false });
    expect(split('--log', 'mcpscope.log', 'node', 's.js')).toEqual({
      own: ['--log', 'mcpscope.log'],
      command: ['node', 's.js'],
      dashes: false,
    });
    expect(split('--log', '--ui-port', '2', 'node')).toEqual({ own: ['--log', '--ui-port', '2'], command: ['node'], dashes: false });
    expect(split('--log', '--', 'node')).toEqual({ own: ['--log'], command: ['node'], dashes: true });
    // A value that looks like an option is still the value (parseArgs would say so if it is wrong).
    expect(split('--token', '--x', 'node').command).toEqual(['node']);
  });

  it('keeps an unknown option on mcpscope’s side, for its parser to name', () => {
    expect(split('--bogus', 'node')).toEqual({ own: ['--bogus'], command: ['node'], dashes: false });
  });

  it('has no command when there are only options', () => {
    expect(split('--target', 'http://127.0.0.1:1/mcp', '--port', '0')).toEqual({
      own: ['--target', 'http://127.0.0.1:1/mcp', '--port', '0'],
      command: [],
      dashes: false,
    });
  });
});

describe('splitCommandLine reads the option table', () => {
  it('is given the main command’s options straight from the table, as its parser is', () => {
    expect(OPTIONS).toEqual(shapesOf('main'));
    expect(Object.keys(OPTIONS).sort()).toEqual(
      optionsOf('main')
        .map((o) => o.name)
        .sort(),
    );
    // What parseArgs reads is the same table, but for the optional value it cannot express.
    for (const [name, shape] of Object.entries(parseArgsOptions('main'))) expect(OPTIONS[name]).toMatchObject(shape);
    expect(OPTIONS.log).toEqual({ type: 'string', optionalValue: true });
  });

  it('takes each option of the wrapper and of run with as many arguments as the table says', () => {
    for (const command of ['main', 'run'] as const) {
      for (const o of optionsOf(command)) {
        const flag = `--${o.name}`;
        const own = o.type === 'boolean' ? [flag] : o.type === 'optional' ? [flag, 'out.log'] : [flag, '1'];
        expect(splitCommandLine([...own, 'node', 's.js'], shapesOf(command)), `${command} ${flag}`).toEqual({
          own,
          command: ['node', 's.js'],
          dashes: false,
        });
        if (o.short) expect(splitCommandLine([`-${o.short}`, 'node'], shapesOf(command)).own).toEqual([`-${o.short}`]);
      }
    }
    // An optional value is not taken when another option follows.
    expect(splitCommandLine(['--log', '--lint', 'off', 'claude'], shapesOf('run')).command).toEqual(['claude']);
  });
});

describe('findOnPath', () => {
  it('finds a file on PATH as the shell does, a path as itself, and nothing else', () => {
    expect(findOnPath('node', `/nonexistent${delimiter}${dirname(process.execPath)}`)).toBe(join(dirname(process.execPath), 'node'));
    expect(findOnPath(process.execPath, '')).toBe(process.execPath);
    expect(findOnPath('mcpscope-no-such-command-xyz', process.env.PATH)).toBeUndefined();
    // A relative PATH entry is not searched (a desktop app's cwd is anywhere), nor a directory taken for a file.
    expect(findOnPath('bin', '.')).toBeUndefined();
    expect(findOnPath(dirname(process.execPath), '')).toBeUndefined();
  });
});
