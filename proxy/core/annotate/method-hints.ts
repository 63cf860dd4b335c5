/**
 * Hints for requests and notifications by method: what each MCP method asks for, in plain words
 * (proxy/core/annotate/message-hints.ts adds the hints every call gets). Pure and I/O-free.
 */
import type { Hint } from '../model/events.js';
import { messageName, progressNotificationTokenOf, progressOf } from '../parse/mcp-fields.js';
import {
  obj,
  str,
  num,
  arr,
  clip,
  q,
  plural,
  joinNames,
  idText,
  snippet,
  clientCapabilitiesText,
  peerText,
  info,
  warn,
  type Obj,
  hostOf,
} from './hint-text.js';

export function methodHints(method: string, p: Obj): Hint[] {
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
      if (version === undefined)
        hints.push(
          warn('initialize-no-version', 'The initialize request has no protocolVersion, so the server cannot negotiate a version.'),
        );
      return hints;
    }
    case 'notifications/initialized':
      return [info('initialized', 'The client confirms the handshake is complete: normal requests can start now.')];
    case 'ping':
      return [info('ping', 'A liveness check: the receiver must answer promptly with an empty result.')];
    case 'server/discover':
      return [
        info(
          'server-discover',
          'The client asks which protocol versions and capabilities the server supports (stateless protocol 2026-07-28, no initialize).',
        ),
      ];
    case 'subscriptions/listen': {
      const wanted = subscribedNotifications(p);
      return [
        info(
          'subscriptions-listen',
          `The client opens a long-lived stream for change notifications${wanted.length ? ` (${joinNames(wanted, 4)})` : ''}; it stays open until the client closes it.`,
        ),
      ];
    }
    case 'notifications/subscriptions/acknowledged': {
      const granted = subscribedNotifications(p);
      return [
        info(
          'subscriptions-acknowledged',
          `The server confirms the subscription stream${granted.length ? ` and will send ${joinNames(granted, 4)}` : ''}.`,
        ),
      ];
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
      return [
        info(
          'resources-unsubscribe',
          `The client no longer wants change notifications for ${name !== undefined ? q(name) : 'the resource'}.`,
        ),
      ];
    case 'notifications/resources/updated':
      return [
        info(
          'resource-updated',
          `The resource ${name !== undefined ? q(name) : '(no uri given)'} changed: the client may read it again with resources/read.`,
        ),
      ];
    case 'notifications/tools/list_changed':
      return [info('list-changed', "The server's list of tools changed: the client should re-fetch it with tools/list.")];
    case 'notifications/prompts/list_changed':
      return [info('list-changed', "The server's list of prompts changed: the client should re-fetch it with prompts/list.")];
    case 'notifications/resources/list_changed':
      return [info('list-changed', "The server's list of resources changed: the client should re-fetch it with resources/list.")];
    case 'notifications/roots/list_changed':
      return [info('list-changed', "The client's list of roots changed: the server should ask again with roots/list.")];
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
        info(
          'progress',
          `${amount} for token ${token !== undefined ? idText(token) : '(missing)'}${pr.message !== undefined ? `: ${q(pr.message)}` : ''}.`,
        ),
      ];
      if (token === undefined)
        hints.push(warn('progress-without-token', 'The progress notification has no progressToken, so it cannot be matched to a request.'));
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
      return [
        info('elicitation-complete', 'The server reports that the user finished the URL interaction: the client may retry what needed it.'),
      ];
    case 'roots/list':
      return [info('roots-list', 'The server asks the client which filesystem roots (folders) it may work in.')];
    case 'completion/complete': {
      const ref = obj(p.ref);
      const argument = obj(p.argument);
      const argName = str(argument?.name);
      const argValue = str(argument?.value);
      const target =
        ref?.type === 'ref/resource'
          ? `the resource template ${name !== undefined ? q(name, 60) : ''}`
          : `the prompt ${name !== undefined ? q(name, 60) : ''}`;
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
        info(
          'tasks-result',
          `The requester asks for the final result of task ${name !== undefined ? q(name, 40) : '(no taskId)'}; the answer waits until the task is done.`,
        ),
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

/** The notification kinds a subscriptions filter (`params.notifications`) turns on: every key not `false`. */
function subscribedNotifications(p: Obj): string[] {
  const filter = obj(p.notifications);
  return filter ? Object.keys(filter).filter((k) => filter[k] !== false && filter[k] !== undefined) : [];
}
