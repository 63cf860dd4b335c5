/**
 * The session-state rules (proxy/core/lint/session-lint.ts): each fires on its case and stays quiet on
 * the compliant twin; a session joined mid-way holds nothing from before against anyone; every
 * map stays within its bound.
 */
import { describe, expect, it } from 'vitest';
import { CANCEL_RACE_MS, SessionLint, type LintMessage, type LintSession } from '../../../proxy/core/lint/session-lint.js';
import { NOTES, RULES } from '../../../proxy/core/lint/rules.js';
import type { Violation } from '../../../proxy/core/lint/violation.js';
import type { Direction } from '../../../proxy/core/model/events.js';

const V = '2025-06-18';
/** Every rule any test here saw fire (the last test checks that all semantic rules did). */
const FIRED = new Set<string>();

class Driver {
  readonly s: LintSession;
  lint: SessionLint | undefined;
  seq = 0;
  ts = 1_000;
  constructor(s: Partial<LintSession> = {}) {
    this.s = { id: 's1', ...s };
  }
  feed(m: Partial<LintMessage> & Pick<LintMessage, 'dir' | 'kind'>): Violation[] {
    this.seq += 1;
    this.ts = m.ts ?? this.ts + 10;
    const msg: LintMessage = { value: {}, ...m, seq: this.seq, ts: this.ts };
    this.lint ??= new SessionLint(msg);
    const out = this.lint.observe(this.s, msg);
    for (const v of out) FIRED.add(v.rule);
    return out;
  }
  request(dir: Direction, method: string, params?: unknown, extra: Partial<LintMessage> = {}): { seq: number; out: Violation[] } {
    const id = this.seq + 1;
    const out = this.feed({ dir, kind: 'request', method, id, value: { jsonrpc: '2.0', id, method, params }, ...extra });
    return { seq: this.seq, out };
  }
  note(dir: Direction, method: string, params?: unknown, extra: Partial<LintMessage> = {}): Violation[] {
    return this.feed({ dir, kind: 'notification', method, value: { jsonrpc: '2.0', method, params }, ...extra });
  }
  answer(dir: Direction, pair: number, result: unknown, extra: Partial<LintMessage> = {}): Violation[] {
    return this.feed({ dir, kind: 'response', pair, value: { jsonrpc: '2.0', id: 1, result }, ...extra });
  }
  error(dir: Direction, pair: number): Violation[] {
    return this.feed({ dir, kind: 'error', pair, value: { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } } });
  }
  /** A client request and its answer. */
  call(method: string, params: unknown, result: unknown): Violation[] {
    const r = this.request('c2s', method, params);
    return [...r.out, ...this.answer('s2c', r.seq, result, { requestMethod: method })];
  }
}

interface Start {
  version?: string;
  transport?: string;
  client?: Record<string, unknown>;
  server?: Record<string, unknown>;
  /** Send notifications/initialized (default true). */
  initialized?: boolean;
}
/** A session seen from its initialize on, with the capabilities given. */
function started(o: Start = {}): Driver {
  const version = o.version ?? V;
  const d = new Driver({ transport: o.transport, protocolVersion: version, clientCapabilities: o.client ?? {} });
  const init = d.request('c2s', 'initialize', {
    protocolVersion: version,
    capabilities: o.client ?? {},
    clientInfo: { name: 'c', version: '1' },
  });
  expect(init.out).toEqual([]);
  d.s.serverCapabilities = o.server ?? {};
  expect(
    d.answer('s2c', init.seq, { protocolVersion: version, capabilities: o.server ?? {}, serverInfo: { name: 's', version: '1' } }),
  ).toEqual([]);
  if (o.initialized !== false) expect(d.note('c2s', 'notifications/initialized')).toEqual([]);
  return d;
}
/** A session mcpscope joined after its initialize went by. */
function midway(s: Partial<LintSession> = {}): Driver {
  const d = new Driver({ protocolVersion: V, ...s });
  d.request('c2s', 'ping');
  return d;
}
const rules = (vs: Violation[]) => vs.map((v) => v.rule);

const ALL_SERVER = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  logging: {},
  completions: {},
};
const ALL_CLIENT = { sampling: {}, roots: { listChanged: true }, elicitation: { form: {}, url: {} } };

