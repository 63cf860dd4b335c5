/**
 * Model turns in the exports (issue 27): NDJSON carries every model-turn upsert's latest state and
 * reads back to the same turns (ids re-keyed beside live ones, links to MCP messages renumbered);
 * HAR names the turn on its exchange's entry (`_mcpscopeModelTurn`) and the turn on the MCP
 * call's (`_mcpscopeModelCall`); every text of a turn is redacted again on the way out.
 */
import { describe, expect, it } from 'vitest';
import { exportNdjson } from '../../../proxy/files/export/export-ndjson.js';
import { exportHar } from '../../../proxy/files/export/export-har.js';
import { redactTurn } from '../../../proxy/files/export/export-model-turn.js';
import { appendImported, readCapture } from '../../../proxy/files/import/import-capture.js';
import { createRedactor } from '../../../proxy/recorder/redact/redact.js';
import type { McpscopeEvent, ModelTurnInfo } from '../../../proxy/core/model/events.js';
import { sampleAgentEvents, TURN_1 } from '../../support/model-turn-sample.js';
import { sampleAgentStore } from '../../support/model-turn-store.js';

const SECRET = 'sk-ant-api03-' + 'A'.repeat(80);
const TOKEN = 'mcpscope-token-0123456789';

/** The sample with secrets where a careless recorder could have left them. */
function leakyEvents(): McpscopeEvent[] {
  return sampleAgentEvents().map((e) => {
    if (e.type !== 'model-turn') return e;
    const turn: ModelTurnInfo = {
      ...e.turn,
      endpoint: `POST /v1/messages?key=${SECRET}`,
      system: { role: 'system', kind: 'text', text: `use x-api-key: ${SECRET} and ${TOKEN}`, bytes: 10 },
      messages: [...e.turn.messages, { role: 'user', kind: 'text', text: `{"api_key":"plain-looking-value"}`, bytes: 30 }],
      output: e.turn.output.map((o) => (o.kind === 'tool-use' ? { ...o, text: `{"message":"hi","password":"hunter2-secret"}` } : o)),
      toolCalls: e.turn.toolCalls.map((c) => ({ ...c, arguments: { message: 'hi', password: 'hunter2-secret' } })),
      error: `Authorization: Bearer ${SECRET}`,
    };
    return { ...e, turn };
  });
}

describe('model turns in NDJSON', () => {
  it('exports every turn (latest upsert) and reads back to the same turns, links renumbered beside live ones', () => {
    const store = sampleAgentStore();
    const text = exportNdjson(store);
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as McpscopeEvent);
    const turns = lines.filter((e) => e.type === 'model-turn');
    expect(turns.map((e) => e.type === 'model-turn' && e.turn.id)).toEqual(['m2', 'm1']);

    const loaded = readCapture(text);
    expect(loaded.kind).toBe('ndjson');
    const into = sampleAgentStore(); // a store that already has m1, m2, s1, s2 (a live proxy's)
    appendImported(into, loaded.events);
    const imported = [...into.turns.values()].filter((t) => t.id !== 'm1' && t.id !== 'm2');
    expect(imported.map((t) => t.id.replace(/-i\d+$/, '')).sort()).toEqual(['m1', 'm2']);
    const m1 = imported.find((t) => t.id.startsWith('m1-'))!;
    const m2 = imported.find((t) => t.id.startsWith('m2-'))!;
    // Same turn, ids and links re-keyed to the imported copies.
    expect(m1.usage).toEqual(TURN_1.usage);
    expect(m1.sessionId).not.toBe('s2');
    expect(into.sessions.get(m1.sessionId)?.transport).toBe('http');
    expect(m1.toolCalls[0].resultTurn).toBe(m2.id);
    expect(m2.toolResults[0].fromTurn).toBe(m1.id);
    const call = into.message(m1.toolCalls[0].mcpCall!.seq);
    expect(call?.method).toBe('tools/call');
    expect(call?.sessionId).toBe(m1.toolCalls[0].mcpCall!.sessionId);
    expect(call?.modelCall?.turn).toBe(m1.id);
    expect(into.message(m1.toolCalls[0].mcpResult!.seq)?.kind).toBe('response');
  });

  it('redacts a turn on the way out: system, messages, output, tool arguments, endpoint, error; the token too', () => {
    const store = sampleAgentStore(leakyEvents());
    const text = exportNdjson(store, undefined, { token: TOKEN });
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('hunter2-secret');
    expect(text).not.toContain('plain-looking-value');
    const m1 = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as McpscopeEvent)
      .find((e) => e.type === 'model-turn' && e.turn.id === 'm1');
    expect(m1?.type === 'model-turn' && m1.turn.toolCalls[0].arguments).toEqual({ message: 'hi', password: '[redacted]' });
  });

  it('redactTurn leaves the store’s turn alone', () => {
    const turn = leakyEvents().find((e) => e.type === 'model-turn')!;
    const before = JSON.stringify(turn);
    const out = redactTurn(turn.type === 'model-turn' ? turn.turn : TURN_1, createRedactor());
    expect(JSON.stringify(turn)).toBe(before);
    expect(out.system?.text).not.toContain(SECRET);
  });
});

describe('model turns in HAR', () => {
  it('the model API entry carries _mcpscopeModelTurn, the MCP tools/call entry _mcpscopeModelCall', () => {
    // The sample has no exchange events for its MCP requests: the tools/call's POST is added (HAR entries are exchanges).
    const events = sampleAgentEvents();
    const at = events.findIndex((e) => e.type === 'message' && e.exchangeId === 'x5');
    const x5 = {
      type: 'exchange' as const,
      seq: 0,
      ts: events[at].ts,
      exchange: {
        id: 'x5',
        sessionId: 's1',
        method: 'POST',
        url: '/mcp',
        requestHeaders: {},
        startedAt: events[at].ts,
        requestBytes: 80,
        responseBytes: 70,
        hints: [],
      },
    };
    const har = exportHar(sampleAgentStore([...events.slice(0, at), x5, ...events.slice(at)]));
    const api = har.log.entries.find((e) => e._mcpscope.exchange === 'x4')!;
    expect(api._mcpscopeModelTurn).toMatchObject({
      id: 'm1',
      model: 'claude-sonnet-4-5',
      stopReason: 'tool_use',
      usage: { totalInputTokens: 31_338, outputTokens: 61 },
      firstTokenMs: 140,
      toolCalls: [{ id: 'toolu_01', name: 'mcp__se__echo', mcpCall: { sessionId: 's1', seq: 9 } }],
    });
    expect(har.log.entries.find((e) => e._mcpscope.exchange === 'x6')!._mcpscopeModelTurn?.id).toBe('m2');
    const mcp = har.log.entries.find((e) => e._mcpscope.exchange === 'x5')!;
    expect(mcp._mcpscopeModelCall).toEqual({ turn: 'm1', callId: 'toolu_01', name: 'mcp__se__echo' });
    expect(api._mcpscopeModelCall).toBeUndefined();
    expect(mcp._mcpscopeModelTurn).toBeUndefined();
    // One session's HAR: the API session's entries have their turns.
    expect(exportHar(sampleAgentStore(), 's2').log.entries.map((e) => e._mcpscopeModelTurn?.id)).toEqual(['m1', 'm2']);
  });

  it('the summary holds no conversation text, and its error is redacted', () => {
    const text = JSON.stringify(exportHar(sampleAgentStore(leakyEvents())));
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('call the echo tool with hello');
  });
});
