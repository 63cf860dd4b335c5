/**
 * How deep a JSON document nests, and a copy of one that nests too deep that is safe to keep.
 *
 * Why: `JSON.parse` is iterative in V8 and reads any depth, but `JSON.stringify`, structured
 * clone and every recursive walk over the value (redaction, hints, diffs, exports, the UI's
 * tree) overflow the call stack somewhere past a few thousand levels — `[[[[…]]]]` 9 KB long is
 * enough. mcpscope records whatever a peer sends, so a message is measured once, where it is
 * parsed (`classifyPayload`, and the capture/fixture loaders), and every part of it deeper than
 * MAX_JSON_DEPTH is replaced by a string holding that part's JSON text. Everything downstream
 * then only ever sees values at most MAX_JSON_DEPTH deep. The traffic itself is never touched:
 * the proxy forwards the original bytes; only mcpscope's copy is cut.
 *
 * MAX_JSON_DEPTH = 128. Depth counts containers: `1` is 0, `{}` is 1, `{"a":[]}` is 2. The
 * deepest real MCP shapes are tool `inputSchema`/`outputSchema` documents inside a
 * `tools/list` result: envelope → result → tools → tool → inputSchema is 5 levels, and each
 * nested JSON Schema object adds 2 more (`properties` → the property). Hand-written and
 * generated (zod, pydantic — recursive models use `$ref`, not inlining) schemas stay within a few
 * dozen levels; 128 leaves room for a schema nested over 60 objects deep, while recursive walks
 * of 128 levels (plus the few levels the feed and exports wrap around a message) cost a few KiB
 * of stack, far from the ~4,000-level point where `JSON.stringify` fails.
 *
 * Cost: `exceedsDepth` skips a text shorter than the cap (depth d needs d opening brackets) and
 * otherwise makes one pass over the text, jumping over string contents with `indexOf`.
 * The cap itself (`capJsonDepth`) runs only on a message that is too deep.
 *
 * Pure and I/O-free (bundled into the browser UI too). Nothing here recurses, and nothing throws.
 */

/** Deepest nesting of arrays/objects mcpscope keeps as values; deeper parts are kept as text. */
export const MAX_JSON_DEPTH = 128;

/** Most characters of JSON text kept for the parts cut from one value (all of them together). */
export const MAX_KEPT_TEXT = 64 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * The nesting depth of a JSON text (0 for a scalar), counting brackets outside string literals.
 * Stops as soon as it passes `stopAbove` (then returns `stopAbove + 1`). Works on any text —
 * invalid or cut-off JSON included — and never throws.
 */
export function jsonTextDepth(text: string, stopAbove = Infinity): number {
  let depth = 0;
  let max = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Jump to the closing quote: one that is not escaped (preceded by an even run of backslashes).
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) return max; // unterminated string: nothing after it is structure
        let b = q - 1;
        while (b > i && text.charCodeAt(b) === BACKSLASH) b--;
        if ((q - 1 - b) % 2 === 0) {
          i = q + 1;
          break;
        }
        j = q + 1;
      }
      continue;
    }
    if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > stopAbove) return stopAbove + 1;
      }
    } else if ((c === CLOSE_BRACKET || c === CLOSE_BRACE) && depth > 0) {
      depth--;
    }
    i++;
  }
  return max;
}

/** Whether a JSON text nests deeper than `max`. Free for a text shorter than `max`. */
export function exceedsDepth(text: string, max = MAX_JSON_DEPTH): boolean {
  return text.length > max && jsonTextDepth(text, max) > max;
}

function isContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  return typeof v === 'object' && v !== null;
}

/** The nesting depth of a parsed value (0 for a scalar), iteratively; stops past `stopAbove` (returning `stopAbove + 1`). */
export function jsonValueDepth(value: unknown, stopAbove = Infinity): number {
  if (!isContainer(value)) return 0;
  let max = 0;
  const stack: { v: Record<string, unknown> | unknown[]; level: number }[] = [{ v: value, level: 1 }];
  while (stack.length > 0) {
    const { v, level } = stack.pop()!;
    if (level > max) {
      max = level;
      if (max > stopAbove) return stopAbove + 1;
    }
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const child of children) if (isContainer(child)) stack.push({ v: child, level: level + 1 });
  }
  return max;
}

/**
 * Replaces, IN PLACE, every array/object nested deeper than `max` by a string holding its JSON
 * text, so that the value is at most `max` deep afterwards. Meant for a value just parsed from
 * text (nothing else holds it). The kept texts of one call share `keep` characters; past that, a
 * part keeps only a note of its length. Returns the (possibly replaced) root and how many parts
 * were cut. A root that is itself too deep for `max` < 1 becomes a string.
 */
