/** Exchange ids: process-wide (thread-wide), so that several proxy ports can share one store. */
let exchangeCounter = 0;
let exchangePrefix = 'x';

/** A fresh exchange id. */
export function nextExchangeId(): string {
  exchangeCounter += 1;
  return `${exchangePrefix}${exchangeCounter}`;
}

/** Ids from here on start with `prefix` (a restarted proxy thread must not reuse its predecessor's). */
export function setExchangeIdPrefix(prefix: string): void {
  exchangePrefix = prefix;
}
