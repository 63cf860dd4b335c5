/**
 * What `mcpscope mcp`'s model-turn tools hand an agent (agent-model-tools.ts): compact text plus
 * JSON, like agent-format.ts. Everything that came from the wire — model and tool names, the
 * conversation, arguments, results, errors, agent ids (a client's header) — is inside the
 * captured-traffic frame (agent-frame.ts), escaped; mcpscope's own words (counts, what to call
 * next) outside it. Redacted again here (the texts as exports redact them) and bounded.
 */
import type { ModelTurnInfo, TranscriptEntry } from '../../core/model/events.js';
import type { Redactor } from '../../recorder/redact/redact.js';
import type { AgentContextCost, ContextCostView, ModelTurnView, TurnList, TurnSummary } from '../../recorder/store/model-views.js';
import { redactTurn } from '../../files/export/export-model-turn.js';
import { groupDigits } from '../../files/export/text-log-model.js';
import { formatMs } from '../../core/model/units.js';
import { plural } from '../../core/annotate/hint-text.js';
import { compactMessage, MAX_RESULT_TEXT, type ToolOutput } from './agent-format.js';
import { agentText } from './agent-frame.js';

/** Characters of one transcript entry shown in get_model_turn. */
const MAX_ENTRY_TEXT = 2000;

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function tokens(u: TurnSummary['usage']): string {
  if (!u) return 'no usage reported';
  const input = u.totalInputTokens ?? u.inputTokens;
  const parts = [
    input !== undefined ? `${groupDigits(input)} in` : undefined,
    u.cacheReadTokens ? `${groupDigits(u.cacheReadTokens)} from cache` : undefined,
    u.cacheWriteTokens ? `${groupDigits(u.cacheWriteTokens)} written to cache` : undefined,
    u.outputTokens !== undefined ? `${groupDigits(u.outputTokens)} out` : undefined,
  ];
  return parts.filter((p) => p !== undefined).join(', ') || 'no usage reported';
}

function callText(c: TurnSummary['toolCalls'][number]): string {
  const where = c.mcpCall
    ? ` → MCP #${c.mcpCall.seq} in ${c.mcpCall.sessionId}${c.mcpResult ? `, result #${c.mcpResult.seq}${c.mcpFailed ? ' (failed)' : ''}` : ', no result yet'}`
    : ' → no MCP call joined';
  return `${c.name} (${c.id})${where}${c.resultTurn ? `, result back to the model in ${c.resultTurn}` : ''}`;
}

function turnLine(t: TurnSummary): string {
  const took = t.durationMs !== undefined ? ` in ${formatMs(t.durationMs)}` : '';
  const head = `${t.id} ${new Date(t.startedAt).toISOString().slice(11, 23)} ${t.model ?? '(model not named)'} ${t.status}${took}: ${tokens(t.usage)}${t.stopReason ? `, stop ${t.stopReason}` : ''}${t.error ? `, error: ${t.error}` : ''} [agent ${t.agent}, ${t.api}, session ${t.sessionId}]`;
  return t.toolCalls.length === 0 ? head : `${head}; chose ${t.toolCalls.map(callText).join('; ')}`;
}

export function formatTurnList(list: TurnList, r: Redactor): ToolOutput {
  const v = r.json(list);
  const head =
    v.total === 0
      ? 'No model turns recorded: no client has called a model API (Anthropic Messages, OpenAI Chat Completions or Responses, Gemini) through this mcpscope, or the filter matched none.'
      : `${plural(v.total, 'model turn')}, newest first${v.turns.length < v.total ? ` (${v.turns.length} shown: raise limit for more)` : ''}. get_model_turn with an id shows one whole.`;
  return {
    text: agentText([head], v.turns.map(turnLine), [], MAX_RESULT_TEXT, 'lower limit or filter by agent'),
    structured: { turns: v.turns, total: v.total, agents: v.agents },
  };
}

function entryLine(e: TranscriptEntry, prefix: string): string {
  const what =
    e.kind === 'tool-use'
      ? `tool use ${e.name ?? ''} (${e.callId ?? ''}): `
      : e.kind === 'tool-result'
        ? `tool result (${e.callId ?? ''})${e.isError ? ' [error]' : ''}: `
        : e.kind === 'text'
          ? ''
          : `${e.kind}: `;
  const more = e.truncated || e.text.length > MAX_ENTRY_TEXT ? ` [cut: ${groupDigits(e.bytes)} bytes in all]` : '';
  return `${prefix}${e.role} ${what}${cut(e.text, MAX_ENTRY_TEXT)}${more}`;
}

