/**
 * OpenAI Responses (`POST …/responses`, which Codex speaks): the request (instructions, input as a
 * string or items — messages, function calls and their outputs, reasoning — tools, tool choice,
 * limit) and the response, typed SSE events or a whole JSON `response` object. Wire format:
 * platform.openai.com/docs/api-reference/responses and …/responses-streaming; the types of the
 * `openai` SDK (resources/responses), used here as types only.
 *
 * Namespaced tools (`{type: "namespace", name: "mcp__se", tools: [...]}`, as Codex groups an MCP
 * server's tools) are flattened: each tool is named `<namespace>__<name>` (`mcp__se__echo`; a
 * namespace already ending in `__` is joined as is), and so is a `function_call` that carries a
 * `namespace`: the names offered and the names called stay the same.
 */
import type { ResponseInputItem, ResponseStreamEvent, Tool } from 'openai/resources/responses/responses';
import type { ModelApiDialect, ParsedRequest, RawEntry, ResponseParser } from './dialect.js';
import { arr, count, isObject, jsonText, partsText, quote, shapeOf, str, type JsonObject } from './json-parts.js';
import { describeUrl } from './openai-chat.js';
import { RequestBuilder } from './request-parts.js';
import { openAiUsage, ResponseBase } from './response-parts.js';

/** `…/responses` only: not `/responses/{id}` (GETs of a stored response) nor `/responses/{id}/cancel`. */
const PATH = /\/responses\/?$/;

/** A namespaced tool's flat name. */
export function namespacedName(namespace: string | undefined, name: string): string {
  if (!namespace) return name;
  return namespace.endsWith('__') ? `${namespace}${name}` : `${namespace}__${name}`;
}

type ItemType = ResponseInputItem['type'] | undefined;
type ToolType = Tool['type'];

function contentPart(part: unknown, role: RawEntry['role']): RawEntry {
  if (typeof part === 'string') return { role, kind: 'text', text: part };
  if (!isObject(part)) return { role, kind: 'other', text: jsonText(part) };
  const type = str(part.type);
  if (type === 'input_text' || type === 'output_text' || type === 'text') return { role, kind: 'text', text: str(part.text) ?? '' };
  if (type === 'refusal') return { role, kind: 'text', text: str(part.refusal) ?? '' };
  if (type === 'input_image') return { role, kind: 'image', text: describeUrl('image', str(part.image_url) ?? str(part.file_id)) };
  if (type === 'input_file')
    return { role, kind: 'document', text: `[file ${str(part.filename) ?? str(part.file_id) ?? str(part.file_url) ?? ''}]` };
  return { role, kind: 'other', text: jsonText(part) };
}

/** A function_call_output's output: a string, or content parts (text joined, the rest described). */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  const parts = arr(output);
  if (!parts) return jsonText(output);
  return parts.map((p) => contentPart(p, 'tool').text).join('\n');
}

function reasoningText(item: JsonObject): string {
  const summary = partsText(item.summary, '\n\n');
  const content = partsText(item.content, '\n\n');
  return [summary, content].filter((t) => t).join('\n\n') || '[reasoning]';
}

