/**
 * Pure transforms behind `mcpscope wrap` / `mcpscope unwrap` (proxy/app/commands/wrap.ts, unwrap.ts):
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
import { DEFAULT_UI_PORT } from '../../wire/ports.js';
import { ClientConfigError } from '../../core/model/errors.js';
import { applyEdits, getNodeValue, type Edit } from 'jsonc-parser';
import { commentInside, detectStyle, findServers, parseConfig, replaceNode, serializeLike, span } from './client-config-text.js';
import {
  emptyRecord,
  entryKind,
  FIRST_PROXY_PORT,
  isAgentServer,
  isStringArray,
  loopbackPort,
  parseWrapped,
  PATH_LAUNCHER,
  PROXY_PORT_RANGE,
  sameLauncher,
  type Entry,
  type Launcher,
  type RecordedServer,
  type ServerReport,
  type WrapRecord,
} from './client-config-entries.js';

// Re-exported: the wrap/unwrap commands and their tests take them from here.
export { ClientConfigError, parseConfig };
export { DEFAULT_UI_PORT } from '../../wire/ports.js';
export { unwrapConfig, type UnwrapResult } from './client-config-unwrap.js';
export { detectStyle, findServers, type ServersLocation } from './client-config-text.js';
export {
  emptyRecord,
  entryKind,
  FIRST_PROXY_PORT,
  isAgentServer,
  parseRecord,
  parseWrapped,
  PATH_LAUNCHER,
  wrappedCommandLine,
  type EntryKind,
  type Launcher,
  type RecordedServer,
  type ServerReport,
  type WrappedEntry,
  type WrapRecord,
} from './client-config-entries.js';

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
  const { root, comments } = parseConfig(text);
  const { key, entries } = findServers(root);
  const style = detectStyle(text);
  const prior = options.record;
  const record: WrapRecord = { ...emptyRecord(key), servers: { ...(prior?.servers ?? {}) } };
  const edits: Edit[] = [];
  const servers: ServerReport[] = [];
  const proxies: ProxyPlan[] = [];

  // Ports already taken: proxies recorded earlier, and local upstreams.
  const used = new Set<number>();
  for (const r of Object.values(record.servers)) if (r.port !== undefined) used.add(r.port);
  for (const { m } of entries) {
    const v = getNodeValue(m.value);
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

  for (const { name, m } of entries) {
    const { start, end } = span(m.value);
    const entryText = text.slice(start, end);
    const rec = record.servers[name];
    const entry = getNodeValue(m.value);
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
      edits.push(replaceNode(m.value, newText));
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
    edits.push(replaceNode(m.value, recorded.wrapped));
  }
  // Records of servers no longer in the config are dropped.
  const names = new Set(entries.map((e) => e.name));
  for (const n of Object.keys(record.servers)) if (!names.has(n)) delete record.servers[n];
  proxies.forEach((p, n) => (p.command = proxyCommand(launcher.shell, p.target, p.port, n === 0 ? uiPort : 0)));
  const out = applyEdits(text, edits);
  return { text: out, changed: out !== text, key, servers, proxies, record };
}
