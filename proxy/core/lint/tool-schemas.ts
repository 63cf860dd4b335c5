/**
 * Checking a value against a tool's JSON Schema (`inputSchema`, `outputSchema` from tools/list)
 * with ajv — strict mode off, formats from ajv-formats, as the SDK does — without letting a peer's
 * schema hold the thread. A server chooses both the schema and the value, so:
 *
 * - `pattern` and `patternProperties` run on RE2 (schema-regexp.ts): linear, never backtracking.
 *   A pattern RE2 cannot express (lookaround, backreferences) is skipped and said (`uncheckable`).
 * - A schema over MAX_SCHEMA_BYTES of JSON or MAX_SCHEMA_NODES values is not compiled
 *   (`lint/schema-too-large`): ajv's compile time grows faster than the schema.
 * - A compile runs under the time guard (time-guard.ts, COMPILE_MS; each ajv instance compiles a
 *   schema of ours first, so that a cold process's first compiles are not slow) and draws on a budget of
 *   compile time that refills slowly (BUDGET_MS, REFILL_MS_PER_S): a server that sends new schemas
 *   on every tools/list gets its schemas checked as the budget allows (`lint/compile-budget`), and
 *   never more than a tenth of the thread's time once the budget is spent.
 * - A check runs under the time guard too (CHECK_MS) unless its cost is bounded in advance: a
 *   bounded schema (schema-size.ts: local, acyclic references expanded; only linear formats,
 *   schema-formats.ts) whose weight times the value's size stays under FAST_WORK. A compile
 *   or check stopped gives `lint/schema-too-slow`; the schema gets one more try (a busy machine can
 *   slow anything down), and after a second stop it is not checked again.
 * - The compiled schemas are kept in one cache keyed by the schema's text, least recently used
 *   first out, bounded by count (MAX_COMPILED) and by text (MAX_CACHED_TEXT), shared by all sessions;
 *   schemas that cannot be checked are remembered in it too.
 *
 * ajv never writes to stderr here (`logger: false`): a schema it cannot compile is a
 * `lint/schema-not-compiled` note, not 1.7 MB of generated code on the terminal.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { BOUNDED_FORMATS, addSchemaFormats } from './schema-formats.js';
import { collectUncheckable, forgetPatterns, re2Engine } from './schema-regexp.js';
import { measureSchema, valueWork } from './schema-size.js';
import { TIMED_OUT, bounded } from './time-guard.js';

/** Compiled (or uncheckable) schemas kept at most. */
export const MAX_COMPILED = 256;
/** Schema text kept in the cache at most, all entries together. */
export const MAX_CACHED_TEXT = 16 * 1024 * 1024;
/** The largest schema compiled: its JSON text, and its number of JSON values. */
export const MAX_SCHEMA_BYTES = 256 * 1024;
export const MAX_SCHEMA_NODES = 4_000;
/** How long one compile, and one check, may take before it is stopped (ms). */
export const COMPILE_MS = 100;
export const CHECK_MS = 50;
/** Stops a schema may have (a compile or a check each): after the first it gets one more try. */
export const MAX_STRIKES = 2;
/** Compile time that may be spent at once, and how fast that allowance comes back (ms, ms per second). */
export const BUDGET_MS = 1_000;
export const REFILL_MS_PER_S = 100;
/** Below this (a bounded schema's weight × the value's size, schema-size.ts) a check runs without the guard. */
export const FAST_WORK = 1 << 20;

/** Why a value was not checked against its schema: a `lint/…` note (rules.ts). */
export type NotCheckedRule = 'lint/schema-too-large' | 'lint/schema-too-slow' | 'lint/schema-not-compiled' | 'lint/compile-budget';

export interface SchemaOutcome {
  /** The first error, when the value does not match: a pointer under the prefix, and what was expected. */
  error?: { path: string; expected: string };
  /** The value was not checked at all: why (`detail` in plain words, finishing the sentence "… because …"). */
  notChecked?: { rule: NotCheckedRule; detail: string };
  /** Patterns of the schema RE2 cannot check: the rest of the schema was checked. */
  uncheckable?: readonly string[];
}

const options: Options = {
  strict: false,
  validateFormats: true,
  validateSchema: false,
  allErrors: false,
  addUsedSchema: false,
  logger: false,
  // A reference is a call, never a copy: compile time stays proportional to the schema.
  inlineRefs: false,
  // ajv's optimizing pass triples the compile time and saves little when checking.
  code: { regExp: re2Engine, optimize: false },
};
type AjvLike = Ajv | Ajv2020;

interface Entry {
  text: number;
  validate?: ValidateFunction;
  ajv?: AjvLike;
  schema?: object;
  /** A bounded schema's weight (schema-size.ts; Infinity or absent: not bounded): checks below FAST_WORK need no guard. */
  weight?: number;
  uncheckable?: readonly string[];
  notChecked?: SchemaOutcome['notChecked'];
  /** Times a compile or check of it was stopped (MAX_STRIKES: not tried again). */
  strikes?: number;
}

