/**
 * A stand-in of OpenAI's Chat Completions and Responses APIs
 * (https://platform.openai.com/docs/api-reference/chat, …/responses, …/responses-streaming),
 * scripted by ./script.ts, both on one server:
 * - `POST …/chat/completions`: a `chat.completion`, or with `stream: true` SSE `data:` chunks —
 *   a role chunk, content deltas, per tool call (`index`) a chunk with id and name then
 *   `arguments` fragments, a chunk with `finish_reason` (`tool_calls` / `stop`), a usage chunk
 *   (`choices: []`) when `stream_options.include_usage` (every other chunk then has `usage: null`),
 *   `data: [DONE]`;
 * - `POST …/responses`: a `response` object, or with `stream: true` typed SSE events (each with
 *   `event:` and `sequence_number`): response.created, response.in_progress, per output item
 *   response.output_item.added, (reasoning: summary part / text delta / done), (message:
 *   content_part.added, output_text.delta…, output_text.done, content_part.done), (function_call:
 *   function_call_arguments.delta…, .done), response.output_item.done, then response.completed
 *   with usage (or response.incomplete when the script sets a stop reason).
 * Anything else: a 404 in the API's error shape. Proven with `openai` in test/e2e/model-standins.test.ts.
 */
import type { ServerResponse } from 'node:http';
import type { CaMaterial } from '../../../proxy/wire/forward-proxy/ca.js';
import {
  DEFAULT_USAGE,
  argumentText,
  fragments,
  replyFor,
  resultText,
  type RecordedRequest,
  type Script,
  type ScriptReply,
  type SeenToolResult,
  type TurnContext,
} from './script.js';
import {
  sendJson,
  sendJsonReply,
  sendSse,
  startStandinServer,
  withExtraEvents,
  type SseEvent,
  type StandinServer,
} from './standin-server.js';

export interface OpenAiStandinOptions {
  /** Drives both APIs; `ctx.index` counts the model calls of both together. */
  script: Script;
  tls?: CaMaterial;
  /** The `model` answered (default: the request's). */
  model?: string;
}

export interface OpenAiStandin extends StandinServer {
  /** What to give the SDK as `baseURL`: `<origin>/v1`. */
  baseURL: string;
  /** The model calls (`…/chat/completions` and `…/responses` POSTs), in order. */
  modelCalls(): RecordedRequest[];
}

type Json = Record<string, unknown>;
const CREATED = 1_760_000_000;

const isChat = (r: RecordedRequest) => r.method === 'POST' && r.path.endsWith('/chat/completions');
const isResponses = (r: RecordedRequest) => r.method === 'POST' && r.path.endsWith('/responses');

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.filter((p: Json) => typeof p?.text === 'string').map((p: Json) => String(p.text));
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/** The provider-neutral view of a Chat Completions request. */
export function chatContext(req: RecordedRequest, index: number): TurnContext {
  const body = (req.body ?? {}) as { model?: string; stream?: boolean; tools?: Json[]; messages?: Json[] };
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const toolResults: SeenToolResult[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === 'tool'; i -= 1)
    toolResults.unshift({ id: String(messages[i].tool_call_id), text: resultText(messages[i].content) });
  const last = messages[messages.length - 1];
  const userText = last?.role === 'user' ? textOf(last.content) : undefined;
  return {
    index,
    request: req,
    model: String(body.model ?? ''),
    stream: body.stream === true,
    toolNames: (Array.isArray(body.tools) ? body.tools : []).map((t) => String((t.function as Json | undefined)?.name ?? t.name)),
    toolResults,
    ...(userText !== undefined ? { userText } : {}),
  };
}

/** The provider-neutral view of a Responses request. */
export function responsesContext(req: RecordedRequest, index: number): TurnContext {
  const body = (req.body ?? {}) as { model?: string; stream?: boolean; tools?: Json[]; input?: string | Json[] };
  const items: Json[] =
    typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? body.input : [];
  const toolResults: SeenToolResult[] = [];
  for (let i = items.length - 1; i >= 0 && items[i]?.type === 'function_call_output'; i -= 1)
    toolResults.unshift({ id: String(items[i].call_id), text: resultText(items[i].output) });
  const last = items[items.length - 1];
  const userText = last?.role === 'user' ? textOf(last.content) : undefined;
  return {
    index,
    request: req,
    model: String(body.model ?? ''),
    stream: body.stream === true,
    toolNames: (Array.isArray(body.tools) ? body.tools : []).filter((t) => typeof t.name === 'string').map((t) => String(t.name)),
    toolResults,
    ...(userText !== undefined ? { userText } : {}),
  };
}

const callIds = (reply: ScriptReply, index: number) => (reply.toolCalls ?? []).map((c, i) => c.id ?? `call_standin_${index}_${i}`);

