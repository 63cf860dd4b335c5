#!/usr/bin/env node
/**
 * Installs the real agent clients the agent tests drive (test/agents/, `npm run test:agents`):
 * Claude Code and Gemini CLI from npm, pinned, into a cache folder outside the repository — never
 * into its dependencies — once per machine. Prints where each one's binary is.
 *
 *   node scripts/agent-clients.mjs            install what is missing, print the binaries
 *   node scripts/agent-clients.mjs --check    print them, install nothing (exit 1 if one is missing)
 *
 * The folder: $MCPSCOPE_AGENT_CACHE, else $XDG_CACHE_HOME/mcpscope-agents, else
 * ~/.cache/mcpscope-agents. Works from any directory.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The clients, pinned: the versions the agent view was tried against (protocol-notes §9). Keep in step with test/support/agent-clients.ts. */
export const AGENT_CLIENTS = [
  { name: 'claude-code', pkg: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' },
  { name: 'gemini-cli', pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
];

export function agentCacheDir(env = process.env) {
  if (env.MCPSCOPE_AGENT_CACHE) return env.MCPSCOPE_AGENT_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mcpscope-agents');
}

export function binOf(client, env = process.env) {
  return join(agentCacheDir(env), `${client.name}-${client.version}`, 'node_modules', '.bin', client.bin);
}

function install(client) {
  const dir = join(agentCacheDir(), `${client.name}-${client.version}`);
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`agent-clients: installing ${client.pkg}@${client.version} into ${dir}\n`);
  const r = spawnSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', `${client.pkg}@${client.version}`], {
    stdio: ['ignore', 'inherit', 'inherit'],
    cwd: dir,
  });
  if (r.status !== 0) throw new Error(`npm install ${client.pkg}@${client.version} failed (exit ${r.status})`);
}

const main = () => {
  const check = process.argv.includes('--check');
  let missing = 0;
  for (const c of AGENT_CLIENTS) {
    if (!existsSync(binOf(c))) {
      if (check) {
        missing += 1;
        process.stdout.write(`${c.name}: not installed (node scripts/agent-clients.mjs installs it)\n`);
        continue;
      }
      install(c);
    }
    process.stdout.write(`${c.name}: ${binOf(c)}\n`);
  }
  process.exit(missing > 0 ? 1 : 0);
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
