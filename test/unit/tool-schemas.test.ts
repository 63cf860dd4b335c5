/**
 * Tools' JSON Schemas (proxy/lint/tool-schemas.ts): the bounded LRU cache of compiled validators,
 * schemas ajv cannot compile, the dialect picked by `$schema`, and what an error says (a JSON
 * pointer with ~ and / escaped, the expectation in words, never the value).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Ajv } from 'ajv';
import { MAX_COMPILED, compiled, compiledCount, schemaError } from '../../proxy/lint/tool-schemas.js';

/** The class both Ajv (draft-07) and Ajv2020 inherit compile and removeSchema from. */
const ajvCore = Object.getPrototypeOf(Ajv.prototype) as {
  compile: (...a: unknown[]) => unknown;
  removeSchema: (...a: unknown[]) => unknown;
};

let n = 0;
/** A schema no other test compiled (its text is its cache key). */
const fresh = (extra: Record<string, unknown> = {}) => ({ type: 'object', title: `fresh-${++n}`, ...extra });

afterEach(() => vi.restoreAllMocks());

describe('compiled: the cache', () => {
  it('compiles once: the same schema text (even another object) gets the same validator', () => {
    const s = fresh({ required: ['a'] });
    const v = compiled(s);
    expect(v).toBeTypeOf('function');
    expect(compiled(JSON.parse(JSON.stringify(s)))).toBe(v);
  });

  it('never holds more than MAX_COMPILED schemas, and drops the evicted ones from ajv too', () => {
    const remove = vi.spyOn(ajvCore, 'removeSchema');
    const before = remove.mock.calls.length;
    for (let i = 0; i < MAX_COMPILED + 50; i++) {
      compiled(fresh());
      expect(compiledCount()).toBeLessThanOrEqual(MAX_COMPILED);
    }
    expect(compiledCount()).toBe(MAX_COMPILED);
    // At least the 50 overflowing ones were evicted, each removed from its ajv instance.
    expect(remove.mock.calls.length - before).toBeGreaterThanOrEqual(50);
  });

  it('evicts the least recently used, not the oldest compiled', () => {
    const schemas = Array.from({ length: MAX_COMPILED }, () => fresh());
    const fns = schemas.map((s) => compiled(s));
    // The cache holds exactly these now; using the first one makes the second the least recent.
    expect(compiled(schemas[0])).toBe(fns[0]);
    const remove = vi.spyOn(ajvCore, 'removeSchema');
    compiled(fresh());
    expect(remove).toHaveBeenCalledTimes(1);
    expect(remove.mock.calls[0][0]).toBe(schemas[1]);
    expect(compiled(schemas[0])).toBe(fns[0]);
    const again = compiled(schemas[1]);
    expect(again).toBeTypeOf('function');
    expect(again).not.toBe(fns[1]);
  });

  it('a schema ajv cannot compile is remembered as such and never checked against', () => {
    const compile = vi.spyOn(ajvCore, 'compile');
    const broken = [
      fresh({ type: 'no-such-type' }),
      fresh({ properties: { a: { $ref: '#/definitions/missing' } } }),
      // draft-07's tuple form is not 2020-12: that dialect cannot compile it.
      { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', items: [{ type: 'number' }], title: `fresh-${++n}` },
    ];
    for (const s of broken) {
      const calls = compile.mock.calls.length;
      expect(compiled(s)).toBeUndefined();
      expect(compile.mock.calls.length).toBe(calls + 1);
      // Whatever the value, no error is reported against a schema that could not be compiled…
      expect(schemaError(s, 'anything', '/params/arguments')).toBeUndefined();
      expect(schemaError(s, { a: 1 }, '/params/arguments')).toBeUndefined();
      // …and it is not compiled again.
      expect(compile.mock.calls.length).toBe(calls + 1);
    }
  });

  it('what is not a schema object is not compiled', () => {
    const compile = vi.spyOn(ajvCore, 'compile');
    for (const s of [undefined, null, true, 'object', 3, [{ type: 'object' }]]) {
      expect(compiled(s)).toBeUndefined();
      expect(schemaError(s, 5, '')).toBeUndefined();
    }
    expect(compile).not.toHaveBeenCalled();
  });
});

describe('schemaError: dialects by $schema', () => {
  const tuple2020 = { type: 'array', prefixItems: [{ type: 'number' }] };
  const tuple07 = { type: 'array', items: [{ type: 'number' }] };

  it('2020-12 (and 2019-09) schemas get ajv’s 2020 dialect: prefixItems is a keyword', () => {
    expect(schemaError({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...tuple2020 }, ['x'], '/a')).toEqual({
      path: '/a/0',
      expected: 'a number',
    });
    expect(schemaError({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...tuple2020 }, [1], '/a')).toBeUndefined();
    // 2019-09 goes to the same instance: draft-07's tuple form does not compile there.
    expect(compiled({ $schema: 'https://json-schema.org/draft/2019-09/schema', ...tuple07 })).toBeUndefined();
  });

  it('draft-07 (or no $schema) gets the draft-07 dialect: prefixItems means nothing, items may be a tuple', () => {
    expect(schemaError(tuple2020, ['x'], '/a')).toBeUndefined();
    expect(schemaError({ $schema: 'http://json-schema.org/draft-07/schema#', ...tuple07 }, ['x'], '/a')).toEqual({
      path: '/a/0',
      expected: 'a number',
    });
    expect(schemaError(tuple07, ['x'], '/a')).toEqual({ path: '/a/0', expected: 'a number' });
  });
});

describe('schemaError: messages and pointers', () => {
  const P = '/params/arguments';

  it('a valid value has no error', () => {
    expect(schemaError({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }, { a: 1 }, P)).toBeUndefined();
  });

  it('required: the pointer names the missing property (~ and / escaped)', () => {
    expect(schemaError({ type: 'object', required: ['city'] }, {}, P)).toEqual({
      path: `${P}/city`,
      expected: 'a value (required property is missing)',
    });
    expect(schemaError({ type: 'object', required: ['a/b~c'] }, {}, P)).toEqual({
      path: `${P}/a~1b~0c`,
      expected: 'a value (required property is missing)',
    });
    expect(schemaError({ type: 'object', properties: { o: { type: 'object', required: ['k'] } } }, { o: {} }, P)?.path).toBe(`${P}/o/k`);
  });

  it('additionalProperties: the pointer names the extra property (~ and / escaped)', () => {
    expect(schemaError({ type: 'object', additionalProperties: false }, { 'x/y~z': 1 }, P)).toEqual({
      path: `${P}/x~1y~0z`,
      expected: 'no such property (additionalProperties is false)',
    });
  });

  it('type: a / an, and several types joined with "or"', () => {
    expect(schemaError({ type: 'object', properties: { n: { type: 'number' } } }, { n: 'x' }, P)).toEqual({
      path: `${P}/n`,
      expected: 'a number',
    });
    expect(schemaError({ type: 'integer' }, 1.5, P)).toEqual({ path: P, expected: 'an integer' });
    expect(schemaError({ type: 'object' }, [], P)).toEqual({ path: P, expected: 'an object' });
    expect(schemaError({ type: ['string', 'number'] }, {}, P)).toEqual({ path: P, expected: 'a string or number' });
    // A nested property whose name has / in it: ajv's instancePath is escaped already.
    expect(schemaError({ type: 'object', properties: { 'x/y': { type: 'integer' } } }, { 'x/y': 'a' }, P)?.path).toBe(`${P}/x~1y`);
    expect(schemaError({ type: 'array', items: { type: 'boolean' } }, [true, 'no'], P)).toEqual({ path: `${P}/1`, expected: 'a boolean' });
  });

  it('enum: the allowed values, from the schema', () => {
    expect(schemaError({ type: 'object', properties: { unit: { enum: ['c', 'f'] } } }, { unit: 'k' }, P)).toEqual({
      path: `${P}/unit`,
      expected: 'one of "c", "f"',
    });
  });

  it('other keywords: ajv’s words (keywords and the schema’s values), never the data', () => {
    const MARK = 'sk-live-MARKER0a1b2c3d';
    const cases: [object, unknown][] = [
      [{ type: 'number', minimum: 5 }, 3],
      [{ type: 'string', format: 'email' }, MARK],
      [{ type: 'string', pattern: '^a' }, MARK],
      [{ const: 'a' }, MARK],
      [{ type: 'string', maxLength: 3 }, MARK],
      [{ not: { type: 'string' } }, MARK],
      [{ enum: ['a'] }, MARK],
      [{ type: 'number' }, MARK],
    ];
    for (const [schema, value] of cases) {
      const err = schemaError(schema, value, P);
      expect(err, JSON.stringify(schema)).toBeDefined();
      expect(err?.expected).not.toContain('MARKER');
      expect(err?.path).toBe(P);
    }
    expect(schemaError({ type: 'number', minimum: 5 }, 3, P)?.expected).toBe('a value that must be >= 5');
    expect(schemaError({ type: 'string', format: 'email' }, 'x', P)?.expected).toBe('a value that must match format "email"');
  });
});
