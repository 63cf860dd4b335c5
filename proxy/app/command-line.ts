/**
 * Where mcpscope's own options end and the command it runs begins — for the stdio wrapper
 * (`mcpscope [options] [--] <server command…>`) and `mcpscope run [options] [--] <client command…>`.
 *
 * As `env`, `time`, `sudo` and `npx` do: the first argument that is not one of mcpscope's options
 * (nor an option's value) starts the command, and everything from there on is the command's,
 * untouched. A `--` there says so explicitly and is dropped, and so are any more `--` right after
 * it: launchers strip or add them (`gemini mcp add se mcpscope --ui-port 17200 -- node server.js`
 * stores no `--`; the Inspector's launcher eats one per level), and a command never starts with one.
 *
 * Options are recognised by the table their parser is made from (proxy/app/cli-options.ts, as
 * `shapesOf(command)`): an option with a value takes the next argument (`--ui-port 17200`),
 * `--name=value` is one argument, and an optional value (`--log [file]`) is taken only when the
 * next argument is not an option (optionalValueFollows, proxy/app/cli-parse.ts, as its parser does).
 * An unknown `-x` or `--x` stays on mcpscope's side, so its parser names it in an error.
 */
import { statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { OptionShape } from './cli-options.js';
import { optionalValueFollows } from './cli-parse.js';

/** A command's options as `shapesOf` gives them. */
export type OptionTable = Readonly<Record<string, OptionShape>>;

export interface CommandLine {
  /** mcpscope's own arguments (options and their values), in order. */
  own: string[];
  /** The command and its arguments; empty when there is none. */
  command: string[];
  /** Whether a `--` marked where the command starts. */
  dashes: boolean;
}

export function splitCommandLine(argv: readonly string[], options: OptionTable): CommandLine {
  const takesValue = new Set<string>();
  const mayTakeValue = new Set<string>();
  for (const [name, o] of Object.entries(options)) {
    if (o.type !== 'string') continue;
    const names = [`--${name}`, ...(o.short ? [`-${o.short}`] : [])];
    for (const n of names) (o.optionalValue ? mayTakeValue : takesValue).add(n);
  }
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--' || !a.startsWith('-') || a === '-') break;
    if (a.includes('=')) continue;
    if (mayTakeValue.has(a)) {
      if (optionalValueFollows(argv[i + 1])) i += 1;
      continue;
    }
    if (takesValue.has(a) && i + 1 < argv.length) i += 1;
  }
  const own = argv.slice(0, i);
  let rest = i;
  while (argv[rest] === '--') rest += 1;
  return { own, command: argv.slice(rest), dashes: rest > i };
}

/**
 * The first `name` on `pathVariable` (a file, as the shell finds it), not resolved; a name with a
 * `/` is looked up as the path it is. Undefined when there is none.
 */
export function findOnPath(name: string, pathVariable: string | undefined): string | undefined {
  const isFile = (p: string) => {
    try {
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (name.includes('/')) return isFile(name) ? name : undefined;
  for (const dir of (pathVariable ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isFile(candidate)) return candidate;
  }
  return undefined;
}