/** What a schema object is to the cache: its key, or why it is not compiled at all. */
interface Identity {
  key?: string;
  /** Its weight when bounded (schema-size.ts), else Infinity. */
  weight?: number;
  notChecked?: SchemaOutcome['notChecked'];
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The clock the budget runs on (ms); tests give their own. */
export type Clock = () => number;

export class ToolSchemas {
  private draft7: Ajv | undefined;
  private draft2020: Ajv2020 | undefined;
  private readonly cache = new Map<string, Entry>();
  private readonly identities = new WeakMap<object, Identity>();
  private cachedText = 0;
  private budget = BUDGET_MS;
  private budgetAt: number;
  /** Checks and compiles stopped by the guard (for tests and the bench). */
  stopped = 0;
  /** Checks run under the guard: their cost was not bounded in advance (for tests and the bench). */
  guarded = 0;

  constructor(private readonly clock: Clock = () => performance.now()) {
    this.budgetAt = clock();
  }

  /** Checks `value` against `schema`; a schema that is not an object is not checked (nothing to say). */
  check(schema: unknown, value: unknown, prefix: string): SchemaOutcome {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return {};
    const seen = this.identify(schema);
    if (seen.notChecked) return { notChecked: seen.notChecked };
    const key = seen.key!;
    let entry = this.cache.get(key);
    if (entry && !(entry.notChecked && entry.strikes !== undefined && entry.strikes < MAX_STRIKES)) {
      this.cache.delete(key);
      this.cache.set(key, entry);
    } else {
      // Not seen yet, or stopped once: a busy machine can make an ordinary schema slow, so it gets a second try.
      const again = this.compile(key, schema, seen.weight ?? Infinity, entry?.strikes ?? 0);
      if (!again) return { notChecked: entry?.notChecked ?? budgetSpent() };
      entry = again;
    }
    if (entry.notChecked) return { notChecked: entry.notChecked };
    const validate = entry.validate!;
    const weight = entry.weight ?? Infinity;
    const fast = weight <= FAST_WORK && weight * valueWork(value, Math.floor(FAST_WORK / weight)) <= FAST_WORK;
    if (!fast) this.guarded += 1;
    const valid = fast ? validate(value) : bounded(() => validate(value), CHECK_MS);
    if (valid === TIMED_OUT) {
      const strikes = (entry.strikes ?? 0) + 1;
      this.stop(key, strikes, `checking a value against it took longer than ${CHECK_MS} ms, so mcpscope stopped${last(strikes)}`);
      return { notChecked: this.cache.get(key)!.notChecked };
    }
    const out: SchemaOutcome = entry.uncheckable?.length ? { uncheckable: entry.uncheckable } : {};
    if (!valid) {
      const err = validate.errors?.[0];
      if (err) out.error = describe(err, prefix);
    }
    return out;
  }

  /**
   * A schema object's cache key (its JSON text) and shape, worked out once per object (a session
   * keeps the objects of its last tools/list): the size limits are checked before any text is made.
   */
  private identify(schema: object): Identity {
    let seen = this.identities.get(schema);
    if (seen) return seen;
    const tooLarge = (what: string): Identity => ({
      notChecked: { rule: 'lint/schema-too-large', detail: `it is ${what}, more than mcpscope compiles` },
    });
    const size = measureSchema(schema, MAX_SCHEMA_NODES, BOUNDED_FORMATS, FAST_WORK);
    if (size.overLimit) seen = tooLarge(`over ${MAX_SCHEMA_NODES.toLocaleString('en-US')} JSON values`);
    else {
      const key = JSON.stringify(schema);
      seen = key.length > MAX_SCHEMA_BYTES ? tooLarge(`${Math.round(key.length / 1024)} KB of JSON`) : { key, weight: size.weight };
    }
    this.identities.set(schema, seen);
    return seen;
  }

  /** Compiled (and remembered) schemas in the cache now. */
  get size(): number {
    return this.cache.size;
  }

  /** The entry for a schema not compiled yet, or undefined when the compile budget is spent. */
  private compile(key: string, schema: object, weight: number, strikes: number): Entry | undefined {
    if (!this.spend()) return undefined;
    const ajv = this.ajvFor(schema as Record<string, unknown>);
    const started = this.clock();
    const run = bounded(
      () =>
        collectUncheckable(() => {
          try {
            return ajv.compile(schema);
          } catch (err) {
            return err instanceof Error ? err : new Error(String(err));
          }
        }),
      COMPILE_MS,
    );
    this.budget -= this.clock() - started;
    if (run === TIMED_OUT) {
      this.stop(key, strikes + 1, `compiling it took longer than ${COMPILE_MS} ms, so mcpscope stopped${last(strikes + 1)}`);
      return this.cache.get(key);
    }
    if (run.result instanceof Error) {
      return this.remember(key, {
        text: key.length,
        notChecked: { rule: 'lint/schema-not-compiled', detail: `ajv cannot compile it (${clip(run.result.message, 200)})` },
      });
    }
    return this.remember(key, {
      text: key.length,
      validate: run.result,
      ajv,
      schema,
      weight,
      ...(strikes > 0 ? { strikes } : {}),
      ...(run.uncheckable.length > 0 ? { uncheckable: run.uncheckable } : {}),
    });
  }