function chatUsage(reply: ScriptReply): Json {
  const u = reply.usage ?? DEFAULT_USAGE;
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cacheReadTokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: u.reasoningTokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function responsesUsage(reply: ScriptReply): Json {
  const u = reply.usage ?? DEFAULT_USAGE;
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cacheReadTokens ?? 0 },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

const finishReason = (reply: ScriptReply) => reply.stopReason ?? ((reply.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop');

/** The whole `chat.completion` (the non-streaming answer). */
export function chatCompletion(reply: ScriptReply, ctx: TurnContext, model: string): Json {
  const ids = callIds(reply, ctx.index);
  const broken = reply.fault?.kind === 'broken-json';
  const calls = (reply.toolCalls ?? []).map((c, i) => ({
    id: ids[i],
    type: 'function',
    function: { name: c.name, arguments: argumentText(c.arguments, broken) },
  }));
  return {
    id: `chatcmpl-standin-${ctx.index}`,
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.text ?? null, refusal: null, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
        logprobs: null,
        finish_reason: finishReason(reply),
      },
    ],
    usage: chatUsage(reply),
    system_fingerprint: null,
  };
}

/** The `data:` chunks of a streamed chat completion, `[DONE]` last (before faults and extra events). */
export function chatChunks(reply: ScriptReply, ctx: TurnContext, model: string): SseEvent[] {
  const size = reply.fragmentSize ?? 7;
  const body = ctx.request.body as { stream_options?: { include_usage?: boolean } };
  const withUsage = body.stream_options?.include_usage === true;
  const chunk = (delta: Json, finish: string | null = null): SseEvent => ({
    data: {
      id: `chatcmpl-standin-${ctx.index}`,
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      system_fingerprint: null,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(withUsage ? { usage: null } : {}),
    },
  });
  const out: SseEvent[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  if (reply.text !== undefined) for (const content of fragments(reply.text, size)) out.push(chunk({ content }));
  const ids = callIds(reply, ctx.index);
  const broken = reply.fault?.kind === 'broken-json';
  (reply.toolCalls ?? []).forEach((c, index) => {
    out.push(chunk({ tool_calls: [{ index, id: ids[index], type: 'function', function: { name: c.name, arguments: '' } }] }));
    for (const args of fragments(argumentText(c.arguments, broken), size))
      out.push(chunk({ tool_calls: [{ index, function: { arguments: args } }] }));
  });
  out.push(chunk({}, finishReason(reply)));
  if (withUsage)
    out.push({
      data: {
        id: `chatcmpl-standin-${ctx.index}`,
        object: 'chat.completion.chunk',
        created: CREATED,
        model,
        system_fingerprint: null,
        choices: [],
        usage: chatUsage(reply),
      },
    });
  out.push({ data: '[DONE]' });
  return out;
}

interface OutputItem {
  item: Json;
  /** The events between its output_item.added and output_item.done. */
  inner: (outputIndex: number) => Json[];
}

function responseItems(reply: ScriptReply, ctx: TurnContext): OutputItem[] {
  const size = reply.fragmentSize ?? 7;
  const items: OutputItem[] = [];
  if (reply.thinking !== undefined) {
    const text = reply.thinking;
    const item_id = `rs_standin_${ctx.index}`;
    items.push({
      item: { id: item_id, type: 'reasoning', summary: [{ type: 'summary_text', text }] },
      inner: (output_index) => [
        {
          type: 'response.reasoning_summary_part.added',
          item_id,
          output_index,
          summary_index: 0,
          part: { type: 'summary_text', text: '' },
        },
        ...fragments(text, size).map((delta) => ({
          type: 'response.reasoning_summary_text.delta',
          item_id,
          output_index,
          summary_index: 0,
          delta,
        })),
        { type: 'response.reasoning_summary_text.done', item_id, output_index, summary_index: 0, text },
        { type: 'response.reasoning_summary_part.done', item_id, output_index, summary_index: 0, part: { type: 'summary_text', text } },
      ],
    });
  }
  if (reply.text !== undefined) {
    const text = reply.text;
    const item_id = `msg_standin_${ctx.index}`;
    const part = (t: string) => ({ type: 'output_text', text: t, annotations: [], logprobs: [] });
    items.push({
      item: { id: item_id, type: 'message', status: 'completed', role: 'assistant', content: [part(text)] },
      inner: (output_index) => [
        { type: 'response.content_part.added', item_id, output_index, content_index: 0, part: part('') },
        ...fragments(text, size).map((delta) => ({
          type: 'response.output_text.delta',
          item_id,
          output_index,
          content_index: 0,
          delta,
          logprobs: [],
        })),
        { type: 'response.output_text.done', item_id, output_index, content_index: 0, text, logprobs: [] },
        { type: 'response.content_part.done', item_id, output_index, content_index: 0, part: part(text) },
      ],
    });
  }
  const ids = callIds(reply, ctx.index);
  const broken = reply.fault?.kind === 'broken-json';
  (reply.toolCalls ?? []).forEach((c, i) => {
    const item_id = `fc_standin_${ctx.index}_${i}`;
    const args = argumentText(c.arguments, broken);
    items.push({
      item: { id: item_id, type: 'function_call', status: 'completed', arguments: args, call_id: ids[i], name: c.name },
      inner: (output_index) => [
        ...fragments(args, size).map((delta) => ({ type: 'response.function_call_arguments.delta', item_id, output_index, delta })),
        { type: 'response.function_call_arguments.done', item_id, output_index, name: c.name, arguments: args },
      ],
    });
  });
  return items;
}

/** The whole `response` object (the non-streaming answer; also response.completed's). */
export function responseObject(
  reply: ScriptReply,
  ctx: TurnContext,
  model: string,
  output = responseItems(reply, ctx).map((i) => i.item),
): Json {
  const incomplete = reply.stopReason !== undefined;
  return {
    id: `resp_standin_${ctx.index}`,
    object: 'response',
    created_at: CREATED,
    status: incomplete ? 'incomplete' : 'completed',
    error: null,
    incomplete_details: incomplete ? { reason: reply.stopReason } : null,
    instructions: null,
    model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    temperature: 1,
    top_p: 1,
    text: { format: { type: 'text' } },
    metadata: {},
    usage: responsesUsage(reply),
  };
}

/** The typed SSE events of a streamed response (before faults and extra events). */
export function responsesEvents(reply: ScriptReply, ctx: TurnContext, model: string): SseEvent[] {
  const events: Json[] = [];
  const started = { ...responseObject(reply, ctx, model, []), status: 'in_progress', incomplete_details: null, usage: null };
  events.push({ type: 'response.created', response: started }, { type: 'response.in_progress', response: started });
  responseItems(reply, ctx).forEach((o, output_index) => {
    const added =
      o.item.type === 'function_call'
        ? { ...o.item, status: 'in_progress', arguments: '' }
        : o.item.type === 'message'
          ? { ...o.item, status: 'in_progress', content: [] }
          : { ...o.item, summary: [] };
    events.push({ type: 'response.output_item.added', output_index, item: added }, ...o.inner(output_index), {
      type: 'response.output_item.done',
      output_index,
      item: o.item,
    });
  });
  const final = responseObject(reply, ctx, model);
  events.push({ type: final.status === 'completed' ? 'response.completed' : 'response.incomplete', response: final });
  return events.map((e, sequence_number) => ({ event: String(e.type), data: { ...e, sequence_number } }));
}

function apiError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { error: { message, type, param: null, code: null } });
}

