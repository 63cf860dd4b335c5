/** What a schema and a value cost to check, measured before checking (proxy/core/lint/schema-size.ts). */
import { describe, expect, it } from 'vitest';
import { measureSchema, resolvePointer, valueWork } from '../../../proxy/core/lint/schema-size.js';

const FORMATS = new Set(['date-time', 'email']);

describe('measureSchema', () => {
  it('counts every JSON value, and weighs the schema about as its JSON text', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const m = measureSchema(schema, 100);
    expect(m).toMatchObject({ nodes: 5, overLimit: false, bounded: true });
    // One per value, plus each key's and string's characters (and one per key): 40 for a 54-character text.
    expect(m.weight).toBe(40);
    expect(m.weight).toBeGreaterThan(JSON.stringify(schema).length / 2);
    expect(measureSchema({ enum: [1, 2, 3] }, 100).nodes).toBe(5);
  });

  it('uniqueItems, $dynamicRef, $recursiveRef and a format that is not linear make a schema unbounded', () => {
    for (const extra of [
      { uniqueItems: true },
      { $dynamicRef: '#x' },
      { $recursiveRef: '#' },
      { format: 'duration' },
      { format: 'no-such' },
    ]) {
      const m = measureSchema({ type: 'object', properties: { a: extra } }, 100, FORMATS);
      expect(m, JSON.stringify(extra)).toMatchObject({ bounded: false, weight: Infinity });
    }
    expect(measureSchema({ type: 'array', uniqueItems: false }, 100, FORMATS).bounded).toBe(true);
    expect(measureSchema({ type: 'string', format: 'date-time' }, 100, FORMATS).bounded).toBe(true);
    expect(measureSchema({ anyOf: [{ type: 'string', pattern: '^(a+)+$' }, { not: {} }] }, 100).bounded).toBe(true);
  });

  it('local references that form no cycle are bounded, their targets weighed once per use', () => {
    // A pydantic-style schema: $defs and $ref.
    const item = { type: 'object', properties: { name: { type: 'string' }, qty: { type: 'integer' } } };
    const schema = { $defs: { Item: item }, type: 'object', properties: { a: { $ref: '#/$defs/Item' }, b: { $ref: '#/$defs/Item' } } };
    const one = measureSchema(item, 100).weight;
    const m = measureSchema(schema, 100);
    expect(m.bounded).toBe(true);
    // The definition itself, and twice more where it is used.
    expect(m.weight).toBeGreaterThan(3 * one);
    // A chain that doubles at each step is weighed as checking would walk it (2^12 uses), in O(schema) time.
    const defs: Record<string, unknown> = { d0: { type: 'string' } };
    for (let i = 1; i <= 12; i++) defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] };
    const doubling = measureSchema({ $defs: defs, $ref: '#/$defs/d12' }, 1000);
    expect(doubling.bounded).toBe(true);
    expect(doubling.weight).toBeGreaterThan(2 ** 12);
    // Over the weight limit: not bounded.
    expect(measureSchema({ $defs: defs, $ref: '#/$defs/d12' }, 1000, new Set(), 1000)).toMatchObject({ bounded: false, weight: Infinity });
  });

  it('references that go round, are not local pointers, or sit under an $id below the root are unbounded', () => {
    const recursive = { $defs: { n: { type: 'object', properties: { next: { $ref: '#/$defs/n' } } } }, $ref: '#/$defs/n' };
    expect(measureSchema(recursive, 100).bounded).toBe(false);
    expect(measureSchema({ properties: { self: { $ref: '#' } } }, 100).bounded).toBe(false);
    expect(measureSchema({ properties: { a: { $ref: 'https://example.com/s.json' } } }, 100).bounded).toBe(false);
    expect(measureSchema({ properties: { a: { $ref: '#anchor' } } }, 100).bounded).toBe(false);
    expect(measureSchema({ properties: { a: { $ref: '#/$defs/missing' } } }, 100).bounded).toBe(false);
    expect(measureSchema({ $defs: { x: { $id: 'other', type: 'string' } }, $ref: '#/$defs/x' }, 100).bounded).toBe(false);
    // The root's own $id changes nothing.
    expect(measureSchema({ $id: 'https://example.com/root', $defs: { x: { type: 'string' } }, $ref: '#/$defs/x' }, 100).bounded).toBe(true);
  });

  it('stops past its limit, in one wide object or one long array as in a deep one', () => {
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 50_000; i++) wide[`k${i}`] = i;
    expect(measureSchema({ properties: wide }, 1_000)).toMatchObject({ overLimit: true, bounded: false });
    expect(measureSchema({ enum: Array.from({ length: 50_000 }, (_, i) => i) }, 1_000).overLimit).toBe(true);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 2_000; i++) deep = { not: deep };
    expect(measureSchema(deep, 1_000).overLimit).toBe(true);
    // Under the node limit but deeper than the weighing follows: not bounded (the guard checks it).
    expect(measureSchema(deep, 10_000)).toMatchObject({ overLimit: false, bounded: false });
  });
});

describe('resolvePointer', () => {
  it('follows local JSON pointers (~0, ~1, percent-encoding, array indexes) and nothing else', () => {
    const root = { $defs: { 'a/b': { x: 1 }, 'c~d': [10, 20], 'e f': 3 } };
    expect(resolvePointer(root, '#')).toBe(root);
    expect(resolvePointer(root, '#/$defs/a~1b')).toEqual({ x: 1 });
    expect(resolvePointer(root, '#/$defs/c~0d/1')).toBe(20);
    expect(resolvePointer(root, '#/$defs/e%20f')).toBe(3);
    for (const ref of ['#/$defs/none', '#/$defs/%zz', 'other.json#/x', '#anchor', '#/$defs/a~1b/x/y', '#/__proto__'])
      expect(resolvePointer(root, ref), ref).toBeUndefined();
  });
});

describe('valueWork', () => {
  it('is one per value plus the characters of strings and keys', () => {
    expect(valueWork(1, 100)).toBe(1);
    expect(valueWork('abc', 100)).toBe(4);
    expect(valueWork({ ab: 'xyz' }, 100)).toBe(1 + (2 + 1) + (1 + 3));
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
