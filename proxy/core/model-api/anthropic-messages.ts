/**
 * Anthropic Messages (`POST …/v1/messages`, `?beta=true` too): the request (system, messages of
 * content blocks, tools, tool choice) and the response, an SSE stream of typed events or a whole
 * JSON message. Wire format: docs.anthropic.com "Messages" and "Streaming messages"; the types of
 * `@anthropic-ai/sdk` (resources/messages), used here as types only.
 */
import type { ContentBlockParam, RawContentBlockDelta, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelApiDialect, ParsedRequest, RawEntry, ResponseParser } from './dialect.js';
import { arr, count, isObject, jsonText, partsText, quote, shapeOf, str, type JsonObject } from './json-parts.js';
import { RequestBuilder } from './request-parts.js';
import { ResponseBase, usageOf } from './response-parts.js';

/** Not `/v1/messages/count_tokens` nor `/v1/messages/batches`: those end otherwise. */
const PATH = /\/v1\/messages\/?$/;

/** A short stand-in for an image's or document's bytes (the base64 itself is no transcript text). */
export function sourceText(kind: string, block: JsonObject): string {
  const source = isObject(block.source) ? block.source : {};
  const media = str(source.media_type) ?? '';
  const type = str(source.type) ?? 'unknown';
  if (type === 'text' && typeof source.data === 'string') return source.data;
  if (type === 'url' && typeof source.url === 'string') return `[${kind} ${source.url}]`;
  if (type === 'base64' && typeof source.data === 'string') {
    return `[${kind}${media ? ` ${media}` : ''}, ${source.data.length} base64 characters]`;
  }
  if (type === 'content') return partsText(source.content) ?? `[${kind}]`;
  return `[${kind}${media ? ` ${media}` : ''} (${type} source)]`;
}

type BlockType = ContentBlockParam['type'];

function blockEntry(block: unknown, role: RawEntry['role'], names: Map<string, string>, req: RequestBuilder): RawEntry {
  if (!isObject(block)) {
    req.note(`a content block is ${shapeOf(block)}, not an object`);
    return { role, kind: 'other', text: jsonText(block) };
  }
  const type = str(block.type) as BlockType | undefined;
  switch (type) {
    case 'text':
      return { role, kind: 'text', text: str(block.text) ?? '' };
    case 'thinking':
      return { role, kind: 'thinking', text: str(block.thinking) ?? '' };
    case 'redacted_thinking':
      return { role, kind: 'thinking', text: '[redacted thinking]' };
    case 'image':
      return { role, kind: 'image', text: sourceText('image', block) };
    case 'document':
      return { role, kind: 'document', text: sourceText('document', block) };
    case 'tool_use': {
      const entry: RawEntry = { role, kind: 'tool-use', text: jsonText(block.input ?? {}) };
      const id = str(block.id);
      const name = str(block.name);
      if (id !== undefined) entry.callId = id;
      if (name !== undefined) entry.name = name;
      if (id !== undefined && name !== undefined) names.set(id, name);
      return entry;
    }
    case 'tool_result': {
      const id = str(block.tool_use_id);
      const content = block.content;
      const entry: RawEntry = { role: 'tool', kind: 'tool-result', text: toolResultText(content) };
      if (id !== undefined) {
        entry.callId = id;
        const name = names.get(id);
        if (name !== undefined) entry.name = name;
      } else req.note('a tool_result block has no tool_use_id');
      if (block.is_error === true) entry.isError = true;
      return entry;
    }
    default:
      // server_tool_use, web_search_tool_result, search_result, container_upload, … kept whole.
      return { role, kind: 'other', text: jsonText(block) };
  }
}

/** A tool result's content: a string, or blocks (text joined; images and documents described). */
function toolResultText(content: unknown): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  const blocks = arr(content);
  if (!blocks) return jsonText(content);
  const texts: string[] = [];
  for (const block of blocks) {
    if (!isObject(block)) continue;
    if (typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'image' || block.type === 'document') texts.push(sourceText(block.type, block));
    else texts.push(jsonText(block));
  }
  return texts.join('\n');
}

