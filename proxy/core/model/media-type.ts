/** Browser-safe: used by the proxy and the UI alike. */

/** Media type without parameters, lower-cased: `text/event-stream; charset=utf-8` → `text/event-stream`; none → undefined. */
export function mediaType(value: string | undefined): string | undefined {
  return value?.split(';')[0]!.trim().toLowerCase() || undefined;
}
