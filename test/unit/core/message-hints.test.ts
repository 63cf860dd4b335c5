/** proxy/core/annotate/message-hints.ts (with method-hints.ts, result-hints.ts, hint-text.ts): plain-language hints for single MCP messages. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Hint } from '../../../proxy/core/model/events.js';
import { describeErrorCode } from '../../../proxy/core/annotate/error-codes.js';
import { isKnownMethod, messageHints, type MessageHintInput } from '../../../proxy/core/annotate/message-hints.js';
import { hintTracker } from '../../support/hint-shape.js';

const { track, checkEveryHint } = hintTracker();

function req(method: string, params?: unknown, id: number | string = 1): unknown {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

function note(method: string, params?: unknown): unknown {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

function res(result: unknown, id: number | string = 1): unknown {
  return { jsonrpc: '2.0', id, result };
}

function err(code: number, message: string, data?: unknown): unknown {
  return { jsonrpc: '2.0', id: 1, error: data === undefined ? { code, message } : { code, message, data } };
}

function hintsFor(input: MessageHintInput): Hint[] {
  return track(messageHints(input));
}

function request(method: string, params?: unknown, dir: 'c2s' | 's2c' = 'c2s'): Hint[] {
  return hintsFor({ dir, kind: 'request', method, value: req(method, params) });
}

function notification(method: string, params?: unknown, dir: 'c2s' | 's2c' = 's2c'): Hint[] {
  return hintsFor({ dir, kind: 'notification', method, value: note(method, params) });
}

function result(requestMethod: string | undefined, value: unknown, dir: 'c2s' | 's2c' = 's2c', requestedVersion?: string): Hint[] {
  const input: MessageHintInput = { dir, kind: 'response', value: res(value) };
  if (requestMethod !== undefined) input.requestMethod = requestMethod;
  if (requestedVersion !== undefined) input.requestedVersion = requestedVersion;
  return hintsFor(input);
}

function byCode(hints: Hint[], code: string): Hint {
  const h = hints.find((x) => x.code === code);
  if (!h) throw new Error(`no hint ${code} in ${JSON.stringify(hints)}`);
  return h;
}

describe('messageHints: lifecycle', () => {
  it('initialize: requested version, client and capabilities', () => {
    const hints = request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } },
      clientInfo: { name: 'inspector', version: '1.0.3' },
    });
    expect(hints).toEqual([
      {
        level: 'info',
        code: 'initialize',
        text: 'Client "inspector 1.0.3" opens the session asking for protocol version 2025-11-25. It offers roots (with list_changed), sampling, elicitation (form, url).',
      },
    ]);
  });

  it('initialize: an empty elicitation object means form mode; no capabilities at all', () => {
    expect(
      byCode(request('initialize', { protocolVersion: '2025-06-18', capabilities: { elicitation: {} } }), 'initialize').text,
    ).toContain('elicitation (form)');
    expect(byCode(request('initialize', { protocolVersion: '2025-06-18', capabilities: {} }), 'initialize').text).toContain(
      'no optional client features',
    );
  });

  it('initialize: experimental and extensions capabilities are named by their keys (empty ones are not said)', () => {
    const caps = { experimental: { a: {}, b: {} }, extensions: { 'io.x/y': {} } };
    expect(byCode(request('initialize', { protocolVersion: '2025-06-18', capabilities: caps }), 'initialize').text).toContain(
      'experimental (a, b), extensions (io.x/y)',
    );
    expect(
      byCode(request('initialize', { protocolVersion: '2025-06-18', capabilities: { experimental: {}, extensions: {} } }), 'initialize')
        .text,
    ).toContain('no optional client features');
  });

  it('initialize without protocolVersion warns', () => {
    expect(byCode(request('initialize', { capabilities: {} }), 'initialize-no-version').level).toBe('warn');
  });

  it('initialize result: negotiated version and server capabilities', () => {
    const hints = result(
      'initialize',
      {
        protocolVersion: '2025-11-25',
        capabilities: {
          tools: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          prompts: {},
          logging: {},
          completions: {},
        },
        serverInfo: { name: 'everything', version: '2.0' },
      },
      's2c',
      '2025-11-25',
    );
    expect(hints).toEqual([
      {
        level: 'info',
        code: 'initialize-result',
        text: 'Server "everything 2.0" agreed on protocol version 2025-11-25 and offers tools (list_changed), resources (subscribe, list_changed), prompts, logging, completions. The client must now send notifications/initialized.',
      },
    ]);
  });

  it('initialize result: says when the version differs from the requested one', () => {
    const hints = result(
      'initialize',
      { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's' }, instructions: 'Use me well' },
      's2c',
      '2025-11-25',
    );
    expect(hints.map((h) => h.code)).toEqual(['initialize-result', 'version-differs', 'server-instructions']);
    expect(byCode(hints, 'version-differs')).toMatchObject({ level: 'warn' });
    expect(byCode(hints, 'version-differs').text).toContain('2025-06-18 instead of the requested 2025-11-25');
    expect(byCode(hints, 'server-instructions').text).toContain('11 characters');
    expect(byCode(hints, 'initialize-result').text).toContain('no features');
  });

  it('no version-differs when versions agree or the requested one is unknown', () => {
    expect(result('initialize', { protocolVersion: '2025-06-18', capabilities: {} }).map((h) => h.code)).toEqual(['initialize-result']);
  });

  it('notifications/initialized', () => {
    expect(notification('notifications/initialized', undefined, 'c2s')).toEqual([
      { level: 'info', code: 'initialized', text: 'The client confirms the handshake is complete: normal requests can start now.' },
    ]);
  });

  it('ping, both directions, and its answer', () => {
    expect(request('ping').map((h) => h.code)).toEqual(['ping']);
    expect(request('ping', undefined, 's2c').map((h) => h.code)).toEqual(['ping']);
    expect(result('ping', {}).map((h) => h.code)).toEqual(['ping-result']);
  });
});

describe('messageHints: tools, resources, prompts', () => {
  it('tools/list and its result (N tools, pagination)', () => {
    expect(byCode(request('tools/list'), 'tools-list').text).toBe('The client asks which tools the server offers.');
    expect(byCode(request('tools/list', { cursor: 'c1' }), 'tools-list').text).toContain('next page');
    const hints = result('tools/list', { tools: [{ name: 'echo' }, { name: 'add' }, { name: 'sleep' }] });
    expect(hints).toEqual([{ level: 'info', code: 'tools-list-result', text: 'The server offers 3 tools: echo, add, sleep.' }]);
    expect(result('tools/list', { tools: [{ name: 'a' }], nextCursor: 'n' })[0].text).toBe(
      'The server offers 1 tool: a. More are on the next page: the client should ask again with nextCursor.',
    );
    expect(result('tools/list', { tools: [] })[0].text).toBe('The server offers no tools.');
    const many = result('tools/list', { tools: Array.from({ length: 8 }, (_, i) => ({ name: `t${i}` })) });
    expect(many[0].text).toBe('The server offers 8 tools: t0, t1, t2, t3, t4 and 3 more.');
  });

  it('tools/call names the tool and its arguments', () => {
    expect(request('tools/call', { name: 'get_weather', arguments: { city: 'Hangzhou' } })).toEqual([
      { level: 'info', code: 'tools-call', text: 'The client calls the tool "get_weather" with 1 argument (city).' },
    ]);
    expect(byCode(request('tools/call', { name: 'now' }), 'tools-call').text).toBe('The client calls the tool "now" without arguments.');
  });

  it('a tool result with isError is a warn, not a protocol error', () => {
    const hints = result('tools/call', { content: [{ type: 'text', text: 'City not found' }], isError: true });
    expect(hints).toHaveLength(1);
    expect(hints[0]).toMatchObject({ level: 'warn', code: 'tool-error' });
    expect(hints[0].text).toBe(
      'The tool ran and reported a failure (isError: true): "City not found". This is not a protocol error: the result goes back to the model so it can react.',
    );
  });

  it('a normal tool result', () => {
    expect(
      result('tools/call', {
        content: [
          { type: 'text', text: 'x' },
          { type: 'image', data: '', mimeType: 'image/png' },
        ],
        structuredContent: {},
      }),
    ).toEqual([{ level: 'info', code: 'tool-result', text: 'The tool returned 2 content items (text, image) and structured content.' }]);
  });

  it('resources/list, templates, read, subscribe, unsubscribe, updated', () => {
    expect(request('resources/list').map((h) => h.code)).toEqual(['resources-list']);
    expect(request('resources/templates/list').map((h) => h.code)).toEqual(['resources-templates-list']);
    expect(byCode(request('resources/read', { uri: 'file:///etc/app.json' }), 'resources-read').text).toBe(
      'The client reads the resource "file:///etc/app.json".',
    );
    expect(byCode(request('resources/subscribe', { uri: 'file:///x' }), 'resources-subscribe').text).toContain(
      'notifications/resources/updated',
    );
    expect(request('resources/unsubscribe', { uri: 'file:///x' }).map((h) => h.code)).toEqual(['resources-unsubscribe']);
    expect(notification('notifications/resources/updated', { uri: 'file:///x' })).toEqual([
      {
        level: 'info',
        code: 'resource-updated',
        text: 'The resource "file:///x" changed: the client may read it again with resources/read.',
      },
    ]);
    expect(
      result('resources/list', {
        resources: [
          { uri: 'file:///a', name: 'a' },
          { uri: 'file:///b', name: 'b' },
        ],
      })[0],
    ).toMatchObject({
      code: 'resources-list-result',
      text: 'The server offers 2 resources: file:///a, file:///b.',
    });
    expect(result('resources/templates/list', { resourceTemplates: [{ uriTemplate: 'x://{y}', name: 'y' }] })[0].code).toBe(
      'resources-templates-list-result',
    );
    expect(result('resources/read', { contents: [{ uri: 'file:///a', text: 'hi' }] })[0]).toMatchObject({
      code: 'resources-read-result',
      text: 'The server returned 1 content item for the resource.',
    });
  });

  it.each([
    ['notifications/tools/list_changed', 's2c', 'tools/list'],
    ['notifications/prompts/list_changed', 's2c', 'prompts/list'],
    ['notifications/resources/list_changed', 's2c', 'resources/list'],
    ['notifications/roots/list_changed', 'c2s', 'roots/list'],
  ] as const)('%s → list-changed (re-fetch with %s)', (method, dir, refetch) => {
    const hints = notification(method, undefined, dir);
    expect(hints).toHaveLength(1);
    expect(hints[0]).toMatchObject({ level: 'info', code: 'list-changed' });
    expect(hints[0].text).toContain(refetch);
    expect(hints[0].text).toMatch(/should (re-fetch|ask again)/);
  });

  it('prompts/list, prompts/get and results', () => {
    expect(request('prompts/list').map((h) => h.code)).toEqual(['prompts-list']);
    expect(byCode(request('prompts/get', { name: 'code_review', arguments: { code: 'x', lang: 'ts' } }), 'prompts-get').text).toBe(
      'The client fetches the prompt "code_review" filled with 2 arguments.',
    );
    expect(result('prompts/list', { prompts: [{ name: 'code_review' }] })[0].text).toBe('The server offers 1 prompt: code_review.');
    expect(result('prompts/get', { messages: [{}, {}] })[0]).toMatchObject({
      code: 'prompts-get-result',
      text: 'The prompt expands to 2 messages for the model.',
    });
  });

  it('completion/complete and its result', () => {
    const hints = request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'code_review' },
      argument: { name: 'lang', value: 'py' },
    });
    expect(hints).toEqual([
      {
        level: 'info',
        code: 'completion',
        text: 'The client asks for completions of argument "lang" starting with "py" of the prompt "code_review".',
      },
    ]);
    expect(
      byCode(
        request('completion/complete', { ref: { type: 'ref/resource', uri: 'db://{table}' }, argument: { name: 'table', value: '' } }),
        'completion',
      ).text,
    ).toContain('the resource template "db://{table}"');
    expect(result('completion/complete', { completion: { values: ['python', 'pytorch'], hasMore: true } })).toEqual([
      { level: 'info', code: 'completion-result', text: '2 suggestions: python, pytorch (more are available).' },
    ]);
  });
});

describe('messageHints: logging, progress, cancellation', () => {
  it('logging/setLevel', () => {
    expect(request('logging/setLevel', { level: 'debug' })).toEqual([
      {
        level: 'info',
        code: 'logging-set-level',
        text: 'The client asks the server to send log messages at level "debug" and more severe as notifications/message.',
      },
    ]);
  });

  it('notifications/message: level, logger and data; severe levels warn', () => {
    expect(notification('notifications/message', { level: 'info', logger: 'db', data: 'connected' })).toEqual([
      { level: 'info', code: 'log-message', text: 'Server log at level "info" from logger "db": "connected".' },
    ]);
    const severe = notification('notifications/message', { level: 'error', data: { err: 'ECONNREFUSED' } });
    expect(severe[0]).toMatchObject({ level: 'warn', code: 'log-message' });
    expect(severe[0].text).toBe('Server log at level "error": {"err":"ECONNREFUSED"}.');
  });

  it('notifications/progress: x of y and message', () => {
    expect(notification('notifications/progress', { progressToken: 'tok', progress: 3, total: 10, message: 'Downloading' })).toEqual([
      { level: 'info', code: 'progress', text: 'Progress 3 of 10 (30%) for token "tok": "Downloading".' },
    ]);
    expect(notification('notifications/progress', { progressToken: 2, progress: 5 })[0].text).toBe('Progress 5 for token 2.');
    expect(notification('notifications/progress', { progressToken: 2 }).map((h) => h.code)).toEqual(['bad-progress']);
    expect(notification('notifications/progress', { progress: 1 }).map((h) => h.code)).toEqual(['progress', 'progress-without-token']);
  });

  it('a request asking for progress', () => {
    const hints = request('tools/call', { name: 'slow', _meta: { progressToken: 42 } });
    expect(byCode(hints, 'progress-requested').text).toBe('The sender asks for progress updates on this request with token 42.');
  });

  it('notifications/cancelled with reason', () => {
    expect(notification('notifications/cancelled', { requestId: 5, reason: 'User requested cancellation' }, 'c2s')).toEqual([
      {
        level: 'info',
        code: 'cancelled',
        text: 'The sender cancels its earlier request 5 (reason: "User requested cancellation"). The receiver should stop working on it and send no answer.',
      },
    ]);
    expect(notification('notifications/cancelled', { requestId: 'a' }, 's2c')[0].text).toContain('request "a". ');
  });
});

describe('messageHints: server → client requests', () => {
  it('sampling/createMessage', () => {
    const hints = request(
      'sampling/createMessage',
      { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 100 },
      's2c',
    );
    expect(hints).toEqual([
      {
        level: 'info',
        code: 'sampling',
        text: "The server asks the client's LLM to write a reply (1 message of context, at most 100 tokens). The client should let the user review the request and the answer.",
      },
    ]);
    expect(
      result(
        'sampling/createMessage',
        { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'claude', stopReason: 'endTurn' },
        'c2s',
      ),
    ).toEqual([{ level: 'info', code: 'sampling-result', text: 'The client\'s LLM answered (model "claude"), stop reason "endTurn".' }]);
  });

  it('elicitation/create: form mode vs url mode', () => {
    const form = request(
      'elicitation/create',
      { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
      's2c',
    );
    expect(form).toEqual([
      {
        level: 'info',
        code: 'elicitation-form',
        text: 'The server asks the user to fill in a form (name): "Your name?". The user may accept, decline or cancel.',
      },
    ]);
    const url = request(
      'elicitation/create',
      { mode: 'url', message: 'Sign in', url: 'https://auth.example.com/login?x=1', elicitationId: 'e1' },
      's2c',
    );
    expect(url).toHaveLength(1);
    expect(url[0].code).toBe('elicitation-url');
    expect(url[0].text).toContain('(auth.example.com)');
    expect(url[0].text).toContain('never through the client');
  });

  it('elicitation results', () => {
    expect(result('elicitation/create', { action: 'accept', content: { name: 'Ada' } }, 'c2s')[0].text).toBe(
      'The user accepted and filled in name.',
    );
    expect(result('elicitation/create', { action: 'decline' }, 'c2s')[0].text).toBe('The user declined to provide the information.');
    expect(result('elicitation/create', { action: 'cancel' }, 'c2s')[0].text).toBe('The user dismissed the request without choosing.');
    expect(result('elicitation/create', { action: 'maybe' }, 'c2s')[0].level).toBe('warn');
  });

  it('notifications/elicitation/complete', () => {
    expect(notification('notifications/elicitation/complete', { elicitationId: 'e1' }).map((h) => h.code)).toEqual([
      'elicitation-complete',
    ]);
  });

  it('roots/list and its result', () => {
    expect(request('roots/list', undefined, 's2c')).toEqual([
      { level: 'info', code: 'roots-list', text: 'The server asks the client which filesystem roots (folders) it may work in.' },
    ]);
    expect(result('roots/list', { roots: [{ uri: 'file:///home/me/proj', name: 'proj' }] }, 'c2s')[0].text).toBe(
      'The client shares 1 root: file:///home/me/proj.',
    );
  });

  it('wrong-direction for a method the other side should send', () => {
    expect(request('sampling/createMessage', { messages: [] }, 'c2s').map((h) => h.code)).toEqual(['wrong-direction', 'sampling']);
    expect(byCode(request('tools/call', { name: 'x' }, 's2c'), 'wrong-direction').text).toBe(
      '"tools/call" is normally sent by the client, but here the server sent it.',
    );
    expect(request('ping', undefined, 's2c').map((h) => h.code)).not.toContain('wrong-direction');
  });

  it('request-without-id for a request method sent as a notification', () => {
    const hints = hintsFor({ dir: 'c2s', kind: 'notification', method: 'tools/list', value: note('tools/list') });
    expect(hints.map((h) => h.code)).toEqual(['request-without-id', 'tools-list']);
    expect(hints[0].level).toBe('warn');
  });
});

describe('messageHints: tasks (2025-11-25)', () => {
  it('tasks/* requests', () => {
    expect(byCode(request('tasks/get', { taskId: 't1' }), 'tasks-get').text).toBe('The requester polls the status of task "t1".');
    expect(byCode(request('tasks/result', { taskId: 't1' }), 'tasks-result').text).toContain('waits until the task is done');
    expect(request('tasks/list').map((h) => h.code)).toEqual(['tasks-list']);
    expect(byCode(request('tasks/cancel', { taskId: 't1' }, 's2c'), 'tasks-cancel').text).toBe('The requester cancels task "t1".');
  });

  it('a task-augmented request and its CreateTaskResult', () => {
    const hints = request('tools/call', { name: 'long', task: { ttl: 60000 } });
    expect(hints.map((h) => h.code)).toEqual(['tools-call', 'task-augmented']);
    expect(byCode(hints, 'task-augmented').text).toContain('(kept 60000 ms)');
    const created = result('tools/call', { task: { taskId: 't9', status: 'working', createdAt: '', lastUpdatedAt: '', ttl: 60000 } });
    expect(created).toEqual([
      {
        level: 'info',
        code: 'task-created',
        text: 'The receiver started task "t9" (status "working") instead of answering directly. Poll it with tasks/get and fetch the result with tasks/result.',
      },
    ]);
  });

  it('notifications/tasks/status and tasks/get results', () => {
    expect(notification('notifications/tasks/status', { taskId: 't9', status: 'completed', statusMessage: 'done' })).toEqual([
      { level: 'info', code: 'task-status', text: 'Task "t9" is now "completed": "done".' },
    ]);
    expect(notification('notifications/tasks/status', { taskId: 't9', status: 'failed' })[0].level).toBe('warn');
    expect(result('tasks/get', { taskId: 't9', status: 'input_required' })[0]).toMatchObject({
      code: 'task-status',
      text: 'Task "t9" is "input_required".',
    });
    expect(result('tasks/list', { tasks: [{}, {}] })[0].text).toBe('2 tasks listed.');
    expect(result('tasks/result', { content: [] }).map((h) => h.code)).toEqual(['tasks-result-result']);
  });

  it('related-task metadata', () => {
    const hints = notification('notifications/message', {
      level: 'info',
      data: 'x',
      _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't9' } },
    });
    expect(byCode(hints, 'related-task').text).toBe('This message belongs to task "t9".');
  });
});

describe('messageHints: stateless protocol (2026-07-28)', () => {
  it('resultType input_required: the client must retry with the answers', () => {
    const hints = result('tools/call', {
      resultType: 'input_required',
      inputRequests: {
        github_login: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'login?', requestedSchema: { type: 'object', properties: {} } },
        },
        capital: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 10 } },
      },
      requestState: 'opaque',
    });
    expect(hints).toEqual([
      {
        level: 'info',
        code: 'input-required',
        text: 'The server needs more input before it can finish: 2 requests (elicitation/create, sampling/createMessage), plus a requestState to send back. The client must retry the original request with the answers, under a new id.',
      },
    ]);
  });

  it('the retry carrying inputResponses', () => {
    const hints = request('tools/call', {
      name: 'x',
      inputResponses: { github_login: { action: 'accept', content: {} } },
      requestState: 'opaque',
    });
    expect(byCode(hints, 'input-retry').text).toBe(
      "This is a retry of an earlier request that needed input: it carries 1 answer and the server's requestState.",
    );
  });

  it('a stateless request carries its version in _meta', () => {
    const hints = request('tools/list', {
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
    });
    expect(byCode(hints, 'stateless-request').text).toContain('protocol 2026-07-28');
  });

  it('server/discover and its result', () => {
    expect(request('server/discover', {}).map((h) => h.code)).toEqual(['server-discover']);
    expect(
      result('server/discover', { supportedVersions: ['2026-07-28', '2025-11-25'], capabilities: { tools: {} }, resultType: 'complete' }),
    ).toEqual([
      {
        level: 'info',
        code: 'server-discover-result',
        text: 'The server supports protocol versions 2026-07-28, 2025-11-25 and offers tools.',
      },
    ]);
  });

  it('subscriptions/listen', () => {
    expect(byCode(request('subscriptions/listen', { notifications: { toolsListChanged: true } }), 'subscriptions-listen').text).toContain(
      '(toolsListChanged)',
    );
    expect(
      notification('notifications/subscriptions/acknowledged', { notifications: { toolsListChanged: true } }).map((h) => h.code),
    ).toEqual(['subscriptions-acknowledged']);
  });
});

describe('messageHints: errors', () => {
  function error(code: number, message: string, requestMethod?: string, data?: unknown): Hint[] {
    const input: MessageHintInput = { dir: 's2c', kind: 'error', value: err(code, message, data) };
    if (requestMethod !== undefined) input.requestMethod = requestMethod;
    return hintsFor(input);
  }

  it('method not found names the method', () => {
    expect(error(-32601, 'Method not found', 'resources/subscribe')).toEqual([
      {
        level: 'error',
        code: 'method-not-found',
        text: 'Method not found: the receiver does not implement "resources/subscribe" (check its capabilities). Message: "Method not found".',
      },
    ]);
  });

  it('uses describeErrorCode for standard codes', () => {
    const hints = error(-32602, 'Unknown tool: nope', 'tools/call');
    expect(hints).toHaveLength(1);
    expect(hints[0]).toMatchObject({ level: 'error', code: 'invalid-params' });
    expect(hints[0].text).toBe(`${describeErrorCode(-32602)} Message: "Unknown tool: nope".`);
    expect(error(-32700, 'Parse error')[0].code).toBe('parse-error');
    expect(error(-32603, '')[0].text).toBe(describeErrorCode(-32603));
    expect(error(-32002, 'Resource not found')[0].code).toBe('resource-not-found');
  });

  it('URL elicitation required is a warn with the number of URLs', () => {
    const hints = error(-32042, 'Auth needed', 'tools/call', {
      elicitations: [{ mode: 'url', url: 'https://x', elicitationId: 'e', message: 'm' }],
    });
    expect(hints[0]).toMatchObject({ level: 'warn', code: 'url-elicitation-required' });
    expect(hints[0].text).toContain('open 1 URL');
  });

  it('application-defined codes', () => {
    expect(error(1234, 'Quota exceeded')[0]).toMatchObject({ level: 'error', code: 'application-error' });
    expect(error(1234, 'Quota exceeded')[0].text).toContain('Quota exceeded');
  });

  it('a malformed error gives no hint (the classifier reports it)', () => {
    expect(hintsFor({ dir: 's2c', kind: 'error', value: { jsonrpc: '2.0', id: 1, error: 'boom' } })).toEqual([]);
  });
});

describe('messageHints: unknown and odd input', () => {
  it('a custom method gets one neutral hint', () => {
    const hints = request('acme/reindex', {});
    expect(hints).toEqual([expect.objectContaining({ level: 'info', code: 'custom-method' })]);
    expect(isKnownMethod('acme/reindex')).toBe(false);
    expect(isKnownMethod('tools/call')).toBe(true);
    expect(isKnownMethod('constructor')).toBe(false);
  });

  it('responses to unknown or unpaired requests get no hint', () => {
    expect(result(undefined, { anything: 1 })).toEqual([]);
    expect(result('acme/reindex', {})).toEqual([]);
    expect(result('logging/setLevel', {})).toEqual([]);
  });

  it('reads the method from the value when not given', () => {
    expect(hintsFor({ dir: 'c2s', kind: 'request', value: req('ping') }).map((h) => h.code)).toEqual(['ping']);
  });

  it('never throws and always returns well-formed hints', () => {
    const methods = fc.constantFrom(
      'initialize',
      'tools/call',
      'tools/list',
      'notifications/progress',
      'notifications/message',
      'elicitation/create',
      'completion/complete',
      'notifications/cancelled',
      'tasks/get',
      'notifications/tasks/status',
      'subscriptions/listen',
      'x/y',
      '__proto__',
      'toString',
    );
    fc.assert(
      fc.property(
        fc.constantFrom('c2s', 's2c') as fc.Arbitrary<'c2s' | 's2c'>,
        fc.constantFrom('request', 'notification', 'response', 'error') as fc.Arbitrary<'request' | 'notification' | 'response' | 'error'>,
        methods,
        fc.jsonValue({ maxDepth: 3 }),
        fc.jsonValue({ maxDepth: 3 }),
        (dir, kind, method, params, other) => {
          const value = { jsonrpc: '2.0', id: 1, method, params, result: params, error: other };
          const hints = messageHints({ dir, kind, method, value, requestMethod: method });
          for (const h of hints) {
            expect(['info', 'warn', 'error']).toContain(h.level);
            expect(h.code).toMatch(/^[a-z0-9-]+$/);
            expect(typeof h.text).toBe('string');
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

// ---------------------------------------------------------------------------------------------

checkEveryHint(80);
