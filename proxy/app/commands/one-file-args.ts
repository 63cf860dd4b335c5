/**
 * Argument parsing shared by the subcommands that take exactly one file (`open`, `wrap`,
 * `unwrap`): options via node's parseArgs, `--help`, and plain-words usage errors (exit 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface OneFileCommand<O extends Options> {
  /** `open`, `wrap`, … */
  name: string;
  options: O;
  help: string;
  /** e.g. "mcpscope wrap <config.json> [--write]" */
  usage: string;
  /** What the file is, for "which config file?" */
  what: string;
}

/** The parsed options and the file, or the exit code when help was shown or the words were off. */
export function parseOneFileArgs<O extends Options>(
  argv: string[],
  cmd: OneFileCommand<O>,
): { values: ReturnType<typeof parseArgs<{ options: O; allowPositionals: true }>>['values']; file: string } | number {
  const err = process.stderr;
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { ...cmd.options, help: { type: 'boolean', short: 'h' } as const } });
  } catch (e) {
    err.write(`mcpscope ${cmd.name}: ${(e as Error).message}\nRun mcpscope ${cmd.name} --help for the options.\n`);
    return 2;
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(cmd.help);
    return 0;
  }
  const [file, ...extra] = parsed.positionals;
  if (file === undefined || extra.length > 0) {
    err.write(`mcpscope ${cmd.name}: ${file === undefined ? `which ${cmd.what}? ` : `one ${cmd.what} at a time. `}Usage: ${cmd.usage}\n`);
    return 2;
  }
  return { values: parsed.values as never, file };
}
