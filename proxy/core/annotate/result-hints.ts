/**
 * Hints for results by the method of the request they answer: what the server gave back, in plain
 * words. Pure and I/O-free.
 */
import type { Hint } from '../model/events.js';
import type { MessageHintInput } from './message-hints.js';
import { obj, str, arr, clip, q, plural, joinNames, serverCapabilitiesText, peerText, namesOf, info, warn, type Obj } from './hint-text.js';

export function resultHints(input: MessageHintInput, v: Obj): Hint[] {
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
      return [
        info('completion-result', `${plural(values.length, 'suggestion')}${values.length ? `: ${joinNames(values, 5)}` : ''}${more}.`),
      ];
    }
    case 'roots/list': {
      const roots = arr(r.roots) ?? [];
      const uris = namesOf(roots, 'uri');
      return [
        info('roots-list-result', `The client shares ${plural(roots.length, 'root')}${uris.length ? `: ${joinNames(uris, 3)}` : ''}.`),
      ];
    }
    case 'sampling/createMessage': {
      const model = str(r.model);
      const stop = str(r.stopReason);
      return [
        info(
          'sampling-result',
          `The client's LLM answered${model ? ` (model ${q(model, 40)})` : ''}${stop ? `, stop reason ${q(stop, 20)}` : ''}.`,
        ),
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
      return [
        warn(
          'elicitation-result',
          `Unexpected elicitation action ${action !== undefined ? q(action, 20) : '(missing)'}: expected accept, decline or cancel.`,
        ),
      ];
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
      return [
        info(
          'tasks-list-result',
          `${plural(tasks.length, 'task')} listed${str(r.nextCursor) !== undefined ? ', more on the next page' : ''}.`,
        ),
      ];
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
  const head =
    list.length === 0 ? `The server offers no ${noun}s.` : `The server offers ${plural(list.length, noun)}: ${joinNames(names, 5)}.`;
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
    hints.push(
      info('server-instructions', `The server sent ${instructions.length} characters of instructions meant for the model's system prompt.`),
    );
  }
  return hints;
}
