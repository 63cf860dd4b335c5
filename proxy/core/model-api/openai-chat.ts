/**
 * OpenAI Chat Completions (`POST …/chat/completions`; also what LiteLLM, Ollama, vLLM and most
 * gateways speak): the request (messages of every role, tools and the legacy `functions`, tool
 * choice, limits) and the response, `data:` chunks ending in `[DONE]` or a whole JSON body.
 * Wire format: platform.openai.com/docs/api-reference/chat (create, the chunk object); the types
 * of the `openai` SDK, used here as types only. Reasoning text comes as `reasoning_content`
 * (DeepSeek, vLLM) or `reasoning` (Ollama, OpenRouter): both are read as thinking.
 */
import type { ChatCompletionChunk, ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import type { ModelApiDialect, ParsedRequest, RawEntry, ResponseParser } from './dialect.js';
import { arr, count, isObject, jsonText, quote, shapeOf, str, type JsonObject } from './json-parts.js';
import { RequestBuilder } from './request-parts.js';
import { openAiUsage, ResponseBase } from './response-parts.js';

const PATH = /\/chat\/completions\/?$/;
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

type Role = ChatCompletionCreateParams['messages'][number]['role'];

/** A content part's text: text and refusals as they are, images, audio and files described. */
function partEntry(part: unknown, role: RawEntry['role']): RawEntry {
  if (typeof part === 'string') return { role, kind: 'text', text: part };
  if (!isObject(part)) return { role, kind: 'other', text: jsonText(part) };
  const type = str(part.type);
  if (type === 'text') return { role, kind: 'text', text: str(part.text) ?? '' };
  if (type === 'refusal') return { role, kind: 'text', text: str(part.refusal) ?? '' };
  if (type === 'image_url') {
    const url = isObject(part.image_url) ? str(part.image_url.url) : str(part.image_url);
    return { role, kind: 'image', text: describeUrl('image', url) };
  }
  if (type === 'file') {
    const file = isObject(part.file) ? part.file : {};
    const name = str(file.filename) ?? str(file.file_id) ?? '';
    return {
      role,
      kind: 'document',
      text: `[file ${name}${typeof file.file_data === 'string' ? `, ${file.file_data.length} characters` : ''}]`,
    };
  }
  if (type === 'input_audio') return { role, kind: 'other', text: '[audio]' };
  return { role, kind: 'other', text: jsonText(part) };
}

/** A URL as transcript text: a `data:` URL by its media type and size, not its base64. */
export function describeUrl(kind: string, url: string | undefined): string {
  if (url === undefined) return `[${kind}]`;
  if (url.startsWith('data:')) {
    const comma = url.indexOf(',');
    const head = url.slice(5, comma < 0 ? Math.min(url.length, 64) : Math.min(comma, 64));
    return `[${kind} ${head}, ${url.length} characters]`;
  }
  return `[${kind} ${url}]`;
}

function contentEntries(content: unknown, role: RawEntry['role'], req: RequestBuilder): RawEntry[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ role, kind: 'text', text: content }];
  const parts = arr(content);
  if (!parts) {
    req.note(`a ${role} message's content is ${shapeOf(content)}`);
    return [];
  }
  return parts.map((p) => partEntry(p, role));
}

/** The text of a system/developer/tool content (a string or text parts, joined). */
function plainText(entries: RawEntry[]): string {
  return entries.map((e) => e.text).join('\n');
}

function toolChoiceOf(choice: unknown, legacy: unknown): string | undefined {
  const c = choice ?? legacy;
  if (typeof c === 'string') return c;
  if (!isObject(c)) return undefined;
  if (isObject(c.function)) return `tool:${str(c.function.name) ?? ''}`;
  if (typeof c.name === 'string') return `tool:${c.name}`; // legacy function_call: {name}
  if (isObject(c.custom)) return `tool:${str(c.custom.name) ?? ''}`;
  return str(c.type);
}

/** What a parsed request must also tell its response parser. */
const includesUsage = new WeakMap<ParsedRequest, boolean>();

