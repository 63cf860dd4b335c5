/**
 * The join's bindings (proxy/core/model-api/turn-join.ts): a client's server name is bound to the MCP
 * session its first call was joined on; another server's session of the same agent is never taken
 * for it, and a session new to the agent (a second run of the client under the same agent key, or
 * the server reconnected) takes the name over.
 */
import { describe, expect, it } from 'vitest';
import { TurnJoin, type OfferedCall } from '../../../proxy/core/model-api/turn-join.js';

const AGENT = 'other:Anthropic/JS 1.15.0@http://127.0.0.1:1';
const call = (turnId: string, callId: string, server: string, message: string): OfferedCall => ({
  turnId,
  callId,
  name: `mcp__${server}__echo`,
  server,
  tool: 'echo',
  arguments: { message },
});
const byTool = (w: OfferedCall) => w.tool === 'echo';

describe('turn join: server names and sessions', () => {
  it('a second run of the same agent key on a new MCP session is joined, and the name rebound to it', () => {
    const j = new TurnJoin();
    j.offer(AGENT, call('m1', 'toolu_1', 'se', 'one'));
    expect(j.matchCall('s1', 10, 'echo', { message: 'one' }, byTool)).toMatchObject({ turnId: 'm1', callId: 'toolu_1' });
    expect(j.sessionOf(AGENT, 'se')).toBe('s1');
    // The first run's session is over; the next run opens s2.
    j.offer(AGENT, call('m3', 'toolu_3', 'se', 'two'));
    expect(j.matchCall('s2', 20, 'echo', { message: 'two' }, byTool)).toMatchObject({ turnId: 'm3', callId: 'toolu_3' });
    expect(j.sessionOf(AGENT, 'se')).toBe('s2');
  });

  it('never takes another server’s session of the agent for a name bound elsewhere', () => {
    const j = new TurnJoin();
    j.offer(AGENT, call('m1', 'toolu_a', 'a', 'x'));
    j.offer(AGENT, call('m1', 'toolu_b', 'b', 'y'));
    expect(j.matchCall('sa', 1, 'echo', { message: 'x' }, byTool)).toMatchObject({ callId: 'toolu_a' });
    expect(j.matchCall('sb', 2, 'echo', { message: 'y' }, byTool)).toMatchObject({ callId: 'toolu_b' });
    // a's next call, but made on b's session (same tool, same arguments): not a's.
    j.offer(AGENT, call('m2', 'toolu_a2', 'a', 'z'));
    expect(j.matchCall('sb', 3, 'echo', { message: 'z' }, byTool)).toBeUndefined();
    expect(j.matchCall('sa', 4, 'echo', { message: 'z' }, byTool)).toMatchObject({ callId: 'toolu_a2' });
  });
});

describe('turn join: a result under an id the model never gave', () => {
  it('is the newest unanswered call of the same name and arguments (Gemini CLI gives id-less calls its own ids)', () => {
    const j = new TurnJoin();
    j.offer(AGENT, { turnId: 'm1', callId: 'gemini-0', name: 'mcp_se_echo', server: 'se', tool: 'echo', arguments: { message: 'hi' } });
    const history = (id: string) =>
      id === 'mcp_se_echo_1764650000000_0' ? { name: 'mcp_se_echo', arguments: { message: 'hi' } } : undefined;
    expect(j.results(AGENT, ['mcp_se_echo_1764650000000_0'], history)).toMatchObject([{ callId: 'gemini-0', fromTurn: 'm1' }]);
    // Answered now: the same call again under yet another id is not taken for it.
    expect(
      j.results(AGENT, ['mcp_se_echo_1764650000001_0'], () => ({ name: 'mcp_se_echo', arguments: { message: 'hi' } }))[0].call,
    ).toBeUndefined();
  });

  it('other arguments are no match', () => {
    const j = new TurnJoin();
    j.offer(AGENT, { turnId: 'm1', callId: 'gemini-0', name: 'mcp_se_echo', arguments: { message: 'hi' } });
    expect(j.results(AGENT, ['x'], () => ({ name: 'mcp_se_echo', arguments: { message: 'other' } }))[0].call).toBeUndefined();
  });
});
