/**
 * ui/src/state/violations.ts (issue 19): which problems are spec violations and which message
 * each is about, their level and rules, the store's index, the specification link a `specRef`
 * makes (never anywhere but modelcontextprotocol.io), JSON pointers and where one lands in a
 * message, and the violations of every kind of timeline row.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ProblemEvent } from '../../proxy/core/model/events';
import {
  SPEC_VIOLATION,
  ViolationIndex,
  isViolation,
  pointerToken,
  pointerTokens,
  resolvePointer,
  ruleIds,
  rowViolations,
  specUrl,
  violationLevel,
  violationMessage,
  violationsTitle,
} from '../../ui/src/state/violations';
import { TimelineStore } from '../../ui/src/state/store';
import { httpRow, logRow } from '../../ui/src/state/rows';
import type { Row } from '../../ui/src/state/types';
import { EventBuilder, T0, scenario } from './fixtures';

let nextSeq = 1000;
/** A problem event; a spec violation unless `code` says otherwise. */
const problem = (init: Partial<ProblemEvent> = {}): ProblemEvent => ({
  type: 'problem',
  seq: ++nextSeq,
  ts: T0,
  level: 'warn',
  code: SPEC_VIOLATION,
  text: 'Breaks a rule.',
  ...init,
});

describe('isViolation and violationMessage', () => {
  it('tells spec violations from other problems', () => {
    expect(SPEC_VIOLATION).toBe('spec-violation');
    expect(isViolation(problem({ rule: 'tools/arguments-schema', message: 3 }))).toBe(true);
    expect(isViolation(problem({ code: 'invalid-json' }))).toBe(false);
    expect(isViolation(problem({ code: 'Spec-Violation' }))).toBe(false);
  });

  it("gives the seq of the message a violation is about, only when it is a violation's finite number", () => {
    expect(violationMessage(problem({ message: 7 }))).toBe(7);
    expect(violationMessage(problem({ message: 0 }))).toBe(0);
    expect(violationMessage(problem())).toBeUndefined();
    // Another problem that happens to carry a message field is no annotation.
    expect(violationMessage(problem({ code: 'invalid-json', message: 7 }))).toBeUndefined();
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, '7', null, { seq: 7 }])
      expect(violationMessage(problem({ message: bad as unknown as number }))).toBeUndefined();
  });
});

describe('violationLevel, ruleIds and violationsTitle', () => {
  it('is error when any violation is (strict mode), warn otherwise, nothing for none', () => {
    expect(violationLevel(undefined)).toBeUndefined();
    expect(violationLevel([])).toBeUndefined();
    expect(violationLevel([problem(), problem()])).toBe('warn');
    expect(violationLevel([problem(), problem({ level: 'error' })])).toBe('error');
    expect(violationLevel([problem({ level: 'error' })])).toBe('error');
  });

  it('lists the distinct rules in first-seen order, naming an unnamed one', () => {
    expect(ruleIds([])).toEqual([]);
    expect(
      ruleIds([
        problem({ rule: 'schema/tools-call' }),
        problem({ rule: 'tools/arguments-schema' }),
        problem({ rule: 'schema/tools-call' }),
        problem(),
        problem(),
      ]),
    ).toEqual(['schema/tools-call', 'tools/arguments-schema', '(unnamed rule)']);
  });

  it("writes the badge's tooltip: how many, then each rule once on its own line", () => {
    expect(violationsTitle([problem({ rule: 'tools/arguments-schema' })])).toBe('1 spec violation:\ntools/arguments-schema');
    expect(
      violationsTitle([
        problem({ rule: 'tools/arguments-schema' }),
        problem({ rule: 'tools/arguments-schema' }),
        problem({ rule: 'lifecycle/request-before-initialized' }),
      ]),
    ).toBe('3 spec violations:\ntools/arguments-schema\nlifecycle/request-before-initialized');
  });
});