export function formatTurnView(view: ModelTurnView, r: Redactor): ToolOutput {
  const t: ModelTurnInfo = r.json(redactTurn(view.turn, r));
  const calls = view.calls.map((c) => ({
    callId: c.callId,
    name: c.name,
    ...(c.request ? { request: compactMessage(r.json(c.request), 3000) } : {}),
    ...(c.response ? { response: compactMessage(r.json(c.response), 3000) } : {}),
  }));
  const lines: string[] = [turnLine(summaryOf(t))];
  if (t.system) lines.push(entryLine(t.system, 'system: '));
  lines.push(
    `request: ${t.messageCount} messages${t.messagesFrom > 0 ? `, ${t.messagesFrom} already sent in the agent's earlier turns (the rest below)` : ''}; ${t.tools.length} tools offered${t.toolChoice ? `, tool choice ${t.toolChoice}` : ''}${t.maxTokens !== undefined ? `, max_tokens ${t.maxTokens}` : ''}`,
  );
  for (const m of t.messages) lines.push(entryLine(m, '  > '));
  lines.push('response:');
  for (const o of t.output) lines.push(entryLine(o, '  < '));
  for (const c of calls) {
    lines.push(
      `MCP call for ${c.name} (${c.callId}): ${c.request ? `#${c.request.seq} ${c.request.json}${c.request.jsonCut ? ' [cut]' : ''}` : 'none joined (the client never called it, or it is no longer in the store)'}`,
    );
    if (c.response) lines.push(`  result #${c.response.seq}: ${c.response.json}${c.response.jsonCut ? ' [cut]' : ''}`);
  }
  for (const x of t.toolResults)
    lines.push(
      `result sent back for ${x.callId}${x.fromTurn ? ` (asked for in ${x.fromTurn})` : ''}: ${groupDigits(x.bytes)} bytes${x.compared ? `, ${x.compared} as the server answered` : ''}${x.note ? ` (${x.note})` : ''}`,
    );
  for (const h of t.hints) lines.push(`hint ${h.level} ${h.code}: ${h.text}`);
  const structured = {
    turn: {
      ...t,
      messages: t.messages.map((e) => ({ ...e, text: cut(e.text, MAX_ENTRY_TEXT) })),
      output: t.output.map((e) => ({ ...e, text: cut(e.text, MAX_ENTRY_TEXT) })),
      system: t.system && { ...t.system, text: cut(t.system.text, MAX_ENTRY_TEXT) },
    },
    calls,
  };
  return {
    text: agentText([`Model turn ${t.id} (${t.status}).`], lines, [], MAX_RESULT_TEXT, 'the structured result has the turn whole'),
    structured,
  };
}

function summaryOf(t: ModelTurnInfo): TurnSummary {
  return {
    id: t.id,
    sessionId: t.sessionId,
    exchangeId: t.exchangeId,
    agent: t.agent,
    client: t.client,
    api: t.api,
    model: t.model,
    status: t.status,
    startedAt: t.startedAt,
    durationMs: t.endedAt !== undefined ? t.endedAt - t.startedAt : undefined,
    usage: t.usage,
    stopReason: t.stopReason,
    error: t.error,
    toolsOffered: t.tools.length,
    toolCalls: t.toolCalls,
    toolResults: t.toolResults.length,
    hints: t.hints.length,
  };
}

function pct(share: number | undefined): string {
  return share === undefined ? 'share unknown (no input count reported)' : `${(share * 100).toFixed(share < 0.1 ? 1 : 0)} % of input`;
}

function agentLines(a: AgentContextCost): string[] {
  const head = `agent ${a.agent} (${a.client}), turn ${a.turn}${a.model ? ` ${a.model}` : ''}: tools ≈ ${groupDigits(a.toolsTokens)} tokens of ${a.totalInputTokens !== undefined ? `${groupDigits(a.totalInputTokens)} input` : 'an input not reported'} (${a.encoding} estimate)`;
  return [
    head,
    ...a.servers.map(
      (s) =>
        `  ${s.server}: ${plural(s.tools, 'tool')}, ≈ ${groupDigits(s.tokens)} tokens in every request (descriptions ${groupDigits(s.descriptionTokens)}, schemas ${groupDigits(s.schemaTokens)})${s.instructionsTokens ? ` + instructions ≈ ${groupDigits(s.instructionsTokens)}` : ''}, ${pct(s.share)}${s.sessionId ? ` [MCP session ${s.sessionId}]` : ''}`,
    ),
  ];
}

export function formatContextCosts(view: ContextCostView, r: Redactor): ToolOutput {
  const v = r.json(view);
  const head =
    v.agents.length === 0
      ? 'No context cost yet: no model request with tools has been recorded (or none for that agent).'
      : `What the tools cost each agent's model, from its latest request (${plural(v.agents.length, 'agent')}); tokens are estimates unless the encoding says otherwise, shares are of the real input the API reported.`;
  return {
    text: agentText([head], v.agents.flatMap(agentLines), [], MAX_RESULT_TEXT, 'filter by agent'),
    structured: { agents: v.agents },
  };
}
