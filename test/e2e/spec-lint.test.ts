/**
 * Issue 19's acceptance: a scripted server that commits each server-side violation once, and a
 * client (plain fetch through the proxy) that commits each client-side one once, over real sockets:
 * every rule of proxy/core/lint/rules.ts is reported exactly once, on the message that broke it, with
 * the session's version in its specRef — and nothing else is reported. Six sessions, each
 * compliant but for the violations it is there to commit (a rule of one version needs a session of
 * that version; a stateless server one that assigns no session id). The client answers each
 * server request that came on a POST's SSE stream by POSTing its response, as a client does. The
 * same findings are in each session's counts and its lint report (GET /api/sessions/:id/lint);
 * `lint: 'strict'` makes a violation an error and `lint: 'off'` reports none (a session of its own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { MessageEvent, ProblemEvent, SessionInfo } from '../../proxy/core/model/events.js';
import { LATEST_VERSION, RULES } from '../../proxy/core/lint/rules.js';
import type { LintReport } from '../../proxy/core/lint/lint-report.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';

type Msg = {
  jsonrpc?: string;
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string };
};
/** What the server answers a request with: messages on the POST's SSE stream first (if any), then the result or error. */
type Answer = { before?: Msg[]; result?: unknown; error?: { code: number; message: string } };

interface Scenario {
  version: string;
  serverCaps: Record<string, unknown>;
  /** A server that assigns no Mcp-Session-Id. */
  stateless?: boolean;
  answer(method: string, params: Record<string, unknown> | undefined): Answer;
}

const notFound = { error: { code: -32601, message: 'Method not found' } };
const NUMBER_TOOL = {
  name: 'calc',
  inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
  outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
};
const PLAIN_TOOL = { name: 'plain', inputSchema: { type: 'object' } };
const text = (t: string) => [{ type: 'text', text: t }];
const req = (id: number, method: string, params?: Record<string, unknown>): Msg => ({ jsonrpc: '2.0', id, method, params });
const note = (method: string, params?: Record<string, unknown>): Msg => ({ jsonrpc: '2.0', method, params });

