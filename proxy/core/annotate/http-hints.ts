/**
 * Plain-language hints for the HTTP layer of MCP traffic (Streamable HTTP 2025-03-26 … 2026-07-28
 * and the legacy HTTP+SSE transport of 2024-11-05), and what the MCP-related headers mean.
 *
 * Pure and I/O-free (also bundled into the browser UI). Nothing here throws. Each hint text is at
 * most two sentences.
 */

import { STATELESS_VERSION, versionAtLeast } from '../model/protocol-version.js';
import { headerValue, type HeaderMap } from '../model/headers.js';
import { mediaType } from '../model/media-type.js';
import type { Hint, MessageKind } from '../model/events.js';

export type Headers = HeaderMap;

export interface HttpHintInput {
  method: string;
  /** Path and query as the client sent it. */
  path: string;
  requestHeaders: Headers;
  status?: number;
  responseHeaders?: Headers;
  /** What the POST body held, if known. */
  bodyKinds?: MessageKind[];
  /** Methods of the requests/notifications in the POST body, if known (used to recognise `initialize`). */
  bodyMethods?: string[];
  /** `params` of the POST body's only request or notification, if it held exactly one (2026-07-28 header checks). */
  bodyParams?: unknown;
  /** `_meta["io.modelcontextprotocol/protocolVersion"]` of the body (2026-07-28 stateless requests carry their version). */
  bodyVersion?: string;
  transport?: 'streamable-http' | 'legacy-sse';
  /** The protocol version the session negotiated, if known: enables the MCP-Protocol-Version header checks. */
  negotiatedVersion?: string;
}

export function clip(s: string, max = 60): string {
  const oneLine = s.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/** Parameters of a `WWW-Authenticate: Bearer k="v", k2=v2` challenge (first challenge only, keys lower-cased). */
function authParams(v: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(v)) !== null) {
    const key = m[1].toLowerCase();
    if (!(key in out)) out[key] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
  }
  return out;
}

const info = (code: string, text: string): Hint => ({ level: 'info', code, text });
const warn = (code: string, text: string): Hint => ({ level: 'warn', code, text });
const error = (code: string, text: string): Hint => ({ level: 'error', code, text });

/**
 * A 401 or 403 and its WWW-Authenticate challenge: where OAuth discovery starts, a step-up for
 * more scopes, or a refusal. Shared with the plain-HTTP hints (proxy/core/annotate/oauth-hints.ts).
 */
export function challengeHints(status: number, req: Headers, res: Headers | undefined): Hint[] {
  const hints: Hint[] = [];
  const www = headerValue(res, 'www-authenticate');
  const auth = www !== undefined ? authParams(www) : {};
  if (status === 401) {
    const rm = auth.resource_metadata;
    const scope = auth.scope;
    hints.push(
      warn(
        'auth-required',
        rm !== undefined
          ? `The server requires authorization: OAuth discovery starts at the resource metadata ${JSON.stringify(clip(rm, 80))}${scope ? ` (scope ${JSON.stringify(clip(scope, 40))})` : ''}.`
          : 'The server requires authorization; with no resource_metadata in WWW-Authenticate the client tries /.well-known/oauth-protected-resource.',
      ),
    );
  } else if (status === 403) {
    if (auth.error === 'insufficient_scope') {
      hints.push(
        warn(
          'insufficient-scope',
          `The token lacks a required scope${auth.scope ? ` (needs ${JSON.stringify(clip(auth.scope, 40))})` : ''}: the client should ask the user to authorize again with more scopes (step-up).`,
        ),
      );
    } else {
      const origin = headerValue(req, 'origin');
      hints.push(
        warn(
          'forbidden',
          origin !== undefined
            ? `Forbidden: MCP servers answer 403 to an Origin they do not trust (${JSON.stringify(clip(origin, 60))}), to block DNS rebinding.`
            : 'Forbidden: the server refused this request (a bad Origin or Host, or missing permission).',
        ),
      );
    }
  }
  return hints;
}

/** Hints for one HTTP exchange. Call again when the response head arrives (with `status`). Never throws. */
export function httpHints(input: HttpHintInput): Hint[] {
  try {
    return httpHintsUnsafe(input);
  } catch {
    return [];
  }
}

