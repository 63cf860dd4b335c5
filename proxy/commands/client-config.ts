/**
 * Pure transforms behind `mcpscope wrap` / `mcpscope unwrap` (proxy/commands/wrap.ts, unwrap.ts):
 * route every server of an MCP client's config through mcpscope, and put it back.
 *
 * Shapes understood: `{ "mcpServers": { name: entry } }` (Claude Desktop, Cursor), `{ "servers":
 * { name: entry } }` (VS Code's `.vscode/mcp.json`, entries with `"type": "stdio" | "http" | "sse"`)
 * and `{ "mcp": { "servers": … } }` (VS Code's settings.json).
 *
 * The file is edited as text, never re-serialised as a whole: only the value of each entry that
 * changes is replaced (in the file's indentation style and line endings), so every other key,
 * comment, trailing comma and byte stays where it was. Comments *inside* an entry that has to
 * change cannot be carried into the new entry; such a config is refused with a message saying so.
 *
 * What `wrap` changed is recorded in a sidecar record (written by the CLI next to the config as
 * `<config>.mcpscope.json`), not in the config itself: clients validate their configs and an
 * unknown key is a risk we need not take. The record keeps each entry's original text verbatim, so
 * `unwrap` restores it byte for byte. Without the record, `unwrap` still undoes stdio wrapping
 * (the original command line follows the `--`), but cannot know a URL server's original URL.
 */
import { splitCommandLine } from '../command-line.js';
import { OPTIONS, SUBCOMMANDS } from '../cli-options.js';
import { DEFAULT_PROXY_PORT, DEFAULT_UI_PORT } from '../ports.js';
import { isLoopbackHostname } from '../serve/guards.js';
import { ClientConfigError } from './client-config-error.js';
import { parseJsonc, toValue, type JsonNode } from './jsonc.js';

// Re-exported: the wrap/unwrap commands and their tests take them from here.
export { ClientConfigError, parseJsonc };

// ---------------------------------------------------------------------------------------------
// Finding the servers.

export interface ServersLocation {
  /** `mcpServers`, `servers` or `mcp.servers`. */
  key: string;
  node: Extract<JsonNode, { type: 'object' }>;
}

function member(node: JsonNode, key: string): JsonNode | undefined {
  if (node.type !== 'object') return undefined;
  // The last duplicate wins, as in JSON.parse.
  for (let k = node.members.length - 1; k >= 0; k--) if (node.members[k].key === key) return node.members[k].value;
  return undefined;
}

export function findServers(root: JsonNode): ServersLocation {
  if (root.type !== 'object') throw new ClientConfigError('the file is not a JSON object, so it is not an MCP client config.');
  const candidates: Array<[string, JsonNode | undefined]> = [
    ['mcpServers', member(root, 'mcpServers')],
    ['servers', member(root, 'servers')],
  ];
  const mcp = member(root, 'mcp');
  if (mcp) candidates.push(['mcp.servers', member(mcp, 'servers')]);
  for (const [key, node] of candidates) {
    if (node === undefined) continue;
    if (node.type !== 'object')
      throw new ClientConfigError(
        `"${key}" should be an object of servers by name, but it is ${node.type === 'array' ? 'a list' : `a ${node.type}`}.`,
      );
    return { key, node };
  }
  throw new ClientConfigError(
    'there is no "mcpServers" key (Claude Desktop, Cursor) and no "servers" key (VS Code) in this file, so there are no MCP servers to wrap. Is it the right file?',
  );
}

// ---------------------------------------------------------------------------------------------
// Text style: indentation, line endings, one-line entries.

