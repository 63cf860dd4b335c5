/**
 * A saved capture → events: fixture, NDJSON (and JSON event arrays), HAR (mcpscope's own and a
 * browser's), detected by content; plain-words errors for anything else; and appending an import
 * to a store (new seqs, links remapped, colliding ids re-keyed).
 */
import { describe, expect, it, vi } from 'vitest';
import { exportFixture } from '../../../proxy/files/export/export-fixture.js';
import { exportHar } from '../../../proxy/files/export/export-har.js';
import { exportNdjson } from '../../../proxy/files/export/export-ndjson.js';
import { appendImported, importCapture, readCapture } from '../../../proxy/files/import/import-capture.js';
import { CaptureFormatError } from '../../../proxy/core/model/errors.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';
import { jsonValueDepth, MAX_JSON_DEPTH } from '../../../proxy/core/parse/json-depth.js';
import type { McpscopeEvent, MessageEvent, ProblemEvent } from '../../../proxy/core/model/events.js';
import { latestSessions } from '../../support/recorder-harness.js';
import { recordViolatingSession } from '../../support/violating-session.js';
import { recordScriptedCapture } from '../../support/scripted-session.js';
import { json, setup, type Wire } from '../../support/recorder-harness.js';
import { DEEP_LEVELS, deepCaptureSessionLine, deepObj } from '../../support/deep-capture.js';

const messagesOf = (events: readonly McpscopeEvent[], sessionId?: string): MessageEvent[] =>
  events.filter((e): e is MessageEvent => e.type === 'message' && (sessionId === undefined || e.sessionId === sessionId));

/** Messages described by content and links (links as indexes into the list), independent of seq numbering. */
function shape(messages: readonly MessageEvent[]) {
  const index = new Map(messages.map((m, i) => [m.seq, i]));
  const link = (seq: number | undefined) => (seq === undefined ? undefined : (index.get(seq) ?? 'dangling'));
  return messages.map((m) => ({
    dir: m.dir,
    kind: m.kind,
    carrier: m.carrier,
    method: m.method,
    id: m.id,
    jsonrpc: m.jsonrpc,
    pair: link(m.pair),
    parent: link(m.parent),
    eventId: m.location?.eventId,
  }));
}

describe('readCapture: fixture', () => {
  it('rebuilds the session, its exchanges and every message with its links', () => {
    const c = recordScriptedCapture();
    const fixture = exportFixture(c.store, c.streamable, { token: c.token });
    const result = readCapture(JSON.stringify(fixture, null, 2));
    expect(result.kind).toBe('fixture');
    expect(result.warnings).toEqual([]);
    const seqs = result.events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs.keys()].map((i) => i + 1));
    expect(shape(messagesOf(result.events))).toEqual(shape(c.store.messages(c.streamable)));

    const original = c.store.sessions.get(c.streamable)!;
    const session = latestSessions(result.events).get(c.streamable)!;
    expect(session).toMatchObject({
      transport: 'streamable-http',
      mcpSessionId: 'mcp-sess-7f3a',
      serverInfo: original.serverInfo,
      clientInfo: original.clientInfo,
      protocolVersion: '2025-06-18',
      status: 'closed',
      closeReason: 'deleted',
      startedAt: original.startedAt,
      endedAt: original.endedAt,
    });
    expect(session.counts).toEqual({ ...original.counts });
    const exchanges = result.events.filter((e) => e.type === 'exchange');
    expect(
      exchanges.map((e) => e.type === 'exchange' && [e.exchange.id, e.exchange.method, e.exchange.status, e.exchange.startedAt]),
    ).toEqual(
      [...c.store.exchanges.values()].filter((x) => x.sessionId === c.streamable).map((x) => [x.id, x.method, x.status, x.startedAt]),
    );
    const priming = result.events.find((e) => e.type === 'sse' && e.what === 'priming');
    expect(priming).toMatchObject({ exchangeId: 'x4', eventId: 'e0', retry: 1000, raw: 'id: e0\nretry: 1000\ndata: \n\n' });
    // Progress is understood again.
    expect(messagesOf(result.events).find((m) => m.method === 'notifications/progress')).toMatchObject({
      progressToken: 7,
      progress: { progress: 1, total: 2, message: 'half' },
    });
  });

  it('refuses a fixture of a newer version, or a broken one, in plain words', () => {
    const c = recordScriptedCapture();
    const fixture = exportFixture(c.store, c.streamable);
    expect(() => readCapture(JSON.stringify({ ...fixture, version: 2 }))).toThrow(
      /version 2; this mcpscope reads version 1\. Upgrade mcpscope/,
    );
    expect(() => readCapture(JSON.stringify({ ...fixture, session: undefined }))).toThrow(/no valid "session"/);
    expect(() => readCapture(JSON.stringify({ ...fixture, messages: [{ seq: 1 }] }))).toThrow(/Message 1 of this fixture is not valid/);
  });
});

