/**
 * The text side of `mcpscope wrap` / `unwrap` (client-config.ts, client-config-unwrap.ts): reading a
 * config (JSON with comments and trailing commas, as VS Code reads it: Microsoft's jsonc-parser),
 * where it keeps its servers, and editing it as text — each changed entry replaced in the file's own
 * indentation and line endings, every other byte left where it was.
 */
import { parseTree, printParseErrorCode, visit, type Edit, type Node as JsonNode } from 'jsonc-parser';
import { ClientConfigError } from '../../core/model/errors.js';

// ---------------------------------------------------------------------------------------------
// Reading the text.

export interface ParsedConfig {
  root: JsonNode;
  /** [start, end) of every `//` and `/* *\/` comment. */
  comments: Array<[number, number]>;
}

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false };
/** Deeper than this, a value is refused (a config never is; the parser recurses). */
const MAX_DEPTH = 200;
/** In a string's text: a valid escape, or (group 1) an invalid one or a control character. */
const STRING_FAULT = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})|(\\[^]?|[\u0000-\u001f])/g;

/**
 * Parses a config's text, keeping every node's offsets and the comments' ranges. The first error
 * is thrown as a ClientConfigError in plain words, with its line and column.
 */
export function parseConfig(text: string): ParsedConfig {
  // A byte-order mark at the start is allowed (Windows editors write one); same length, same offsets.
  const source = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  const comments: Array<[number, number]> = [];
  // What the text should go on with, for an error's message: the objects and lists open (each
  // object's last key), and what comes next.
  const open: Array<{ list: boolean; key?: string }> = [];
  let expect: 'value' | 'key' | 'colon' | 'after' = 'value';
  const fail = (message: string, line: number, character: number): never => {
    throw new ClientConfigError(`invalid JSON at line ${line + 1}, column ${character + 1}: ${message}`);
  };
  const nest = (list: boolean) => (_offset: number, _length: number, line: number, character: number) => {
    if (open.length > MAX_DEPTH) fail('nested too deeply', line, character);
    open.push({ list });
    expect = list ? 'value' : 'key';
  };
  const unnest = (offset: number) => {
    // Called at the end of the file too (the object or list never closed): the error follows.
    if (offset >= source.length) return;
    open.pop();
    expect = 'after';
  };
  visit(
    source,
    {
      onObjectBegin: nest(false),
      onArrayBegin: nest(true),
      onObjectEnd: unnest,
      onArrayEnd: unnest,
      onObjectProperty: (key) => {
        open[open.length - 1].key = key;
        expect = 'colon';
      },
      onSeparator: (separator) => {
        expect = separator === ':' || open[open.length - 1].list ? 'value' : 'key';
      },
      onLiteralValue: (_value, _offset, _length, line, character) => {
        if (open.length > MAX_DEPTH) fail('nested too deeply', line, character);
        expect = 'after';
      },
      onComment: (offset, length) => {
        comments.push([offset, offset + length]);
      },
      onError: (code, offset, length, line, character) => {
        const token = source.slice(offset, offset + length);
        const what = printParseErrorCode(code);
        // A faulty string where a string may stand (not after a key or a value, where a string is
        // the error itself, said below).
        const inString =
          what === 'UnexpectedEndOfString' || what === 'InvalidCharacter' || what === 'InvalidEscapeCharacter' || what === 'InvalidUnicode';
        if (inString && (expect === 'key' || expect === 'value')) {
          // The scanner reports a string's fault at its opening quote: point at the character.
          // A string never spans lines, so the column moves with the offset.
          const fault = [...token.matchAll(STRING_FAULT)].find((m) => m[1] !== undefined);
          if (fault) fail(`${fault[1][0] === '\\' ? 'invalid escape' : 'control character'} in a string`, line, character + fault.index);
          fail(`a string is never closed${offset + length < source.length ? ' before the end of the line' : ''}`, line, character);
        }
        if (what === 'UnexpectedEndOfComment') fail('a /* comment is never closed', line, character);
        if (what === 'UnexpectedEndOfNumber' || what === 'InvalidNumberFormat')
          fail(`the number ${JSON.stringify(token)} is cut short`, line, character);
        const found = offset >= source.length ? 'the end of the file' : JSON.stringify(source[offset]);
        const top = open[open.length - 1];
        let message: string;
        if (expect === 'key') message = `expected a "quoted" key or "}", found ${found}`;
        else if (expect === 'colon') message = `expected ":" after the key ${JSON.stringify(top.key)}, found ${found}`;
        else if (expect === 'value')
          // A word that is not true, false or null (NaN, truex): the whole word.
          message = `unexpected ${what === 'InvalidSymbol' && length > 1 ? JSON.stringify(token.length > 40 ? `${token.slice(0, 40)}…` : token) : found}`;
        else if (top === undefined) message = `unexpected ${found} after the end of the JSON value`;
        else if (top.list) message = `expected "," or "]" in a list, found ${found}`;
        else message = `expected "," or "}" after the value of ${JSON.stringify(top.key)}, found ${found}`;
        fail(message, line, character);
      },
    },
    PARSE_OPTIONS,
  );
  return { root: parseTree(source, [], PARSE_OPTIONS)!, comments };
}