function toolChoiceOf(choice: unknown): string | undefined {
  if (!isObject(choice)) return undefined;
  const type = str(choice.type);
  if (type === 'tool') return `tool:${str(choice.name) ?? ''}`;
  return type;
}

function parseRequest(body: unknown): ParsedRequest {
  const req = new RequestBuilder();
  const b = isObject(body) ? body : {};
  if (!isObject(body)) req.note(`the request body is ${shapeOf(body)}, not an object`);
  const system = b.system;
  if (typeof system === 'string') req.system(system);
  else if (Array.isArray(system)) for (const part of system) req.system(partsText([part]) ?? '');
  else if (system !== undefined) req.note(`system is ${shapeOf(system)}`);

  const names = new Map<string, string>();
  const messages = arr(b.messages) ?? [];
  if (!Array.isArray(b.messages)) req.note('the request has no messages list');
  for (const message of messages) {
    req.startMessage();
    if (!isObject(message)) {
      req.note(`a message is ${shapeOf(message)}, not an object`);
      continue;
    }
    const role: RawEntry['role'] = message.role === 'assistant' ? 'assistant' : message.role === 'system' ? 'system' : 'user';
    const content = message.content;
    if (typeof content === 'string') req.add({ role, kind: 'text', text: content });
    else if (Array.isArray(content)) for (const block of content) req.add(blockEntry(block, role, names, req));
    else req.note(`a message's content is ${shapeOf(content)}`);
  }

  for (const tool of arr(b.tools) ?? []) {
    if (!isObject(tool)) {
      req.note(`a tool is ${shapeOf(tool)}, not an object`);
      continue;
    }
    const name = str(tool.name) ?? str(tool.type) ?? '';
    if ('input_schema' in tool) req.tool(name, tool.description, tool.input_schema);
    else {
      // A server tool ({type: "web_search_20250305", name: "web_search", …}): its definition is its schema.
      const { name: _name, description: _description, ...rest } = tool;
      req.tool(name, tool.description, rest);
    }
  }

  return req.build({
    model: str(b.model),
    stream: b.stream === true,
    toolChoice: toolChoiceOf(b.tool_choice),
    maxTokens: count(b.max_tokens),
  });
}

type EventType = RawMessageStreamEvent['type'] | 'ping' | 'error';
type DeltaType = RawContentBlockDelta['type'];

