/**
 * For the model-API dialect tests: a wire SSE text cut into its events (`event:` and `data:`
 * fields, data lines joined with \n, as the recorder's SSE reader gives them to a dialect), and
 * a replay of a prefix of them into a dialect's response parser.
 */
import type { ModelApiDialect, ParsedRequest, ResponseParser } from '../../proxy/core/model-api/dialect.js';

export interface WireEvent {
  type?: string;
  data: string;
}

export function sseEvents(text: string): WireEvent[] {
  const events: WireEvent[] = [];
  for (const block of text.replace(/\r\n/g, '\n').split(/\n\n+/)) {
    let type: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) type = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) events.push(type === undefined ? { data: data.join('\n') } : { type, data: data.join('\n') });
  }
  return events;
}

/** Feeds the first `upTo` events (all by default); `firsts` are the indexes whose event() said "first content". */
export function replay(
  dialect: ModelApiDialect,
  request: ParsedRequest,
  events: WireEvent[],
  upTo = events.length,
): { parser: ResponseParser; firsts: number[] } {
  const parser = dialect.newResponse(request);
  const firsts: number[] = [];
  events.slice(0, upTo).forEach((e, i) => {
    if (parser.event(e.type, e.data)) firsts.push(i);
  });
  return { parser, firsts };
}
