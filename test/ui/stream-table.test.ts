/**
 * The SSE stream table (ui/src/state/stream-table.ts), through the store's streamOf.
 */
import { describe, expect, it } from 'vitest';
import { TimelineStore } from '../../ui/src/state/store';
import type { McpscopeEvent } from '../../proxy/core/model/events';
import { scenario } from './fixtures';

const loaded = (events: readonly McpscopeEvent[] = scenario().events) => {
  const store = new TimelineStore();
  store.ingest(events);
  return store;
};

describe('stream table', () => {
  it('lists every SSE block of a POST stream in offset order: priming, messages, comments', () => {
    const { events, seq } = scenario();
    const store = loaded(events);
    const entries = store.streamOf('x4');
    expect(entries.map((e) => e.what)).toEqual([
      'priming',
      'message',
      'message',
      'message',
      'message',
      'message',
      'comment',
      'message',
      'message',
    ]);
    const offsets = entries.map((e) => e.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    for (let i = 1; i < entries.length; i++) expect(entries[i].offset).toBe(entries[i - 1].offset + entries[i - 1].length);
    expect(entries[0].eventId).toBe('200');
    const result = entries[entries.length - 1];
    expect(result.messageSeq).toBe(seq.slowTaskResult);
    expect(result.eventType).toBe('message');
    expect(result.summary).toContain('slow task done');
    expect(entries.find((e) => e.what === 'comment')?.summary).toBe(': keep-alive');
    // The request (POST body) is not part of the response stream.
    expect(entries.map((e) => e.messageSeq)).not.toContain(seq.slowTask);
    expect(store.streamOf('x4')).toBe(entries);
  });

  it('shows the priming retry, the GET stream and the legacy endpoint event', () => {
    const { events } = scenario();
    const store = loaded(events);
    expect(store.streamOf('x1')[0]).toMatchObject({ what: 'priming', eventId: '0', retry: 3000, summary: 'id: 0 retry: 3000' });
    expect(store.streamOf('x3').map((e) => e.what)).toEqual(['priming', 'comment', 'message']);
    expect(store.streamOf('x20').map((e) => [e.what, e.summary])).toEqual([
      ['endpoint', '/messages?sessionId=L1'],
      ['message', expect.stringContaining('"tools":[]')],
    ]);
    expect(store.streamOf('x5')).toEqual([]);
    expect(store.streamOf('nope')).toEqual([]);
  });

  it('updates the stream table as the stream grows', () => {
    const { events } = scenario();
    const store = new TimelineStore();
    const half = Math.floor(events.length / 2);
    store.ingest(events.slice(0, half));
    const before = store.streamOf('x4').length;
    store.ingest(events.slice(half));
    expect(store.streamOf('x4').length).toBeGreaterThan(before);
  });
});