interface Style {
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

function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** One-line JSON in the `{ "a": 1, "b": ["x", "y"] }` style. */
function inlineJson(v: unknown): string {
  if (Array.isArray(v)) return v.length === 0 ? '[]' : `[${v.map(inlineJson).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    return entries.length === 0 ? '{}' : `{ ${entries.map(([k, x]) => `${JSON.stringify(k)}: ${inlineJson(x)}`).join(', ')} }`;
  }
  return JSON.stringify(v);
}

/** Serialises a replacement for the entry `node` in the style of the text around it. */
function serializeLike(text: string, style: Style, keyStart: number, node: JsonNode, value: unknown): string {
  const original = text.slice(node.start, node.end);
  if (!original.includes('\n')) return inlineJson(value);
  const base = lineIndent(text, keyStart);
  return JSON.stringify(value, null, style.indentUnit)
    .split('\n')
    .join(style.eol + base);
}

function commentInside(comments: Array<[number, number]>, node: JsonNode): boolean {
  return comments.some(([s, e]) => s >= node.start && e <= node.end);
}

function applyEdits(text: string, edits: Array<{ start: number; end: number; text: string }>): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Recognising entries.

export { DEFAULT_UI_PORT } from '../ports.js';
export const FIRST_PROXY_PORT = DEFAULT_PROXY_PORT;
/** Loopback URLs on these ports are taken to be mcpscope proxies already. */
const PROXY_PORT_RANGE: [number, number] = [DEFAULT_PROXY_PORT, DEFAULT_PROXY_PORT + 99];

type Entry = Record<string, unknown>;

function isObject(v: unknown): v is Entry {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

export type EntryKind = 'stdio' | 'url' | 'other';

export function entryKind(entry: unknown): EntryKind {
  if (!isObject(entry)) return 'other';
  const type = entry.type;
  if (typeof entry.url === 'string' && type !== 'stdio') return 'url';
  if (typeof entry.command === 'string' && (type === undefined || type === 'stdio')) return 'stdio';
  return 'other';
}

/**
 * How a config runs mcpscope: `command` plus the `args` that come before mcpscope's own options.
 * `mcpscope wrap` (wrap.ts) uses an absolute node and this package's script (client-config-files.ts,
 * resolveLauncher), e.g. `{ command: "/usr/bin/node", args: ["/usr/local/bin/mcpscope"] }`.
 */
export interface Launcher {
  command: string;
  args: string[];
  /** The same for a terminal, in the proxy commands wrap prints: `mcpscope` when it is on PATH. */
  shell: string;
}

/** What the pure transforms use when no launcher is given: `mcpscope` found on PATH. */
export const PATH_LAUNCHER: Launcher = { command: 'mcpscope', args: [], shell: 'mcpscope' };

/** A stdio entry that runs through mcpscope, taken apart. */
export interface WrappedEntry {
  /** `[command, …args]` up to mcpscope itself: `["npx", "-y", "mcpscope"]`, `["/usr/bin/node", "/x/bin/mcpscope.js"]`, `["mcpscope"]`. */
  launcher: string[];
  /** mcpscope's options, between the launcher and the `--`: e.g. `["--ui-port", "6480"]`. */
  options: string[];
  /** The server's own command line, after the `--`. */
  line: string[];
}

const baseName = (path: string) => path.split(/[\\/]/).pop()!;
const isMcpscope = (s: string) => /^mcpscope(@[^/\s]+)?$/.test(s);

/**
 * How many of `args` belong to the launcher when `command args` runs mcpscope: none for `mcpscope …`
 * (by name or path), up to mcpscope for `npx [-y] mcpscope[@version] …` (what wrap once wrote) and
 * `<node> [node flags] <path>/mcpscope[.js] …` (what wrap writes now); undefined for anything else.
 */
function launcherLength(command: string, args: readonly string[]): number | undefined {
  const base = baseName(command).replace(/\.(cmd|exe)$/i, '');
  if (isMcpscope(base)) return 0;
  if (base === 'npx') return args.findIndex(isMcpscope) + 1 || undefined;
  if (!/^node(js)?$/i.test(base)) return undefined;
  const script = args.findIndex((a) => !a.startsWith('-'));
  return script >= 0 && /^mcpscope(\.[cm]?js)?$/.test(baseName(args[script])) ? script + 1 : undefined;
}

/** A stdio entry's command and args, when they are strings. */
function commandOf(entry: Entry): { command: string; args: string[] } | undefined {
  const args = entry.args === undefined ? [] : entry.args;
  return typeof entry.command === 'string' && isStringArray(args) ? { command: entry.command, args } : undefined;
}

/**
 * If the stdio entry already runs through mcpscope (see launcherLength) wrapping a server
 * (`[options] [--] <command> …`, read as mcpscope reads it: proxy/command-line.ts): its parts;
 * otherwise undefined (a subcommand such as `mcpscope mcp` wraps nothing).
 */
export function parseWrapped(entry: Entry): WrappedEntry | undefined {
  const c = commandOf(entry);
  if (!c) return undefined;
  const upTo = launcherLength(c.command, c.args);
  if (upTo === undefined) return undefined;
  const after = c.args.slice(upTo);
  if (!after.includes('--') && SUBCOMMANDS.has(after[0])) return undefined;
  const split = splitCommandLine(after, { ...OPTIONS, log: { type: 'string' } });
  if (split.command.length === 0) return undefined;
  return { launcher: [c.command, ...c.args.slice(0, upTo)], options: split.own, line: split.command };
}

/**
 * A stdio entry that starts mcpscope's own MCP server for coding agents (`mcpscope mcp`, by name,
 * through npx, or `<node> <path>/mcpscope[.js] mcp`): it reads mcpscope's UI, it is no traffic to
 * record — wrapping it would record the agent's reading of the capture into the capture.
 */
export function isAgentServer(entry: Entry): boolean {
  const c = commandOf(entry);
  const at = c ? launcherLength(c.command, c.args) : undefined;
  return at !== undefined && c?.args[at] === 'mcp';
}

/** The original command line of a stdio entry that runs through mcpscope (see parseWrapped); otherwise undefined. */
export function wrappedCommandLine(entry: Entry): string[] | undefined {
  return parseWrapped(entry)?.line;
}

function sameLauncher(wrapped: WrappedEntry, launcher: Launcher): boolean {
  const want = [launcher.command, ...launcher.args];
  return wrapped.launcher.length === want.length && wrapped.launcher.every((a, i) => a === want[i]);
}

function loopbackPort(url: string): number | undefined {
  try {
    const u = new URL(url);
    if (!isLoopbackHostname(u.hostname)) return undefined;
    return Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// The record (sidecar file).

export interface RecordedServer {
  kind: 'stdio' | 'url';
  /** The entry's text before wrapping, verbatim. */
  original: string;
  /** The entry's text `wrap` wrote, verbatim (unwrap restores `original` when it still reads so). */
  wrapped: string;
  /** URL servers: the original URL and the proxy port it now goes through. */
  target?: string;
  port?: number;
}

export interface WrapRecord {
  mcpscope: 'client-config';
  version: 1;
  /** Which key of the config holds the servers. */
  key: string;
  servers: Record<string, RecordedServer>;
}

export function emptyRecord(key: string): WrapRecord {
  return { mcpscope: 'client-config', version: 1, key, servers: {} };
}

/** Reads a sidecar file's text; throws ClientConfigError if it is not one. */
export function parseRecord(text: string): WrapRecord {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new ClientConfigError(`the mcpscope record is not valid JSON (${(err as Error).message}).`);
  }
  if (!isObject(v) || v.mcpscope !== 'client-config' || v.version !== 1 || !isObject(v.servers))
    throw new ClientConfigError('the mcpscope record is not one mcpscope wrote (expected "mcpscope": "client-config", "version": 1).');
  return v as unknown as WrapRecord;
}

// ---------------------------------------------------------------------------------------------
// wrap

export interface ProxyPlan {
  name: string;
  target: string;
  port: number;
  /**
   * The command the user runs: `mcpscope --target <target> --port <port>` (the launcher's `shell`
   * in place of `mcpscope`). The first proxy
   * serves the UI on the wrap's UI port (so the stdio wrappers join it); an `mcpscope --target`
   * does not join another's UI yet, so the others get `--ui-port 0` (a UI of their own, any port).
   */
  command: string;
}

export interface ServerReport {
  name: string;
  action: 'wrapped' | 'already-wrapped' | 'restored' | 'not-wrapped' | 'skipped';
  detail: string;
}

export interface WrapResult {
  text: string;
  changed: boolean;
  key: string;
  servers: ServerReport[];
  /** Every URL server's proxy (new and already wrapped), in config order. */
  proxies: ProxyPlan[];
  /** The record to keep next to the config: the previous one plus what this run wrapped. */
  record: WrapRecord;
}

export interface WrapOptions {
  /** The shared UI's port the stdio wrappers report to (default 6480). */
  uiPort?: number;
  /**
   * How the wrapped entries run mcpscope (default PATH_LAUNCHER, `mcpscope` by name). An entry
   * already wrapped through another launcher (`npx -y mcpscope`, an old path) is re-wrapped
   * through this one: its options and its command line after `--` stay.
   */
  launcher?: Launcher;
  /** The record of an earlier wrap (the sidecar), if any. */
  record?: WrapRecord;
  firstProxyPort?: number;
}

function proxyCommand(shell: string, target: string, port: number, uiPort: number): string {
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return `${shell} --target ${quote(target)} --port ${port}${uiPort === DEFAULT_UI_PORT ? '' : ` --ui-port ${uiPort}`}`;
}

/** `entry` with its `command` and `args` replaced (in place, keeping the key order; `args` added after `command` if missing). */
function withCommand(entry: Entry, command: string, args: string[]): Entry {
  const out: Entry = {};
  for (const [k, v] of Object.entries(entry)) {
    if (k === 'command') {
      out.command = command;
      if (!('args' in entry)) out.args = args;
    } else if (k === 'args') out.args = args;
    else out[k] = v;
  }
  return out;
}

export function wrapConfig(text: string, options: WrapOptions = {}): WrapResult {
  const uiPort = options.uiPort ?? DEFAULT_UI_PORT;
  const launcher = options.launcher ?? PATH_LAUNCHER;
  const { root, comments } = parseJsonc(text);
  const { key, node } = findServers(root);
  const style = detectStyle(text);
  const prior = options.record;
  const record: WrapRecord = { ...emptyRecord(key), servers: { ...(prior?.servers ?? {}) } };
  const edits: Array<{ start: number; end: number; text: string }> = [];
  const servers: ServerReport[] = [];
  const proxies: ProxyPlan[] = [];

  // Ports already taken: proxies recorded earlier, and local upstreams.
  const used = new Set<number>();
  for (const r of Object.values(record.servers)) if (r.port !== undefined) used.add(r.port);
  for (const m of node.members) {
    const v = toValue(m.value);
    if (entryKind(v) === 'url') {
      const p = loopbackPort((v as Entry).url as string);
      if (p !== undefined) used.add(p);
    }
  }
  let nextPort = options.firstProxyPort ?? FIRST_PROXY_PORT;
  const allocate = () => {
    while (used.has(nextPort)) nextPort++;
    used.add(nextPort);
    return nextPort;
  };

  for (const m of node.members) {
    const name = m.key;
    const entryText = text.slice(m.value.start, m.value.end);
    const rec = record.servers[name];
    const entry = toValue(m.value);
    const kind = entryKind(entry);
    const e = entry as Entry;
    const prev = kind === 'stdio' ? parseWrapped(e) : undefined;
    if (prev && !sameLauncher(prev, launcher)) {
      // Wrapped, but through another launcher (npx, an old path): only the launcher changes.
      if (commentInside(comments, m.value))
        throw new ClientConfigError(
          `the server "${name}" contains a comment, which mcpscope cannot carry into the re-wrapped entry. Move the comment outside that server's { … } (or delete it) and run wrap again; nothing was changed.`,
        );
      const newText = serializeLike(
        text,
        style,
        m.keyStart,
        m.value,
        withCommand(e, launcher.command, [...launcher.args, ...prev.options, '--', ...prev.line]),
      );
      // The original: the record's when it describes this entry, else the entry unwrapped.
      const original =
        rec && rec.wrapped === entryText && rec.kind === 'stdio'
          ? rec.original
          : serializeLike(text, style, m.keyStart, m.value, withCommand(e, prev.line[0], prev.line.slice(1)));
      record.servers[name] = { kind: 'stdio', original, wrapped: newText };
      edits.push({ start: m.value.start, end: m.value.end, text: newText });
      servers.push({
        name,
        action: 'wrapped',
        detail: `stdio: ${prev.line.join(' ')} ran under \`${prev.launcher.join(' ')}\`, now under \`${[launcher.command, ...launcher.args].join(' ')}\``,
      });
      continue;
    }
    if (rec && rec.wrapped === entryText) {
      servers.push({ name, action: 'already-wrapped', detail: 'already routed through mcpscope' });
      if (rec.kind === 'url' && rec.target && rec.port !== undefined)
        proxies.push({ name, target: rec.target, port: rec.port, command: '' });
      continue;
    }
    if (rec) delete record.servers[name]; // edited since: the old record no longer describes it
    if (kind === 'other') {
      servers.push({ name, action: 'skipped', detail: 'neither a "command" (stdio) nor a "url" server; left as is' });
      continue;
    }
    if (prev) {
      servers.push({ name, action: 'already-wrapped', detail: 'its command already runs through mcpscope' });
      continue;
    }
    if (kind === 'stdio' && isAgentServer(e)) {
      servers.push({
        name,
        action: 'skipped',
        detail: "mcpscope's own MCP server for agents (mcpscope mcp): nothing to record; left as is",
      });
      continue;
    }
    if (kind === 'url') {
      const p = loopbackPort(e.url as string);
      if (p !== undefined && p >= PROXY_PORT_RANGE[0] && p <= PROXY_PORT_RANGE[1]) {
        servers.push({ name, action: 'already-wrapped', detail: `its URL already points at a local proxy port (${p}); left as is` });
        continue;
      }
      try {
        const u = new URL(e.url as string);
        if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
      } catch {
        servers.push({ name, action: 'skipped', detail: `its URL ${JSON.stringify(e.url)} is not an http(s) URL; left as is` });
        continue;
      }
    }
    if (commentInside(comments, m.value))
      throw new ClientConfigError(
        `the server "${name}" contains a comment, which mcpscope cannot carry into the wrapped entry. Move the comment outside that server's { … } (or delete it) and run wrap again; nothing was changed.`,
      );
    let wrapped: Entry;
    let recorded: RecordedServer;
    if (kind === 'stdio') {
      const args = e.args === undefined ? [] : e.args;
      if (!isStringArray(args)) {
        servers.push({ name, action: 'skipped', detail: '"args" is not a list of strings; left as is' });
        continue;
      }
      wrapped = withCommand(e, launcher.command, [...launcher.args, '--ui-port', String(uiPort), '--', e.command as string, ...args]);
      const newText = serializeLike(text, style, m.keyStart, m.value, wrapped);
      recorded = { kind, original: entryText, wrapped: newText };
      servers.push({
        name,
        action: 'wrapped',
        detail: `stdio: ${[e.command as string, ...args].join(' ')} now runs under mcpscope (UI port ${uiPort})`,
      });
    } else {
      const target = e.url as string;
      const u = new URL(target);
      const port = allocate();
      const proxied = `http://127.0.0.1:${port}${u.pathname}${u.search}`;
      wrapped = { ...e, url: proxied };
      const newText = serializeLike(text, style, m.keyStart, m.value, wrapped);
      recorded = { kind, original: entryText, wrapped: newText, target, port };
      proxies.push({ name, target, port, command: '' });
      servers.push({
        name,
        action: 'wrapped',
        detail: `${typeof e.type === 'string' ? e.type : 'url'}: ${target} now goes through ${proxied}`,
      });
    }
    record.servers[name] = recorded;
    edits.push({ start: m.value.start, end: m.value.end, text: recorded.wrapped });
  }
  // Records of servers no longer in the config are dropped.
  const names = new Set(node.members.map((m) => m.key));
  for (const n of Object.keys(record.servers)) if (!names.has(n)) delete record.servers[n];
  proxies.forEach((p, n) => (p.command = proxyCommand(launcher.shell, p.target, p.port, n === 0 ? uiPort : 0)));
  const out = applyEdits(text, edits);
  return { text: out, changed: out !== text, key, servers, proxies, record };
}

