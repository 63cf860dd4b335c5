/**
 * How `--hash-session-ids` shows an MCP session id: `sha256:` and the first 12 hex digits of its
 * SHA-256. Applied on the main thread to what is kept, and on the proxy thread by breakpoints
 * that name a session (they compare what the store shows).
 */
import { createHash } from 'node:crypto';

export function hashSessionId(id: string): string {
  return `sha256:${createHash('sha256').update(id).digest('hex').slice(0, 12)}`;
}
