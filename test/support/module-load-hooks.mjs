// The resolve hook of module-load-probe.mjs (it runs on Node's loader thread).
import { appendFileSync } from 'node:fs';

let file;
let match;

export function initialize(data) {
  file = data?.file;
  match = data?.match;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (file && match && result.url.includes(match)) appendFileSync(file, `${result.url}\n`);
  return result;
}
