/**
 * The real-client matrix (test/clients/, issue 28): real Claude Code and Gemini CLI from npm, and
 * the docs' MCP Inspector lines, through every way into mcpscope. `npm run test:clients` builds,
 * installs the clients (scripts/agent-clients.mjs) and runs it; `.ci/run` runs it after
 * `npm run test:agents`. `npm test`'s vitest.config.ts leaves test/clients/ out.
 */
import { defineConfig } from 'vitest/config';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default defineConfig({
  test: {
    include: ['test/clients/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The clients and the mcpscope processes are heavy for a small machine: one file at a time.
    fileParallelism: false,
    env: { MCPSCOPE_HOME: join(tmpdir(), `mcpscope-clients-home-${process.pid}`) },
  },
});
