/**
 * What the four dialects' response parsers share: the output blocks a response streams (text,
 * thinking, tool uses) assembled from fragments, and the state around them (model, stop reason,
 * usage, error, completeness, notes).
 *
 * Fragments are kept in arrays and joined when a block's text is read (a cache makes a second read
 * of an unchanged block free); `state()` after every event costs the number of blocks, not their
 * text, so a stream of many small deltas stays linear.
 */
import type { ModelUsage } from '../model/model-turn.js';
import type { ParsedToolCall, ResponseParser, ResponseState, RawEntry } from './dialect.js';
import { count, isObject, parseJson, quote, shapeOf, type JsonObject } from './json-parts.js';

const MAX_NOTES = 20;

interface Block {
  kind: RawEntry['kind'];
  role: RawEntry['role'];
  callId?: string;
  name?: string;
  /** Used while no fragment came (a tool use's `input` from its start event). */
  initial?: string;
  parts: string[];
  /** parts joined, valid while `joinedOf === parts.length` (-1: not joined yet). */
  joined: string;
  joinedOf: number;
  open: boolean;
  /** Still open when the stream broke off. */
  cut?: boolean;
  call?: ParsedToolCall;
  entry?: RawEntry;
}

export interface BlockInit {
  kind: RawEntry['kind'];
  callId?: string;
  name?: string;
  initial?: string;
}

/** Whether a tool's arguments text is whitespace only: read as `{}` (no arguments). */
function blank(text: string): boolean {
  return text.trim() === '';
}

export function toolCallOf(id: string, name: string, text: string, cut: boolean): ParsedToolCall {
  const call: ParsedToolCall = { id, name, argumentsText: text };
  const parsed = blank(text) ? ({ ok: true, value: {} } as const) : parseJson(text);
  if (cut) {
    call.argumentsError = parsed.ok
      ? 'the stream broke off before the arguments ended'
      : `the stream broke off before the arguments ended (${parsed.error})`;
  } else if (parsed.ok) {
    call.arguments = parsed.value;
  } else {
    call.argumentsError = `the arguments are not valid JSON: ${parsed.error}`;
  }
  return call;
}

