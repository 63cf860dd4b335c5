/**
 * Dependencies with published advisories stay on their fixed releases (issue 26, finding 12):
 * every scanner flags the affected ranges, exploitable here or not. One row per advisory set; a row
 * goes once the affected range is far behind.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const semver = require('semver') as { satisfies(v: string, range: string): boolean };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };

const FIXED: { name: string; fixed: string; advisories: string[] }[] = [
  // @fastify/static 9.3.0 was inside all three (path handling of the static files the UI is served from).
  { name: '@fastify/static', fixed: '>=10.1.3', advisories: ['GHSA-83w8-p2f5-377r', 'GHSA-423g-23ch-w7c6', 'GHSA-8pvw-jcv7-9cmj'] },
];

describe('dependencies with advisories', () => {
  for (const { name, fixed, advisories } of FIXED) {
    it(`${name} is on a release fixed for ${advisories.join(', ')} (${fixed})`, () => {
      const version = lock.packages[`node_modules/${name}`]?.version;
      expect(version, `${name} is not in the lockfile`).toBeDefined();
      expect(semver.satisfies(version!, fixed), `${name}@${version}`).toBe(true);
    });
  }
});
