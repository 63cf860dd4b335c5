/** Byte helpers shared by the SSE parser and endpoint rewriter tests. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const BOM = Uint8Array.of(0xef, 0xbb, 0xbf);

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** A byte-exact wire sample from test/fixtures/wire-samples. */
export function sample(name: string): Uint8Array {
  const url = new URL(`../fixtures/wire-samples/${name}`, import.meta.url);
  return new Uint8Array(readFileSync(fileURLToPath(url)));
}
