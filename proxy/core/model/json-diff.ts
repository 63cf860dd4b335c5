/**
 * Path-level JSON comparison for replay (which recorded request is closest, and how it differs)
 * and verify (what changed between a recording and a live server), plus the canonical form used
 * to match requests regardless of key order.
 *
 * A difference is reported at the deepest path where the two documents part:
 * `tools[name=echo].inputSchema.properties.message.type: "string" → "number"`. Arrays whose
 * elements all carry a unique `name` (tools, prompts, arguments) or `uri` (resources) are
 * compared by that key, so an insertion does not shift every later element and reordering is
 * not a difference; other arrays are compared by position.
 */

import { compileGlob, globMatches, globMatchesPrefix, type Glob, type GlobToken } from './glob.js';
import { boundedJsonText, MAX_JSON_DEPTH } from '../parse/json-depth.js';

export type JsonPathSegment = string | number | { key: 'name' | 'uri'; value: string };

export interface JsonDifference {
  path: JsonPathSegment[];
  /** `changed`: both sides have a value there; `added`: only the second (live, or the client's) has it; `removed`: only the first. */
  kind: 'changed' | 'added' | 'removed';
  before?: unknown;
  after?: unknown;
}

export interface DiffOptions {
  /** Keys skipped wherever they appear (default: `_meta`). */
  ignoreKeys?: ReadonlySet<string>;
  /**
   * Treat volatile-looking values as equal: strings that differ only in UUIDs, ISO-8601 / HTTP
   * timestamps or long hex tokens, and two numbers that both look like epoch milliseconds.
   */
  ignoreVolatile?: boolean;
  /** Stop after this many differences (default: unlimited). */
  limit?: number;
}

const DEFAULT_IGNORED = new Set(['_meta']);

