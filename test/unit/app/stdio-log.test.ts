/**
 * The stdio wrapper's --log (proxy/app/stdio/stdio-log.ts) without processes or sockets: fed what a
 * UI recorded (events of a real Recorder and store, in their feed form), it prints that UI's
 * session labels and seqs, says which UI, and starts afresh for the next; with no UI numbering
 * the process it records the rest itself and says so. A temporary file per test.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IngestRecord } from '../../../proxy/wire/capture/wire-codec.js';
import { toFeed } from '../../../proxy/core/model/feed-form.js';
import type { McpscopeEvent } from '../../../proxy/core/model/events.js';
import { Recorder } from '../../../proxy/recorder/recorder.js';
import { createRedactor } from '../../../proxy/recorder/redact/redact.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';
import { startStdioLog, type StdioLog } from '../../../proxy/app/stdio/stdio-log.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const START: Extract<IngestRecord, { t: 'stdio-start' }> = { t: 'stdio-start', xid: 'p1', ts: 1_000, command: 'srv', args: [], cwd: '/' };
const line = (xid: string, dir: 'c2s' | 's2c', v: unknown, ts = 1_001): IngestRecord => ({
  t: 'stdio-chunk',
  xid,
  ts,
  dir,
  chunk: new TextEncoder().encode(`${JSON.stringify(v)}\n`),
});
const ping = (xid: string, id: number): IngestRecord[] => [
  line(xid, 'c2s', { jsonrpc: '2.0', id, method: 'ping' }),
  line(xid, 's2c', { jsonrpc: '2.0', id, result: {} }),
];

function open(): { log: StdioLog; file: string; warned: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpscope-stdio-log-unit-'));
  dirs.push(dir);
  const file = join(dir, 'wrapper.log');
  const warned: string[] = [];
  return { log: startStdioLog({ file, start: START, warn: (t) => warned.push(t) }), file, warned };
}

/** A UI's store with `before` stdio sessions recorded already; `record` adds the wrapper's records (as the UI's xid) and returns the new events in feed form. */
function ui(before: number) {
  const store = new EventStore();
  const recorder = new Recorder({ store, redactor: createRedactor() });
  for (let i = 0; i < before; i++) recorder.handle([{ ...START, xid: `other-${i}` }, ...ping(`other-${i}`, 1)] as never);
  let seen = store.history().length;
  return {
    store,
    record(records: IngestRecord[]): McpscopeEvent[] {
      recorder.handle(records.map((r) => ({ ...r, xid: `i1:${r.xid}` })) as never);
      const fresh = store.history().slice(seen);
      seen = store.history().length;
      return fresh.map((e) => toFeed(e, Infinity));
    },
  };
}

const headlines = (text: string) =>
  text
    .split('\n')
    .filter((l) => /^\d\d:\d\d:\d\d\.\d{3} |^mcpscope: /.test(l))
    .map((l) => l.replace(/^\d\d:\d\d:\d\d\.\d{3} /, ''));

