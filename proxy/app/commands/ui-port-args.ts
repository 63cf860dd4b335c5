/**
 * What the subcommands that talk to a running mcpscope by its UI port (`env`, `mcp`) share
 * besides their options (read from the option table, proxy/app/cli-options.ts): `--ui-port`
 * (default 6480) must name a UI, so 0 is refused in words on stderr (exit 2).
 */
import { DEFAULT_UI_PORT } from '../../wire/ports.js';
import type { Values } from '../cli-options.js';
import { parseCommand } from '../cli-parse.js';

/** The parsed options and the UI port, or the exit code when help was shown or the words were off. */
export function parseUiPortArgs<C extends 'env' | 'mcp'>(argv: string[], command: C): { values: Values<C>; uiPort: number } | number {
  const parsed = parseCommand(command, argv);
  if (typeof parsed === 'number') return parsed;
  const uiPort = (parsed.values as { 'ui-port'?: number })['ui-port'] ?? DEFAULT_UI_PORT;
  if (uiPort === 0) {
    process.stderr.write(`mcpscope ${command}: --ui-port must name the port of a running mcpscope UI, not 0\n`);
    return 2;
  }
  return { values: parsed.values, uiPort };
}
