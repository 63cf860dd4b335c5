/**
 * Where the real agent clients are (scripts/agent-clients.mjs installs them into a cache folder
 * outside the repository, once per machine; `npm run test:agents` does it first). A missing one is
 * a failure that says how to install it, never a skipped test.
 */
import { existsSync } from 'node:fs';
// @ts-expect-error -- a plain .mjs script (it runs with no build); its two helpers are typed below.
import * as installer from '../../scripts/agent-clients.mjs';

interface AgentClient {
  name: string;
  pkg: string;
  version: string;
  bin: string;
}
const { AGENT_CLIENTS, binOf } = installer as { AGENT_CLIENTS: AgentClient[]; binOf(c: AgentClient): string };

export function agentBin(name: 'claude-code' | 'gemini-cli'): string {
  const client = AGENT_CLIENTS.find((c) => c.name === name)!;
  const bin = binOf(client);
  if (!existsSync(bin))
    throw new Error(
      `${client.pkg}@${client.version} is not installed at ${bin}: run \`node scripts/agent-clients.mjs\` (npm run test:agents does)`,
    );
  return bin;
}
