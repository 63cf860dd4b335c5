/**
 * Issue 19's acceptance: a scripted server that commits each server-side violation once, and a
 * client (plain fetch through the proxy) that commits each client-side one once, over real sockets:
 * every rule of proxy/lint/rules.ts is reported exactly once, on the message that broke it, with
 * the session's version in its specRef — and nothing else is reported. Six sessions, each
 * compliant but for the violations it is there to commit (a rule of one version needs a session of
 * that version; a stateless server one that assigns no session id).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpscope, type Mcpscope } from '../../proxy/mcpscope.js';
import type { MessageEvent, ProblemEvent, SessionInfo } from '../../proxy/model/events.js';
import { RULES } from '../../proxy/lint/rules.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';

type Msg = { jsonrpc?: string; id?: number | string; method?: string; params?: Record<string, unknown> };
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

let upstream: ScriptedUpstream;
let scope: Mcpscope;
const scenarioOfSession = new Map<string, string>();

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
  scope = await startMcpscope({ target: `${upstream.origin}/mcp`, port: 0, uiPort: 0, token: 'spec-lint-acceptance-token-0123' });

  /** One POST through the proxy; resolves when its whole answer has been read. */
  const post = async (msg: Msg, headers: Record<string, string>) => {
    const r = await fetch(scope.proxy!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', ...msg }),
    });
    await r.text();
  };
  const session = (name: string, clientCaps: Record<string, unknown>) => {
    const { version, stateless } = SCENARIOS[name]!;
    const h: Record<string, string> = stateless
      ? { 'mcp-protocol-version': version }
      : { 'mcp-session-id': `sid-${name}`, 'mcp-protocol-version': version };
    return {
      h,
      init: () =>
        post(req(1, 'initialize', { protocolVersion: version, capabilities: clientCaps, clientInfo: { name, version: '1' } }), {}),
      initialized: () => post(note('notifications/initialized'), h),
      send: (msg: Msg, headers: Record<string, string> = h) => post(msg, headers),
    };
  };

  const main = session('main', {});
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

  const lifecycle = session('lifecycle', { roots: {} });
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
    const s = session(name, caps);
    await s.init();
    await s.initialized();
    await s.send(req(2, 'tools/list'));
    await s.send(req(3, 'tools/call', { name: 'plain', arguments: {} }));
  }

  const stateless = session('stateless', {});
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
  });

  it('counts them per session', () => {
    const counts = new Map<string, number>();
    for (const v of violations()) counts.set(v.sessionId!, (counts.get(v.sessionId!) ?? 0) + 1);
    for (const [id, n] of counts) expect(sessionOf(id)?.counts.violations, id).toBe(n);
  });
});