  /**
   * A compile or check of `key` was stopped: ajv's state and RE2's automata may be half-built, so
   * every compiled schema is dropped (compiled again when next needed) and new instances made; the
   * schema keeps its strikes, and is not tried again after MAX_STRIKES.
   */
  private stop(key: string, strikes: number, detail: string): void {
    this.stopped += 1;
    this.draft7 = undefined;
    this.draft2020 = undefined;
    forgetPatterns();
    for (const [k, entry] of [...this.cache]) if (entry.validate) this.drop(k, entry);
    const old = this.cache.get(key);
    if (old) this.drop(key, old);
    this.remember(key, { text: key.length, strikes, notChecked: { rule: 'lint/schema-too-slow', detail } });
  }

  /**
   * Whether compile time is left: the allowance comes back at REFILL_MS_PER_S, up to BUDGET_MS. A
   * compile may overdraw it (by COMPILE_MS at most); the next waits until it is positive again.
   */
  private spend(): boolean {
    const now = this.clock();
    this.budget = Math.min(BUDGET_MS, this.budget + ((now - this.budgetAt) * REFILL_MS_PER_S) / 1000);
    this.budgetAt = now;
    return this.budget > 0;
  }

  private ajvFor(schema: Record<string, unknown>): AjvLike {
    const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
    if (dialect.includes('2020-12') || dialect.includes('2019-09')) return (this.draft2020 ??= warmed(new Ajv2020(options)));
    return (this.draft7 ??= warmed(new Ajv(options)));
  }

  private remember(key: string, entry: Entry): Entry {
    this.cache.set(key, entry);
    this.cachedText += entry.text;
    while (this.cache.size > MAX_COMPILED || (this.cachedText > MAX_CACHED_TEXT && this.cache.size > 1)) {
      const [oldKey, old] = this.cache.entries().next().value as [string, Entry];
      this.drop(oldKey, old);
    }
    return entry;
  }

  private drop(key: string, entry: Entry): void {
    this.cache.delete(key);
    this.cachedText -= entry.text;
    if (entry.validate && entry.ajv && entry.schema) entry.ajv.removeSchema(entry.schema);
  }
}

/**
 * A new ajv instance, with its formats, after one compile of a schema of ours (not under the guard:
 * its cost is known). A fresh process's first compiles cost several times the later ones while V8
 * compiles ajv's and RE2's own code, and that must not count against a peer's schema.
 */
function warmed<T extends AjvLike>(ajv: T): T {
  addSchemaFormats(ajv);
  ajv.removeSchema(ajv.compile(WARM_UP).schema as object);
  return ajv;
}

const WARM_UP = {
  type: 'object',
  properties: {
    s: { type: 'string', pattern: '^[a-z]+(-[a-z0-9]+)*$', minLength: 1, maxLength: 64 },
    n: { type: 'integer', minimum: 0, maximum: 100 },
    e: { enum: ['a', 'b'] },
    a: { type: 'array', items: { type: 'object', properties: { k: { type: ['string', 'null'] } }, required: ['k'] } },
    o: { anyOf: [{ type: 'boolean' }, { type: 'object', additionalProperties: { type: 'number' } }] },
  },
  required: ['s'],
  additionalProperties: false,
};

/** What a note says comes next. */
const last = (strikes: number) =>
  strikes >= MAX_STRIKES ? ', and checks nothing more against this schema' : ' (it tries once more when a later message needs it)';

function budgetSpent(): NonNullable<SchemaOutcome['notChecked']> {
  return {
    rule: 'lint/compile-budget',
    detail: `mcpscope has spent its time for compiling schemas for now (${BUDGET_MS} ms, back at ${REFILL_MS_PER_S} ms a second); it is compiled when a later message needs it`,
  };
}

/** The checker the linter uses unless it is given another: one cache for every session. */
export const toolSchemas = new ToolSchemas();

const pointerPart = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The first error as a pointer under `prefix` and what was expected — ajv's messages name keywords,
 * types and the schema's own values, never the data.
 */
function describe(err: ErrorObject, prefix: string): { path: string; expected: string } {
  let path = prefix + err.instancePath;
  if (err.keyword === 'required') {
    const missing = (err.params as { missingProperty?: string }).missingProperty;
    if (missing !== undefined) path += '/' + pointerPart(missing);
    return { path, expected: 'a value (required property is missing)' };
  }
  if (err.keyword === 'additionalProperties') {
    const extra = (err.params as { additionalProperty?: string }).additionalProperty;
    if (extra !== undefined) path += '/' + pointerPart(extra);
    return { path, expected: 'no such property (additionalProperties is false)' };
  }
  if (err.keyword === 'type') {
    const type = String((err.params as { type?: unknown }).type ?? '').replace(/,/g, ' or ');
    return { path, expected: /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}` };
  }
  if (err.keyword === 'enum') {
    const allowed = (err.params as { allowedValues?: unknown[] }).allowedValues ?? [];
    return { path, expected: `one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}` };
  }
  return { path, expected: `a value that ${err.message ?? `passes "${err.keyword}"`}` };
}
