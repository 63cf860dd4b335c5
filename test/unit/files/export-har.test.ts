/**
 * Store → HAR 1.2. The deterministic scripted capture (fixed clock, no sockets) is exported and
 * compared with a golden file, test/fixtures/golden/session.har.json, which pins the shape
 * (regenerate it with UPDATE_GOLDEN=1 after an intended change, and review the diff). Plus: it is
 * valid HAR 1.2, SSE entries carry `_eventSourceMessages`, and no secret survives.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Har as HarFormat } from 'har-format';
import { exportHar, type Har, type HarEntry } from '../../../proxy/files/export/export-har.js';
import { UnknownSessionError } from '../../../proxy/core/model/errors.js';
import { harErrors } from '../../support/har-schema.js';
import { Recorder } from '../../../proxy/recorder/recorder.js';
import { createRedactor } from '../../../proxy/recorder/redact/redact.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';
import { importCapture } from '../../../proxy/files/import/import-capture.js';
import { recordScriptedCapture, SCRIPTED_SECRETS } from '../../support/scripted-session.js';
import { recordViolatingSession, VIOLATION_RULE } from '../../support/violating-session.js';

const GOLDEN = fileURLToPath(new URL('../../fixtures/golden/session.har.json', import.meta.url));

const entryOf = (har: Har, method: string, path: string): HarEntry => {
  const e = har.log.entries.find(
    (x) => x.request.method === method && new URL(x.request.url).pathname === path && x._mcpscope.exchange !== undefined,
  );
  if (!e) throw new Error(`no ${method} ${path} entry`);
  return e;
};

describe('exportHar', () => {
  it('matches the golden file (the whole scripted capture)', () => {
    const c = recordScriptedCapture();
    const text = `${JSON.stringify(exportHar(c.store, undefined, { token: c.token, version: 'golden' }), null, 2)}\n`;
    if (process.env.UPDATE_GOLDEN === '1') {
      mkdirSync(dirname(GOLDEN), { recursive: true });
      writeFileSync(GOLDEN, text);
    }
    expect(existsSync(GOLDEN), `${GOLDEN} is missing: run with UPDATE_GOLDEN=1 to write it`).toBe(true);
    expect(text).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('is valid HAR 1.2: required fields everywhere, -1 for what is unknown', () => {
    const c = recordScriptedCapture();
    const har = exportHar(c.store, undefined, { token: c.token });
    expect(harErrors(har)).toBeUndefined();
    expect(har.log.version).toBe('1.2');
    expect(har.log.creator.name).toBe('mcpscope');
    expect(har.log.entries).toHaveLength(c.store.exchanges.size);
    for (const e of har.log.entries) {
      expect(e.timings).toMatchObject({ blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0 });
      expect(e.time).toBeCloseTo(e.timings.send + e.timings.wait + e.timings.receive, 6);
      expect([e.request.headersSize, e.response.headersSize]).toEqual([-1, -1]);
      expect(new Date(e.startedDateTime).toISOString()).toBe(e.startedDateTime);
    }
    // In the order they started.
    const starts = har.log.entries.map((e) => Date.parse(e.startedDateTime));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    // The validator is not a rubber stamp.
    const broken = structuredClone(har) as unknown as { log: { entries: Record<string, unknown>[] } };
    delete broken.log.entries[0].timings;
    expect(harErrors(broken)).toMatch(/timings/);
  });

  it("is @types/har-format's Har but for postData, which keeps a form's text beside its params", () => {
    const c = recordScriptedCapture();
    const har = exportHar(c.store, undefined, { token: c.token });
    // Compiles only while mcpscope's HAR types stay har-format's, extended (the `_…` fields).
    const asFormat: HarFormat = {
      log: { ...har.log, entries: har.log.entries.map(({ request: { postData: _, ...request }, ...e }) => ({ ...e, request })) },
    };
    expect(asFormat.log.entries).toHaveLength(har.log.entries.length);
    // har-format's PostData has text or params; a form posted here has both, as Chrome DevTools writes it.
    const form = har.log.entries.find((e) => e.request.postData?.params)?.request.postData;
    expect(form).toMatchObject({ mimeType: 'application/x-www-form-urlencoded', text: expect.any(String) });
  });

  it('request: upstream URL, headers and query as name/value lists, the client frame as postData', () => {
    const c = recordScriptedCapture();
    const har = exportHar(c.store, c.streamable, { token: c.token });
    const batch = entryOf(har, 'POST', '/mcp');
    expect(batch.request.url).toBe('http://127.0.0.1:3001/mcp');
    const q = har.log.entries.find((e) => e.request.url.endsWith('?debug=1'))!;
    expect(q.request.queryString).toEqual([{ name: 'debug', value: '1' }]);
    expect(q.request.postData).toEqual({
      mimeType: 'application/json',
      text: '[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"ping"}]',
    });
    expect(q.response.content).toMatchObject({
      mimeType: 'application/json',
      text: expect.stringMatching(/^\[\{"jsonrpc":"2\.0","id":1,"result":\{"tools"/),
    });
    expect(batch.request.headers).toContainEqual({ name: 'authorization', value: 'Bearer [redacted]' });
    expect(batch.request.headers).toContainEqual({ name: 'user-agent', value: 'scripted-client/1.0' });
    expect(batch.request.postData?.text).toBe(JSON.stringify(c.store.messages(c.streamable)[0].jsonrpc));
    expect(batch.response).toMatchObject({ status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1' });
    const get = entryOf(har, 'GET', '/mcp');
    expect(get.request.postData).toBeUndefined();
    expect(get.request.bodySize).toBe(0);
    const accepted = har.log.entries.find((e) => e.response.status === 202 && e.response.content.text === 'Accepted');
    expect(accepted?.response.statusText).toBe('Accepted');
  });

  it('SSE responses: the reassembled stream and _eventSourceMessages { time, type, id, data }', () => {
    const c = recordScriptedCapture();
    const har = exportHar(c.store, undefined, { token: c.token });
    const sseEntries = har.log.entries.filter((e) => e.response.content.mimeType === 'text/event-stream');
    expect(sseEntries.map((e) => e._mcpscope.carrier)).toEqual(['post-sse', 'get-sse', 'legacy-sse']);
    for (const e of har.log.entries) expect(e._eventSourceMessages !== undefined).toBe(e.response.content.mimeType === 'text/event-stream');

    const call = sseEntries[0];
    const messages = c.store.messages(c.streamable).filter((m) => m.exchangeId === call._mcpscope.exchange && m.dir === 's2c');
    expect(call._eventSourceMessages).toEqual(
      messages.map((m) => ({ time: m.ts / 1000, type: 'message', id: m.location!.eventId, data: JSON.stringify(m.jsonrpc) })),
    );
    expect(call.response.content.text).toMatch(
      /^id: e0\nretry: 1000\ndata:\n\nid: e1\ndata: \{"jsonrpc":"2\.0","method":"notifications\/progress"/,
    );
    expect(call.response.content.text).toContain('id: e2\nevent: message\ndata: {"jsonrpc":"2.0","id":0,"method":"sampling/createMessage"');
    expect(call.response.content.size).toBe(Buffer.byteLength(call.response.content.text!));
    expect(call._resourceType).toBe('fetch');

    const legacy = sseEntries[2];
    expect(legacy._eventSourceMessages!.map((m) => [m.type, m.id, m.type === 'message' ? JSON.parse(m.data).id : m.data])).toEqual([
      ['endpoint', '', 'http://127.0.0.1:3001/message?sessionId=L1'],
      ['message', '', 1],
      ['heartbeat', '', 'tick'],
    ]);
    expect(legacy._resourceType).toBe('eventsource');
  });

  it('a session export holds only its exchanges; an unknown session is an error', () => {
    const c = recordScriptedCapture();
    const har = exportHar(c.store, c.legacy);
    expect(har.log.entries.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}`)).toEqual(['GET /sse', 'POST /message']);
    expect(() => exportHar(c.store, 'nope')).toThrow(UnknownSessionError);
  });

  it('bodies that are not JSON-RPC still show, on the side that sent them (from the recorded problem)', () => {
    const store = new EventStore();
    const recorder = new Recorder({ store, redactor: createRedactor() });
    const enc = (t: string) => new TextEncoder().encode(t);
    const base = {
      xid: 'x1',
      method: 'POST',
      url: '/mcp',
      upstreamUrl: 'http://up.test/mcp',
      proxyOrigin: 'http://127.0.0.1:1',
      target: 'http://up.test/mcp',
    };
    recorder.handle([
      { t: 'request', ts: 1000, headers: { 'content-type': 'application/json' }, ...base },
      { t: 'request-chunk', xid: 'x1', ts: 1001, chunk: enc('{"jsonrpc":"2.0","id":1,"method":') },
      { t: 'request-end', xid: 'x1', ts: 1002 },
      { t: 'response', xid: 'x1', ts: 1010, status: 400, headers: { 'content-type': 'application/json' } },
      { t: 'response-chunk', xid: 'x1', ts: 1011, chunk: enc('{"error":"bad request","password":"pw-123456"}') },
      { t: 'response-end', xid: 'x1', ts: 1012 },
    ]);
    const [entry] = exportHar(store).log.entries;
    expect(entry.request.postData?.text).toBe('{"jsonrpc":"2.0","id":1,"method":');
    expect(entry.response.content.text).toBe('{"error":"bad request","password":"[redacted]"}');
    expect(entry.response).toMatchObject({ status: 400, statusText: 'Bad Request' });
  });

  it("request Host: the one the upstream received (its url's authority); the client's in _mcpscope.clientHost, read back on import", () => {
    const store = new EventStore();
    const recorder = new Recorder({ store, redactor: createRedactor() });
    const enc = (t: string) => new TextEncoder().encode(t);
    const exchange = (xid: string, ts: number, head: { upstreamUrl: string; proxyOrigin: string; target: string; host: string }) => {
      const { host, ...where } = head;
      recorder.handle([
        { t: 'request', xid, ts, method: 'POST', url: '/mcp', headers: { host, 'content-type': 'application/json' }, ...where },
        { t: 'request-chunk', xid, ts: ts + 1, chunk: enc(`{"jsonrpc":"2.0","id":${ts},"method":"ping"}`) },
        { t: 'request-end', xid, ts: ts + 2 },
        { t: 'response', xid, ts: ts + 3, status: 200, headers: { 'content-type': 'application/json' } },
        { t: 'response-chunk', xid, ts: ts + 4, chunk: enc(`{"jsonrpc":"2.0","id":${ts},"result":{}}`) },
        { t: 'response-end', xid, ts: ts + 5 },
      ]);
    };
    // Reverse mode: the client addressed the proxy; the upstream got its own authority as Host.
    exchange('x1', 1000, {
      upstreamUrl: 'http://upstream.test:3001/mcp',
      proxyOrigin: 'http://127.0.0.1:6481',
      target: 'http://upstream.test:3001/mcp',
      host: '127.0.0.1:6481',
    });
    // Forward mode: the client's Host names the server already; nothing to keep beside it.
    exchange('x2', 2000, {
      upstreamUrl: 'https://api.example.test/mcp',
      proxyOrigin: 'https://api.example.test',
      target: 'https://api.example.test',
      host: 'api.example.test',
    });
    const har = exportHar(store);
    expect(harErrors(har)).toBeUndefined();
    const [reverse, forward] = har.log.entries;
    const hosts = (e: HarEntry) => e.request.headers.filter((h) => h.name === 'host').map((h) => h.value);
    expect(reverse.request.url).toBe('http://upstream.test:3001/mcp');
    expect(hosts(reverse)).toEqual(['upstream.test:3001']);
    expect(reverse._mcpscope.clientHost).toBe('127.0.0.1:6481');
    // The other headers keep their place.
    expect(reverse.request.headers.map((h) => h.name)).toEqual(['host', 'content-type']);
    expect(hosts(forward)).toEqual(['api.example.test']);
    expect(forward._mcpscope).not.toHaveProperty('clientHost');

    // Read back, each exchange holds the headers its client sent again, and exports the same.
    const imported = new EventStore();
    for (const e of importCapture(JSON.stringify(har))) imported.append(e);
    const headers = [...imported.exchanges.values()].map((x) => x.requestHeaders.host);
    expect(headers).toEqual(['127.0.0.1:6481', 'api.example.test']);
    const again = exportHar(imported).log.entries;
    expect(again.map(hosts)).toEqual([['upstream.test:3001'], ['api.example.test']]);
    expect(again.map((e) => e._mcpscope.clientHost)).toEqual(['127.0.0.1:6481', undefined]);
  });

  it('a request mcpscope refused (it reached no upstream), or whose upstream URL cannot be read, keeps the Host the client sent', () => {
    for (const upstreamUrl of ['', 'http://[not a url']) {
      const store = new EventStore();
      const recorder = new Recorder({ store, redactor: createRedactor() });
      recorder.handle([
        {
          t: 'request',
          xid: 'x1',
          ts: 1000,
          method: 'POST',
          url: '/mcp',
          upstreamUrl,
          headers: { host: 'evil.test:6481' },
          proxyOrigin: 'http://127.0.0.1:6481',
          target: 'http://upstream.test:3001/mcp',
        },
        { t: 'request-end', xid: 'x1', ts: 1001 },
        { t: 'response', xid: 'x1', ts: 1002, status: 403, headers: { 'content-type': 'application/json' } },
        { t: 'response-end', xid: 'x1', ts: 1003 },
      ]);
      const [entry] = exportHar(store).log.entries;
      // Not upstream.invalid, the placeholder origin such an entry's url gets.
      expect(entry.request.headers, upstreamUrl).toContainEqual({ name: 'host', value: 'evil.test:6481' });
      expect(entry._mcpscope).not.toHaveProperty('clientHost');
    }
  });

  it('no secret survives, even from a capture recorded with --show-secrets', () => {
    const c = recordScriptedCapture({ showSecrets: true });
    const stored = JSON.stringify(c.store.snapshot());
    expect(stored).toContain('shh-secret');
    expect(stored).toContain('at-SECRET-access');
    const har = exportHar(c.store, undefined, { token: c.token });
    const text = JSON.stringify(har);
    for (const secret of SCRIPTED_SECRETS) expect(text).not.toContain(secret);
    const token = entryOf(har, 'POST', '/token');
    expect(token.request.postData).toEqual({
      mimeType: 'application/x-www-form-urlencoded',
      text: 'grant_type=authorization_code&code=[redacted]&code_verifier=[redacted]&client_secret=[redacted]',
      params: [
        { name: 'grant_type', value: 'authorization_code' },
        { name: 'code', value: '[redacted]' },
        { name: 'code_verifier', value: '[redacted]' },
        { name: 'client_secret', value: '[redacted]' },
      ],
    });
    expect(JSON.parse(token.response.content.text!)).toEqual({
      access_token: '[redacted]',
      refresh_token: '[redacted]',
      token_type: 'Bearer',
      expires_in: 3600,
    });
  });
});

describe('exportHar: spec violations', () => {
  it('the entry of the exchange whose message broke a rule carries it in _mcpscope.violations; the others carry none', () => {
    const c = recordViolatingSession();
    const har = exportHar(c.store, c.sessionId);
    const withViolations = har.log.entries.filter((e) => e._mcpscope.violations !== undefined);
    expect(withViolations).toHaveLength(1);
    expect(withViolations[0]!._mcpscope.exchange).toBe(c.call.exchangeId);
    expect(withViolations[0]!._mcpscope.violations).toEqual([
      {
        rule: VIOLATION_RULE,
        specRef: '2025-06-18 server/tools#calling-tools',
        level: 'warn',
        message: c.call.seq,
        path: '/params/arguments/a',
        expected: 'a number',
        text: c.violations[0]!.text,
      },
    ]);
  });
});
