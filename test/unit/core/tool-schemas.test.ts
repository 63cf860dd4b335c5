/**
 * Tools' JSON Schemas (proxy/core/lint/tool-schemas.ts): the bounded LRU cache of compiled validators,
 * schemas ajv cannot compile, the dialect picked by `$schema`, what an error says (a JSON pointer
 * with ~ and / escaped, the expectation in words, never the value) — and what a hostile schema
 * cannot do (issue 26): backtrack in a pattern, stall the thread compiling or checking, flood the
 * cache, or write ajv's generated code to stderr.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Ajv } from 'ajv';
import {
  BUDGET_MS,
  COMPILE_MS,
  MAX_CACHED_TEXT,
  MAX_COMPILED,
  MAX_SCHEMA_BYTES,
  REFILL_MS_PER_S,
  ToolSchemas,
} from '../../../proxy/core/lint/tool-schemas.js';
import { TIMED_OUT, bounded } from '../../../proxy/core/lint/time-guard.js';

/** The class both Ajv (draft-07) and Ajv2020 inherit compile and removeSchema from. */
const ajvCore = Object.getPrototypeOf(Ajv.prototype) as {
  compile: (...a: unknown[]) => unknown;
  removeSchema: (...a: unknown[]) => unknown;
};

let n = 0;
/** A schema no other test compiled (its text is its cache key). */
const fresh = (extra: Record<string, unknown> = {}) => ({ type: 'object', title: `fresh-${++n}`, ...extra });

afterEach(() => vi.restoreAllMocks());

/**
 * A checker whose draft-07 ajv instance exists (made on first use, with a warm-up compile of
 * mcpscope's own), on a clock that stands still: compiling hundreds of schemas here never spends the
 * compile budget (its own test gives it a clock).
 */
function warm(): ToolSchemas {
  const s = new ToolSchemas(() => 0);
  s.check({ type: 'object', title: 'warm-up' }, {}, '');
  return s;
}

/** The first error, as the linter reads it (undefined when the value matches or was not checked). */
const errorOf = (s: ToolSchemas, schema: unknown, value: unknown, prefix = '/a') => s.check(schema, value, prefix).error;

/** `width` properties, each a string with a pattern: about 4 JSON values and 60 bytes of schema a property. */
function wide(width: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < width; i++) properties[`p${i}`] = { type: 'string', pattern: `^a${i}+$`, description: 'x' };
  return { type: 'object', title: `wide-${++n}`, properties, additionalProperties: false };
}

