/**
 * The recorder's side of live spec linting (proxy/recorder/lint-messages.ts), through the real
 * Recorder: violations stored right after their message and linked to it, warn vs strict, the
 * session's counts, redacted texts, a linter that throws, and `lint: 'off'`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Linter } from '../../../proxy/core/lint/linter.js';
import type { McpscopeEvent, MessageEvent, ProblemEvent } from '../../../proxy/core/model/events.js';
import { json, logs, messages, sessionOf, setup, violations } from '../../support/recorder-harness.js';

const V = '2025-06-18';
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const ADD = {
  name: 'add',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
};

afterEach(() => vi.restoreAllMocks());

/** A Streamable HTTP session through the Recorder: initialize (the server assigns `sid`), then POSTs in it. */
function httpSession(lint: 'off' | 'warn' | 'strict' = 'warn', sid = 'sess-lint-1', h = setup({ lint })) {
  const { w, feed } = h;
  const post = (body: unknown, reply: unknown | undefined, headers: Record<string, string> = {}) => {
    const xid = w.xid();
    feed([
      ...w.send(xid, 'POST', '/mcp', { ...JSON_HEADERS, ...headers }, json(body)),
      ...(reply === undefined
        ? w.reply(xid, 202, {})
        : w.reply(xid, 200, { 'content-type': 'application/json', 'mcp-session-id': sid }, json(reply))),
    ]);
  };
  const inSession = { 'mcp-session-id': sid, 'mcp-protocol-version': V };
  post(
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: V, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    },
    { jsonrpc: '2.0', id: 0, result: { protocolVersion: V, capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } },
  );
  post({ jsonrpc: '2.0', method: 'notifications/initialized' }, undefined, inSession);
  const session = () => [...h.store.sessions.values()].find((s) => s.mcpSessionId === sid) ?? sessionOf(h.store);
  return { ...h, post, inSession, session };
}

/** tools/list, then a tools/call whose arguments break the inputSchema, answered without a content array. */
function violatingCalls(s: ReturnType<typeof httpSession>, name = 'add') {
  s.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 1, result: { tools: [{ ...ADD, name }] } }, s.inSession);
  s.post(
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: { a: 'two', b: 3 } } },
    { jsonrpc: '2.0', id: 2, result: { isError: true } },
    s.inSession,
  );
}

const isMessage = (e: McpscopeEvent): e is MessageEvent => e.type === 'message';

describe('lintMessage: where violations go', () => {
  it('each violation is stored right after its message, linked to it by seq, with its rule, specRef, path and expected', () => {
    const s = httpSession();
    violatingCalls(s);
    const events = s.store.snapshot();
    const found = violations(s.store);
    expect(found.map((v) => v.rule)).toEqual(['tools/arguments-schema', 'tools/missing-content']);
    for (const v of found) {
      const at = events.indexOf(v);
      // Between the message and the violation: nothing but other violations of the same message.
      let i = at - 1;
      while (events[i].type === 'problem' && (events[i] as ProblemEvent).message === v.message) i -= 1;
      const m = events[i];
      expect(isMessage(m) && m.seq).toBe(v.message);
      expect(v.sessionId).toBe(s.session().id);
      expect(v.exchangeId).toBe((m as MessageEvent).exchangeId);
      expect(v.ts).toBe((m as MessageEvent).ts);
    }
    const call = messages(s.store).find((m) => m.kind === 'request' && m.method === 'tools/call')!;
    expect(found[0]).toMatchObject({
      type: 'problem',
      code: 'spec-violation',
      level: 'warn',
      rule: 'tools/arguments-schema',
      specRef: `${V} server/tools#calling-tools`,
      message: call.seq,
      path: '/params/arguments/a',
      expected: 'a number',
    });
    const answer = messages(s.store).find((m) => m.kind === 'response' && m.pair === call.seq)!;
    expect(found[1]).toMatchObject({ rule: 'tools/missing-content', message: answer.seq, path: '/result/content' });
  });

  it('several violations of one message all follow it, before the next event', () => {
    const s = httpSession();
    // No notifications/initialized-less session needed: a server notification breaking both its schema and a capability.
    const xid = s.w.xid();
    s.feed([
      ...s.w.send(xid, 'POST', '/mcp', { ...JSON_HEADERS, ...s.inSession }, json({ jsonrpc: '2.0', id: 9, method: 'ping' })),
      ...s.w.reply(
        xid,
        200,
        { 'content-type': 'text/event-stream' },
        `data: ${json({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'loud', data: 1 } })}\n\ndata: ${json({ jsonrpc: '2.0', id: 9, result: {} })}\n\n`,
      ),
    ]);
    const events = s.store.snapshot();
    const log = messages(s.store).find((m) => m.method === 'notifications/message')!;
    const at = events.indexOf(log);
    const after = events.slice(at + 1, at + 3) as ProblemEvent[];
    expect(after.map((e) => [e.code, e.rule, e.message])).toEqual([
      ['spec-violation', 'schema/notification', log.seq],
      ['spec-violation', 'capability/logging-not-declared', log.seq],
    ]);
    expect(events[at + 3]?.type).not.toBe('problem');
  });

  it('a compliant session records no violations and no counts.violations', () => {
    const s = httpSession();
    s.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 1, result: { tools: [ADD] } }, s.inSession);
    s.post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '3' }] } },
      s.inSession,
    );
    expect(violations(s.store)).toEqual([]);
    expect(s.session().counts.violations).toBeUndefined();
  });
});

