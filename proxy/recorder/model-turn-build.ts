/**
 * A model turn's kept form: what the dialects read off the wire (proxy/model-api/),
 * bounded and redacted into the event schema's ModelTurnInfo parts. Nothing here keeps state.
 *
 * Bounds: a transcript entry keeps 8 KiB of text (the system prompt 16 KiB), a turn keeps its
 * last 200 entries of new messages and 200 of output, 512 tools offered, 128 tool calls.
 */
import type { ModelToolCall, ModelUsage, ToolOffered, TranscriptEntry } from '../core/model/model-turn.js';
import type { ParsedRequest, RawEntry, RawTool, ResponseState } from '../core/model-api/dialect.js';
import { byteLength } from '../core/model/byte-length.js';
import type { Redactor } from './redact/redact.js';

export const ENTRY_TEXT_CHARS = 8 * 1024;
export const SYSTEM_TEXT_CHARS = 16 * 1024;
export const MAX_ENTRIES = 200;
export const MAX_TOOLS = 512;
export const MAX_CALLS = 128;

/** A text cut to `max` characters (never inside a surrogate pair), with its full size. */
export function boundText(text: string, max: number): { text: string; bytes: number; truncated?: boolean } {
  const bytes = byteLength(text);
  if (text.length <= max) return { text, bytes };
  let end = max;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end -= 1;
  return { text: `${text.slice(0, end)}…`, bytes, truncated: true };
}

/** One entry, redacted (secrets in prompt text too: the secret rules run over it) then bounded. */
export function keptEntry(e: RawEntry, redactor: Redactor, max = ENTRY_TEXT_CHARS): TranscriptEntry {
  const b = boundText(redactor.text(e.text), max);
  const out: TranscriptEntry = { role: e.role, kind: e.kind, text: b.text, bytes: b.bytes };
  if (b.truncated) out.truncated = true;
  if (e.callId !== undefined) out.callId = redactor.text(e.callId);
  if (e.name !== undefined) out.name = redactor.text(e.name);
  if (e.isError) out.isError = true;
  return out;
}

/**
 * The request's messages from `from` on (whole messages), kept: at most MAX_ENTRIES entries,
 * the latest ones (`from` moves up to the first message kept whole).
 */
export function keptMessages(req: ParsedRequest, from: number, redactor: Redactor): { from: number; entries: TranscriptEntry[] } {
  let first = Math.max(0, Math.min(from, req.messageCount));
  const startOf = (i: number) => (i < req.messageStarts.length ? req.messageStarts[i] : req.messages.length);
  while (first < req.messageCount && req.messages.length - startOf(first) > MAX_ENTRIES) first += 1;
  const entries = req.messages.slice(startOf(first)).slice(-MAX_ENTRIES);
  return { from: first, entries: entries.map((e) => keptEntry(e, redactor)) };
}

export function keptOutput(res: ResponseState, redactor: Redactor): TranscriptEntry[] {
  return res.output.slice(0, MAX_ENTRIES).map((e) => keptEntry(e, redactor));
}

/** Tools as offered, before their tokens are counted: names, the MCP server/tool they stand for, sizes. */
export function offeredTools(
  tools: RawTool[],
  resolve: (name: string) => { server?: string; tool?: string },
  redactor: Redactor,
): Omit<ToolOffered, 'descriptionTokens' | 'schemaTokens'>[] {
  return tools.slice(0, MAX_TOOLS).map((t) => {
    const r = resolve(t.name);
    const out: Omit<ToolOffered, 'descriptionTokens' | 'schemaTokens'> = {
      name: redactor.text(t.name),
      descriptionBytes: byteLength(t.description),
      schemaBytes: byteLength(t.schemaText),
    };
    if (r.server !== undefined) out.server = redactor.text(r.server);
    if (r.tool !== undefined) out.tool = redactor.text(r.tool);
    return out;
  });
}

/** The response's tool calls, kept (arguments redacted as JSON, or their text when they did not parse). */
export function keptCalls(
  res: ResponseState,
  resolve: (name: string) => { server?: string; tool?: string },
  redactor: Redactor,
): ModelToolCall[] {
  return res.toolCalls.slice(0, MAX_CALLS).map((c) => {
    const r = resolve(c.name);
    const out: ModelToolCall = { id: redactor.text(c.id), name: redactor.text(c.name) };
    if (r.server !== undefined) out.server = redactor.text(r.server);
    if (r.tool !== undefined) out.tool = redactor.text(r.tool);
    if (c.arguments !== undefined) out.arguments = redactor.json(c.arguments);
    else {
      out.argumentsText = boundText(redactor.text(c.argumentsText), ENTRY_TEXT_CHARS).text;
      if (c.argumentsError !== undefined) out.argumentsError = c.argumentsError;
    }
    return out;
  });
}

/** Usage with the total the model read (input + cache read + cache write) filled in. */
export function withTotal(usage: ModelUsage | undefined): ModelUsage | undefined {
  if (!usage) return undefined;
  const parts = [usage.inputTokens, usage.cacheReadTokens, usage.cacheWriteTokens].filter((n): n is number => typeof n === 'number');
  if (usage.totalInputTokens === undefined && parts.length > 0) return { ...usage, totalInputTokens: parts.reduce((a, b) => a + b, 0) };
  return usage;
}

/** The text of an MCP `tools/call` result as a model would get it: its text content joined; other content named. */
export function mcpResultText(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const content = (result as { content?: unknown }).content;
  if (!Array.isArray(content)) return undefined;
  const parts: string[] = [];
  for (const c of content) {
    if (typeof c !== 'object' || c === null) continue;
    const item = c as { type?: unknown; text?: unknown };
    if (item.type === 'text' && typeof item.text === 'string') parts.push(item.text);
  }
  return parts.join('\n');
}

/** How the result the model got differs from the server's, in words (undefined: the same). */
export function compareResults(server: string, model: string, serverTruncated: boolean): string | undefined {
  const norm = (s: string) => s.replace(/\r\n/g, '\n').trim();
  const a = norm(server);
  const b = norm(model);
  if (a === b) return undefined;
  if (serverTruncated && b.startsWith(a)) return undefined;
  const sa = byteLength(a);
  const sb = byteLength(b);
  if (b.length < a.length && a.startsWith(b.replace(/…$/, '')))
    return `the model got the first ${sb.toLocaleString('en-US')} of the server's ${sa.toLocaleString('en-US')} bytes`;
  if (b.includes(a)) return `the client wrapped the server's ${sa.toLocaleString('en-US')} bytes in ${sb.toLocaleString('en-US')}`;
  return `the model got ${sb.toLocaleString('en-US')} bytes where the server answered ${sa.toLocaleString('en-US')}, with other text`;
}