/** A streamable session: initialize, a call answered, a call the client cancels (no answer), and `end` (nothing, or the DELETE). */
function cancelledCallSession(end: 'open' | 'deleted') {
  const { store, w, feed } = setup();
  const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const sh = { ...h, 'mcp-session-id': 'S', 'mcp-protocol-version': '2025-11-25' };
  const post = (body: unknown, headers: Record<string, string> = sh) => w.send(w.xid(), 'POST', '/mcp', headers, json(body));
  const answer = (xid: string, body: unknown, extra = {}) =>
    w.reply(xid, 200, { 'content-type': 'application/json', ...extra }, json(body));
  const xid = (recs: ReturnType<Wire['send']>) => recs[0].xid;
  const init = post(
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    },
    h,
  );
  feed([
    ...init,
    ...answer(
      xid(init),
      { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } } },
      { 'mcp-session-id': 'S' },
    ),
  ]);
  const echo = post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } });
  feed([...echo, ...answer(xid(echo), { jsonrpc: '2.0', id: 1, result: { content: [] } })]);
  const slow = post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } });
  feed([...slow, w.head(xid(slow), 200, { 'content-type': 'text/event-stream' })]);
  const cancel = post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'bored' } });
  feed([...cancel, ...w.reply(xid(cancel), 202, {})]);
  feed([{ t: 'abort', xid: xid(slow), ts: w.ts(), side: 'client', reason: 'the client closed the connection' }]);
  if (end === 'deleted') {
    const del = w.send(w.xid(), 'DELETE', '/mcp', sh);
    feed([...del, ...w.reply(xid(del), 200, {})]);
  }
  return store;
}

