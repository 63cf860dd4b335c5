/** Browser-safe: used by the proxy and the UI alike. */

const encoder = new TextEncoder();

/** A string's length in UTF-8 bytes: cheap for ASCII, exact for everything. */
export function byteLength(s: string): number {
  return /^[\x00-\x7f]*$/.test(s) ? s.length : encoder.encode(s).byteLength;
}