describe('ViolationIndex', () => {
  it('links a violation to a message it knows, and nothing else', () => {
    const index = new ViolationIndex();
    const known = new Set([3, 5]);
    const has = (seq: number) => known.has(seq);
    expect(index.empty).toBe(true);

    const v1 = problem({ message: 3, rule: 'r1' });
    const v2 = problem({ message: 3, rule: 'r2' });
    expect(index.link(v1, has)).toBe(true);
    expect(index.link(v2, has)).toBe(true);
    expect(index.empty).toBe(false);
    expect(index.of(3)).toEqual([v1, v2]);
    expect(index.of(5)).toBeUndefined();

    // A message the store does not hold, no message at all, or another problem: not linked.
    expect(index.link(problem({ message: 4 }), has)).toBe(false);
    expect(index.link(problem(), has)).toBe(false);
    expect(index.link(problem({ code: 'invalid-json', message: 5 }), has)).toBe(false);
    expect(index.of(4)).toBeUndefined();
    expect(index.of(5)).toBeUndefined();

    index.clear();
    expect(index.empty).toBe(true);
    expect(index.of(3)).toBeUndefined();
  });

  it('asks about the message it names, not another', () => {
    const asked: number[] = [];
    new ViolationIndex().link(problem({ message: 42 }), (seq) => {
      asked.push(seq);
      return false;
    });
    expect(asked).toEqual([42]);
  });
});

describe('specUrl', () => {
  it('links a version and section to its page in the specification', () => {
    expect(specUrl('2025-06-18 server/tools#calling-tools')).toBe(
      'https://modelcontextprotocol.io/specification/2025-06-18/server/tools#calling-tools',
    );
    expect(specUrl('2025-11-25 basic/lifecycle')).toBe('https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle');
    expect(specUrl('draft basic/transports#streamable-http')).toBe(
      'https://modelcontextprotocol.io/specification/draft/basic/transports#streamable-http',
    );
    expect(specUrl('  2025-03-26   server/resources  ')).toBe('https://modelcontextprotocol.io/specification/2025-03-26/server/resources');
  });

  it('gives nothing for what is not a spec reference', () => {
    for (const ref of [
      undefined,
      '',
      '   ',
      'server/tools',
      '2025-06-18',
      '2025-06-18 ',
      '2025-6-18 server/tools',
      'latest server/tools',
      '2025-06-18 server/tools#',
      '2025-06-18 server/tools#a#b',
      '2025-06-18 server tools',
      '2025-06-18 /server/tools',
      '2025-06-18 ../../etc/passwd',
      '2025-06-18 server/../../x',
      '2025-06-18 //evil.example/x',
      '2025-06-18 evil.example/x',
      '2025-06-18 server/tools?x=1',
      '2025-06-18 server/tools#a"onmouseover="x',
      'javascript:alert(1)',
      '2025-06-18 javascript:alert(1)',
      'https://modelcontextprotocol.io/specification/2025-06-18/server/tools',
      'https://evil.example/specification/2025-06-18/server/tools',
      'see 2025-06-18 server/tools',
    ])
      expect(specUrl(ref), String(ref)).toBeUndefined();
  });

  it('never links anywhere but the specification on https://modelcontextprotocol.io, whatever the reference', () => {
    let linked = 0;
    const onSite = (ref: string) => {
      const url = specUrl(ref);
      if (url === undefined) return;
      linked++;
      const u = new URL(url);
      expect(u.protocol).toBe('https:');
      expect(u.host).toBe('modelcontextprotocol.io');
      expect(u.username + u.password).toBe('');
      expect(u.pathname.startsWith('/specification/')).toBe(true);
      expect(u.pathname).not.toContain('..');
      expect(u.search).toBe('');
    };
    // Arbitrary text, and text made of the reference's own alphabet (where a link does come out).
    fc.assert(fc.property(fc.string({ unit: 'binary' }), onSite), { numRuns: 300 });
    const piece = fc.oneof(
      { weight: 4, arbitrary: fc.stringMatching(/^[a-zA-Z0-9_-]{1,8}$/) },
      fc.constantFrom('', '.', '..', ':', 'evil.example', '@evil', '?x=1', '#frag', 'x#y', '%2e%2e', '\\', '~', 'a b', 'é'),
    );
    fc.assert(
      fc.property(fc.constantFrom('2025-06-18', 'draft', 'x'), fc.array(piece, { minLength: 1, maxLength: 4 }), (version, parts) =>
        onSite(`${version} ${parts.join('/')}`),
      ),
      { numRuns: 500 },
    );
    // The property was put to links, not only to refusals.
    expect(linked).toBeGreaterThan(20);
  });
});

