/**
 * The pure parts of breakpoints in the UI (ui/src/state/breakpoints.ts): the held count reduced
 * from `paused` events (also through the store, which must not make rows of them), the countdown,
 * the answer templates and what "Break on this" matches.
 */
import { describe, expect, it } from 'vitest';
import type { MessageEvent, PausedEvent } from '../../proxy/core/model/events';
import { countdown, heldFrom, matchFor, matchText, reduceHeld, respondTemplate } from '../../ui/src/state/breakpoints';
import { TimelineStore } from '../../ui/src/state/store';
import { checkAnswer, checkJsonRpc } from '../../proxy/core/rules/action-checks';

let seq = 0;
function paused(pausedId: string, state: 'held' | 'released', extra: Partial<PausedEvent> = {}): PausedEvent {
  return {
    type: 'paused',
    seq: ++seq,
    ts: 1000 + seq,
    pausedId,
    state,
    dir: 'c2s',
    carrier: 'post-json',
    kind: 'request',
    method: 'tools/call',
    rule: 'bp-1',
    since: 1000,
    expiresAt: 301_000,
    ...extra,
  } as PausedEvent;
}

describe('held messages from paused events', () => {
  it('counts held minus released, per id', () => {
    const events = [paused('h1', 'held'), paused('h2', 'held'), paused('h1', 'released', { outcome: 'resumed' }), paused('h3', 'held')];
    expect(heldFrom(events).map((e) => e.pausedId)).toEqual(['h2', 'h3']);
  });

  it('ignores a release of an id never seen held, and other event types', () => {
    const held = new Map<string, PausedEvent>();
    expect(reduceHeld(held, paused('h9', 'released', { outcome: 'gone' }))).toBe(false);
    expect(heldFrom([{ type: 'message' }, paused('h1', 'held'), { type: 'log' }])).toHaveLength(1);
  });

  it('the store keeps the count live and makes no timeline rows of paused events', () => {
    const store = new TimelineStore();
    store.ingest([paused('h1', 'held'), paused('h2', 'held')]);
    expect(store.held().map((e) => e.pausedId)).toEqual(['h1', 'h2']);
    expect(store.topLevelRows()).toHaveLength(0);
    store.ingest([paused('h2', 'released', { outcome: 'dropped' })]);
    expect(store.held().map((e) => e.pausedId)).toEqual(['h1']);
    store.clear();
    expect(store.held()).toHaveLength(0);
  });
});

describe('countdown', () => {
  it('shows minutes and seconds left, rounded up, and says when the limit has passed', () => {
    expect(countdown(301_000, 1000)).toBe('5:00');
    expect(countdown(10_500, 3000)).toBe('0:08');
    expect(countdown(1000, 1000)).toBe('resuming…');
    expect(countdown(1000, 5000)).toBe('resuming…');
  });
});

describe('respond templates', () => {
  it('every template is an answer the API accepts for the request id', () => {
    for (const method of ['sampling/createMessage', 'elicitation/create', 'roots/list', 'tools/call', 'ping', undefined]) {
      const t = respondTemplate(method, 7);
      expect(checkJsonRpc(t)).toBeUndefined();
      expect('answer' in checkAnswer(t, 7)).toBe(true);
    }
  });

  it('a sampling answer has role, content and model; an elicitation accepts with content', () => {
    const s = respondTemplate('sampling/createMessage', 'a').result as Record<string, unknown>;
    expect(s.role).toBe('assistant');
    expect(s.content).toEqual({ type: 'text', text: '' });
    expect(typeof s.model).toBe('string');
    expect(respondTemplate('elicitation/create', 3)).toEqual({ jsonrpc: '2.0', id: 3, result: { action: 'accept', content: {} } });
    expect(respondTemplate('ping', 1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });
});

describe('Break on this', () => {
  it('matches the direction, method and tool name of the message', () => {
    const m = { dir: 's2c', method: 'tools/call', name: 'echo' } as MessageEvent;
    expect(matchFor(m)).toEqual({ dir: 's2c', method: 'tools/call', tool: 'echo' });
    expect(matchFor({ dir: 'c2s', method: 'ping' } as MessageEvent)).toEqual({ dir: 'c2s', method: 'ping' });
    expect(matchText({ dir: 'c2s', method: 'tools/call', tool: 'echo', session: 's2' })).toBe('client→server tools/call · echo in s2');
  });
});
