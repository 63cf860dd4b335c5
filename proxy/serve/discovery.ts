/**
 * How a stdio wrapper finds the token of the mcpscope UI already running on a port.
 *
 * A desktop client launches `mcpscope -- <server>` without knowing the UI's random token, so
 * an mcpscope that serves a UI writes `ui-<port>.json` (`{ token, pid, url }`) into its home
 * directory — `$MCPSCOPE_HOME`, else `~/.mcpscope` — created 0700, the file 0600, and removes it
 * when it closes (only while the file is still its own). The wrapper reads it.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface DiscoveryFile {
  token: string;
  pid: number;
  /** The UI's URL, without the token. */
  url: string;
  /** The forward proxy this mcpscope serves (`--forward`), for `mcpscope run` to use: http://127.0.0.1:<port>. */
  forwardProxy?: string;
}

export function mcpscopeHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.MCPSCOPE_HOME || join(homedir(), '.mcpscope');
}

export function discoveryPath(port: number, env: NodeJS.ProcessEnv = process.env): string {
  return join(mcpscopeHome(env), `ui-${port}.json`);
}

/** The discovery file of the UI on `port`, if there is a readable one. */
export function readDiscovery(port: number, env: NodeJS.ProcessEnv = process.env): DiscoveryFile | undefined {
  try {
    const v = JSON.parse(readFileSync(discoveryPath(port, env), 'utf8')) as Partial<DiscoveryFile>;
    if (typeof v.token === 'string' && v.token !== '')
      return {
        token: v.token,
        pid: Number(v.pid),
        url: String(v.url ?? ''),
        ...(typeof v.forwardProxy === 'string' ? { forwardProxy: v.forwardProxy } : {}),
      };
  } catch {
    /* none, or unreadable */
  }
  return undefined;
}

/**
 * Announces the UI on `port`. Returns the function that removes the file again — only if it still
 * names this process and token (another mcpscope may have taken the port over since).
 */
export function writeDiscovery(
  port: number,
  info: { token: string; url: string; forwardProxy?: string },
  env: NodeJS.ProcessEnv = process.env,
): () => void {
  const dir = mcpscopeHome(env);
  const file = discoveryPath(port, env);
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is filtered by the umask: set it exactly on the directory we created.
  if (created !== undefined) chmodSync(dir, 0o700);
  const content: DiscoveryFile = {
    token: info.token,
    pid: process.pid,
    url: info.url,
    ...(info.forwardProxy ? { forwardProxy: info.forwardProxy } : {}),
  };
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(content)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    const current = readDiscovery(port, env);
    if (current && current.pid === process.pid && current.token === info.token) {
      try {
        unlinkSync(file);
      } catch {
        /* already gone */
      }
    }
  };
}
