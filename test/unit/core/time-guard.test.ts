/** The linter's time guard (proxy/core/lint/time-guard.ts): work that runs too long is stopped, on this thread. */
import { describe, expect, it } from 'vitest';
import { TIMED_OUT, bounded } from '../../../proxy/core/lint/time-guard.js';

describe('bounded', () => {
  it('returns what the work returns, and throws what it throws', () => {
    expect(bounded(() => 42, 1_000)).toBe(42);
    expect(() =>
      bounded(() => {
        throw new TypeError('no');
      }, 1_000),
    ).toThrow(TypeError);
  });

  it('stops an endless loop, and a backtracking regular expression mid-match', () => {
    expect(
      bounded(() => {
        for (;;);
      }, 20),
    ).toBe(TIMED_OUT);
    // V8's RegExp on this takes longer than the universe's age.
    expect(bounded(() => /^(a+)+$/.test(`${'a'.repeat(50)}!`), 20)).toBe(TIMED_OUT);
    // The thread goes on working afterwards, guarded or not.
    expect(bounded(() => 'after', 1_000)).toBe('after');
    expect([1, 2].map((x) => x * 2)).toEqual([2, 4]);
  });
});
