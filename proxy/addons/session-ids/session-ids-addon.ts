/**
 * `--hash-session-ids`: MCP session ids (`Mcp-Session-Id`) shown as `sha256:<first 12 hex>`
 * everywhere mcpscope keeps them. The records' headers are copied with the hash, in the capture
 * queue's batch (off the hot path) before the recorder sees them; the wire is untouched. Sessions
 * still correlate: the same id always hashes the same. `real` turns a hash back into the id, for
 * mcpscope's own requests into a session (proxy/addons/send/).
 */
import { hashSessionId } from '../../wire/capture/session-hash.js';
import type { WireRecord } from '../../wire/capture/wire-records.js';
import type { McpscopeAddon } from '../addon.js';

export interface SessionIdsAddon extends McpscopeAddon {
  readonly recordView: (record: WireRecord) => WireRecord;
  /** The id a hash was made from, among the newest 4,096 ids seen. */
  real(shown: string): string | undefined;
}

export function sessionIdsAddon(): SessionIdsAddon {
  const cache = new Map<string, string>();
  const reverse = new Map<string, string>();
  const hash = (v: string) => {
    let h = cache.get(v);
    if (h === undefined) {
      if (cache.size >= 1024) cache.clear();
      h = hashSessionId(v);
      cache.set(v, h);
      reverse.delete(h);
      reverse.set(h, v);
      if (reverse.size > 4096) reverse.delete(reverse.keys().next().value as string);
    }
    return h;
  };
  return {
    name: 'session-ids',
    recordView: (r) => {
      if ((r.t === 'request' || r.t === 'response') && r.headers['mcp-session-id'] !== undefined) {
        const v = r.headers['mcp-session-id'];
        return { ...r, headers: { ...r.headers, 'mcp-session-id': Array.isArray(v) ? v.map(hash) : hash(String(v)) } } as WireRecord;
      }
      return r;
    },
    real: (shown) => reverse.get(shown),
  };
}
