/**
 * Recognising a config's entries for `mcpscope wrap` / `unwrap`: stdio or URL, already running
 * through mcpscope (and how: launcher, options, the server's own command line), and the sidecar
 * record (`<config>.mcpscope.json`) of what wrap changed.
 */
import { splitCommandLine } from '../command-line.js';
import { OPTIONS, SUBCOMMANDS } from '../cli-options.js';
import { DEFAULT_PROXY_PORT } from '../../wire/ports.js';
import { isLoopbackHostname } from '../../wire/guards.js';
import { ClientConfigError } from '../../core/model/errors.js';

// ---------------------------------------------------------------------------------------------
// Recognising entries.

export const FIRST_PROXY_PORT = DEFAULT_PROXY_PORT;
/** Loopback URLs on these ports are taken to be mcpscope proxies already. */
export const PROXY_PORT_RANGE: [number, number] = [DEFAULT_PROXY_PORT, DEFAULT_PROXY_PORT + 99];

export type Entry = Record<string, unknown>;

export function isObject(v: unknown): v is Entry {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function isStringArray(v: unknown): v is string[] {
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
export function launcherLength(command: string, args: readonly string[]): number | undefined {
  const base = baseName(command).replace(/\.(cmd|exe)$/i, '');
  if (isMcpscope(base)) return 0;
  if (base === 'npx') return args.findIndex(isMcpscope) + 1 || undefined;
  if (!/^node(js)?$/i.test(base)) return undefined;
  const script = args.findIndex((a) => !a.startsWith('-'));
  return script >= 0 && /^mcpscope(\.[cm]?js)?$/.test(baseName(args[script])) ? script + 1 : undefined;
}

/** A stdio entry's command and args, when they are strings. */
export function commandOf(entry: Entry): { command: string; args: string[] } | undefined {
  const args = entry.args === undefined ? [] : entry.args;
  return typeof entry.command === 'string' && isStringArray(args) ? { command: entry.command, args } : undefined;
}

/**
 * If the stdio entry already runs through mcpscope (see launcherLength) wrapping a server
 * (`[options] [--] <command> …`, read as mcpscope reads it: proxy/app/command-line.ts): its parts;
 * otherwise undefined (a subcommand such as `mcpscope mcp` wraps nothing).
 */
export function parseWrapped(entry: Entry): WrappedEntry | undefined {
  const c = commandOf(entry);
  if (!c) return undefined;
  const upTo = launcherLength(c.command, c.args);
  if (upTo === undefined) return undefined;
  const after = c.args.slice(upTo);
  if (!after.includes('--') && SUBCOMMANDS.has(after[0])) return undefined;
  const split = splitCommandLine(after, OPTIONS);
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

export function sameLauncher(wrapped: WrappedEntry, launcher: Launcher): boolean {
  const want = [launcher.command, ...launcher.args];
  return wrapped.launcher.length === want.length && wrapped.launcher.every((a, i) => a === want[i]);
}

export function loopbackPort(url: string): number | undefined {
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

/** What wrap or unwrap did with one server, in words. */
export interface ServerReport {
  name: string;
  action: 'wrapped' | 'already-wrapped' | 'restored' | 'not-wrapped' | 'skipped';
  detail: string;
}
