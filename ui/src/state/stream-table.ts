/**
 * The stream table: every SSE block of an exchange's response stream — the JSON-RPC messages it
 * carried and the frames that were not messages (priming events, comments, the legacy endpoint
 * event) — in offset order, as DevTools' EventStream table shows them. The store (store.ts) keeps
 * one bucket per exchange; the table is computed from it on demand and memoized on the bucket.
 */
import type { Carrier, MessageEvent, ModificationEvent, ProblemEvent, SseFrameEvent } from '../../../proxy/core/model/events.js';
import type { StreamEntry } from './types.js';
import { jsonText, truncate } from './format.js';

/** The carriers that are SSE streams. */
export const SSE_CARRIERS: ReadonlySet<Carrier> = new Set<Carrier>(['post-sse', 'get-sse', 'legacy-sse']);

/** What the store keeps per exchange. */
export interface ExchangeBucket {
  messages: MessageEvent[];
  sse: SseFrameEvent[];
  problems: ProblemEvent[];
  modifications: ModificationEvent[];
  /** Bumped when the stream table of this exchange changes. */
  streamRev: number;
  streamCache?: { rev: number; entries: StreamEntry[] };
}

/** The stream table of an exchange's bucket, in offset order (memoized on `streamRev`). */
export function streamEntries(b: ExchangeBucket): StreamEntry[] {
  if (b.streamCache && b.streamCache.rev === b.streamRev) return b.streamCache.entries;
  const entries: StreamEntry[] = [];
  for (const m of b.messages) {
    if (!SSE_CARRIERS.has(m.carrier)) continue;
    entries.push({
      seq: m.seq,
      ts: m.ts,
      what: 'message',
      eventId: m.location?.eventId,
      eventType: m.location?.eventType,
      summary: messageSummary(m),
      offset: m.location?.offset ?? -1,
      length: m.location?.length ?? m.size,
      messageSeq: m.seq,
      kind: m.kind,
      method: m.method,
      replayOf: m.replayOf,
    });
  }
  for (const s of b.sse) {
    entries.push({
      seq: s.seq,
      ts: s.ts,
      what: s.what,
      eventId: s.eventId,
      eventType: s.eventType,
      retry: s.retry,
      summary: sseSummary(s),
      offset: s.location?.offset ?? -1,
      length: s.location?.length ?? s.raw?.length ?? 0,
    });
  }
  entries.sort((a, c) => a.offset - c.offset || a.seq - c.seq);
  b.streamCache = { rev: b.streamRev, entries };
  return entries;
}

function messageSummary(m: MessageEvent): string {
  let text = m.raw;
  if (text === undefined) {
    try {
      text = JSON.stringify(m.jsonrpc) ?? '';
    } catch {
      text = jsonText(m.jsonrpc, 200);
    }
  }
  return truncate(text, 200);
}

function sseSummary(s: SseFrameEvent): string {
  switch (s.what) {
    case 'comment':
      return `: ${s.comment ?? ''}`.trimEnd();
    case 'priming': {
      const parts: string[] = [];
      if (s.eventId !== undefined) parts.push(`id: ${s.eventId}`);
      if (s.retry !== undefined) parts.push(`retry: ${s.retry}`);
      return parts.length > 0 ? parts.join(' ') : 'priming event';
    }
    case 'endpoint':
      return truncate(s.data ?? '', 200);
    default:
      return truncate(`${s.eventType ? `${s.eventType}: ` : ''}${s.data ?? s.raw ?? ''}`, 200);
  }
}