export function capJsonDepth(value: unknown, max = MAX_JSON_DEPTH, keep = MAX_KEPT_TEXT): { value: unknown; cut: number } {
  if (!isContainer(value)) return { value, cut: 0 };
  const budget = { left: keep };
  if (max < 1) return { value: keptText(value, budget), cut: 1 };
  let cut = 0;
  const stack: { v: Record<string, unknown> | unknown[]; level: number }[] = [{ v: value, level: 1 }];
  while (stack.length > 0) {
    const { v, level } = stack.pop()!;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const child = v[i];
        if (!isContainer(child)) continue;
        if (level + 1 > max) {
          v[i] = keptText(child, budget);
          cut++;
        } else stack.push({ v: child, level: level + 1 });
      }
    } else {
      for (const k of Object.keys(v)) {
        const child = v[k];
        if (!isContainer(child)) continue;
        if (level + 1 > max) {
          // defineProperty: a key named "__proto__" (an own property after JSON.parse) stays a plain key.
          Object.defineProperty(v, k, { value: keptText(child, budget), writable: true, enumerable: true, configurable: true });
          cut++;
        } else stack.push({ v: child, level: level + 1 });
      }
    }
  }
  return { value, cut };
}

function keptText(part: unknown, budget: { left: number }): string {
  const { text, total } = boundedJsonText(part, budget.left);
  budget.left -= text.length;
  if (total <= text.length) return text;
  const missing = total - text.length;
  return `${text}… [mcpscope kept ${text.length.toLocaleString('en-US')} of the ${total.toLocaleString('en-US')} characters of this part; ${missing.toLocaleString('en-US')} were cut]`;
}

type Frame = { arr: unknown[]; i: number } | { obj: Record<string, unknown>; keys: string[]; i: number; wrote: boolean };

/**
 * `JSON.stringify(value)` without recursion: the first `limit` characters of its text, and the
 * length the whole text has (`total`). Values JSON cannot hold are written as JSON.stringify
 * writes them (`undefined`/functions skipped in objects, `null` in arrays).
 */
export function boundedJsonText(value: unknown, limit = MAX_KEPT_TEXT): { text: string; total: number } {
  let text = '';
  let total = 0;
  const out = (s: string): void => {
    if (text.length < limit) text += s.length <= limit - text.length ? s : s.slice(0, limit - text.length);
    total += s.length;
  };
  const scalar = (v: unknown, inArray: boolean): boolean => {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') {
      if (inArray) out('null');
      return !inArray;
    }
    if (typeof v === 'bigint') out(String(v));
    else out(JSON.stringify(v) ?? 'null');
    return false;
  };
  const stack: Frame[] = [];
  const open = (v: Record<string, unknown> | unknown[]): void => {
    if (Array.isArray(v)) {
      out('[');
      stack.push({ arr: v, i: 0 });
    } else {
      out('{');
      stack.push({ obj: v, keys: Object.keys(v), i: 0, wrote: false });
    }
  };
  if (isContainer(value)) open(value);
  else if (scalar(value, false)) return { text: '', total: 0 };
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    if ('arr' in f) {
      if (f.i >= f.arr.length) {
        out(']');
        stack.pop();
        continue;
      }
      if (f.i > 0) out(',');
      const v = f.arr[f.i++];
      if (isContainer(v)) open(v);
      else scalar(v, true);
    } else {
      if (f.i >= f.keys.length) {
        out('}');
        stack.pop();
        continue;
      }
      const k = f.keys[f.i++];
      const v = f.obj[k];
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      out(`${f.wrote ? ',' : ''}${JSON.stringify(k)}:`);
      f.wrote = true;
      if (isContainer(v)) open(v);
      else scalar(v, false);
    }
  }
  return { text, total };
}

/** `JSON.parse(text)` with every part deeper than MAX_JSON_DEPTH cut (see capJsonDepth). Throws what JSON.parse throws. */
export function parseJsonCapped(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return exceedsDepth(text) ? capJsonDepth(value).value : value;
}

/** A plain-words description of a cut, for hints and problems. */
export function tooDeepText(depth: number, max = MAX_JSON_DEPTH): string {
  return (
    `This message is nested ${depth.toLocaleString('en-US')} levels deep, more than the ${max} levels mcpscope keeps. ` +
    `It was forwarded unchanged; only the copy shown here was cut: each part deeper than ${max} levels is kept as a string of its JSON text (at most ${Math.round(MAX_KEPT_TEXT / 1024)} KiB of text in all).`
  );
}