function httpHintsUnsafe(input: HttpHintInput): Hint[] {
  const hints: Hint[] = [];
  const method = input.method.toUpperCase();
  const path = input.path ?? '';
  const pathOnly = path.split('?')[0] ?? '';
  const req = input.requestHeaders ?? {};
  const res = input.responseHeaders;
  const status = input.status;
  const legacy = input.transport === 'legacy-sse';
  const streamable = input.transport === 'streamable-http';
  const sessionId = headerValue(req, 'mcp-session-id');
  const lastEventId = headerValue(req, 'last-event-id');
  const kinds = input.bodyKinds;
  const hasRequest = kinds?.includes('request') ?? false;
  const isInitialize = input.bodyMethods?.includes('initialize') ?? false;
  const responseType = mediaType(headerValue(res, 'content-type'));

  // ---- the request itself ----
  if (pathOnly.startsWith('/.well-known/oauth-protected-resource')) {
    hints.push(
      info(
        'oauth-resource-metadata',
        'The client fetches the protected-resource metadata: it names the authorization server(s) and scopes for this MCP server.',
      ),
    );
  } else if (pathOnly.startsWith('/.well-known/oauth-authorization-server') || pathOnly.startsWith('/.well-known/openid-configuration')) {
    hints.push(
      info('oauth-server-metadata', 'The client fetches the authorization server metadata: where to authorize, get tokens and register.'),
    );
  }

  if (method === 'OPTIONS') {
    hints.push(
      info(
        'cors-preflight',
        'A browser CORS preflight: the browser asks whether the real request (its method and headers) is allowed from this origin.',
      ),
    );
  } else if (method === 'DELETE') {
    hints.push(info('session-delete', 'The client ends the session explicitly: the server should forget this Mcp-Session-Id.'));
  } else if (method === 'GET' && lastEventId !== undefined) {
    hints.push(
      info(
        'resume-stream',
        `The client resumes a broken SSE stream after event ${JSON.stringify(clip(lastEventId, 40))}: the server replays what was sent after it.`,
      ),
    );
  } else if (method === 'GET' && legacy) {
    hints.push(
      info(
        'legacy-sse-stream',
        'Legacy HTTP+SSE (2024-11-05): the client opens the long-lived event stream, whose first event names the endpoint to POST messages to.',
      ),
    );
  } else if (method === 'GET' && streamable) {
    hints.push(
      info(
        'standalone-stream',
        'The client opens the standalone SSE stream, so the server can send notifications and requests not tied to any POST.',
      ),
    );
  }

  if (method === 'POST' && streamable) {
    const accept = (headerValue(req, 'accept') ?? '').toLowerCase();
    if (
      !(accept.includes('application/json') || accept.includes('*/*')) ||
      !(accept.includes('text/event-stream') || accept.includes('*/*'))
    ) {
      hints.push(
        warn(
          'accept-incomplete',
          "The POST's Accept header should list both application/json and text/event-stream; servers may answer 406 otherwise.",
        ),
      );
    }
  }

  // MCP-Protocol-Version: required on every request after initialize from 2025-06-18 (not in stateless 2026-07-28 either way).
  if (streamable && versionAtLeast(input.negotiatedVersion, '2025-06-18') && !isInitialize && method !== 'OPTIONS') {
    const pv = headerValue(req, 'mcp-protocol-version');
    if (pv === undefined) {
      hints.push(
        warn(
          'missing-protocol-version',
          `The request has no MCP-Protocol-Version header, required from 2025-06-18 (this session uses ${input.negotiatedVersion}); a server may then assume 2025-03-26.`,
        ),
      );
    } else if (pv.trim() !== input.negotiatedVersion) {
      hints.push(
        warn(
          'protocol-version-mismatch',
          `The MCP-Protocol-Version header says ${JSON.stringify(clip(pv, 30))}, but the session negotiated ${input.negotiatedVersion}.`,
        ),
      );
    }
  }

  // 2026-07-28: standard request headers mirror the body.
  const headerVersion = headerValue(req, 'mcp-protocol-version')?.trim();
  const is2026 =
    versionAtLeast(input.negotiatedVersion, STATELESS_VERSION) ||
    versionAtLeast(input.bodyVersion, STATELESS_VERSION) ||
    versionAtLeast(headerVersion, STATELESS_VERSION);
  if (method === 'POST') hints.push(...mirrorMismatches(input, req, headerVersion));
  if (method === 'POST' && streamable && is2026) {
    if (headerValue(req, 'mcp-method') === undefined) {
      hints.push(
        warn(
          'missing-mcp-method',
          'The POST has no Mcp-Method header, which protocol 2026-07-28 requires on every request; the server may answer 400 (header mismatch).',
        ),
      );
    }
    const named = (input.bodyMethods ?? []).some((m) => m === 'tools/call' || m === 'resources/read' || m === 'prompts/get');
    if (named && headerValue(req, 'mcp-name') === undefined) {
      hints.push(
        warn(
          'missing-mcp-name',
          'The POST has no Mcp-Name header, which protocol 2026-07-28 requires for tools/call, resources/read and prompts/get.',
        ),
      );
    }
  }

  if (status === undefined) return hints;

  // ---- the response ----
  const assigned = headerValue(res, 'mcp-session-id');

  if (assigned !== undefined && sessionId === undefined && status >= 200 && status < 300) {
    hints.push(
      info(
        'session-assigned',
        `The server assigned session id ${JSON.stringify(clip(assigned, 40))}: the client must send it as Mcp-Session-Id on every later request.`,
      ),
    );
  }

  if (status >= 200 && status < 300) {
    if (method === 'POST' && status === 202) {
      if (legacy) {
        hints.push(
          info(
            'accepted-202-legacy',
            hasRequest || kinds === undefined
              ? 'Accepted (legacy HTTP+SSE): the answer will arrive later on the SSE stream, matched by its id.'
              : 'Accepted (legacy HTTP+SSE): the body held only notifications or responses, so nothing will come back.',
          ),
        );
      } else if (hasRequest) {
        hints.push(
          warn(
            'unexpected-202',
            'The body held a request, but the server answered 202 with no body: in Streamable HTTP a request must get a JSON or SSE answer.',
          ),
        );
      } else {
        hints.push(info('accepted-202', 'Accepted: the body held only notifications or responses, so there is nothing to return.'));
      }
    } else if (method === 'POST' && !legacy && responseType === 'text/event-stream') {
      hints.push(
        info(
          'sse-response',
          'The server opened an SSE stream for this request: notifications and server→client requests may come before the response.',
        ),
      );
    } else if (method === 'POST' && !legacy && responseType === 'application/json') {
      hints.push(info('json-response', 'The server answered with a single JSON body holding the response.'));
    } else if (method === 'POST' && streamable && hasRequest && responseType !== undefined) {
      hints.push(
        warn(
          'unexpected-content-type',
          `The server answered a request with ${JSON.stringify(clip(responseType, 40))}: expected application/json or text/event-stream.`,
        ),
      );
    } else if (method === 'DELETE') {
      hints.push(info('session-ended', 'The server confirmed the end of the session.'));
    } else if (
      method === 'GET' &&
      !legacy &&
      streamable &&
      responseType !== undefined &&
      responseType !== 'text/event-stream' &&
      !pathOnly.startsWith('/.well-known/')
    ) {
      hints.push(
        warn('unexpected-content-type', `The GET was answered with ${JSON.stringify(clip(responseType, 40))} instead of an SSE stream.`),
      );
    }
  } else if (status >= 300 && status < 400) {
    const location = headerValue(res, 'location');
    hints.push(
      info(
        'redirect',
        `Redirect (HTTP ${status})${location !== undefined ? ` to ${JSON.stringify(clip(location, 60))}` : ''}: the client must follow it.`,
      ),
    );
  } else if (status === 400) {
    if (
      method === 'POST' &&
      !legacy &&
      sessionId === undefined &&
      !isInitialize &&
      (input.bodyMethods !== undefined || input.negotiatedVersion !== undefined)
    ) {
      hints.push(
        warn(
          'missing-session-id',
          'Bad Request, probably because there is no Mcp-Session-Id header: a server with sessions requires it on every request after initialize.',
        ),
      );
    } else {
      hints.push(
        warn(
          'bad-request',
          'Bad Request: the server rejected the HTTP request (body, headers, session id or protocol version); the body usually holds a JSON-RPC error.',
        ),
      );
    }
  } else if (status === 401 || status === 403) {
    hints.push(...challengeHints(status, req, res));
  } else if (status === 404) {
    if (sessionId !== undefined) {
      hints.push(warn('session-expired', 'Session expired or unknown: the client must start over with initialize, without a session id.'));
    } else {
      hints.push(
        warn('not-found', `Not found: nothing answers at ${JSON.stringify(clip(pathOnly, 60))} on the upstream (wrong MCP URL?).`),
      );
    }
  } else if (status === 405) {
    if (method === 'GET') {
      hints.push(
        info('no-standalone-stream', 'This server offers no standalone SSE stream: its messages only arrive on the answers to POSTs.'),
      );
    } else if (method === 'DELETE') {
      hints.push(
        info(
          'delete-not-allowed',
          'The server does not let clients end sessions with DELETE: the session ends when the server expires it.',
        ),
      );
    } else {
      hints.push(warn('method-not-allowed', `The server does not accept ${method} at this URL.`));
    }
  } else if (status === 406) {
    hints.push(
      warn(
        'not-acceptable',
        method === 'GET'
          ? 'Not Acceptable: a GET must accept text/event-stream.'
          : "Not Acceptable: the client's Accept header must list both application/json and text/event-stream.",
      ),
    );
  } else if (status === 409) {
    hints.push(
      warn(
        'stream-conflict',
        method === 'GET'
          ? 'Conflict: a standalone SSE stream is already open for this session, and only one is allowed.'
          : 'Conflict: the server refused the request because it clashes with the current state.',
      ),
    );
  } else if (status === 413) {
    hints.push(warn('payload-too-large', 'Payload Too Large: the server refused the body because of its size.'));
  } else if (status === 415) {
    hints.push(warn('unsupported-media-type', 'Unsupported Media Type: the POST body must be sent with Content-Type: application/json.'));
  } else if (status === 429) {
    const retry = headerValue(res, 'retry-after');
    hints.push(
      warn(
        'rate-limited',
        `Too Many Requests: the server is rate limiting${retry !== undefined ? `; retry after ${JSON.stringify(clip(retry, 30))}` : ''}.`,
      ),
    );
  } else if (status >= 500 && status < 600) {
    const gateway = status === 502 || status === 503 || status === 504;
    hints.push(
      error(
        'server-error',
        gateway
          ? `HTTP ${status}: a gateway or the server itself is unavailable or timed out, so the request was not answered.`
          : `HTTP ${status}: the server failed while handling the request.`,
      ),
    );
  } else if (status >= 400 && status < 500) {
    hints.push(warn('client-error', `HTTP ${status}: the server rejected the request.`));
  }

  // Older clients probe: a failed POST without session may make them fall back to legacy HTTP+SSE.
  if (
    method === 'POST' &&
    !legacy &&
    sessionId === undefined &&
    (status === 400 || status === 404 || status === 405) &&
    (isInitialize || input.bodyMethods === undefined)
  ) {
    hints.push(
      info('may-fall-back', 'A client that supports the legacy transport may now fall back to it and open GET for an HTTP+SSE stream.'),
    );
  }

  return hints;
}

