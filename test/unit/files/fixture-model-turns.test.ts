/**
 * Model turns in fixtures (issue 27): the fixture of a model API's session keeps its turns
 * (`modelTurns`, times relative to the session's start) and the one of an MCP session keeps its
 * tools/call's `modelCall`; both read back (export → import → the same turns), links into a
 * session the fixture does not hold dropped, never left pointing at another message.
 */
import { describe, expect, it } from 'vitest';
import { exportFixture } from '../../../proxy/files/export/export-fixture.js';
import { readCapture } from '../../../proxy/files/import/import-capture.js';
import { CaptureFormatError } from '../../../proxy/core/model/errors.js';
import type { ModelTurnInfo } from '../../../proxy/core/model/events.js';
import { TURN_1, TURN_2 } from '../../support/model-turn-sample.js';
import { sampleAgentStore } from '../../support/model-turn-store.js';
import { fixtureErrors } from '../../support/fixture-schema.js';

const now = () => new Date(Date.UTC(2026, 0, 15, 10));

describe('fixtures with model turns', () => {
  it('the model API session: export → import gives the same turns; its MCP links are dropped', () => {
    const fixture = exportFixture(sampleAgentStore(), 's2', { now });
    expect(fixture.modelTurns?.map((t) => [t.id, t.t, t.durationMs, t.firstTokenMs])).toEqual([
      ['m1', 0, 300, 140],
      ['m2', 500, 200, 100],
    ]);
    expect(fixture.modelTurns?.[0].toolCalls[0].mcpCall).toEqual({ sessionId: 's1', seq: 9 });
    expect(fixtureErrors(fixture)).toBeUndefined();

    const loaded = readCapture(JSON.stringify(fixture));
    const turns = loaded.events.filter((e) => e.type === 'model-turn').map((e) => (e.type === 'model-turn' ? e.turn : undefined));
    const strip = (t: ModelTurnInfo) => ({
      ...t,
      toolCalls: t.toolCalls.map(({ mcpCall: _c, mcpResult: _r, ...c }) => c),
      toolResults: t.toolResults.map(({ mcpResult: _r, ...r }) => r),
      context: t.context && { ...t.context, servers: t.context.servers.map(({ sessionId: _s, ...s }) => s) },
    });
    expect(turns).toEqual([strip(TURN_1), strip(TURN_2)]);
    // Each turn event lies where its response ended, among the session's exchanges.
    const order = loaded.events.map((e) => (e.type === 'model-turn' ? e.turn.id : e.type === 'exchange' ? e.exchange.id : e.type));
    expect(order).toEqual(['session', 'x4', 'm1', 'x6', 'm2']);
  });

  it('the MCP session: its tools/call keeps modelCall through export → import', () => {
    const fixture = exportFixture(sampleAgentStore(), 's1', { now });
    expect(fixture.modelTurns).toBeUndefined();
    expect(fixture.messages.filter((m) => m.modelCall).map((m) => [m.kind, m.modelCall])).toEqual([
      ['request', { turn: 'm1', callId: 'toolu_01', name: 'mcp__se__echo' }],
      ['response', { turn: 'm1', callId: 'toolu_01', name: 'mcp__se__echo' }],
    ]);
    expect(fixtureErrors(fixture)).toBeUndefined();
    const loaded = readCapture(JSON.stringify(fixture));
    const call = loaded.events.find((e) => e.type === 'message' && e.method === 'tools/call' && e.kind === 'request');
    expect(call?.type === 'message' && call.modelCall).toEqual({ turn: 'm1', callId: 'toolu_01', name: 'mcp__se__echo' });
  });

  it('a turn of the wrong shape refuses the fixture in plain words', () => {
    const fixture = exportFixture(sampleAgentStore(), 's2', { now });
    const broken = { ...fixture, modelTurns: [{ ...fixture.modelTurns![0], toolCalls: 'all of them' }] };
    expect(() => readCapture(JSON.stringify(broken))).toThrow(CaptureFormatError);
    expect(() => readCapture(JSON.stringify(broken))).toThrow('Model turn 1 of this fixture is not valid: it has no "toolCalls" list.');
    expect(() => readCapture(JSON.stringify({ ...fixture, modelTurns: { m1: {} } }))).toThrow('"modelTurns" is not a list');
    const mcp = exportFixture(sampleAgentStore(), 's1', { now });
    const badCall = { ...mcp, messages: mcp.messages.map((m) => (m.modelCall ? { ...m, modelCall: { turn: 7 } } : m)) };
    expect(() => readCapture(JSON.stringify(badCall))).toThrow(/Message \d+ of this fixture is not valid: it has a "modelCall"/);
  });
});