function parseRequest(body: unknown): ParsedRequest {
  const req = new RequestBuilder();
  const b: JsonObject = isObject(body) ? body : {};
  if (!isObject(body)) req.note(`the request body is ${shapeOf(body)}, not an object`);
  const names = new Map<string, string>();
  const messages = arr(b.messages) ?? [];
  if (!Array.isArray(b.messages)) req.note('the request has no messages list');
  for (const message of messages) {
    req.startMessage();
    if (!isObject(message)) {
      req.note(`a message is ${shapeOf(message)}, not an object`);
      continue;
    }
    const role = str(message.role) as Role | undefined;
    if (role === 'system' || role === 'developer') {
      const entries = contentEntries(message.content, role, req);
      req.system(plainText(entries));
      for (const e of entries) req.add(e);
    } else if (role === 'user') {
      for (const e of contentEntries(message.content, 'user', req)) req.add(e);
    } else if (role === 'assistant') {
      const reasoning = str(message.reasoning_content) ?? str(message.reasoning);
      if (reasoning) req.add({ role: 'assistant', kind: 'thinking', text: reasoning });
      for (const e of contentEntries(message.content, 'assistant', req)) req.add(e);
      if (typeof message.refusal === 'string') req.add({ role: 'assistant', kind: 'text', text: message.refusal });
      for (const call of arr(message.tool_calls) ?? []) {
        if (!isObject(call)) continue;
        const fn = isObject(call.function) ? call.function : isObject(call.custom) ? call.custom : {};
        const entry: RawEntry = { role: 'assistant', kind: 'tool-use', text: str(fn.arguments) ?? str(fn.input) ?? jsonText(fn.arguments) };
        const id = str(call.id);
        const name = str(fn.name);
        if (id !== undefined) entry.callId = id;
        if (name !== undefined) entry.name = name;
        if (id !== undefined && name !== undefined) names.set(id, name);
        req.add(entry);
      }
      if (isObject(message.function_call)) {
        const name = str(message.function_call.name);
        const entry: RawEntry = { role: 'assistant', kind: 'tool-use', text: str(message.function_call.arguments) ?? '' };
        if (name !== undefined) entry.name = name;
        req.add(entry);
      }
    } else if (role === 'tool') {
      const entry: RawEntry = { role: 'tool', kind: 'tool-result', text: plainText(contentEntries(message.content, 'tool', req)) };
      const id = str(message.tool_call_id);
      if (id !== undefined) {
        entry.callId = id;
        const name = names.get(id);
        if (name !== undefined) entry.name = name;
      } else req.note('a tool message has no tool_call_id');
      req.add(entry);
    } else if (role === 'function') {
      // The legacy function result: joined by name, it has no call id.
      const entry: RawEntry = { role: 'tool', kind: 'tool-result', text: plainText(contentEntries(message.content, 'tool', req)) };
      const name = str(message.name);
      if (name !== undefined) entry.name = name;
      req.add(entry);
    } else {
      req.note(`a message of unknown role ${quote(message.role)} was left out`);
    }
  }

  for (const tool of arr(b.tools) ?? []) {
    if (!isObject(tool)) continue;
    if (isObject(tool.function)) {
      req.tool(str(tool.function.name) ?? '', tool.function.description, tool.function.parameters ?? {});
    } else if (isObject(tool.custom)) {
      req.tool(str(tool.custom.name) ?? '', tool.custom.description, tool.custom.format ?? { type: 'custom' });
    } else req.tool(str(tool.type) ?? '', undefined, tool);
  }
  for (const fn of arr(b.functions) ?? []) {
    if (isObject(fn)) req.tool(str(fn.name) ?? '', fn.description, fn.parameters ?? {});
  }

  const request = req.build({
    model: str(b.model),
    stream: b.stream === true,
    toolChoice: toolChoiceOf(b.tool_choice, b.function_call),
    maxTokens: count(b.max_completion_tokens) ?? count(b.max_tokens),
  });
  includesUsage.set(request, isObject(b.stream_options) && b.stream_options.include_usage === true);
  return request;
}

type Chunk = Partial<ChatCompletionChunk>;

class ChatResponse extends ResponseBase {
  protected readonly endName = 'data: [DONE]';
  private finished = false;

  constructor(private readonly wantsUsage: boolean) {
    super();
  }

  private setUsage(u: unknown): void {
    if (!isObject(u)) return;
    this.usage = openAiUsage(u.prompt_tokens, u.completion_tokens, u.prompt_tokens_details, u.completion_tokens_details);
  }

  private setError(e: unknown): void {
    const err = isObject(e) ? e : {};
    const type = str(err.type) ?? (err.code !== undefined && err.code !== null ? String(err.code) : 'error');
    this.error = `${type}: ${str(err.message) ?? jsonText(e)}`;
  }

