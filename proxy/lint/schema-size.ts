/**
 * How much a JSON Schema and a value can cost to check, measured before any checking (issue 26).
 * Pure, iterative (a peer's value is at most MAX_JSON_DEPTH deep, but nothing here recurses), and
 * bounded: each walk stops once it has seen more than its limit.
 *
 * A schema is *bounded* when checking a value against it costs at most about
 * (schema size × value size): no `$ref`/`$dynamicRef`/`$recursiveRef` (a reference may be
 * recursive, or expand a small schema into an exponential tree), no `uniqueItems` (ajv compares
 * objects pairwise: quadratic in an array's length) and no `format` (ajv-formats' expressions are
 * V8's backtracking RegExp). Every other keyword applies each of its subschemas to each part of
 * the value at most once, and `pattern` runs on RE2 (schema-regexp.ts), linear in the string. Any
 * other schema may cost anything, so its checks always run under the time guard. The test is on
 * key names anywhere in the schema, property names included: a false "unbounded" only costs the
 * guard's 0.1 ms.
 */

const UNBOUNDED_KEYS = new Set(['$ref', '$dynamicRef', '$recursiveRef', 'uniqueItems', 'format']);

export interface SchemaMeasure {
  /** JSON values in the schema (objects, arrays and scalars), up to the limit. */
  nodes: number;
  /** More than the limit: `nodes` is where the walk stopped. */
  overLimit: boolean;
  /** Checking against it costs at most about (schema size × value size): see above. */
  bounded: boolean;
}

export function measureSchema(schema: unknown, maxNodes: number): SchemaMeasure {
  let nodes = 0;
  let bounded = true;
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const v = stack.pop();
    if (++nodes > maxNodes) return { nodes, overLimit: true, bounded: false };
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      if (stack.length + v.length > maxNodes) return { nodes: nodes + stack.length + v.length, overLimit: true, bounded: false };
      for (const item of v) stack.push(item);
      continue;
    }
    for (const k in v) {
      if (bounded && UNBOUNDED_KEYS.has(k)) bounded = false;
      stack.push((v as Record<string, unknown>)[k]);
      if (stack.length > maxNodes) return { nodes: nodes + stack.length, overLimit: true, bounded: false };
    }
  }
  return { nodes, overLimit: false, bounded };
}

/**
 * The size of a value as checking sees it: one per JSON value plus the length of every string and
 * key (what a pattern or a comparison reads). Stops past `limit` (and returns more than it).
 */
export function valueWork(value: unknown, limit: number): number {
  let work = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    work += 1;
    if (typeof v === 'string') work += v.length;
    if (work > limit) return work;
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      if (work + v.length > limit) return work + v.length;
      for (const item of v) stack.push(item);
      continue;
    }
    for (const k in v) {
      work += k.length + 1;
      if (work > limit) return work;
      stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return work;
}
