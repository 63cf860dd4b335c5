/**
 * The faults addon's name across the proxy thread's messages (proxy/wire/thread/thread-addon.ts).
 * Its halves share nothing else: the rules travel as the generic `rules` and `rule-taken`
 * messages. A module of its own so that the main thread loads nothing of faults-thread.ts.
 */
export const FAULTS = 'faults';