describe('readCapture: a fixture counts as the live session did', () => {
  it.each(['open', 'deleted'] as const)(
    'a cancelled call is not pending (session %s), in a fixture as live and in NDJSON and HAR',
    (end) => {
      const store = cancelledCallSession(end);
      const live = store.sessions.get('s1')!;
      expect(live.counts).toMatchObject({ requests: 3, pending: 0 });
      for (const text of [JSON.stringify(exportFixture(store, 's1')), exportNdjson(store, 's1'), JSON.stringify(exportHar(store, 's1'))]) {
        const sessions = [...latestSessions(readCapture(text).events).values()];
        expect(sessions.map((s) => s.counts)).toEqual([live.counts]);
      }
    },
  );

  it('a call mcpscope answered itself (the upstream down) counts the same from a fixture, NDJSON and HAR: its problem too', () => {
    const { store, w, feed } = setup();
    const x = w.xid();
    const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'D' };
    const message =
      'mcpscope could not get a response from http://upstream.test/mcp: connection refused — is the server running on that port?';
    feed([
      ...w.send(x, 'POST', '/mcp', h, json({ jsonrpc: '2.0', id: 3, method: 'tools/list' })),
      w.head(x, 502, { 'content-type': 'application/json', 'x-mcpscope-error': 'ECONNREFUSED' }),
      ...w.chunks(x, json({ jsonrpc: '2.0', id: 3, error: { code: -32000, message } })),
      { t: 'upstream-error', xid: x, ts: w.ts(), code: 'ECONNREFUSED', message, status: 502 },
    ]);
    const live = store.sessions.get('s1')!;
    expect(live.counts).toEqual({ messages: 2, requests: 1, pending: 0, errors: 2, exchanges: 1 });
    for (const text of [JSON.stringify(exportFixture(store, 's1')), exportNdjson(store, 's1'), JSON.stringify(exportHar(store, 's1'))]) {
      const events = readCapture(text).events;
      expect([...latestSessions(events).values()].map((s) => s.counts)).toEqual([live.counts]);
      expect(events.filter((e) => e.type === 'problem').map((e) => (e as { code: string }).code)).toEqual(['upstream-unreachable']);
    }
  });

  it('a call refused by HTTP alone (400 with an id-null error, 401 without a body) is failed, not pending, from a fixture, NDJSON and HAR', () => {
    const { store, w, feed } = setup();
    const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const x = w.xid();
    const notInitialized = { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Server not initialized' }, id: null };
    feed([
      ...w.send(x, 'POST', '/mcp', h, json({ jsonrpc: '2.0', id: 1, method: 'tools/list' })),
      ...w.reply(x, 400, { 'content-type': 'application/json' }, json(notInitialized)),
    ]);
    const y = w.xid();
    feed([...w.send(y, 'POST', '/mcp', h, json({ jsonrpc: '2.0', id: 2, method: 'tools/list' })), ...w.reply(y, 401, {})]);
    const live = store.sessions.get('s1')!;
    expect(live.counts).toMatchObject({ requests: 2, pending: 0, failed: 2 });
    for (const text of [JSON.stringify(exportFixture(store, 's1')), exportNdjson(store, 's1'), JSON.stringify(exportHar(store, 's1'))]) {
      const sessions = [...latestSessions(readCapture(text).events).values()];
      expect(sessions.map((s) => s.counts)).toEqual([live.counts]);
    }
  });

  it('a closed session has nothing pending, answered or not (the recorder stops waiting when it closes)', () => {
    const { store, w, feed } = setup();
    const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const x = w.xid();
    feed([
      ...w.send(
        x,
        'POST',
        '/mcp',
        h,
        json({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
        }),
      ),
      w.head(x, 200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'T' }),
    ]);
    const del = w.xid();
    feed([...w.send(del, 'DELETE', '/mcp', { 'mcp-session-id': 'T' }), ...w.reply(del, 200, {})]);
    const live = store.sessions.get('s1')!;
    expect(live).toMatchObject({ status: 'closed', counts: { requests: 1, pending: 0 } });
    expect(latestSessions(readCapture(JSON.stringify(exportFixture(store, 's1'))).events).get('s1')?.counts).toEqual(live.counts);
  });
});

describe('readCapture: NDJSON and event arrays', () => {
  it('reads an NDJSON export back as the very same events', () => {
    const c = recordScriptedCapture();
    const text = exportNdjson(c.store);
    const result = readCapture(text);
    expect(result.kind).toBe('ndjson');
    expect(result.events).toEqual(JSON.parse(JSON.stringify(c.store.snapshot())));
    // CRLF line ends, blank lines and a BOM are fine.
    expect(readCapture(`\ufeff${text.replace(/\n/g, '\r\n\r\n')}`).events).toHaveLength(result.events.length);
    // One event alone, and a JSON array of events (/api/events).
    expect(readCapture(text.split('\n')[0]).events).toHaveLength(1);
    const array = readCapture(JSON.stringify(c.store.snapshot()));
    expect(array.kind).toBe('events');
    expect(array.events).toHaveLength(result.events.length);
  });

  it('skips a truncated last line with a warning; a bad line anywhere else is an error naming it', () => {
    const c = recordScriptedCapture();
    const text = exportNdjson(c.store);
    const n = text.split('\n').length - 1;
    const cut = text + text.split('\n')[3].slice(0, 25);
    const onWarning = vi.fn();
    expect(importCapture(cut, { onWarning })).toHaveLength(n);
    expect(onWarning).toHaveBeenCalledTimes(1);
    expect(onWarning.mock.calls[0][0]).toMatch(
      new RegExp(`last line \\(line ${n + 1}\\) is incomplete.*${n} events before it were loaded`),
    );

    const lines = text.split('\n');
    lines[2] = lines[2].slice(0, 20);
    expect(() => readCapture(lines.join('\n'))).toThrow(/Line 3 of this NDJSON file is not valid JSON/);
    // A cut line that is followed by a newline is not "the last line cut short" either.
    expect(() => readCapture(`${cut}\n`)).toThrow(new RegExp(`Line ${n + 1} of this NDJSON file is not valid JSON`));
    const notEvent = text.split('\n');
    notEvent[4] = '{"hello":"world"}';
    expect(() => readCapture(notEvent.join('\n'))).toThrow(/Line 5 of this NDJSON file is not an mcpscope event: it has no known "type"/);
  });
});