describe('lifecycle', () => {
  it('client: a request but ping before notifications/initialized', () => {
    const d = started({ server: ALL_SERVER, initialized: false });
    expect(d.request('c2s', 'ping').out).toEqual([]);
    const [v] = d.request('c2s', 'tools/list').out;
    expect(v).toMatchObject({
      rule: 'lifecycle/request-before-initialized',
      expected: 'notifications/initialized before any request but ping',
    });
    expect(v.text).toContain('tools/list');
    d.note('c2s', 'notifications/initialized');
    expect(d.request('c2s', 'tools/list').out).toEqual([]);
  });

  it('server: a request but ping before the client’s notifications/initialized', () => {
    const d = started({ client: ALL_CLIENT, initialized: false });
    expect(d.request('s2c', 'ping').out).toEqual([]);
    expect(rules(d.request('s2c', 'roots/list').out)).toEqual(['lifecycle/server-request-before-initialized']);
    // A notification from the client other than initialized changes nothing; initialized does.
    d.note('c2s', 'notifications/roots/list_changed');
    expect(rules(d.request('s2c', 'sampling/createMessage', {}).out)).toEqual(['lifecycle/server-request-before-initialized']);
    d.note('c2s', 'notifications/initialized');
    expect(d.request('s2c', 'roots/list').out).toEqual([]);
  });

  it('notifications/initialized from the server does not count', () => {
    const d = started({ server: ALL_SERVER, initialized: false });
    d.note('s2c', 'notifications/initialized');
    expect(rules(d.request('c2s', 'tools/list').out)).toEqual(['lifecycle/request-before-initialized']);
  });
});

describe('capabilities', () => {
  type Case = [rule: string, send: (d: Driver) => Violation[]];
  const serverSide: Case[] = [
    ['capability/tools-not-declared', (d) => d.request('c2s', 'tools/list').out],
    ['capability/tools-not-declared', (d) => d.request('c2s', 'tools/call', { name: 'x' }).out],
    ['capability/prompts-not-declared', (d) => d.request('c2s', 'prompts/get', { name: 'p' }).out],
    ['capability/resources-not-declared', (d) => d.request('c2s', 'resources/read', { uri: 'file:///a' }).out],
    ['capability/resources-not-declared', (d) => d.request('c2s', 'resources/templates/list').out],
    ['capability/resources-subscribe-not-declared', (d) => d.request('c2s', 'resources/subscribe', { uri: 'file:///a' }).out],
    ['capability/resources-subscribe-not-declared', (d) => d.request('c2s', 'resources/unsubscribe', { uri: 'file:///a' }).out],
    ['capability/resources-subscribe-not-declared', (d) => d.note('s2c', 'notifications/resources/updated', { uri: 'file:///a' })],
    ['capability/logging-not-declared', (d) => d.request('c2s', 'logging/setLevel', { level: 'info' }).out],
    ['capability/logging-not-declared', (d) => d.note('s2c', 'notifications/message', { level: 'info', data: 1 })],
    ['capability/completions-not-declared', (d) => d.request('c2s', 'completion/complete', {}).out],
    ['capability/list-changed-not-declared', (d) => d.note('s2c', 'notifications/tools/list_changed')],
    ['capability/list-changed-not-declared', (d) => d.note('s2c', 'notifications/prompts/list_changed')],
    ['capability/list-changed-not-declared', (d) => d.note('s2c', 'notifications/resources/list_changed')],
  ];
  it.each(serverSide)('%s fires without the server capability and not with it', (rule, send) => {
    expect(rules(send(started({ server: {} })))).toEqual([rule]);
    expect(send(started({ server: ALL_SERVER }))).toEqual([]);
  });

  it('resources.subscribe and listChanged must be true, not just the capability object', () => {
    const d = started({ server: { resources: {}, tools: {}, prompts: { listChanged: false } } });
    expect(d.request('c2s', 'resources/list').out).toEqual([]);
    expect(rules(d.request('c2s', 'resources/subscribe', { uri: 'a' }).out)).toEqual(['capability/resources-subscribe-not-declared']);
    expect(rules(d.note('s2c', 'notifications/tools/list_changed'))).toEqual(['capability/list-changed-not-declared']);
    expect(rules(d.note('s2c', 'notifications/prompts/list_changed'))).toEqual(['capability/list-changed-not-declared']);
  });

  it('completions is only a capability from 2025-03-26 on', () => {
    expect(started({ version: '2024-11-05', server: {} }).request('c2s', 'completion/complete', {}).out).toEqual([]);
    expect(rules(started({ version: '2025-03-26', server: {} }).request('c2s', 'completion/complete', {}).out)).toEqual([
      'capability/completions-not-declared',
    ]);
  });

  const clientSide: Case[] = [
    ['capability/sampling-not-declared', (d) => d.request('s2c', 'sampling/createMessage', {}).out],
    ['capability/roots-not-declared', (d) => d.request('s2c', 'roots/list').out],
    ['capability/elicitation-not-declared', (d) => d.request('s2c', 'elicitation/create', { message: 'm' }).out],
    ['capability/roots-list-changed-not-declared', (d) => d.note('c2s', 'notifications/roots/list_changed')],
  ];
  it.each(clientSide)('%s fires without the client capability and not with it', (rule, send) => {
    expect(rules(send(started({ client: {} })))).toEqual([rule]);
    expect(send(started({ client: ALL_CLIENT }))).toEqual([]);
  });

  it('URL-mode elicitation needs elicitation.url; form mode does not', () => {
    const d = started({ client: { elicitation: {} } });
    expect(d.request('s2c', 'elicitation/create', { message: 'm' }).out).toEqual([]);
    const url = { mode: 'url', message: 'm', url: 'https://example.com', elicitationId: 'e' };
    expect(rules(d.request('s2c', 'elicitation/create', url).out)).toEqual(['capability/elicitation-url-not-declared']);
    expect(started({ client: { elicitation: { url: {} } } }).request('s2c', 'elicitation/create', url).out).toEqual([]);
  });

  it('roots without listChanged: true is not enough for notifications/roots/list_changed', () => {
    expect(rules(started({ client: { roots: {} } }).note('c2s', 'notifications/roots/list_changed'))).toEqual([
      'capability/roots-list-changed-not-declared',
    ]);
  });

  it('capability rules need the capabilities to have been seen', () => {
    // No InitializeResult yet: the server's capabilities are unknown.
    const d = new Driver({ protocolVersion: V });
    d.request('c2s', 'initialize', {});
    d.s.serverCapabilities = {};
    expect(d.note('s2c', 'notifications/message', { level: 'info', data: 1 })).toEqual([]);
    // A session whose capabilities were never learnt.
    const m = midway();
    expect(m.request('c2s', 'tools/list').out).toEqual([]);
    expect(m.request('s2c', 'sampling/createMessage', {}).out).toEqual([]);
  });
});

