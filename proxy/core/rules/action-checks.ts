/**
 * Checks of what a user puts on the wire through a breakpoint (an edited message, an answer) or a
 * resend: it must be JSON-RPC 2.0, or a peer would get something it cannot read. Pure; shared by
 * the API and the UI (which checks before it sends).
 */
import { MAX_JSON_DEPTH, jsonValueDepth } from '../parse/json-depth.js';

/** Why `value` is not a JSON-RPC 2.0 message or batch, or undefined when it is one. */
export function checkJsonRpc(value: unknown): string | undefined {
  const deep = tooDeep(value);
  if (deep) return deep;
  if (Array.isArray(value)) {
    if (value.length === 0) return 'an empty batch is not a JSON-RPC message';
    for (let i = 0; i < value.length; i++) {
      const p = checkOne(value[i]);
      if (p) return `batch member ${i}: ${p}`;
    }
    return undefined;
  }
  return checkOne(value);
}

/** A message nested past the depth mcpscope keeps would break whatever writes it out (JSON.stringify recurses). */
function tooDeep(value: unknown): string | undefined {
  return jsonValueDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH
    ? `it is nested deeper than ${MAX_JSON_DEPTH} levels, more than mcpscope sends`
    : undefined;
}

function checkOne(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'a JSON-RPC message is a JSON object';
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return 'it needs "jsonrpc": "2.0"';
  const hasId = 'id' in m;
  if (hasId && m.id !== null && typeof m.id !== 'string' && typeof m.id !== 'number') return 'id must be a string or a number';
  if (typeof m.method === 'string') {
    if ('result' in m || 'error' in m) return 'a request or notification has no result or error';
    if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null)) return 'params must be an object or an array';
    return undefined;
  }
  if (m.method !== undefined) return 'method must be a string';
  if (!hasId) return 'it needs a method (a request or notification) or an id with a result or error (a response)';
  if ('result' in m === 'error' in m) return 'a response has either a result or an error';
  if ('error' in m) {
    const e = m.error as Record<string, unknown> | null;
    if (!e || typeof e !== 'object' || !Number.isInteger(e.code) || typeof e.message !== 'string')
      return 'error must be an object with an integer code and a message';
  }
  return undefined;
}

/**
 * An answer to the request with id `requestId`: a response or error. A missing id is filled in;
 * a different one is refused (the requester would never match it). A bare `{ result }` or
 * `{ error }` gets `jsonrpc` too.
 */
export function checkAnswer(value: unknown, requestId: unknown): { answer: Record<string, unknown> } | { error: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { error: 'an answer is a JSON-RPC response object (with result or error)' };
  const deep = tooDeep(value);
  if (deep) return { error: deep };
  const m = { ...(value as Record<string, unknown>) };
  if (m.jsonrpc === undefined) m.jsonrpc = '2.0';
  if (!('id' in m)) m.id = requestId;
  else if (m.id !== requestId) return { error: `the answer's id must be the request's id (${quotableId(requestId)})` };
  if (typeof m.method === 'string') return { error: 'an answer is a response (result or error), not a request' };
  const problem = checkOne(m);
  return problem ? { error: problem } : { answer: m };
}

/**
 * A held request's id as an error may quote it: a number, or a short plain string. Any other id is
 * the peer's text (a sentence, control characters) and this error reaches the UI and coding agents
 * outside any frame (docs/agent-mcp.md), so it is named, not quoted.
 */
function quotableId(id: unknown): string {
  if (typeof id === 'number' || (typeof id === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(id))) return JSON.stringify(id);
  return 'the one the held message shows';
}