function addItem(item: unknown, req: RequestBuilder, names: Map<string, string>): void {
  if (!isObject(item)) {
    req.note(`an input item is ${shapeOf(item)}, not an object`);
    return;
  }
  const type = str(item.type) as ItemType;
  if (type === 'message' || (type === undefined && typeof item.role === 'string')) {
    const role = str(item.role);
    const r: RawEntry['role'] = role === 'system' || role === 'developer' || role === 'assistant' ? role : 'user';
    const content = item.content;
    const entries =
      typeof content === 'string'
        ? [{ role: r, kind: 'text' as const, text: content }]
        : (arr(content) ?? []).map((p) => contentPart(p, r));
    if (r === 'system' || r === 'developer') req.system(entries.map((e) => e.text).join('\n'));
    for (const e of entries) req.add(e);
    return;
  }
  if (type === 'function_call' || type === 'custom_tool_call') {
    const name = namespacedName(str(item.namespace), str(item.name) ?? '');
    const entry: RawEntry = { role: 'assistant', kind: 'tool-use', text: str(item.arguments) ?? str(item.input) ?? '', name };
    const id = str(item.call_id);
    if (id !== undefined) {
      entry.callId = id;
      names.set(id, name);
    }
    req.add(entry);
    return;
  }
  if (type === 'function_call_output' || type === 'custom_tool_call_output') {
    const entry: RawEntry = { role: 'tool', kind: 'tool-result', text: outputText(item.output) };
    const id = str(item.call_id);
    if (id !== undefined) {
      entry.callId = id;
      const name = names.get(id);
      if (name !== undefined) entry.name = name;
    } else req.note(`a ${type} item has no call_id`);
    req.add(entry);
    return;
  }
  if (type === 'reasoning') {
    req.add({ role: 'assistant', kind: 'thinking', text: reasoningText(item) });
    return;
  }
  // local_shell_call, web_search_call, item_reference, compaction, … kept whole.
  req.add({ role: typeof item.output === 'undefined' ? 'assistant' : 'tool', kind: 'other', text: jsonText(item) });
}

function addTool(tool: unknown, req: RequestBuilder, namespace?: string): void {
  if (!isObject(tool)) return;
  const type = str(tool.type) as ToolType | undefined;
  if (type === 'function') {
    req.tool(namespacedName(namespace, str(tool.name) ?? ''), tool.description, tool.parameters ?? {});
  } else if (type === 'custom') {
    req.tool(namespacedName(namespace, str(tool.name) ?? ''), tool.description, tool.format ?? { type: 'custom' });
  } else if (type === 'namespace' && namespace === undefined) {
    for (const inner of arr(tool.tools) ?? []) addTool(inner, req, str(tool.name) ?? '');
  } else {
    // A built-in tool (web_search, file_search, local_shell, mcp, …): named by its type, its definition its schema.
    const { description: _d, ...rest } = tool;
    req.tool(str(tool.name) ?? str(tool.server_label) ?? type ?? '', tool.description, rest);
  }
}

function toolChoiceOf(choice: unknown): string | undefined {
  if (typeof choice === 'string') return choice;
  if (!isObject(choice)) return undefined;
  if (choice.type === 'function' || choice.type === 'custom')
    return `tool:${namespacedName(str(choice.namespace), str(choice.name) ?? '')}`;
  if (choice.type === 'mcp') return `tool:${str(choice.server_label) ?? ''}${choice.name ? `:${str(choice.name)}` : ''}`;
  if (choice.type === 'allowed_tools') return `allowed_tools:${str(choice.mode) ?? ''}`;
  const type = str(choice.type);
  return type === undefined ? undefined : `tool:${type}`;
}

function parseRequest(body: unknown): ParsedRequest {
  const req = new RequestBuilder();
  const b: JsonObject = isObject(body) ? body : {};
  if (!isObject(body)) req.note(`the request body is ${shapeOf(body)}, not an object`);
  const instructions = str(b.instructions);
  if (instructions !== undefined) req.system(instructions);
  const names = new Map<string, string>();
  if (typeof b.input === 'string') {
    req.startMessage();
    req.add({ role: 'user', kind: 'text', text: b.input });
  } else if (Array.isArray(b.input)) {
    for (const item of b.input) {
      req.startMessage();
      addItem(item, req, names);
    }
  } else if (b.input !== undefined) req.note(`input is ${shapeOf(b.input)}`);
  if (typeof b.previous_response_id === 'string') {
    req.note('the request continues a stored response (previous_response_id): the earlier conversation is not in it');
  }
  for (const tool of arr(b.tools) ?? []) addTool(tool, req);
  return req.build({
    model: str(b.model),
    stream: b.stream === true,
    toolChoice: toolChoiceOf(b.tool_choice),
    maxTokens: count(b.max_output_tokens),
  });
}

type EventType = ResponseStreamEvent['type'];

