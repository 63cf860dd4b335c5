/**
 * A capture file is untrusted input: a `model-turn` event (or a `modelCall` link) of the wrong
 * shape refuses the file with a sentence saying which line and what is wrong, never a crash of a
 * reader later (the UI, the annotated log, `mcpscope mcp` walk `toolCalls`, `messages`, …).
 */
import { describe, expect, it } from 'vitest';
import { readCapture } from '../../../proxy/files/import/import-capture.js';
import { CaptureFormatError } from '../../../proxy/core/model/errors.js';
import { modelTurnProblem } from '../../../proxy/files/import/model-turn-shape.js';
import type { McpscopeEvent } from '../../../proxy/core/model/events.js';
import { sampleAgentEvents, TURN_1, TURN_2 } from '../../support/model-turn-sample.js';

const ndjson = (events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';

/** The sample with its first model-turn event's turn replaced by `turn`. */
function withTurn(turn: unknown): unknown[] {
  const events: unknown[] = sampleAgentEvents();
  const i = events.findIndex((e) => (e as McpscopeEvent).type === 'model-turn');
  events[i] = { ...(events[i] as object), turn };
  return events;
}

describe('model-turn events on import', () => {
  it('the sample’s turns are model turns', () => {
    expect(modelTurnProblem(TURN_1)).toBeUndefined();
    expect(modelTurnProblem(TURN_2)).toBeUndefined();
    expect(readCapture(ndjson(sampleAgentEvents())).events.filter((e) => e.type === 'model-turn')).toHaveLength(4);
  });

  const cases: [string, unknown, string][] = [
    ['no turn', undefined, 'whose turn is not an object'],
    ['a string turn', 'm1', 'whose turn is not an object'],
    ['toolCalls not a list', { ...TURN_1, toolCalls: { 0: TURN_1.toolCalls[0] } }, 'has no "toolCalls" list'],
    ['a tool call without a name', { ...TURN_1, toolCalls: [{ id: 'x' }] }, 'has a toolCalls[0] that has no string "id" and "name"'],
    [
      'an entry whose text is an object',
      { ...TURN_1, output: [{ role: 'assistant', kind: 'text', text: {}, bytes: 1 }] },
      'has a output[0] that has no string "text"',
    ],
    [
      'a bad mcpCall ref',
      { ...TURN_1, toolCalls: [{ ...TURN_1.toolCalls[0], mcpCall: { seq: '9' } }] },
      'mcpCall or mcpResult that is not {sessionId, seq}',
    ],
    ['usage of strings', { ...TURN_1, usage: { inputTokens: '4' } }, 'has a usage.inputTokens that is not a number'],
    ['an unknown status', { ...TURN_1, status: 'x'.repeat(500) }, 'has an unknown "status"'],
    ['context.servers missing', { ...TURN_1, context: { ...TURN_1.context, servers: null } }, 'has no context.servers list'],
    ['no hints', { ...TURN_1, hints: undefined }, 'has no "hints" list'],
  ];
  for (const [name, turn, says] of cases) {
    it(`refuses ${name}, naming the line`, () => {
      const text = ndjson(withTurn(turn));
      let err: unknown;
      try {
        readCapture(text);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(CaptureFormatError);
      const message = (err as Error).message;
      expect(message).toMatch(/^Line 8 of this NDJSON file is not an mcpscope event: it is a model-turn event /);
      expect(message).toContain(says);
      expect(message.length).toBeLessThan(300);
    });
  }

  it('refuses a message whose modelCall is not a link, and a JSON array of events the same way', () => {
    const events: unknown[] = sampleAgentEvents().map((e) => (e.type === 'message' && e.modelCall ? { ...e, modelCall: ['m1'] } : e));
    expect(() => readCapture(ndjson(events))).toThrow(/Line 9 .* it has a "modelCall" without string turn, callId and name/);
    expect(() => readCapture(JSON.stringify(withTurn({ ...TURN_1, messages: 3 })))).toThrow(
      /item 8 is a model-turn event whose turn has no "messages" list/,
    );
  });
});
