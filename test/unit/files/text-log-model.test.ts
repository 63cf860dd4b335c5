/**
 * The annotated log's model turns (docs/terminal-log.md): a headline per finished turn, printed
 * once whatever number of upserts follow; nothing for a pending one; the MCP tools/call that
 * carried out a tool call names its turn; later upserts print only hints the turn did not have;
 * peer text is escaped like every other line.
 */
import { describe, expect, it } from 'vitest';
import { formatTextLog, TextLog } from '../../../proxy/files/export/text-log.js';
import { renderEntry, renderJsonEntry } from '../../../proxy/files/export/text-log-render.js';
import { groupDigits } from '../../../proxy/files/export/text-log-model.js';
import type { McpscopeEvent, ModelTurnEvent, ModelTurnInfo } from '../../../proxy/core/model/events.js';
import { sampleAgentEvents, TURN_1 } from '../../support/model-turn-sample.js';

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
const upsert = (seq: number, turn: ModelTurnInfo): ModelTurnEvent => ({
  type: 'model-turn',
  seq,
  ts: turn.endedAt ?? turn.startedAt,
  sessionId: turn.sessionId,
  turn,
});

describe('model turns in the annotated log', () => {
  it('the sample: one MODEL line per turn, the tools/call request names its turn (its response does not)', () => {
    const text = formatTextLog(sampleAgentEvents(), { utc: true });
    const model = lines(text).filter((l) => l.includes('MODEL'));
    expect(model).toEqual([
      '09:30:00.400 s2   <<< MODEL claude-sonnet-4-5 31,338 in / 61 out · tool_use mcp__se__echo  (m1, 300 ms, first token 140 ms)',
      '09:30:00.800 s2   <<< MODEL claude-sonnet-4-5 31,454 in / 12 out · end_turn  (m2, 200 ms, first token 100 ms)',
    ]);
    expect(lines(text).filter((l) => l.includes('← model turn'))).toEqual([
      '09:30:00.450 s1   #9 C→S request tools/call echo (id 2)  ← model turn m1 (mcp__se__echo)',
    ]);
    // The MODEL line comes before the call it caused, and the next turn after its result.
    const at = (s: string) => text.indexOf(s);
    expect(at('<<< MODEL claude-sonnet-4-5 31,338')).toBeLessThan(at('#9 C→S'));
    expect(at('#10 S→C')).toBeLessThan(at('<<< MODEL claude-sonnet-4-5 31,454'));
  });

  it('live, batch by batch, prints the same lines as the export of the history', () => {
    const log = new TextLog();
    let live = '';
    for (const e of sampleAgentEvents()) for (const entry of log.push([e])) live += renderEntry(entry, { utc: true });
    expect(live).toBe(formatTextLog(sampleAgentEvents(), { utc: true }));
  });

  it('a pending turn prints nothing; its first finished upsert prints once; link upserts print nothing; a new hint prints a short entry', () => {
    const log = new TextLog();
    const pending: ModelTurnInfo = {
      ...TURN_1,
      status: 'pending',
      endedAt: undefined,
      usage: undefined,
      stopReason: undefined,
      output: [],
      toolCalls: [],
    };
    expect(log.push([upsert(1, pending)])).toEqual([]);
    const done = log.push([upsert(2, { ...TURN_1, toolCalls: [{ ...TURN_1.toolCalls[0], mcpCall: undefined, mcpResult: undefined }] })]);
    expect(done).toHaveLength(1);
    expect(done[0].kind).toBe('model-turn');
    expect(log.push([upsert(3, TURN_1)])).toEqual([]);
    const hint = { level: 'warn' as const, code: 'result-changed', text: 'The client cut the result before the model got it.' };
    const later = log.push([upsert(4, { ...TURN_1, hints: [hint] })]);
    expect(later.map((e) => renderEntry(e, { utc: true }))).toEqual([
      '09:30:00.400 s2   ... MODEL m1 claude-sonnet-4-5\n                    ↳ warning: The client cut the result before the model got it.\n',
    ]);
    expect(log.push([upsert(5, { ...TURN_1, hints: [hint] })])).toEqual([]);
  });

  it('a turn first printed with its links already made shows where its tool calls went', () => {
    const text = formatTextLog([upsert(1, TURN_1)], { utc: true });
    expect(text).toContain('  mcp__se__echo → #9 tools/call echo (s1)');
  });

  it('a cut or failed turn says so, with what broke', () => {
    const cut = formatTextLog(
      [upsert(1, { ...TURN_1, status: 'cut', error: 'the stream ended\nbefore message_stop', usage: { inputTokens: 4 } })],
      { utc: true },
    );
    expect(lines(cut).slice(0, 2)).toEqual([
      '09:30:00.400 s2   !!! MODEL CUT claude-sonnet-4-5 4 in · tool_use mcp__se__echo  (m1, 300 ms, first token 140 ms)',
      '                      the stream ended before message_stop',
    ]);
    const error = formatTextLog(
      [
        upsert(1, {
          ...TURN_1,
          status: 'error',
          model: undefined,
          usage: undefined,
          stopReason: undefined,
          toolCalls: [],
          error: 'overloaded_error: Overloaded',
        }),
      ],
      { utc: true },
    );
    expect(lines(error)[0]).toBe('09:30:00.400 s2   !!! MODEL ERROR (model not named)  (m1, 300 ms, first token 140 ms)');
  });

  it('peer text (a model or tool name with terminal escapes) is printed inert, in text and JSON lines', () => {
    const evil: ModelTurnInfo = {
      ...TURN_1,
      model: 'claude\x1b]52;c;aGk=\x07',
      toolCalls: [{ ...TURN_1.toolCalls[0], name: 'mcp__se__echo\u202e', mcpCall: undefined }],
    };
    const entries = new TextLog().push([upsert(1, evil)] as McpscopeEvent[]);
    const text = renderEntry(entries[0], { utc: true });
    expect(text).not.toContain('\x1b');
    expect(text).not.toContain('\u202e');
    expect(text).toContain('claude\\x1b]52;c;aGk=\\x07');
    expect(text).toContain('mcp__se__echo\\u202e');
    const json = renderJsonEntry(entries[0], { utc: true });
    expect(json).not.toContain('\u202e');
    expect(JSON.parse(json)).toMatchObject({ kind: 'model-turn', session: 's2', exchange: 'x4', name: 'claude\x1b]52;c;aGk=\x07' });
  });

  it('groups digits the same on every machine', () => {
    expect([0, 61, 999, 1000, 31_338, 1_234_567].map(groupDigits)).toEqual(['0', '61', '999', '1,000', '31,338', '1,234,567']);
  });
});