/** Events that carry nothing this parser keeps (their content comes in the events it reads). */
const QUIET = new Set<string>([
  'response.queued',
  'response.in_progress',
  'response.content_part.added',
  'response.content_part.done',
  'response.output_text.annotation.added',
  'response.reasoning_summary_part.added',
  'response.reasoning_summary_part.done',
  'response.reasoning_summary_text.done',
  'response.reasoning_text.done',
  'response.refusal.done',
  'response.custom_tool_call_input.done',
] satisfies EventType[]);
/** Built-in tools' progress events (web_search_call.searching, mcp_call.completed, …): their items come as output items. */
const QUIET_PREFIX =
  /^response\.(web_search_call|file_search_call|code_interpreter_call|image_generation_call|mcp_call|mcp_list_tools|mcp_call_arguments|audio|code_interpreter_call_code)\./;

class ResponsesResponse extends ResponseBase {
  protected readonly endName = 'response.completed';
  /** output_index → the key of its block (item id, else `out:<index>`). */
  private readonly byIndex = new Map<number, string>();

  private setUsage(u: unknown): void {
    if (!isObject(u)) return;
    this.usage = openAiUsage(u.input_tokens, u.output_tokens, u.input_tokens_details, u.output_tokens_details);
  }

  private setError(e: unknown): void {
    const err = isObject(e) ? e : {};
    const code = str(err.code) ?? str(err.type) ?? 'error';
    this.error = `${code}: ${str(err.message) ?? jsonText(e)}`;
  }

  /** A response object (in response.created / .completed / .incomplete / .failed, or a whole body). */
  private readResponse(r: unknown, final: boolean): void {
    if (!isObject(r)) return;
    const model = str(r.model);
    if (model !== undefined) this.model = model;
    this.setUsage(r.usage);
    if (!final) return;
    const status = str(r.status);
    const reason = isObject(r.incomplete_details) ? str(r.incomplete_details.reason) : undefined;
    const stop = reason ?? status;
    if (stop !== undefined) this.stopReason = stop;
    if (isObject(r.error)) this.setError(r.error);
  }

  private keyOf(itemId: unknown, outputIndex: unknown): string | undefined {
    const id = str(itemId);
    if (id !== undefined && this.has(id)) return id;
    const index = count(outputIndex);
    return index === undefined ? id : this.byIndex.get(index);
  }

  /** An output item opened (streaming) — or, when `whole`, an item of a finished response. */
  private item(item: unknown, outputIndex: unknown, whole: boolean): boolean {
    if (!isObject(item)) return false;
    const type = str(item.type);
    const index = count(outputIndex);
    const key = str(item.id) ?? `out:${index ?? this.byIndex.size}`;
    if (index !== undefined) this.byIndex.set(index, key);
    if (type === 'function_call') {
      const init = {
        kind: 'tool-use' as const,
        callId: str(item.call_id) ?? '',
        name: namespacedName(str(item.namespace), str(item.name) ?? ''),
      };
      if (whole) this.whole(init, str(item.arguments) ?? '');
      else {
        this.open(key, init);
        this.append(key, str(item.arguments) ?? '');
      }
      return true;
    }
    if (type === 'message') {
      if (!whole) return false;
      for (const part of arr(item.content) ?? []) {
        const e = contentPart(part, 'assistant');
        this.whole({ kind: e.kind }, e.text);
      }
      return false;
    }
    if (type === 'reasoning') {
      if (whole) this.whole({ kind: 'thinking' }, reasoningText(item));
      else this.open(key, { kind: 'thinking' });
      return false;
    }
    // custom_tool_call (free-form input, no JSON), web_search_call, local_shell_call, mcp_call, …
    const init = { kind: 'other' as const, name: str(item.name) ?? type, initial: jsonText(item) };
    if (whole) this.whole(init, jsonText(item));
    else this.open(key, init);
    return false;
  }

  /** A text delta into the item's text block (a message can have several content parts: one block per item). */
  private textDelta(prefix: string, kind: RawEntry['kind'], itemId: unknown, outputIndex: unknown, delta: unknown): boolean {
    const fragment = str(delta);
    if (fragment === undefined || fragment === '') return false;
    const item = this.keyOf(itemId, outputIndex) ?? `out:${count(outputIndex) ?? 0}`;
    const key = kind === 'thinking' && this.kindOf(item) === 'thinking' && this.has(item) ? item : `${prefix}:${item}`;
    if (!this.has(key)) this.open(key, { kind });
    this.append(key, fragment);
    return true;
  }

