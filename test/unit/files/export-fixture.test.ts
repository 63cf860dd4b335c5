/**
 * Store → fixture, on a deterministic recorded capture (test/support/scripted-session.ts): the
 * output validates against docs/fixture.schema.json, every message is there in wire order with
 * its links, times are relative to the session start, and nothing secret survives — also when
 * the capture was recorded with --show-secrets.
 */
import { describe, expect, it } from 'vitest';
import { exportFixture } from '../../../proxy/files/export/export-fixture.js';
import { UnknownSessionError } from '../../../proxy/core/model/errors.js';
import { FIXTURE_FORMAT, FIXTURE_VERSION, type Fixture } from '../../../proxy/core/model/fixture-format.js';
import type { MessageEvent } from '../../../proxy/core/model/events.js';
import type { WireRecord } from '../../../proxy/wire/capture/wire-records.js';
import { Recorder } from '../../../proxy/recorder/recorder.js';
import { createRedactor } from '../../../proxy/recorder/redact/redact.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';
import { readCapture } from '../../../proxy/files/import/import-capture.js';
import { fixtureErrors } from '../../support/fixture-schema.js';
import { recordScriptedCapture, SCRIPTED_SECRETS, SCRIPTED_TOKEN } from '../../support/scripted-session.js';
import { recordViolatingSession, VIOLATION_RULE } from '../../support/violating-session.js';
import { latestSessions } from '../../support/recorder-harness.js';

const NOW = () => new Date('2026-02-01T10:00:00.000Z');

