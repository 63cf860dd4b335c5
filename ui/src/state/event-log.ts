/**
 * The store's log of events in seq order (store.ts): the checks and merges ingestion needs, pure.
 * Wire order (increasing seq) is the fast path; a batch out of order is sorted, and events older
 * than the newest kept one are merged in.
 */
import type { McpscopeEvent } from '../../../proxy/core/model/events.js';

/** Whether the batch is valid events in strictly increasing seq order (the fast path). */
export function isSorted(events: readonly McpscopeEvent[]): boolean {
  let prev = -Infinity;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (!e || !(e.seq > prev)) return false;
    prev = e.seq;
  }
  return true;
}

/** An event with a usable seq (a finite number). */
export function validSeq(e: McpscopeEvent | null | undefined): e is McpscopeEvent {
  return !!e && typeof e === 'object' && typeof e.seq === 'number' && Number.isFinite(e.seq);
}

/** Index of the event with this seq in a seq-ordered log, or -1. O(log n). */
export function indexOfSeq(log: readonly McpscopeEvent[], seq: number): number {
  let lo = 0;
  let hi = log.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const s = log[mid].seq;
    if (s === seq) return mid;
    if (s < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** A new log holding both seq-ordered logs (sorted, unique, disjoint), in seq order. */
export function mergeBySeq(log: readonly McpscopeEvent[], late: readonly McpscopeEvent[]): McpscopeEvent[] {
  const out: McpscopeEvent[] = new Array(log.length + late.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < log.length && j < late.length) out[k++] = log[i].seq < late[j].seq ? log[i++] : late[j++];
  while (i < log.length) out[k++] = log[i++];
  while (j < late.length) out[k++] = late[j++];
  return out;
}
