/** Wall-clock time in epoch milliseconds with sub-millisecond precision (monotonic within a process). */
export function now(): number {
  return performance.timeOrigin + performance.now();
}