describe('lintMessage: modes and counts', () => {
  it('warn: level warn, counted in violations, not in errors', () => {
    const clean = httpSession('warn');
    clean.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 1, result: { tools: [ADD] } }, clean.inSession);
    clean.post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
      { jsonrpc: '2.0', id: 2, result: { isError: true, content: [] } },
      clean.inSession,
    );
    const warn = httpSession('warn');
    violatingCalls(warn);
    expect(violations(warn.store).map((v) => v.level)).toEqual(['warn', 'warn']);
    expect(warn.session().counts.violations).toBe(2);
    // The same traffic without violations counts as many errors (the isError result).
    expect(warn.session().counts.errors).toBe(clean.session().counts.errors);
  });

  it('strict: level error, counted in errors as well', () => {
    const warn = httpSession('warn');
    violatingCalls(warn);
    const strict = httpSession('strict');
    violatingCalls(strict);
    expect(violations(strict.store).map((v) => v.level)).toEqual(['error', 'error']);
    expect(strict.session().counts.violations).toBe(2);
    // Two messages broke rules (one violation each), but the second, an isError result, was an error already:
    // a message counts once, so one more error than warn counts.
    expect(strict.session().counts.errors).toBe(warn.session().counts.errors + 1);
    // The session upsert the store holds carries the counts.
    const upserts = strict.store.snapshot().filter((e) => e.type === 'session' && e.session.id === strict.session().id);
    const last = upserts[upserts.length - 1] as Extract<McpscopeEvent, { type: 'session' }>;
    expect(last.session.counts.violations).toBe(2);
  });
});

describe('lintMessage: notes (what the linter could not check, issue 26)', () => {
  it('are lint-not-checked problems after their message, at warn level even in strict mode, never counted', () => {
    for (const mode of ['warn', 'strict'] as const) {
      const s = httpSession(mode);
      const look = { name: 'look', inputSchema: { type: 'object', properties: { id: { type: 'string', pattern: '^(?!tmp).+$' } } } };
      s.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 1, result: { tools: [look] } }, s.inSession);
      const errorsBefore = s.session().counts.errors;
      s.post(
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'look', arguments: { id: 'tmp1' } } },
        { jsonrpc: '2.0', id: 2, result: { content: [] } },
        s.inSession,
      );
      const events = s.store.snapshot();
      const notes = events.filter((e): e is ProblemEvent => e.type === 'problem' && e.code === 'lint-not-checked');
      expect(notes).toHaveLength(1);
      const call = events.find((e): e is MessageEvent => isMessage(e) && e.method === 'tools/call')!;
      expect(notes[0]).toMatchObject({ level: 'warn', rule: 'lint/pattern-not-checkable', message: call.seq, path: '/params/arguments' });
      expect(notes[0].specRef).toBe(`${V} server/tools#calling-tools`);
      // Right after its message.
      expect(events.indexOf(notes[0])).toBe(events.indexOf(call) + 1);
      expect(violations(s.store)).toEqual([]);
      expect(s.session().counts.violations ?? 0).toBe(0);
      expect(s.session().counts.errors).toBe(errorsBefore);
    }
  });
});

