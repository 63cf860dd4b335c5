/**
 * Plain-language hints for individual MCP messages. The facts the recorder stores on each message
 * (name, progress token, progress) are read by proxy/parse/mcp-fields.ts.
 *
 * Method names and fields follow the MCP schema 2024-11-05 … 2026-07-28 (tasks and URL elicitation
 * from 2025-11-25; `server/discover`, `subscriptions/listen` and `resultType: "input_required"`
 * from the 2026-07-28 stateless revision).
 *
 * Pure and I/O-free (also bundled into the browser UI). Nothing here throws.
 */

import type { Direction, Hint, MessageKind } from '../model/events.js';
import { messageName, progressNotificationTokenOf, progressOf, progressTokenOf } from '../parse/mcp-fields.js';
import { describeErrorCode, errorHintCode } from './error-codes.js';

// ---------------------------------------------------------------------------------------------
// Small readers

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function arr(v: unknown): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

function clip(s: string, max = 80): string {
  const oneLine = s.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/** A wire value quoted for a hint: `"name"`, clipped. */
function q(s: string, max = 80): string {
  return `"${clip(s, max)}"`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function joinNames(names: string[], max = 5): string {
  const shown = names.slice(0, max).map((n) => clip(n, 40));
  const rest = names.length - shown.length;
  return rest > 0 ? `${shown.join(', ')} and ${rest} more` : shown.join(', ');
}

function idText(v: unknown): string {
  if (typeof v === 'string') return q(v, 40);
  if (typeof v === 'number') return String(v);
  return 'with an unreadable id';
}

function snippet(v: unknown, max = 80): string {
  if (typeof v === 'string') return q(v, max);
  try {
    const s = JSON.stringify(v);
    return s === undefined ? String(v) : clip(s, max);
  } catch {
    return '(unprintable)';
  }
}

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

function clientCapabilitiesText(caps: unknown): string {
  const c = obj(caps);
  if (c === undefined) return 'no capabilities (the "capabilities" object is missing)';
  const parts: string[] = [];
  const roots = obj(c.roots);
  if (roots) parts.push(roots.listChanged === true ? 'roots (with list_changed)' : 'roots');
  const sampling = obj(c.sampling);
  if (sampling) {
    const extra = [sampling.tools !== undefined ? 'tools' : '', sampling.context !== undefined ? 'context' : ''].filter(Boolean);
    parts.push(extra.length ? `sampling (with ${extra.join(', ')})` : 'sampling');
  }
  const elicitation = obj(c.elicitation);
  if (elicitation) {
    const modes: string[] = [];
    if (elicitation.form !== undefined || elicitation.url === undefined) modes.push('form');
    if (elicitation.url !== undefined) modes.push('url');
    parts.push(`elicitation (${modes.join(', ')})`);
  }
  if (obj(c.tasks)) parts.push('tasks');
  const experimental = obj(c.experimental);
  if (experimental && Object.keys(experimental).length) parts.push(`experimental (${joinNames(Object.keys(experimental), 3)})`);
  const extensions = obj(c.extensions);
  if (extensions && Object.keys(extensions).length) parts.push(`extensions (${joinNames(Object.keys(extensions), 3)})`);
  return parts.length ? parts.join(', ') : 'no optional client features';
}

function serverCapabilitiesText(caps: unknown): string {
  const c = obj(caps);
  if (c === undefined) return 'no capabilities (the "capabilities" object is missing)';
  const parts: string[] = [];
  const listChanged = (o: Obj): string[] => (o.listChanged === true ? ['list_changed'] : []);
  const tools = obj(c.tools);
  if (tools) parts.push(withFlags('tools', listChanged(tools)));
  const resources = obj(c.resources);
  if (resources) parts.push(withFlags('resources', [...(resources.subscribe === true ? ['subscribe'] : []), ...listChanged(resources)]));
  const prompts = obj(c.prompts);
  if (prompts) parts.push(withFlags('prompts', listChanged(prompts)));
  if (obj(c.logging)) parts.push('logging');
  if (obj(c.completions)) parts.push('completions');
  if (obj(c.tasks)) parts.push('tasks');
  const experimental = obj(c.experimental);
  if (experimental && Object.keys(experimental).length) parts.push(`experimental (${joinNames(Object.keys(experimental), 3)})`);
  const extensions = obj(c.extensions);
  if (extensions && Object.keys(extensions).length) parts.push(`extensions (${joinNames(Object.keys(extensions), 3)})`);
  return parts.length ? parts.join(', ') : 'no features (no tools, resources or prompts)';
}

function withFlags(name: string, flags: string[]): string {
  return flags.length ? `${name} (${flags.join(', ')})` : name;
}

function peerText(info: unknown): string | undefined {
  const i = obj(info);
  const name = str(i?.name);
  if (name === undefined) return undefined;
  const version = str(i?.version);
  return q(version ? `${name} ${version}` : name, 60);
}

function namesOf(list: unknown[], key: string): string[] {
  return list.map((x) => str(obj(x)?.[key])).filter((x): x is string => x !== undefined);
}

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

const info = (code: string, text: string): Hint => ({ level: 'info', code, text });
const warn = (code: string, text: string): Hint => ({ level: 'warn', code, text });

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
          `This is a retry of an earlier request that needed input: it carries ${plural(n, 'answer')}${state !== undefined ? ' and the server\'s requestState' : ''}.`,
        ),
      );
    }
  }
  const related = str(obj(meta?.['io.modelcontextprotocol/related-task'])?.taskId);
  if (related !== undefined) hints.push(info('related-task', `This message belongs to task ${q(related, 40)}.`));
  return hints;
}