describe('exportFixture', () => {
  it('validates against docs/fixture.schema.json (both sessions), and the schema rejects a broken one', () => {
    const c = recordScriptedCapture();
    for (const id of [c.streamable, c.legacy]) {
      const f = exportFixture(c.store, id, { token: c.token });
      expect(fixtureErrors(f)).toBeUndefined();
      expect(fixtureErrors(JSON.parse(JSON.stringify(f)))).toBeUndefined();
    }
    // The schema is not a rubber stamp.
    const broken = structuredClone(exportFixture(c.store, c.streamable)) as unknown as Record<string, unknown> & Fixture;
    delete (broken.messages[1].message as Record<string, unknown>).result;
    (broken.exchanges[0] as unknown as Record<string, unknown>).statusCode = 200;
    const errors = fixtureErrors(broken);
    expect(errors).toMatch(/\/messages\/1\/message must have required property 'result'/);
    expect(errors).toMatch(/\/exchanges\/0 must NOT have additional properties.*statusCode/);
    expect(fixtureErrors({ ...exportFixture(c.store, c.streamable), version: 2 })).toMatch(/version/);
  });

  it('has the header, the session handshake and generator/exportedAt as asked', () => {
    const c = recordScriptedCapture();
    const f = exportFixture(c.store, c.streamable, { generator: 'unit-test 1', now: NOW });
    expect(f.format).toBe(FIXTURE_FORMAT);
    expect(f.version).toBe(FIXTURE_VERSION);
    expect(f.generator).toBe('unit-test 1');
    expect(f.exportedAt).toBe('2026-02-01T10:00:00.000Z');
    expect(exportFixture(c.store, c.streamable).generator).toMatch(/^mcpscope \d+\.\d+\.\d+/);
    const s = c.store.sessions.get(c.streamable)!;
    expect(f.session).toEqual({
      id: c.streamable,
      transport: 'streamable-http',
      target: 'http://127.0.0.1:3001/mcp',
      protocolVersion: '2025-06-18',
      clientInfo: { name: 'scripted-client', version: '1.0.0' },
      serverInfo: { name: 'scripted-server', version: '2.0.0' },
      clientCapabilities: { sampling: {} },
      serverCapabilities: { tools: { listChanged: true } },
      startedAt: s.startedAt,
      durationMs: s.endedAt! - s.startedAt,
      closeReason: 'deleted',
    });
  });

  it('lists every message of the session in wire order, with its links, and nothing of other sessions', () => {
    const c = recordScriptedCapture();
    const f = exportFixture(c.store, c.streamable);
    const stored = c.store.messages(c.streamable);
    expect(f.messages.map((m) => m.seq)).toEqual(stored.map((m) => m.seq));
    expect(f.messages.map((m) => m.message)).toEqual(stored.map((m) => m.jsonrpc));
    const bySeq = new Map(f.messages.map((m) => [m.seq, m]));
    for (const [i, m] of f.messages.entries()) {
      const e = stored[i];
      expect([m.dir, m.kind, m.carrier, m.exchange, m.pair, m.parent, m.eventId]).toEqual([
        e.dir,
        e.kind,
        e.carrier,
        e.exchangeId,
        e.pair,
        e.parent,
        e.location?.eventId,
      ]);
      // Every link points at a message in the fixture, earlier in wire order.
      for (const link of [m.pair, m.parent]) if (link !== undefined) expect(bySeq.get(link)!.seq).toBeLessThan(m.seq);
    }
    // The shape of the scenario, by method and link.
    const call = f.messages.find((m) => m.kind === 'request' && m.method === 'tools/call' && m.name === 'echo')!;
    const progress = f.messages.find((m) => m.method === 'notifications/progress')!;
    const sampling = f.messages.find((m) => m.kind === 'request' && m.method === 'sampling/createMessage')!;
    const samplingReply = f.messages.find((m) => m.dir === 'c2s' && m.kind === 'response')!;
    const result = f.messages.find((m) => m.kind === 'response' && m.pair === call.seq)!;
    expect([progress.pair, progress.parent, progress.eventId]).toEqual([call.seq, call.seq, 'e1']);
    expect([sampling.parent, samplingReply.pair, samplingReply.parent]).toEqual([call.seq, sampling.seq, call.seq]);
    expect(result.eventId).toBe('e3');
    const batch = f.messages.filter((m) => m.batch);
    expect(batch.map((m) => [m.dir, m.method, m.batch])).toEqual([
      ['c2s', 'tools/list', { index: 0, size: 2 }],
      ['c2s', 'ping', { index: 1, size: 2 }],
      ['s2c', 'tools/list', { index: 0, size: 2 }],
      ['s2c', 'ping', { index: 1, size: 2 }],
    ]);
    const error = f.messages.find((m) => m.kind === 'error')!;
    expect(error.message).toMatchObject({ error: { code: -32602 } });
    // The legacy session's messages are not here.
    expect(f.messages.some((m) => m.exchange === 'x10' || m.exchange === 'x11')).toBe(false);
  });

  it('times are ms since the session started; exchanges carry the HTTP layer', () => {
    const c = recordScriptedCapture();
    const f = exportFixture(c.store, c.streamable);
    const start = f.session.startedAt;
    const stored = c.store.messages(c.streamable);
    expect(f.messages.map((m) => m.t)).toEqual(stored.map((m) => m.ts - start));
    expect(f.exchanges[0].t).toBe(0);
    expect(f.exchanges.map((x) => x.id)).toEqual(['x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8']);
    const x4 = f.exchanges.find((x) => x.id === 'x4')!;
    const info = c.store.exchanges.get('x4')!;
    expect(x4).toMatchObject({
      t: info.startedAt - start,
      waitMs: info.respondedAt! - info.startedAt,
      durationMs: info.endedAt! - info.startedAt,
      method: 'POST',
      url: '/mcp',
      upstreamUrl: 'http://127.0.0.1:3001/mcp',
      status: 200,
      carrier: 'post-sse',
      responseHeaders: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
      sse: [{ what: 'priming', eventId: 'e0', retry: 1000, data: '' }],
    });
    expect(f.exchanges.find((x) => x.id === 'x2')).toMatchObject({ status: 202, responsePreview: 'Accepted' });
    expect(f.exchanges.find((x) => x.id === 'x7')).toMatchObject({
      method: 'GET',
      carrier: 'get-sse',
      sse: [{ what: 'comment', comment: ' keep-alive' }],
    });
    // The OAuth exchange is plain HTTP, in the http bucket of its origin: not in this fixture.
    expect(f.exchanges.some((x) => x.url === '/token')).toBe(false);
    expect(f.problems).toBeUndefined();
    expect(f.modifications).toBeUndefined();
  });

  it('legacy HTTP+SSE: the endpoint, custom events and the proxy modification are kept', () => {
    const c = recordScriptedCapture();
    const f = exportFixture(c.store, c.legacy);
    expect(f.session.transport).toBe('legacy-sse');
    const stream = f.exchanges.find((x) => x.method === 'GET')!;
    expect(stream.endpoint).toBe('http://127.0.0.1:3001/message?sessionId=L1');
    expect(stream.sse?.map((s) => [s.what, s.eventType, s.data])).toEqual([
      ['endpoint', 'endpoint', 'http://127.0.0.1:3001/message?sessionId=L1'],
      ['other', 'heartbeat', 'tick'],
    ]);
    expect(f.modifications).toEqual([
      expect.objectContaining({
        exchange: stream.id,
        what: 'endpoint-rewrite',
        before: 'http://127.0.0.1:3001/message?sessionId=L1',
        after: 'http://127.0.0.1:6481/message?sessionId=L1',
      }),
    ]);
    expect(f.messages.map((m) => [m.dir, m.kind, m.carrier])).toEqual([
      ['c2s', 'request', 'post-body'],
      ['s2c', 'response', 'legacy-sse'],
    ]);
  });

  it('redacts on export even when the capture was recorded with --show-secrets, and never holds the proxy token', () => {
    const c = recordScriptedCapture({ showSecrets: true });
    // The store really holds the credential (so this test can fail).
    expect(JSON.stringify(c.store.snapshot())).toContain('sk-live-secret-value');
    const f = exportFixture(c.store, c.streamable, { token: c.token });
    const text = JSON.stringify(f);
    for (const secret of SCRIPTED_SECRETS) expect(text).not.toContain(secret);
    expect(f.exchanges[0].requestHeaders.authorization).toBe('Bearer [redacted]');
    expect(fixtureErrors(f)).toBeUndefined();
  });

  it('scrubs the proxy token wherever it got into the store (values and keys)', () => {
    const c = recordScriptedCapture();
    // Simulate a recorder that missed it: a message carrying the token in a value and a key.
    const any = c.store.messages(c.streamable)[0];
    c.store.append({
      ...(any as Omit<MessageEvent, 'seq'>),
      ts: any.ts + 1,
      jsonrpc: { jsonrpc: '2.0', method: 'notifications/message', params: { [SCRIPTED_TOKEN]: `token ${SCRIPTED_TOKEN}` } },
      kind: 'notification',
      raw: undefined,
    });
    c.store.commit();
    const text = JSON.stringify(exportFixture(c.store, c.streamable, { token: SCRIPTED_TOKEN }));
    expect(text).not.toContain(SCRIPTED_TOKEN);
    expect(text).toContain('"[redacted]":"token [redacted]"');
    // Without the token option it would have stayed: the option is what protects it.
    expect(JSON.stringify(exportFixture(c.store, c.streamable))).toContain(SCRIPTED_TOKEN);
  });

  it('a stdio session: no exchanges, messages carried by stdio, still valid, and it reads back', () => {
    const store = new EventStore();
    const recorder = new Recorder({ store, redactor: createRedactor() });
    const line = (v: unknown) => new TextEncoder().encode(`${JSON.stringify(v)}\n`);
    const t0 = 1_700_000_000_000;
    const records: WireRecord[] = [
      { t: 'stdio-start', xid: 'p1', ts: t0, command: 'node', args: ['server.js'] },
      {
        t: 'stdio-chunk',
        xid: 'p1',
        ts: t0 + 5,
        dir: 'c2s',
        chunk: line({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
        }),
      },
      {
        t: 'stdio-chunk',
        xid: 'p1',
        ts: t0 + 9,
        dir: 's2c',
        chunk: line({
          jsonrpc: '2.0',
          id: 0,
          result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'stdio-server', version: '1' } },
        }),
      },
      { t: 'stdio-exit', xid: 'p1', ts: t0 + 20, code: 0, signal: null },
    ];
    recorder.handle(records);
    const session = [...store.sessions.values()][0];
    const f = exportFixture(store, session.id);
    expect(fixtureErrors(f)).toBeUndefined();
    expect(f.session).toMatchObject({ transport: 'stdio', serverInfo: { name: 'stdio-server' } });
    expect(f.session.target).toContain('server.js');
    expect(f.exchanges).toEqual([]);
    expect(f.messages.map((m) => [m.dir, m.kind, m.carrier, m.t, m.exchange])).toEqual([
      ['c2s', 'request', 'stdio', 5, undefined],
      ['s2c', 'response', 'stdio', 9, undefined],
    ]);
    const back = readCapture(JSON.stringify(f)).events.filter((e) => e.type === 'message');
    expect(back.map((m) => m.type === 'message' && [m.carrier, m.pair])).toEqual([
      ['stdio', undefined],
      ['stdio', back[0].seq],
    ]);
  });

  it('an unknown session is an error naming it', () => {
    const c = recordScriptedCapture();
    expect(() => exportFixture(c.store, 's99')).toThrow(UnknownSessionError);
    expect(() => exportFixture(c.store, 's99')).toThrow(/s99/);
  });
});