describe('JSON pointers', () => {
  it('splits a pointer into its tokens, unescaping ~1 and ~0 (in that order)', () => {
    expect(pointerTokens('')).toEqual([]);
    expect(pointerTokens('/')).toEqual(['']);
    expect(pointerTokens('/params/arguments/a')).toEqual(['params', 'arguments', 'a']);
    expect(pointerTokens('/a~1b/c~0d')).toEqual(['a/b', 'c~d']);
    // RFC 6901: "~01" is "~1", not "/".
    expect(pointerTokens('/~01')).toEqual(['~1']);
    expect(pointerTokens('/content/0')).toEqual(['content', '0']);
    expect(pointerTokens('//')).toEqual(['', '']);
  });

  it('is not a pointer unless it is empty or starts with a slash', () => {
    expect(pointerTokens('params/arguments')).toBeUndefined();
    expect(pointerTokens('#/params')).toBeUndefined();
    expect(pointerTokens(' /params')).toBeUndefined();
  });

  it('escapes a token: ~ as ~0, / as ~1, numbers as they read', () => {
    expect(pointerToken('plain')).toBe('plain');
    expect(pointerToken('a/b')).toBe('a~1b');
    expect(pointerToken('c~d')).toBe('c~0d');
    expect(pointerToken('~1')).toBe('~01');
    expect(pointerToken('/~')).toBe('~1~0');
    expect(pointerToken(3)).toBe('3');
    expect(pointerToken('')).toBe('');
  });

  it('round-trips any member names', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.constantFrom('~', '/', '~1', '~0', '/~', '')), { maxLength: 6 }), (names) => {
        const pointer = names.map((n) => `/${pointerToken(n)}`).join('');
        expect(pointerTokens(pointer)).toEqual(names);
      }),
    );
  });
});

describe('resolvePointer', () => {
  const call = {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'add', arguments: { a: '2', b: 3, 'x/y': { 'p~q': null } } },
  };

  it('lands on the part a pointer names', () => {
    expect(resolvePointer(call, '/params/arguments/a')).toEqual({ found: '/params/arguments/a', missing: false });
    expect(resolvePointer(call, '/params')).toEqual({ found: '/params', missing: false });
    expect(resolvePointer(call, '')).toEqual({ found: '', missing: false });
    // Escaped names, and a null member, are found (null is a value, not a missing member).
    expect(resolvePointer(call, '/params/arguments/x~1y/p~0q')).toEqual({ found: '/params/arguments/x~1y/p~0q', missing: false });
  });

  it('marks a member the message lacks on its nearest ancestor', () => {
    expect(resolvePointer(call, '/params/arguments/c')).toEqual({ found: '/params/arguments', missing: true });
    expect(resolvePointer({ jsonrpc: '2.0', id: 1, result: {} }, '/result/content')).toEqual({ found: '/result', missing: true });
    expect(resolvePointer(call, '/result/content/0')).toEqual({ found: '', missing: true });
    // Under a scalar or null there is nothing.
    expect(resolvePointer(call, '/params/name/length')).toEqual({ found: '/params/name', missing: true });
    expect(resolvePointer(call, '/params/arguments/x~1y/p~0q/r')).toEqual({ found: '/params/arguments/x~1y/p~0q', missing: true });
    expect(resolvePointer(5, '/a')).toEqual({ found: '', missing: true });
    expect(resolvePointer(null, '/a')).toEqual({ found: '', missing: true });
    // Own members only: nothing inherited counts.
    expect(resolvePointer({}, '/__proto__')).toEqual({ found: '', missing: true });
    expect(resolvePointer({}, '/toString')).toEqual({ found: '', missing: true });
    expect(resolvePointer({ a: {} }, '/a/constructor')).toEqual({ found: '/a', missing: true });
  });

  it('indexes arrays by canonical in-range indices only', () => {
    const result = { result: { content: [{ type: 'text', text: 'x' }, { type: 'image' }] } };
    expect(resolvePointer(result, '/result/content/1/type')).toEqual({ found: '/result/content/1/type', missing: false });
    expect(resolvePointer(result, '/result/content/0')).toEqual({ found: '/result/content/0', missing: false });
    for (const bad of ['2', '01', '-', '-1', '1.0', ' 1', 'length', ''])
      expect(resolvePointer(result, `/result/content/${bad}`), bad).toEqual({ found: '/result/content', missing: true });
    expect(resolvePointer(result, '/result/content/1/data')).toEqual({ found: '/result/content/1', missing: true });
    // A key that looks like an index is an ordinary member of an object.
    expect(resolvePointer({ m: { '0': 1 } }, '/m/0')).toEqual({ found: '/m/0', missing: false });
  });

  it('is undefined for what is not a pointer', () => {
    expect(resolvePointer(call, 'params/arguments')).toBeUndefined();
  });

  it('always lands on an existing part whose pointer is a prefix of the one asked', () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(json, fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.nat(3).map(String)), { maxLength: 5 }), (value, names) => {
        const pointer = names.map((n) => `/${pointerToken(n)}`).join('');
        const r = resolvePointer(value, pointer)!;
        expect(pointer.startsWith(r.found)).toBe(true);
        expect(r.missing).toBe(r.found !== pointer);
        // What it found resolves to itself, whole.
        expect(resolvePointer(value, r.found)).toEqual({ found: r.found, missing: false });
      }),
    );
  });
});