describe('readCapture: HAR', () => {
  it("mcpscope's own HAR goes through the recorder and comes back as the same sessions and messages", () => {
    const c = recordScriptedCapture();
    const har = exportHar(c.store, undefined, { token: c.token });
    const result = readCapture(JSON.stringify(har));
    expect(result.kind).toBe('har');
    expect(result.warnings).toEqual([]);
    const sessions = latestSessions(result.events);
    expect([...sessions.values()].map((s) => [s.transport, s.serverInfo?.name, s.status, s.closeReason])).toEqual([
      ['streamable-http', 'scripted-server', 'closed', 'deleted'],
      ['http', undefined, 'open', undefined],
      ['legacy-sse', 'legacy-server', 'closed', 'stream-closed'],
    ]);
    for (const [i, id] of [c.streamable, c.legacy].entries()) {
      const imported = [...sessions.keys()][i * 2];
      // The sampling reply is paired with the sampling request, progress with its call, the
      // legacy response (on the GET stream) with the POSTed request: timing from _eventSourceMessages.
      expect(shape(messagesOf(result.events, imported))).toEqual(shape(c.store.messages(id)));
    }
    const priming = result.events.find((e) => e.type === 'sse' && e.what === 'priming');
    expect(priming).toMatchObject({ eventId: 'e0', retry: 1000 });
    expect(
      result.events.some(
        (e) => e.type === 'exchange' && e.exchange.url === '/token' && e.exchange.requestPreview?.includes('code=[redacted]'),
      ),
    ).toBe(true);
    // The OAuth token exchange is plain HTTP again (not a not-jsonrpc problem): its URL is not the MCP endpoint.
    const token = result.events.filter((e) => e.type === 'exchange' && e.exchange.url === '/token').at(-1);
    expect(token?.type === 'exchange' && token.exchange.plain).toBe(true);
    expect(token?.type === 'exchange' && token.exchange.hints.map((h) => h.code)).toEqual([
      'oauth-token-request',
      'resource-missing',
      'oauth-tokens-issued',
    ]);
    expect(result.events.filter((e) => e.type === 'problem')).toEqual([]);
  });

  it('a fixture of an http bucket comes back as plain exchanges with their hints, and no error counted', () => {
    const c = recordScriptedCapture();
    const bucket = [...c.store.sessions.values()].find((s) => s.transport === 'http')!;
    const result = readCapture(JSON.stringify(exportFixture(c.store, bucket.id, { token: c.token })));
    const session = [...latestSessions(result.events).values()][0];
    expect(session).toMatchObject({ transport: 'http', target: 'http://127.0.0.1:3001', counts: { messages: 0, errors: 0, exchanges: 1 } });
    const x = result.events.find((e) => e.type === 'exchange');
    expect(x?.type === 'exchange' && x.exchange).toMatchObject({ url: '/token', plain: true });
    expect(x?.type === 'exchange' && x.exchange.hints.map((h) => h.code)).toEqual([
      'oauth-token-request',
      'resource-missing',
      'oauth-tokens-issued',
    ]);
  });

  it("reads a browser's HAR: encoded bodies, no _eventSourceMessages, secrets redacted on the way in", () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'browser', version: '1' } },
    };
    const result = {
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'remote', version: '3' } },
    };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const listResult = { jsonrpc: '2.0', id: 2, result: { tools: [] } };
    const har = {
      log: {
        version: '1.2',
        creator: { name: 'WebInspector', version: '537.36' },
        entries: [
          {
            startedDateTime: '2026-03-01T12:00:00.000Z',
            time: 30,
            request: {
              method: 'POST',
              url: 'https://mcp.example.com/mcp',
              headers: [
                { name: ':authority', value: 'mcp.example.com' },
                { name: 'Content-Type', value: 'application/json' },
                { name: 'Authorization', value: 'Bearer browser-secret-123' },
              ],
              postData: { mimeType: 'application/json', text: JSON.stringify(init) },
            },
            response: {
              status: 200,
              headers: [
                { name: 'content-type', value: 'application/json' },
                { name: 'content-encoding', value: 'gzip' },
                { name: 'mcp-session-id', value: 'remote-1' },
              ],
              content: { mimeType: 'application/json', text: Buffer.from(JSON.stringify(result)).toString('base64'), encoding: 'base64' },
            },
            timings: { send: 1, wait: 20, receive: 9 },
          },
          {
            startedDateTime: '2026-03-01T12:00:01.000Z',
            time: 15,
            request: {
              method: 'POST',
              url: 'https://mcp.example.com/mcp',
              headers: [
                { name: 'content-type', value: 'application/json' },
                { name: 'mcp-session-id', value: 'remote-1' },
              ],
              postData: { mimeType: 'application/json', text: JSON.stringify(list) },
            },
            response: {
              status: 200,
              headers: [{ name: 'content-type', value: 'text/event-stream' }],
              content: { mimeType: 'text/event-stream', text: `event: message\ndata: ${JSON.stringify(listResult)}\n\n` },
            },
            timings: { send: 0, wait: 10, receive: 5 },
          },
          {
            startedDateTime: '2026-03-01T12:00:02.000Z',
            time: 1,
            request: { method: 'GET', url: 'data:text/plain,hi' },
            response: { status: 200 },
          },
        ],
      },
    };
    // (gzip is declared, but HAR bodies are stored decoded: the header must not make the recorder gunzip.)
    const out = readCapture(JSON.stringify(har));
    expect(out.warnings).toEqual([expect.stringMatching(/entry 3 is not an HTTP request/)]);
    const sessions = [...latestSessions(out.events).values()];
    expect(sessions.map((s) => [s.target, s.mcpSessionId, s.serverInfo?.name])).toEqual([
      ['https://mcp.example.com/mcp', 'remote-1', 'remote'],
    ]);
    expect(shape(messagesOf(out.events)).map((m) => [m.dir, m.kind, m.method, m.carrier, m.pair])).toEqual([
      ['c2s', 'request', 'initialize', 'post-body', undefined],
      ['s2c', 'response', 'initialize', 'post-json', 0],
      ['c2s', 'request', 'tools/list', 'post-body', undefined],
      ['s2c', 'response', 'tools/list', 'post-sse', 2],
    ]);
    expect(JSON.stringify(out.events)).not.toContain('browser-secret-123');
    // No problem but the spec linter's: this browser's session skipped notifications/initialized, called
    // tools/list on a server that declared no tools, and sent no MCP-Protocol-Version header (2025-06-18).
    const problems = out.events.filter((e): e is ProblemEvent => e.type === 'problem');
    expect(problems.map((p) => [p.code, p.rule, p.message])).toEqual([
      ['spec-violation', 'lifecycle/request-before-initialized', messagesOf(out.events)[2].seq],
      ['spec-violation', 'capability/tools-not-declared', messagesOf(out.events)[2].seq],
      ['spec-violation', 'http/protocol-version-header-missing', messagesOf(out.events)[2].seq],
    ]);
  });
});

