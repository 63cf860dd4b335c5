/**
 * A stand-in of the Anthropic Messages API (https://docs.anthropic.com/en/api/messages and
 * …/messages-streaming), scripted by ./script.ts:
 * - `POST …/v1/messages` (any query, e.g. `?beta=true`): a JSON message, or with `stream: true`
 *   SSE — message_start (usage: input and cache figures, output_tokens 1), ping, per block
 *   content_block_start / _delta (text_delta, input_json_delta in several partial_json fragments
 *   after an empty one, thinking_delta + signature_delta) / _stop, message_delta (stop_reason,
 *   cumulative usage), message_stop;
 * - `POST …/v1/messages/count_tokens`: `{ input_tokens }` (a bytes/4 estimate unless set);
 * - `HEAD /` (Claude Code's probe) and `GET /`: 200; anything else: a 404 in the API's error shape.
 * Proven with @anthropic-ai/sdk in test/e2e/model-standins.test.ts.
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

export interface AnthropicStandinOptions {
  script: Script;
  tls?: CaMaterial;
  /** The `model` answered (default: the request's). */
  model?: string;
  /** `input_tokens` answered by count_tokens (default: request bytes / 4). */
  countTokens?: (req: RecordedRequest) => number;
}

export interface AnthropicStandin extends StandinServer {
  /** What to give the SDK as `baseURL` (the origin: the SDK appends `/v1/messages`). */
  baseURL: string;
  /** The `POST …/v1/messages` requests only (each a model call, in order). */
  modelCalls(): RecordedRequest[];
}

interface Block {
  type: string;
  [k: string]: unknown;
}
interface AnthropicMessageParam {
  role?: string;
  content?: string | Block[];
}

/** The provider-neutral view of a Messages request. */
export function anthropicContext(req: RecordedRequest, index: number): TurnContext {
  const body = (req.body ?? {}) as { model?: string; stream?: boolean; tools?: { name?: string }[]; messages?: AnthropicMessageParam[] };
  const last = Array.isArray(body.messages) ? body.messages[body.messages.length - 1] : undefined;
  const blocks: Block[] =
    typeof last?.content === 'string' ? [{ type: 'text', text: last.content }] : Array.isArray(last?.content) ? last.content : [];
  const toolResults: SeenToolResult[] =
    last?.role === 'user'
      ? blocks
          .filter((b) => b.type === 'tool_result')
          .map((b) => ({ id: String(b.tool_use_id), text: resultText(b.content), ...(b.is_error === true ? { isError: true } : {}) }))
      : [];
  const texts = last?.role === 'user' ? blocks.filter((b) => b.type === 'text').map((b) => String(b.text)) : [];
  return {
    index,
    request: req,
    model: String(body.model ?? ''),
    stream: body.stream === true,
    toolNames: Array.isArray(body.tools) ? body.tools.map((t) => String(t.name)) : [],
    toolResults,
    ...(texts.length > 0 ? { userText: texts.join('\n') } : {}),
  };
}

function usageOf(reply: ScriptReply) {
  const u = reply.usage ?? DEFAULT_USAGE;
  return {
    input_tokens: u.inputTokens,
    cache_creation_input_tokens: u.cacheWriteTokens ?? 0,
    cache_read_input_tokens: u.cacheReadTokens ?? 0,
    output_tokens: u.outputTokens,
  };
}

function toolIds(reply: ScriptReply, index: number): string[] {
  return (reply.toolCalls ?? []).map((c, i) => c.id ?? `toolu_standin_${index}_${i}`);
}

