/**
 * Google Gemini generateContent (`POST …/models/<model>:generateContent`, and
 * `:streamGenerateContent` — `data:` chunks with `?alt=sse`, else one JSON array of the same
 * chunks, read through `json()`). Vertex AI's `…/publishers/google/models/<model>:…` is the same
 * shape, and so is Code Assist's `…/v1internal:streamGenerateContent` (Gemini CLI logged in with
 * Google), which wraps the request in `{model, request}` and each chunk in `{response}`: both are
 * unwrapped. Wire format: ai.google.dev/api/generate-content; the types of `@google/genai`, used
 * here as types only.
 *
 * Gemini gives a function call no id unless the client set one: a call is `functionCall.id`, else
 * `gemini-<n>`, n its place among the function calls of its model message (a response's, or a
 * model content in a later request's history — the same numbering). A `functionResponse` takes its
 * `id`, else the id of the previous model content's first unanswered call of the same name.
 */
import type { Content, GenerateContentResponse, Part } from '@google/genai';
import type { ModelApiDialect, ParsedRequest, RawEntry, ResponseParser } from './dialect.js';
import { arr, count, isObject, jsonText, partsText, shapeOf, str, type JsonObject } from './json-parts.js';
import { RequestBuilder } from './request-parts.js';
import { ResponseBase, usageOf } from './response-parts.js';

const PATH = /(?::|%3A)(generateContent|streamGenerateContent)$/i;
const MODEL = /\/models\/([^/:%]+)(?::|%3A)/i;

export function geminiCallId(id: unknown, n: number): string {
  return str(id) || `gemini-${n}`;
}

