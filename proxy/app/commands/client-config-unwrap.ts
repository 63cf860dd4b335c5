/**
 * `mcpscope unwrap`'s transform (proxy/app/commands/unwrap.ts): every server client-config.ts wrapped,
 * put back — byte for byte from the sidecar record when the entry still reads as wrap wrote it.
 */
import { ClientConfigError } from '../../core/model/errors.js';
import { applyEdits, getNodeValue, type Edit } from 'jsonc-parser';
import { commentInside, detectStyle, findServers, parseConfig, replaceNode, serializeLike, span } from './client-config-text.js';
import {
  emptyRecord,
  entryKind,
  loopbackPort,
  PROXY_PORT_RANGE,
  wrappedCommandLine,
  type Entry,
  type ServerReport,
  type WrapRecord,
} from './client-config-entries.js';

export interface UnwrapResult {
  text: string;
  changed: boolean;
  key: string;
  servers: ServerReport[];
  /** What is left of the record: servers still wrapped (empty when everything was restored). */
  record: WrapRecord;
}

export function unwrapConfig(text: string, record?: WrapRecord): UnwrapResult {
  const { root, comments } = parseConfig(text);
  const { key, entries } = findServers(root);
  const style = detectStyle(text);
  const left: WrapRecord = { ...emptyRecord(key), servers: { ...(record?.servers ?? {}) } };
  const edits: Edit[] = [];
  const servers: ServerReport[] = [];

  for (const { name, m } of entries) {
    const { start, end } = span(m.value);
    const entryText = text.slice(start, end);
    const rec = left.servers[name];
    if (rec && rec.wrapped === entryText) {
      edits.push(replaceNode(m.value, rec.original));
      delete left.servers[name];
      servers.push({ name, action: 'restored', detail: rec.kind === 'url' ? `back to ${rec.target}` : 'back to its own command' });
      continue;
    }
    const entry = getNodeValue(m.value);
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
      edits.push(replaceNode(m.value, serializeLike(text, style, m.keyStart, m.value, restored)));
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
        // Still the proxy wrap pointed it at, whatever port that proxy was moved to by hand since.
        const moved = p !== undefined && p !== rec.port && samePath(e.url as string, rec.target);
        if (p === rec.port || moved) {
          if (commentInside(comments, m.value))
            throw new ClientConfigError(
              `the server "${name}" contains a comment, which mcpscope cannot carry into the unwrapped entry. Move the comment outside that server's { … } (or delete it) and run unwrap again; nothing was changed.`,
            );
          edits.push(replaceNode(m.value, serializeLike(text, style, m.keyStart, m.value, { ...e, url: rec.target })));
          delete left.servers[name];
          servers.push({
            name,
            action: 'restored',
            detail: moved
              ? `URL back to ${rec.target} (its proxy port had become ${p}; the entry's other keys are kept as they are)`
              : `URL back to ${rec.target} (the entry's other keys changed since wrap and are kept)`,
          });
          continue;
        }
        servers.push({
          name,
          action: 'skipped',
          detail: `its URL changed since wrap (it no longer points at a local proxy for ${rec.target}); left as is`,
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
  const names = new Set(entries.map((e) => e.name));
  for (const n of Object.keys(left.servers)) if (!names.has(n)) delete left.servers[n];
  const out = applyEdits(text, edits);
  return { text: out, changed: out !== text, key, servers, record: left };
}

/** Whether a URL has the path and query of the target (a local proxy mirrors its upstream's paths). */
function samePath(url: string, target: string): boolean {
  try {
    const a = new URL(url);
    const b = new URL(target);
    return a.pathname === b.pathname && a.search === b.search;
  } catch {
    return false;
  }
}