class AnthropicResponse extends ResponseBase {
  protected readonly endName = 'message_stop';
  private readonly counts: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number } = {};

  private setUsage(u: unknown): void {
    if (!isObject(u)) return;
    const input = count(u.input_tokens);
    const output = count(u.output_tokens);
    const write = count(u.cache_creation_input_tokens);
    const read = count(u.cache_read_input_tokens);
    if (input !== undefined) this.counts.input = input;
    if (output !== undefined) this.counts.output = output;
    if (write !== undefined) this.counts.cacheWrite = write;
    if (read !== undefined) this.counts.cacheRead = read;
    this.usage = usageOf(this.counts);
  }

  private setError(e: unknown): void {
    const err = isObject(e) ? e : {};
    const type = str(err.type) ?? 'error';
    const message = str(err.message) ?? jsonText(e);
    this.error = `${type}: ${message}`;
  }

  event(eventType: string | undefined, data: string): boolean {
    const value = this.eventObject(eventType, data);
    if (!value) return false;
    const type = (str(value.type) ?? eventType) as EventType | undefined;
    const key = String(count(value.index) ?? 0);
    switch (type) {
      case 'message_start': {
        const message = isObject(value.message) ? value.message : {};
        const model = str(message.model);
        if (model !== undefined) this.model = model;
        this.setUsage(message.usage);
        return false;
      }
      case 'content_block_start': {
        const block = isObject(value.content_block) ? value.content_block : {};
        const blockType = str(block.type);
        if (blockType === 'text') {
          this.open(key, { kind: 'text' });
          const text = str(block.text) ?? '';
          this.append(key, text);
          return text !== '' && this.content();
        }
        if (blockType === 'thinking') {
          this.open(key, { kind: 'thinking' });
          this.append(key, str(block.thinking) ?? '');
          return false;
        }
        if (blockType === 'redacted_thinking') {
          this.open(key, { kind: 'thinking', initial: '[redacted thinking]' });
          return false;
        }
        if (blockType === 'tool_use') {
          const init = { kind: 'tool-use' as const, initial: jsonText(block.input ?? {}) };
          this.open(key, { ...init, callId: str(block.id) ?? '', name: str(block.name) ?? '' });
          return this.content();
        }
        // server_tool_use (its input streams as JSON fragments too), web_search_tool_result, …
        this.open(key, { kind: 'other', initial: jsonText(block), name: str(block.name) ?? blockType });
        return false;
      }
      case 'content_block_delta': {
        const delta = isObject(value.delta) ? value.delta : {};
        const deltaType = str(delta.type) as DeltaType | undefined;
        let fragment: string | undefined;
        if (deltaType === 'text_delta') fragment = str(delta.text);
        else if (deltaType === 'thinking_delta') fragment = str(delta.thinking);
        else if (deltaType === 'input_json_delta') fragment = str(delta.partial_json);
        else if (deltaType === 'signature_delta' || deltaType === 'citations_delta') return false;
        else {
          this.note(`a content_block_delta of unknown type ${quote(deltaType ?? '')} was ignored`);
          return false;
        }
        if (fragment === undefined) return false;
        if (!this.has(key)) {
          this.note(`a content_block_delta for block ${key}, which no content_block_start opened, was ignored`);
          return false;
        }
        this.append(key, fragment);
        return fragment !== '' && this.kindOf(key) !== 'other' && this.content();
      }
      case 'content_block_stop':
        this.close(key);
        return false;
      case 'message_delta': {
        const delta = isObject(value.delta) ? value.delta : {};
        const stop = str(delta.stop_reason);
        if (stop !== undefined) this.stopReason = stop;
        this.setUsage(value.usage);
        return false;
      }
      case 'message_stop':
        this.complete = true;
        return false;
      case 'ping':
        return false;
      case 'error':
        this.setError(value.error);
        return false;
      default:
        this.note(`an event of unknown type ${quote(type ?? '')} was ignored`);
        return false;
    }
  }

  json(value: unknown): void {
    const body = this.bodyObject(value);
    if (!body) return;
    if (body.type === 'error' || (isObject(body.error) && body.content === undefined)) {
      this.setError(body.error);
      return;
    }
    if (!Array.isArray(body.content)) {
      this.note('the response body is neither a message nor an error');
      return;
    }
    const model = str(body.model);
    if (model !== undefined) this.model = model;
    const stop = str(body.stop_reason);
    if (stop !== undefined) this.stopReason = stop;
    this.setUsage(body.usage);
    for (const block of body.content) {
      if (!isObject(block)) continue;
      const type = str(block.type);
      if (type === 'text') this.whole({ kind: 'text' }, str(block.text) ?? '');
      else if (type === 'thinking') this.whole({ kind: 'thinking' }, str(block.thinking) ?? '');
      else if (type === 'redacted_thinking') this.whole({ kind: 'thinking' }, '[redacted thinking]');
      else if (type === 'tool_use') {
        this.whole({ kind: 'tool-use', callId: str(block.id) ?? '', name: str(block.name) ?? '' }, jsonText(block.input ?? {}));
      } else this.whole({ kind: 'other', name: str(block.name) ?? type }, jsonText(block));
    }
    this.complete = true;
  }
}

function matchesBody(body: unknown): boolean {
  if (!isObject(body) || typeof body.model !== 'string' || !Array.isArray(body.messages)) return false;
  // Every message has a role and string or block content. Not only user and assistant: Claude Code
  // 2.1.197 sends a `system` message among them (seen through mcpscope). The path tells this API
  // from OpenAI's chat completions, whose bodies look alike.
  return body.messages.every(
    (m) => isObject(m) && typeof m.role === 'string' && (typeof m.content === 'string' || Array.isArray(m.content)),
  );
}

export const anthropicMessages: ModelApiDialect = {
  api: 'anthropic-messages',
  matchesPath: (path) => PATH.test(path),
  matchesBody,
  parseRequest: (body) => parseRequest(body),
  newResponse: (): ResponseParser => new AnthropicResponse(),
};
