/** Browser-safe: used by the proxy and the UI alike. */

/** Deletes the keys whose value is undefined, in place (exports and imports never carry `undefined`). */
export function compact<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}