function modelOf(url: string): string | undefined {
  const path = url.split('?')[0];
  const m = MODEL.exec(path);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

/**
 * A functionResponse's result as text: the API's own convention is `{ output }` for what the
 * function returned and `{ error }` for its failure (Gemini CLI sends both so): such a response is
 * its value (a string as is). Any other shape is the whole response, as JSON.
 */
function responseText(response: unknown): string {
  if (isObject(response) && Object.keys(response).length === 1) {
    const v = response.output !== undefined ? response.output : response.error;
    if (v !== undefined) return typeof v === 'string' ? v : jsonText(v);
    // Gemini CLI 0.61 passes an MCP tool's result on as its content blocks, `{ content: [{ type: "text", text }] }`:
    // the model reads their text.
    const text = mcpContentText(response.content);
    if (text !== undefined) return text;
  }
  return jsonText(response ?? {});
}

/** The text of MCP content blocks, when every block is text. */
function mcpContentText(content: unknown): string | undefined {
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const texts: string[] = [];
  for (const c of content) {
    if (!isObject(c) || c.type !== 'text' || typeof c.text !== 'string') return undefined;
    texts.push(c.text);
  }
  return texts.join('\n');
}

function mediaEntry(role: RawEntry['role'], mime: string, what: string): RawEntry {
  const kind = mime.startsWith('image/') ? 'image' : mime === 'application/pdf' || mime.startsWith('text/') ? 'document' : 'other';
  return { role, kind, text: `[${mime || 'data'} ${what}]` };
}

/** The request body proper: Code Assist's `{model, project, request: {contents…}}` unwrapped. */
function unwrap(body: unknown): { b: JsonObject; model?: string } {
  if (isObject(body) && isObject(body.request) && body.contents === undefined) return { b: body.request, model: str(body.model) };
  return { b: isObject(body) ? body : {} };
}

function toolChoiceOf(config: unknown): string | undefined {
  if (!isObject(config) || !isObject(config.functionCallingConfig)) return undefined;
  const fc = config.functionCallingConfig;
  const mode = str(fc.mode)?.toLowerCase();
  const allowed = arr(fc.allowedFunctionNames);
  if (mode === 'any' && allowed?.length === 1 && typeof allowed[0] === 'string') return `tool:${allowed[0]}`;
  return mode;
}

function parseRequest(body: unknown, url: string): ParsedRequest {
  const req = new RequestBuilder();
  if (!isObject(body)) req.note(`the request body is ${shapeOf(body)}, not an object`);
  const { b, model } = unwrap(body);
  const system = b.systemInstruction ?? b.system_instruction;
  if (typeof system === 'string') req.system(system);
  else if (isObject(system)) req.system(partsText(system.parts, '\n') ?? '');

  /** The previous model content's calls, answered or not. */
  let calls: { name: string; id: string; answered: boolean }[] = [];
  for (const content of arr(b.contents) ?? []) {
    req.startMessage();
    if (!isObject(content)) {
      req.note(`a content is ${shapeOf(content)}, not an object`);
      continue;
    }
    const c = content as Content & JsonObject;
    const role: RawEntry['role'] = c.role === 'model' ? 'assistant' : 'user';
    const parts = arr(c.parts) ?? [];
    if (role === 'assistant') calls = [];
    let responses = 0;
    for (const raw of parts) {
      if (!isObject(raw)) continue;
      const part = raw as Part & JsonObject;
      if (typeof part.text === 'string') {
        req.add({ role, kind: part.thought === true ? 'thinking' : 'text', text: part.text });
      } else if (isObject(part.functionCall)) {
        const name = str(part.functionCall.name) ?? '';
        const id = geminiCallId(part.functionCall.id, calls.length);
        calls.push({ name, id, answered: false });
        req.add({ role: 'assistant', kind: 'tool-use', text: jsonText(part.functionCall.args ?? {}), callId: id, name });
      } else if (isObject(part.functionResponse)) {
        const fr = part.functionResponse;
        const name = str(fr.name) ?? '';
        let id = str(fr.id);
        const match = calls.find((x) => (id !== undefined ? x.id === id : x.name === name && !x.answered));
        if (match) match.answered = true;
        if (id === undefined) {
          id = match?.id ?? `gemini-${responses}`;
          if (!match) req.note(`a functionResponse for ${JSON.stringify(name.slice(0, 60))} answers no call of the previous model content`);
        }
        responses += 1;
        const response = fr.response;
        const entry: RawEntry = { role: 'tool', kind: 'tool-result', text: responseText(response), callId: id, name };
        if (isObject(response) && response.error !== undefined && response.output === undefined) entry.isError = true;
        req.add(entry);
      } else if (isObject(part.inlineData)) {
        const data = str(part.inlineData.data) ?? '';
        req.add(mediaEntry(role, str(part.inlineData.mimeType) ?? '', `${data.length} base64 characters`));
      } else if (isObject(part.fileData)) {
        req.add(mediaEntry(role, str(part.fileData.mimeType) ?? '', str(part.fileData.fileUri) ?? ''));
      } else {
        req.add({ role, kind: 'other', text: jsonText(part) });
      }
    }
  }
  if (!Array.isArray(b.contents)) req.note('the request has no contents list');

  for (const tool of arr(b.tools) ?? []) {
    if (!isObject(tool)) continue;
    const declarations = arr(tool.functionDeclarations) ?? arr(tool.function_declarations);
    if (declarations) {
      for (const d of declarations) {
        if (!isObject(d)) continue;
        const schema = d.parametersJsonSchema ?? d.parameters;
        const response = d.responseJsonSchema ?? d.response;
        req.tool(str(d.name) ?? '', d.description, response === undefined ? (schema ?? {}) : { parameters: schema ?? {}, response });
      }
    } else {
      // googleSearch, codeExecution, urlContext, …: named by their key.
      req.tool(Object.keys(tool)[0] ?? '', undefined, tool);
    }
  }

  const generation = isObject(b.generationConfig) ? b.generationConfig : isObject(b.generation_config) ? b.generation_config : {};
  return req.build({
    model: modelOf(url) ?? model,
    stream: /streamGenerateContent$/i.test(url.split('?')[0]),
    toolChoice: toolChoiceOf(b.toolConfig ?? b.tool_config),
    maxTokens: count(generation.maxOutputTokens),
  });
}

type Chunk = Partial<GenerateContentResponse> & JsonObject;

class GeminiResponse extends ResponseBase {
  protected readonly endName = 'a chunk with a finishReason';
  protected override readonly fallbackIdPrefix = 'gemini';
  /** The open text block's key and kind (consecutive text parts of one kind are one entry). */
  private textKey?: string;
  private textKind?: RawEntry['kind'];
  private blocksOpened = 0;

  private setError(e: unknown): void {
    const err = isObject(e) ? e : {};
    const status = str(err.status) ?? (count(err.code) !== undefined ? String(err.code) : 'error');
    this.error = `${status}: ${str(err.message) ?? jsonText(e)}`;
  }

  private closeText(): void {
    if (this.textKey !== undefined) this.close(this.textKey);
    this.textKey = undefined;
    this.textKind = undefined;
  }

  /** One chunk; true when it carried content. */
  private chunk(value: unknown): boolean {
    if (Array.isArray(value)) {
      // A Code Assist or proxy answer may batch chunks: each read in turn.
      let content = false;
      for (const v of value) if (this.chunk(v)) content = true;
      return content;
    }
    if (!isObject(value)) {
      this.note(`a chunk is ${shapeOf(value)}, not an object`);
      return false;
    }
    if (isObject(value.error) && value.candidates === undefined) {
      this.setError(value.error);
      return false;
    }
    const chunk = (isObject(value.response) && value.candidates === undefined ? value.response : value) as Chunk;
    const version = str(chunk.modelVersion);
    if (version !== undefined) this.model = version;
    const u = chunk.usageMetadata;
    if (isObject(u)) {
      const prompt = count(u.promptTokenCount);
      const cached = count(u.cachedContentTokenCount);
      this.usage = usageOf({
        input: prompt === undefined ? undefined : Math.max(0, prompt - (cached ?? 0)),
        output: count(u.candidatesTokenCount),
        cacheRead: cached,
        reasoning: count(u.thoughtsTokenCount),
      });
    }
    let content = false;
    const candidates = arr(chunk.candidates) ?? [];
    const candidate = candidates.find((c) => isObject(c) && (count(c.index) ?? 0) === 0);
    if (candidates.length > 1) this.note('candidates other than the first were left out');
    if (isObject(candidate)) {
      const parts = isObject(candidate.content) ? (arr(candidate.content.parts) ?? []) : [];
      for (const raw of parts) {
        if (!isObject(raw)) continue;
        const part = raw as Part & JsonObject;
        if (typeof part.text === 'string') {
          const kind = part.thought === true ? 'thinking' : 'text';
          if (this.textKind !== kind) {
            this.closeText();
            this.textKey = `text:${this.blocksOpened++}`;
            this.textKind = kind;
            this.open(this.textKey, { kind });
          }
          this.append(this.textKey as string, part.text);
          if (part.text !== '') content = true;
        } else if (isObject(part.functionCall)) {
          this.closeText();
          const init = { kind: 'tool-use' as const, name: str(part.functionCall.name) ?? '' };
          const id = str(part.functionCall.id);
          this.whole(id ? { ...init, callId: id } : init, jsonText(part.functionCall.args ?? {}));
          content = true;
        } else if (part.thoughtSignature !== undefined && Object.keys(part).length === 1) {
          continue;
        } else {
          this.closeText();
          this.whole({ kind: 'other' }, jsonText(part));
        }
      }
      const finish = str(candidate.finishReason);
      if (finish !== undefined) {
        this.stopReason = finish;
        this.closeText();
        this.closeAll();
        this.complete = true;
      }
    }
    const feedback = isObject(chunk.promptFeedback) ? str(chunk.promptFeedback.blockReason) : undefined;
    if (candidates.length === 0 && !isObject(u) && feedback === undefined) this.note('a chunk carried no candidates');
    if (feedback !== undefined) {
      this.stopReason = `blocked: ${feedback}`;
      this.complete = true;
    }
    return content;
  }

  event(_eventType: string | undefined, data: string): boolean {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      this.note('a chunk whose data is not JSON was ignored');
      return false;
    }
    return this.chunk(value) && this.content();
  }

  json(body: unknown): void {
    if (body === undefined) {
      this.note('the response body is not JSON');
      return;
    }
    if (this.chunk(body)) this.content();
    if (this.error === undefined && (isObject(body) || Array.isArray(body))) {
      this.closeText();
      this.closeAll();
      this.complete = true;
    }
  }
}

function matchesBody(body: unknown): boolean {
  const { b } = unwrap(body);
  if (!isObject(body) || !Array.isArray(b.contents)) return false;
  return b.contents.every((c) => isObject(c) && Array.isArray(c.parts));
}

export const gemini: ModelApiDialect = {
  api: 'gemini',
  matchesPath: (path) => PATH.test(path),
  matchesBody,
  parseRequest,
  newResponse: (): ResponseParser => new GeminiResponse(),
};
