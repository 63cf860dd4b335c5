/**
 * Small readers of peer-sent JSON values, shared by the model-API dialects (pure, browser-safe).
 * Nothing here throws on a value of another shape: each reader answers `undefined` instead.
 */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A finite, non-negative number (token counts, limits); anything else is `undefined`. */
export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

export function arr(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

/** `JSON.stringify` that never throws (a parsed JSON value never makes it throw, but a caller's value might). */
export function jsonText(value: unknown): string {
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/** Parses a JSON text; an error says why in the parser's words. */
export function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** What a value is, for a note: `a string`, `an array`, `null`… */
export function shapeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'undefined') return 'nothing';
  return typeof value === 'string' ? 'a string' : `a ${typeof value}`;
}

/** A note's quote of a peer-sent name or type: bounded, so a huge value does not flood the notes. */
export function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : jsonText(value);
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

/**
 * The text of a content value that is a string or a list of parts with `text` (Anthropic text
 * blocks, OpenAI content parts, tool-result contents), parts joined with `sep`. Parts without
 * text are left out; `undefined` when the value is neither a string nor a list.
 */
export function partsText(value: unknown, sep = '\n'): string | undefined {
  if (typeof value === 'string') return value;
  const parts = arr(value);
  if (!parts) return undefined;
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') texts.push(part);
    else if (isObject(part) && typeof part.text === 'string') texts.push(part.text);
  }
  return texts.join(sep);
}