describe('tools', () => {
  const add = {
    name: 'add',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  };
  const echo = { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };
  const withTools = () => {
    const d = started({ server: ALL_SERVER });
    expect(d.call('tools/list', {}, { tools: [add, echo] })).toEqual([]);
    return d;
  };
  const ok = { content: [{ type: 'text', text: '3' }], structuredContent: { sum: 3 } };

  it('tools/arguments-schema: arguments against the inputSchema from the last tools/list', () => {
    const d = withTools();
    const [v, ...rest] = d.request('c2s', 'tools/call', { name: 'add', arguments: { a: 'one' } }).out;
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ rule: 'tools/arguments-schema', path: '/params/arguments/a', expected: 'a number' });
    // No arguments at all: checked as {}.
    expect(d.request('c2s', 'tools/call', { name: 'add' }).out).toMatchObject([
      { rule: 'tools/arguments-schema', path: '/params/arguments/a', expected: 'a value (required property is missing)' },
    ]);
    expect(d.request('c2s', 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }).out).toEqual([]);
    // A tool tools/list never named is not checked.
    expect(d.request('c2s', 'tools/call', { name: 'unknown', arguments: { a: 'one' } }).out).toEqual([]);
  });

  it('a new first page of tools/list replaces the tools; a later page (with a cursor) adds to them', () => {
    const d = started({ server: ALL_SERVER });
    d.call('tools/list', {}, { tools: [add], nextCursor: 'p2' });
    d.call('tools/list', { cursor: 'p2' }, { tools: [echo] });
    expect(rules(d.request('c2s', 'tools/call', { name: 'add', arguments: {} }).out)).toEqual(['tools/arguments-schema']);
    expect(rules(d.request('c2s', 'tools/call', { name: 'echo', arguments: { text: 1 } }).out)).toEqual(['tools/arguments-schema']);
    d.call('tools/list', {}, { tools: [echo] });
    expect(d.request('c2s', 'tools/call', { name: 'add', arguments: {} }).out).toEqual([]);
  });

  it('tools/structured-content-schema: structuredContent against the outputSchema', () => {
    const d = withTools();
    const r = d.request('c2s', 'tools/call', { name: 'add', arguments: { a: 1 } });
    expect(d.answer('s2c', r.seq, { content: [], structuredContent: { sum: 'three' } })).toMatchObject([
      { rule: 'tools/structured-content-schema', path: '/result/structuredContent/sum', expected: 'a number' },
    ]);
    const r2 = d.request('c2s', 'tools/call', { name: 'add', arguments: { a: 1 } });
    expect(d.answer('s2c', r2.seq, ok)).toEqual([]);
  });

  it('tools/missing-structured-content: a tool with an outputSchema and no structuredContent, unless isError', () => {
    const d = withTools();
    const r = d.request('c2s', 'tools/call', { name: 'add', arguments: { a: 1 } });
    expect(d.answer('s2c', r.seq, { content: [{ type: 'text', text: '3' }] })).toMatchObject([
      { rule: 'tools/missing-structured-content', path: '/result/structuredContent' },
    ]);
    const r2 = d.request('c2s', 'tools/call', { name: 'add', arguments: { a: 1 } });
    expect(d.answer('s2c', r2.seq, { content: [{ type: 'text', text: 'failed' }], isError: true })).toEqual([]);
    // An isError result's structuredContent is not held to the schema either.
    const r3 = d.request('c2s', 'tools/call', { name: 'add', arguments: { a: 1 } });
    expect(d.answer('s2c', r3.seq, { content: [], isError: true, structuredContent: { sum: 'x' } })).toEqual([]);
    // A tool without an outputSchema may return anything.
    const r4 = d.request('c2s', 'tools/call', { name: 'echo', arguments: { text: 'x' } });
    expect(d.answer('s2c', r4.seq, { content: [] })).toEqual([]);
  });

  it('tools/missing-content: every CallToolResult has content, isError ones too', () => {
    const d = withTools();
    const r = d.request('c2s', 'tools/call', { name: 'echo', arguments: {} });
    const [v] = d.answer('s2c', r.seq, {});
    expect(v).toMatchObject({ rule: 'tools/missing-content', path: '/result/content' });
    expect(v.text).toContain('"echo"');
    const r2 = d.request('c2s', 'tools/call', { name: 'echo', arguments: {} });
    expect(rules(d.answer('s2c', r2.seq, { isError: true }))).toEqual(['tools/missing-content']);
    const r3 = d.request('c2s', 'tools/call', { name: 'echo', arguments: {} });
    expect(d.answer('s2c', r3.seq, { content: [] })).toEqual([]);
  });

  it('what a schema check could not do is a note (not a violation), said once per session, tool and reason (issue 26)', () => {
    const lookahead = {
      name: 'look',
      inputSchema: { type: 'object', properties: { id: { type: 'string', pattern: '^(?!tmp)[a-z]+$' }, n: { type: 'number' } } },
    };
    const huge: Record<string, unknown> = {};
    for (let i = 0; i < 4_000; i++) huge[`p${i}`] = { type: 'string', description: 'x' };
    const big = { name: 'big', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: huge } };
    const d = started({ server: ALL_SERVER });
    d.call('tools/list', {}, { tools: [lookahead, big] });
    const first = d.request('c2s', 'tools/call', { name: 'look', arguments: { id: 'tmpx', n: 'one' } }).out;
    // The rest of the schema is checked: n is still an error; the lookahead pattern is a note.
    expect(first.map((v) => [v.rule, v.note === true])).toEqual([
      ['lint/pattern-not-checkable', true],
      ['tools/arguments-schema', false],
    ]);
    expect(first[0]).toMatchObject({ path: '/params/arguments', section: 'server/tools#calling-tools' });
    expect(first[0].text).toContain(
      'the arguments of tools/call "look" against the tool\'s inputSchema without the pattern /^(?!tmp)[a-z]+$/',
    );
    // Said once: the next call to that tool says nothing more about it.
    expect(d.request('c2s', 'tools/call', { name: 'look', arguments: { id: 'ok', n: 1 } }).out).toEqual([]);
    const r = d.request('c2s', 'tools/call', { name: 'big', arguments: {} });
    const [note, ...rest] = d.answer('s2c', r.seq, { content: [], structuredContent: { p0: 1 } });
    expect(rest).toEqual([]);
    expect(note).toMatchObject({
      rule: 'lint/schema-too-large',
      note: true,
      path: '/result/structuredContent',
      section: 'server/tools#output-schema',
    });
    expect(note.text).toBe(
      'mcpscope did not check the structuredContent of tool "big" against its outputSchema: it is over 4,000 JSON values, more than mcpscope compiles.',
    );
    const r2 = d.request('c2s', 'tools/call', { name: 'big', arguments: {} });
    expect(d.answer('s2c', r2.seq, { content: [], structuredContent: { p0: 1 } })).toEqual([]);
    // Another session says it again.
    const other = started({ server: ALL_SERVER });
    other.call('tools/list', {}, { tools: [lookahead] });
    expect(rules(other.request('c2s', 'tools/call', { name: 'look', arguments: { id: 'a' } }).out)).toEqual(['lint/pattern-not-checkable']);
  });

  it('task-augmented and non-complete results and errors are not tool results', () => {
    const d = withTools();
    const r = d.request('c2s', 'tools/call', { name: 'add', arguments: { a: 1 } });
    expect(d.answer('s2c', r.seq, { task: { taskId: 't', status: 'working' } })).toEqual([]);
    const r2 = d.request('c2s', 'tools/call', { name: 'add', arguments: { a: 1 } });
    expect(d.answer('s2c', r2.seq, { resultType: 'input_required', inputRequests: {} })).toEqual([]);
    const r3 = d.request('c2s', 'tools/call', { name: 'add', arguments: { a: 1 } });
    expect(d.error('s2c', r3.seq)).toEqual([]);
  });
});

