/** Reads a running mcpscope's WebSocket feed the way the UI does (the UI URL carries the token). */
import WebSocket from 'ws';
import type { FeedMessage, McpscopeEvent } from '../../proxy/model/events.js';
import { fromFeed } from '../../proxy/model/feed-form.js';

/** Collects feed events (snapshot and live) until `predicate` holds over all seen so far. */
export function feedUntil(uiUrl: string, predicate: (events: McpscopeEvent[]) => boolean, ms = 20_000): Promise<McpscopeEvent[]> {
  const u = new URL(uiUrl);
  const ws = new WebSocket(`ws://${u.host}/ws${u.search}`);
  const events: McpscopeEvent[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.close();
      reject(new Error(`feed condition not met; ${events.length} events seen`));
    }, ms);
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as FeedMessage;
      if (m.type === 'snapshot' || m.type === 'events') events.push(...m.events.map(fromFeed));
      if (predicate(events)) {
        clearTimeout(timer);
        ws.close();
        resolve(events);
      }
    });
    ws.on('error', reject);
  });
}
