/**
 * The agent tests (test/agents/): real agent clients from npm (Claude Code, Gemini CLI) through
 * mcpscope. `npm run test:agents` installs the clients (scripts/agent-clients.mjs) and runs these;
 * `.ci/run` runs it after `npm test`. Kept out of `npm test` because they need the clients.
 */
import { defineConfig } from 'vitest/config';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default defineConfig({
  test: {
    include: ['test/agents/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: { MCPSCOPE_HOME: join(tmpdir(), `mcpscope-agents-home-${process.pid}`) },
  },
});