describe('the stdio wrapper’s --log', () => {
  it('prints what the UI recorded in that UI’s numbers, and starts afresh, saying so, for the next UI', async () => {
    const { log, file, warned } = open();
    const first = ui(2);
    log.recordingInto({ url: 'http://127.0.0.1:6480/', token: 'ui-token-0123456789' });
    log.recorded(first.record([START, ...ping('p1', 7)]));
    // The next UI (the first went away): a store of its own, whose numbers start over.
    const second = ui(0);
    log.recordingInto({ url: 'http://127.0.0.1:6480/', token: 'ui-token-0123456789', own: true });
    log.recorded(second.record([{ ...START, joined: true }, ...ping('p1', 8)]), 3);
    await log.close();
    expect(warned).toEqual([]);
    const seqs = (s: EventStore) => s.messages(s === first.store ? 's3' : 's1').map((m) => m.seq);
    const [a1, a2] = seqs(first.store);
    const [b1, b2] = seqs(second.store);
    expect(a1).toBeGreaterThan(6);
    expect(headlines(readFileSync(file, 'utf8'))).toEqual([
      "mcpscope: recording into the mcpscope UI at http://127.0.0.1:6480/: the session and message numbers below are that UI's",
      's3   === SESSION s3 stdio → srv',
      's3   mcpscope: Server process started (working directory /): srv',
      `s3   #${a1} C→S request ping (id 7)`,
      `s3   #${a2} S→C response to #${a1} ping (id 7), 0.00 ms`,
      "mcpscope: the link to the UI ended; recording again into the mcpscope UI at http://127.0.0.1:6480/ (this wrapper serves it): the session and message numbers below are that UI's, in a session of their own there",
      'mcpscope: 3 events the UI recorded of this process are not in this log (it did not keep up)',
      's1   === SESSION s1 stdio → srv',
      expect.stringMatching(/^s1 {3}mcpscope: mcpscope started recording this process after it had started/),
      's1   mcpscope: Server process started (working directory /): srv',
      `s1   #${b1} C→S request ping (id 8)`,
      `s1   #${b2} S→C response to #${b1} ping (id 8), 0.00 ms`,
    ]);
  });

  it('records the rest itself when no UI numbers the process, from what no UI said it recorded, and says so', async () => {
    const { log, file } = open();
    const first = ui(4);
    log.recordingInto({ url: 'http://127.0.0.1:6480/' });
    log.recorded(first.record([START, ...ping('p1', 1)]));
    const [request, answer] = ping('p1', 2);
    // A push before: the UI records it, the log needs nothing of it.
    log.push(request);
    log.recordLocally('the mcpscope UI at http://127.0.0.1:6480/ is older than this wrapper and does not send back its numbers', [request]);
    log.push(answer);
    // Once local, a UI's word changes nothing.
    log.recordingInto({ url: 'http://127.0.0.1:6481/' });
    log.recorded(first.record([line('p1', 'c2s', { jsonrpc: '2.0', id: 3, method: 'ping' })]));
    log.recordLocally('again', []);
    await log.close();
    const text = headlines(readFileSync(file, 'utf8'));
    const at = text.findIndex((l) => l.startsWith('mcpscope: the mcpscope UI at http://127.0.0.1:6480/ is older'));
    expect(text[at]).toBe(
      'mcpscope: the mcpscope UI at http://127.0.0.1:6480/ is older than this wrapper and does not send back its numbers: from here on this log numbers the session and its messages itself, not as any UI does',
    );
    expect(text.slice(at + 1)).toEqual([
      's1   === SESSION s1 stdio → srv',
      expect.stringMatching(/^s1 {3}mcpscope: mcpscope started recording this process after it had started/),
      's1   mcpscope: Server process started (working directory /): srv',
      expect.stringMatching(/^s1 {3}#\d+ C→S request ping \(id 2\)$/),
      expect.stringMatching(/^s1 {3}#\d+ S→C response to #\d+ ping \(id 2\)/),
    ]);
    expect(text.join('\n')).not.toMatch(/id 3|6481/);
  });

  it('records the whole process itself when no UI ever did (not joined), and a note in JSON is a `note` line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpscope-stdio-log-unit-'));
    dirs.push(dir);
    const file = join(dir, 'wrapper.ndjson');
    const log = startStdioLog({ file, format: 'json', start: START, warn: () => undefined });
    log.recordLocally('no mcpscope UI records this process (cannot reach or serve a UI on port 6480: EACCES)', ping('p1', 1));
    await log.close();
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; text: string; session?: string });
    expect(lines[0]).toMatchObject({
      kind: 'note',
      text: expect.stringMatching(/^mcpscope: no mcpscope UI records this process .*: from here on this log numbers/),
    });
    expect(lines.filter((l) => l.kind === 'message').map((l) => l.session)).toEqual(['s1', 's1']);
    expect(lines.some((l) => /started recording this process after/.test(l.text))).toBe(false);
  });
});
