/**
 * Every command's `--help` (and `mcpscope help [command]`), made one way from the option table
 * (proxy/app/cli-options.ts) and the command's page (proxy/app/cli-commands.ts):
 *
 *   mcpscope <command> — <summary>
 *
 *   Usage
 *     <usage lines>                   <what each does>
 *
 *   <about>
 *
 *   Options
 *     --name <value>          <help line, with its default>
 *
 *   <footer>
 *
 * Lines are wrapped at 100 columns; option help starts at column 26, a usage line's at column 34.
 */
import { packageVersion } from '../files/package-version.js';
import { optionsOf, type OptionDecl, type PerCommand } from './cli-options.js';
import { PAGES, SUBCOMMANDS, type CommandName, type Subcommand, type UsageLine } from './cli-commands.js';

const WIDTH = 100;
const OPTION_COLUMN = 26;
const USAGE_COLUMN = 34;

/** What `command` says of option `o` where it differs from the entry. */
export function perCommand(o: OptionDecl, command: CommandName): PerCommand {
  const own = o.in[command];
  return typeof own === 'string' ? { help: own } : typeof own === 'object' ? own : {};
}

/** The option as its help names it: `-h, --help`, `--port <n>`, `--log [file]`. */
export function optionLeft(o: OptionDecl): string {
  return `${o.short ? `-${o.short}, ` : ''}--${o.name}${o.type === 'boolean' ? '' : ` ${o.value}`}`;
}

/** Option `o`'s help line in `command`, its default written in ("default" alone beside the choice that is the default). */
export function optionHelp(o: OptionDecl, command: CommandName): string {
  const own = perCommand(o, command);
  const fallback = own.default ?? o.default;
  const isChoice = o.type === 'choice' && (o.choices as readonly unknown[]).includes(fallback);
  return (own.help ?? o.help).replace('{default}', isChoice ? 'default' : `default: ${fallback}`);
}

/** "a, b and c" (or "or"). */
export function wordList(words: readonly string[], and = 'and'): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} ${and} ${words[words.length - 1]}`;
}

/** The options a stdio wrapper takes besides --help and --version, as a list in words. */
export function wrapperOptionWords(): string {
  return wordList(
    optionsOf('wrapper')
      .filter((o) => o.name !== 'help' && o.name !== 'version')
      .map((o) => `--${o.name}`),
  );
}

/** `text` in lines of at most `width` characters (a word longer than that alone on its line). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** `left` at column 2, `text` wrapped from `column` on: beside it if there is room, else under it. */
function pair(left: string, text: string | undefined, column: number): string {
  const head = `  ${left}`;
  if (!text) return `${head}\n`;
  const lines = wrapWords(text, WIDTH - column);
  const pad = ' '.repeat(column);
  const first = head.length + 2 <= column ? `${head.padEnd(column)}${lines.shift()}\n` : `${head}\n`;
  return first + lines.map((l) => `${pad}${l}\n`).join('');
}

function usageLines(lines: readonly UsageLine[]): string {
  return lines.map((u) => pair(u.line, u.says, USAGE_COLUMN)).join('');
}

/** The help of `command` (the wrapper's is the main command's). */
export function helpText(command: CommandName): string {
  const name = command === 'wrapper' ? 'main' : command;
  const page = PAGES[name];
  let text = name === 'main' ? `mcpscope ${packageVersion()} — ${page.summary}\n\n` : `mcpscope ${name} — ${page.summary}\n\n`;
  text += `Usage\n${usageLines(page.usage)}`;
  if (name === 'main')
    text += usageLines(
      [...SUBCOMMANDS].map((sub) => ({ line: PAGES[sub as Subcommand].usage[0].line, says: PAGES[sub as Subcommand].summary })),
    );
  if (page.about) text += `\n${page.about}\n`;
  text += '\nOptions\n';
  for (const o of optionsOf(name)) text += pair(optionLeft(o), optionHelp(o, name), OPTION_COLUMN);
  if (name === 'main')
    text += `\n${wrapWords(`A stdio wrapper (mcpscope [options] [--] <command>) takes ${wrapperOptionWords()}; --log only with a file, as its stdout is the server's.`, WIDTH).join('\n')}\n`;
  if (page.footer) text += `\n${page.footer}\n`;
  return text;
}
