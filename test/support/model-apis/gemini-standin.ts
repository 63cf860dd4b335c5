/**
 * A stand-in of the Gemini API's generateContent (https://ai.google.dev/api/generate-content),
 * scripted by ./script.ts:
 * - `POST …/v1beta/models/<model>:generateContent`: one GenerateContentResponse (JSON);
 * - `POST …/v1beta/models/<model>:streamGenerateContent?alt=sse`: `data:` chunks — thought
 *   parts, text parts in pieces, then one chunk with the `functionCall` parts (whole `args`, as the
 *   API sends them), `finishReason: STOP` and the full `usageMetadata` (earlier chunks carry only
 *   promptTokenCount); without `alt=sse` the same chunks as one JSON array;
 * - `…:countTokens`: `{ totalTokens }` (bytes / 4).
 * Any `v1…` version segment is accepted. Anything else: a 404 in the API's error shape.
 * Proven with `@google/genai` in test/e2e/model-standins.test.ts.
 */
import type { ServerResponse } from 'node:http';
import type { CaMaterial } from '../../../proxy/wire/forward-proxy/ca.js';
import {
  DEFAULT_USAGE,
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

export interface GeminiStandinOptions {
  script: Script;
  tls?: CaMaterial;
  /** The `modelVersion` answered (default: the model of the path). */
  model?: string;
}

export interface GeminiStandin extends StandinServer {
  /** What to give `@google/genai` as `httpOptions.baseUrl` (the origin). */
  baseURL: string;
  /** The generateContent / streamGenerateContent requests, in order. */
  modelCalls(): RecordedRequest[];
}

type Json = Record<string, unknown>;
const ROUTE = /\/v1[a-z0-9]*\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

function route(req: RecordedRequest): { model: string; method: string } | undefined {
  let path = req.path;
  try {
    path = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  const m = ROUTE.exec(path);
  return m && req.method === 'POST' ? { model: m[1], method: m[2] } : undefined;
}

function responseText(response: unknown): string {
  const r = response as Json | undefined;
  if (typeof r?.output === 'string') return r.output;
  if (Array.isArray(r?.content)) return resultText(r.content);
  return resultText(response);
}

/** The provider-neutral view of a generateContent request (`model` from the path). */
export function geminiContext(req: RecordedRequest, index: number, model: string, stream: boolean): TurnContext {
  const body = (req.body ?? {}) as {
    contents?: { role?: string; parts?: Json[] }[];
    tools?: { functionDeclarations?: { name?: string }[] }[];
  };
  const contents = Array.isArray(body.contents) ? body.contents : [];
  const last = contents[contents.length - 1];
  const parts = last?.role !== 'model' && Array.isArray(last?.parts) ? last.parts : [];
  const toolResults: SeenToolResult[] = parts
    .map((p) => p.functionResponse as Json | undefined)
    .filter((f): f is Json => f !== undefined && f !== null)
    .map((f) => ({ name: String(f.name), ...(f.id !== undefined ? { id: String(f.id) } : {}), text: responseText(f.response) }));
  const texts = parts.filter((p) => typeof p.text === 'string').map((p) => String(p.text));
  return {
    index,
    request: req,
    model,
    stream,
    toolNames: (Array.isArray(body.tools) ? body.tools : []).flatMap((t) => (t.functionDeclarations ?? []).map((d) => String(d.name))),
    toolResults,
    ...(texts.length > 0 ? { userText: texts.join('\n') } : {}),
  };
}

function usageMetadata(reply: ScriptReply, final: boolean): Json {
  const u = reply.usage ?? DEFAULT_USAGE;
  if (!final) return { promptTokenCount: u.inputTokens, totalTokenCount: u.inputTokens };
  return {
    promptTokenCount: u.inputTokens,
    candidatesTokenCount: u.outputTokens,
    totalTokenCount: u.inputTokens + u.outputTokens + (u.reasoningTokens ?? 0),
    ...(u.cacheReadTokens ? { cachedContentTokenCount: u.cacheReadTokens } : {}),
    ...(u.reasoningTokens ? { thoughtsTokenCount: u.reasoningTokens } : {}),
  };
}

function callParts(reply: ScriptReply): Json[] {
  return (reply.toolCalls ?? []).map((c) => ({
    functionCall: { ...(c.id !== undefined ? { id: c.id } : {}), name: c.name, args: c.arguments },
  }));
}

function chunk(parts: Json[], reply: ScriptReply, ctx: TurnContext, model: string, final: boolean): Json {
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(final ? { finishReason: reply.stopReason ?? 'STOP' } : {}) }],
    usageMetadata: usageMetadata(reply, final),
    modelVersion: model,
    responseId: `standin-${ctx.index}`,
  };
}