describe('readCapture: anything else', () => {
  it.each([
    ['', /The file is empty/],
    ['   \n  ', /The file is empty/],
    ['hello world', /This is not JSON or NDJSON/],
    ['<html><body>hi</body></html>', /This is not JSON or NDJSON/],
    ['{"format":"openapi","version":3}', /a "openapi" document, not an mcpscope capture/],
    ['{"hello":"world"}', /This JSON is not an mcpscope capture/],
    ['[1,2,3]', /not a list of mcpscope events: item 1 is not a JSON object/],
    ['[1,2', /looks like JSON but does not parse/],
    ['{"type":"message"', /line 1 does not parse/],
  ])('%j is refused in plain words', (input, message) => {
    let error: unknown;
    try {
      readCapture(input);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CaptureFormatError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toMatch(/fixture|NDJSON|HAR|JSON/);
  });
});

describe('appendImported', () => {
  it('appends with fresh seqs and remapped links; colliding session and exchange ids are re-keyed', () => {
    const c = recordScriptedCapture();
    const fixture = JSON.stringify(exportFixture(c.store, c.streamable));
    const store = new EventStore();
    const committed: number[] = [];
    store.subscribe((b) => committed.push(b.length));
    const first = appendImported(store, readCapture(fixture).events);
    expect(first.sessions).toEqual([c.streamable]);
    expect(committed).toEqual([first.events]);
    const second = appendImported(store, readCapture(fixture).events);
    expect(second.sessions).toHaveLength(1);
    const renamed = second.sessions[0];
    expect(renamed).toMatch(new RegExp(`^${c.streamable}-i\\d+$`));
    expect(store.sessions.size).toBe(2);
    // Both copies are whole and linked within themselves.
    expect(shape(store.messages(renamed))).toEqual(shape(c.store.messages(c.streamable)));
    expect(shape(store.messages(c.streamable))).toEqual(shape(c.store.messages(c.streamable)));
    for (const m of store.messages(renamed)) {
      expect(m.exchangeId).toMatch(/^x\d+-i\d+$/);
      if (m.pair !== undefined) expect(store.message(m.pair)?.sessionId).toBe(renamed);
    }
    const exchanges = [...store.exchanges.values()];
    expect(exchanges.filter((x) => x.sessionId === renamed)).toHaveLength(8);
    expect(exchanges.filter((x) => x.sessionId === c.streamable)).toHaveLength(8);
  });

  it('an edited message still names its breakpoint modification when appended (twice)', () => {
    const session = {
      id: 's1',
      transport: 'stdio',
      target: 'srv',
      startedAt: 1,
      status: 'open',
      counts: { messages: 1, requests: 1, pending: 1, errors: 0, exchanges: 0 },
    };
    const events = [
      { type: 'session', seq: 1, ts: 1, session },
      {
        type: 'modification',
        seq: 2,
        ts: 2,
        sessionId: 's1',
        exchangeId: '',
        what: 'breakpoint-edit',
        before: '{"a":1}',
        after: '{"a":2}',
        text: 'edited',
      },
      {
        type: 'message',
        seq: 3,
        ts: 3,
        sessionId: 's1',
        dir: 'c2s',
        kind: 'request',
        carrier: 'stdio',
        jsonrpc: { jsonrpc: '2.0', id: 1, method: 'ping' },
        size: 10,
        id: 1,
        method: 'ping',
        edited: 2,
        hints: [],
      },
    ] as unknown as McpscopeEvent[];
    const store = new EventStore();
    appendImported(store, events);
    appendImported(store, events);
    const edited = store.snapshot().filter((e): e is MessageEvent => e.type === 'message');
    expect(edited).toHaveLength(2);
    for (const m of edited) {
      const mod = store.snapshot().find((e) => e.seq === m.edited);
      expect(mod).toMatchObject({ type: 'modification', what: 'breakpoint-edit', sessionId: m.sessionId });
    }
  });

  it('a spec violation comes right after its message and still names it, in a fixture and appended twice', () => {
    const c = recordViolatingSession();
    const fixture = JSON.stringify(exportFixture(c.store, c.sessionId));
    const read = readCapture(fixture).events;
    const at = read.findIndex((e) => e.type === 'problem' && e.code === 'spec-violation');
    expect(read[at - 1]).toMatchObject({ type: 'message', method: 'tools/call', kind: 'request' });
    expect(read[at]).toMatchObject({ message: read[at - 1]!.seq });
    const store = new EventStore();
    appendImported(store, read);
    appendImported(store, read);
    const violations = store.snapshot().filter((e): e is ProblemEvent => e.type === 'problem' && e.code === 'spec-violation');
    expect(violations).toHaveLength(2);
    for (const v of violations) {
      const m = store.message(v.message!);
      expect(m).toMatchObject({ method: 'tools/call', kind: 'request', sessionId: v.sessionId });
    }
    expect(violations[0]!.message).not.toBe(violations[1]!.message);
  });

  it('avoidLiveIds: ids a live recorder could hand out later are renamed even when free', () => {
    const c = recordScriptedCapture();
    const store = new EventStore();
    const result = appendImported(store, readCapture(exportNdjson(c.store)).events, { avoidLiveIds: true });
    expect(result.sessions.every((s) => /^s\d+-i\d+$/.test(s))).toBe(true);
    expect([...store.exchanges.keys()].every((x) => /^x\d+-i\d+$/.test(x))).toBe(true);
    expect(result.events).toBe(c.store.snapshot().length);
  });
});

describe('readCapture: JSON nested 100,000 levels deep is cut on load', () => {
  const D = DEEP_LEVELS;
  const sessionLine = deepCaptureSessionLine;
  const messageLine = `{"type":"message","seq":2,"ts":2,"sessionId":"s1","dir":"c2s","kind":"request","carrier":"post-body","size":10,"id":1,"method":"tools/call","hints":[],"raw":${JSON.stringify(`{"x":${'['.repeat(1000)}${']'.repeat(1000)}}`)},"jsonrpc":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":${deepObj}}}}`;

  function checkLoaded(events: McpscopeEvent[]) {
    const [m] = messagesOf(events);
    expect(m).toMatchObject({ id: 1, method: 'tools/call', kind: 'request' });
    expect(jsonValueDepth(m.jsonrpc)).toBe(MAX_JSON_DEPTH);
    expect(m.raw).toBeUndefined(); // the UI would parse it back into the deep value
    expect(m.hints.map((h) => h.code)).toEqual(['too-deep']);
    expect(m.hints[0].text).toContain(`${(D + 2).toLocaleString('en-US')} levels deep`);
    // Everything downstream works: the store, JSON of it, exports.
    const store = new EventStore();
    appendImported(store, events);
    expect(() => JSON.stringify(store.snapshot())).not.toThrow();
    expect(exportNdjson(store)).toContain('"too-deep"');
    expect(() => exportHar(store, 's1')).not.toThrow();
    expect(() => exportFixture(store, 's1')).not.toThrow();
  }

  it('an NDJSON event log', () => {
    const r = readCapture(`${sessionLine}\n${messageLine}\n`);
    expect(r.kind).toBe('ndjson');
    checkLoaded(r.events);
  });

  it('a JSON array of events', () => {
    const r = readCapture(`[${sessionLine},${messageLine}]`);
    expect(r.kind).toBe('events');
    checkLoaded(r.events);
  });

  it('a fixture', () => {
    const fixture = `{"format":"mcpscope-fixture","version":1,"session":{"id":"s1","transport":"streamable-http","startedAt":1},"messages":[{"seq":1,"t":0,"dir":"c2s","kind":"request","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":${deepObj}}}}]}`;
    const r = readCapture(fixture);
    expect(r.kind).toBe('fixture');
    checkLoaded(r.events);
  });

  it('a HAR whose body is 100,000 levels deep: recorded through the recorder, cut there', () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":${deepObj}}}`;
    const har = {
      log: {
        version: '1.2',
        creator: { name: 't', version: '1' },
        entries: [
          {
            startedDateTime: new Date(1000).toISOString(),
            time: 1,
            request: {
              method: 'POST',
              url: 'http://x/mcp',
              headers: [{ name: 'content-type', value: 'application/json' }],
              postData: { mimeType: 'application/json', text: body },
            },
            response: { status: 202, headers: [], content: { size: 0, mimeType: 'text/plain', text: '' } },
            timings: { send: 0, wait: 1, receive: 0 },
          },
        ],
      },
    };
    const r = readCapture(JSON.stringify(har));
    expect(r.kind).toBe('har');
    const [m] = messagesOf(r.events);
    expect(m).toMatchObject({ id: 1, method: 'tools/call' });
    expect(jsonValueDepth(m.jsonrpc)).toBeLessThanOrEqual(MAX_JSON_DEPTH);
    expect(m.hints.map((h) => h.code)).toContain('too-deep');
    expect(() => JSON.stringify(r.events)).not.toThrow();
  });

  it('deep JSON anywhere else in the file is cut too', () => {
    const r = readCapture(`[${sessionLine.replace('"status":"open"', `"status":"open","serverCapabilities":${deepObj}`)}]`);
    expect(() => JSON.stringify(r.events)).not.toThrow();
  });
});
