/**
 * The layer rules of eslint.config.js fail on a violation: for a file of each layer, an import of
 * each layer above it is refused (linted as if it were that file, so nothing on disk changes), an
 * import of a layer below it passes, and the browser-safe core refuses Node builtins.
 */
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

async function refused(file: string, code: string): Promise<string[]> {
  expect(existsSync(`${ROOT}/${file}`), `${file} exists`).toBe(true);
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${file}` });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const LAYERS = ['core', 'wire', 'recorder', 'files', 'addons', 'app'] as const;
/** One real file of each layer, and a real module of each layer to import (both two folders deep under proxy/). */
const FILE_OF: Record<(typeof LAYERS)[number], string> = {
  core: 'proxy/core/parse/jsonrpc.ts',
  wire: 'proxy/wire/capture/clock.ts',
  recorder: 'proxy/recorder/store/search.ts',
  files: 'proxy/files/export/export-har.ts',
  addons: 'proxy/addons/send/send-message.ts',
  app: 'proxy/app/serve/feed.ts',
};
const MODULE_OF: Record<(typeof LAYERS)[number], string> = {
  core: '../../core/model/events.js',
  wire: '../../wire/capture/clock.js',
  recorder: '../../recorder/store/event-store.js',
  files: '../../files/export/export-har.js',
  addons: '../../addons/send/send-message.js',
  app: '../../app/serve/feed.js',
};
const importing = (spec: string) => `import * as m from '${spec}';\nexport const x = m;\n`;

describe('eslint layer boundaries', () => {
  for (const [i, layer] of LAYERS.entries()) {
    it(`proxy/${layer}: refuses the layers above it, takes those below`, async () => {
      const file = FILE_OF[layer];
      for (const above of LAYERS.slice(i + 1))
        expect(await refused(file, importing(MODULE_OF[above])), `${layer} → ${above}`).toHaveLength(1);
      for (const below of LAYERS.slice(0, i))
        expect(await refused(file, importing(MODULE_OF[below])), `${layer} → ${below}`).toHaveLength(0);
    });
  }

  it('proxy/core runs in the browser too: no Node builtin (but the two documented exceptions)', async () => {
    const fs = "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n";
    for (const file of [
      'proxy/core/model/events.ts',
      'proxy/core/rules/breakpoint-rules.ts',
      'proxy/core/lint/linter.ts',
      'proxy/core/parse/body-reader.ts',
    ])
      expect(await refused(file, fs), file).toHaveLength(1);
    expect(
      await refused('proxy/core/parse/body-reader.ts', "import { gunzipSync } from 'node:zlib';\nexport const x = gunzipSync;\n"),
    ).toHaveLength(0);
    expect(await refused('proxy/wire/capture/clock.ts', fs)).toHaveLength(0);
  });

  it('in core, model and parse are the base: they never import annotate, lint, correlate, model-api or rules', async () => {
    expect(await refused('proxy/core/model/events.ts', importing('../annotate/hint-text.js'))).toHaveLength(1);
    expect(await refused('proxy/core/parse/jsonrpc.ts', importing('../rules/breakpoint-rules.js'))).toHaveLength(1);
    expect(await refused('proxy/core/annotate/hint-text.ts', importing('../model/events.js'))).toHaveLength(0);
  });

  it("an addon's wire/ folder (the proxy thread) takes core and wire only, not its addon's main-thread half nor another addon", async () => {
    const file = 'proxy/addons/breakpoints/wire/http-holds.ts';
    expect(await refused(file, importing('../../../recorder/store/event-store.js'))).toHaveLength(1);
    expect(await refused(file, importing('../paused-registry.js'))).toHaveLength(1);
    expect(await refused(file, importing('../../faults/routes.js'))).toHaveLength(1);
    expect(await refused(file, importing('../../../wire/capture/clock.js'))).toHaveLength(0);
    expect(await refused(file, importing('./hold-desk.js'))).toHaveLength(0);
  });

  it('the UI imports proxy/core only, and of the linter its report', async () => {
    const file = 'ui/src/main.tsx';
    expect(await refused(file, importing('../../proxy/core/model/events.js'))).toHaveLength(0);
    expect(await refused(file, importing('../../proxy/recorder/store/search.js'))).toHaveLength(1);
    expect(await refused(file, importing('../../proxy/core/lint/linter.js'))).toHaveLength(1);
    expect(await refused(file, importing('../../proxy/core/lint/lint-report.js'))).toHaveLength(0);
    expect(await refused(file, "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n")).toHaveLength(1);
    expect(await refused('proxy/recorder/store/search.ts', importing('../../../ui/src/main.js'))).toHaveLength(1);
  });
});
