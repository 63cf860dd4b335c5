/** Fault rule definitions: validation, matching (method/tool/path), `once`, and the body-needed flag. */
import { describe, expect, it } from 'vitest';
import { FaultRegistry, parseFaultRule, rpcSummary } from '../../../proxy/core/rules/fault-rules.js';

describe('parseFaultRule', () => {
  it('accepts each action type and fills in an id', () => {
    expect(parseFaultRule({ match: { method: 'tools/call' }, action: { type: 'delay', ms: 5 } }, 'f1')).toEqual({
      id: 'f1',
      match: { method: 'tools/call' },
      action: { type: 'delay', ms: 5 },
    });
    expect(parseFaultRule({ id: 'a', match: {}, action: { type: 'status', status: 502, body: 'x' }, once: true }, 'f')).toEqual({
      id: 'a',
      match: {},
      action: { type: 'status', status: 502, body: 'x' },
      once: true,
    });
    expect(parseFaultRule({ action: { type: 'drop-stream', afterEvents: 3 } }, 'f').action).toEqual({
      type: 'drop-stream',
      afterEvents: 3,
    });
    expect(parseFaultRule({ action: { type: 'expire-session' } }, 'f').action).toEqual({ type: 'expire-session' });
  });

  it('rejects what it cannot carry out, saying why', () => {
    expect(() => parseFaultRule(null, 'f')).toThrow(/JSON object/);
    expect(() => parseFaultRule({ action: { type: 'status', status: 200 } }, 'f')).toThrow(/status must be/);
    expect(() => parseFaultRule({ action: { type: 'delay', ms: -1 } }, 'f')).toThrow(/delay ms/);
    expect(() => parseFaultRule({ action: { type: 'drop-stream', afterEvents: 1.5 } }, 'f')).toThrow(/afterEvents/);
    expect(() => parseFaultRule({ action: { type: 'explode' } }, 'f')).toThrow(/action.type/);
    expect(() => parseFaultRule({ match: { tool: 7 }, action: { type: 'expire-session' } }, 'f')).toThrow(/match.tool/);
  });
});

describe('rpcSummary', () => {
  it('reads method and tool from a request or a batch; not JSON → undefined', () => {
    expect(rpcSummary(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'))).toEqual([
      { method: 'tools/call', tool: 'echo' },
    ]);
    expect(rpcSummary(Buffer.from('[{"method":"ping"},{"method":"tools/call","params":{"name":"add"}}]'))).toEqual([
      { method: 'ping', tool: undefined },
      { method: 'tools/call', tool: 'add' },
    ]);
    expect(rpcSummary(Buffer.from('{not json'))).toBeUndefined();
  });
});

describe('FaultRegistry', () => {
  it('is empty (off) by default and needs the body only while a method/tool rule exists', () => {
    const r = new FaultRegistry();
    expect(r.size).toBe(0);
    expect(r.needsBody).toBe(false);
    r.add({ id: 'p', match: { path: '/mcp' }, action: { type: 'delay', ms: 1 } });
    expect(r.needsBody).toBe(false);
    r.add({ id: 't', match: { tool: 'echo' }, action: { type: 'delay', ms: 1 } });
    expect(r.needsBody).toBe(true);
    r.remove('t');
    expect(r.needsBody).toBe(false);
    // Re-adding an id replaces the rule, the count stays right.
    r.add({ id: 'p', match: { method: 'ping' }, action: { type: 'delay', ms: 1 } });
    r.add({ id: 'p', match: { path: '/x' }, action: { type: 'delay', ms: 1 } });
    expect(r.size).toBe(1);
    expect(r.needsBody).toBe(false);
  });

  it('matches method, tool and path together; once removes the rule; expire-session needs a session', () => {
    const r = new FaultRegistry();
    r.add({ id: 'a', match: { method: 'tools/call', tool: 'echo', path: '/mcp' }, action: { type: 'status', status: 503 }, once: true });
    const call = (tool: string, path = '/mcp') => ({ httpMethod: 'POST', path, rpc: [{ method: 'tools/call', tool }] });
    expect(r.take(call('add'), true)).toBeUndefined();
    expect(r.take(call('echo', '/other'), true)).toBeUndefined();
    expect(r.take({ httpMethod: 'POST', path: '/mcp' }, true)).toBeUndefined(); // body not read: no method match
    expect(r.take(call('echo'), true)?.id).toBe('a');
    expect(r.take(call('echo'), true)).toBeUndefined();
    expect(r.size).toBe(0);

    r.add({ id: 'e', match: {}, action: { type: 'expire-session' } });
    expect(r.take({ httpMethod: 'POST', path: '/mcp' }, false)).toBeUndefined();
    expect(r.take({ httpMethod: 'POST', path: '/mcp' }, true)?.id).toBe('e');
    expect(r.size).toBe(1); // not once: stays
  });
});

describe('FaultRegistry: owner and mirror (the proxy thread decides with a mirror)', () => {
  const any = { httpMethod: 'POST', path: '/mcp' };
  const link = () => {
    const owner = new FaultRegistry();
    const mirror = new FaultRegistry();
    const changes: number[] = [];
    owner.onChange(() => {
      changes.push(owner.size);
      mirror.mirror(owner.entries());
    });
    mirror.onTaken = (id, serial) => owner.removeTaken(id, serial);
    return { owner, mirror, changes };
  };

  it('tells listeners of every add, remove and clear; the mirror adopts the rules', () => {
    const { owner, mirror, changes } = link();
    owner.add({ id: 'a', action: { type: 'delay', ms: 1 } });
    owner.add({ id: 'b', match: { tool: 'echo' }, action: { type: 'delay', ms: 1 } });
    expect(mirror.list().map((r) => r.id)).toEqual(['a', 'b']);
    expect(mirror.needsBody).toBe(true);
    owner.remove('b');
    expect(mirror.needsBody).toBe(false);
    owner.clear();
    expect(mirror.size).toBe(0);
    expect(changes).toEqual([1, 2, 1, 0]);
  });

  it('a once rule used by the mirror leaves the owner, and is not re-adopted from a list sent before the owner heard', () => {
    const owner = new FaultRegistry();
    const mirror = new FaultRegistry();
    owner.add({ id: 'once', action: { type: 'status', status: 503 }, once: true });
    const before = owner.entries();
    mirror.mirror(before);
    const taken: [string, number][] = [];
    mirror.onTaken = (id, serial) => taken.push([id, serial]);
    expect(mirror.take(any, false)?.id).toBe('once');
    // The owner's list crossed with the "taken" report: the mirror must not use the rule twice.
    mirror.mirror(before);
    expect(mirror.take(any, false)).toBeUndefined();
    owner.removeTaken(...taken[0]!);
    expect(owner.size).toBe(0);
  });

  it('a once rule re-added under the same id after use is a new rule: the stale report does not remove it, the mirror adopts it', () => {
    const owner = new FaultRegistry();
    const mirror = new FaultRegistry();
    owner.add({ id: 'r', action: { type: 'status', status: 503 }, once: true });
    mirror.mirror(owner.entries());
    let report: [string, number] | undefined;
    mirror.onTaken = (id, serial) => (report = [id, serial]);
    mirror.take(any, false);
    owner.remove('r');
    owner.add({ id: 'r', action: { type: 'status', status: 500 }, once: true });
    owner.removeTaken(...report!); // arrives late
    expect(owner.list().map((r) => r.action)).toEqual([{ type: 'status', status: 500 }]);
    mirror.mirror(owner.entries());
    expect(mirror.take(any, false)?.action).toEqual({ type: 'status', status: 500 });
  });
});
