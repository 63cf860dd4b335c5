/**
 * The annotated log (proxy/files/export/text-log.ts) over the deterministic scripted capture
 * (test/support/scripted-session.ts: real Recorder, scripted WireRecords, fixed clock): a
 * Streamable HTTP session (initialize with a bearer token, a 202 notification, a batch, a tools/call
 * answered on an SSE stream with priming, progress and a sampling request answered by POST, an
 * error, the GET stream, DELETE) and a legacy HTTP+SSE session (the endpoint event, rewritten).
 *
 * The live form is what a store subscriber gets batch by batch as the recorder commits (as --log
 * does); it is pinned by golden files in test/fixtures/golden/ — piped (plain) and TTY (colour) —
 * (regenerate them with UPDATE_GOLDEN=1 after an intended change, and read the diff). The text
 * export (`format=text`) must equal the live log for each session and for everything.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportRedactor, redactEvent } from '../../../proxy/files/export/export-common.js';
import { exportTextLog } from '../../../proxy/files/export/export-text.js';
import { UnknownSessionError } from '../../../proxy/core/model/errors.js';
import { TextLog } from '../../../proxy/files/export/text-log.js';
import { prettyJsonLines, renderEntry, renderJsonEntry, type LogEntry } from '../../../proxy/files/export/text-log-render.js';
import type { McpscopeEvent } from '../../../proxy/core/model/events.js';
import { recordScriptedCapture, SCRIPTED_SECRETS, SCRIPTED_TOKEN } from '../../support/scripted-session.js';
import { json, setup } from '../../support/recorder-harness.js';

const golden = (name: string) => fileURLToPath(new URL(`../../fixtures/golden/${name}`, import.meta.url));

function expectGolden(name: string, actual: string): void {
  const path = golden(name);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    if (process.env.UPDATE_GOLDEN !== '1') throw new Error(`golden file ${name} was missing: written now, review it and run again`);
  }
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

/** The scripted capture, with the annotated log written live as the recorder commits each batch. */
function liveCapture() {
  const r = exportRedactor({ token: SCRIPTED_TOKEN });
  const log = new TextLog({ utc: true });
  const entries: LogEntry[] = [];
  const batches: number[] = [];
  const capture = recordScriptedCapture({
    onStore: (store) =>
      store.subscribe((batch: readonly McpscopeEvent[]) => {
        batches.push(batch.length);
        entries.push(...log.push(batch.map((e) => redactEvent(e, r))));
      }),
  });
  const render = (session: string | undefined, colour = false) =>
    entries
      .filter((e) => session === undefined || e.session === session)
      .map((e) => renderEntry(e, { colour, utc: true }))
      .join('');
  return { ...capture, entries, batches, render };
}