describe('progress', () => {
  const p = (token: string | number, progress: number) => ({ progressToken: token, progress });

  it('progress/unknown-token: as the correlator says, in a session seen from the start', () => {
    const d = started();
    const codes = ['unknown-progress-token'];
    const [v] = d.note('s2c', 'notifications/progress', p('nope', 1), { correlatorCodes: codes });
    expect(v).toMatchObject({ rule: 'progress/unknown-token', path: '/params/progressToken' });
    expect(v.text).toContain('no client request');
    expect(d.note('c2s', 'notifications/progress', p('nope2', 1), { correlatorCodes: codes })[0].text).toContain('no server request');
    expect(d.note('s2c', 'notifications/progress', p('known', 1))).toEqual([]);
    expect(midway().note('s2c', 'notifications/progress', p('nope', 1), { correlatorCodes: codes })).toEqual([]);
  });

  it('progress/not-increasing: per token and per direction', () => {
    const d = started();
    expect(d.note('s2c', 'notifications/progress', p('a', 1))).toEqual([]);
    expect(d.note('s2c', 'notifications/progress', p('a', 2))).toEqual([]);
    expect(d.note('s2c', 'notifications/progress', p('a', 2))).toMatchObject([
      { rule: 'progress/not-increasing', path: '/params/progress' },
    ]);
    expect(rules(d.note('s2c', 'notifications/progress', p('a', 1.5)))).toEqual(['progress/not-increasing']);
    // Another token, the same token the other way, and a number token that reads the same are separate.
    expect(d.note('s2c', 'notifications/progress', p('b', 1))).toEqual([]);
    expect(d.note('c2s', 'notifications/progress', p('a', 1))).toEqual([]);
    d.note('s2c', 'notifications/progress', p(7, 5));
    expect(d.note('s2c', 'notifications/progress', p('7', 1))).toEqual([]);
    expect(rules(d.note('s2c', 'notifications/progress', p(7, 5)))).toEqual(['progress/not-increasing']);
  });

  it('a new request may reuse a finished request’s progress token: its progress starts over', () => {
    const d = started({ server: ALL_SERVER });
    const first = d.request('c2s', 'tools/call', { name: 'x', _meta: { progressToken: 'pt' } });
    d.note('s2c', 'notifications/progress', p('pt', 10));
    d.answer('s2c', first.seq, { content: [] });
    d.request('c2s', 'tools/call', { name: 'x', _meta: { progressToken: 'pt' } });
    expect(d.note('s2c', 'notifications/progress', p('pt', 1))).toEqual([]);
    expect(rules(d.note('s2c', 'notifications/progress', p('pt', 1)))).toEqual(['progress/not-increasing']);
    // A server request with the same token is the client's progress to send: the server's count goes on.
    d.request('s2c', 'sampling/createMessage', { messages: [], maxTokens: 1, _meta: { progressToken: 'pt' } });
    expect(rules(d.note('s2c', 'notifications/progress', p('pt', 1)))).toEqual(['progress/not-increasing']);
  });
});

