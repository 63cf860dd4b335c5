/**
 * The import boundaries of eslint.config.js hold for files that two blocks name: a file the
 * browser shares and the proxy thread runs (proxy/breakpoints/hold-desk.ts, wire-peek.ts) must
 * refuse both a Node builtin and a main-thread module (a later block's rule replaced the earlier
 * one's, so node:fs passed there).
 */
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

async function refused(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${file}` });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('eslint boundaries', () => {
  for (const file of ['proxy/breakpoints/hold-desk.ts', 'proxy/breakpoints/wire-peek.ts']) {
    it(`${file}: no Node builtin (the browser shares it), no main-thread module (the proxy thread runs it)`, async () => {
      expect(await refused(file, "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n")).toHaveLength(1);
      expect(await refused(file, "import { EventStore } from '../store/event-store.js';\nexport const x = EventStore;\n")).toHaveLength(1);
    });
  }

  it('a proxy-thread-only module may use Node builtins but not main-thread modules; a shared one no builtins', async () => {
    const thread = 'proxy/breakpoints/http-holds.ts';
    expect(await refused(thread, "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n")).toHaveLength(0);
    expect(await refused(thread, "import { EventStore } from '../store/event-store.js';\nexport const x = EventStore;\n")).toHaveLength(1);
    expect(
      await refused('proxy/breakpoints/breakpoint-rules.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n"),
    ).toHaveLength(1);
  });
});
