/**
 * Reading a command's options, all of it driven by the option table (proxy/app/cli-options.ts):
 * node's parseArgs does the reading (its config made from the table), the optional values
 * (`--log [file]`, which parseArgs cannot express) are taken out first, and one check turns each
 * number and choice into its value or a refusal in plain words that names the option and what it
 * takes (`--max-body must be a positive whole number, not "abc"`).
 *
 * Why parseArgs and not commander or citty (both on npm): parseArgs is what every command used,
 * so command lines read exactly as before — `--name=value`, short flags, parseArgs' own words for
 * an unknown option or a value that looks like one — and the `--`-optional split of a wrapper's or
 * `mcpscope run`'s command line (proxy/app/command-line.ts) reads the same table. It adds no
 * dependency to a command that starts a stdio server before it loads anything else.
 */
import { parseArgs } from 'node:util';
import { optionsOf, shapesOf, type CommandName, type OptionDecl, type OptionShape, type Values } from './cli-options.js';
import { PAGES } from './cli-commands.js';
import { helpText, perCommand, wordList, wrapperOptionWords } from './cli-help.js';
import { packageVersion } from '../files/package-version.js';
import { UsageError } from '../core/model/errors.js';

/** The main command (and the wrapper) parses as itself; a wrapper then refuses what it does not take. */
const parsedAs = (command: CommandName): Exclude<CommandName, 'wrapper'> => (command === 'wrapper' ? 'main' : command);

/** `command`'s options as node's parseArgs config (optional values aside: they are taken out before). */
export function parseArgsOptions(command: CommandName): Record<string, Omit<OptionShape, 'optionalValue'>> {
  return Object.fromEntries(Object.entries(shapesOf(parsedAs(command))).filter(([, shape]) => !shape.optionalValue));
}

/** Whether the argument after an optional-valued option (`--log`) is its value: anything but another option, or `-`. */
export function optionalValueFollows(next: string | undefined): next is string {
  return next !== undefined && (!next.startsWith('-') || next === '-');
}

/** The arguments without `command`'s optional-valued options, and their values (`-` and none: the option's `bare` value). */
export function takeOptionalValues(args: readonly string[], command: CommandName): { args: string[]; values: Record<string, string> } {
  const optional = new Map<string, Extract<OptionDecl, { type: 'optional' }>>();
  for (const o of optionsOf(parsedAs(command))) if (o.type === 'optional') optional.set(o.name, o);
  const rest: string[] = [];
  const values: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      rest.push(...args.slice(i));
      break;
    }
    const eq = a.indexOf('=');
    const o = a.startsWith('--') ? optional.get(a.slice(2, eq < 0 ? undefined : eq)) : undefined;
    if (!o) {
      rest.push(a);
      continue;
    }
    let value: string;
    if (eq >= 0) {
      value = a.slice(eq + 1);
      if (value === '') throw new UsageError(`--${o.name}= needs ${o.what} (or - for ${o.bare}); --${o.name} alone means ${o.bare}.`);
    } else if (optionalValueFollows(args[i + 1])) value = args[++i];
    else value = '-';
    if (values[o.name] !== undefined)
      throw new UsageError(`--${o.name} was given twice: give it once (${o.what}, or nothing for ${o.bare}).`);
    values[o.name] = value === '-' ? o.bare : value;
  }
  return { args: rest, values };
}

/** What a number option takes, in words: "a port number from 0 to 65535", "a positive whole number". */
function numberWords(o: { integer?: boolean; positive?: boolean; min?: number; max?: number; what?: string; unit?: string }): string {
  const unit = o.unit ? ` of ${o.unit}` : '';
  if (o.max !== undefined) return `${o.what ?? (o.integer ? 'a whole number' : 'a number')}${unit} from ${o.min ?? 0} to ${o.max}`;
  if (o.positive) return `${o.what ?? (o.integer ? 'a positive whole number' : 'a positive number')}${unit}`;
  const what = `${o.what ?? (o.integer ? 'a whole number' : 'a number')}${unit}`;
  return o.min === undefined ? what : `${what} (${o.min} or more)`;
}