function methodHints(method: string, p: Obj): Hint[] {
  const name = messageName(method, p);
  const cursor = str(p.cursor) !== undefined ? ' (next page, using the cursor from the previous answer)' : '';
  switch (method) {
    case 'initialize': {
      const version = str(p.protocolVersion);
      const who = peerText(p.clientInfo);
      const hints: Hint[] = [
        info(
          'initialize',
          `${who ? `Client ${who}` : 'The client'} opens the session asking for protocol version ${version ? clip(version, 20) : '(none given)'}. It offers ${clientCapabilitiesText(p.capabilities)}.`,
        ),
      ];
      if (version === undefined) hints.push(warn('initialize-no-version', 'The initialize request has no protocolVersion, so the server cannot negotiate a version.'));
      return hints;
    }
    case 'notifications/initialized':
      return [info('initialized', 'The client confirms the handshake is complete: normal requests can start now.')];
    case 'ping':
      return [info('ping', 'A liveness check: the receiver must answer promptly with an empty result.')];
    case 'server/discover':
      return [info('server-discover', 'The client asks which protocol versions and capabilities the server supports (stateless protocol 2026-07-28, no initialize).')];
    case 'subscriptions/listen': {
      const filter = obj(p.notifications);
      const wanted = filter ? Object.keys(filter).filter((k) => filter[k] !== false && filter[k] !== undefined) : [];
      return [
        info(
          'subscriptions-listen',
          `The client opens a long-lived stream for change notifications${wanted.length ? ` (${joinNames(wanted, 4)})` : ''}; it stays open until the client closes it.`,
        ),
      ];
    }
    case 'notifications/subscriptions/acknowledged': {
      const filter = obj(p.notifications);
      const granted = filter ? Object.keys(filter).filter((k) => filter[k] !== false && filter[k] !== undefined) : [];
      return [info('subscriptions-acknowledged', `The server confirms the subscription stream${granted.length ? ` and will send ${joinNames(granted, 4)}` : ''}.`)];
    }
    case 'tools/list':
      return [info('tools-list', `The client asks which tools the server offers${cursor}.`)];
    case 'tools/call': {
      const args = obj(p.arguments);
      const argNames = args ? Object.keys(args) : [];
      return [
        info(
          'tools-call',
          `The client calls the tool ${name !== undefined ? q(name, 60) : '(no name given)'}${argNames.length ? ` with ${plural(argNames.length, 'argument')} (${joinNames(argNames, 4)})` : ' without arguments'}.`,
        ),
      ];
    }
    case 'resources/list':
      return [info('resources-list', `The client asks which resources the server offers${cursor}.`)];
    case 'resources/templates/list':
      return [info('resources-templates-list', `The client asks for the server's resource URI templates${cursor}.`)];
    case 'resources/read':
      return [info('resources-read', `The client reads the resource ${name !== undefined ? q(name) : '(no uri given)'}.`)];
    case 'resources/subscribe':
      return [
        info(
          'resources-subscribe',
          `The client asks to be told when ${name !== undefined ? q(name) : 'the resource'} changes: the server will send notifications/resources/updated.`,
        ),
      ];
    case 'resources/unsubscribe':
      return [info('resources-unsubscribe', `The client no longer wants change notifications for ${name !== undefined ? q(name) : 'the resource'}.`)];
    case 'notifications/resources/updated':
      return [
        info('resource-updated', `The resource ${name !== undefined ? q(name) : '(no uri given)'} changed: the client may read it again with resources/read.`),
      ];
    case 'notifications/tools/list_changed':
      return [info('list-changed', 'The server\'s list of tools changed: the client should re-fetch it with tools/list.')];
    case 'notifications/prompts/list_changed':
      return [info('list-changed', 'The server\'s list of prompts changed: the client should re-fetch it with prompts/list.')];
    case 'notifications/resources/list_changed':
      return [info('list-changed', 'The server\'s list of resources changed: the client should re-fetch it with resources/list.')];
    case 'notifications/roots/list_changed':
      return [info('list-changed', 'The client\'s list of roots changed: the server should ask again with roots/list.')];
    case 'prompts/list':
      return [info('prompts-list', `The client asks which prompts the server offers${cursor}.`)];
    case 'prompts/get': {
      const args = obj(p.arguments);
      const n = args ? Object.keys(args).length : 0;
      return [
        info(
          'prompts-get',
          `The client fetches the prompt ${name !== undefined ? q(name, 60) : '(no name given)'}${n ? ` filled with ${plural(n, 'argument')}` : ''}.`,
        ),
      ];
    }
    case 'logging/setLevel': {
      const level = str(p.level);
      return [
        info(
          'logging-set-level',
          `The client asks the server to send log messages at level ${level ? q(level, 20) : '(none given)'} and more severe as notifications/message.`,
        ),
      ];
    }
    case 'notifications/message': {
      const level = str(p.level) ?? 'unknown';
      const logger = str(p.logger);
      const severe = ['error', 'critical', 'alert', 'emergency'].includes(level);
      return [
        {
          level: severe ? 'warn' : 'info',
          code: 'log-message',
          text: `Server log at level ${q(level, 20)}${logger ? ` from logger ${q(logger, 40)}` : ''}: ${snippet(p.data)}.`,
        },
      ];
    }
    case 'notifications/progress': {
      const pr = progressOf(method, p);
      const token = progressNotificationTokenOf(p);
      if (pr === undefined) return [warn('bad-progress', 'This progress notification has no numeric "progress" value.')];
      let amount = `Progress ${pr.progress}`;
      if (pr.total !== undefined) {
        amount += ` of ${pr.total}`;
        if (pr.total > 0) amount += ` (${Math.round((pr.progress / pr.total) * 100)}%)`;
      }
      const hints: Hint[] = [
        info('progress', `${amount} for token ${token !== undefined ? idText(token) : '(missing)'}${pr.message !== undefined ? `: ${q(pr.message)}` : ''}.`),
      ];
      if (token === undefined) hints.push(warn('progress-without-token', 'The progress notification has no progressToken, so it cannot be matched to a request.'));
      return hints;
    }
    case 'notifications/cancelled': {
      const reason = str(p.reason);
      return [
        info(
          'cancelled',
          `The sender cancels its earlier request ${idText(p.requestId)}${reason !== undefined ? ` (reason: ${q(reason, 60)})` : ''}. The receiver should stop working on it and send no answer.`,
        ),
      ];
    }
    case 'sampling/createMessage': {
      const messages = arr(p.messages) ?? [];
      const maxTokens = num(p.maxTokens);
      const tools = arr(p.tools);
      return [
        info(
          'sampling',
          `The server asks the client's LLM to write a reply (${plural(messages.length, 'message')} of context${maxTokens !== undefined ? `, at most ${maxTokens} tokens` : ''}${tools?.length ? `, ${plural(tools.length, 'tool')} offered` : ''}). The client should let the user review the request and the answer.`,
        ),
      ];
    }
    case 'elicitation/create': {
      const message = str(p.message);
      if (p.mode === 'url') {
        const url = str(p.url);
        return [
          info(
            'elicitation-url',
            `The server asks the user to open a URL${url ? ` (${hostOf(url)})` : ''} for an out-of-band step such as signing in${message ? `: ${q(message, 60)}` : ''}. The data entered there goes to the server, never through the client.`,
          ),
        ];
      }
      const props = obj(obj(p.requestedSchema)?.properties);
      const fields = props ? Object.keys(props) : [];
      return [
        info(
          'elicitation-form',
          `The server asks the user to fill in a form${fields.length ? ` (${joinNames(fields, 4)})` : ''}${message ? `: ${q(message, 60)}` : ''}. The user may accept, decline or cancel.`,
        ),
      ];
    }
    case 'notifications/elicitation/complete':
      return [info('elicitation-complete', 'The server reports that the user finished the URL interaction: the client may retry what needed it.')];
    case 'roots/list':
      return [info('roots-list', 'The server asks the client which filesystem roots (folders) it may work in.')];
    case 'completion/complete': {
      const ref = obj(p.ref);
      const argument = obj(p.argument);
      const argName = str(argument?.name);
      const argValue = str(argument?.value);
      const target =
        ref?.type === 'ref/resource' ? `the resource template ${name !== undefined ? q(name, 60) : ''}` : `the prompt ${name !== undefined ? q(name, 60) : ''}`;
      return [
        info(
          'completion',
          `The client asks for completions of argument ${argName ? q(argName, 40) : '(unnamed)'}${argValue ? ` starting with ${q(argValue, 40)}` : ''} of ${target.trim()}.`,
        ),
      ];
    }
    case 'tasks/get':
      return [info('tasks-get', `The requester polls the status of task ${name !== undefined ? q(name, 40) : '(no taskId)'}.`)];
    case 'tasks/result':
      return [
        info('tasks-result', `The requester asks for the final result of task ${name !== undefined ? q(name, 40) : '(no taskId)'}; the answer waits until the task is done.`),
      ];
    case 'tasks/list':
      return [info('tasks-list', `The requester lists its tasks${cursor}.`)];
    case 'tasks/cancel':
      return [info('tasks-cancel', `The requester cancels task ${name !== undefined ? q(name, 40) : '(no taskId)'}.`)];
    case 'tasks/update':
      return [info('tasks-update', `The client sends input to the running task ${name !== undefined ? q(name, 40) : '(no taskId)'}.`)];
    case 'notifications/tasks/status': {
      const status = str(p.status) ?? 'unknown';
      const msg = str(p.statusMessage);
      return [
        {
          level: status === 'failed' ? 'warn' : 'info',
          code: 'task-status',
          text: `Task ${name !== undefined ? q(name, 40) : '(no taskId)'} is now ${q(status, 20)}${msg !== undefined ? `: ${q(msg, 60)}` : ''}.`,
        },
      ];
    }
    default:
      return [];
  }
}

