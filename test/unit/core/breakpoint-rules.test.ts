/** Breakpoint rules: validation in plain words, matching (a response by its request's method), sessions by wire key, once rules across a mirror. */
import { describe, expect, it } from 'vitest';
import { BreakpointRegistry, MAX_RULES, describeBreakpoint, parseBreakpointRule } from '../../../proxy/core/rules/breakpoint-rules.js';

describe('parseBreakpointRule', () => {
  it('refuses what is not a rule, in plain words', () => {
    expect(() => parseBreakpointRule(null, 'b')).toThrow(/JSON object/);
    expect(() => parseBreakpointRule({ match: { dir: 'in' } }, 'b')).toThrow(/match\.dir must be "c2s"/);
    expect(() => parseBreakpointRule({ match: { dir: 'c2s', methd: 'x' } }, 'b')).toThrow(/match\.methd is not a breakpoint field/);
    expect(() => parseBreakpointRule({ match: { dir: 'c2s', method: 3 } }, 'b')).toThrow(/match\.method must be a string/);
    expect(() => parseBreakpointRule({ match: { dir: 'c2s' }, once: 'yes' }, 'b')).toThrow(/once must be true or false/);
    expect(parseBreakpointRule({ match: { dir: 's2c', method: '', tool: 'echo' }, once: true }, 'bp-1')).toEqual({
      id: 'bp-1',
      match: { dir: 's2c', tool: 'echo' },
      once: true,
    });
  });
  it('describes a rule', () => {
    expect(describeBreakpoint({ id: 'a', match: { dir: 'c2s', method: 'tools/call', tool: 'echo' }, once: true })).toBe(
      'breakpoint a (client→server, method tools/call, name echo, once)',
    );
  });
});

describe('BreakpointRegistry', () => {
  it('matches by direction, method and name; a session only by its wire key', () => {
    const owner = new BreakpointRegistry();
    owner.resolveSession = (id) => (id === 's1' ? { mcpSessionId: 'abc' } : undefined);
    owner.add({ id: 'call', match: { dir: 's2c', method: 'tools/call', tool: 'echo' } });
    owner.add({ id: 's1', match: { dir: 'c2s', session: 's1' } });
    owner.add({ id: 'unknown', match: { dir: 'c2s', session: 's9' } });
    const mirror = new BreakpointRegistry();
    mirror.mirror(owner.entries());
    expect(mirror.has('s2c')).toBe(true);
    expect(mirror.take({ dir: 's2c', method: 'tools/call', name: 'echo', wire: {} })?.id).toBe('call');
    expect(mirror.take({ dir: 's2c', method: 'tools/call', name: 'add', wire: {} })).toBeUndefined();
    expect(mirror.take({ dir: 'c2s', method: 'tools/call', name: 'echo', wire: {} })).toBeUndefined();
    expect(mirror.take({ dir: 'c2s', method: 'ping', wire: { mcpSessionId: 'abc' } })?.id).toBe('s1');
    expect(mirror.take({ dir: 'c2s', method: 'ping', wire: { mcpSessionId: 'other' } })).toBeUndefined();
  });

  it('a once rule is used up on the mirror, reported, removed by the owner, and never re-adopted', () => {
    const owner = new BreakpointRegistry();
    const mirror = new BreakpointRegistry();
    owner.onChange(() => mirror.mirror(owner.entries()));
    // The report reaches the owner later, as across threads: lists sent before it heard come first.
    const reports: [string, number][] = [];
    mirror.onTaken = (id, serial) => reports.push([id, serial]);
    owner.add({ id: 'one', match: { dir: 'c2s' }, once: true });
    expect(mirror.take({ dir: 'c2s', wire: {} })?.id).toBe('one');
    expect(mirror.take({ dir: 'c2s', wire: {} })).toBeUndefined();
    // A list from the owner sent before it heard does not bring it back.
    mirror.mirror(owner.entries());
    expect(mirror.size).toBe(0);
    for (const [id, serial] of reports.splice(0)) owner.removeTaken(id, serial);
    expect(owner.size).toBe(0);
    // The same id added anew is a new rule.
    owner.add({ id: 'one', match: { dir: 'c2s' }, once: true });
    expect(mirror.take({ dir: 'c2s', wire: {} })?.id).toBe('one');
  });

  it('refuses more than MAX_RULES rules, in plain words', () => {
    const r = new BreakpointRegistry();
    for (let i = 0; i < MAX_RULES; i++) r.add({ match: { dir: 'c2s', method: `m${i}` } });
    expect(() => r.add({ match: { dir: 'c2s' } })).toThrow(/at most 1000 breakpoints/);
    // Replacing an existing id is not a new rule.
    expect(r.add({ id: 'bp-1', match: { dir: 's2c' } }).id).toBe('bp-1');
  });

  it('has(dir) follows additions and removals', () => {
    const r = new BreakpointRegistry();
    r.add({ id: 'x', match: { dir: 'c2s' } });
    expect([r.has('c2s'), r.has('s2c')]).toEqual([true, false]);
    r.add({ id: 'x', match: { dir: 's2c' } });
    expect([r.has('c2s'), r.has('s2c')]).toEqual([false, true]);
    r.clear();
    expect([r.size, r.has('s2c')]).toEqual([0, false]);
  });
});
