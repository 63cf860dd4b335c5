/** json-diff on values nested deeper than the cap: canonical keys and diffs never overflow the stack. */
import { describe, expect, it } from 'vitest';
import { canonicalJson, diffJson, formatPath } from '../../../proxy/core/model/json-diff.js';
import { MAX_JSON_DEPTH } from '../../../proxy/core/parse/json-depth.js';

const nest = (d: number, leaf: unknown): unknown => {
  let v = leaf;
  for (let i = 0; i < d; i++) v = { a: v };
  return v;
};

describe('json-diff: deep values', () => {
  it('canonicalJson of a 100,000-level value does not throw, and equal values give equal keys', () => {
    expect(canonicalJson(nest(100_000, 1))).toBe(canonicalJson(nest(100_000, 1)));
    // Past the cap a part is compared by its JSON text (up to 64 KiB of it).
    expect(canonicalJson(nest(1_000, 1))).not.toBe(canonicalJson(nest(1_000, 2)));
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });

  it('diffJson compares below the cap as text, and reports the difference at the cap', () => {
    const d = diffJson(nest(10_000, 1), nest(10_000, 2));
    expect(d).toHaveLength(1);
    expect(d[0].kind).toBe('changed');
    expect(d[0].path).toHaveLength(MAX_JSON_DEPTH);
    expect(typeof d[0].before).toBe('string');
    expect(() => JSON.stringify(d)).not.toThrow();
    expect(formatPath(d[0].path).startsWith('a.a.a')).toBe(true);
    expect(diffJson(nest(10_000, 1), nest(10_000, 1))).toEqual([]);
  });
});