describe('annotated log of a scripted Streamable HTTP session', () => {
  const c = liveCapture();
  const plain = c.render(c.streamable);

  it('is fed in several batches (as the recorder commits), not one', () => {
    expect(c.batches.length).toBeGreaterThan(5);
  });

  it('matches the golden file, piped (plain)', () => {
    expectGolden('text-log-streamable.txt', plain);
  });

  it('matches the golden file on a terminal (colour), which is the plain form plus ANSI codes', () => {
    const tty = c.render(c.streamable, true);
    expect(tty).toContain('\x1b[');
    expect(stripAnsi(tty)).toBe(plain);
    expectGolden('text-log-streamable.tty.txt', tty);
  });

  it('says the correlation in words and keeps the wire order readable', () => {
    const lines = plain.split('\n');
    const at = (re: RegExp) => {
      const i = lines.findIndex((l) => re.test(l));
      expect(i, `no line matches ${re}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    const call = /#(\d+) C→S request tools\/call echo \(id 3\)/.exec(plain);
    expect(call).not.toBeNull();
    const n = call![1];
    at(new RegExp(`SSE << S→C progress 1/2 of #${n} tools/call echo "half"`));
    at(new RegExp(`SSE << S→C request sampling/createMessage \\(id 0\\), on the stream of #${n} tools/call echo`));
    at(new RegExp(`SSE << S→C response to #${n} tools/call echo \\(id 3\\), \\d+(\\.\\d+)? ms`));
    at(/S→C error -32602 Unknown tool: nope to #\d+ tools\/call nope \(id 4\)/);
    at(/<<< RESPONSE 202 Accepted \(POST http:\/\/127\.0\.0\.1:3001\/mcp\) \d+\.\d ms/);
    // The response line comes before the response's first message, although the recorder upserts
    // the exchange after the messages of its batch.
    expect(at(/<<< RESPONSE 200 OK \(POST .*\/mcp\) .*text\/event-stream/)).toBeLessThan(at(/SSE << id: e0/));
    expect(at(/>>> REQUEST POST .*\(x1\)/)).toBeLessThan(at(/#\d+ C→S request initialize/));
    expect(at(/#\d+ C→S request initialize/)).toBeLessThan(at(/<<< RESPONSE 200 OK \(POST .*\/mcp\) /));
    // Plain-language hints follow what they explain.
    at(/↳ The server assigned session id "mcp-sess-7f3a"/);
    at(/=== SESSION s1 closed \(deleted\)/);
  });

  it('never quotes a secret: the bearer token and the proxy token are redacted', () => {
    expect(plain).toContain('authorization: Bearer [redacted]');
    for (const secret of SCRIPTED_SECRETS) expect(c.render(undefined)).not.toContain(secret);
  });

  it('is what the text export prints for that session', () => {
    expect(exportTextLog(c.store, c.streamable, { token: SCRIPTED_TOKEN, utc: true })).toBe(plain);
  });
});

describe('annotated log of a scripted legacy HTTP+SSE session', () => {
  const c = liveCapture();
  const plain = c.render(c.legacy);

  it('matches the golden file (piped and on a terminal)', () => {
    expectGolden('text-log-legacy.txt', plain);
    const tty = c.render(c.legacy, true);
    expect(stripAnsi(tty)).toBe(plain);
    expectGolden('text-log-legacy.tty.txt', tty);
  });

  it('shows the endpoint event as it came, what it means, and the request the stream answers', () => {
    expect(plain).toMatch(/SSE << event: endpoint\n\s+SSE << data: \S+message\?sessionId=L1\n\s+↳ Legacy HTTP\+SSE handshake/);
    expect(plain).toMatch(/<<< RESPONSE 202 Accepted \(POST \S+\/message\?sessionId=L1\)/);
    expect(plain).toMatch(/#\d+ SSE << S→C response to #\d+ initialize \(id 1\), \d+(\.\d+)? ms/);
    expect(plain).toMatch(/~~~ CHANGED BY MCPSCOPE \(endpoint-rewrite\)/);
  });

  it('is what the text export prints for that session, and the whole export is the whole live log', () => {
    expect(exportTextLog(c.store, c.legacy, { token: SCRIPTED_TOKEN, utc: true })).toBe(plain);
    expect(exportTextLog(c.store, undefined, { token: SCRIPTED_TOKEN, utc: true })).toBe(c.render(undefined));
  });

  it('an unknown session is an UnknownSessionError', () => {
    expect(() => exportTextLog(c.store, 's99')).toThrow(UnknownSessionError);
  });
});

describe('JSON in the log is bounded', () => {
  it('prints exactly what JSON.stringify(v, null, 2) prints when nothing is cut', () => {
    const values: unknown[] = [
      { jsonrpc: '2.0', id: 1, result: { content: [], nested: { a: [1, 'x', null, true], b: {} } } },
      [],
      {},
      'text',
      [[[]], { '': 0 }],
      { skipped: undefined, n: -1.5e-7 },
    ];
    for (const v of values) {
      const { lines, more } = prettyJsonLines(v, 1000, 1000);
      expect(more).toBe(0);
      expect(lines.join('\n')).toBe(JSON.stringify(v, null, 2));
    }
  });

  it('cuts after maxJsonLines with "… N more lines", and long lines with "…"', () => {
    const v = { items: Array.from({ length: 50 }, (_, i) => ({ i, text: 'y'.repeat(500) })) };
    const all = JSON.stringify(v, null, 2).split('\n');
    const { lines, more } = prettyJsonLines(v, 10, 80);
    expect(lines).toHaveLength(10);
    expect(more).toBe(all.length - 10);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);

    const log = new TextLog({ maxJsonLines: 5, utc: true });
    const [entry] = log.push([
      {
        type: 'message',
        seq: 1,
        ts: 0,
        sessionId: 's1',
        dir: 's2c',
        kind: 'notification',
        carrier: 'stdio',
        method: 'notifications/message',
        jsonrpc: { jsonrpc: '2.0', method: 'notifications/message', params: v },
        size: 30_000,
        hints: [],
      },
    ]);
    const text = renderEntry(entry, { utc: true });
    expect(text).toMatch(/… \d+ more lines \(29\.3 KB in all\)/);
    expect(text.split('\n').length).toBeLessThan(10);
  });
});

describe('the JSON form', () => {
  it('is one object per entry with the structured fields and the same text', () => {
    const c = liveCapture();
    const lines = c.entries.map((e) => renderJsonEntry(e, { utc: true }));
    const parsed = lines.map((l) => {
      expect(l.endsWith('\n')).toBe(true);
      expect(l.slice(0, -1)).not.toContain('\n');
      return JSON.parse(l) as Record<string, unknown>;
    });
    const progress = parsed.find((p) => typeof p.correlation === 'string' && p.correlation.startsWith('progress 1/2'));
    expect(progress).toMatchObject({ kind: 'message', dir: 's2c', method: 'notifications/progress', session: 's1' });
    expect(progress!.message).toMatchObject({ method: 'notifications/progress' });
    const response = parsed.find((p) => p.kind === 'response' && p.status === 202);
    expect(response).toMatchObject({ method: 'POST', session: 's1' });
    expect(typeof response!.latencyMs).toBe('number');
    expect(parsed.map((p) => p.text).join('\n') + '\n').toBe(c.render(undefined));
  });
});

describe('what a peer sent cannot drive the terminal', () => {
  // A hostile server's stderr line, tool name and SSE comment: OSC 52 (write the clipboard), a
  // retitle, a forged log line after CR/LF, a C1 CSI and a right-to-left override.
  const hostile = 'ok\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\r\n09:30:00.000 s1   >>> REQUEST fake\x9b31m\u202eevil';
  const events = [
    { type: 'log', seq: 1, ts: 0, source: 'stderr', sessionId: 's9', text: hostile },
    {
      type: 'problem',
      seq: 2,
      ts: 0,
      sessionId: 's9',
      level: 'warn',
      code: 'not-jsonrpc',
      text: 'a line that is not JSON-RPC',
      raw: hostile,
    },
  ] as McpscopeEvent[];

  for (const colour of [false, true])
    it(`prints it inert, escapes shown (${colour ? 'colour' : 'plain'})`, () => {
      const text = new TextLog({ utc: true })
        .push(events)
        .map((e) => renderEntry(e, { colour, utc: true }))
        .join('');
      // The only ESC bytes left are our own colour codes; no CR, no C1, no bidi override; no forged line.
      expect(text.replace(/\x1b\[[0-9;]*m/g, '')).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
      expect(text).toContain('ok\\x1b]52;c;ZXZpbA==\\x07');
      expect(text).toContain('\\u202eevil');
      expect(text.split('\n').some((l) => l.startsWith('09:30:00.000 s1   >>> REQUEST fake'))).toBe(false);
    });

  it('escapes the invisible characters the UI shows as badges too: zero-width, U+2028/2029, tag characters (proxy/core/model/visible-text.ts)', () => {
    // A tool name that looks like "read" but is not, a line separator, and a sentence in tag characters.
    const tags = [...'obey'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    const name = `re\u200bad \u2028 \ufeff \u2060x${tags}`;
    const entry: LogEntry = { seq: 1, ts: 0, session: 's1', kind: 'message', hints: [], lines: [[['plain', `tools/call "${name}"`]]] };
    const text = renderEntry(entry, { utc: true });
    expect(text).toBe(
      '00:00:00.000 s1   tools/call "re\\u200bad \\u2028 \\ufeff \\u2060x\\udb40\\udc6f\\udb40\\udc62\\udb40\\udc65\\udb40\\udc79"\n',
    );
    // What ordinary text needs stays as it is: a tab, emoji joined by a zero-width joiner, a variation selector, a script's joiner.
    const plain = 'a\tb 👨‍👩‍👧 ❤️ می‌خواهم 🏴󠁧󠁢󠁳󠁣󠁴󠁿';
    expect(renderEntry({ ...entry, lines: [[['plain', plain]]] }, { utc: true })).toBe(`00:00:00.000 s1   ${plain}\n`);
  });
});

describe('what a peer sent cannot drive the terminal through the JSON log either', () => {
  it('escapes DEL, C1 and bidi overrides that JSON.stringify leaves, and parses back to the same values', () => {
    const evil = 'gnp\u202eexe\x9b31m\x7f\u2028';
    const entry: LogEntry = {
      seq: 1,
      ts: 0,
      session: 's1',
      kind: 'message',
      method: 'tools/call',
      name: evil,
      correlation: `request tools/call ${evil}`,
      hints: [{ level: 'info', code: 'x', text: `tool ${evil}` }],
      message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: evil } },
      size: 60,
      lines: [[['plain', evil]]],
    };
    const line = renderJsonEntry(entry);
    expect(line.slice(0, -1)).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e\u2028]/);
    const parsed = JSON.parse(line) as {
      name: string;
      correlation: string;
      hints: { text: string }[];
      message: { params: { name: string } };
    };
    expect(parsed.name).toBe(evil);
    expect(parsed.correlation).toBe(`request tools/call ${evil}`);
    expect(parsed.hints[0].text).toBe(`tool ${evil}`);
    expect(parsed.message.params.name).toBe(evil);
  });

  it('escapes zero-width, tag characters and the rest of what the UI shows as badges, and parses back the same', () => {
    const evil = `re\u200bad \ufeff${[...'obey'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')} \u2029`;
    const entry: LogEntry = {
      seq: 1,
      ts: 0,
      session: 's1',
      kind: 'message',
      name: evil,
      hints: [],
      message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: evil } },
      size: 60,
      lines: [[['plain', evil]]],
    };
    const line = renderJsonEntry(entry);
    expect(line.slice(0, -1)).not.toMatch(/[\u200b\ufeff\u2029]|\udb40[\udc00-\udc7f]/);
    expect(line).toContain('re\\u200bad \\ufeff\\udb40\\udc6f');
    const parsed = JSON.parse(line) as { name: string; message: { params: { name: string } } };
    expect(parsed.name).toBe(evil);
    expect(parsed.message.params.name).toBe(evil);
  });
});

describe('two sessions in one batch', () => {
  it('a session’s lines carry its own times, so its export is exactly its lines of the live log', () => {
    const { store, w, feed, committed } = setup();
    const init = (id: number) =>
      json({
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: `c${id}`, version: '1' } },
      });
    const result = (id: number) =>
      json({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } } });
    const [a, b] = [w.xid(), w.xid()];
    // Both initialize answers (which give each session its id) land in one recorder batch, b's later on the wire.
    feed([
      ...w.send(a, 'POST', '/mcp', { 'content-type': 'application/json' }, init(1)),
      ...w.send(b, 'POST', '/mcp', { 'content-type': 'application/json' }, init(2)),
      ...w.reply(a, 200, { 'content-type': 'application/json', 'mcp-session-id': 'A' }, result(1)),
      ...w.reply(b, 200, { 'content-type': 'application/json', 'mcp-session-id': 'B' }, result(2)),
    ]);
    const log = new TextLog({ utc: true });
    const live = committed.flatMap((batch) => log.push(batch));
    for (const id of ['s1', 's2']) {
      const lines = live
        .filter((e) => e.session === id)
        .map((e) => renderEntry(e, { utc: true }))
        .join('');
      expect(exportTextLog(store, id, { utc: true })).toBe(lines);
    }
  });
});