/** The one GenerateContentResponse (the non-streaming answer). */
export function geminiResponse(reply: ScriptReply, ctx: TurnContext, model: string): Json {
  const parts: Json[] = [];
  if (reply.thinking !== undefined) parts.push({ text: reply.thinking, thought: true });
  if (reply.text !== undefined) parts.push({ text: reply.text });
  parts.push(...callParts(reply));
  return chunk(parts, reply, ctx, model, true);
}

/** The streamed chunks (before faults and extra events). */
export function geminiChunks(reply: ScriptReply, ctx: TurnContext, model: string): Json[] {
  const size = reply.fragmentSize ?? 7;
  const pieces: Json[][] = [];
  if (reply.thinking !== undefined) for (const text of fragments(reply.thinking, size)) pieces.push([{ text, thought: true }]);
  if (reply.text !== undefined) for (const text of fragments(reply.text, size)) pieces.push([{ text }]);
  const calls = callParts(reply);
  // The function calls (or, with nothing else to say, an empty part list) come last, with the finish reason.
  if (calls.length > 0 || pieces.length === 0) pieces.push(calls);
  return pieces.map((parts, i) => chunk(parts, reply, ctx, model, i === pieces.length - 1));
}

function apiError(res: ServerResponse, code: number, status: string, message: string): void {
  sendJson(res, code, { error: { code, message, status } });
}

export async function startGeminiStandin(o: GeminiStandinOptions): Promise<GeminiStandin> {
  let calls = 0;
  const server = await startStandinServer(
    async (req, res) => {
      const r = route(req);
      if (!r) return apiError(res, 404, 'NOT_FOUND', `Not found: ${req.method} ${req.path}`);
      if (req.body === undefined || typeof req.body !== 'object')
        return apiError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
      if (r.method === 'countTokens') return sendJson(res, 200, { totalTokens: Math.ceil(Buffer.byteLength(req.rawBody) / 4) });
      const stream = r.method === 'streamGenerateContent';
      const ctx = geminiContext(req, calls++, r.model, stream);
      const reply = replyFor(o.script, ctx);
      const model = o.model ?? r.model;
      const fault = reply.fault;
      if (fault?.kind === 'http-error')
        return apiError(res, fault.status, fault.errorType ?? 'INTERNAL', fault.message ?? 'Internal error encountered.');
      const broken = fault?.kind === 'broken-json';
      if (!stream || req.query.alt !== 'sse') {
        if (fault?.kind === 'error-event')
          return apiError(res, 500, fault.errorType ?? 'INTERNAL', fault.message ?? 'Internal error encountered.');
        const body = stream ? geminiChunks(reply, ctx, model) : geminiResponse(reply, ctx, model);
        if (broken) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body).slice(0, -2));
          return;
        }
        return sendJsonReply(res, body, fault);
      }
      const events: SseEvent[] = geminiChunks(reply, ctx, model).map((data, i, all) =>
        broken && i === all.length - 1 ? { data: JSON.stringify(data).slice(0, -2) } : { data },
      );
      await sendSse(res, withExtraEvents(events, reply.extraEvents), {
        fault,
        errorEvent: (f) => ({
          data: { error: { code: 500, message: f.message ?? 'Internal error encountered.', status: f.errorType ?? 'INTERNAL' } },
        }),
      });
    },
    { tls: o.tls },
  );
  return {
    ...server,
    baseURL: server.origin,
    modelCalls: () =>
      server.requests.filter((q) => {
        const r = route(q);
        return r !== undefined && r.method !== 'countTokens';
      }),
  };
}
