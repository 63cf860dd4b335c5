/**
 * Where mcpscope keeps its files — the CA (wire/forward-proxy/ca.ts), the UI's discovery files
 * (app/serve/discovery.ts), the agents' exports: `$MCPSCOPE_HOME`, else `~/.mcpscope`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function mcpscopeHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.MCPSCOPE_HOME || join(homedir(), '.mcpscope');
}
