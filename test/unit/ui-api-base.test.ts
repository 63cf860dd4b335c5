/**
 * The UI reaches the API through one base (ui/src/state/api.ts: `api/…`, relative to the page).
 * Any URL literal handed to fetch in ui/src must be on that base — the faults panel and Clear
 * used `/api/…` while the rest used `api/…`. (test/ui/api-base.test.tsx checks the requests the
 * components actually make.)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_BASE } from '../../ui/src/state/api.js';

const UI_SRC = join(import.meta.dirname, '../../ui/src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('the UI API base', () => {
  it('is the only one in ui/src: no fetch of a root-relative or absolute URL', () => {
    expect(API_BASE).toBe('api/');
    const offenders: string[] = [];
    for (const file of sourceFiles(UI_SRC)) {
      const text = readFileSync(file, 'utf8');
      // fetch('…') / fetch(`…`) with a URL written out: it must be on the base (apiFetch is).
      for (const m of text.matchAll(/\bfetch(?:Impl)?\(\s*([`'"])([^`'"]*)/g)) {
        if (!m[2].startsWith(API_BASE)) offenders.push(`${relative(UI_SRC, file)}: ${m[0]}…`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
