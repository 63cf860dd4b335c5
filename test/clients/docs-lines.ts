/**
 * The MCP Inspector's launch lines as the docs write them: docs/clients.md's "## The MCP Inspector"
 * section and its row of the "Which to pick" table, and the README's Inspector line (its "Pointing
 * clients at the reverse proxy" section). Each inline code span or line of a code block that
 * names `@modelcontextprotocol/inspector` or starts a reverse proxy (`mcpscope --target …`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DocsLine {
  /** Where it is written (file and section), for the report. */
  where: string;
  /** The command, whitespace collapsed, a trailing `# comment` cut off. */
  text: string;
}

function section(md: string, heading: RegExp, file: string): string {
  const m = heading.exec(md);
  if (!m) throw new Error(`${file}: the section ${heading} is not there any more (the test reads its command lines)`);
  const rest = md.slice(m.index + m[0].length);
  const next = /^#{2,3} /m.exec(rest);
  return next ? rest.slice(0, next.index) : rest;
}

/** Inline code spans (possibly wrapped over a line end) and the lines of ```sh blocks. */
function commandsIn(text: string): string[] {
  const out: string[] = [];
  const fence = /```[a-z]*\n([\s\S]*?)```/g;
  for (const m of text.matchAll(fence)) for (const line of m[1].split('\n')) out.push(line);
  for (const m of text.replace(fence, '').matchAll(/`([^`]+)`/g)) out.push(m[1]);
  return out
    .map((c) =>
      c
        .replace(/\s+#\s.*$/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((c) => c !== '');
}

const relevant = (c: string) => c.includes('@modelcontextprotocol/inspector') || /^mcpscope --target /.test(c);

export function inspectorDocsLines(root: string): DocsLine[] {
  const clients = readFileSync(join(root, 'docs', 'clients.md'), 'utf8');
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const lines: DocsLine[] = [];
  const add = (where: string, cmds: string[]) => {
    for (const text of cmds.filter(relevant)) if (!lines.some((l) => l.text === text)) lines.push({ where, text });
  };
  const row = clients.split('\n').find((l) => l.startsWith('| [The MCP Inspector]'));
  if (!row) throw new Error('docs/clients.md: the "Which to pick" table has no row for The MCP Inspector any more');
  add('docs/clients.md, the table row', commandsIn(row));
  add('docs/clients.md, "The MCP Inspector"', commandsIn(section(clients, /^## The MCP Inspector\s*$/m, 'docs/clients.md')));
  add(
    'README.md, "Pointing clients at the reverse proxy"',
    commandsIn(section(readme, /^### Pointing clients at the reverse proxy\s*$/m, 'README.md')),
  );
  return lines;
}

export type LineKind =
  | { kind: 'elided'; why: string }
  | { kind: 'web-ui'; why: string }
  | { kind: 'reverse-start' }
  | { kind: 'cli'; via: 'run' | 'stdio wrapper' | 'reverse proxy' };

/** What a docs line is, for the test: one to run (and through which mode), or why it is skipped. */
export function kindOf(text: string): LineKind {
  if (/…|\.\.\./.test(text)) return { kind: 'elided', why: 'an elided form (…) of a line written out in full elsewhere' };
  if (/^mcpscope --target /.test(text)) return { kind: 'reverse-start' };
  if (!/(^|\s)--cli(\s|$)/.test(text)) return { kind: 'web-ui', why: 'no --cli: it opens the Inspector web UI (a browser), not the CLI' };
  if (/^mcpscope run\b/.test(text)) return { kind: 'cli', via: 'run' };
  if (/--cli (\S+ )*?mcpscope\b/.test(text)) return { kind: 'cli', via: 'stdio wrapper' };
  return { kind: 'cli', via: 'reverse proxy' };
}

export interface Places {
  /** `node` + the built CLI. */
  mcpscope: string[];
  /** The UI the lines record into (a stdio wrapper's and `run`'s --ui-port): 6480 is not the test's. */
  uiPort: number;
  inspector: string[];
  /** server-everything's stdio command, for `node server.js`. */
  serverJs: string[];
  urls: Record<string, string>;
}

/**
 * The line's argv with only its placeholders replaced: `mcpscope` → node bin/mcpscope.js (with
 * `--ui-port <the test's UI>` after it, or after `run`), `npx @modelcontextprotocol/inspector` →
 * the local devDependency's launcher, `node server.js` → server-everything's stdio command, and
 * the example URLs → the test's servers. An unknown URL is an error, not a guess.
 */
export function substitute(text: string, p: Places): string[] {
  const words = text.split(' ');
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === 'npx' && words[i + 1] === '@modelcontextprotocol/inspector') {
      out.push(...p.inspector);
      i += 1;
    } else if (w === 'mcpscope') {
      out.push(...p.mcpscope);
      if (words[i + 1] === 'run') {
        out.push('run');
        i += 1;
      }
      if (words[i + 1] !== '--target') out.push('--ui-port', String(p.uiPort));
    } else if (w === 'node' && words[i + 1] === 'server.js') {
      out.push(...p.serverJs);
      i += 1;
    } else if (/^https?:\/\//.test(w)) {
      const to = p.urls[w];
      if (to === undefined)
        throw new Error(`the docs line names a URL the test has no server for: ${w} (known: ${Object.keys(p.urls).join(', ')})`);
      out.push(to);
    } else out.push(w);
  }
  return out;
}
