/**
 * Schema validation of one message against the official SDK's zod schemas (methods.ts): a request
 * or notification by its method, a result by the method of the request it answers. A zod issue
 * becomes a violation with a JSON pointer and what was expected, in words; zod's messages name
 * types and the schema's own literals, never the value that was sent (which may be a secret).
 */
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Direction, MessageKind } from '../model/events.js';
import type { MethodSpec, ZodIssueLike, ZodLike } from './methods.js';
import { methodsFor } from './methods-2026.js';
import { isKnownVersion, versionAtLeast } from './rules.js';
import type { Violation } from './violation.js';

/** A JSON pointer (RFC 6901) from a zod path, under `prefix`. */
export function pointer(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const p of path) out += '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1');
  return out;
}

/** The most useful issue of a union's branches: the branch that got furthest (fewest issues, then deepest). */
function flatten(issue: ZodIssueLike, base: readonly PropertyKey[] = []): ZodIssueLike {
  const here = [...base, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors && issue.errors.length > 0) {
    let best: readonly ZodIssueLike[] | undefined;
    for (const branch of issue.errors) {
      if (branch.length === 0) continue;
      if (!best || branch.length < best.length || (branch.length === best.length && branch[0].path.length > best[0].path.length))
        best = branch;
    }
    if (best) return flatten(best[0], here);
  }
  return { ...issue, path: here };
}

/** What zod expected there, in plain words (from the schema, never the value). */
function expectedOf(issue: ZodIssueLike): string {
  if (issue.code === 'invalid_type' && issue.expected) {
    return issue.expected === 'object' || issue.expected === 'array' ? `an ${issue.expected}` : `a ${issue.expected}`;
  }
  if (issue.code === 'invalid_value' && issue.values) return `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  // zod's message here quotes the keys that were sent (`Unrecognized key: "…"`), which may be anything.
  if (issue.code === 'unrecognized_keys') return 'no properties other than those the schema names';
  const words = issue.message.replace(/^Invalid input:?\s*/, '');
  // A refinement's "Invalid Base64 string" says what was wrong: what was expected is a valid one.
  return words.replace(/^Invalid /, 'a valid ') || 'a value of the shape the schema describes';
}

function firstIssue(schema: ZodLike, value: unknown): ZodIssueLike | undefined {
  const r = schema.safeParse(value);
  if (r.success || !r.error || r.error.issues.length === 0) return undefined;
  return flatten(r.error.issues[0]);
}

const SENDER: Record<Direction, 'client' | 'server'> = { c2s: 'client', s2c: 'server' };

export interface SchemaInput {
  dir: Direction;
  kind: MessageKind;
  method?: string;
  /** The whole JSON-RPC message, as parsed (unredacted: only checked, never quoted). */
  value: unknown;
  /** For a response: its request's method. */
  requestMethod?: string;
  /** The session's protocol version. */
  version?: string;
}

/** A method of `spec` sent by the wrong side, or in a version that does not have it. */
function versionViolation(spec: MethodSpec, method: string, version: string | undefined): Violation | undefined {
  if (!isKnownVersion(version)) return undefined;
  if (spec.until !== undefined && versionAtLeast(version, spec.until))
    return {
      rule: 'version/method-not-in-version',
      section: spec.section,
      expected: `a method of protocol version ${version}`,
      text: `${method} does not exist in protocol version ${version}, which this session negotiated: it was removed in ${spec.until}${spec.kind === 'request' && spec.sender === 'server' ? ', where a server asks the client through an input_required result (inputRequests) instead' : ''}. A peer that implements ${version} answers a request with -32601 (method not found) or ignores a notification.`,
    };
  if (versionAtLeast(version, spec.since)) return undefined;
  return {
    rule: 'version/method-not-in-version',
    section: spec.section,
    expected: `a method of protocol version ${version}`,
    text: `${method} does not exist in protocol version ${version}, which this session negotiated (it came in ${spec.since}). A peer that implements ${version} answers a request with -32601 (method not found) or ignores a notification.`,
  };
}

export function checkSchema(m: SchemaInput): Violation[] {
  const from = SENDER[m.dir];
  if (m.kind === 'request' || m.kind === 'notification') {
    const spec = m.method === undefined ? undefined : methodsFor(m.version).get(m.method);
    // Unknown methods (custom, 2026-07-28's server/discover…) and a method from the side that never sends it: not checked.
    if (!spec || spec.kind !== m.kind || (spec.sender !== 'both' && spec.sender !== from)) return [];
    const method = m.method as string;
    const version = versionViolation(spec, method, m.version);
    if (version) return [version];
    const issue = firstIssue(spec.schema, m.value);
    if (!issue) return [];
    const path = pointer('', issue.path);
    const expected = expectedOf(issue);
    const receiver = from === 'client' ? 'server' : 'client';
    return [
      {
        rule: m.kind === 'request' ? 'schema/request' : 'schema/notification',
        section: spec.section,
        path,
        expected,
        text:
          m.kind === 'request'
            ? `The ${from}'s ${method} request does not match its schema: at ${path}, expected ${expected}. An SDK ${receiver} validates requests and answers this one with an error (-32602 invalid params) instead of handling it.`
            : `The ${from}'s ${method} notification does not match its schema: at ${path}, expected ${expected}. An SDK ${receiver} rejects it (its handler never runs).`,
      },
    ];
  }
  if (m.kind !== 'response' || m.requestMethod === undefined) return [];
  const spec = methodsFor(m.version).get(m.requestMethod);
  if (!spec?.result) return [];
  const result = (m.value as { result?: unknown }).result;
  if (typeof result === 'object' && result !== null) {
    const r = result as { resultType?: unknown; task?: unknown };
    // 2026-07-28: input_required (and any other non-complete result type) is not a v1 result.
    if (r.resultType !== undefined && r.resultType !== 'complete') return [];
    // A task-augmented request is answered by a CreateTaskResult.
    const schema = typeof r.task === 'object' && r.task !== null ? (CreateTaskResultSchema as ZodLike) : spec.result;
    const issue = firstIssue(schema, result);
    if (!issue) return contentVersion(m.requestMethod, result, m.version);
    return [resultViolation(m.requestMethod, spec, pointer('/result', issue.path), expectedOf(issue))];
  }
  return [resultViolation(m.requestMethod, spec, '/result', 'an object')];
}

