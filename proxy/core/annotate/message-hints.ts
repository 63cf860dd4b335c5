/**
 * Plain-language hints for individual MCP messages. The facts the recorder stores on each message
 * (name, progress token, progress) are read by proxy/core/parse/mcp-fields.ts.
 *
 * Method names and fields follow the MCP schema 2024-11-05 … 2026-07-28 (tasks and URL elicitation
 * from 2025-11-25; `server/discover`, `subscriptions/listen` and `resultType: "input_required"`
 * from the 2026-07-28 stateless revision).
 *
 * Pure and I/O-free (also bundled into the browser UI). Nothing here throws.
 */

import type { Direction, Hint, MessageKind } from '../model/events.js';
import { progressTokenOf } from '../parse/mcp-fields.js';
import { obj, str, num, arr, clip, q, plural, idText, info, warn, type Obj } from './hint-text.js';
import { methodHints } from './method-hints.js';
import { resultHints } from './result-hints.js';
import { describeErrorCode, errorHintCode } from './error-codes.js';

// ---------------------------------------------------------------------------------------------
// Known methods

type Sender = 'client' | 'server' | 'both';

interface MethodSpec {
  from: Sender;
  kind: 'request' | 'notification';
}

const METHODS: Readonly<Record<string, MethodSpec>> = {
  initialize: { from: 'client', kind: 'request' },
  ping: { from: 'both', kind: 'request' },
  'server/discover': { from: 'client', kind: 'request' },
  'subscriptions/listen': { from: 'client', kind: 'request' },
  'tools/list': { from: 'client', kind: 'request' },
  'tools/call': { from: 'client', kind: 'request' },
  'resources/list': { from: 'client', kind: 'request' },
  'resources/templates/list': { from: 'client', kind: 'request' },
  'resources/read': { from: 'client', kind: 'request' },
  'resources/subscribe': { from: 'client', kind: 'request' },
  'resources/unsubscribe': { from: 'client', kind: 'request' },
  'prompts/list': { from: 'client', kind: 'request' },
  'prompts/get': { from: 'client', kind: 'request' },
  'logging/setLevel': { from: 'client', kind: 'request' },
  'completion/complete': { from: 'client', kind: 'request' },
  'sampling/createMessage': { from: 'server', kind: 'request' },
  'elicitation/create': { from: 'server', kind: 'request' },
  'roots/list': { from: 'server', kind: 'request' },
  'tasks/get': { from: 'both', kind: 'request' },
  'tasks/result': { from: 'both', kind: 'request' },
  'tasks/list': { from: 'both', kind: 'request' },
  'tasks/cancel': { from: 'both', kind: 'request' },
  'tasks/update': { from: 'client', kind: 'request' },
  'notifications/initialized': { from: 'client', kind: 'notification' },
  'notifications/roots/list_changed': { from: 'client', kind: 'notification' },
  'notifications/tools/list_changed': { from: 'server', kind: 'notification' },
  'notifications/prompts/list_changed': { from: 'server', kind: 'notification' },
  'notifications/resources/list_changed': { from: 'server', kind: 'notification' },
  'notifications/resources/updated': { from: 'server', kind: 'notification' },
  'notifications/message': { from: 'server', kind: 'notification' },
  'notifications/elicitation/complete': { from: 'server', kind: 'notification' },
  'notifications/subscriptions/acknowledged': { from: 'server', kind: 'notification' },
  'notifications/progress': { from: 'both', kind: 'notification' },
  'notifications/cancelled': { from: 'both', kind: 'notification' },
  'notifications/tasks/status': { from: 'both', kind: 'notification' },
};

/** Whether `method` is defined by some MCP protocol version mcpscope knows. */
export function isKnownMethod(method: string): boolean {
  return Object.prototype.hasOwnProperty.call(METHODS, method);
}

// ---------------------------------------------------------------------------------------------
// Capabilities in words

// ---------------------------------------------------------------------------------------------
// The hints

export interface MessageHintInput {
  dir: Direction;
  kind: MessageKind;
  /** Requests and notifications: the method. */
  method?: string;
  /** The whole JSON-RPC message. */
  value: unknown;
  /** Responses and errors: the method of the paired request. */
  requestMethod?: string;
  /** Response to `initialize`: the version the client asked for, to say whether the server chose another. */
  requestedVersion?: string;
}

