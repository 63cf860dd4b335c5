/**
 * How much a JSON Schema and a value can cost to check, measured before any checking.
 * Pure and bounded: each walk stops once it has seen more than its limit.
 *
 * A schema is *bounded* when checking a value against it costs at most about
 * (its weight × the value's size), where its weight is the size of its JSON text with every `$ref`
 * replaced by what it points to: every keyword applies each of its subschemas to each part of the
 * value at most once, a reference is a call to its target (ajv's `inlineRefs: false`), and
 * `pattern` runs on RE2 (schema-regexp.ts), linear in the string. What breaks that:
 *
 * - a reference that is not a local JSON pointer (`#/$defs/x`), one in a schema with an `$id` below
 *   its root (the pointer's base moves), or references that go round in a circle (a recursive
 *   schema is exponential with `anyOf`: each level checks its subtree twice) — or whose expansion
 *   is larger than the limit;
 * - `$dynamicRef`, `$recursiveRef`;
 * - `uniqueItems: true` (ajv compares objects pairwise: quadratic in an array's length);
 * - a `format` that is not linear (schema-formats.ts's BOUNDED_FORMATS).
 *
 * Any other schema may cost anything, so its checks run under the time guard. The tests are on
 * key names anywhere in the schema, property names included: a false "unbounded" only costs the
 * guard's 0.1 ms.
 */

export interface SchemaMeasure {
  /** JSON values in the schema (objects, arrays and scalars), up to the limit. */
  nodes: number;
  /** More than the limit: `nodes` is where the walk stopped. */
  overLimit: boolean;
  /** Checking against it costs at most about `weight` × the value's size: see above. */
  bounded: boolean;
  /** The schema's size with its references expanded (one per value, plus its strings' and keys' characters); Infinity when not bounded. */
  weight: number;
}

const UNBOUNDED = { bounded: false, weight: Infinity } as const;
/** Deepest chain of references followed before the schema counts as unbounded. */
const MAX_REF_DEPTH = 256;

export function measureSchema(
  schema: unknown,
  maxNodes: number,
  boundedFormats: ReadonlySet<string> = new Set(),
  maxWeight = Infinity,
): SchemaMeasure {
  let nodes = 0;
  let bounded = true;
  let refs = false;
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const v = stack.pop();
    if (++nodes > maxNodes) return { nodes, overLimit: true, ...UNBOUNDED };
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      if (stack.length + v.length > maxNodes) return { nodes: nodes + stack.length + v.length, overLimit: true, ...UNBOUNDED };
      for (const item of v) stack.push(item);
      continue;
    }
    const o = v as Record<string, unknown>;
    for (const k in o) {
      const item = o[k];
      if (bounded) {
        if (k === '$ref') refs = true;
        else if (k === '$dynamicRef' || k === '$recursiveRef') bounded = false;
        else if (k === 'uniqueItems' && item === true) bounded = false;
        else if (k === 'format' && !(typeof item === 'string' && boundedFormats.has(item))) bounded = false;
        else if ((k === '$id' || k === 'id') && v !== schema && typeof item === 'string') bounded = false;
      }
      stack.push(item);
      if (stack.length > maxNodes) return { nodes: nodes + stack.length, overLimit: true, ...UNBOUNDED };
    }
  }
  if (!bounded) return { nodes, overLimit: false, ...UNBOUNDED };
  const weight = expandedWeight(schema, refs, maxWeight);
  return { nodes, overLimit: false, bounded: weight !== Infinity, weight };
}

/**
 * The schema's weight with its local references expanded (each target counted where it is used,
 * once per use, as checking does): Infinity for a reference that is not a local pointer, a cycle,
 * a chain deeper than MAX_REF_DEPTH, or more than `maxWeight`. Each object is weighed once (memo),
 * so this costs O(schema), not O(expansion).
 */
function expandedWeight(root: unknown, refs: boolean, maxWeight: number): number {
  const memo = new Map<object, number>();
  const visiting = new Set<object>();
  const weigh = (v: unknown, depth: number): number => {
    if (typeof v === 'string') return 1 + v.length;
    if (typeof v !== 'object' || v === null) return 1;
    const known = memo.get(v);
    if (known !== undefined) return known;
    if (visiting.has(v) || depth > MAX_REF_DEPTH) return Infinity;
    visiting.add(v);
    let w = 1;
    if (Array.isArray(v)) for (const item of v) w += weigh(item, depth + 1);
    else
      for (const k in v) {
        const item = (v as Record<string, unknown>)[k];
        w += k.length + 1 + weigh(item, depth + 1);
        if (refs && k === '$ref') w += typeof item === 'string' ? weighTarget(item, depth) : Infinity;
        if (w > maxWeight) break;
      }
    visiting.delete(v);
    const out = w > maxWeight ? Infinity : w;
    memo.set(v, out);
    return out;
  };
  const weighTarget = (ref: string, depth: number): number => {
    const target = resolvePointer(root, ref);
    return target === undefined ? Infinity : weigh(target, depth + 1);
  };
  return weigh(root, 0);
}

/** The part of `root` a local JSON-pointer reference (`#`, `#/a/b~1c`, percent-encoded) names; undefined for any other. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let part: string;
    try {
      part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (typeof at !== 'object' || at === null || !Object.prototype.hasOwnProperty.call(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
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