/** Decodes the `=?base64?…?=` sentinel of Mcp-Name / Mcp-Param-* values (2026-07-28); other values as they are. */
function decodeMirroredHeader(v: string): string {
  const m = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(v);
  if (!m) return v;
  try {
    const bin = atob(m[1]);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return v;
  }
}

const NAMED_METHODS = new Set(['tools/call', 'resources/read', 'prompts/get']);

/**
 * Mcp-Method / Mcp-Name / MCP-Protocol-Version headers that disagree with the body they mirror
 * (2026-07-28: the server answers 400 with HeaderMismatch -32020). Only for a body holding one message.
 */
function mirrorMismatches(input: HttpHintInput, req: Headers, headerVersion: string | undefined): Hint[] {
  const out: Hint[] = [];
  const methods = input.bodyMethods ?? [];
  if (methods.length !== 1 || (input.bodyKinds !== undefined && input.bodyKinds.length !== 1)) return out;
  const bodyMethod = methods[0];
  const hm = headerValue(req, 'mcp-method');
  if (hm !== undefined && hm.trim() !== bodyMethod) {
    out.push(
      warn(
        'header-mismatch',
        `The Mcp-Method header says ${JSON.stringify(clip(hm, 40))}, but the body's method is ${JSON.stringify(clip(bodyMethod, 40))}: a 2026-07-28 server rejects this with 400 (HeaderMismatch).`,
      ),
    );
  }
  const hn = headerValue(req, 'mcp-name');
  const p = input.bodyParams as { name?: unknown; uri?: unknown } | undefined;
  const bodyName = typeof p?.name === 'string' ? p.name : typeof p?.uri === 'string' ? p.uri : undefined;
  if (hn !== undefined && NAMED_METHODS.has(bodyMethod) && bodyName !== undefined && decodeMirroredHeader(hn.trim()) !== bodyName) {
    out.push(
      warn(
        'header-mismatch',
        `The Mcp-Name header says ${JSON.stringify(clip(decodeMirroredHeader(hn.trim()), 40))}, but the body names ${JSON.stringify(clip(bodyName, 40))}: a 2026-07-28 server rejects this with 400 (HeaderMismatch).`,
      ),
    );
  }
  if (headerVersion !== undefined && input.bodyVersion !== undefined && headerVersion !== input.bodyVersion) {
    out.push(
      warn(
        'header-mismatch',
        `The MCP-Protocol-Version header says ${JSON.stringify(clip(headerVersion, 30))}, but the body's _meta says ${JSON.stringify(clip(input.bodyVersion, 30))}; they must match.`,
      ),
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

const HEADERS: ReadonlyMap<string, string> = new Map([
  [
    'mcp-session-id',
    'The MCP session id: assigned by the server with the initialize answer, then sent by the client on every request of the session.',
  ],
  ['mcp-protocol-version', 'The negotiated MCP protocol version, sent by the client on every request from 2025-06-18.'],
  ['last-event-id', 'The id of the last SSE event the client received: sent on GET to resume a broken stream from there.'],
  ['mcp-method', 'The JSON-RPC method of the request, mirrored into a header (2026-07-28) so gateways can route without reading the body.'],
  ['mcp-name', 'The tool, prompt or resource the request is about (params.name or params.uri), mirrored into a header (2026-07-28).'],
  [
    'www-authenticate',
    'How to authenticate: for MCP a Bearer challenge with resource_metadata (where OAuth discovery starts), and scope or error=insufficient_scope.',
  ],
  ['accept', 'Which response types the client takes: MCP POSTs must list both application/json and text/event-stream.'],
  ['content-type', 'The media type of the body: application/json for JSON-RPC, text/event-stream for an SSE stream.'],
  ['origin', 'The web origin that made the request: MCP servers must check it and answer 403 to untrusted origins (DNS rebinding).'],
  ['host', 'The host the client addressed: servers bound to localhost check it to block DNS rebinding.'],
  ['authorization', "The client's credentials, usually an OAuth Bearer access token (hidden by mcpscope unless secrets are shown)."],
  ['proxy-authorization', 'Credentials for a proxy on the way (hidden by mcpscope unless secrets are shown).'],
  ['dpop', 'A DPoP proof: a signed token proving the client holds the key the access token is bound to (a secret).'],
  ['cookie', 'Cookies the client sends (hidden by mcpscope unless secrets are shown).'],
  ['set-cookie', 'A cookie the server asks the client to store (hidden by mcpscope unless secrets are shown).'],
  ['access-control-allow-origin', 'CORS: which web origin may read this response from a browser.'],
  ['access-control-allow-methods', 'CORS: which HTTP methods a browser may use.'],
  [
    'access-control-allow-headers',
    'CORS: which request headers a browser may send (MCP needs mcp-session-id, mcp-protocol-version, authorization).',
  ],
  [
    'access-control-expose-headers',
    'CORS: which response headers browser code may read; it must include Mcp-Session-Id for browser MCP clients.',
  ],
  ['access-control-allow-credentials', 'CORS: whether a browser may send cookies and credentials.'],
  ['access-control-max-age', 'CORS: how long a browser may cache this preflight answer, in seconds.'],
  ['access-control-request-method', 'CORS preflight: the method the browser wants to use.'],
  ['access-control-request-headers', 'CORS preflight: the headers the browser wants to send.'],
  ['content-length', 'The body size in bytes.'],
  ['transfer-encoding', 'How the body is framed on the wire; chunked means it streams with no known length.'],
  ['content-encoding', 'How the body is compressed (gzip, br, …).'],
  ['accept-encoding', 'Which compressions the client can decode.'],
  ['cache-control', 'Caching rules; SSE streams use no-cache so nothing buffers or replays them.'],
  ['connection', 'Whether the TCP connection stays open after this exchange.'],
  ['x-accel-buffering', 'no tells reverse proxies such as nginx not to buffer the SSE stream.'],
  ['retry-after', 'How long to wait before trying again (seconds or a date).'],
  ['location', 'Where a redirect points, or where a created thing lives.'],
  ['user-agent', 'The client software that made the request.'],
  ['vary', 'Which request headers change the response (for caches).'],
  ['traceparent', 'W3C trace context: links this request to a distributed trace.'],
]);

/** What a header means for MCP traffic, or `undefined` for headers mcpscope does not explain. Case-insensitive. */
export function describeHeader(name: string): string | undefined {
  if (typeof name !== 'string') return undefined;
  const n = name.trim().toLowerCase();
  const known = HEADERS.get(n);
  if (known !== undefined) return known;
  if (n.startsWith('mcp-param-') && n.length > 'mcp-param-'.length) {
    return `A tool argument mirrored into a header (2026-07-28, x-mcp-header "${name.trim().slice('mcp-param-'.length)}") so gateways can route on it; non-ASCII values are base64-encoded.`;
  }
  if (n.startsWith('access-control-')) return 'A CORS header: it controls what browser code from other origins may do.';
  return undefined;
}