function resultViolation(method: string, spec: MethodSpec, path: string, expected: string): Violation {
  const answerer = spec.sender === 'server' ? 'client' : spec.sender === 'client' ? 'server' : 'peer';
  const asker = answerer === 'client' ? 'server' : answerer === 'server' ? 'client' : 'peer';
  return {
    rule: 'schema/result',
    section: spec.section,
    path,
    expected,
    text: `The ${answerer}'s result for ${method} does not match its schema: at ${path}, expected ${expected}. An SDK ${asker} validates results and rejects this response, so the ${method} call fails with a validation error even though the ${answerer} handled it.`,
  };
}

/** Content block types and the version that brought each in (text, image and resource are in every version). */
const CONTENT_SINCE: Record<string, string> = { audio: '2025-03-26', resource_link: '2025-06-18' };

/** The content blocks of a result: a tool result's `content`, a prompt's messages' `content`. */
function contentBlocks(method: string, result: Record<string, unknown>): { path: string; block: unknown }[] {
  if (method === 'tools/call' && Array.isArray(result.content))
    return result.content.map((block, i) => ({ path: `/result/content/${i}`, block }));
  if (method === 'prompts/get' && Array.isArray(result.messages))
    return result.messages.map((msg, i) => ({
      path: `/result/messages/${i}/content`,
      block: (msg as { content?: unknown } | null)?.content,
    }));
  return [];
}

/** A content type that the session's version does not have yet (each version's schema lists its own). */
function contentVersion(method: string, result: object, version: string | undefined): Violation[] {
  if (!isKnownVersion(version)) return [];
  for (const { path, block } of contentBlocks(method, result as Record<string, unknown>)) {
    const type = (block as { type?: unknown } | null)?.type;
    const since = typeof type === 'string' ? CONTENT_SINCE[type] : undefined;
    if (since === undefined || versionAtLeast(version, since)) continue;
    return [
      {
        rule: 'version/content-not-in-version',
        path: `${path}/type`,
        expected: `a content type of protocol version ${version}: ${versionAtLeast(version, '2025-03-26') ? 'text, image, audio or resource' : 'text, image or resource'}`,
        text: `A ${JSON.stringify(type)} content block in a ${method} result, but this session negotiated ${version}, which has no such type (it came in ${since}). A client of that version fails to validate the result or drops the block.`,
      },
    ];
  }
  return [];
}
