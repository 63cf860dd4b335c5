/**
 * proxy/app/commands/env.ts: `mcpscope env` finds the forward proxy through the checked discovery
 * lookup, and says why it did not use a discovery file that is there (issue 26, finding 10).
 * A real file in a temporary MCPSCOPE_HOME; stderr captured.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../../proxy/app/commands/env.js';
import { discoveryPath } from '../../../proxy/app/serve/discovery.js';

const PORT = 6124;
let home: string;
let saved: string | undefined;
let stderr: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mcpscope-env-'));
  saved = process.env.MCPSCOPE_HOME;
  process.env.MCPSCOPE_HOME = home;
  stderr = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterEach(() => {
  vi.restoreAllMocks();
  if (saved === undefined) delete process.env.MCPSCOPE_HOME;
  else process.env.MCPSCOPE_HOME = saved;
  rmSync(home, { recursive: true, force: true });
});

describe.runIf(process.platform !== 'win32')('mcpscope env', () => {
  it('says why it ignores a discovery file (a planted 0666 one), not just that nothing runs', async () => {
    const file = discoveryPath(PORT, { MCPSCOPE_HOME: home });
    writeFileSync(
      file,
      JSON.stringify({ token: 'planted-token-xyz', pid: process.pid, url: 'http://127.0.0.1:1/', forwardProxy: 'http://127.0.0.1:1' }),
    );
    chmodSync(file, 0o666);
    expect(await main(['--ui-port', String(PORT)])).toBe(1);
    expect(stderr).toContain(
      `mcpscope env: not using the mcpscope on UI port ${PORT}: ${file} cannot be trusted: others can write it (mode 0666).`,
    );
  });

  it('without a file, says that none runs (a missing file is not worth a reason)', async () => {
    expect(await main(['--ui-port', String(PORT)])).toBe(1);
    expect(stderr).toBe(
      `mcpscope env: no mcpscope forward proxy is running with its UI on port ${PORT}. Start one with \`mcpscope --forward\` (or use \`mcpscope run -- <command>\`, which needs none).\n`,
    );
  });
});