/** Short plain-language hints for one message. Never throws; unknown methods get one neutral `custom-method` hint. */
export function messageHints(input: MessageHintInput): Hint[] {
  try {
    const v = obj(input.value) ?? {};
    if (input.kind === 'request' || input.kind === 'notification') {
      return callHints(input, v);
    }
    if (input.kind === 'error') return errorHints(input, v);
    return resultHints(input, v);
  } catch {
    return [];
  }
}

function callHints(input: MessageHintInput, v: Obj): Hint[] {
  const method = input.method ?? str(v.method);
  if (method === undefined) return [];
  const p = obj(v.params) ?? {};
  const hints: Hint[] = [];
  const spec = METHODS[method];
  const sender = input.dir === 'c2s' ? 'client' : 'server';

  if (spec === undefined || !isKnownMethod(method)) {
    hints.push(
      info(
        'custom-method',
        `${q(method, 60)} is not a method of the MCP specification: probably a custom or experimental extension, which peers that do not know it answer with -32601.`,
      ),
    );
  } else {
    if (spec.from !== 'both' && spec.from !== sender) {
      hints.push(warn('wrong-direction', `${q(method, 60)} is normally sent by the ${spec.from}, but here the ${sender} sent it.`));
    }
    if (spec.kind === 'request' && input.kind === 'notification') {
      hints.push(warn('request-without-id', `${q(method, 60)} is a request but was sent without an id, so no answer can come back.`));
    }
  }

  hints.push(...methodHints(method, p));

  // Generic request facts.
  const meta = obj(p._meta);
  if (input.kind === 'request') {
    const token = progressTokenOf(p);
    if (token !== undefined) {
      hints.push(info('progress-requested', `The sender asks for progress updates on this request with token ${idText(token)}.`));
    }
    if (obj(p.task) !== undefined) {
      const ttl = num(obj(p.task)?.ttl);
      hints.push(
        info(
          'task-augmented',
          `The request asks to run as a task${ttl !== undefined ? ` (kept ${ttl} ms)` : ''}: the answer is a task handle, and the real result comes later via tasks/result.`,
        ),
      );
    }
    const version = str(meta?.['io.modelcontextprotocol/protocolVersion']);
    if (version !== undefined) {
      hints.push(
        info(
          'stateless-request',
          `Stateless request for protocol ${clip(version, 20)}: it carries its own version and client capabilities in _meta instead of relying on an initialize handshake.`,
        ),
      );
    }
    const responses = obj(p.inputResponses);
    const state = str(p.requestState);
    if (responses !== undefined || state !== undefined) {
      const n = responses ? Object.keys(responses).length : 0;
      hints.push(
        info(
          'input-retry',
          `This is a retry of an earlier request that needed input: it carries ${plural(n, 'answer')}${state !== undefined ? " and the server's requestState" : ''}.`,
        ),
      );
    }
  }
  const related = str(obj(meta?.['io.modelcontextprotocol/related-task'])?.taskId);
  if (related !== undefined) hints.push(info('related-task', `This message belongs to task ${q(related, 40)}.`));
  return hints;
}

function errorHints(input: MessageHintInput, v: Obj): Hint[] {
  const e = obj(v.error);
  const code = num(e?.code);
  if (e === undefined || code === undefined) return [];
  const message = str(e.message);
  const rm = input.requestMethod;
  const said = message !== undefined && message.length > 0 ? ` Message: ${q(message)}.` : '';
  let text: string;
  if (code === -32601 && rm !== undefined) {
    text = `Method not found: the receiver does not implement ${q(rm, 60)} (check its capabilities).`;
  } else if (code === -32042) {
    const n = arr(obj(e.data)?.elicitations)?.length;
    text = `URL elicitation required: the user must first open ${n !== undefined ? plural(n, 'URL') : 'a URL'} the server provides, then the client retries.`;
  } else {
    text = describeErrorCode(code) ?? `Error ${code} is application-defined: the sender chose it, so only the message explains it.`;
  }
  return [{ level: code === -32042 ? 'warn' : 'error', code: errorHintCode(code), text: `${text}${said}` }];
}
