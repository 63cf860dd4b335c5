/** test/support/model-turn-sample.ts's events in an EventStore (the same seqs), for the readers' tests. */
import type { McpscopeEvent, UnsequencedEvent } from '../../proxy/core/model/events.js';
import { EventStore } from '../../proxy/recorder/store/event-store.js';
import { sampleAgentEvents } from './model-turn-sample.js';

export function sampleAgentStore(events: McpscopeEvent[] = sampleAgentEvents()): EventStore {
  const store = new EventStore();
  for (const e of events) {
    const { seq: _seq, ...rest } = e;
    store.append(rest as UnsequencedEvent);
  }
  store.commit();
  return store;
}