describe('cancellation', () => {
  it('cancellation/unknown-request: as the correlator says, in a session seen from the start', () => {
    const d = started();
    const codes = ['cancel-unknown'];
    expect(d.note('c2s', 'notifications/cancelled', { requestId: 99 }, { correlatorCodes: codes })).toMatchObject([
      { rule: 'cancellation/unknown-request', path: '/params/requestId' },
    ]);
    expect(d.note('c2s', 'notifications/cancelled', { requestId: 99 })).toEqual([]);
    expect(midway().note('c2s', 'notifications/cancelled', { requestId: 99 }, { correlatorCodes: codes })).toEqual([]);
  });

  it('cancellation/initialize: the client cancels its pending initialize', () => {
    const d = new Driver({ protocolVersion: V });
    const init = d.request('c2s', 'initialize', {});
    expect(d.note('c2s', 'notifications/cancelled', { requestId: 1 }, { pair: init.seq })).toMatchObject([
      { rule: 'cancellation/initialize', path: '/params/requestId' },
    ]);
    const d2 = started({ server: ALL_SERVER });
    const r = d2.request('c2s', 'tools/list');
    expect(d2.note('c2s', 'notifications/cancelled', { requestId: 1 }, { pair: r.seq })).toEqual([]);
  });

  it('cancellation/already-answered: only more than CANCEL_RACE_MS after the answer went by', () => {
    const d = started({ server: ALL_SERVER });
    const r = d.request('c2s', 'tools/list');
    d.answer('s2c', r.seq, { tools: [] }, { ts: 5_000 });
    // Crossed on the wire: allowed.
    expect(d.note('c2s', 'notifications/cancelled', { requestId: 1 }, { pair: r.seq, ts: 5_000 + CANCEL_RACE_MS })).toEqual([]);
    const [v] = d.note('c2s', 'notifications/cancelled', { requestId: 1 }, { pair: r.seq, ts: 5_000 + CANCEL_RACE_MS + 1 });
    expect(v).toMatchObject({ rule: 'cancellation/already-answered', path: '/params/requestId', expected: 'a request still in progress' });
    expect(v.text).toContain(`${CANCEL_RACE_MS + 1} ms earlier`);
    // A request answered with an error is answered too.
    const r2 = d.request('c2s', 'tools/list');
    d.error('s2c', r2.seq);
    expect(rules(d.note('c2s', 'notifications/cancelled', { requestId: 2 }, { pair: r2.seq, ts: d.ts + 5_000 }))).toEqual([
      'cancellation/already-answered',
    ]);
    // Still in flight: fine.
    const r3 = d.request('c2s', 'tools/list');
    expect(d.note('c2s', 'notifications/cancelled', { requestId: 3 }, { pair: r3.seq, ts: d.ts + 5_000 })).toEqual([]);
  });
});

