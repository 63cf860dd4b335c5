/**
 * Schema validation of one message (proxy/core/lint/schema-check.ts): requests and notifications by
 * their method, results by their request's method, the version rules, 2026-07-28's schemas from
 * @modelcontextprotocol/core, task-augmented results, and that no violation quotes a sent value.
 */
import { describe, expect, it } from 'vitest';
import { checkSchema, pointer, type SchemaInput } from '../../../proxy/core/lint/schema-check.js';
import { METHODS } from '../../../proxy/core/lint/methods.js';
import { METHODS_2026, methodsFor } from '../../../proxy/core/lint/methods-2026.js';

const V = '2025-06-18';
const req = (method: string, params: unknown, dir: SchemaInput['dir'] = 'c2s', version: string | undefined = V): SchemaInput => ({
  dir,
  kind: 'request',
  method,
  value: { jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) },
  version,
});
const note = (method: string, params: unknown, dir: SchemaInput['dir'] = 's2c', version: string | undefined = V): SchemaInput => ({
  dir,
  kind: 'notification',
  method,
  value: { jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) },
  version,
});
const res = (requestMethod: string, result: unknown, dir: SchemaInput['dir'] = 's2c', version: string | undefined = V): SchemaInput => ({
  dir,
  kind: 'response',
  requestMethod,
  value: { jsonrpc: '2.0', id: 1, result },
  version,
});

describe('pointer', () => {
  it('escapes ~ and / (RFC 6901) and keeps numbers as indices', () => {
    expect(pointer('/result', ['a/b', 'c~d', 0])).toBe('/result/a~1b/c~0d/0');
    expect(pointer('', [])).toBe('');
  });
});

describe('checkSchema: each method kind', () => {
  it('a well-formed request, notification and result pass', () => {
    expect(checkSchema(req('tools/call', { name: 'echo', arguments: { text: 'hi' } }))).toEqual([]);
    expect(checkSchema(note('notifications/progress', { progressToken: 'p', progress: 1, total: 2 }))).toEqual([]);
    expect(checkSchema(res('tools/list', { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }))).toEqual([]);
    expect(checkSchema(res('ping', {}))).toEqual([]);
  });

  it('a malformed request: schema/request at its JSON pointer, expected in plain words, the method’s section', () => {
    const [v, ...rest] = checkSchema(req('tools/call', { name: 42 }));
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ rule: 'schema/request', section: 'server/tools#calling-tools', path: '/params/name', expected: 'a string' });
    expect(v.text).toContain("The client's tools/call request");
    expect(v.text).toContain('at /params/name, expected a string');
  });

  it('a malformed notification: schema/notification (enum values from the schema)', () => {
    const [v] = checkSchema(note('notifications/message', { level: 'loud', data: 1 }));
    expect(v).toMatchObject({ rule: 'schema/notification', path: '/params/level' });
    expect(v.expected).toMatch(/^one of "debug", "info", /);
    expect(v.text).toContain("The server's notifications/message notification");
  });

  it('a malformed result is checked against the schema of the method of the request it answers', () => {
    const bad = { tools: [{ name: 'x', inputSchema: { type: 'array' } }] };
    const [v] = checkSchema(res('tools/list', bad));
    expect(v).toMatchObject({
      rule: 'schema/result',
      section: 'server/tools#listing-tools',
      path: '/result/tools/0/inputSchema/type',
      expected: 'one of "object"',
    });
    // The same result answering another method is judged by that method's schema.
    expect(checkSchema(res('initialize', bad))[0]).toMatchObject({ rule: 'schema/result', section: 'basic/lifecycle#initialization' });
    // A result that is not an object at all.
    expect(checkSchema(res('tools/list', 'nope'))).toMatchObject([{ rule: 'schema/result', path: '/result', expected: 'an object' }]);
  });

  it('a client-sent result (a server request’s answer) says who answered', () => {
    const [v] = checkSchema(res('roots/list', { roots: 'none' }, 'c2s'));
    expect(v).toMatchObject({ rule: 'schema/result', path: '/result/roots', expected: 'an array' });
    expect(v.text).toContain("The client's result for roots/list");
  });

  it('a nested union reports its closest branch', () => {
    const [v] = checkSchema(req('tools/call', { name: 'x', _meta: { progressToken: {} } }));
    expect(v).toMatchObject({ rule: 'schema/request', path: '/params/_meta/progressToken' });
    expect(v.expected).toMatch(/^a (string|number)$/);
  });

  it('error responses, responses without a known request method and unknown kinds are not checked', () => {
    expect(checkSchema({ dir: 's2c', kind: 'error', requestMethod: 'tools/call', value: { jsonrpc: '2.0', id: 1, error: 5 } })).toEqual([]);
    expect(checkSchema({ dir: 's2c', kind: 'response', value: { jsonrpc: '2.0', id: 1, result: 5 } })).toEqual([]);
    expect(checkSchema(res('x-vendor/thing', 5))).toEqual([]);
    // tasks/result answers with the underlying request's result: nothing to check it against.
    expect(checkSchema(res('tasks/result', 5, 's2c', '2025-11-25'))).toEqual([]);
  });
});