describe('lintMessage: redaction', () => {
  it('a bearer token in a tool name never appears in a violation', () => {
    const token = 'Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0';
    const s = httpSession();
    violatingCalls(s, token);
    const found = violations(s.store);
    expect(found.map((v) => v.rule)).toEqual(['tools/arguments-schema', 'tools/missing-content']);
    const stored = JSON.stringify(found);
    expect(stored).not.toContain('9f8e7d6c5b4a');
    expect(found[0].text).toContain('[redacted]');
  });

  it('a password in a tool name never appears in a violation', () => {
    const s = httpSession();
    violatingCalls(s, 'login password=hunter2-Sup3rS3cret');
    const found = violations(s.store);
    expect(found).toHaveLength(2);
    expect(JSON.stringify(found)).not.toContain('hunter2');
  });

  it('a token sent as the MCP-Protocol-Version header never appears in a violation', () => {
    for (const value of ['Bearer 0123456789abcdefghijklmnopqrstuv', 'ghp_0123456789abcdefghijABCDEFGHIJ012345']) {
      const s = httpSession();
      s.post(
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 1, result: {} },
        { ...s.inSession, 'mcp-protocol-version': value },
      );
      const found = violations(s.store);
      expect(found.map((v) => v.rule)).toEqual(['http/protocol-version-header-mismatch']);
      const stored = JSON.stringify(found);
      expect(stored).not.toContain('0123456789');
      expect(stored).not.toContain('ghp_');
    }
  });

  it('a mismatched version that is a version is still named', () => {
    const s = httpSession();
    s.post(
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 1, result: {} },
      { ...s.inSession, 'mcp-protocol-version': '2025-03-26' },
    );
    expect(violations(s.store)[0].text).toContain('"2025-03-26"');
  });
});

describe('lintMessage: a linter that throws', () => {
  it('is logged once per session, and recording goes on', () => {
    const baseline = httpSession('warn');
    violatingCalls(baseline);

    const observe = vi.spyOn(Linter.prototype, 'observe').mockImplementation(() => {
      throw new Error('lint bug');
    });
    const h = setup({ lint: 'warn' });
    const a = httpSession('warn', 'sess-a', h);
    const b = httpSession('warn', 'sess-b', h);
    violatingCalls(a);
    violatingCalls(b);
    expect(observe).toHaveBeenCalled();

    expect(violations(h.store)).toEqual([]);
    const said = logs(h.store).filter((l) => (l as { text: string }).text.includes('spec linter failed'));
    expect(said.map((l) => l.sessionId).sort()).toEqual([a.session().id, b.session().id].sort());
    expect((said[0] as { text: string }).text).toContain('lint bug');
    // Every message is recorded as without the failure.
    const count = (id: string) => messages(h.store).filter((m) => m.sessionId === id).length;
    expect(count(a.session().id)).toBe(messages(baseline.store).filter((m) => m.sessionId === baseline.session().id).length);
    expect(count(b.session().id)).toBe(count(a.session().id));
    expect(a.session().counts.violations).toBeUndefined();
  });
});

describe("lint: 'off'", () => {
  it('creates no Linter and records no violations', () => {
    const observe = vi.spyOn(Linter.prototype, 'observe');
    const s = httpSession('off');
    violatingCalls(s);
    expect(observe).not.toHaveBeenCalled();
    expect((s.recorder as unknown as { ctx: { linter: unknown } }).ctx.linter).toBeUndefined();
    expect(violations(s.store)).toEqual([]);
    expect(s.session().counts.violations).toBeUndefined();
    expect(messages(s.store).length).toBeGreaterThan(0);
  });
});