  event(_eventType: string | undefined, data: string): boolean {
    if (data.trim() === '[DONE]') {
      this.closeAll();
      this.complete = true;
      return false;
    }
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      this.note('an event whose data is not JSON was ignored');
      return false;
    }
    if (!isObject(value)) {
      this.note(`an event's data is ${shapeOf(value)}, not an object`);
      return false;
    }
    if (value.error !== undefined && value.choices === undefined) {
      this.setError(value.error);
      return false;
    }
    const chunk = value as Chunk & JsonObject;
    if (typeof chunk.model === 'string' && this.model === undefined) this.model = chunk.model;
    if (chunk.usage) this.setUsage(chunk.usage);
    let first = false;
    for (const choice of arr(chunk.choices) ?? []) {
      if (!isObject(choice)) continue;
      if ((count(choice.index) ?? 0) !== 0) {
        this.note('choices other than the first (n > 1) were left out');
        continue;
      }
      if (this.delta(isObject(choice.delta) ? choice.delta : {})) first = true;
      const finish = str(choice.finish_reason);
      if (finish !== undefined) {
        this.stopReason = finish;
        this.closeAll();
        this.finished = true;
      }
    }
    if (this.finished && !this.wantsUsage) this.complete = true;
    if (this.finished && this.wantsUsage && chunk.usage) this.complete = true;
    return first && this.content();
  }

  /** One choice's delta; true when it carried content. */
  private delta(delta: JsonObject): boolean {
    let content = false;
    const texts: [string, RawEntry['kind'], unknown][] = [
      ['reasoning', 'thinking', delta.reasoning_content ?? delta.reasoning],
      ['content', 'text', delta.content],
      ['refusal', 'text', delta.refusal],
    ];
    for (const [key, kind, fragment] of texts) {
      if (typeof fragment !== 'string' || fragment === '') continue;
      if (!this.has(key)) this.open(key, { kind });
      this.append(key, fragment);
      content = true;
    }
    for (const call of arr(delta.tool_calls) ?? []) {
      if (!isObject(call)) continue;
      const key = `tool:${count(call.index) ?? 0}`;
      const fn = isObject(call.function) ? call.function : {};
      if (!this.has(key)) {
        this.open(key, { kind: 'tool-use', callId: str(call.id) ?? '', name: str(fn.name) ?? '' });
        content = true;
      } else this.identify(key, str(call.id), str(fn.name));
      const fragment = str(fn.arguments);
      if (fragment !== undefined) this.append(key, fragment);
    }
    if (isObject(delta.function_call)) {
      const fn = delta.function_call;
      if (!this.has('function_call')) {
        this.open('function_call', { kind: 'tool-use', callId: '', name: str(fn.name) ?? '' });
        content = true;
      } else this.identify('function_call', undefined, str(fn.name));
      const fragment = str(fn.arguments);
      if (fragment !== undefined) this.append('function_call', fragment);
    }
    return content;
  }

  json(value: unknown): void {
    const body = this.bodyObject(value);
    if (!body) return;
    if (body.error !== undefined && body.choices === undefined) {
      this.setError(body.error);
      return;
    }
    const choices = arr(body.choices);
    if (!choices) {
      this.note('the response body is neither a chat completion nor an error');
      return;
    }
    if (typeof body.model === 'string') this.model = body.model;
    this.setUsage(body.usage);
    const choice = choices.find((c) => isObject(c) && (count(c.index) ?? 0) === 0);
    if (isObject(choice)) {
      const finish = str(choice.finish_reason);
      if (finish !== undefined) this.stopReason = finish;
      const message = isObject(choice.message) ? choice.message : {};
      const reasoning = str(message.reasoning_content) ?? str(message.reasoning);
      if (reasoning) this.whole({ kind: 'thinking' }, reasoning);
      if (typeof message.content === 'string' && message.content !== '') this.whole({ kind: 'text' }, message.content);
      else if (Array.isArray(message.content)) {
        for (const part of message.content) {
          const e = partEntry(part, 'assistant');
          this.whole({ kind: e.kind }, e.text);
        }
      }
      if (typeof message.refusal === 'string') this.whole({ kind: 'text' }, message.refusal);
      for (const call of arr(message.tool_calls) ?? []) {
        if (!isObject(call)) continue;
        const fn = isObject(call.function) ? call.function : {};
        this.whole({ kind: 'tool-use', callId: str(call.id) ?? '', name: str(fn.name) ?? '' }, str(fn.arguments) ?? jsonText(fn.arguments));
      }
      if (isObject(message.function_call)) {
        const fn = message.function_call;
        this.whole({ kind: 'tool-use', callId: '', name: str(fn.name) ?? '' }, str(fn.arguments) ?? '');
      }
    }
    this.complete = true;
  }
}

function matchesBody(body: unknown): boolean {
  if (!isObject(body) || typeof body.model !== 'string' || !Array.isArray(body.messages)) return false;
  return body.messages.every((m) => isObject(m) && typeof m.role === 'string' && ROLES.has(m.role));
}

export const openaiChat: ModelApiDialect = {
  api: 'openai-chat',
  matchesPath: (path) => PATH.test(path),
  matchesBody,
  parseRequest: (body) => parseRequest(body),
  newResponse: (request): ResponseParser => new ChatResponse(includesUsage.get(request) === true),
};