describe('checkSchema: what is not checked', () => {
  it('an unknown method is never a violation, whatever it carries', () => {
    expect(checkSchema(req('x-vendor/doThing', 42))).toEqual([]);
    expect(checkSchema(note('notifications/x-vendor', 'garbage'))).toEqual([]);
    expect(checkSchema({ dir: 'c2s', kind: 'request', value: { id: 1 } })).toEqual([]);
  });

  it('a known method sent by the side that never sends it is not checked', () => {
    // tools/call is the client's; sampling/createMessage and notifications/message the server's.
    expect(checkSchema(req('tools/call', { name: 42 }, 's2c'))).toEqual([]);
    expect(checkSchema(req('sampling/createMessage', { messages: 5 }, 'c2s'))).toEqual([]);
    expect(checkSchema(note('notifications/message', { level: 5 }, 'c2s'))).toEqual([]);
    expect(checkSchema(note('notifications/initialized', 5, 's2c'))).toEqual([]);
    // …while the right side is.
    expect(checkSchema(req('sampling/createMessage', { messages: 5 }, 's2c'))).toHaveLength(1);
    expect(checkSchema(note('notifications/initialized', 5, 'c2s'))).toHaveLength(1);
    // Methods both sides send are checked from either.
    expect(checkSchema(note('notifications/progress', { progressToken: 1, progress: 'x' }, 'c2s'))).toHaveLength(1);
    expect(checkSchema(note('notifications/progress', { progressToken: 1, progress: 'x' }, 's2c'))).toHaveLength(1);
  });

  it('a request method sent as a notification (or the other way round) is not checked', () => {
    expect(checkSchema(note('tools/call', { name: 42 }, 'c2s'))).toEqual([]);
    expect(checkSchema(req('notifications/progress', { progress: 'x' }, 's2c'))).toEqual([]);
  });
});

