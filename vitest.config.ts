import { defineConfig } from 'vitest/config';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Real agent clients from npm: `npm run test:agents` (vitest.agents.config.ts) and the
    // real-client matrix, `npm run test:clients` (vitest.clients.config.ts).
    exclude: ['**/node_modules/**', 'test/agents/**', 'test/clients/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // UI tests (happy-dom) never fetch the network: see the file.
    setupFiles: ['test/support/ui-no-network.ts'],
    // mcpscope processes started by tests announce their UI token in $MCPSCOPE_HOME (see
    // proxy/app/serve/discovery.ts): keep that out of the real home directory.
    env: { MCPSCOPE_HOME: join(tmpdir(), `mcpscope-test-home-${process.pid}`) },
  },
});
