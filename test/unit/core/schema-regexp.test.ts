/** ajv's regular-expression engine for peers' patterns (proxy/core/lint/schema-regexp.ts): RE2, never a backtracking fallback. */
import { describe, expect, it } from 'vitest';
import { collectUncheckable, re2Engine } from '../../../proxy/core/lint/schema-regexp.js';

describe('re2Engine', () => {
  it('matches as RegExp.test does (unanchored unless the pattern anchors), in linear time', () => {
    const rx = re2Engine('^(a+)+$', 'u');
    expect(rx.test('aaaa')).toBe(true);
    expect(rx.test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(re2Engine('b+', 'u').test('abba')).toBe(true);
    expect(re2Engine('^b+$', 'u').test('abba')).toBe(false);
  });

  it('gives each pattern a text of its own (ajv keys its scope values by it)', () => {
    expect(String(re2Engine('^a$', 'u'))).not.toBe(String(re2Engine('^b$', 'u')));
    expect(String(re2Engine('(?=a)', 'u'))).not.toBe(String(re2Engine('(?=b)', 'u')));
  });

  it('a pattern RE2 cannot run matches everything and is collected by the compile that met it, once', () => {
    const { result, uncheckable } = collectUncheckable(() => [
      re2Engine('(?<=x)y', 'u'),
      re2Engine('(a)\\1', 'u'),
      re2Engine('(a)\\1', 'u'),
      re2Engine('^ok$', 'u'),
    ]);
    expect(result[0].test('anything')).toBe(true);
    expect(result[1].test('ab')).toBe(true);
    expect(result[3].test('no')).toBe(false);
    expect(uncheckable).toEqual(['(?<=x)y', '(a)\\1']);
    // Outside a compile, nothing is collected (and nothing breaks).
    expect(re2Engine('(?!x)', 'u').test('x')).toBe(true);
  });
});