export { canonicalJson } from '../parse/canonical-json.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ISO_TIME = /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g;
const HTTP_DATE = /(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT/g;
const HEX_TOKEN = /\b[0-9a-f]{24,}\b/gi;

/** A string with its volatile parts (UUIDs, timestamps, long hex tokens) replaced by placeholders. */
export function normalizeVolatile(s: string): string {
  return s.replace(UUID, '<uuid>').replace(ISO_TIME, '<time>').replace(HTTP_DATE, '<time>').replace(HEX_TOKEN, '<hex>');
}

/** 2001-09-09 … 2286-11-20 in epoch milliseconds. */
function looksLikeEpochMs(n: number): boolean {
  return Number.isInteger(n) && n >= 1e12 && n < 1e13;
}

function volatileEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return normalizeVolatile(a) === normalizeVolatile(b);
  if (typeof a === 'number' && typeof b === 'number') return looksLikeEpochMs(a) && looksLikeEpochMs(b);
  return false;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `name` or `uri` when every element is an object with a unique string value for it. */
function arrayKey(a: unknown[], b: unknown[]): 'name' | 'uri' | undefined {
  for (const key of ['name', 'uri'] as const) {
    const ok = (arr: unknown[]) => {
      const seen = new Set<string>();
      for (const el of arr) {
        if (!isPlainObject(el) || typeof el[key] !== 'string' || seen.has(el[key] as string)) return false;
        seen.add(el[key] as string);
      }
      return true;
    };
    if ((a.length > 0 || b.length > 0) && ok(a) && ok(b)) return key;
  }
  return undefined;
}

/**
 * Every path where `before` and `after` differ, in document order. Recursion stops at
 * MAX_JSON_DEPTH: below it two parts are compared as (bounded) JSON text, and a difference
 * there carries that text instead of the values.
 */
export function diffJson(before: unknown, after: unknown, options: DiffOptions = {}): JsonDifference[] {
  const ignore = options.ignoreKeys ?? DEFAULT_IGNORED;
  const limit = options.limit ?? Infinity;
  const out: JsonDifference[] = [];

  const walk = (a: unknown, b: unknown, path: JsonPathSegment[], depth: number): void => {
    if (out.length >= limit) return;
    if (a === b) return;
    if (depth >= MAX_JSON_DEPTH) {
      const [ta, tb] = [boundedJsonText(a).text, boundedJsonText(b).text];
      if (ta !== tb) out.push({ path, kind: 'changed', before: ta, after: tb });
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      const key = arrayKey(a, b);
      if (key) {
        const byKey = new Map<string, unknown>();
        for (const el of b) byKey.set((el as Record<string, string>)[key], el);
        const seen = new Set<string>();
        for (const el of a) {
          const k = (el as Record<string, string>)[key];
          seen.add(k);
          const seg = { key, value: k };
          if (byKey.has(k)) walk(el, byKey.get(k), [...path, seg], depth + 1);
          else out.push({ path: [...path, seg], kind: 'removed', before: el });
        }
        for (const el of b) {
          const k = (el as Record<string, string>)[key];
          if (!seen.has(k) && out.length < limit) out.push({ path: [...path, { key, value: k }], kind: 'added', after: el });
        }
        return;
      }
      const n = Math.max(a.length, b.length);
      for (let i = 0; i < n && out.length < limit; i++) {
        if (i >= b.length) out.push({ path: [...path, i], kind: 'removed', before: a[i] });
        else if (i >= a.length) out.push({ path: [...path, i], kind: 'added', after: b[i] });
        else walk(a[i], b[i], [...path, i], depth + 1);
      }
      return;
    }
    if (isPlainObject(a) && isPlainObject(b)) {
      for (const k of Object.keys(a)) {
        if (ignore.has(k) || a[k] === undefined) continue;
        if (!(k in b) || b[k] === undefined) {
          if (out.length < limit) out.push({ path: [...path, k], kind: 'removed', before: a[k] });
        } else walk(a[k], b[k], [...path, k], depth + 1);
      }
      for (const k of Object.keys(b)) {
        if (ignore.has(k) || b[k] === undefined) continue;
        if ((!(k in a) || a[k] === undefined) && out.length < limit) out.push({ path: [...path, k], kind: 'added', after: b[k] });
      }
      return;
    }
    if (options.ignoreVolatile && volatileEqual(a, b)) return;
    out.push({ path, kind: 'changed', before: a, after: b });
  };
  walk(before, after, [], 0);
  return out;
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

/** `tools[name=echo].inputSchema.properties["odd key"].type`, `content[0].text`; `` (empty) for the root. */
export function formatPath(path: readonly JsonPathSegment[]): string {
  let s = '';
  for (const seg of path) {
    if (typeof seg === 'number') s += `[${seg}]`;
    else if (typeof seg === 'object') s += `[${seg.key}=${seg.value}]`;
    else if (IDENTIFIER.test(seg)) s += s === '' ? seg : `.${seg}`;
    else s += `[${JSON.stringify(seg)}]`;
  }
  return s;
}

/** Short JSON for a message: long values are cut with an ellipsis. */
export function formatValue(value: unknown, max = 80): string {
  if (value === undefined) return 'undefined';
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** One line: `path: before → after`, `path: added …`, `path: removed (was …)`. */
export function formatDifference(d: JsonDifference, max = 80): string {
  const where = formatPath(d.path) || '(whole value)';
  switch (d.kind) {
    case 'changed':
      return `${where}: ${formatValue(d.before, max)} → ${formatValue(d.after, max)}`;
    case 'added':
      return `${where}: added ${formatValue(d.after, max)}`;
    case 'removed':
      return `${where}: removed (was ${formatValue(d.before, max)})`;
  }
}

// ---------------------------------------------------------------------------------------------
// Ignore patterns (verify's --ignore and a fixture's verify.ignore)
// ---------------------------------------------------------------------------------------------

/**
 * A difference path to ignore, written as verify prints it: `[<call> › ]<path>`.
 * - `<path>` is a path as `formatPath` writes it (`content[0].text`, `tools[name=echo].description`,
 *   `error`, `progress`); it covers everything below it too. `*` stands for any one key
 *   (`structuredContent.*.at`) or, inside brackets, any index or name (`content[*].text`); a
 *   lone `*` covers every difference.
 * - `<call>` limits it to one call as labelled in the report (`tools/call random_delay`,
 *   `resources/read demo://clock`), `*` matching any characters (`tools/call *`); without it the
 *   pattern applies to every call. ` > ` may be typed instead of ` › `.
 */
export interface IgnorePattern {
  source: string;
  /** The call's label (`*` any characters); none: every call. */
  call?: Glob;
  /** The path's tokens; none: a lone `*`, every difference. */
  path?: Glob;
}

const CALL_SEPARATOR = / (?:›|>) /;

/** Outside brackets `*` is one key: one or more characters up to the next `.` or `[`. */
const KEY_CHAR: GlobToken = { kind: 'one', not: '.[' };
const KEY_RUN: GlobToken = { kind: 'run', not: '.[' };
/** Inside brackets `*` is any index or name: any characters up to the `]`. */
const BRACKETED_RUN: GlobToken = { kind: 'run', not: ']' };

/** Parses an ignore pattern; throws an Error saying what is wrong with it. */
export function parseIgnorePattern(source: string): IgnorePattern {
  if (typeof source !== 'string' || source.trim() === '') throw new Error('an ignore pattern must be a non-empty string');
  const sep = CALL_SEPARATOR.exec(source);
  const callPart = sep ? source.slice(0, sep.index).trim() : undefined;
  const pathPart = (sep ? source.slice(sep.index + sep[0].length) : source).trim();
  if (callPart === '') throw new Error(`${JSON.stringify(source)}: the call before "›" is empty`);
  if (pathPart === '')
    throw new Error(`${JSON.stringify(source)}: the path after "›" is empty (use * to ignore every difference of the call)`);
  const tokens: GlobToken[] = [];
  let inBracket = false;
  for (const ch of pathPart.split('')) {
    if (ch === '[') {
      if (inBracket) throw new Error(`${JSON.stringify(source)}: "[" inside brackets`);
      inBracket = true;
    } else if (ch === ']') {
      if (!inBracket) throw new Error(`${JSON.stringify(source)}: "]" without "["`);
      inBracket = false;
    }
    if (ch !== '*') tokens.push({ kind: 'char', ch });
    else if (inBracket) tokens.push(BRACKETED_RUN);
    else tokens.push(KEY_CHAR, KEY_RUN);
  }
  if (inBracket) throw new Error(`${JSON.stringify(source)}: "[" is not closed`);
  return {
    source,
    call: callPart === undefined ? undefined : compileGlob(callPart),
    path: pathPart === '*' ? undefined : { tokens },
  };
}

/** A path pattern covers the path it names and everything below it: it ends at the path's end, a `.` or a `[`. */
function coversPath(glob: Glob, path: string): boolean {
  return globMatchesPrefix(glob, path, (i) => i === path.length || path[i] === '.' || path[i] === '[');
}

/** Whether a difference at `path` of `call` is covered by one of the patterns (linear time: proxy/core/model/glob.ts). */
export function isIgnored(patterns: readonly IgnorePattern[], call: string, path: string): boolean {
  return patterns.some((p) => (p.call === undefined || globMatches(p.call, call)) && (p.path === undefined || coversPath(p.path, path)));
}