/** A number's text as node's Number() reads it (not empty), when it is in range; undefined when not. */
function numberIn(text: string, o: { integer?: boolean; positive?: boolean; min?: number; max?: number }): number | undefined {
  const n = text.trim() === '' ? NaN : Number(text);
  const ok =
    Number.isFinite(n) &&
    (!o.integer || Number.isInteger(n)) &&
    (!o.positive || n > 0) &&
    (o.min === undefined || n >= o.min) &&
    (o.max === undefined || n <= o.max);
  return ok ? n : undefined;
}

/** Option `o`'s value from its text, in `command`: a number, one of its words, or the text itself; throws a UsageError. */
export function checkValue(o: OptionDecl, command: CommandName, text: string): string | number {
  if (o.type === 'number') {
    const range = { ...o, min: perCommand(o, command).min ?? o.min };
    const n = numberIn(text, range);
    if (n === undefined) throw new UsageError(`--${o.name} must be ${numberWords(range)}, not ${JSON.stringify(text)}`);
    return n;
  }
  if (o.type === 'choice') {
    if (o.choices.includes(text)) return text;
    const n = o.orNumber ? numberIn(text, o.orNumber) : undefined;
    if (n !== undefined) return n;
    const words = [...o.choices, ...(o.orNumber ? [numberWords(o.orNumber)] : [])];
    throw new UsageError(`--${o.name} must be ${wordList(words, 'or')}, not ${JSON.stringify(text)}`);
  }
  return text;
}

/** What a command line says: the checked values, the other arguments, and whether it asked for help or the version. */
export interface CommandLineRead<C extends CommandName> {
  values: Values<C>;
  positionals: string[];
  help: boolean;
  version: boolean;
}

/**
 * Reads `argv` as `command`'s options (and, for a command with an operand, its arguments). Throws a
 * UsageError (`hint`: parseArgs refused it, so the help is worth a look) on a misuse; values are
 * checked only when neither help nor the version was asked for.
 */
export function readCommandLine<C extends CommandName>(command: C, argv: readonly string[]): CommandLineRead<C> {
  const as = parsedAs(command);
  const taken = takeOptionalValues(argv, command);
  let parsed;
  try {
    parsed = parseArgs({ args: taken.args, allowPositionals: PAGES[as].operand !== undefined, options: parseArgsOptions(command) });
  } catch (err) {
    throw new UsageError((err as Error).message, true);
  }
  const raw: Record<string, unknown> = { ...parsed.values, ...taken.values };
  const help = raw.help === true;
  const version = raw.version === true;
  const values: Record<string, unknown> = {};
  if (!help && !version) {
    const taking = new Map(optionsOf(command).map((o) => [o.name, o]));
    for (const [name, value] of Object.entries(raw)) {
      const o = taking.get(name);
      if (!o) throw new UsageError(`--${name} does not apply when wrapping a stdio server (only ${wrapperOptionWords()} do).`);
      values[name] = Array.isArray(value)
        ? value.map((v: string) => checkValue(o, command, v))
        : typeof value === 'string'
          ? checkValue(o, command, value)
          : value;
    }
  }
  return { values: (help || version ? raw : values) as Values<C>, positionals: parsed.positionals, help, version };
}

/** How a command names itself in its messages: `mcpscope` for the main command and the wrapper, else `mcpscope <name>`. */
export function commandWords(command: CommandName): string {
  return command === 'main' || command === 'wrapper' ? 'mcpscope' : `mcpscope ${command}`;
}

/**
 * `command`'s options and operand from `argv`, or the exit code once it has answered: its help (or
 * the version) on stdout, 0; a misuse in words on stderr, 2.
 */
export function parseCommand<C extends CommandName>(command: C, argv: readonly string[]): { values: Values<C>; operand?: string } | number {
  const who = commandWords(command);
  let read: CommandLineRead<C>;
  try {
    read = readCommandLine(command, argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const hint = err.hint ? `\nRun ${who} --help for the options.` : '';
    process.stderr.write(`${who}: ${err.message}${hint}\n`);
    return 2;
  }
  if (read.help) {
    process.stdout.write(helpText(command));
    return 0;
  }
  if (read.version) {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const page = PAGES[parsedAs(command)];
  if (page.operand === undefined) return { values: read.values };
  const [operand, ...extra] = read.positionals;
  if (operand === undefined || extra.length > 0) {
    process.stderr.write(
      `${who}: ${operand === undefined ? `which ${page.operand}?` : `one ${page.operand} at a time.`} Usage: ${page.usage[0].line}\n`,
    );
    return 2;
  }
  return { values: read.values, operand };
}