function hostOf(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i.exec(url);
  return m ? clip(m[1], 60) : clip(url, 60);
}

function resultHints(input: MessageHintInput, v: Obj): Hint[] {
  const r = obj(v.result);
  if (r === undefined) return [];
  const rm = input.requestMethod;

  // 2026-07-28 multi round-trip: an interim result, whatever the request was.
  if (r.resultType === 'input_required') {
    const requests = obj(r.inputRequests);
    const keys = requests ? Object.keys(requests) : [];
    const methods = [...new Set(keys.map((k) => str(obj(requests?.[k])?.method) ?? '?'))];
    return [
      info(
        'input-required',
        `The server needs more input before it can finish${keys.length ? `: ${plural(keys.length, 'request')} (${joinNames(methods, 3)})` : ''}${str(r.requestState) !== undefined ? ', plus a requestState to send back' : ''}. The client must retry the original request with the answers, under a new id.`,
      ),
    ];
  }

  // 2025-11-25 task-augmented request: a task handle instead of the result.
  const task = obj(r.task);
  if (task && str(task.taskId) !== undefined && (rm === undefined || !rm.startsWith('tasks/'))) {
    return [
      info(
        'task-created',
        `The receiver started task ${q(str(task.taskId) ?? '', 40)} (status ${q(str(task.status) ?? 'unknown', 20)}) instead of answering directly. Poll it with tasks/get and fetch the result with tasks/result.`,
      ),
    ];
  }

  switch (rm) {
    case 'initialize':
      return initializeResultHints(r, input.requestedVersion);
    case 'server/discover': {
      const versions = (arr(r.supportedVersions) ?? []).map((x) => str(x)).filter((x): x is string => x !== undefined);
      return [
        info(
          'server-discover-result',
          `The server supports protocol ${versions.length ? `versions ${joinNames(versions, 5)}` : '(no versions listed)'} and offers ${serverCapabilitiesText(r.capabilities)}.`,
        ),
      ];
    }
    case 'ping':
      return [info('ping-result', 'Ping answered: the other side is alive.')];
    case 'tools/list':
      return [listResultHint('tools-list-result', 'tool', arr(r.tools), r)];
    case 'resources/list':
      return [listResultHint('resources-list-result', 'resource', arr(r.resources), r, 'uri')];
    case 'resources/templates/list':
      return [listResultHint('resources-templates-list-result', 'resource template', arr(r.resourceTemplates), r)];
    case 'prompts/list':
      return [listResultHint('prompts-list-result', 'prompt', arr(r.prompts), r)];
    case 'tools/call': {
      const content = arr(r.content) ?? [];
      const types = [...new Set(content.map((c) => str(obj(c)?.type) ?? '?'))];
      if (r.isError === true) {
        const firstText = content.map((c) => str(obj(c)?.text)).find((t) => t !== undefined);
        return [
          warn(
            'tool-error',
            `The tool ran and reported a failure (isError: true)${firstText !== undefined ? `: ${q(firstText)}` : ''}. This is not a protocol error: the result goes back to the model so it can react.`,
          ),
        ];
      }
      return [
        info(
          'tool-result',
          `The tool returned ${plural(content.length, 'content item')}${types.length ? ` (${joinNames(types, 4)})` : ''}${r.structuredContent !== undefined ? ' and structured content' : ''}.`,
        ),
      ];
    }
    case 'resources/read': {
      const contents = arr(r.contents) ?? [];
      return [info('resources-read-result', `The server returned ${plural(contents.length, 'content item')} for the resource.`)];
    }
    case 'prompts/get': {
      const messages = arr(r.messages) ?? [];
      return [info('prompts-get-result', `The prompt expands to ${plural(messages.length, 'message')} for the model.`)];
    }
    case 'completion/complete': {
      const completion = obj(r.completion);
      const values = (arr(completion?.values) ?? []).map((x) => str(x)).filter((x): x is string => x !== undefined);
      const more = completion?.hasMore === true ? ' (more are available)' : '';
      return [info('completion-result', `${plural(values.length, 'suggestion')}${values.length ? `: ${joinNames(values, 5)}` : ''}${more}.`)];
    }
    case 'roots/list': {
      const roots = arr(r.roots) ?? [];
      const uris = namesOf(roots, 'uri');
      return [info('roots-list-result', `The client shares ${plural(roots.length, 'root')}${uris.length ? `: ${joinNames(uris, 3)}` : ''}.`)];
    }
    case 'sampling/createMessage': {
      const model = str(r.model);
      const stop = str(r.stopReason);
      return [
        info('sampling-result', `The client's LLM answered${model ? ` (model ${q(model, 40)})` : ''}${stop ? `, stop reason ${q(stop, 20)}` : ''}.`),
      ];
    }
    case 'elicitation/create': {
      const action = str(r.action);
      const content = obj(r.content);
      if (action === 'accept') {
        const fields = content ? Object.keys(content) : [];
        return [info('elicitation-result', `The user accepted${fields.length ? ` and filled in ${joinNames(fields, 4)}` : ''}.`)];
      }
      if (action === 'decline') return [info('elicitation-result', 'The user declined to provide the information.')];
      if (action === 'cancel') return [info('elicitation-result', 'The user dismissed the request without choosing.')];
      return [warn('elicitation-result', `Unexpected elicitation action ${action !== undefined ? q(action, 20) : '(missing)'}: expected accept, decline or cancel.`)];
    }
    case 'tasks/get':
    case 'tasks/cancel': {
      const id = str(r.taskId);
      const status = str(r.status) ?? 'unknown';
      const msg = str(r.statusMessage);
      return [
        {
          level: status === 'failed' ? 'warn' : 'info',
          code: 'task-status',
          text: `Task ${id !== undefined ? q(id, 40) : '(no taskId)'} is ${q(status, 20)}${msg !== undefined ? `: ${q(msg, 60)}` : ''}.`,
        },
      ];
    }
    case 'tasks/list': {
      const tasks = arr(r.tasks) ?? [];
      return [info('tasks-list-result', `${plural(tasks.length, 'task')} listed${str(r.nextCursor) !== undefined ? ', more on the next page' : ''}.`)];
    }
    case 'tasks/result':
      return [info('tasks-result-result', 'The final result of the task, shaped like the result of the request that started it.')];
    default:
      return [];
  }
}

