/**
 * What JSON-RPC / MCP error codes mean, in words a person understands.
 *
 * Sources: JSON-RPC 2.0 (-32700, -32600…-32603, the -32000…-32099 server range), the MCP schema
 * (2025-11-25: -32002 resource not found in the resources page, -32042 URL elicitation required;
 * 2026-07-28: -32020 header mismatch, -32021 missing client capability, -32022 unsupported protocol
 * version), and the TypeScript SDK's `ErrorCode` enum (ConnectionClosed -32000, RequestTimeout -32001;
 * its Streamable HTTP server also answers HTTP 404 "Session not found" with -32001).
 *
 * Pure and I/O-free (also bundled into the browser UI).
 */

import type { JsonRpcErrorInfo } from '../model/events.js';

/** Well-known codes, by number. */
export const ERROR_CODES = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** TypeScript SDK: the transport closed (also used by its HTTP server for transport-level rejections). */
  ConnectionClosed: -32000,
  /** TypeScript SDK: the request timed out (its HTTP server also uses it for "Session not found"). */
  RequestTimeout: -32001,
  /** MCP up to 2025-11-25 (resources); 2026-07-28 uses -32602 instead. */
  ResourceNotFound: -32002,
  /** MCP 2026-07-28. */
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  /** MCP 2025-11-25 (SDK `ErrorCode.UrlElicitationRequired`). */
  UrlElicitationRequired: -32042,
} as const;

const MEANINGS: ReadonlyMap<number, string> = new Map([
  [-32700, 'Parse error: the receiver could not parse the message as JSON.'],
  [-32600, 'Invalid request: the message is JSON but not a valid JSON-RPC request (a field is missing or has the wrong type).'],
  [-32601, 'Method not found: the receiver does not implement this method (check its capabilities).'],
  [-32602, 'Invalid params: the method exists but its parameters are missing or wrong (from 2026-07-28 also an unknown resource URI).'],
  [-32603, 'Internal error: the receiver failed while handling the request.'],
  [
    -32000,
    'Server error -32000 (implementation-defined): TypeScript SDK servers use it to reject a request at the transport level, SDK clients for a closed connection; read the message.',
  ],
  [
    -32001,
    'Server error -32001 (implementation-defined): TypeScript SDK servers send it with HTTP 404 for "Session not found", SDK clients use it for a request timeout.',
  ],
  [-32002, 'Resource not found: the server has no resource with this URI (protocol 2025-11-25 and earlier; later versions use -32602).'],
  [
    -32020,
    'Header mismatch: the HTTP headers (Mcp-Method, Mcp-Name, MCP-Protocol-Version, Mcp-Param-*) are missing or do not match the request body.',
  ],
  [-32021, 'Missing client capability: the server needs a capability the client did not declare in this request.'],
  [-32022, 'Unsupported protocol version: the server does not speak the protocol version this request asked for (see server/discover).'],
  [
    -32042,
    'URL elicitation required: the user must first complete an interaction at a URL the server provides (in error.data.elicitations), then the client retries.',
  ],
]);

/** A short sentence saying what an error code means, or `undefined` for application-defined codes. */
export function describeErrorCode(code: number): string | undefined {
  if (typeof code !== 'number' || !Number.isFinite(code)) return undefined;
  const known = MEANINGS.get(code);
  if (known !== undefined) return known;
  if (!Number.isInteger(code)) return undefined;
  if (code <= -32000 && code >= -32019) {
    return `Server error ${code}: implementation-defined (-32000 to -32019), so its meaning depends on the server; read the message.`;
  }
  if (code <= -32020 && code >= -32099) {
    return `Server error ${code}: in the range -32020 to -32099 that MCP reserves for its own codes; this one is not defined by any version mcpscope knows.`;
  }
  if (code <= -32000 && code >= -32768) {
    return `Reserved code ${code}: JSON-RPC reserves -32768 to -32000 for predefined errors, and this one has no defined meaning.`;
  }
  return undefined;
}

/** Read a JSON-RPC `error` member into `{ code, message, meaning }`; `undefined` when it has no numeric code. Never throws. */
export function errorInfo(error: unknown): JsonRpcErrorInfo | undefined {
  try {
    if (typeof error !== 'object' || error === null || Array.isArray(error)) return undefined;
    const e = error as Record<string, unknown>;
    if (typeof e.code !== 'number' || !Number.isFinite(e.code)) return undefined;
    const message = typeof e.message === 'string' ? e.message : '';
    const info: JsonRpcErrorInfo = { code: e.code, message };
    const meaning = describeErrorCode(e.code);
    if (meaning !== undefined) info.meaning = meaning;
    return info;
  } catch {
    return undefined;
  }
}

/**
 * A stable hint code for an error code: `method-not-found`, `invalid-params`, …, `server-error`, `reserved-error`, `application-error`.
 * The SDK's -32000/-32001 are implementation-defined (`server-error`): on the wire they are mostly SDK HTTP servers
 * rejecting a request (bad session, Accept, Host); as ConnectionClosed/RequestTimeout they are raised locally.
 */
export function errorHintCode(code: number): string {
  switch (code) {
    case -32700:
      return 'parse-error';
    case -32600:
      return 'invalid-request';
    case -32601:
      return 'method-not-found';
    case -32602:
      return 'invalid-params';
    case -32603:
      return 'internal-error';
    case -32002:
      return 'resource-not-found';
    case -32020:
      return 'header-mismatch';
    case -32021:
      return 'missing-client-capability';
    case -32022:
      return 'unsupported-protocol-version';
    case -32042:
      return 'url-elicitation-required';
    default:
      if (Number.isInteger(code) && code <= -32000 && code >= -32099) return 'server-error';
      if (Number.isInteger(code) && code < -32099 && code >= -32768) return 'reserved-error';
      return 'application-error';
  }
}