const SCENARIOS: Record<string, Scenario> = {
  // Server side: undeclared client capabilities, tool results, progress, undeclared server notifications.
  main: {
    version: '2025-06-18',
    serverCaps: { tools: {}, resources: {} },
    answer(method, params) {
      if (method === 'tools/list') return { result: { tools: [NUMBER_TOOL, PLAIN_TOOL] } };
      if (method === 'resources/list') return { result: { resources: [] } };
      if (method === 'resources/read') return { result: { contents: 5 } }; // schema/result
      if (method === 'ping') return { result: {} };
      if (method !== 'tools/call') return notFound;
      const args = (params?.arguments ?? {}) as Record<string, unknown>;
      const token = (params?._meta as { progressToken?: string } | undefined)?.progressToken;
      if (params?.name === 'plain') return { result: { structuredContent: { n: 1 } } }; // tools/missing-content
      if (typeof args.a === 'string') return { result: { content: text('a must be a number'), isError: true } };
      if (token !== undefined)
        return {
          before: [
            note('notifications/progress', { progressToken: token, progress: 2 }),
            note('notifications/progress', { progressToken: token, progress: 1 }), // progress/not-increasing
          ],
          result: { content: text('no structured content') }, // tools/missing-structured-content
        };
      return {
        before: [
          req(100, 'sampling/createMessage', { messages: [], maxTokens: 10 }), // capability/sampling-not-declared
          req(101, 'roots/list'), // capability/roots-not-declared
          // capability/elicitation-not-declared, and elicitation/requested-schema (a nested object)
          req(102, 'elicitation/create', {
            message: 'Where?',
            requestedSchema: { type: 'object', properties: { address: { type: 'object' } } },
          }),
          note('notifications/progress', { progressToken: 'ghost', progress: 1 }), // progress/unknown-token
          note('notifications/tools/list_changed'), // capability/list-changed-not-declared
          note('notifications/resources/updated', { uri: 'file:///x' }), // capability/resources-subscribe-not-declared
          note('notifications/message', { level: 'info', data: 'hello' }), // capability/logging-not-declared
        ],
        result: { content: text('2'), structuredContent: { sum: 'two' } }, // tools/structured-content-schema
      };
    },
  },
  // The lifecycle, and capabilities the server never declared.
  lifecycle: {
    version: '2025-06-18',
    serverCaps: {},
    answer(method) {
      // lifecycle/server-request-before-initialized (the client declared roots: no capability violation)
      if (method === 'tools/list') return { before: [req(200, 'roots/list')], result: { tools: [] } };
      if (method === 'resources/list') return { result: { resources: [] } };
      return notFound;
    },
  },
  // URL elicitation to a client whose elicitation capability has no `url`.
  url: {
    version: '2025-11-25',
    serverCaps: { tools: {} },
    answer(method) {
      if (method === 'tools/list') return { result: { tools: [PLAIN_TOOL] } };
      if (method === 'tools/call')
        return {
          before: [req(300, 'elicitation/create', { mode: 'url', message: 'Sign in', url: 'https://auth.example/x', elicitationId: 'e1' })],
          result: { content: text('ok') },
        };
      return notFound;
    },
  },
  // A method its version does not have yet.
  old: {
    version: '2025-03-26',
    serverCaps: { tools: {} },
    answer(method) {
      if (method === 'tools/list') return { result: { tools: [PLAIN_TOOL] } };
      if (method === 'tools/call')
        return {
          before: [
            req(400, 'elicitation/create', {
              message: 'Name?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
            }),
          ],
          result: { content: text('ok') },
        };
      return notFound;
    },
  },
  // A content type its version does not have yet.
  oldest: {
    version: '2024-11-05',
    serverCaps: { tools: {} },
    answer(method) {
      if (method === 'tools/list') return { result: { tools: [PLAIN_TOOL] } };
      if (method === 'tools/call') return { result: { content: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] } };
      return notFound;
    },
  },
  // --lint strict / off: one violation (a tool result with no content), and nothing that is an error otherwise.
  modes: {
    version: '2025-06-18',
    serverCaps: { tools: {} },
    answer(method) {
      if (method === 'tools/list') return { result: { tools: [PLAIN_TOOL] } };
      if (method === 'tools/call') return { result: { isError: false } }; // tools/missing-content
      return notFound;
    },
  },
  // A server that assigns no session id, and a client that sends one anyway.
  stateless: {
    version: '2025-06-18',
    serverCaps: { tools: {} },
    stateless: true,
    answer(method) {
      if (method === 'tools/list') return { result: { tools: [] } };
      return notFound;
    },
  },
};

/** Where in its message each violation points (rules about a whole message: nowhere). */
const PATHS: Record<string, string> = {
  'schema/request': '/params/uri',
  'schema/result': '/result/contents',
  'schema/notification': '/params/requestId',
  'version/content-not-in-version': '/result/content/0/type',
  'tools/arguments-schema': '/params/arguments/a',
  'tools/missing-content': '/result/content',
  'tools/structured-content-schema': '/result/structuredContent/sum',
  'tools/missing-structured-content': '/result/structuredContent',
  'progress/unknown-token': '/params/progressToken',
  'progress/not-increasing': '/params/progress',
  'cancellation/unknown-request': '/params/requestId',
  'cancellation/already-answered': '/params/requestId',
  'cancellation/initialize': '/params/requestId',
  'elicitation/requested-schema': '/params/requestedSchema/properties/address',
  'pagination/cursor-not-issued': '/params/cursor',
};