function listResultHint(code: string, noun: string, list: unknown[] | undefined, r: Obj, key = 'name'): Hint {
  if (list === undefined) return warn(code, `The answer holds no ${noun} list.`);
  const names = namesOf(list, key);
  const more = str(r.nextCursor) !== undefined ? ' More are on the next page: the client should ask again with nextCursor.' : '';
  const head = list.length === 0 ? `The server offers no ${noun}s.` : `The server offers ${plural(list.length, noun)}: ${joinNames(names, 5)}.`;
  return info(code, head + more);
}

function initializeResultHints(r: Obj, requestedVersion: string | undefined): Hint[] {
  const version = str(r.protocolVersion);
  const who = peerText(r.serverInfo);
  const hints: Hint[] = [
    info(
      'initialize-result',
      `${who ? `Server ${who}` : 'The server'} agreed on protocol version ${version ? clip(version, 20) : '(none given)'} and offers ${serverCapabilitiesText(r.capabilities)}. The client must now send notifications/initialized.`,
    ),
  ];
  if (requestedVersion !== undefined && version !== undefined && version !== requestedVersion) {
    hints.push(
      warn(
        'version-differs',
        `The server chose protocol version ${clip(version, 20)} instead of the requested ${clip(requestedVersion, 20)}: the client must use it, or disconnect if it does not support it.`,
      ),
    );
  }
  const instructions = str(r.instructions);
  if (instructions !== undefined && instructions.length > 0) {
    hints.push(info('server-instructions', `The server sent ${instructions.length} characters of instructions meant for the model's system prompt.`));
  }
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
