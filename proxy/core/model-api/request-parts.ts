/**
 * Builds a `ParsedRequest` (dialect.ts) as a dialect walks a request body: messages and their
 * entries in order, the tool results among them, tools, notes. Shared by the four dialects.
 */
import type { ParsedRequest, RawEntry, RawTool } from './dialect.js';
import { jsonText, str } from './json-parts.js';

export class RequestBuilder {
  readonly messages: RawEntry[] = [];
  readonly messageStarts: number[] = [];
  readonly tools: RawTool[] = [];
  readonly toolResults: ParsedRequest['toolResults'] = [];
  readonly notes: string[] = [];
  private readonly systemParts: string[] = [];
  private readonly noted = new Set<string>();

  /** A new message (turn of the conversation) begins: its entries follow. */
  startMessage(): void {
    this.messageStarts.push(this.messages.length);
  }

  add(entry: RawEntry): void {
    this.messages.push(entry);
    if (entry.kind === 'tool-result' && entry.callId !== undefined) {
      const result: ParsedRequest['toolResults'][number] = { callId: entry.callId, text: entry.text };
      if (entry.name !== undefined) result.name = entry.name;
      if (entry.isError) result.isError = true;
      this.toolResults.push(result);
    }
  }

  system(text: string): void {
    this.systemParts.push(text);
  }

  tool(name: string, description: unknown, schema: unknown): void {
    this.tools.push({ name, description: str(description) ?? '', schemaText: jsonText(schema) });
  }

  /** A note, said once however often it happens. */
  note(text: string): void {
    if (this.noted.has(text)) return;
    this.noted.add(text);
    this.notes.push(text);
  }

  build(fields: Pick<ParsedRequest, 'model' | 'stream' | 'toolChoice' | 'maxTokens'>): ParsedRequest {
    const request: ParsedRequest = {
      stream: fields.stream,
      messages: this.messages,
      messageCount: this.messageStarts.length,
      messageStarts: this.messageStarts,
      tools: this.tools,
      toolResults: this.toolResults,
      notes: this.notes,
    };
    if (fields.model !== undefined) request.model = fields.model;
    if (this.systemParts.length > 0) request.system = this.systemParts.join('\n\n');
    if (fields.toolChoice !== undefined) request.toolChoice = fields.toolChoice;
    if (fields.maxTokens !== undefined) request.maxTokens = fields.maxTokens;
    return request;
  }
}