// ---------------------------------------------------------------------------------------------
// unwrap

export interface UnwrapResult {
  text: string;
  changed: boolean;
  key: string;
  servers: ServerReport[];
  /** What is left of the record: servers still wrapped (empty when everything was restored). */
  record: WrapRecord;
}

export function unwrapConfig(text: string, record?: WrapRecord): UnwrapResult {
  const { root, comments } = parseJsonc(text);
  const { key, node } = findServers(root);
  const style = detectStyle(text);
  const left: WrapRecord = { ...emptyRecord(key), servers: { ...(record?.servers ?? {}) } };
  const edits: Array<{ start: number; end: number; text: string }> = [];
  const servers: ServerReport[] = [];

  for (const m of node.members) {
    const name = m.key;
    const entryText = text.slice(m.value.start, m.value.end);
    const rec = left.servers[name];
    if (rec && rec.wrapped === entryText) {
      edits.push({ start: m.value.start, end: m.value.end, text: rec.original });
      delete left.servers[name];
      servers.push({ name, action: 'restored', detail: rec.kind === 'url' ? `back to ${rec.target}` : 'back to its own command' });
      continue;
    }
    const entry = toValue(m.value);
    const kind = entryKind(entry);
    const e = entry as Entry;
    if (kind === 'stdio') {
      const line = wrappedCommandLine(e);
      if (!line) {
        servers.push({ name, action: 'not-wrapped', detail: 'not wrapped; left as is' });
        continue;
      }
      if (commentInside(comments, m.value))
        throw new ClientConfigError(
          `the server "${name}" contains a comment, which mcpscope cannot carry into the unwrapped entry. Move the comment outside that server's { … } (or delete it) and run unwrap again; nothing was changed.`,
        );
      const restored: Entry = {};
      for (const [k, v] of Object.entries(e)) {
        if (k === 'command') restored.command = line[0];
        else if (k === 'args') restored.args = line.slice(1);
        else restored[k] = v;
      }
      edits.push({ start: m.value.start, end: m.value.end, text: serializeLike(text, style, m.keyStart, m.value, restored) });
      delete left.servers[name];
      servers.push({
        name,
        action: 'restored',
        detail: `back to ${line.join(' ')} (rebuilt from its arguments: the entry changed since wrap, or there is no record)`,
      });
      continue;
    }
    if (kind === 'url') {
      if (rec?.kind === 'url' && rec.target !== undefined) {
        const p = loopbackPort(e.url as string);
        if (p === rec.port) {
          if (commentInside(comments, m.value))
            throw new ClientConfigError(
              `the server "${name}" contains a comment, which mcpscope cannot carry into the unwrapped entry. Move the comment outside that server's { … } (or delete it) and run unwrap again; nothing was changed.`,
            );
          edits.push({
            start: m.value.start,
            end: m.value.end,
            text: serializeLike(text, style, m.keyStart, m.value, { ...e, url: rec.target }),
          });
          delete left.servers[name];
          servers.push({
            name,
            action: 'restored',
            detail: `URL back to ${rec.target} (the entry's other keys changed since wrap and are kept)`,
          });
          continue;
        }
        servers.push({
          name,
          action: 'skipped',
          detail: `its URL changed since wrap (it no longer points at the proxy port ${rec.port}); left as is`,
        });
        delete left.servers[name];
        continue;
      }
      const p = loopbackPort(e.url as string);
      if (p !== undefined && p >= PROXY_PORT_RANGE[0] && p <= PROXY_PORT_RANGE[1]) {
        servers.push({
          name,
          action: 'skipped',
          detail: `points at local port ${p}, perhaps an mcpscope proxy, but there is no record of its original URL (kept in <config>.mcpscope.json by wrap --write); left as is`,
        });
        continue;
      }
      servers.push({ name, action: 'not-wrapped', detail: 'not wrapped; left as is' });
      continue;
    }
    servers.push({ name, action: 'not-wrapped', detail: 'not an MCP server entry mcpscope wraps; left as is' });
  }
  const names = new Set(node.members.map((m) => m.key));
  for (const n of Object.keys(left.servers)) if (!names.has(n)) delete left.servers[n];
  const out = applyEdits(text, edits);
  return { text: out, changed: out !== text, key, servers, record: left };
}