/** [start, end) of a node's text. */
export const span = (node: JsonNode): { start: number; end: number } => ({ start: node.offset, end: node.offset + node.length });

/** One `"key": value` of an object: where its key starts, and its value. */
export interface Member {
  key: string;
  keyStart: number;
  value: JsonNode;
}

export function members(node: JsonNode): Member[] {
  if (node.type !== 'object') return [];
  return (node.children ?? []).map((p) => ({ key: p.children![0].value as string, keyStart: p.offset, value: p.children![1] }));
}

// ---------------------------------------------------------------------------------------------
// Finding the servers.

export interface ServersLocation {
  /** `mcpServers`, `servers` or `mcp.servers` (`projects` when only Claude Code's per-project lists have servers). */
  key: string;
  /**
   * Every server entry, by the name wrap's record and reports use: the file's own list, then each
   * project's in Claude Code's `~/.claude.json` (`projects["/path"].mcpServers`, named
   * `<name> (project /path)`).
   */
  entries: { name: string; m: Member }[];
  /** How many of `projects[…]` have servers of their own. */
  projects: number;
}

/** The value of `key` in an object. The last duplicate wins, as in JSON.parse (jsonc-parser's findNodeAtLocation takes the first). */
export function member(node: JsonNode, key: string): JsonNode | undefined {
  return members(node).findLast((m) => m.key === key)?.value;
}

/** The name of a server of a Claude Code project (`projects[path].mcpServers[name]`) in wrap's record and reports. */
export const projectServerName = (name: string, path: string) => `${name} (project ${path})`;

/** Claude Code's local-scope servers in ~/.claude.json: `projects["/path"].mcpServers`, each an object. */
function projectLists(root: JsonNode): { path: string; node: JsonNode }[] {
  const projects = member(root, 'projects');
  if (projects?.type !== 'object') return [];
  const out: { path: string; node: JsonNode }[] = [];
  for (const p of members(projects)) {
    const servers = member(p.value, 'mcpServers');
    if (servers?.type === 'object' && members(servers).length > 0) out.push({ path: p.key, node: servers });
  }
  return out;
}

export function findServers(root: JsonNode): ServersLocation {
  if (root.type !== 'object') throw new ClientConfigError('the file is not a JSON object, so it is not an MCP client config.');
  const candidates: Array<[string, JsonNode | undefined]> = [
    ['mcpServers', member(root, 'mcpServers')],
    ['servers', member(root, 'servers')],
  ];
  const mcp = member(root, 'mcp');
  if (mcp) candidates.push(['mcp.servers', member(mcp, 'servers')]);
  const projects = projectLists(root);
  const inProjects = projects.flatMap(({ path, node }) => members(node).map((m) => ({ name: projectServerName(m.key, path), m })));
  for (const [key, node] of candidates) {
    if (node === undefined) continue;
    if (node.type !== 'object')
      throw new ClientConfigError(
        `"${key}" should be an object of servers by name, but it is ${node.type === 'array' ? 'a list' : `a ${node.type}`}.`,
      );
    return { key, entries: [...members(node).map((m) => ({ name: m.key, m })), ...inProjects], projects: projects.length };
  }
  if (projects.length > 0) return { key: 'projects', entries: inProjects, projects: projects.length };
  throw new ClientConfigError(
    'there is no "mcpServers" key (Claude Desktop, Cursor, Claude Code) and no "servers" key (VS Code) in this file, so there are no MCP servers to wrap. Is it the right file?',
  );
}

// ---------------------------------------------------------------------------------------------
// Text style: indentation, line endings, one-line entries.

export interface Style {
  eol: string;
  indentUnit: string;
}

export function detectStyle(text: string): Style {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let unit: string | undefined;
  for (const line of text.split('\n')) {
    const m = /^([ \t]+)\S/.exec(line);
    if (!m) continue;
    if (m[1].startsWith('\t')) {
      unit = '\t';
      break;
    }
    if (unit === undefined || m[1].length < unit.length) unit = m[1];
  }
  return { eol, indentUnit: unit ?? '  ' };
}

export function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** One-line JSON in the `{ "a": 1, "b": ["x", "y"] }` style. */
export function inlineJson(v: unknown): string {
  if (Array.isArray(v)) return v.length === 0 ? '[]' : `[${v.map(inlineJson).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    return entries.length === 0 ? '{}' : `{ ${entries.map(([k, x]) => `${JSON.stringify(k)}: ${inlineJson(x)}`).join(', ')} }`;
  }
  return JSON.stringify(v);
}

/** Serialises a replacement for the entry `node` in the style of the text around it. */
export function serializeLike(text: string, style: Style, keyStart: number, node: JsonNode, value: unknown): string {
  const { start, end } = span(node);
  const original = text.slice(start, end);
  if (!original.includes('\n')) return inlineJson(value);
  const base = lineIndent(text, keyStart);
  return JSON.stringify(value, null, style.indentUnit)
    .split('\n')
    .join(style.eol + base);
}

export function commentInside(comments: Array<[number, number]>, node: JsonNode): boolean {
  const { start, end } = span(node);
  return comments.some(([s, e]) => s >= start && e <= end);
}

/** An edit replacing the whole text of `node` (an entry's value) with `content`. */
export const replaceNode = (node: JsonNode, content: string): Edit => ({ offset: node.offset, length: node.length, content });