/** Which rule each session commits, on which message (its method): the whole of rules.ts. */
const EXPECTED: Record<string, [string, string]> = {
  'schema/request': ['main', 'resources/read'],
  'schema/result': ['main', 'resources/read'],
  'schema/notification': ['main', 'notifications/cancelled'],
  'version/method-not-in-version': ['old', 'elicitation/create'],
  'version/content-not-in-version': ['oldest', 'tools/call'],
  'lifecycle/request-before-initialized': ['lifecycle', 'tools/list'],
  'lifecycle/server-request-before-initialized': ['lifecycle', 'roots/list'],
  'capability/sampling-not-declared': ['main', 'sampling/createMessage'],
  'capability/elicitation-not-declared': ['main', 'elicitation/create'],
  'capability/elicitation-url-not-declared': ['url', 'elicitation/create'],
  'capability/roots-not-declared': ['main', 'roots/list'],
  'capability/roots-list-changed-not-declared': ['lifecycle', 'notifications/roots/list_changed'],
  'capability/tools-not-declared': ['lifecycle', 'tools/list'],
  'capability/prompts-not-declared': ['main', 'prompts/list'],
  'capability/resources-not-declared': ['lifecycle', 'resources/list'],
  'capability/resources-subscribe-not-declared': ['main', 'notifications/resources/updated'],
  'capability/logging-not-declared': ['main', 'notifications/message'],
  'capability/completions-not-declared': ['main', 'completion/complete'],
  'capability/list-changed-not-declared': ['main', 'notifications/tools/list_changed'],
  'tools/arguments-schema': ['main', 'tools/call'],
  'tools/missing-content': ['main', 'tools/call'],
  'tools/structured-content-schema': ['main', 'tools/call'],
  'tools/missing-structured-content': ['main', 'tools/call'],
  'progress/unknown-token': ['main', 'notifications/progress'],
  'progress/not-increasing': ['main', 'notifications/progress'],
  'cancellation/unknown-request': ['main', 'notifications/cancelled'],
  'cancellation/already-answered': ['main', 'notifications/cancelled'],
  'cancellation/initialize': ['lifecycle', 'notifications/cancelled'],
  'http/protocol-version-header-missing': ['main', 'ping'],
  'http/protocol-version-header-mismatch': ['main', 'ping'],
  'http/session-id-not-assigned': ['stateless', 'tools/list'],
  'elicitation/requested-schema': ['main', 'elicitation/create'],
  'pagination/cursor-not-issued': ['main', 'resources/list'],
};

const TOKEN = 'spec-lint-acceptance-token-0123';
let upstream: ScriptedUpstream;
let scope: Mcpscope;
const scenarioOfSession = new Map<string, string>();

/** One POST through the proxy; resolves when its whole answer has been read, with the messages of its SSE stream (if any). */
async function post(through: Mcpscope, msg: Msg, headers: Record<string, string>): Promise<Msg[]> {
  const r = await fetch(through.proxy!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', ...msg }),
  });
  const text = await r.text();
  if (!r.headers.get('content-type')?.startsWith('text/event-stream')) return [];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Msg);
}

/**
 * A client session of scenario `name` through `through`. It answers every server request that came
 * on a POST's SSE stream by POSTing its response (with the session's headers): a result where it
 * declared the capability (roots, form elicitation), else -32601, as a client without it does.
 */
function session(through: Mcpscope, name: string, clientCaps: Record<string, unknown>) {
  const { version, stateless } = SCENARIOS[name]!;
  const h: Record<string, string> = stateless
    ? { 'mcp-protocol-version': version }
    : { 'mcp-session-id': `sid-${name}`, 'mcp-protocol-version': version };
  const answerOf = (m: Msg): Msg => {
    if (m.method === 'roots/list' && clientCaps.roots) return { id: m.id, result: { roots: [] } };
    if (m.method === 'elicitation/create' && clientCaps.elicitation && m.params?.mode !== 'url')
      return { id: m.id, result: { action: 'decline' } };
    return { id: m.id, ...notFound };
  };
  const send = async (msg: Msg, headers: Record<string, string> = h) => {
    for (const m of await post(through, msg, headers))
      if (m.method !== undefined && m.id !== undefined) await post(through, answerOf(m), h);
  };
  return {
    h,
    init: () => send(req(1, 'initialize', { protocolVersion: version, capabilities: clientCaps, clientInfo: { name, version: '1' } }), {}),
    initialized: () => send(note('notifications/initialized')),
    send,
  };
}