describe('the cache', () => {
  it('compiles once: the same schema text (even another object) is compiled once', () => {
    const s = warm();
    const compile = vi.spyOn(ajvCore, 'compile');
    const schema = fresh({ required: ['a'] });
    expect(errorOf(s, schema, {})).toEqual({ path: '/a/a', expected: 'a value (required property is missing)' });
    expect(errorOf(s, JSON.parse(JSON.stringify(schema)), {})).toBeDefined();
    expect(errorOf(s, schema, { a: 1 })).toBeUndefined();
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it('never holds more than MAX_COMPILED schemas, and drops the evicted ones from ajv too', () => {
    const s = warm();
    const remove = vi.spyOn(ajvCore, 'removeSchema');
    for (let i = 0; i < MAX_COMPILED + 50; i++) {
      s.check(fresh(), {}, '');
      expect(s.size).toBeLessThanOrEqual(MAX_COMPILED);
    }
    expect(s.size).toBe(MAX_COMPILED);
    // 51 out: the 50 overflowing, and the warm-up schema of warm().
    expect(remove.mock.calls.length).toBe(51);
  });

  it('evicts the least recently used, not the oldest compiled', () => {
    const s = warm();
    const schemas = Array.from({ length: MAX_COMPILED }, () => fresh());
    for (const schema of schemas) s.check(schema, {}, '');
    expect(s.size).toBe(MAX_COMPILED);
    // The cache holds exactly these now; using the first one makes the second the least recent.
    s.check(schemas[0], {}, '');
    const remove = vi.spyOn(ajvCore, 'removeSchema');
    s.check(fresh(), {}, '');
    expect(remove).toHaveBeenCalledTimes(1);
    expect(remove.mock.calls[0][0]).toBe(schemas[1]);
    const compile = vi.spyOn(ajvCore, 'compile');
    s.check(schemas[0], {}, '');
    expect(compile).not.toHaveBeenCalled();
    s.check(JSON.parse(JSON.stringify(schemas[1])), {}, '');
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it('is bounded by the schema text it holds too: large schemas push the older ones out', () => {
    const s = warm();
    // ~200 KB of schema text each (under the size limit): 16 MiB / 200 KB ≈ 80 of them fit.
    const big = () => fresh({ description: 'd'.repeat(200_000) });
    for (let i = 0; i < 120; i++) s.check(big(), {}, '');
    expect(s.size).toBeLessThanOrEqual(Math.ceil(MAX_CACHED_TEXT / 200_000));
    expect(s.size).toBeGreaterThan(50);
  });

  it('a schema ajv cannot compile is said (lint/schema-not-compiled), remembered, and never checked against', () => {
    const s = warm();
    s.check({ $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'warm-up' }, {}, '');
    const compile = vi.spyOn(ajvCore, 'compile');
    const broken = [
      fresh({ type: 'no-such-type' }),
      fresh({ properties: { a: { $ref: '#/definitions/missing' } } }),
      // draft-07's tuple form is not 2020-12: that dialect cannot compile it.
      { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', items: [{ type: 'number' }], title: `fresh-${++n}` },
    ];
    for (const schema of broken) {
      const calls = compile.mock.calls.length;
      const first = s.check(schema, 'anything', '/params/arguments');
      expect(first.error).toBeUndefined();
      expect(first.notChecked?.rule).toBe('lint/schema-not-compiled');
      expect(first.notChecked?.detail).toMatch(/^ajv cannot compile it \(/);
      expect(compile.mock.calls.length).toBe(calls + 1);
      expect(s.check(schema, { a: 1 }, '/params/arguments').notChecked?.rule).toBe('lint/schema-not-compiled');
      // …and it is not compiled again.
      expect(compile.mock.calls.length).toBe(calls + 1);
    }
  });

  it('what is not a schema object is not compiled, and nothing is said', () => {
    const s = new ToolSchemas();
    const compile = vi.spyOn(ajvCore, 'compile');
    for (const schema of [undefined, null, true, 'object', 3, [{ type: 'object' }]]) expect(s.check(schema, 5, '')).toEqual({});
    expect(compile).not.toHaveBeenCalled();
  });
});

describe('dialects by $schema', () => {
  const tuple2020 = { type: 'array', prefixItems: [{ type: 'number' }] };
  const tuple07 = { type: 'array', items: [{ type: 'number' }] };

  it('2020-12 (and 2019-09) schemas get ajv’s 2020 dialect: prefixItems is a keyword', () => {
    const s = new ToolSchemas();
    expect(errorOf(s, { $schema: 'https://json-schema.org/draft/2020-12/schema', ...tuple2020 }, ['x'])).toEqual({
      path: '/a/0',
      expected: 'a number',
    });
    expect(errorOf(s, { $schema: 'https://json-schema.org/draft/2020-12/schema', ...tuple2020 }, [1])).toBeUndefined();
    // 2019-09 goes to the same instance: draft-07's tuple form does not compile there.
    expect(s.check({ $schema: 'https://json-schema.org/draft/2019-09/schema', ...tuple07 }, [], '').notChecked?.rule).toBe(
      'lint/schema-not-compiled',
    );
  });

  it('draft-07 (or no $schema) gets the draft-07 dialect: prefixItems means nothing, items may be a tuple', () => {
    const s = new ToolSchemas();
    expect(errorOf(s, tuple2020, ['x'])).toBeUndefined();
    expect(errorOf(s, { $schema: 'http://json-schema.org/draft-07/schema#', ...tuple07 }, ['x'])).toEqual({
      path: '/a/0',
      expected: 'a number',
    });
    expect(errorOf(s, tuple07, ['x'])).toEqual({ path: '/a/0', expected: 'a number' });
  });
});

describe('messages and pointers', () => {
  const P = '/params/arguments';
  const s = new ToolSchemas();
  const err = (schema: object, value: unknown) => errorOf(s, schema, value, P);

  it('a valid value has no error', () => {
    expect(err({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }, { a: 1 })).toBeUndefined();
  });

  it('required: the pointer names the missing property (~ and / escaped)', () => {
    expect(err({ type: 'object', required: ['city'] }, {})).toEqual({
      path: `${P}/city`,
      expected: 'a value (required property is missing)',
    });
    expect(err({ type: 'object', required: ['a/b~c'] }, {})).toEqual({
      path: `${P}/a~1b~0c`,
      expected: 'a value (required property is missing)',
    });
    expect(err({ type: 'object', properties: { o: { type: 'object', required: ['k'] } } }, { o: {} })?.path).toBe(`${P}/o/k`);
  });

  it('additionalProperties: the pointer names the extra property (~ and / escaped)', () => {
    expect(err({ type: 'object', additionalProperties: false }, { 'x/y~z': 1 })).toEqual({
      path: `${P}/x~1y~0z`,
      expected: 'no such property (additionalProperties is false)',
    });
  });

  it('type: a / an, and several types joined with "or"', () => {
    expect(err({ type: 'object', properties: { n: { type: 'number' } } }, { n: 'x' })).toEqual({ path: `${P}/n`, expected: 'a number' });
    expect(err({ type: 'integer' }, 1.5)).toEqual({ path: P, expected: 'an integer' });
    expect(err({ type: 'object' }, [])).toEqual({ path: P, expected: 'an object' });
    expect(err({ type: ['string', 'number'] }, {})).toEqual({ path: P, expected: 'a string or number' });
    // A nested property whose name has / in it: ajv's instancePath is escaped already.
    expect(err({ type: 'object', properties: { 'x/y': { type: 'integer' } } }, { 'x/y': 'a' })?.path).toBe(`${P}/x~1y`);
    expect(err({ type: 'array', items: { type: 'boolean' } }, [true, 'no'])).toEqual({ path: `${P}/1`, expected: 'a boolean' });
  });

  it('enum: the allowed values, from the schema', () => {
    expect(err({ type: 'object', properties: { unit: { enum: ['c', 'f'] } } }, { unit: 'k' })).toEqual({
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
      const e = err(schema, value);
      expect(e, JSON.stringify(schema)).toBeDefined();
      expect(e?.expected).not.toContain('MARKER');
      expect(e?.path).toBe(P);
    }
    expect(err({ type: 'number', minimum: 5 }, 3)?.expected).toBe('a value that must be >= 5');
    expect(err({ type: 'string', format: 'email' }, 'x')?.expected).toBe('a value that must match format "email"');
    expect(err({ type: 'string', pattern: '^a' }, 'b')?.expected).toBe('a value that must match pattern "^a"');
  });
});

describe('patterns run on RE2: linear time, never backtracking (issue 26)', () => {
  /** Runs a test's checks under a 5 s guard: a backtracking engine fails the test instead of hanging it. */
  const quick = (checks: () => void) => expect(bounded(checks, 5_000)).not.toBe(TIMED_OUT);

  it('"^(a+)+$" against 40 a’s and a "!": an error at once, with no time guard needed', () => {
    const s = new ToolSchemas();
    const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
    // V8's RegExp takes for ever here (2^40 ways to split the a's).
    quick(() => {
      expect(errorOf(s, schema, { s: `${'a'.repeat(40)}!` })).toEqual({
        path: '/a/s',
        expected: 'a value that must match pattern "^(a+)+$"',
      });
      expect(errorOf(s, schema, { s: 'a'.repeat(40) })).toBeUndefined();
    });
    expect(s.stopped).toBe(0);
  });

  it('the sloppy patterns of real schemas (5–6 s each on V8 with 27 characters) answer at once, right', () => {
    const s = new ToolSchemas();
    const cases: [string, string, boolean][] = [
      ['^([a-zA-Z0-9]+\\.?)+$', `${'a'.repeat(26)}!`, false],
      ['^([a-zA-Z0-9]+\\.?)+$', 'api.example.com', true],
      ['^(\\w+\\s?)+$', `${'word '.repeat(5)}x!`, false],
      ['^(\\w+\\s?)+$', 'two words', true],
    ];
    quick(() => {
      for (const [pattern, value, ok] of cases) {
        const schema = { type: 'string', pattern };
        expect(errorOf(s, schema, value) === undefined, `${pattern} ${value}`).toBe(ok);
      }
    });
    expect(s.stopped).toBe(0);
  });

  it('patternProperties and propertyNames use RE2 too', () => {
    const s = new ToolSchemas();
    const schema = { type: 'object', patternProperties: { '^(x+)+$': { type: 'number' } }, propertyNames: { pattern: '^(x+)+y?$' } };
    quick(() => {
      expect(errorOf(s, schema, { [`${'x'.repeat(40)}`]: 1 })).toBeUndefined();
      expect(errorOf(s, schema, { [`${'x'.repeat(40)}`]: 'one' })?.expected).toBe('a number');
      expect(errorOf(s, schema, { [`${'x'.repeat(40)}!`]: 1 })?.expected).toBe('a value that must match pattern "^(x+)+y?$"');
    });
    expect(s.stopped).toBe(0);
  });

  it('JavaScript spellings RE2 spells differently still work: named groups, \\u{…}, \\d, anchors', () => {
    const s = new ToolSchemas();
    expect(errorOf(s, { type: 'string', pattern: '^(?<year>\\d{4})-\\d{2}$' }, '2026-12')).toBeUndefined();
    expect(errorOf(s, { type: 'string', pattern: '^(?<year>\\d{4})-\\d{2}$' }, '26-12')).toBeDefined();
    expect(errorOf(s, { type: 'string', pattern: '^\\u{1F600}+$' }, '😀😀')).toBeUndefined();
    expect(errorOf(s, { type: 'string', pattern: '\\u0041' }, 'xAx')).toBeUndefined();
    // Unanchored, as JSON Schema says: a match anywhere is enough.
    expect(errorOf(s, { type: 'string', pattern: 'b+' }, 'abba')).toBeUndefined();
  });

  it('a pattern RE2 cannot run (lookaround, backreferences) is listed, never checked, and the rest of the schema still is', () => {
    const s = new ToolSchemas();
    const schema = {
      type: 'object',
      properties: { a: { type: 'string', pattern: '^(?=x)x+$' }, b: { type: 'string', pattern: '(.)\\1' }, n: { type: 'number' } },
    };
    const ok = s.check(schema, { a: 'no', b: 'ab', n: 1 }, '/a');
    expect(ok.error).toBeUndefined();
    expect(ok.uncheckable).toEqual(['^(?=x)x+$', '(.)\\1']);
    const bad = s.check(schema, { a: 'no', n: 'one' }, '/a');
    expect(bad.error).toEqual({ path: '/a/n', expected: 'a number' });
    expect(bad.uncheckable).toEqual(['^(?=x)x+$', '(.)\\1']);
  });

  it('two schemas with different patterns get their own patterns (ajv keys its scope by the pattern’s text)', () => {
    const s = new ToolSchemas();
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: '^a$' }, b: { type: 'string', pattern: '^b$' } } };
    expect(errorOf(s, schema, { a: 'a', b: 'b' })).toBeUndefined();
    expect(errorOf(s, schema, { a: 'a', b: 'a' })?.path).toBe('/a/b');
  });
});

describe('which checks need the time guard (0.1 ms each)', () => {
  it('none for the schemas real servers send: plain, pydantic-style $defs and $ref, linear formats', () => {
    const s = warm();
    const item = {
      type: 'object',
      properties: { name: { type: 'string', pattern: '^[a-z]+$' }, at: { type: 'string', format: 'date-time' } },
    };
    const schemas = [
      { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      { $defs: { Item: item }, type: 'object', properties: { items: { type: 'array', items: { $ref: '#/$defs/Item' } } } },
      { type: 'object', properties: { to: { type: 'string', format: 'email' }, host: { type: 'string', format: 'hostname' } } },
    ];
    const values = [{ text: 'hi' }, { items: [{ name: 'a', at: '2026-12-01T10:00:00Z' }] }, { to: 'a@example.com', host: 'example.com' }];
    schemas.forEach((schema, i) => expect(s.check(schema, values[i], '/a')).toEqual({}));
    expect(s.check(schemas[1], { items: [{ name: 'A' }] }, '/a').error?.path).toBe('/a/items/0/name');
    expect(s.guarded).toBe(0);
  });

  it('every check of a recursive schema, a duration format or uniqueItems, and of a value too large for the bound', () => {
    const s = warm();
    const recursive = { $defs: { n: { type: 'object', properties: { next: { $ref: '#/$defs/n' } } } }, $ref: '#/$defs/n' };
    s.check(recursive, { next: {} }, '');
    s.check({ type: 'string', format: 'duration' }, 'P1D', '');
    s.check({ type: 'array', uniqueItems: true }, [1, 2], '');
    expect(s.guarded).toBe(3);
    // A plain schema, with a value large enough that schema × value passes 2^20.
    s.check({ type: 'object', properties: { text: { type: 'string' } } }, { text: 'x'.repeat(100_000) }, '');
    expect(s.guarded).toBe(4);
  });
});

describe('what a schema cannot do to the thread (issue 26)', () => {
  /** How long a call took (ms). */
  const timed = <T>(f: () => T): [T, number] => {
    const t = performance.now();
    const r = f();
    return [r, performance.now() - t];
  };

  it('a schema over the size limits is not compiled at all: lint/schema-too-large, said for what it is', () => {
    const s = new ToolSchemas();
    const compile = vi.spyOn(ajvCore, 'compile');
    // 3,000 properties: ~12,000 JSON values (6.3 s in ajv before, then a failure and 1.7 MB of its code on stderr).
    const many = s.check(wide(3_000), { p0: 'a0' }, '/r');
    expect(many.notChecked).toEqual({
      rule: 'lint/schema-too-large',
      detail: 'it is over 4,000 JSON values, more than mcpscope compiles',
    });
    const long = s.check(fresh({ description: 'd'.repeat(MAX_SCHEMA_BYTES) }), {}, '/r');
    expect(long.notChecked?.rule).toBe('lint/schema-too-large');
    expect(long.notChecked?.detail).toMatch(/^it is 25\d KB of JSON/);
    expect(compile).not.toHaveBeenCalled();
  });

  it('a compile that runs too long is stopped (lint/schema-too-slow), tried once more, then never again', () => {
    const s = new ToolSchemas();
    // 900 properties (3,600 values, under the limit): ajv needs well over COMPILE_MS for it.
    const schema = wide(900);
    const [first, ms] = timed(() => s.check(schema, {}, '/r'));
    expect(first.notChecked).toEqual({
      rule: 'lint/schema-too-slow',
      detail: `compiling it took longer than ${COMPILE_MS} ms, so mcpscope stopped (it tries once more when a later message needs it)`,
    });
    expect(s.stopped).toBe(1);
    // Stopped at the limit, not run to the end (seconds); generous, for a loaded 2-core VM.
    expect(ms).toBeLessThan(COMPILE_MS + 1_500);
    const second = s.check(JSON.parse(JSON.stringify(schema)), {}, '/r');
    expect(second.notChecked?.detail).toBe(
      `compiling it took longer than ${COMPILE_MS} ms, so mcpscope stopped, and checks nothing more against this schema`,
    );
    expect(s.stopped).toBe(2);
    const compile = vi.spyOn(ajvCore, 'compile');
    expect(s.check(schema, {}, '/r').notChecked?.rule).toBe('lint/schema-too-slow');
    expect(compile).not.toHaveBeenCalled();
    expect(s.stopped).toBe(2);
    // The checker goes on working after the stops.
    expect(errorOf(s, { type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(30)}!`)).toBeDefined();
  });

  it('a check that runs too long is stopped: anyOf over a recursive $ref is exponential in the value’s depth', () => {
    const s = new ToolSchemas();
    // Each level tries branch 1 (which checks the whole subtree, then fails on b) and then branch 2
    // (which checks the subtree again): 2^depth. 100 bytes of schema, 30 levels of value.
    const schema = {
      $defs: {
        node: {
          anyOf: [
            { type: 'object', properties: { a: { $ref: '#/$defs/node' }, b: { type: 'number' } } },
            { type: 'object', properties: { a: { $ref: '#/$defs/node' } } },
          ],
        },
      },
      $ref: '#/$defs/node',
      title: `deep-${++n}`,
    };
    let value: Record<string, unknown> = { b: 'x' };
    for (let i = 0; i < 30; i++) value = { a: value, b: 'x' };
    const [first, ms] = timed(() => s.check(schema, value, '/r'));
    expect(first.notChecked?.rule).toBe('lint/schema-too-slow');
    expect(first.notChecked?.detail).toBe(
      'checking a value against it took longer than 50 ms, so mcpscope stopped (it tries once more when a later message needs it)',
    );
    expect(ms).toBeLessThan(2_000);
    expect(s.stopped).toBe(1);
    // A second try: a cheap value is checked; the deep one is stopped again, and then nothing more is checked.
    expect(s.check(schema, {}, '/r')).toEqual({});
    expect(s.check(schema, value, '/r').notChecked?.detail).toMatch(/so mcpscope stopped, and checks nothing more against this schema$/);
    expect(s.stopped).toBe(2);
    expect(s.check(schema, {}, '/r').notChecked?.rule).toBe('lint/schema-too-slow');
    expect(s.stopped).toBe(2);
  });

  it('uniqueItems over a long array of objects (quadratic in ajv) is checked under the guard', () => {
    const s = new ToolSchemas();
    const schema = { type: 'array', uniqueItems: true, items: { type: 'object' }, title: `uniq-${++n}` };
    expect(errorOf(s, schema, [{ a: 1 }, { a: 1 }])).toBeDefined();
    const many = Array.from({ length: 40_000 }, (_, i) => ({ i }));
    const [r, ms] = timed(() => s.check(schema, many, '/r'));
    expect(r.notChecked?.rule).toBe('lint/schema-too-slow');
    expect(ms).toBeLessThan(2_000);
  });

  it('after a stop, the schemas compiled before still check right (they are compiled again, with fresh patterns)', () => {
    const s = new ToolSchemas();
    const kept = { type: 'object', properties: { s: { type: 'string', pattern: '^(b+)+$' } }, title: `kept-${++n}` };
    expect(errorOf(s, kept, { s: 'bbb!' })).toBeDefined();
    s.check(wide(900), {}, '/r');
    expect(s.stopped).toBe(1);
    const compile = vi.spyOn(ajvCore, 'compile');
    expect(errorOf(s, kept, { s: 'bbb!' })).toBeDefined();
    expect(errorOf(s, kept, { s: 'bbb' })).toBeUndefined();
    // The new ajv instance's warm-up (a schema of mcpscope's), then `kept`.
    expect(compile).toHaveBeenCalledTimes(2);
    expect(compile.mock.calls[1][0]).toStrictEqual(kept);
  });

  it('compile time is budgeted: a server sending new schemas all the time gets them compiled as the budget refills', () => {
    let now = 0;
    const s = new ToolSchemas(() => now);
    // The ajv instance (and its warm-up compile) exists before the clock runs.
    expect(errorOf(s, fresh({ required: ['x'] }), {})).toBeDefined();
    // Each compile "takes" 300 ms of the clock the budget reads.
    const original = ajvCore.compile;
    const compile = vi.spyOn(ajvCore, 'compile').mockImplementation(function (this: unknown, ...args: unknown[]) {
      now += 300;
      return original.apply(this, args);
    });
    const schemas = Array.from({ length: 6 }, () => fresh({ required: ['x'] }));
    const results = schemas.map((schema) => s.check(schema, {}, '/r'));
    // 1,000 ms of budget: compiles run while some is left (the fourth overdraws it), then none.
    expect(results.map((r) => (r.error ? 'checked' : r.notChecked?.rule))).toEqual([
      'checked',
      'checked',
      'checked',
      'checked',
      'lint/compile-budget',
      'lint/compile-budget',
    ]);
    expect(results[4].notChecked?.detail).toBe(
      `mcpscope has spent its time for compiling schemas for now (${BUDGET_MS} ms, back at ${REFILL_MS_PER_S} ms a second); it is compiled when a later message needs it`,
    );
    expect(compile).toHaveBeenCalledTimes(4);
    // Time refills it (0.1 ms a ms, also while compiling): it stood at -80 ms after the fourth
    // compile. 500 ms later it is at -30 (nothing), 500 ms after that at +20: one more compile.
    const waiting = fresh({ required: ['x'] });
    now += 500;
    expect(s.check(waiting, {}, '/r').notChecked?.rule).toBe('lint/compile-budget');
    now += 500;
    expect(s.check(waiting, {}, '/r').error).toBeDefined();
    // Spent again: a schema compiled before is still checked, a new one waits.
    expect(s.check(fresh(), {}, '/r').notChecked?.rule).toBe('lint/compile-budget');
    expect(s.check(schemas[0], {}, '/r').error).toBeDefined();
    expect(compile).toHaveBeenCalledTimes(5);
  });

  it('ajv writes nothing to the console or stderr, whatever it is given', () => {
    const s = new ToolSchemas();
    const spies = [
      vi.spyOn(console, 'log'),
      vi.spyOn(console, 'warn'),
      vi.spyOn(console, 'error'),
      vi.spyOn(process.stderr, 'write'),
      vi.spyOn(process.stdout, 'write'),
    ];
    s.check(fresh({ type: 'no-such-type' }), {}, '');
    s.check(fresh({ unknownKeyword: true, properties: { a: { $ref: 'http://example.invalid/s.json' } } }), {}, '');
    s.check(wide(900), {}, '');
    s.check(fresh({ format: 'no-such-format' }), 'x', '');
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });
});