describe('Streamable HTTP headers', () => {
  const H = (v?: string): Record<string, string> =>
    v === undefined ? { 'content-type': 'application/json' } : { 'mcp-protocol-version': v };
  const post = (d: Driver, headers: Record<string, string>) => d.request('c2s', 'ping', undefined, { requestHeaders: headers }).out;

  it('http/protocol-version-header-missing and -mismatch after the initialize result', () => {
    const d = started({ transport: 'streamable-http' });
    expect(post(d, H())).toMatchObject([
      { rule: 'http/protocol-version-header-missing', expected: `an MCP-Protocol-Version: ${V} header` },
    ]);
    const [v] = post(d, H('2025-03-26'));
    expect(v).toMatchObject({ rule: 'http/protocol-version-header-mismatch' });
    expect(v.text).toContain('"2025-03-26"');
    expect(post(d, H(V))).toEqual([]);
    expect(post(d, H(` ${V} `))).toEqual([]);
    // A value that is not a version is not quoted (cut short, a credential there would escape the redactor).
    const [odd] = post(d, H('Bearer 0123456789abcdefghijklmnop'));
    expect(odd.rule).toBe('http/protocol-version-header-mismatch');
    expect(odd.text).not.toContain('0123');
    expect(odd.text).toContain('a value that is not a protocol version');
    // A notification's POST too; a server message never.
    expect(rules(d.note('c2s', 'notifications/roots/list_changed', undefined, { requestHeaders: H() }))).toContain(
      'http/protocol-version-header-missing',
    );
    expect(d.request('s2c', 'ping', undefined, { requestHeaders: H() }).out).toEqual([]);
  });

  it('only on streamable-http sessions', () => {
    for (const transport of [undefined, 'sse', 'stdio']) expect(post(started({ transport }), H())).toEqual([]);
  });

  it('only from 2025-06-18 on', () => {
    for (const version of ['2024-11-05', '2025-03-26']) expect(post(started({ transport: 'streamable-http', version }), H())).toEqual([]);
    expect(rules(post(started({ transport: 'streamable-http', version: '2025-11-25' }), H()))).toEqual([
      'http/protocol-version-header-missing',
    ]);
  });

  it('only after the initialize result (the initialize POST itself needs none)', () => {
    const d = new Driver({ transport: 'streamable-http', protocolVersion: V });
    expect(d.request('c2s', 'initialize', {}, { requestHeaders: H() }).out).toEqual([]);
    expect(post(d, H())).toEqual([]);
    // A session joined mid-way never saw it either.
    expect(post(midway({ transport: 'streamable-http' }), H())).toEqual([]);
  });

  it('http/session-id-not-assigned: a client POST with an Mcp-Session-Id the server never assigned', () => {
    const d = started({ transport: 'streamable-http' });
    expect(rules(d.request('c2s', 'ping', undefined, { requestHeaders: H(V), unassignedSessionId: true }).out)).toEqual([
      'http/session-id-not-assigned',
    ]);
    expect(d.request('c2s', 'ping', undefined, { requestHeaders: H(V), unassignedSessionId: false }).out).toEqual([]);
    expect(d.request('s2c', 'ping', undefined, { unassignedSessionId: true }).out).toEqual([]);
  });
});

describe('elicitation/requested-schema', () => {
  const elicit = (properties: Record<string, unknown>) => {
    const d = started({ client: ALL_CLIENT });
    return d.request('s2c', 'elicitation/create', { message: 'm', requestedSchema: { type: 'object', properties } }).out;
  };

  it('allows string, number, integer, boolean and arrays of enums', () => {
    expect(
      elicit({
        s: { type: 'string', format: 'email' },
        e: { type: 'string', enum: ['a', 'b'] },
        n: { type: 'number', minimum: 0 },
        i: { type: 'integer' },
        b: { type: 'boolean', default: false },
        multi: { type: 'array', items: { type: 'string', enum: ['x', 'y'] } },
        titled: { type: 'array', items: { anyOf: [{ const: 'x', title: 'X' }] } },
      }),
    ).toEqual([]);
  });

  it.each([
    ['an object', { type: 'object', properties: {} }],
    ['a plain array', { type: 'array', items: { type: 'string' } }],
    ['no type', { enum: ['a'] }],
    ['null', { type: 'null' }],
  ])('flags %s, at the property’s pointer', (_what, def) => {
    expect(elicit({ field: def })).toMatchObject([
      { rule: 'elicitation/requested-schema', path: '/params/requestedSchema/properties/field' },
    ]);
  });

  it('escapes ~ and / in the property name, one violation per bad property', () => {
    expect(elicit({ 'a/b~c': { type: 'object' }, ok: { type: 'string' }, d: { type: 'array' } }).map((v) => v.path)).toEqual([
      '/params/requestedSchema/properties/a~1b~0c',
      '/params/requestedSchema/properties/d',
    ]);
  });
});

