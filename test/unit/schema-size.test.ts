/** What a schema and a value cost to check, measured before checking (proxy/lint/schema-size.ts). */
import { describe, expect, it } from 'vitest';
import { measureSchema, valueWork } from '../../proxy/lint/schema-size.js';

describe('measureSchema', () => {
  it('counts every JSON value of the schema', () => {
    expect(measureSchema({ type: 'object', properties: { a: { type: 'string' } } }, 100)).toEqual({
      nodes: 5,
      overLimit: false,
      bounded: true,
    });
    expect(measureSchema({ enum: [1, 2, 3] }, 100).nodes).toBe(5);
  });

  it('references, uniqueItems and format make a schema unbounded (checked under the time guard)', () => {
    for (const key of ['$ref', '$dynamicRef', '$recursiveRef', 'uniqueItems', 'format']) {
      expect(measureSchema({ type: 'object', properties: { a: { [key]: 'x' } } }, 100).bounded, key).toBe(false);
    }
    expect(measureSchema({ anyOf: [{ type: 'string', pattern: '^(a+)+$' }, { not: {} }] }, 100).bounded).toBe(true);
  });

  it('stops past its limit, in one wide object or one long array as in a deep one', () => {
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 50_000; i++) wide[`k${i}`] = i;
    expect(measureSchema({ properties: wide }, 1_000)).toMatchObject({ overLimit: true, bounded: false });
    expect(measureSchema({ enum: Array.from({ length: 50_000 }, (_, i) => i) }, 1_000).overLimit).toBe(true);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 2_000; i++) deep = { not: deep };
    expect(measureSchema(deep, 1_000).overLimit).toBe(true);
    expect(measureSchema(deep, 10_000).overLimit).toBe(false);
  });
});

describe('valueWork', () => {
  it('is one per value plus the characters of strings and keys', () => {
    expect(valueWork(1, 100)).toBe(1);
    expect(valueWork('abc', 100)).toBe(4);
    expect(valueWork({ ab: 'xyz' }, 100)).toBe(1 + 3 + 1 + 3);
    expect(valueWork([1, [2]], 100)).toBe(4);
  });

  it('stops past its limit and says more than the limit', () => {
    expect(valueWork('x'.repeat(1_000_000), 1_000)).toBeGreaterThan(1_000);
    expect(
      valueWork(
        Array.from({ length: 1_000_000 }, () => 0),
        1_000,
      ),
    ).toBeGreaterThan(1_000);
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) wide[`k${i}`] = i;
    expect(valueWork(wide, 1_000)).toBeGreaterThan(1_000);
  });
});
