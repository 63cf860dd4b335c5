import { describe, expect, it } from 'vitest';

import { RuleSet, type RuleEntry } from '../../../proxy/core/rules/rule-set.js';

interface TestRule {
  id: string;
  kind: string;
  once?: boolean;
}

function parse(input: unknown, fallbackId: string): TestRule {
  const o = input as { id?: string; kind?: unknown; once?: boolean };
  if (typeof o.kind !== 'string') throw new Error('kind must be a string');
  return { id: o.id ?? fallbackId, kind: o.kind, ...(o.once ? { once: true } : {}) };
}

const make = (max?: number) =>
  new RuleSet<TestRule>({
    parse,
    idPrefix: 't-',
    tally: (r) => (r.kind === 'x' ? undefined : r.kind),
    max,
    tooMany: max ? `at most ${max}` : undefined,
  });

/** An owner and a mirror linked the way the proxy thread links them (synchronously here). */
function link() {
  const owner = make();
  const mirror = make();
  owner.onChange(() => mirror.mirror(owner.entries()));
  const reports: [string, number][] = [];
  mirror.onTaken = (id, serial) => {
    reports.push([id, serial]);
    owner.removeTaken(id, serial);
  };
  return { owner, mirror, reports };
}

describe('RuleSet', () => {
  it('adds, lists, gets, removes and clears; ids fall back to the prefix and a counter', () => {
    const s = make();
    const changes: number[] = [];
    s.onChange(() => changes.push(s.size));
    expect(s.add({ kind: 'a' })).toEqual({ id: 't-1', kind: 'a' });
    expect(s.add({ id: 'named', kind: 'b' }).id).toBe('named');
    expect(s.add({ kind: 'c' }).id).toBe('t-3');
    expect(() => s.add({ kind: 1 })).toThrow('kind must be a string');
    expect(s.list().map((r) => r.id)).toEqual(['t-1', 'named', 't-3']);
    expect(s.get('named')?.kind).toBe('b');
    expect(s.get('nope')).toBeUndefined();
    expect(s.remove('named')).toBe(true);
    expect(s.remove('named')).toBe(false);
    s.clear();
    expect(s.size).toBe(0);
    expect(changes).toEqual([1, 2, 3, 2, 0]); // a refused add and a missed remove tell nobody
  });

  it('gives every addition a new serial, replacing an id moves it last', () => {
    const s = make();
    s.add({ id: 'a', kind: 'k' });
    s.add({ id: 'b', kind: 'k' });
    s.add({ id: 'a', kind: 'l' });
    expect(s.entries()).toEqual([
      { rule: { id: 'b', kind: 'k' }, serial: 2 },
      { rule: { id: 'a', kind: 'l' }, serial: 3 },
    ]);
  });

  it('counts rules per tally key through add, replace, remove, mirror and clear', () => {
    const s = make();
    s.add({ id: 'a', kind: 'k' });
    s.add({ id: 'b', kind: 'k' });
    s.add({ id: 'c', kind: 'x' }); // in no count
    expect([s.count('k'), s.count('x'), s.count('l')]).toEqual([2, 0, 0]);
    s.add({ id: 'a', kind: 'l' });
    expect([s.count('k'), s.count('l')]).toEqual([1, 1]);
    s.remove('b');
    expect(s.count('k')).toBe(0);
    const m = make();
    m.mirror(s.entries());
    expect([m.count('l'), m.size]).toEqual([1, 2]);
    m.mirror([]);
    expect(m.count('l')).toBe(0);
    s.clear();
    expect(s.count('l')).toBe(0);
  });

  it('refuses a new id past max, in its own words; replacing an id still works', () => {
    const s = make(2);
    s.add({ id: 'a', kind: 'k' });
    s.add({ id: 'b', kind: 'k' });
    expect(() => s.add({ id: 'c', kind: 'k' })).toThrow('at most 2');
    expect(s.add({ id: 'a', kind: 'l' }).kind).toBe('l');
    expect(s.size).toBe(2);
    s.remove('b');
    expect(s.add({ id: 'c', kind: 'k' }).id).toBe('c');
  });

  it('has no limit without max', () => {
    const s = make();
    for (let i = 0; i < 2000; i++) s.add({ kind: 'k' });
    expect([s.size, s.count('k')]).toEqual([2000, 2000]);
  });

  it('the mirror adopts every change and tells its own listeners', () => {
    const { owner, mirror } = link();
    let told = 0;
    mirror.onChange(() => (told += 1));
    owner.add({ id: 'a', kind: 'k' });
    owner.add({ id: 'b', kind: 'k' });
    expect(mirror.list().map((r) => r.id)).toEqual(['a', 'b']);
    owner.remove('a');
    expect(mirror.list().map((r) => r.id)).toEqual(['b']);
    owner.clear();
    expect(mirror.size).toBe(0);
    expect(told).toBe(4);
  });

  it('takeFirst returns the first match; a rule that is not once stays', () => {
    const s = make();
    s.add({ id: 'a', kind: 'k' });
    s.add({ id: 'b', kind: 'l' });
    expect(s.takeFirst((e) => e.rule.kind === 'l')?.id).toBe('b');
    expect(s.takeFirst(() => true)?.id).toBe('a');
    expect(s.takeFirst(() => false)).toBeUndefined();
    expect(s.size).toBe(2);
  });

  it('a once rule is taken once: removed from the mirror, reported with its serial, removed by the owner', () => {
    const { owner, mirror, reports } = link();
    owner.add({ id: 'keep', kind: 'k' });
    owner.add({ id: 'one', kind: 'l', once: true });
    const any = (e: RuleEntry<TestRule>) => e.rule.kind === 'l';
    expect(mirror.takeFirst(any)?.id).toBe('one');
    expect(reports).toEqual([['one', 2]]);
    expect(mirror.takeFirst(any)).toBeUndefined();
    expect(owner.list().map((r) => r.id)).toEqual(['keep']);
    expect(mirror.count('l')).toBe(0);
  });

  it('a mirror never re-adopts a once rule it used, even from a list sent before the owner heard', () => {
    const owner = make();
    const mirror = make();
    owner.add({ id: 'one', kind: 'k', once: true });
    const before = owner.entries();
    mirror.mirror(before);
    let report: [string, number] | undefined;
    mirror.onTaken = (id, serial) => (report = [id, serial]);
    expect(mirror.takeFirst(() => true)?.id).toBe('one');
    mirror.mirror(before); // crossed with the report
    expect(mirror.size).toBe(0);
    expect(mirror.takeFirst(() => true)).toBeUndefined();
    owner.removeTaken(...report!);
    expect(owner.size).toBe(0);
  });

  it('the same id added anew is a new rule: a late report does not remove it, the mirror adopts it', () => {
    const owner = make();
    const mirror = make();
    owner.add({ id: 'r', kind: 'old', once: true });
    mirror.mirror(owner.entries());
    let report: [string, number] | undefined;
    mirror.onTaken = (id, serial) => (report = [id, serial]);
    mirror.takeFirst(() => true);
    owner.remove('r');
    owner.add({ id: 'r', kind: 'new', once: true });
    owner.removeTaken(...report!); // arrives late
    expect(owner.list()).toEqual([{ id: 'r', kind: 'new', once: true }]);
    mirror.mirror(owner.entries());
    expect(mirror.takeFirst(() => true)?.kind).toBe('new');
    expect(report).toEqual(['r', 2]);
  });

  it('forgets a used once rule when the owner no longer lists it: 1,000 rules used leave nothing behind', () => {
    const owner = make();
    const mirror = make();
    const used = () => (mirror as unknown as { used: Set<string> }).used.size;
    // Reports reach the owner later than the mirror takes the rule, as across threads.
    const pending: [string, number][] = [];
    mirror.onTaken = (id, serial) => pending.push([id, serial]);
    owner.onChange(() => mirror.mirror(owner.entries()));
    for (let i = 0; i < 1000; i++) {
      owner.add({ id: `o${i}`, kind: 'a', once: true });
      expect(mirror.takeFirst((e) => e.rule.id === `o${i}`)?.id).toBe(`o${i}`);
      // A list the owner sent before it heard still names the rule: not adopted again.
      mirror.mirror(owner.entries());
      expect(mirror.get(`o${i}`)).toBeUndefined();
      for (const [id, serial] of pending.splice(0)) owner.removeTaken(id, serial);
    }
    expect(owner.size).toBe(0);
    expect(used()).toBe(0);
  });

  it('unsubscribes a listener', () => {
    const s = make();
    let told = 0;
    const off = s.onChange(() => (told += 1));
    s.add({ kind: 'k' });
    off();
    s.clear();
    expect(told).toBe(1);
  });
});
