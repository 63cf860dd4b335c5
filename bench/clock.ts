/** Milliseconds (µs resolution) on CLOCK_MONOTONIC, which every process of the machine shares. */
export const monotonicMs = (): number => Number(process.hrtime.bigint() / 1000n) / 1000;