describe('rowViolations', () => {
  const { events, seq } = scenario();
  const store = new TimelineStore();
  store.ingest(events);
  const row = (key: string): Row => {
    const r = store.row(key);
    if (!r) throw new Error(`no row ${key}`);
    return r;
  };
  /** One violation per message seq given, as the store's index would answer. */
  const indexOf = (...seqs: number[]) => {
    const byMessage = new Map<number, ProblemEvent[]>();
    // Made in reverse so that the seq order the result has is rowViolations' doing.
    for (const s of [...seqs].reverse()) {
      const list = byMessage.get(s) ?? [];
      list.push(problem({ message: s, rule: `rule-of-${s}` }));
      byMessage.set(s, list);
    }
    return (s: number) => byMessage.get(s);
  };
  const rules = (list: ProblemEvent[]) => list.map((p) => p.rule);

  it("a call: its request's, progress', cancellation's and response's, in seq order", () => {
    const slow = row(`c${seq.slowTask}`);
    expect(slow.type).toBe('call');
    const all = [seq.slowTask, ...seq.progress, seq.slowTaskResult];
    const found = rowViolations(slow, indexOf(...all));
    // Each message's violation, ordered by the violations' own seqs (made here in reverse: the
    // response's came first), not by the order of the messages in the row.
    expect(new Set(found.map((p) => p.message))).toEqual(new Set(all));
    expect(found.map((p) => p.message)).toEqual([...all].reverse());
    expect(found.map((p) => p.seq)).toEqual([...found.map((p) => p.seq)].sort((a, b) => a - b));
    // Not the nested sampling request's or log line's: those are rows of their own.
    expect(rowViolations(slow, indexOf(seq.sampling, seq.samplingAnswer, seq.slowLog))).toEqual([]);

    const cancelled = row(`c${seq.longJob}`);
    expect(rules(rowViolations(cancelled, indexOf(seq.cancel)))).toEqual([`rule-of-${seq.cancel}`]);
    expect(rules(rowViolations(row(`c${seq.crash}`), indexOf(seq.crashError)))).toEqual([`rule-of-${seq.crashError}`]);
    // A pending call: its request only.
    expect(rules(rowViolations(row(`c${seq.hang}`), indexOf(seq.hang, seq.crash)))).toEqual([`rule-of-${seq.hang}`]);
    expect(rowViolations(row(`c${seq.add}`), indexOf(seq.slowTask))).toEqual([]);
  });

  it('a notification and an orphan response: their one message', () => {
    const note = row(`n${seq.listChanged}`);
    expect(note.type).toBe('notification');
    expect(rules(rowViolations(note, indexOf(seq.listChanged, seq.replay)))).toEqual([`rule-of-${seq.listChanged}`]);
    const orphan = row(`o${seq.orphan}`);
    expect(orphan.type).toBe('orphan');
    expect(rules(rowViolations(orphan, indexOf(seq.orphan)))).toEqual([`rule-of-${seq.orphan}`]);
    expect(rowViolations(orphan, indexOf(seq.listChanged))).toEqual([]);
  });

  it('a problem, a plain HTTP exchange and a stderr line: none (they show no message)', () => {
    const p = row(`p${seq.problem}`);
    expect(p.type).toBe('problem');
    const asked: number[] = [];
    const spy = (s: number) => {
      asked.push(s);
      return [problem({ message: s })];
    };
    expect(rowViolations(p, spy)).toEqual([]);
    const b = new EventBuilder();
    const x = b.exchange('h1', 'web', { status: 200 });
    expect(rowViolations(httpRow(1, x), spy)).toEqual([]);
    expect(rowViolations(logRow({ type: 'log', seq: 5, ts: T0, sessionId: 's1', source: 'stderr', text: 'x' }), spy)).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('several violations of one message keep their order', () => {
    const add = row(`c${seq.add}`);
    const v1 = problem({ message: seq.add, rule: 'first' });
    const v2 = problem({ message: seq.addResult, rule: 'second' });
    const v3 = problem({ message: seq.add, rule: 'third' });
    const of = (s: number) => (s === seq.add ? [v1, v3] : s === seq.addResult ? [v2] : undefined);
    expect(rules(rowViolations(add, of))).toEqual(['first', 'second', 'third']);
  });
});
