/**
 * Header lookups, one home for the proxy and the UI (browser-safe). Two on purpose:
 * - `firstHeader`: the first value under an exact lower-case name — Node's and undici's header
 *   maps are lower-cased, so this is one property read (the hot path and the recorder use it);
 * - `headerValue`: any spelling of the name, repeated values joined with `, ` — for maps that
 *   may come from elsewhere (a fixture written by hand, a HAR file, the UI).
 */

export type HeaderMap = Record<string, string | string[] | undefined>;

/** The first value of a header, by its lower-case name. */
export function firstHeader(h: HeaderMap | undefined, name: string): string | undefined {
  const v = h?.[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Case-insensitive header lookup; several values are joined with `, `. */
export function headerValue(headers: HeaderMap | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  const wanted = name.toLowerCase();
  // Node and undici hand headers over with lower-case names: look that up first. Otherwise a scan
  // that allocates nothing (this runs a dozen times per exchange).
  let v = headers[wanted];
  if (v === undefined) {
    for (const key in headers) {
      if (key.length !== wanted.length || key === wanted || key.toLowerCase() !== wanted) continue;
      v = headers[key];
      if (v !== undefined) break;
    }
  }
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(', ') : String(v);
}