export async function startOpenAiStandin(o: OpenAiStandinOptions): Promise<OpenAiStandin> {
  let calls = 0;
  const server = await startStandinServer(
    async (req, res) => {
      const chat = isChat(req);
      if (!chat && !isResponses(req)) return apiError(res, 404, 'invalid_request_error', `Unknown request URL: ${req.method} ${req.path}`);
      if (req.body === undefined || typeof req.body !== 'object')
        return apiError(res, 400, 'invalid_request_error', 'We could not parse the JSON body of your request.');
      const ctx = (chat ? chatContext : responsesContext)(req, calls++);
      const reply = replyFor(o.script, ctx);
      const model = o.model ?? ctx.model;
      const headers = { 'x-request-id': `req_standin_${ctx.index}` };
      const fault = reply.fault;
      if (fault?.kind === 'http-error')
        return apiError(res, fault.status, fault.errorType ?? 'server_error', fault.message ?? 'The server had an error');
      if (!ctx.stream) {
        if (fault?.kind === 'error-event')
          return apiError(res, 500, fault.errorType ?? 'server_error', fault.message ?? 'The server had an error');
        return sendJsonReply(res, chat ? chatCompletion(reply, ctx, model) : responseObject(reply, ctx, model), fault, headers);
      }
      const events = chat ? chatChunks(reply, ctx, model) : responsesEvents(reply, ctx, model);
      await sendSse(res, withExtraEvents(events, reply.extraEvents), {
        fault,
        headers,
        errorEvent: (f) =>
          chat
            ? {
                data: {
                  error: { message: f.message ?? 'The server had an error', type: f.errorType ?? 'server_error', param: null, code: null },
                },
              }
            : {
                event: 'error',
                data: {
                  type: 'error',
                  code: f.errorType ?? 'server_error',
                  message: f.message ?? 'The server had an error',
                  param: null,
                  sequence_number: f.afterEvents,
                },
              },
      });
    },
    { tls: o.tls },
  );
  return {
    ...server,
    baseURL: `${server.origin}/v1`,
    modelCalls: () => server.requests.filter((r) => isChat(r) || isResponses(r)),
  };
}
