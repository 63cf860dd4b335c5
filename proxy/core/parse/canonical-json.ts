/**
 * JSON with object keys sorted: two values that differ only in key order give the same text
 * (replay's request matching, proxy/core/model/json-diff.ts; the join of model turns to MCP calls,
 * proxy/core/model-api/turn-join.ts). Pure, browser-safe.
 */
import { boundedJsonText, MAX_JSON_DEPTH } from './json-depth.js';

/**
 * JSON text with object keys sorted at every level: equal documents give equal strings. Never
 * throws: past MAX_JSON_DEPTH a part is its unsorted JSON text (bounded), so a deep value cannot
 * overflow the stack in JSON.stringify.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_JSON_DEPTH) return boundedJsonText(value).text;
  if (Array.isArray(value)) return value.map((v) => sortKeys(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value as Record<string, unknown>).sort()) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = sortKeys(v, depth + 1);
  }
  return out;
}
