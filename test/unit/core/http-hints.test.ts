/** proxy/core/annotate/http-hints.ts: hints for HTTP exchanges and what each header means; proxy/core/model/headers.ts's headerValue. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Hint } from '../../../proxy/core/model/events.js';
import { describeHeader, httpHints, type HttpHintInput } from '../../../proxy/core/annotate/http-hints.js';
import { headerValue } from '../../../proxy/core/model/headers.js';
import { hintTracker } from '../../support/hint-shape.js';

const { track, checkEveryHint } = hintTracker();

function byCode(hints: Hint[], code: string): Hint {
  const h = hints.find((x) => x.code === code);
  if (!h) throw new Error(`no hint ${code} in ${JSON.stringify(hints)}`);
  return h;
}

function http(input: Partial<HttpHintInput> & { method: string }): Hint[] {
  return track(httpHints({ path: '/mcp', requestHeaders: {}, ...input }));
}

function httpCodes(input: Partial<HttpHintInput> & { method: string }): string[] {
  return http(input).map((h) => h.code);
}

describe('httpHints', () => {
  const both = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

  it('202 to a POST of notifications/responses: nothing to return', () => {
    const hints = http({
      method: 'POST',
      requestHeaders: { ...both, 'mcp-session-id': 's1' },
      status: 202,
      bodyKinds: ['notification'],
      transport: 'streamable-http',
    });
    expect(hints).toEqual([
      {
        level: 'info',
        code: 'accepted-202',
        text: 'Accepted: the body held only notifications or responses, so there is nothing to return.',
      },
    ]);
    expect(httpCodes({ method: 'POST', status: 202, bodyKinds: ['response'] })).toEqual(['accepted-202']);
  });

  it('202 to a POST of a request is unexpected in Streamable HTTP', () => {
    const hints = http({ method: 'POST', requestHeaders: both, status: 202, bodyKinds: ['request'], transport: 'streamable-http' });
    expect(hints.map((h) => [h.code, h.level])).toEqual([['unexpected-202', 'warn']]);
  });

  it('202 in legacy SSE: the answer arrives on the SSE stream', () => {
    const hints = http({ method: 'POST', path: '/message?sessionId=abc', status: 202, bodyKinds: ['request'], transport: 'legacy-sse' });
    expect(hints).toEqual([
      {
        level: 'info',
        code: 'accepted-202-legacy',
        text: 'Accepted (legacy HTTP+SSE): the answer will arrive later on the SSE stream, matched by its id.',
      },
    ]);
    expect(http({ method: 'POST', status: 202, bodyKinds: ['notification'], transport: 'legacy-sse' })[0].text).toContain(
      'nothing will come back',
    );
  });

  it('POST answered with an SSE stream vs JSON', () => {
    const sse = http({
      method: 'POST',
      requestHeaders: both,
      status: 200,
      responseHeaders: { 'Content-Type': 'text/event-stream' },
      bodyKinds: ['request'],
      transport: 'streamable-http',
    });
    expect(sse).toEqual([
      {
        level: 'info',
        code: 'sse-response',
        text: 'The server opened an SSE stream for this request: notifications and server→client requests may come before the response.',
      },
    ]);
    const json = httpCodes({
      method: 'POST',
      requestHeaders: both,
      status: 200,
      responseHeaders: { 'content-type': 'application/json; charset=utf-8' },
      bodyKinds: ['request'],
    });
    expect(json).toEqual(['json-response']);
    expect(
      httpCodes({
        method: 'POST',
        requestHeaders: both,
        status: 200,
        responseHeaders: { 'content-type': 'text/html' },
        bodyKinds: ['request'],
        transport: 'streamable-http',
      }),
    ).toEqual(['unexpected-content-type']);
  });

  it('Mcp-Session-Id in the answer to initialize: session assigned', () => {
    const hints = http({
      method: 'POST',
      requestHeaders: both,
      status: 200,
      responseHeaders: { 'content-type': 'text/event-stream', 'mcp-session-id': 'abc-123' },
      bodyKinds: ['request'],
      bodyMethods: ['initialize'],
      transport: 'streamable-http',
    });
    expect(hints.map((h) => h.code)).toEqual(['session-assigned', 'sse-response']);
    expect(hints[0].text).toBe(
      'The server assigned session id "abc-123": the client must send it as Mcp-Session-Id on every later request.',
    );
    // Echoed on a later request: not a new assignment.
    expect(
      httpCodes({
        method: 'POST',
        requestHeaders: { ...both, 'Mcp-Session-Id': 'abc-123' },
        status: 200,
        responseHeaders: { 'mcp-session-id': 'abc-123' },
      }),
    ).not.toContain('session-assigned');
  });

  it('404 on a request carrying a session id: session expired', () => {
    const hints = http({
      method: 'POST',
      requestHeaders: { ...both, 'mcp-session-id': 'old' },
      status: 404,
      bodyKinds: ['request'],
      transport: 'streamable-http',
    });
    expect(hints).toEqual([
      {
        level: 'warn',
        code: 'session-expired',
        text: 'Session expired or unknown: the client must start over with initialize, without a session id.',
      },
    ]);
  });

  it('404 without a session id on initialize: not found, and the client may fall back to legacy SSE', () => {
    expect(
      httpCodes({
        method: 'POST',
        requestHeaders: both,
        status: 404,
        bodyKinds: ['request'],
        bodyMethods: ['initialize'],
        transport: 'streamable-http',
      }),
    ).toEqual(['not-found', 'may-fall-back']);
  });

  it('400 without a session id', () => {
    const hints = http({
      method: 'POST',
      requestHeaders: both,
      status: 400,
      bodyKinds: ['request'],
      bodyMethods: ['tools/list'],
      transport: 'streamable-http',
    });
    expect(hints.map((h) => h.code)).toEqual(['missing-session-id']);
    expect(hints[0].text).toContain('Mcp-Session-Id');
    expect(
      httpCodes({ method: 'POST', requestHeaders: { ...both, 'mcp-session-id': 's' }, status: 400, transport: 'streamable-http' }),
    ).toEqual(['bad-request']);
    expect(
      httpCodes({ method: 'POST', requestHeaders: both, status: 400, bodyMethods: ['initialize'], transport: 'streamable-http' }),
    ).toEqual(['bad-request', 'may-fall-back']);
  });

  it('405 on GET and on DELETE', () => {
    expect(
      http({
        method: 'GET',
        requestHeaders: { accept: 'text/event-stream', 'mcp-session-id': 's' },
        status: 405,
        transport: 'streamable-http',
      }).map((h) => h.code),
    ).toEqual(['standalone-stream', 'no-standalone-stream']);
    expect(byCode(http({ method: 'GET', status: 405 }), 'no-standalone-stream').text).toBe(
      'This server offers no standalone SSE stream: its messages only arrive on the answers to POSTs.',
    );
    expect(httpCodes({ method: 'DELETE', requestHeaders: { 'mcp-session-id': 's' }, status: 405 })).toEqual([
      'session-delete',
      'delete-not-allowed',
    ]);
    expect(httpCodes({ method: 'PUT', status: 405 })).toEqual(['method-not-allowed']);
  });

  it('406: Accept must list both types', () => {
    const hints = http({
      method: 'POST',
      requestHeaders: { accept: 'application/json', 'mcp-session-id': 's' },
      status: 406,
      transport: 'streamable-http',
    });
    expect(hints.map((h) => h.code)).toEqual(['accept-incomplete', 'not-acceptable']);
    expect(byCode(hints, 'not-acceptable').text).toContain('both application/json and text/event-stream');
    expect(byCode(http({ method: 'GET', status: 406 }), 'not-acceptable').text).toContain('a GET must accept text/event-stream');
  });

  it('no accept-incomplete when Accept lists both or */*', () => {
    expect(httpCodes({ method: 'POST', requestHeaders: both, transport: 'streamable-http' })).toEqual([]);
    expect(httpCodes({ method: 'POST', requestHeaders: { Accept: '*/*' }, transport: 'streamable-http' })).toEqual([]);
    expect(
      httpCodes({ method: 'POST', requestHeaders: { accept: ['application/json', 'text/event-stream'] }, transport: 'streamable-http' }),
    ).toEqual([]);
  });

  it('409 on GET: only one standalone stream per session', () => {
    expect(byCode(http({ method: 'GET', requestHeaders: { 'mcp-session-id': 's' }, status: 409 }), 'stream-conflict').text).toBe(
      'Conflict: a standalone SSE stream is already open for this session, and only one is allowed.',
    );
  });

  it('415', () => {
    expect(httpCodes({ method: 'POST', requestHeaders: { 'mcp-session-id': 's' }, status: 415 })).toEqual(['unsupported-media-type']);
  });

  it('401 with resource_metadata starts OAuth discovery', () => {
    const hints = http({
      method: 'POST',
      requestHeaders: both,
      status: 401,
      responseHeaders: {
        'WWW-Authenticate':
          'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read"',
      },
    });
    expect(byCode(hints, 'auth-required').text).toBe(
      'The server requires authorization: OAuth discovery starts at the resource metadata "https://mcp.example.com/.well-known/oauth-protected-resource/mcp" (scope "files:read").',
    );
    expect(
      byCode(http({ method: 'POST', status: 401, responseHeaders: { 'www-authenticate': 'Bearer' } }), 'auth-required').text,
    ).toContain('/.well-known/oauth-protected-resource');
  });

  it('403 insufficient_scope vs a bad Origin', () => {
    const scope = http({
      method: 'POST',
      status: 403,
      responseHeaders: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="files:write", resource_metadata="https://x"' },
    });
    expect(scope.map((h) => h.code)).toEqual(['insufficient-scope']);
    expect(scope[0].text).toContain('(needs "files:write")');
    expect(scope[0].text).toContain('step-up');
    const origin = http({ method: 'POST', requestHeaders: { origin: 'http://evil.example' }, status: 403 });
    expect(origin.map((h) => h.code)).toEqual(['forbidden']);
    expect(origin[0].text).toContain('"http://evil.example"');
  });

  it('5xx', () => {
    expect(http({ method: 'POST', status: 500 })).toEqual([
      { level: 'error', code: 'server-error', text: 'HTTP 500: the server failed while handling the request.' },
    ]);
    expect(http({ method: 'POST', status: 502 })[0].text).toContain('gateway');
  });

  it('DELETE: the client ends the session', () => {
    expect(http({ method: 'DELETE', requestHeaders: { 'mcp-session-id': 's' }, status: 200 })).toEqual([
      {
        level: 'info',
        code: 'session-delete',
        text: 'The client ends the session explicitly: the server should forget this Mcp-Session-Id.',
      },
      { level: 'info', code: 'session-ended', text: 'The server confirmed the end of the session.' },
    ]);
  });

  it('GET with Last-Event-ID: resuming a stream', () => {
    const hints = http({
      method: 'GET',
      requestHeaders: { accept: 'text/event-stream', 'Last-Event-ID': 'ev-42' },
      transport: 'streamable-http',
    });
    expect(hints).toEqual([
      {
        level: 'info',
        code: 'resume-stream',
        text: 'The client resumes a broken SSE stream after event "ev-42": the server replays what was sent after it.',
      },
    ]);
  });

  it('GET without Last-Event-ID opens the standalone stream', () => {
    expect(
      httpCodes({
        method: 'GET',
        requestHeaders: { accept: 'text/event-stream' },
        transport: 'streamable-http',
        status: 200,
        responseHeaders: { 'content-type': 'text/event-stream' },
      }),
    ).toEqual(['standalone-stream']);
  });

  it('legacy GET /sse', () => {
    const hints = http({
      method: 'GET',
      path: '/sse',
      requestHeaders: { accept: 'text/event-stream' },
      transport: 'legacy-sse',
      status: 200,
      responseHeaders: { 'content-type': 'text/event-stream' },
    });
    expect(hints.map((h) => h.code)).toEqual(['legacy-sse-stream']);
    expect(hints[0].text).toContain('endpoint');
  });

  it('missing MCP-Protocol-Version on a 2025-06-18+ session (not on initialize, not before 2025-06-18)', () => {
    const base = {
      method: 'POST',
      requestHeaders: { ...both, 'mcp-session-id': 's' },
      transport: 'streamable-http' as const,
      bodyKinds: ['request' as const],
    };
    const hints = http({ ...base, negotiatedVersion: '2025-06-18', bodyMethods: ['tools/list'] });
    expect(hints.map((h) => [h.code, h.level])).toEqual([['missing-protocol-version', 'warn']]);
    expect(hints[0].text).toContain('2025-06-18');
    expect(httpCodes({ ...base, negotiatedVersion: '2025-11-25', bodyMethods: ['initialize'] })).toEqual([]);
    expect(httpCodes({ ...base, negotiatedVersion: '2025-03-26' })).toEqual([]);
    expect(
      httpCodes({
        ...base,
        negotiatedVersion: '2025-11-25',
        requestHeaders: { ...base.requestHeaders, 'MCP-Protocol-Version': '2025-11-25' },
      }),
    ).toEqual([]);
    expect(
      httpCodes({
        ...base,
        negotiatedVersion: '2025-11-25',
        requestHeaders: { ...base.requestHeaders, 'mcp-protocol-version': '2025-06-18' },
      }),
    ).toEqual(['protocol-version-mismatch']);
    expect(
      httpCodes({
        method: 'GET',
        requestHeaders: { 'mcp-session-id': 's' },
        transport: 'streamable-http',
        negotiatedVersion: '2025-11-25',
      }),
    ).toEqual(['standalone-stream', 'missing-protocol-version']);
  });

  it('2026-07-28: Mcp-Method and Mcp-Name are required', () => {
    const base = {
      method: 'POST',
      transport: 'streamable-http' as const,
      negotiatedVersion: '2026-07-28',
      bodyKinds: ['request' as const],
      bodyMethods: ['tools/call'],
    };
    expect(httpCodes({ ...base, requestHeaders: { ...both, 'mcp-protocol-version': '2026-07-28' } })).toEqual([
      'missing-mcp-method',
      'missing-mcp-name',
    ]);
    expect(
      httpCodes({
        ...base,
        requestHeaders: { ...both, 'mcp-protocol-version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'get_weather' },
      }),
    ).toEqual([]);
  });

  it('OAuth metadata, CORS preflight, redirects, 429', () => {
    expect(httpCodes({ method: 'GET', path: '/.well-known/oauth-protected-resource/mcp' })).toEqual(['oauth-resource-metadata']);
    expect(httpCodes({ method: 'GET', path: '/.well-known/oauth-authorization-server' })).toEqual(['oauth-server-metadata']);
    expect(httpCodes({ method: 'OPTIONS', status: 204 })).toEqual(['cors-preflight']);
    expect(http({ method: 'GET', status: 307, responseHeaders: { location: '/mcp/' } })[0]).toMatchObject({
      code: 'redirect',
      text: 'Redirect (HTTP 307) to "/mcp/": the client must follow it.',
    });
    expect(http({ method: 'POST', status: 429, responseHeaders: { 'retry-after': '5' } })[0].text).toContain('retry after "5"');
  });

  it('never throws', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.array(fc.string()))),
        fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
        fc.dictionary(fc.string(), fc.string()),
        (method, path, requestHeaders, status, responseHeaders) => {
          const hints = httpHints({
            method,
            path,
            requestHeaders,
            status,
            responseHeaders,
            transport: 'streamable-http',
            negotiatedVersion: '2026-07-28',
          });
          expect(Array.isArray(hints)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('describeHeader / headerValue', () => {
  it.each([
    ['Mcp-Session-Id', /session id/],
    ['MCP-Protocol-Version', /protocol version/],
    ['Last-Event-ID', /resume/],
    ['mcp-method', /JSON-RPC method/],
    ['Mcp-Name', /tool, prompt or resource/],
    ['WWW-Authenticate', /resource_metadata/],
    ['accept', /application\/json and text\/event-stream/],
    ['Content-Type', /media type/],
    ['origin', /403/],
    ['Authorization', /Bearer/],
    ['DPoP', /DPoP proof/],
    ['Access-Control-Expose-Headers', /Mcp-Session-Id/],
    ['access-control-foo', /CORS/],
  ])('%s', (name, text) => {
    expect(describeHeader(name)).toMatch(text);
  });

  it('Mcp-Param-* names the parameter', () => {
    expect(describeHeader('Mcp-Param-Region')).toContain('x-mcp-header "Region"');
    expect(describeHeader('mcp-param-')).toBeUndefined();
  });

  it('unknown headers', () => {
    expect(describeHeader('x-unknown')).toBeUndefined();
  });

  it('headerValue is case-insensitive and joins arrays', () => {
    expect(headerValue({ 'Content-Type': 'a' }, 'content-type')).toBe('a');
    expect(headerValue({ accept: ['a', 'b'] }, 'Accept')).toBe('a, b');
    // The lower-case name is looked up first; an undefined entry there does not hide another case.
    expect(headerValue({ 'mcp-method': undefined, 'MCP-Method': 'ping' }, 'mcp-method')).toBe('ping');
    expect(headerValue({ 'x-a': 'a' }, 'x-b')).toBeUndefined();
    expect(headerValue({ accept: undefined }, 'accept')).toBeUndefined();
    expect(headerValue(undefined, 'accept')).toBeUndefined();
  });
});

checkEveryHint(20);
