/**
 * `*` globs in linear time (proxy/core/model/glob.ts), for verify's ignore patterns and `--intercept`
 * host patterns: what they match, and that a pattern made to make a backtracking RegExp retry
 * every split of the text answers at once (issue 26, finding 8: `*a*a*a*a*a*a*b` took 5.8 s on a
 * 71-character label as a RegExp, eight stars did not finish in 120 s).
 */
import { describe, expect, it } from 'vitest';
import { compileGlob, globMatches, globMatchesPrefix, type Glob } from '../../../proxy/core/model/glob.js';

const matches = (pattern: string, text: string) => globMatches(compileGlob(pattern), text);

describe('compileGlob / globMatches', () => {
  it('matches the whole text: * for any run of characters (none included), every other character literal', () => {
    expect(matches('abc', 'abc')).toBe(true);
    expect(matches('abc', 'abcd')).toBe(false);
    expect(matches('abc', 'xabc')).toBe(false);
    expect(matches('a*c', 'ac')).toBe(true);
    expect(matches('a*c', 'abbbc')).toBe(true);
    expect(matches('a*c', 'abbbcd')).toBe(false);
    expect(matches('*', '')).toBe(true);
    expect(matches('**', 'anything')).toBe(true);
    expect(matches('', '')).toBe(true);
    expect(matches('', 'a')).toBe(false);
    expect(matches('*.example.com', 'a.b.example.com')).toBe(true);
    expect(matches('*.example.com', 'example.com')).toBe(false);
    expect(matches('a*b*c', 'aXbYbZc')).toBe(true);
    expect(matches('a*b*c', 'aXcYb')).toBe(false);
  });

  it('takes RegExp characters and non-ASCII text literally', () => {
    expect(matches('a.b', 'aXb')).toBe(false);
    expect(matches('a.b', 'a.b')).toBe(true);
    expect(matches('(x)+[y]?$', '(x)+[y]?$')).toBe(true);
    expect(matches('\\d', '1')).toBe(false);
    expect(matches('é*😀', 'éxx😀')).toBe(true);
    expect(matches('é*😀', 'e😀')).toBe(false);
  });

  it('runs and single characters may exclude characters; a prefix match ends where the caller says', () => {
    // A key of a path: one or more characters up to a "." or "[".
    const key: Glob = {
      tokens: [
        { kind: 'char', ch: 'a' },
        { kind: 'char', ch: '.' },
        { kind: 'one', not: '.[' },
        { kind: 'run', not: '.[' },
      ],
    };
    const atBoundary = (text: string) => (i: number) => i === text.length || text[i] === '.' || text[i] === '[';
    const prefix = (text: string) => globMatchesPrefix(key, text, atBoundary(text));
    expect(prefix('a.b')).toBe(true);
    expect(prefix('a.bcd.e')).toBe(true);
    expect(prefix('a.bcd[0]')).toBe(true);
    expect(prefix('a.')).toBe(false);
    expect(prefix('a..b')).toBe(false);
    expect(globMatches(key, 'a.b.c')).toBe(false);
  });

  it('answers at once for patterns that make a backtracking RegExp retry every split of the text', () => {
    // As RegExps (^.*a.*a…b$) the first took 5.8 s on a 71-character label; the others do not end.
    const hostile = ['*a*a*a*a*a*a*b', '*a*a*a*a*a*a*a*a*b', `${'*a'.repeat(40)}*b`];
    for (const text of ['tools/call ' + 'a'.repeat(60), 'a'.repeat(10_000)])
      for (const pattern of hostile) {
        expect(matches(pattern, text)).toBe(false);
        expect(matches(pattern, `${text}b`)).toBe(true);
      }
  });
});