async function api<T>(through: Mcpscope, path: string): Promise<T> {
  const r = await fetch(`${through.ui!.origin}${path}`, { headers: { 'x-mcpscope-token': TOKEN } });
  expect(r.status, path).toBe(200);
  return (await r.json()) as T;
}

beforeAll(async () => {
  upstream = await startScriptedUpstream({
    'POST /mcp': (req, res, body) => {
      const m = JSON.parse(body.toString('utf8')) as Msg;
      if (m.id === undefined || m.method === undefined) return void res.writeHead(202).end();
      let name: string | undefined;
      const headers: Record<string, string> = {};
      if (m.method === 'initialize') {
        name = String((m.params?.clientInfo as { name?: string } | undefined)?.name);
        if (!SCENARIOS[name]!.stateless) headers['mcp-session-id'] = `sid-${name}`;
        scenarioOfSession.set(`sid-${name}`, name);
      } else name = scenarioOfSession.get(String(req.headers['mcp-session-id'] ?? 'sid-stateless')) ?? 'stateless';
      const s = SCENARIOS[name]!;
      const a: Answer =
        m.method === 'initialize'
          ? { result: { protocolVersion: s.version, capabilities: s.serverCaps, serverInfo: { name: `server-${name}`, version: '1' } } }
          : s.answer(m.method, m.params);
      const final = { jsonrpc: '2.0', id: m.id, ...(a.error ? { error: a.error } : { result: a.result }) };
      if (!a.before) {
        res.writeHead(200, { 'content-type': 'application/json', ...headers });
        return void res.end(JSON.stringify(final));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', ...headers });
      for (const b of [...a.before, final]) res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...b })}\n\n`);
      res.end();
    },
  });
  scope = await startMcpscope({ target: `${upstream.origin}/mcp`, port: 0, uiPort: 0, token: TOKEN });

  const main = session(scope, 'main', {});
  await main.init();
  await main.initialized();
  await main.send(req(2, 'tools/list'));
  await main.send(req(3, 'tools/call', { name: 'calc', arguments: { a: 2 } }));
  await main.send(req(4, 'tools/call', { name: 'calc', arguments: { a: 1 }, _meta: { progressToken: 'p1' } }));
  await main.send(req(5, 'tools/call', { name: 'plain', arguments: {} }));
  await main.send(req(6, 'tools/call', { name: 'calc', arguments: { a: 'two' } }));
  await main.send(req(7, 'prompts/list'));
  await main.send(req(8, 'completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } }));
  await main.send(req(9, 'resources/read', {}));
  await main.send(req(10, 'resources/list', { cursor: 'never-issued' }));
  await main.send(note('notifications/cancelled', { requestId: true }));
  await main.send(note('notifications/cancelled', { requestId: 999 }));
  await main.send(req(11, 'ping'), { 'mcp-session-id': 'sid-main' });
  await main.send(req(12, 'ping'), { 'mcp-session-id': 'sid-main', 'mcp-protocol-version': '2025-03-26' });
  // The spec lets a cancellation cross its response on the wire; one sent this long after the answer is the client's mistake.
  await new Promise((r) => setTimeout(r, 1_100));
  await main.send(note('notifications/cancelled', { requestId: 3 }));

  const lifecycle = session(scope, 'lifecycle', { roots: {} });
  await lifecycle.init();
  await lifecycle.send(req(2, 'tools/list'));
  await lifecycle.initialized();
  await lifecycle.send(req(3, 'resources/list'));
  await lifecycle.send(note('notifications/roots/list_changed'));
  await lifecycle.send(note('notifications/cancelled', { requestId: 1 }));

  for (const [name, caps] of [
    ['url', { elicitation: {} }],
    ['old', { elicitation: {} }],
    ['oldest', {}],
  ] as const) {
    const s = session(scope, name, caps);
    await s.init();
    await s.initialized();
    await s.send(req(2, 'tools/list'));
    await s.send(req(3, 'tools/call', { name: 'plain', arguments: {} }));
  }

  const stateless = session(scope, 'stateless', {});
  await stateless.init();
  await stateless.initialized();
  await stateless.send(req(2, 'tools/list'), { 'mcp-session-id': 'made-up-by-the-client', 'mcp-protocol-version': '2025-06-18' });
  await scope.settle();
}, 30_000);

afterAll(async () => {
  await scope?.close();
  await upstream?.close();
});

const violations = () => scope.store.snapshot().filter((e): e is ProblemEvent => e.type === 'problem' && e.code === 'spec-violation');
const sessionOf = (id: string | undefined): SessionInfo | undefined => (id === undefined ? undefined : scope.store.sessions.get(id));

describe('the spec linter on scripted traffic that breaks every rule once', () => {
  it('the expectations name every rule of rules.ts (a new rule needs a case here)', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...RULES.keys()].sort());
  });

  it('reports every rule exactly once, and nothing else', () => {
    expect(
      violations()
        .map((v) => v.rule)
        .sort(),
    ).toEqual(Object.keys(EXPECTED).sort());
  });

  it('each on the message that broke it, in the session that committed it, with that session’s version in its specRef', () => {
    for (const v of violations()) {
      const [scenario, method] = EXPECTED[v.rule!]!;
      const m = scope.store.message(v.message!) as MessageEvent | undefined;
      const what = `${v.rule}: ${v.text}`;
      expect(m?.method, what).toBe(method);
      expect(m?.sessionId, what).toBe(v.sessionId);
      const session = sessionOf(v.sessionId);
      // http/session-id-not-assigned lands in the session mcpscope opened for the made-up id.
      if (v.rule !== 'http/session-id-not-assigned') expect(session?.clientInfo?.name, what).toBe(scenario);
      if (session?.protocolVersion) expect(v.specRef, what).toMatch(new RegExp(`^${SCENARIOS[scenario]!.version} `));
      // A session mcpscope knows no version of (the made-up id's) is linked to the latest specification.
      else expect(v.specRef, what).toMatch(new RegExp(`^${LATEST_VERSION} `));
      // A schema rule's section is its method's; every other rule's is its own.
      if (!v.rule!.startsWith('schema/') && v.rule !== 'version/method-not-in-version')
        expect(v.specRef, what).toBe(`${session?.protocolVersion ?? LATEST_VERSION} ${RULES.get(v.rule!)!.section}`);
      expect(v.level).toBe('warn');
      expect(v.text.length, what).toBeGreaterThan(40);
    }
  });

  it('says where and what was expected for the rules about one part of a message', () => {
    const byRule = new Map(violations().map((v) => [v.rule, v]));
    expect(byRule.get('tools/arguments-schema')).toMatchObject({ path: '/params/arguments/a', expected: 'a number' });
    expect(byRule.get('tools/structured-content-schema')).toMatchObject({ path: '/result/structuredContent/sum', expected: 'a number' });
    expect(byRule.get('schema/request')).toMatchObject({ path: '/params/uri', expected: 'a string' });
    expect(byRule.get('schema/result')).toMatchObject({ path: '/result/contents', expected: 'an array' });
    expect(byRule.get('schema/notification')).toMatchObject({ path: '/params/requestId' });
    expect(byRule.get('elicitation/requested-schema')).toMatchObject({ path: '/params/requestedSchema/properties/address' });
    expect(byRule.get('version/content-not-in-version')).toMatchObject({ path: '/result/content/0/type' });
    for (const v of violations()) expect(v.expected, v.rule).toBeTruthy();
    // Every rule about one part of a message points into that message; the others (lifecycle, capabilities, headers, a
    // method of another version) are about the message as a whole.
    for (const v of violations()) {
      expect(v.path, v.rule).toBe(PATHS[v.rule!]);
      if (v.path === undefined) continue;
      const parent = v.path.split('/').slice(1, -1);
      let at: unknown = (scope.store.message(v.message!) as MessageEvent).jsonrpc;
      for (const key of parent) at = (at as Record<string, unknown> | undefined)?.[key];
      expect(typeof at, `${v.rule}: ${v.path}`).toBe('object');
    }
  });

  it('counts them per session', () => {
    const counts = new Map<string, number>();
    for (const v of violations()) counts.set(v.sessionId!, (counts.get(v.sessionId!) ?? 0) + 1);
    for (const [id, n] of counts) expect(sessionOf(id)?.counts.violations, id).toBe(n);
    // Every request was answered, the server's too (the client POSTed its answers): nothing left hanging.
    for (const s of scope.store.sessions.values()) expect(s.counts.pending, s.id).toBe(0);
  });

  it('GET /api/sessions/:id/lint lists each session’s rules, once each, with the message that broke it', async () => {
    const bySession = new Map<string, ProblemEvent[]>();
    for (const v of violations()) bySession.set(v.sessionId!, [...(bySession.get(v.sessionId!) ?? []), v]);
    for (const s of scope.store.sessions.values()) {
      const found = bySession.get(s.id) ?? [];
      const report = await api<LintReport>(scope, `/api/sessions/${s.id}/lint`);
      expect(report).toMatchObject({ sessionId: s.id, total: found.length });
      expect(report.protocolVersion).toBe(s.protocolVersion);
      expect(report.rules.map((r) => r.rule).sort(), s.id).toEqual(found.map((v) => v.rule).sort());
      for (const r of report.rules) {
        const v = found.find((f) => f.rule === r.rule)!;
        expect(r, r.rule).toEqual({
          rule: v.rule,
          specRef: v.specRef,
          level: 'warn',
          count: 1,
          first: {
            seq: v.seq,
            message: v.message,
            ts: v.ts,
            text: v.text,
            expected: v.expected,
            ...(v.path !== undefined ? { path: v.path } : {}),
          },
        });
      }
    }
    // The stateless server's own session broke nothing: the made-up id opened a session of its own.
    const statelessSession = [...scope.store.sessions.values()].find((s) => s.clientInfo?.name === 'stateless')!;
    expect((await api<LintReport>(scope, `/api/sessions/${statelessSession.id}/lint`)).total).toBe(0);
    // The report is the UI's: it takes the token.
    expect((await fetch(`${scope.ui!.origin}/api/sessions/${statelessSession.id}/lint`)).status).toBe(401);
  });
});

describe('--lint strict and --lint off, on a session with one violation', () => {
  const scopes: Mcpscope[] = [];
  afterAll(async () => {
    for (const s of scopes) await s.close();
  });

  /** The modes scenario through a scope of its own: initialize, tools/list, a call whose result has no content. */
  async function run(lint: 'strict' | 'off') {
    const through = await startMcpscope({ target: `${upstream.origin}/mcp`, port: 0, uiPort: 0, token: TOKEN, lint });
    scopes.push(through);
    const s = session(through, 'modes', {});
    await s.init();
    await s.initialized();
    await s.send(req(2, 'tools/list'));
    await s.send(req(3, 'tools/call', { name: 'plain', arguments: {} }));
    await through.settle();
    const sessions = [...through.store.sessions.values()];
    expect(sessions).toHaveLength(1);
    const problems = through.store.snapshot().filter((e): e is ProblemEvent => e.type === 'problem' && e.code === 'spec-violation');
    return { through, session: sessions[0]!, problems, report: await api<LintReport>(through, `/api/sessions/${sessions[0]!.id}/lint`) };
  }

  it('strict: the violation is an error, counted in the session’s errors and reported as such', async () => {
    const { through, session: s, problems, report } = await run('strict');
    expect(problems.map((p) => [p.rule, p.level])).toEqual([['tools/missing-content', 'error']]);
    expect((through.store.message(problems[0]!.message!) as MessageEvent).method).toBe('tools/call');
    expect(s.counts).toMatchObject({ violations: 1, errors: 1, pending: 0 });
    expect(report).toMatchObject({ total: 1, rules: [{ rule: 'tools/missing-content', level: 'error', count: 1 }] });
  });

  it('off: nothing is checked, nothing reported or counted', async () => {
    const { session: s, problems, report } = await run('off');
    expect(problems).toEqual([]);
    expect(s.counts.violations ?? 0).toBe(0);
    expect(s.counts.errors).toBe(0);
    expect(s.counts.messages).toBe(7);
    expect(report).toMatchObject({ total: 0, rules: [] });
  });
});
