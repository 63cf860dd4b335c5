/** The spec linter's rule table (proxy/core/lint/rules.ts): stable ids, sections, and docs/spec-lint.md listing exactly them. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RULES, isKnownVersion, specRefOf, versionAtLeast } from '../../../proxy/core/lint/rules.js';

const doc = readFileSync(new URL('../../../docs/spec-lint.md', import.meta.url), 'utf8');

describe('the rule table', () => {
  it('docs/spec-lint.md lists every rule with its section, and no other', () => {
    const rows = [...doc.matchAll(/^\| `([a-z0-9/-]+)` \| `([^`]+)` \|/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual([...RULES.values()].map((r) => [r.id, r.section]));
  });

  it('ids are family/name, unique, and every section is a spec path (with an optional #anchor) or "schema"', () => {
    for (const r of RULES.values()) {
      expect(r.id).toMatch(/^[a-z]+\/[a-z0-9-]+$/);
      expect(r.section).toMatch(/^(schema|[a-z]+(\/[a-z_-]+)*(#[a-z0-9-]+)?)$/);
      expect(r.summary.length).toBeGreaterThan(20);
    }
  });
});

describe('specRefOf', () => {
  it('prefixes the section with the session’s version, or the latest before one is known; a schema finding names its method’s section', () => {
    expect(specRefOf('tools/arguments-schema', '2025-03-26')).toBe('2025-03-26 server/tools#calling-tools');
    expect(specRefOf('tools/arguments-schema', undefined)).toBe('2025-11-25 server/tools#calling-tools');
    expect(specRefOf('schema/request', '2025-06-18', 'server/prompts#getting-a-prompt')).toBe('2025-06-18 server/prompts#getting-a-prompt');
  });
});

describe('versions', () => {
  it('knows the published versions and 2026-07-28; compares dates', () => {
    expect(isKnownVersion('2024-11-05')).toBe(true);
    expect(isKnownVersion('2026-07-28')).toBe(true);
    expect(isKnownVersion('2099-01-01')).toBe(false);
    expect(isKnownVersion(undefined)).toBe(false);
    expect(versionAtLeast('2025-06-18', '2025-03-26')).toBe(true);
    expect(versionAtLeast('2024-11-05', '2025-03-26')).toBe(false);
    expect(versionAtLeast(undefined, '2024-11-05')).toBe(false);
  });
});