describe('checkSchema: versions', () => {
  it('elicitation/create in 2025-03-26 is version/method-not-in-version; from 2025-06-18 it is checked normally', () => {
    const params = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
    const [v, ...rest] = checkSchema(req('elicitation/create', params, 's2c', '2025-03-26'));
    expect(rest).toEqual([]);
    expect(v).toMatchObject({
      rule: 'version/method-not-in-version',
      section: 'client/elicitation#creating-elicitation-requests',
      expected: 'a method of protocol version 2025-03-26',
    });
    expect(v.text).toContain('it came in 2025-06-18');
    expect(checkSchema(req('elicitation/create', params, 's2c', '2025-06-18'))).toEqual([]);
    expect(checkSchema(req('elicitation/create', params, 's2c', '2025-11-25'))).toEqual([]);
  });

  it('tasks before 2025-11-25 are not in the version; an unknown or missing version holds nothing against a method', () => {
    expect(checkSchema(req('tasks/get', { taskId: 't' }, 'c2s', '2025-06-18'))).toMatchObject([{ rule: 'version/method-not-in-version' }]);
    expect(checkSchema(req('tasks/get', { taskId: 't' }, 'c2s', '2025-11-25'))).toEqual([]);
    expect(
      checkSchema(req('elicitation/create', { message: 'x', requestedSchema: { type: 'object', properties: {} } }, 's2c', undefined)),
    ).toEqual([]);
    expect(checkSchema(req('tasks/get', { taskId: 't' }, 'c2s', '1999-01-01'))).toEqual([]);
  });

  it('audio content in 2024-11-05 is version/content-not-in-version; fine from 2025-03-26', () => {
    const result = {
      content: [
        { type: 'text', text: 'ok' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      ],
    };
    const [v, ...rest] = checkSchema(res('tools/call', result, 's2c', '2024-11-05'));
    expect(rest).toEqual([]);
    expect(v).toMatchObject({
      rule: 'version/content-not-in-version',
      path: '/result/content/1/type',
      expected: 'a content type of protocol version 2024-11-05: text, image or resource',
    });
    for (const later of ['2025-03-26', '2025-06-18', '2025-11-25'])
      expect(checkSchema(res('tools/call', result, 's2c', later))).toEqual([]);
  });

  it('resource_link content in 2025-03-26 is version/content-not-in-version; fine from 2025-06-18', () => {
    const result = { content: [{ type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' }] };
    expect(checkSchema(res('tools/call', result, 's2c', '2025-03-26'))).toMatchObject([
      {
        rule: 'version/content-not-in-version',
        path: '/result/content/0/type',
        expected: 'a content type of protocol version 2025-03-26: text, image, audio or resource',
      },
    ]);
    expect(checkSchema(res('tools/call', result, 's2c', '2025-06-18'))).toEqual([]);
    expect(checkSchema(res('tools/call', result, 's2c', '2025-11-25'))).toEqual([]);
  });

  it('a prompt message’s content is held to the version too', () => {
    const result = { messages: [{ role: 'user', content: { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' } }] };
    expect(checkSchema(res('prompts/get', result, 's2c', '2024-11-05'))).toMatchObject([
      { rule: 'version/content-not-in-version', path: '/result/messages/0/content/type' },
    ]);
    expect(checkSchema(res('prompts/get', result, 's2c', '2025-03-26'))).toEqual([]);
  });
});

describe('checkSchema: 2026-07-28 (@modelcontextprotocol/core schemas)', () => {
  const V26 = '2026-07-28';
  it('picks the 2026 table from 2026-07-28 on, v1’s before', () => {
    expect(methodsFor(V26)).toBe(METHODS_2026);
    expect(methodsFor('2025-11-25')).toBe(METHODS);
    expect(methodsFor(undefined)).toBe(METHODS);
  });

  it('server/discover: a result without supportedVersions is a violation', () => {
    const ok = { supportedVersions: [V26], capabilities: {}, serverInfo: { name: 's', version: '1' } };
    expect(checkSchema(res('server/discover', ok, 's2c', V26))).toEqual([]);
    const { supportedVersions: _drop, ...missing } = ok;
    void _drop;
    expect(checkSchema(res('server/discover', missing, 's2c', V26))).toMatchObject([
      { rule: 'schema/result', section: 'server/discovery', path: '/result/supportedVersions', expected: 'an array' },
    ]);
    // Before 2026-07-28 server/discover is an unknown method: not checked.
    expect(checkSchema(res('server/discover', missing, 's2c', '2025-11-25'))).toEqual([]);
  });

  it('input_required (any non-complete resultType) results are not checked; complete ones are', () => {
    expect(checkSchema(res('tools/call', { resultType: 'input_required', inputRequests: 5 }, 's2c', V26))).toEqual([]);
    expect(checkSchema(res('tools/call', { resultType: 'complete', content: [] }, 's2c', V26))).toEqual([]);
    expect(checkSchema(res('tools/call', { resultType: 'complete', content: 5 }, 's2c', V26))).toMatchObject([
      { rule: 'schema/result', path: '/result/content', expected: 'an array' },
    ]);
  });

  it('2026-only notifications are checked, and initialize (not a 2026 method) is not', () => {
    expect(checkSchema(note('notifications/subscriptions/acknowledged', 5, 's2c', V26))).toMatchObject([
      { rule: 'schema/notification', path: '/params', expected: 'an object' },
    ]);
    expect(checkSchema(req('initialize', { protocolVersion: 5 }, 'c2s', V26))).toEqual([]);
  });

  it('a method 2026-07-28 dropped (as the SDK v2 registry of that revision lists them) is a version violation there, and fine before', () => {
    for (const [method, dir] of [
      ['ping', 'c2s'],
      ['logging/setLevel', 'c2s'],
      ['resources/subscribe', 'c2s'],
      ['tasks/get', 'c2s'],
      ['sampling/createMessage', 's2c'],
      ['roots/list', 's2c'],
    ] as const) {
      const found = checkSchema(req(method, method === 'logging/setLevel' ? { level: 'info' } : {}, dir, V26));
      expect(found, method).toMatchObject([{ rule: 'version/method-not-in-version', expected: 'a method of protocol version 2026-07-28' }]);
      expect(found[0]!.text).toContain('it was removed in 2026-07-28');
    }
    expect(checkSchema(req('sampling/createMessage', {}, 's2c', V26))[0]!.text).toContain('input_required');
    expect(checkSchema(note('notifications/initialized', undefined, 'c2s', V26))).toMatchObject([
      { rule: 'version/method-not-in-version' },
    ]);
    expect(checkSchema(req('ping', undefined, 'c2s', '2025-11-25'))).toEqual([]);
    // The 2026 table's own methods are the registry's; initialize (how any version is negotiated) is not in it: never judged.
    const current = [...METHODS_2026].filter(([, spec]) => spec.until === undefined).map(([m]) => m);
    expect(current.sort()).toEqual(
      [
        'completion/complete',
        'notifications/cancelled',
        'notifications/message',
        'notifications/progress',
        'notifications/prompts/list_changed',
        'notifications/resources/list_changed',
        'notifications/resources/updated',
        'notifications/subscriptions/acknowledged',
        'notifications/tools/list_changed',
        'prompts/get',
        'prompts/list',
        'resources/list',
        'resources/read',
        'resources/templates/list',
        'server/discover',
        'subscriptions/listen',
        'tools/call',
        'tools/list',
      ].sort(),
    );
  });
});

describe('checkSchema: task-augmented results', () => {
  const task = { taskId: 't1', status: 'working', createdAt: '2025-11-25T00:00:00Z', lastUpdatedAt: '2025-11-25T00:00:00Z', ttl: null };
  it('a CreateTaskResult answering tools/call is checked as one (not as a CallToolResult)', () => {
    expect(checkSchema(res('tools/call', { task }, 's2c', '2025-11-25'))).toEqual([]);
    expect(checkSchema(res('tools/call', { task: { ...task, status: 'sleeping' } }, 's2c', '2025-11-25'))).toMatchObject([
      { rule: 'schema/result', path: '/result/task/status' },
    ]);
    expect(checkSchema(res('tools/call', { task: { ...task, taskId: 7 } }, 's2c', '2025-11-25'))).toMatchObject([
      { rule: 'schema/result', path: '/result/task/taskId', expected: 'a string' },
    ]);
  });
});

describe('checkSchema: no violation quotes a sent value', () => {
  const MARK = 'sk-live-MARKER7f3a9c2e1d';
  const cases: [string, SchemaInput][] = [
    ['string where a number is wanted', note('notifications/progress', { progressToken: 'p', progress: MARK })],
    ['string where an object is wanted', req('tools/call', { name: 'x', arguments: MARK })],
    ['string where a record is wanted', req('tools/call', { name: 'x', arguments: [MARK] })],
    ['string outside an enum', note('notifications/message', { level: MARK, data: 1 })],
    ['string outside an enum (result)', res('tools/list', { tools: [{ name: 'x', inputSchema: { type: MARK } }] })],
    [
      'a string that is not a URL',
      req('elicitation/create', { mode: 'url', message: 'm', elicitationId: 'e', url: MARK }, 's2c', '2025-11-25'),
    ],
    ['a string that is not Base64', res('tools/call', { content: [{ type: 'image', data: `${MARK}!!`, mimeType: 'image/png' }] })],
    ['a key a strict schema does not know', res('ping', { [MARK]: MARK })],
    ['a wrong-typed nested value', res('initialize', { protocolVersion: V, capabilities: {}, serverInfo: { name: 1, version: MARK } })],
    [
      'a content type the version lacks',
      res('tools/call', { content: [{ type: 'audio', data: 'AAAA', mimeType: MARK }] }, 's2c', '2024-11-05'),
    ],
    [
      'a task status',
      res('tools/call', { task: { taskId: 't', status: MARK, createdAt: 'x', lastUpdatedAt: 'x', ttl: null } }, 's2c', '2025-11-25'),
    ],
    ['a 2026 result', res('server/discover', { supportedVersions: MARK, capabilities: {}, serverInfo: {} }, 's2c', '2026-07-28')],
  ];
  it.each(cases)('%s', (_name, input) => {
    const found = checkSchema(input);
    expect(found.length).toBeGreaterThan(0);
    for (const v of found) {
      expect(v.text).not.toContain('MARKER');
      expect(v.expected ?? '').not.toContain('MARKER');
      expect(v.path ?? '').not.toContain('MARKER');
    }
  });

  it('expected is words of what the schema wants, not zod’s description of what came', () => {
    expect(checkSchema(res('ping', { extra: 1 }))).toMatchObject([
      { rule: 'schema/result', path: '/result', expected: 'no properties other than those the schema names' },
    ]);
    expect(checkSchema(res('tools/call', { content: [{ type: 'image', data: '!!', mimeType: 'image/png' }] }))[0].expected).toBe(
      'a valid Base64 string',
    );
  });
});
