/**
 * MCP or plain HTTP? Decided once per exchange, as early as the wire allows (pure, I/O-free).
 *
 * A client's HTTP traffic is not all MCP: OAuth discovery, client registration, token requests,
 * authorization redirects, JWKS and any other HTTP go by too (in forward-proxy mode all of it).
 * Such an exchange is recorded as plain HTTP — redacted previews and plain-language hints, never
 * a JSON-RPC parse, never a protocol error — in the `http` bucket of its origin.
 *
 * The rule (docs/event-schema.md, "MCP or plain HTTP"):
 * 1. A request to a `/.well-known/` path is plain HTTP (the SDK sends MCP-Protocol-Version on its
 *    OAuth discovery requests: that header does not make them MCP).
 * 2. Otherwise it is MCP as soon as the request shows an MCP sign: an `Mcp-Session-Id`,
 *    `MCP-Protocol-Version` or `Mcp-Method` header; a POST to a legacy HTTP+SSE endpoint; a POST
 *    whose Accept lists `text/event-stream`; the MCP endpoint (the target URL, or a URL that
 *    carried MCP before); a body shaped like JSON-RPC (a JSON array, or an object with `jsonrpc`,
 *    `method`, `id`, `result` or `error`).
 * 3. Without such a sign, a form body or a JSON body of another shape makes it plain HTTP.
 * 4. Anything else (no body, a body that is not valid JSON, another media type) waits for the
 *    response: an event stream, or a JSON body with a `jsonrpc` member, makes it MCP; anything
 *    else makes it plain HTTP.
 * On an MCP exchange, the non-JSON-RPC body of a 401/403 with a WWW-Authenticate challenge is the
 * authorization layer's (isChallengeBody): a preview, not a JSON-RPC mistake.
 */
import { firstHeader, type HeaderMap } from '../wire/capture/wire-records.js';
import type { ClassifyResult } from '../core/parse/jsonrpc.js';
import { mayBeJson } from './record-helpers.js';

export type ExchangeKind = 'mcp' | 'plain';

/** Members of which any one makes a JSON object "JSON-RPC-shaped" (a malformed message is still the peer's mistake). */
const JSONRPC_MEMBERS = ['jsonrpc', 'method', 'id', 'result', 'error'] as const;

