/**
 * Argument parsing shared by the subcommands that talk to a running mcpscope by its UI port
 * (`env`, `mcp`): `--ui-port` (default 6480; 0 names no UI), `--help`, their own options, and
 * plain-words usage errors on stderr (exit 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_UI_PORT, parsePort } from '../../wire/ports.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The parsed options and the UI port, or the exit code when help was shown or the words were off. */
export function parseUiPortArgs<O extends Options>(
  argv: string[],
  cmd: { name: string; usage: string; options?: O },
): { values: ReturnType<typeof parseArgs<{ options: O }>>['values']; uiPort: number } | number {
  let values;
  try {
    values = parseArgs({
      args: argv,
      allowPositionals: false,
      options: { ...cmd.options, 'ui-port': { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const,
    }).values as Record<string, unknown>;
  } catch (err) {
    process.stderr.write(`mcpscope ${cmd.name}: ${(err as Error).message}\n\n${cmd.usage}`);
    return 2;
  }
  if (values.help) {
    // Asked for by a person: the usage goes where they look.
    process.stdout.write(cmd.usage);
    return 0;
  }
  try {
    const uiPort = parsePort(values['ui-port'] as string | undefined, '--ui-port', DEFAULT_UI_PORT);
    if (uiPort === 0) throw new Error('--ui-port must name the port of a running mcpscope UI, not 0');
    return { values: values as never, uiPort };
  } catch (err) {
    process.stderr.write(`mcpscope ${cmd.name}: ${(err as Error).message}\n`);
    return 2;
  }
}
