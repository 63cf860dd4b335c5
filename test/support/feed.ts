/** Reads a running mcpscope's WebSocket feed the way the UI does (the UI URL carries the token). */
import WebSocket from 'ws';
import type { FeedMessage, McpscopeEvent } from '../../proxy/core/model/events.js';
import { fromFeed } from '../../proxy/core/model/feed-form.js';

export interface CollectedFeed {
  /** Every event delivered so far (snapshot and live), in their stored form. */
  events: McpscopeEvent[];
  /** Resolves once `predicate` holds over the events seen so far (rejects after `ms`). */
  until(predicate: (events: McpscopeEvent[]) => unknown, ms?: number): Promise<void>;
  close(): void;
}

/** Connects to the feed and collects every event it delivers until closed. */
export function collectFeed(uiUrl: string): CollectedFeed {
  const u = new URL(uiUrl);
  const ws = new WebSocket(`ws://${u.host}/ws${u.search}`);
  const events: McpscopeEvent[] = [];
  const waiters: { p: (e: McpscopeEvent[]) => unknown; resolve: () => void }[] = [];
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as FeedMessage;
    if (m.type === 'snapshot' || m.type === 'events') events.push(...m.events.map(fromFeed));
    for (const w of [...waiters]) {
      if (!w.p(events)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  return {
    events,
    until: (p, ms = 20_000) =>
      new Promise<void>((resolve, reject) => {
        if (p(events)) return resolve();
        const timer = setTimeout(() => reject(new Error(`feed condition not met; ${events.length} events seen`)), ms);
        waiters.push({ p, resolve: () => (clearTimeout(timer), resolve()) });
      }),
    close: () => {
      // Closed before it opened (the condition already held): ws reports the aborted handshake as an error.
      ws.on('error', () => undefined);
      ws.terminate();
    },
  };
}

/** Collects feed events (snapshot and live) until `predicate` holds over all seen so far. */
export async function feedUntil(uiUrl: string, predicate: (events: McpscopeEvent[]) => boolean, ms = 20_000): Promise<McpscopeEvent[]> {
  const feed = collectFeed(uiUrl);
  try {
    await feed.until(predicate, ms);
    return feed.events;
  } finally {
    feed.close();
  }
}