describe('session transitions', () => {
  it('says when an expired session is reopened, and closed again', () => {
    const base = {
      id: 's3',
      transport: 'streamable-http',
      target: 'http://upstream.test/mcp',
      startedAt: 0,
      counts: { messages: 2, requests: 1, pending: 0, errors: 0, exchanges: 3 },
    };
    const upsert = (seq: number, over: Record<string, unknown>) => ({ type: 'session', seq, ts: seq, session: { ...base, ...over } });
    const events = [
      upsert(1, { status: 'open' }),
      upsert(2, { status: 'closed', closeReason: 'expired', endedAt: 2 }),
      upsert(3, { status: 'open' }),
      upsert(4, { status: 'closed', closeReason: 'deleted', endedAt: 4 }),
    ] as McpscopeEvent[];
    const text = new TextLog({ utc: true })
      .push(events)
      .map((e) => renderEntry(e, { colour: false, utc: true }))
      .join('');
    const said = text.split('\n').filter((l) => l.includes('=== SESSION s3'));
    expect(said.map((l) => l.replace(/^.*=== SESSION s3 /, ''))).toEqual([
      'streamable-http → http://upstream.test/mcp',
      'closed (expired): 2 messages, 1 request, 0 errors',
      'reopened: the server served it again',
      'closed (deleted): 2 messages, 1 request, 0 errors',
    ]);
  });
});