describe('pagination/cursor-not-issued', () => {
  it('a cursor no result of that method returned', () => {
    const d = started({ server: ALL_SERVER });
    expect(d.request('c2s', 'tools/list', { cursor: 'c1' }).out).toMatchObject([
      { rule: 'pagination/cursor-not-issued', path: '/params/cursor' },
    ]);
    d.call('tools/list', {}, { tools: [], nextCursor: 'c1' });
    expect(d.request('c2s', 'tools/list', { cursor: 'c1' }).out).toEqual([]);
    // Cursors are per method.
    expect(rules(d.request('c2s', 'prompts/list', { cursor: 'c1' }).out)).toEqual(['pagination/cursor-not-issued']);
    d.call('resources/list', {}, { resources: [], nextCursor: 'r1' });
    expect(d.request('c2s', 'resources/list', { cursor: 'r1' }).out).toEqual([]);
    expect(rules(d.request('c2s', 'resources/templates/list', { cursor: 'r1' }).out)).toEqual(['pagination/cursor-not-issued']);
  });

  it('only in a session seen from the start, and only on list methods', () => {
    expect(midway({ serverCapabilities: ALL_SERVER }).request('c2s', 'tools/list', { cursor: 'c1' }).out).toEqual([]);
    expect(started({ server: ALL_SERVER }).request('c2s', 'tools/call', { name: 'x', cursor: 'c1' }).out).toEqual([]);
  });
});

describe('a session joined mid-way', () => {
  it('stays quiet on the rules that depend on its history', () => {
    const d = midway({ transport: 'streamable-http', clientCapabilities: {}, serverCapabilities: {} });
    expect(d.lint?.fromStart).toBe(false);
    const out = [
      ...d.request('c2s', 'tools/list', { cursor: 'made-up' }, { requestHeaders: {} }).out,
      ...d.request('s2c', 'sampling/createMessage', {}).out,
      ...d.request('s2c', 'roots/list').out,
      ...d.note('c2s', 'notifications/roots/list_changed'),
      ...d.note('s2c', 'notifications/message', { level: 'info', data: 1 }),
      ...d.note('s2c', 'notifications/progress', { progressToken: 'x', progress: 1 }, { correlatorCodes: ['unknown-progress-token'] }),
      ...d.note('c2s', 'notifications/cancelled', { requestId: 5 }, { correlatorCodes: ['cancel-unknown'] }),
    ];
    expect(out).toEqual([]);
  });

  it('a first message that is not the client’s initialize request is not the start', () => {
    expect(new SessionLint({ dir: 'c2s', kind: 'request', method: 'initialize' }).fromStart).toBe(true);
    expect(new SessionLint({ dir: 's2c', kind: 'request', method: 'initialize' }).fromStart).toBe(false);
    expect(new SessionLint({ dir: 'c2s', kind: 'notification', method: 'initialize' }).fromStart).toBe(false);
    expect(new SessionLint({ dir: 'c2s', kind: 'request', method: 'server/discover' }).fromStart).toBe(false);
  });

  it('still checks what the message itself shows', () => {
    const d = midway();
    d.call('tools/list', {}, { tools: [{ name: 'add', inputSchema: { type: 'object', required: ['a'] } }] });
    expect(rules(d.request('c2s', 'tools/call', { name: 'add', arguments: {} }).out)).toEqual(['tools/arguments-schema']);
    d.note('s2c', 'notifications/progress', { progressToken: 't', progress: 2 });
    expect(rules(d.note('s2c', 'notifications/progress', { progressToken: 't', progress: 1 }))).toEqual(['progress/not-increasing']);
    expect(rules(d.request('c2s', 'ping', undefined, { unassignedSessionId: true }).out)).toEqual(['http/session-id-not-assigned']);
  });
});