describe('exportFixture: spec violations', () => {
  it('keeps each violation with its rule, specRef, message, path and expected; importing it counts them as the live session did', () => {
    const c = recordViolatingSession();
    expect(c.violations).toHaveLength(1);
    const fixture = exportFixture(c.store, c.sessionId);
    expect(fixture.problems).toEqual([
      expect.objectContaining({
        code: 'spec-violation',
        level: 'warn',
        rule: VIOLATION_RULE,
        specRef: '2025-06-18 server/tools#calling-tools',
        message: c.call.seq,
        path: '/params/arguments/a',
        expected: 'a number',
      }),
    ]);
    const live = [...c.store.sessions.values()][0]!;
    const back = readCapture(JSON.stringify(fixture)).events;
    const session = [...latestSessions(back).values()][0]!;
    expect(session.counts).toEqual(live.counts);
    expect(session.counts.violations).toBe(1);
    const problem = back.find((e) => e.type === 'problem' && e.code === 'spec-violation');
    expect(problem).toMatchObject({ rule: VIOLATION_RULE, path: '/params/arguments/a', expected: 'a number' });
    // Its message link still names the tools/call (seqs are kept in a fixture).
    const m = back.find((e) => e.type === 'message' && e.seq === (problem as { message?: number }).message);
    expect(m).toMatchObject({ method: 'tools/call', kind: 'request' });
  });

  it('under --lint strict the violation is an error, and counted as one after import too', () => {
    const c = recordViolatingSession('strict');
    const live = [...c.store.sessions.values()][0]!;
    expect(c.violations[0]!.level).toBe('error');
    const back = readCapture(JSON.stringify(exportFixture(c.store, c.sessionId))).events;
    expect([...latestSessions(back).values()][0]!.counts).toEqual(live.counts);
  });
});
