/**
 * Model turns on the way out of mcpscope (exports, the annotated log, `mcpscope mcp`, OTLP
 * bodies): the export-time redaction of a turn, and the short summary the HAR entry of its
 * exchange carries (`_mcpscopeModelTurn`).
 *
 * The conversation is the most sensitive thing mcpscope keeps (prompts, files the agent read,
 * tool arguments): the recorder redacted it already, and every sink redacts it again here, like a
 * body — texts as loose text (a tool use's arguments are JSON: their credential keys go too),
 * parsed arguments as JSON, the endpoint as a URL.
 */
import type { ModelToolCall, ModelTurnInfo, TranscriptEntry } from '../../core/model/events.js';
import { redactLooseText, type Redactor } from '../../recorder/redact/redact.js';
import { compact } from '../../core/model/compact.js';

function entry(e: TranscriptEntry, r: Redactor): TranscriptEntry {
  const out = { ...e, text: redactLooseText(e.text, r) };
  if (out.name !== undefined) out.name = r.text(out.name);
  return out;
}

function call(c: ModelToolCall, r: Redactor): ModelToolCall {
  const out = { ...c };
  if (out.arguments !== undefined) out.arguments = r.json(out.arguments);
  if (out.argumentsText !== undefined) out.argumentsText = redactLooseText(out.argumentsText, r);
  if (out.argumentsError !== undefined) out.argumentsError = r.text(out.argumentsError);
  return out;
}

/** A redacted copy of a turn (the store's is never touched). Callers still `scrub` the event for the token. */
export function redactTurn(t: ModelTurnInfo, r: Redactor): ModelTurnInfo {
  const out: ModelTurnInfo = {
    ...t,
    endpoint: r.url(t.endpoint),
    messages: t.messages.map((e) => entry(e, r)),
    output: t.output.map((e) => entry(e, r)),
    toolCalls: t.toolCalls.map((c) => call(c, r)),
  };
  if (t.system) out.system = entry(t.system, r);
  if (t.error !== undefined) out.error = r.text(t.error);
  return out;
}

/** What the HAR entry of a model API exchange says about its turn: no conversation text (the entry's bodies hold what was kept of it). */
export interface HarModelTurn {
  id: string;
  api: string;
  client: string;
  agent: string;
  model?: string;
  status: string;
  stopReason?: string;
  error?: string;
  usage?: ModelTurnInfo['usage'];
  /** Time to first token, ms. */
  firstTokenMs?: number;
  messageCount: number;
  toolsOffered: number;
  toolCalls: { id: string; name: string; server?: string; tool?: string; mcpCall?: { sessionId: string; seq: number } }[];
  toolResults: { callId: string; fromTurn?: string; compared?: string }[];
  /** Estimated tokens of the tools per MCP server, and the tokenizer. */
  context?: { encoding: string; toolsTokens: number; servers: { server: string; tools: number; tokens: number; share?: number }[] };
}

/** The turn's summary for `_mcpscopeModelTurn` (redacted: its error text; the rest is names and numbers). */
export function harModelTurn(t: ModelTurnInfo, r: Redactor): HarModelTurn {
  const out: HarModelTurn = {
    id: t.id,
    api: t.api,
    client: t.client,
    agent: r.text(t.agent),
    status: t.status,
    messageCount: t.messageCount,
    toolsOffered: t.tools.length,
    toolCalls: t.toolCalls.map((c) => compact({ id: c.id, name: c.name, server: c.server, tool: c.tool, mcpCall: c.mcpCall })),
    toolResults: t.toolResults.map((x) => compact({ callId: x.callId, fromTurn: x.fromTurn, compared: x.compared })),
  };
  if (t.model !== undefined) out.model = t.model;
  if (t.stopReason !== undefined) out.stopReason = t.stopReason;
  if (t.error !== undefined) out.error = r.text(t.error);
  if (t.usage) out.usage = { ...t.usage };
  if (t.firstTokenAt !== undefined) out.firstTokenMs = Math.round((t.firstTokenAt - t.startedAt) * 1000) / 1000;
  if (t.context)
    out.context = {
      encoding: t.context.encoding,
      toolsTokens: t.context.toolsTokens,
      servers: t.context.servers.map((s) => compact({ server: s.server, tools: s.tools, tokens: s.tokens, share: s.share })),
    };
  return out;
}
