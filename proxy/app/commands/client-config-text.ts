/**
 * The text side of `mcpscope wrap` / `unwrap` (client-config.ts, client-config-unwrap.ts): where a
 * config keeps its servers, and editing it as text — each changed entry replaced in the file's own
 * indentation and line endings, every other byte left where it was.
 */
import { ClientConfigError } from './client-config-error.js';
import type { JsonMember, JsonNode } from './jsonc.js';

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
  entries: { name: string; m: JsonMember }[];
  /** How many of `projects[…]` have servers of their own. */
  projects: number;
}

export function member(node: JsonNode, key: string): JsonNode | undefined {
  if (node.type !== 'object') return undefined;
  // The last duplicate wins, as in JSON.parse.
  for (let k = node.members.length - 1; k >= 0; k--) if (node.members[k].key === key) return node.members[k].value;
  return undefined;
}

/** The name of a server of a Claude Code project (`projects[path].mcpServers[name]`) in wrap's record and reports. */
export const projectServerName = (name: string, path: string) => `${name} (project ${path})`;

/** Claude Code's local-scope servers in ~/.claude.json: `projects["/path"].mcpServers`, each an object. */
function projectLists(root: JsonNode): { path: string; node: Extract<JsonNode, { type: 'object' }> }[] {
  const projects = member(root, 'projects');
  if (projects?.type !== 'object') return [];
  const out: { path: string; node: Extract<JsonNode, { type: 'object' }> }[] = [];
  for (const p of projects.members) {
    const servers = member(p.value, 'mcpServers');
    if (servers?.type === 'object' && servers.members.length > 0) out.push({ path: p.key, node: servers });
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
  const inProjects = projects.flatMap(({ path, node }) => node.members.map((m) => ({ name: projectServerName(m.key, path), m })));
  for (const [key, node] of candidates) {
    if (node === undefined) continue;
    if (node.type !== 'object')
      throw new ClientConfigError(
        `"${key}" should be an object of servers by name, but it is ${node.type === 'array' ? 'a list' : `a ${node.type}`}.`,
      );
    return { key, entries: [...node.members.map((m) => ({ name: m.key, m })), ...inProjects], projects: projects.length };
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
  const original = text.slice(node.start, node.end);
  if (!original.includes('\n')) return inlineJson(value);
  const base = lineIndent(text, keyStart);
  return JSON.stringify(value, null, style.indentUnit)
    .split('\n')
    .join(style.eol + base);
}

export function commentInside(comments: Array<[number, number]>, node: JsonNode): boolean {
  return comments.some(([s, e]) => s >= node.start && e <= node.end);
}

export function applyEdits(text: string, edits: Array<{ start: number; end: number; text: string }>): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}
