/**
 * The timeline store on a recorded stdio process: messages without an HTTP exchange fold into
 * calls, sit on the session's one "stdio" waterfall lane, stdout noise shows as a problem row and
 * stderr lines as log rows.
 * (The events come from the real recorder fed stdio wire records.)
 */
import { describe, expect, it } from 'vitest';
import { TimelineStore } from '../../../ui/src/state/store.js';
import { EMPTY_FILTERS, type CallRow } from '../../../ui/src/state/types.js';
import { Recorder } from '../../../proxy/recorder/recorder.js';
import { createRedactor } from '../../../proxy/recorder/redact/redact.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';
import type { WireRecord } from '../../../proxy/wire/capture/wire-records.js';

const line = (v: unknown) => new TextEncoder().encode(`${JSON.stringify(v)}\n`);

function recordedStdioSession() {
  const store = new EventStore();
  const recorder = new Recorder({ store, redactor: createRedactor() });
  let ts = 1_000;
  const chunk = (dir: 'c2s' | 's2c', bytes: Uint8Array): WireRecord => ({ t: 'stdio-chunk', xid: 'p', ts: (ts += 10), dir, chunk: bytes });
  recorder.handle([
    { t: 'stdio-start', xid: 'p', ts, command: 'node', args: ['server.js'] },
    chunk('s2c', new TextEncoder().encode('server ready!\n')),
    chunk('c2s', line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', _meta: { progressToken: 't' } } })),
    chunk('s2c', line({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1, total: 2 } })),
    chunk('s2c', line({ jsonrpc: '2.0', id: 1, result: { content: [] } })),
    { t: 'stdio-stderr', xid: 'p', ts: (ts += 10), chunk: new TextEncoder().encode('done\n') },
    { t: 'stdio-exit', xid: 'p', ts: (ts += 10), code: 0, signal: null },
  ]);
  return store.snapshot();
}

describe('TimelineStore: a stdio session', () => {
  it('folds stdio messages into calls on the stdio lane, with the stdout banner as a problem row and stderr as a log row', () => {
    const ui = new TimelineStore();
    ui.ingest(recordedStdioSession());
    const rows = ui.visibleRows(EMPTY_FILTERS);
    // The stderr line is a row of its own too (issue 15: stderr is shown, not only recorded).
    expect(rows.map((r) => r.type)).toEqual(['problem', 'call', 'log']);
    expect(rows[0].sessionId).toBe('s1');
    const call = rows[1] as CallRow;
    expect(call.status).toBe('ok');
    expect(call.progress).toHaveLength(1);
    const wf = ui.waterfall('s1');
    expect(wf.lanes.map((l) => l.carrier)).toEqual(['stdio']);
    expect(wf.bars).toHaveLength(1);
    expect(wf.bars[0]).toMatchObject({ lane: wf.lanes[0].key, status: 'ok', progress: 0.5 });
    expect(ui.logs.filter((l: { source?: string; text?: string }) => l.source === 'stderr').map((l) => l.text)).toEqual(['done']);
    expect(ui.sessionList()[0]).toMatchObject({ transport: 'stdio', status: 'closed', closeReason: 'process-exited' });
  });
});