/** The path of a request target: origin-form (`/a?b`) or absolute-form (`http://h/a?b`, forward proxies). */
export function pathOf(url: string): string {
  let path = url;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url);
  if (scheme) path = url.slice(scheme[0].length) || '/';
  const cut = path.search(/[?#]/);
  return cut >= 0 ? path.slice(0, cut) : path;
}

/** `/.well-known/…` (RFC 8615), also path-appended (`/tenant/.well-known/openid-configuration`): metadata, never JSON-RPC. */
function isWellKnown(url: string): boolean {
  return pathOf(url).includes('/.well-known/');
}

/** An upstream URL without its query or fragment and trailing slash: the key of an endpoint. */
export function endpointOf(url: string): string {
  const cut = url.search(/[?#]/);
  const base = cut >= 0 ? url.slice(0, cut) : url;
  return base.length > 1 && base.endsWith('/') ? base.slice(0, -1) : base;
}

/** The origin an exchange went to: its upstream URL's, else its target's (or the target itself, a command line). */
export function originOf(upstreamUrl: string | undefined, target: string): string {
  for (const u of [upstreamUrl, target]) {
    if (!u) continue;
    try {
      const o = new URL(u).origin;
      if (o !== 'null') return o;
    } catch {
      /* next */
    }
  }
  return target;
}

/** Whether a POST asks for an event stream: MCP clients must list text/event-stream in Accept; OAuth clients never do. */
function acceptsEventStream(headers: HeaderMap): boolean {
  const accept = headers.accept;
  const value = Array.isArray(accept) ? accept.join(',') : accept;
  return value !== undefined && value.toLowerCase().includes('text/event-stream');
}

/**
 * Endpoints known to speak MCP: the target URL of each upstream (when it names a path, as
 * `--target http://host/mcp` does), and every URL that carried MCP since. Bounded.
 */
export class McpEndpoints {
  private readonly seen = new Set<string>();
  private readonly targets = new Map<string, string | null>();

  add(endpoint: string): void {
    if (this.seen.has(endpoint)) return;
    if (this.seen.size >= 1024) this.seen.clear();
    this.seen.add(endpoint);
  }

  has(endpoint: string, target: string): boolean {
    if (this.seen.has(endpoint)) return true;
    let t = this.targets.get(target);
    if (t === undefined) {
      const e = endpointOf(target);
      // A target without a path (an origin: forward mode, or a server at "/") names no endpoint.
      t = /^[a-z][a-z0-9+.-]*:\/\/[^/]+\/./i.test(e) ? e : null;
      if (this.targets.size >= 64) this.targets.clear();
      this.targets.set(target, t);
    }
    return t === endpoint;
  }
}

/** Rules 1 and 2 on the request head: `plain`, `mcp`, or undefined (the body or the response decides). */
export function headVerdict(method: string, url: string, headers: HeaderMap, knownEndpoint: boolean): ExchangeKind | undefined {
  if (isWellKnown(url)) return 'plain';
  if (firstHeader(headers, 'mcp-session-id') !== undefined || firstHeader(headers, 'mcp-method') !== undefined) return 'mcp';
  // The SDK sends MCP-Protocol-Version on its OAuth discovery GETs too (protected-resource metadata
  // may live at any path): on a GET it counts only with an event stream accepted (MCP's GET stream).
  if (firstHeader(headers, 'mcp-protocol-version') !== undefined && (method !== 'GET' || acceptsEventStream(headers))) return 'mcp';
  if (method === 'POST' && acceptsEventStream(headers)) return 'mcp';
  return knownEndpoint ? 'mcp' : undefined;
}

/**
 * Rules 2 and 3 on a request body whose head showed no sign. `cls` is the body's JSON-RPC
 * classification (undefined for a body that was not read as JSON, or too large to parse).
 */
export function bodyVerdict(
  cls: ClassifyResult | undefined,
  text: string | undefined,
  requestType: string | undefined,
): ExchangeKind | undefined {
  if (requestType === 'application/x-www-form-urlencoded' || requestType === 'multipart/form-data') return 'plain';
  if (cls === undefined) return undefined;
  if (cls.ok || cls.code === 'empty-batch') return 'mcp';
  if (cls.code !== 'not-jsonrpc' || text === undefined) return undefined;
  const value = parseJson(text);
  if (value === undefined) return undefined;
  return Array.isArray(value) || (isObject(value) && JSONRPC_MEMBERS.some((k) => k in value)) ? 'mcp' : 'plain';
}

/** Rule 4 on a JSON response body: an object with a `jsonrpc` member, or a batch holding one. */
export function isJsonRpcText(text: string): boolean {
  if (!text.includes('"jsonrpc"')) return false;
  const value = parseJson(text);
  if (Array.isArray(value)) return value.some((m) => isObject(m) && 'jsonrpc' in m);
  return isObject(value) && 'jsonrpc' in value;
}

/**
 * The body of a 401 or 403 that carries a WWW-Authenticate challenge, when it is not JSON-RPC: the
 * authorization layer's answer (RFC 6750 §3: `{"error":"invalid_token"}`) on an MCP exchange, not
 * a malformed JSON-RPC message. It is kept as a preview.
 */
export function isChallengeBody(status: number | undefined, wwwAuthenticate: string | undefined, text: string): boolean {
  return (status === 401 || status === 403) && wwwAuthenticate !== undefined && !isJsonRpcText(text);
}

/** What a plain exchange's annotations read from its bodies (values as sent: hints quote only non-secret fields). */
export interface PlainBodies {
  form?: Record<string, string>;
  requestJson?: unknown;
  responseJson?: unknown;
}

/** A request body read for the annotations: form fields, or JSON. */
export function readRequestBody(text: string, requestType: string | undefined): Pick<PlainBodies, 'form' | 'requestJson'> {
  if (requestType === 'application/x-www-form-urlencoded') {
    const form: Record<string, string> = {};
    try {
      for (const [k, v] of new URLSearchParams(text)) if (!(k in form)) form[k] = v;
    } catch {
      /* not a form after all */
    }
    return { form };
  }
  const json = mayBeJson(text) ? parseJson(text) : undefined;
  return json === undefined ? {} : { requestJson: json };
}

/** JSON.parse, or undefined. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