describe('bounds', () => {
  /** The private maps, read for the test (session-lint.ts's constants). */
  interface Internals {
    requests: Map<number, unknown>;
    answered: Map<number, number>;
    lastProgress: Map<string, number>;
    tools: Map<string, unknown>;
    cursors: Map<string, Set<string>>;
  }
  const MAX_REQUESTS = 1024;
  const MAX_ANSWERED = 1024;
  const MAX_TOKENS = 256;
  const MAX_TOOLS = 1000;
  const MAX_CURSORS = 64;
  const inside = (d: Driver) => d.lint as unknown as Internals;

  it('requests never answered, and answers', () => {
    const d = started({ server: ALL_SERVER });
    for (let i = 0; i < MAX_REQUESTS + 300; i++) d.request('c2s', 'tools/list');
    expect(inside(d).requests.size).toBe(MAX_REQUESTS);
    const seqs: number[] = [];
    for (let i = 0; i < MAX_ANSWERED + 300; i++) seqs.push(d.request('c2s', 'ping').seq);
    for (const seq of seqs) d.answer('s2c', seq, {});
    expect(inside(d).answered.size).toBe(MAX_ANSWERED);
    expect(inside(d).requests.size).toBeLessThanOrEqual(MAX_REQUESTS);
  });

  it('progress tokens', () => {
    const d = started();
    for (let i = 0; i < MAX_TOKENS + 100; i++) d.note('s2c', 'notifications/progress', { progressToken: `t${i}`, progress: 1 });
    expect(inside(d).lastProgress.size).toBe(MAX_TOKENS);
    // The most recent are the ones kept.
    expect(rules(d.note('s2c', 'notifications/progress', { progressToken: `t${MAX_TOKENS + 99}`, progress: 1 }))).toEqual([
      'progress/not-increasing',
    ]);
    expect(d.note('s2c', 'notifications/progress', { progressToken: 't0', progress: 1 })).toEqual([]);
  });

  it('tools of one tools/list, and pages of them', () => {
    const d = started({ server: ALL_SERVER });
    const many = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({ name: `tool${from + i}`, inputSchema: { type: 'object' } }));
    d.call('tools/list', {}, { tools: many(0, MAX_TOOLS + 200), nextCursor: 'p2' });
    expect(inside(d).tools.size).toBe(MAX_TOOLS);
    d.call('tools/list', { cursor: 'p2' }, { tools: many(MAX_TOOLS + 200, 500) });
    expect(inside(d).tools.size).toBe(MAX_TOOLS);
  });

  it('cursors, per list method', () => {
    const d = started({ server: ALL_SERVER });
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'tasks/list'])
      for (let i = 0; i < MAX_CURSORS + 50; i++) d.call(method, {}, { nextCursor: `${method}-${i}` });
    for (const set of inside(d).cursors.values()) expect(set.size).toBe(MAX_CURSORS);
    // Only the list methods have cursors kept.
    for (let i = 0; i < 20; i++) d.call('prompts/get', { name: 'p' }, { messages: [], nextCursor: `x${i}` });
    expect(inside(d).cursors.size).toBe(5);
    // The oldest went, the newest stayed.
    expect(d.request('c2s', 'tools/list', { cursor: `tools/list-${MAX_CURSORS + 49}` }).out).toEqual([]);
    expect(rules(d.request('c2s', 'tools/list', { cursor: 'tools/list-0' }).out)).toEqual(['pagination/cursor-not-issued']);
  });
});

describe('coverage of rules.ts', () => {
  it('every semantic rule fired in a test above', () => {
    const semantic = [...RULES.keys()].filter((id) => !id.startsWith('schema/') && !id.startsWith('version/'));
    expect(semantic.filter((id) => !FIRED.has(id))).toEqual([]);
    // …and nothing fired that rules.ts does not know.
    expect([...FIRED].filter((id) => !RULES.has(id) && !NOTES.has(id))).toEqual([]);
  });
});

describe('a session of a server that assigns no Mcp-Session-Id (grouped by client)', () => {
  // What the recorder does: the initialize answer came without an Mcp-Session-Id, so the session's later requests
  // are the ones of that client name without a session id (proxy/core/correlate/session-registry.ts) — two processes of
  // one client (two Inspector CLI runs against a stateless SDK server) land in one session, one's requests right
  // after the other's initialize. Found by test/e2e/spec-lint-peers.test.ts.
  const grouped = (grouping: string | undefined) => {
    const d = started({ transport: 'streamable-http', server: { resources: {} }, client: ALL_CLIENT, initialized: false });
    d.s.grouping = grouping;
    return [
      ...d.request('c2s', 'resources/list', { cursor: 'from-the-other-session' }).out,
      ...d.request('s2c', 'roots/list').out,
      ...d.note('s2c', 'notifications/progress', { progressToken: 'x', progress: 1 }, { correlatorCodes: ['unknown-progress-token'] }),
      ...d.note('c2s', 'notifications/cancelled', { requestId: 5 }, { correlatorCodes: ['cancel-unknown'] }),
    ];
  };

  it('stays quiet on the rules that depend on whose request came first', () => {
    expect(grouped('no Mcp-Session-Id (stateless server)')).toEqual([]);
    // The same traffic in a session with an Mcp-Session-Id is one client's, out of order.
    expect(rules(grouped(undefined))).toEqual([
      'lifecycle/request-before-initialized',
      'pagination/cursor-not-issued',
      'lifecycle/server-request-before-initialized',
      'progress/unknown-token',
      'cancellation/unknown-request',
    ]);
  });

  it('still checks what does not depend on it: capabilities, tool schemas, headers', () => {
    const d = started({ transport: 'streamable-http', server: {} });
    d.s.grouping = 'no Mcp-Session-Id (stateless server)';
    expect(rules(d.request('c2s', 'tools/list', undefined, { requestHeaders: {} }).out)).toEqual([
      'capability/tools-not-declared',
      'http/protocol-version-header-missing',
    ]);
    const s = started({ transport: 'streamable-http', server: ALL_SERVER });
    s.s.grouping = 'no Mcp-Session-Id (stateless server)';
    s.call('tools/list', {}, { tools: [{ name: 'add', inputSchema: { type: 'object', required: ['a'] } }] });
    expect(rules(s.request('c2s', 'tools/call', { name: 'add', arguments: {} }).out)).toEqual(['tools/arguments-schema']);
  });
});
