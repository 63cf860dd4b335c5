/** mcpscope's version, from its package.json (kept apart from mcpscope.ts so that light entry points need not load the servers). */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  // proxy/files/package-version.ts → ../../package.json; dist/proxy/files/package-version.js → ../../../package.json.
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version: string }).version;
    } catch {
      /* try the next */
    }
  }
  return '0.0.0';
}