function stopReason(reply: ScriptReply): string {
  return reply.stopReason ?? ((reply.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn');
}

const SIGNATURE = 'c3RhbmRpbi1zaWduYXR1cmU=';

/** The whole message (the non-streaming answer). */
export function anthropicMessage(reply: ScriptReply, ctx: TurnContext, model: string): Record<string, unknown> {
  const ids = toolIds(reply, ctx.index);
  const content: Block[] = [];
  if (reply.thinking !== undefined) content.push({ type: 'thinking', thinking: reply.thinking, signature: SIGNATURE });
  if (reply.text !== undefined) content.push({ type: 'text', text: reply.text });
  (reply.toolCalls ?? []).forEach((c, i) => content.push({ type: 'tool_use', id: ids[i], name: c.name, input: c.arguments }));
  return {
    id: `msg_standin_${ctx.index}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason(reply),
    stop_sequence: null,
    usage: usageOf(reply),
  };
}

/** The SSE events of the streamed answer (before faults and extra events). */
export function anthropicEvents(reply: ScriptReply, ctx: TurnContext, model: string): SseEvent[] {
  const size = reply.fragmentSize ?? 7;
  const usage = usageOf(reply);
  const ev = (type: string, rest: Record<string, unknown> = {}): SseEvent => ({ event: type, data: { type, ...rest } });
  const out: SseEvent[] = [
    ev('message_start', {
      message: {
        ...anthropicMessage({ ...reply, text: undefined, thinking: undefined, toolCalls: [] }, ctx, model),
        content: [],
        stop_reason: null,
        usage: { ...usage, output_tokens: Math.min(1, usage.output_tokens) },
      },
    }),
    ev('ping'),
  ];
  let index = 0;
  const block = (start: Block, deltas: Block[]) => {
    out.push(ev('content_block_start', { index, content_block: start }));
    for (const delta of deltas) out.push(ev('content_block_delta', { index, delta }));
    out.push(ev('content_block_stop', { index }));
    index += 1;
  };
  if (reply.thinking !== undefined)
    block({ type: 'thinking', thinking: '', signature: '' }, [
      ...fragments(reply.thinking, size).map((thinking) => ({ type: 'thinking_delta', thinking })),
      { type: 'signature_delta', signature: SIGNATURE },
    ]);
  if (reply.text !== undefined)
    block(
      { type: 'text', text: '' },
      fragments(reply.text, size).map((text) => ({ type: 'text_delta', text })),
    );
  const ids = toolIds(reply, ctx.index);
  const broken = reply.fault?.kind === 'broken-json';
  (reply.toolCalls ?? []).forEach((c, i) =>
    block({ type: 'tool_use', id: ids[i], name: c.name, input: {} }, [
      { type: 'input_json_delta', partial_json: '' },
      ...fragments(argumentText(c.arguments, broken), size).map((partial_json) => ({ type: 'input_json_delta', partial_json })),
    ]),
  );
  out.push(ev('message_delta', { delta: { stop_reason: stopReason(reply), stop_sequence: null }, usage }));
  out.push(ev('message_stop'));
  return out;
}

function apiError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: 'error', error: { type, message }, request_id: 'req_standin_error' });
}

export async function startAnthropicStandin(o: AnthropicStandinOptions): Promise<AnthropicStandin> {
  let calls = 0;
  const server = await startStandinServer(
    async (req, res) => {
      if (req.path === '/' && (req.method === 'HEAD' || req.method === 'GET')) {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(req.method === 'GET' ? 'anthropic stand-in' : undefined);
        return;
      }
      if (req.method === 'POST' && req.path.endsWith('/v1/messages/count_tokens')) {
        sendJson(res, 200, { input_tokens: o.countTokens ? o.countTokens(req) : Math.ceil(Buffer.byteLength(req.rawBody) / 4) });
        return;
      }
      if (req.method !== 'POST' || !req.path.endsWith('/v1/messages')) {
        apiError(res, 404, 'not_found_error', `Not found: ${req.method} ${req.path}`);
        return;
      }
      if (req.body === undefined || typeof req.body !== 'object') {
        apiError(res, 400, 'invalid_request_error', 'The request body is not valid JSON.');
        return;
      }
      const ctx = anthropicContext(req, calls++);
      const reply = replyFor(o.script, ctx);
      const model = o.model ?? ctx.model;
      const headers = { 'request-id': `req_standin_${ctx.index}` };
      const fault = reply.fault;
      if (fault?.kind === 'http-error') {
        apiError(res, fault.status, fault.errorType ?? 'api_error', fault.message ?? 'Internal server error');
        return;
      }
      if (!ctx.stream) {
        if (fault?.kind === 'error-event') return apiError(res, 529, fault.errorType ?? 'overloaded_error', fault.message ?? 'Overloaded');
        if (fault?.kind === 'broken-json') {
          res.writeHead(200, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(anthropicMessage(reply, ctx, model)).slice(0, -2));
          return;
        }
        return sendJsonReply(res, anthropicMessage(reply, ctx, model), fault, headers);
      }
      await sendSse(res, withExtraEvents(anthropicEvents(reply, ctx, model), reply.extraEvents), {
        fault,
        headers,
        errorEvent: (f) => ({
          event: 'error',
          data: { type: 'error', error: { type: f.errorType ?? 'overloaded_error', message: f.message ?? 'Overloaded' } },
        }),
      });
    },
    { tls: o.tls },
  );
  return {
    ...server,
    baseURL: server.origin,
    modelCalls: () => server.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/v1/messages')),
  };
}