export function usageOf(u: {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}): ModelUsage | undefined {
  const usage: ModelUsage = {};
  if (u.input !== undefined) usage.inputTokens = u.input;
  if (u.output !== undefined) usage.outputTokens = u.output;
  if (u.cacheRead !== undefined) usage.cacheReadTokens = u.cacheRead;
  if (u.cacheWrite !== undefined) usage.cacheWriteTokens = u.cacheWrite;
  if (u.reasoning !== undefined) usage.reasoningTokens = u.reasoning;
  if (u.input !== undefined || u.cacheRead !== undefined || u.cacheWrite !== undefined) {
    usage.totalInputTokens = (u.input ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
  }
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/**
 * A response parser's common half. A dialect extends it with `event` and `json`, opens, feeds and
 * closes blocks by a key of its own (a content block index, an item id), and sets the fields.
 */
/**
 * OpenAI's usage (Chat Completions: prompt/completion tokens; Responses: input/output tokens): its
 * input count includes the cached tokens, which are taken out here (input = not cached).
 */
export function openAiUsage(input: unknown, output: unknown, inputDetails: unknown, outputDetails: unknown): ModelUsage | undefined {
  const total = count(input);
  const cached = isObject(inputDetails) ? count(inputDetails.cached_tokens) : undefined;
  const reasoning = isObject(outputDetails) ? count(outputDetails.reasoning_tokens) : undefined;
  return usageOf({
    input: total === undefined ? undefined : Math.max(0, total - (cached ?? 0)),
    output: count(output),
    cacheRead: cached,
    reasoning,
  });
}

export abstract class ResponseBase implements ResponseParser {
  model?: string;
  stopReason?: string;
  usage?: ModelUsage;
  error?: string;
  complete = false;
  private readonly blocks: Block[] = [];
  private readonly byKey = new Map<string, Block>();
  private readonly notes: string[] = [];
  private readonly noted = new Set<string>();
  /** Tool calls whose blocks closed, in that order: the list only grows (the recorder offers calls by index). */
  private readonly calls: ParsedToolCall[] = [];
  private ended?: ResponseState;

  abstract event(eventType: string | undefined, data: string): boolean;
  abstract json(body: unknown): void;

  /** What the stream's own end is called (`message_stop`), for the note of a stream that ended without it. */
  protected abstract readonly endName: string;
  /** The id of a tool call the wire gave none: `<prefix>-<n>`. */
  protected readonly fallbackIdPrefix: string = 'call';

  private sawContent = false;

  /** True the first time only: the event that carried the response's first content dates the time to first token. */
  protected content(): boolean {
    if (this.sawContent) return false;
    this.sawContent = true;
    return true;
  }

  /** An SSE event's data as a JSON object; anything else is noted and undefined. */
  protected eventObject(eventType: string | undefined, data: string): JsonObject | undefined {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      this.note(`an event${eventType ? ` (${quote(eventType)})` : ''} whose data is not JSON was ignored`);
      return undefined;
    }
    if (!isObject(value)) {
      this.note(`an event's data is ${shapeOf(value)}, not an object`);
      return undefined;
    }
    return value;
  }

  /** A whole JSON body as an object; anything else is noted and undefined. */
  protected bodyObject(body: unknown): JsonObject | undefined {
    if (body === undefined) {
      this.note('the response body is not JSON');
      return undefined;
    }
    if (!isObject(body)) {
      this.note(`the response body is ${shapeOf(body)}, not an object`);
      return undefined;
    }
    return body;
  }

  /** A note, said once however often it happens; at most MAX_NOTES of them. */
  note(text: string): void {
    if (this.noted.has(text) || this.notes.length > MAX_NOTES) return;
    this.noted.add(text);
    this.notes.push(this.notes.length === MAX_NOTES ? 'more notes were left out' : text);
  }

  /** Opens a block under `key` (an open block of the same key is closed first). */
  open(key: string, init: BlockInit): void {
    const previous = this.byKey.get(key);
    if (previous?.open) this.closeBlock(previous);
    const block: Block = { kind: init.kind, role: 'assistant', parts: [], joined: '', joinedOf: -1, open: true };
    if (init.callId !== undefined) block.callId = init.callId;
    if (init.name !== undefined) block.name = init.name;
    if (init.initial !== undefined) block.initial = init.initial;
    this.blocks.push(block);
    this.byKey.set(key, block);
  }

  has(key: string): boolean {
    return this.byKey.get(key)?.open === true;
  }

  kindOf(key: string): RawEntry['kind'] | undefined {
    return this.byKey.get(key)?.kind;
  }

  /** Whether the block `key` has no fragment yet. */
  isEmpty(key: string): boolean {
    return (this.byKey.get(key)?.parts.length ?? 0) === 0;
  }

  /** Appends a fragment to the open block `key`; false when there is none. */
  append(key: string, fragment: string): boolean {
    const block = this.byKey.get(key);
    if (!block?.open) return false;
    if (fragment !== '') block.parts.push(fragment);
    return true;
  }

  /** Replaces an open block's text (a `done` event that carries the whole text). */
  replace(key: string, text: string): void {
    const block = this.byKey.get(key);
    if (!block?.open) return;
    block.parts = [text];
    block.joinedOf = -1;
  }

  /** Sets a tool block's id or name when a later fragment carries them (as the OpenAI SDK's stream accumulator does: the last one given wins). */
  identify(key: string, callId: string | undefined, name: string | undefined): void {
    const block = this.byKey.get(key);
    if (!block) return;
    if (callId) block.callId = callId;
    if (name) block.name = name;
  }

  close(key: string): void {
    const block = this.byKey.get(key);
    if (block?.open) this.closeBlock(block);
  }

  /** Closes every open block (a chunk with a finish reason ends them all). */
  closeAll(): void {
    for (const block of this.byKey.values()) if (block.open) this.closeBlock(block);
  }

  private closeBlock(block: Block): void {
    block.open = false;
    this.finishCall(block);
  }

  /** Adds a whole block at once (a non-streaming body's content). */
  whole(init: BlockInit, text: string): void {
    const block: Block = { kind: init.kind, role: 'assistant', parts: [text], joined: '', joinedOf: -1, open: false };
    if (init.callId !== undefined) block.callId = init.callId;
    if (init.name !== undefined) block.name = init.name;
    this.blocks.push(block);
    this.finishCall(block);
  }

  private text(block: Block): string {
    if (block.joinedOf !== block.parts.length) {
      block.joined = block.parts.length === 0 ? (block.initial ?? '') : block.parts.join('');
      if (block.parts.length > 1) block.parts = [block.joined];
      block.joinedOf = block.parts.length;
    }
    return block.joined;
  }

  /** A block's entry: made once, its text read (joined) only when asked for, so reading the state after every event stays cheap. */
  private entryOf(block: Block): RawEntry {
    if (!block.entry) {
      const entry = { role: block.role, kind: block.kind } as RawEntry;
      Object.defineProperty(entry, 'text', { enumerable: true, get: () => this.text(block) });
      block.entry = entry;
    }
    const entry = block.entry;
    if (block.callId !== undefined) entry.callId = block.callId;
    if (block.name !== undefined) entry.name = block.name;
    return entry;
  }

  /** A tool block has closed: its call is parsed once and joins the calls, in the order they closed. */
  private finishCall(block: Block): void {
    if (block.kind !== 'tool-use' || block.call) return;
    // A call without an id (Gemini's, some OpenAI-compatible servers'): `<prefix>-<n>`, n its place among this response's calls.
    block.callId ||= `${this.fallbackIdPrefix}-${this.calls.length}`;
    if (block.entry) block.entry.callId = block.callId;
    block.call = toolCallOf(block.callId, block.name ?? '', this.text(block), block.cut === true);
    this.calls.push(block.call);
  }

  state(): ResponseState {
    if (this.ended) return this.ended;
    const state: ResponseState = {
      output: this.blocks.map((b) => this.entryOf(b)),
      toolCalls: this.calls.slice(),
      complete: this.complete,
      notes: this.notes.slice(),
    };
    if (this.model !== undefined) state.model = this.model;
    if (this.stopReason !== undefined) state.stopReason = this.stopReason;
    if (this.usage !== undefined) state.usage = this.usage;
    if (this.error !== undefined) state.error = this.error;
    return state;
  }

  end(cut: boolean): ResponseState {
    if (this.ended) return this.ended;
    const open = this.blocks.filter((b) => b.open);
    for (const block of open) {
      if (cut && !this.complete) block.cut = true;
      this.closeBlock(block);
    }
    if (!this.complete && this.error === undefined) {
      const missing = open
        .filter((b) => b.kind === 'tool-use')
        .map((b) => `tool call ${b.callId ?? '(no id)'} (${b.name ?? 'no name'}) had not finished its arguments`);
      const head = cut ? 'the response broke off' : 'the response ended';
      this.note(
        `${head} before ${this.endName}${missing.length > 0 ? `: ${missing.join('; ')}` : open.length > 0 ? ' with a content block still open' : ''}`,
      );
    }
    this.ended = this.state();
    return this.ended;
  }
}
