/**
 * The JSON Schemas of tools (`inputSchema`, `outputSchema` from tools/list), compiled once with ajv
 * (strict mode off, formats from ajv-formats, as the SDK does) and kept in a bounded cache keyed by
 * the schema's text, shared by all sessions. A schema ajv cannot compile is remembered as such and
 * never checked against.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** Compiled schemas kept at most (least recently used dropped, from ajv's own cache too). */
export const MAX_COMPILED = 256;

const options = { strict: false, validateFormats: true, validateSchema: false, allErrors: false, addUsedSchema: false } as const;
type AjvLike = Ajv | Ajv2020;
let draft7: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

const addFormats = addFormatsModule as unknown as (ajv: AjvLike) => void;

function ajvFor(schema: Record<string, unknown>): AjvLike {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (dialect.includes('2020-12') || dialect.includes('2019-09')) {
    if (!draft2020) addFormats((draft2020 = new Ajv2020(options)));
    return draft2020;
  }
  if (!draft7) addFormats((draft7 = new Ajv(options)));
  return draft7;
}

interface Compiled {
  validate?: ValidateFunction;
  ajv?: AjvLike;
  schema: object;
}
const cache = new Map<string, Compiled>();

/** The compiled validator of a JSON Schema (undefined when ajv cannot compile it). */
export function compiled(schema: unknown): ValidateFunction | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit.validate;
  }
  const entry: Compiled = { schema };
  try {
    entry.ajv = ajvFor(schema as Record<string, unknown>);
    entry.validate = entry.ajv.compile(schema);
  } catch {
    entry.validate = undefined;
  }
  cache.set(key, entry);
  while (cache.size > MAX_COMPILED) {
    const [oldKey, old] = cache.entries().next().value as [string, Compiled];
    cache.delete(oldKey);
    if (old.validate && old.ajv) old.ajv.removeSchema(old.schema);
  }
  return entry.validate;
}

/** Compiled schemas in the cache now (for tests). */
export function compiledCount(): number {
  return cache.size;
}

/**
 * The first error of `value` against `schema` as a pointer under `prefix` and what was expected —
 * ajv's messages name keywords, types and the schema's own values, never the data.
 */
export function schemaError(schema: unknown, value: unknown, prefix: string): { path: string; expected: string } | undefined {
  const validate = compiled(schema);
  if (!validate || validate(value)) return undefined;
  const err: ErrorObject | undefined = validate.errors?.[0];
  if (!err) return undefined;
  let path = prefix + err.instancePath;
  if (err.keyword === 'required') {
    const missing = (err.params as { missingProperty?: string }).missingProperty;
    if (missing !== undefined) path += '/' + missing.replace(/~/g, '~0').replace(/\//g, '~1');
    return { path, expected: 'a value (required property is missing)' };
  }
  if (err.keyword === 'additionalProperties') {
    const extra = (err.params as { additionalProperty?: string }).additionalProperty;
    if (extra !== undefined) path += '/' + extra.replace(/~/g, '~0').replace(/\//g, '~1');
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