  event(eventType: string | undefined, data: string): boolean {
    const value = this.eventObject(eventType, data);
    if (!value) return false;
    const type = str(value.type) ?? eventType ?? '';
    let content = false;
    switch (type as EventType) {
      case 'response.created':
        this.readResponse(value.response, false);
        break;
      case 'response.output_item.added':
        content = this.item(value.item, value.output_index, false);
        break;
      case 'response.output_text.delta':
        content = this.textDelta('text', 'text', value.item_id, value.output_index, value.delta);
        break;
      case 'response.refusal.delta':
        content = this.textDelta('text', 'text', value.item_id, value.output_index, value.delta);
        break;
      case 'response.output_text.done': {
        const key = `text:${this.keyOf(value.item_id, value.output_index) ?? ''}`;
        if (typeof value.text === 'string' && this.has(key)) this.replace(key, value.text);
        break;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        content = this.textDelta('reasoning', 'thinking', value.item_id, value.output_index, value.delta);
        break;
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta': {
        const key = this.keyOf(value.item_id, value.output_index);
        if (key === undefined || !this.append(key, str(value.delta) ?? '')) {
          this.note(`a ${type} for an item no response.output_item.added opened was ignored`);
        }
        break;
      }
      case 'response.function_call_arguments.done': {
        const key = this.keyOf(value.item_id, value.output_index);
        if (key !== undefined && this.has(key)) {
          if (typeof value.arguments === 'string') this.replace(key, value.arguments);
          this.close(key);
        }
        break;
      }
      case 'response.output_item.done': {
        const item = isObject(value.item) ? value.item : {};
        const key = this.keyOf(item.id, value.output_index);
        const keys = key === undefined ? [] : [key, `text:${key}`, `reasoning:${key}`];
        if (!keys.some((k) => this.kindOf(k) !== undefined)) {
          // An item no output_item.added opened (or a message whose text came in no delta): taken whole.
          this.item(item, undefined, true);
          break;
        }
        if (key !== undefined && this.has(key)) {
          if (item.type === 'function_call' && typeof item.arguments === 'string') this.replace(key, item.arguments);
          if (item.type === 'reasoning' && this.isEmpty(key)) {
            const text = reasoningText(item);
            if (text !== '[reasoning]') this.replace(key, text);
          }
        }
        for (const k of keys) this.close(k);
        break;
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.readResponse(value.response, true);
        this.closeAll();
        this.complete = true;
        break;
      case 'error':
        this.setError(isObject(value.error) ? value.error : value);
        break;
      default:
        if (!QUIET.has(type) && !QUIET_PREFIX.test(type)) this.note(`an event of unknown type ${quote(type)} was ignored`);
    }
    return content && this.content();
  }

  json(value: unknown): void {
    const body = this.bodyObject(value);
    if (!body) return;
    if (body.output === undefined && isObject(body.error)) {
      this.setError(body.error);
      return;
    }
    const output = arr(body.output);
    if (!output) {
      this.note('the response body is neither a response nor an error');
      return;
    }
    this.readResponse(body, true);
    for (const item of output) this.item(item, undefined, true);
    this.complete = true;
  }
}

function matchesBody(body: unknown): boolean {
  if (!isObject(body) || typeof body.model !== 'string' || body.messages !== undefined) return false;
  if (typeof body.input === 'string') return true;
  return (
    Array.isArray(body.input) &&
    body.input.every((item) => isObject(item) && (typeof item.type === 'string' || typeof item.role === 'string'))
  );
}

export const openaiResponses: ModelApiDialect = {
  api: 'openai-responses',
  matchesPath: (path) => PATH.test(path),
  matchesBody,
  parseRequest: (body) => parseRequest(body),
  newResponse: (): ResponseParser => new ResponsesResponse(),
};
