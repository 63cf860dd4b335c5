/**
 * NDJSON: the export (one feed event per line, for a session or everything, redacted) and the
 * `--record` file writer (every committed batch on disk as soon as it is committed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportNdjson } from '../../../proxy/files/export/export-ndjson.js';
import { sessionEventsOf } from '../../../proxy/files/export/export-common.js';
import { UnknownSessionError } from '../../../proxy/core/model/errors.js';
import { recordToFile } from '../../../proxy/files/export/ndjson-recorder.js';
import { importCapture, readCapture } from '../../../proxy/files/import/import-capture.js';
import { createRedactor } from '../../../proxy/recorder/redact/redact.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';
import type { McpscopeEvent } from '../../../proxy/core/model/events.js';
import { recordScriptedCapture, SCRIPTED_SECRETS, SCRIPTED_TOKEN } from '../../support/scripted-session.js';
import { recordViolatingSession } from '../../support/violating-session.js';

const dirs: string[] = [];
function tmpFile(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcpscope-ndjson-'));
  dirs.push(dir);
  return join(dir, name);
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const lines = (text: string) => text.split('\n').slice(0, -1);

describe('exportNdjson', () => {
  it('everything: one event per line, the same events as the store snapshot (the feed), in order', () => {
    const c = recordScriptedCapture();
    const text = exportNdjson(c.store, undefined, { token: c.token });
    expect(text.endsWith('\n')).toBe(true);
    const parsed = lines(text).map((l) => JSON.parse(l) as McpscopeEvent);
    const snapshot = c.store.snapshot();
    expect(parsed).toHaveLength(snapshot.length);
    expect(parsed.map((e) => [e.seq, e.type])).toEqual(snapshot.map((e) => [e.seq, e.type]));
    // Already-redacted events come out unchanged.
    expect(parsed).toEqual(JSON.parse(JSON.stringify(snapshot)));
  });

  it('one session: its events only (including its exchanges and their SSE frames)', () => {
    const c = recordScriptedCapture();
    const parsed = lines(exportNdjson(c.store, c.legacy)).map((l) => JSON.parse(l) as McpscopeEvent);
    expect(parsed.map((e) => e.seq)).toEqual(sessionEventsOf(c.store, c.legacy).map((e) => e.seq));
    expect(new Set(parsed.map((e) => e.type))).toEqual(new Set(['session', 'exchange', 'message', 'sse', 'modification']));
    for (const e of parsed)
      expect(e.type === 'session' ? e.session.id : e.type === 'exchange' ? e.exchange.sessionId : e.sessionId).toBe(c.legacy);
    expect(() => exportNdjson(c.store, 's42')).toThrow(UnknownSessionError);
  });

  it('redacts again: nothing secret from a --show-secrets capture, and the raw frame is dropped where redaction changed a message', () => {
    const c = recordScriptedCapture({ showSecrets: true });
    expect(JSON.stringify(c.store.snapshot())).toContain('ver1fier');
    const text = exportNdjson(c.store, undefined, { token: c.token });
    for (const secret of SCRIPTED_SECRETS) expect(text).not.toContain(secret);
    const events = lines(text).map((l) => JSON.parse(l) as McpscopeEvent);
    const x1 = events.filter((e) => e.type === 'exchange' && e.exchange.id === 'x1').at(-1);
    expect(x1?.type === 'exchange' && x1.exchange.requestHeaders.authorization).toBe('Bearer [redacted]');
    const form = events.filter((e) => e.type === 'exchange' && e.exchange.url === '/token').at(-1);
    expect(form?.type === 'exchange' && form.exchange.requestPreview).toBe(
      'grant_type=authorization_code&code=[redacted]&code_verifier=[redacted]&client_secret=[redacted]',
    );
  });
});

describe('recordToFile', () => {
  it('writes what the store holds, then each committed batch at once; stopping closes the file', () => {
    const c = recordScriptedCapture();
    const file = tmpFile('rec.ndjson');
    const stop = recordToFile(c.store, file);
    const first = readFileSync(file, 'utf8');
    expect(lines(first)).toHaveLength(c.store.snapshot().length);

    // A new batch is on disk as soon as commit() returns (no timer, no buffering).
    c.store.append({ type: 'log', ts: 1, source: 'mcpscope', text: 'one' });
    c.store.append({ type: 'log', ts: 2, source: 'mcpscope', text: 'two' });
    expect(readFileSync(file, 'utf8')).toBe(first);
    c.store.commit();
    const after = lines(readFileSync(file, 'utf8'));
    expect(after.slice(-2).map((l) => (JSON.parse(l) as { text: string }).text)).toEqual(['one', 'two']);

    stop();
    stop(); // idempotent
    c.store.append({ type: 'log', ts: 3, source: 'mcpscope', text: 'three' });
    c.store.commit();
    expect(lines(readFileSync(file, 'utf8'))).toHaveLength(after.length);
  });

  it('appends to an existing file, and the result reads back as the same events', () => {
    const file = tmpFile('rec.ndjson');
    writeFileSync(file, '');
    const store = new EventStore();
    const stop = recordToFile(store, file);
    store.append({ type: 'log', ts: 1, source: 'mcpscope', text: 'a' });
    store.commit();
    stop();
    const again = recordToFile(store, file); // the store's one event is written again, after the first
    again();
    const events = importCapture(readFileSync(file, 'utf8'));
    expect(events.map((e) => e.type === 'log' && e.text)).toEqual(['a', 'a']);
  });

  it('with a redactor, the file is redacted like an export', () => {
    const c = recordScriptedCapture({ showSecrets: true });
    const file = tmpFile('rec.ndjson');
    recordToFile(c.store, file, { redactor: createRedactor({ extraSecrets: [SCRIPTED_TOKEN] }) })();
    const text = readFileSync(file, 'utf8');
    for (const secret of SCRIPTED_SECRETS) expect(text).not.toContain(secret);
  });

  it('a partial last line (killed mid-write) reads back with a warning, not an error', () => {
    const c = recordScriptedCapture();
    const file = tmpFile('rec.ndjson');
    recordToFile(c.store, file)();
    const whole = readFileSync(file, 'utf8');
    appendFileSync(file, '{"type":"message","seq":999,"ts":1,"sessio');
    const result = readCapture(readFileSync(file, 'utf8'));
    expect(result.events).toHaveLength(lines(whole).length);
    expect(result.warnings).toEqual([expect.stringMatching(/last line \(line \d+\) is incomplete/)]);
  });

  it('a path that cannot be opened fails in plain words; a failing write stops recording and says so once', () => {
    const store = new EventStore();
    expect(() => recordToFile(store, join(tmpdir(), 'no-such-dir-mcpscope', 'x', 'rec.ndjson'))).toThrow(/cannot open the record file/);
    const errors: Error[] = [];
    // /dev/full accepts the open and fails every write with ENOSPC (Linux); mcpscope opens only regular files, so the test does.
    expect(() => recordToFile(store, '/dev/full')).toThrow(/it is a character device — mcpscope records to regular files only/);
    const stop = recordToFile(store, '/dev/full', { fd: openSync('/dev/full', 'a'), onError: (e) => errors.push(e) });
    store.append({ type: 'log', ts: 1, source: 'mcpscope', text: 'a' });
    store.commit();
    store.append({ type: 'log', ts: 2, source: 'mcpscope', text: 'b' });
    store.commit();
    stop();
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toMatch(/stopped recording to \/dev\/full/);
  });
});

describe('exportNdjson: spec violations', () => {
  it('has the violation event as it is, after its message, and reads back the same', () => {
    const c = recordViolatingSession();
    const parsed = lines(exportNdjson(c.store, c.sessionId)).map((l) => JSON.parse(l) as McpscopeEvent);
    const at = parsed.findIndex((e) => e.type === 'problem' && e.code === 'spec-violation');
    expect(parsed[at]).toEqual(c.violations[0]);
    expect(parsed[at - 1]).toMatchObject({ type: 'message', seq: c.call.seq });
    expect(readCapture(exportNdjson(c.store, c.sessionId)).events.filter((e) => e.type === 'problem')).toEqual(c.violations);
  });
});
