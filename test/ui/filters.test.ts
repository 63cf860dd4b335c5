import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { TimelineStore } from '../../ui/src/state/store';
import {
  filtersFromSearch,
  filtersKey,
  filtersToSearch,
  isEmptyFilters,
  rowMatches,
  sessionTerms,
  toggleSessionTerm,
} from '../../ui/src/state/filters';
import { EMPTY_FILTERS, type Filters, type Row } from '../../ui/src/state/types';
import { EventBuilder, scenario } from './fixtures';

const setup = () => {
  const s = scenario();
  const store = new TimelineStore();
  store.ingest(s.events);
  return { store, seq: s.seq };
};

const keys = (store: TimelineStore, f: Partial<Filters>) => store.visibleRows({ ...EMPTY_FILTERS, ...f }).map((r) => r.key);

describe('rowMatches', () => {
  it('passes every row with empty filters', () => {
    const { store } = setup();
    const rows = store.visibleRows(EMPTY_FILTERS);
    expect(rows.length).toBe(store.stats.rows);
    for (const r of rows) expect(rowMatches(r, EMPTY_FILTERS, store)).toBe(true);
  });

  it('filters by session (problems by their exchange when they name no session)', () => {
    const { store, seq } = setup();
    expect(keys(store, { session: 's2' })).toEqual([`c${seq.legacyRequest}`]);
    const s1 = keys(store, { session: 's1' });
    expect(s1).toContain(`p${seq.problem}`);
    expect(s1).not.toContain(`c${seq.legacyRequest}`);
    const b = new EventBuilder(500);
    b.exchange('x99', 's1');
    const p = b.problem({ exchangeId: 'x99', code: 'truncated-stream', text: 'cut' });
    store.ingest(b.events);
    expect(keys(store, { session: 's1' })).toContain(`p${p.seq}`);
    expect(keys(store, { session: 's2' })).not.toContain(`p${p.seq}`);
  });

  it('filters by method substring, case-insensitively', () => {
    const { store, seq } = setup();
    const k = keys(store, { method: 'TOOLS/CALL' });
    expect(k).toContain(`c${seq.slowTask}`);
    expect(k).toContain(`c${seq.add}`);
    expect(k).not.toContain(`c${seq.initialize}`);
    expect(k).not.toContain(`c${seq.sampling}`);
    expect(k).not.toContain(`p${seq.problem}`);
    expect(keys(store, { method: 'sampling/' })).toEqual([`c${seq.sampling}`]);
  });

  it('filters by direction', () => {
    const { store, seq } = setup();
    const s2c = keys(store, { dir: 's2c' });
    expect(s2c).toContain(`c${seq.sampling}`);
    expect(s2c).toContain(`n${seq.slowLog}`);
    expect(s2c).toContain(`o${seq.orphan}`);
    expect(s2c).not.toContain(`c${seq.slowTask}`);
    const c2s = keys(store, { dir: 'c2s' });
    expect(c2s).toContain(`c${seq.slowTask}`);
    expect(c2s).toContain(`n${seq.initialized}`);
    expect(c2s).not.toContain(`c${seq.sampling}`);
  });

  it('filters by kind', () => {
    const { store, seq } = setup();
    expect(keys(store, { kind: 'error' })).toEqual([`c${seq.crash}`]);
    expect(keys(store, { kind: 'notification' })).toEqual([`n${seq.initialized}`, `n${seq.slowLog}`, `n${seq.listChanged}`]);
    const responses = keys(store, { kind: 'response' });
    expect(responses).toContain(`o${seq.orphan}`);
    expect(responses).toContain(`c${seq.add}`);
    expect(responses).not.toContain(`c${seq.hang}`);
    expect(responses).not.toContain(`c${seq.crash}`);
    expect(keys(store, { kind: 'request' })).toContain(`c${seq.hang}`);
  });

  it('errors only: JSON-RPC errors, tool errors, protocol mistakes and problems', () => {
    const { store, seq } = setup();
    expect(keys(store, { errorsOnly: true }).sort()).toEqual(
      [`c${seq.crash}`, `c${seq.flaky}`, `o${seq.orphan}`, `p${seq.problem}`].sort(),
    );
  });

  it('minimum latency: answered calls by latency, pending ones by the time waited so far', () => {
    const { store, seq } = setup();
    const slow = keys(store, { minLatencyMs: 100 });
    expect(slow).toContain(`c${seq.slowTask}`);
    expect(slow).not.toContain(`c${seq.add}`);
    expect(slow).not.toContain(`n${seq.initialized}`);
    // hang has waited less than 100 ms by the last event's clock…
    expect(slow).not.toContain(`c${seq.hang}`);
    // …until later events move the clock on.
    const b = new EventBuilder(900, store.lastTs + 5_000);
    b.log('later');
    store.ingest(b.events);
    expect(keys(store, { minLatencyMs: 100 })).toContain(`c${seq.hang}`);
    expect(keys(store, { minLatencyMs: 100 })).not.toContain(`c${seq.add}`);
  });

  it('searches text case-insensitively across method, name and payload JSON', () => {
    const { store, seq } = setup();
    expect(keys(store, { text: 'SLOW_TASK' })).toContain(`c${seq.slowTask}`);
    expect(keys(store, { text: 'step 2 summarized' })).toEqual([`c${seq.sampling}`]); // the client's answer
    expect(keys(store, { text: 'flaky failure' })).toEqual([`c${seq.flaky}`]);
    expect(keys(store, { text: 'step 3 of 4' })).toEqual([`c${seq.slowTask}`]); // a progress message
    expect(keys(store, { text: 'not valid json' })).toEqual([`p${seq.problem}`]);
    expect(keys(store, { text: 'finished step 1/4' })).toEqual([`n${seq.slowLog}`]);
    expect(keys(store, { text: '   ' })).toEqual(keys(store, {}));
    expect(keys(store, { text: 'zzz-nothing' })).toEqual([]);
  });

  it('searches messages without raw text through their JSON, stringified once per message', () => {
    const b = new EventBuilder();
    b.session('s1');
    for (let i = 0; i < 50; i++)
      b.message({
        exchangeId: `x${i}`,
        dir: 'c2s',
        kind: 'request',
        carrier: 'post-body',
        id: i,
        method: 'tools/call',
        name: 't',
        noRaw: true,
        jsonrpc: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 't', arguments: { word: i === 7 ? 'Needle' : 'hay' } } },
      });
    const store = new TimelineStore();
    store.ingest(b.events);
    const spy = vi.spyOn(JSON, 'stringify');
    expect(keys(store, { text: 'needle' })).toHaveLength(1);
    const first = spy.mock.calls.length;
    expect(first).toBe(50);
    expect(keys(store, { text: 'hay' })).toHaveLength(49);
    expect(keys(store, { text: 'ne' })).toHaveLength(1);
    expect(spy.mock.calls.length).toBe(first);
    spy.mockRestore();
  });

  it('combines filters (all must hold) and judges nested rows on their own', () => {
    const { store, seq } = setup();
    expect(keys(store, { method: 'tools/call', errorsOnly: true, dir: 'c2s' }).sort()).toEqual([`c${seq.crash}`, `c${seq.flaky}`].sort());
    // A nested sampling request shows even though its parent does not match.
    expect(keys(store, { text: 'summarize step 2' })).toEqual([`c${seq.sampling}`]);
  });
});

describe('session: terms in the search text (the "All sessions" view)', () => {
  it('reads the terms (ids, quoted client names; several) and leaves the rest of the text to search', () => {
    expect(sessionTerms('session:s3')).toEqual({ sessions: ['s3'], rest: '' });
    expect(sessionTerms('foo session:S3 bar')).toEqual({ sessions: ['s3'], rest: 'foo bar' });
    expect(sessionTerms('session:s1 session:"My Client" echo')).toEqual({ sessions: ['s1', 'my client'], rest: 'echo' });
    // Still being typed: an empty term filters nothing; a word merely containing it is text.
    expect(sessionTerms('session:')).toEqual({ sessions: [], rest: '' });
    expect(sessionTerms('mysession:s1')).toEqual({ sessions: [], rest: 'mysession:s1' });
    expect(sessionTerms('tools/call')).toEqual({ sessions: [], rest: 'tools/call' });
  });

  it("a badge's click shows only its session, a second click all again", () => {
    expect(toggleSessionTerm('', 's2')).toBe('session:s2');
    expect(toggleSessionTerm('echo', 's2')).toBe('session:s2 echo');
    expect(toggleSessionTerm('session:s1 echo', 's2')).toBe('session:s2 echo');
    expect(toggleSessionTerm('session:s2 echo', 's2')).toBe('echo');
    expect(toggleSessionTerm('session:s1 session:s2', 's2')).toBe('session:s2');
  });

  it('keeps the rows of the sessions named, by id or by client name, with the rest of the text searched', () => {
    const { store, seq } = setup();
    expect(keys(store, { text: 'session:s2' })).toEqual([`c${seq.legacyRequest}`]);
    expect(keys(store, { text: 'session:s2' })).toEqual(keys(store, { session: 's2' }));
    // Problems by their exchange's session, as the sidebar's selection does.
    expect(keys(store, { text: 'session:S1' })).toEqual(keys(store, { session: 's1' }));
    expect(keys(store, { text: 'session:fixture-client' })).toEqual(keys(store, { session: 's1' }));
    expect(keys(store, { text: 'session:s1 session:s2' })).toEqual(keys(store, {}));
    expect(keys(store, { text: 'session:s1 summarize step 2' })).toEqual([`c${seq.sampling}`]);
    expect(keys(store, { text: 'session:s2 summarize step 2' })).toEqual([]);
    expect(keys(store, { text: 'session:nobody' })).toEqual([]);
    // By the name its badge shows: a plain-HTTP bucket's is its host (session-label.ts), not a client's.
    const s2 = store.sessions.get('s2')!;
    (store.sessions as Map<string, typeof s2>).set('s2', {
      ...s2,
      transport: 'http',
      target: 'https://auth.example.com',
      clientInfo: undefined,
    });
    expect(keys(store, { text: 'session:auth.example.com' })).toEqual(keys(store, { session: 's2' }));
    (store.sessions as Map<string, typeof s2>).set('s2', s2);
    // Part of the text: in the URL as q=, read back the same.
    const f = { ...EMPTY_FILTERS, text: 'session:s2 echo' };
    expect(filtersFromSearch(filtersToSearch(f))).toEqual(f);
  });
});

describe('filters in the URL', () => {
  const arbFilters: fc.Arbitrary<Filters> = fc.record({
    session: fc.oneof(fc.constant(''), fc.string()),
    method: fc.oneof(fc.constant(''), fc.constant('tools/'), fc.string()),
    dir: fc.constantFrom('' as const, 'c2s' as const, 's2c' as const),
    kind: fc.constantFrom('' as const, 'request' as const, 'notification' as const, 'response' as const, 'error' as const),
    errorsOnly: fc.boolean(),
    minLatencyMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_000_000 })),
    text: fc.oneof(fc.constant(''), fc.string(), fc.constant('a&b=c?d#e %2F ü 🙂')),
  });

  it('writes the documented parameters', () => {
    expect(filtersToSearch({ ...EMPTY_FILTERS, session: 's1', method: 'tools/', errorsOnly: true, minLatencyMs: 100, text: 'foo' })).toBe(
      '?session=s1&method=tools%2F&errors=1&minms=100&q=foo',
    );
    expect(filtersToSearch(EMPTY_FILTERS)).toBe('');
    expect(filtersToSearch({ ...EMPTY_FILTERS, dir: 's2c', kind: 'error' })).toBe('?dir=s2c&kind=error');
  });

  it('reads them back', () => {
    expect(filtersFromSearch('?session=s1&method=tools%2F&errors=1&minms=100&q=foo')).toEqual({
      ...EMPTY_FILTERS,
      session: 's1',
      method: 'tools/',
      errorsOnly: true,
      minLatencyMs: 100,
      text: 'foo',
    });
    expect(filtersFromSearch('')).toEqual(EMPTY_FILTERS);
    expect(filtersFromSearch('dir=c2s&kind=notification&errors=true')).toEqual({
      ...EMPTY_FILTERS,
      dir: 'c2s',
      kind: 'notification',
      errorsOnly: true,
    });
  });

  it('ignores the token and unknown or invalid parameters', () => {
    expect(filtersFromSearch('?token=secret&foo=bar&dir=sideways&kind=nope&minms=-5&errors=0')).toEqual(EMPTY_FILTERS);
    expect(filtersFromSearch('?minms=abc')).toEqual(EMPTY_FILTERS);
  });

  it('leaves the token (and other parameters) of the current URL alone', () => {
    const search = filtersToSearch({ ...EMPTY_FILTERS, method: 'tools/' }, '?token=abc%2Bdef&session=s9&theme=dark');
    const params = new URLSearchParams(search);
    expect(params.get('token')).toBe('abc+def');
    expect(params.get('theme')).toBe('dark');
    expect(params.get('session')).toBeNull();
    expect(params.get('method')).toBe('tools/');
    expect(filtersToSearch(EMPTY_FILTERS, '?token=t&q=old')).toBe('?token=t');
  });

  it('round-trips any filters', () => {
    fc.assert(
      fc.property(arbFilters, fc.constantFrom('', '?token=abc', 'token=x&other=1'), (f, base) => {
        const search = filtersToSearch(f, base);
        expect(filtersFromSearch(search)).toEqual(f);
        if (base.includes('token'))
          expect(new URLSearchParams(search).get('token')).toBe(new URLSearchParams(base.replace(/^\?/, '')).get('token'));
      }),
    );
  });

  it('isEmptyFilters and filtersKey agree with what the filters select', () => {
    expect(isEmptyFilters(EMPTY_FILTERS)).toBe(true);
    expect(isEmptyFilters({ ...EMPTY_FILTERS, text: '  ' })).toBe(true);
    expect(isEmptyFilters({ ...EMPTY_FILTERS, errorsOnly: true })).toBe(false);
    expect(isEmptyFilters({ ...EMPTY_FILTERS, minLatencyMs: 5 })).toBe(false);
    expect(isEmptyFilters({ ...EMPTY_FILTERS, session: 's1' })).toBe(false);
    expect(filtersKey({ ...EMPTY_FILTERS, text: ' Foo ' })).toBe(filtersKey({ ...EMPTY_FILTERS, text: 'foo' }));
    expect(filtersKey({ ...EMPTY_FILTERS, text: 'foo' })).not.toBe(filtersKey({ ...EMPTY_FILTERS, method: 'foo' }));
  });
});

describe('rowMatches on every row type', () => {
  it('never throws for any filters', () => {
    const { store } = setup();
    const rows: Row[] = store.visibleRows(EMPTY_FILTERS);
    fc.assert(
      fc.property(
        fc.record({
          session: fc.constantFrom('', 's1', 's2', 'zz'),
          method: fc.constantFrom('', 'tools', 'x'),
          dir: fc.constantFrom('' as const, 'c2s' as const, 's2c' as const),
          kind: fc.constantFrom('' as const, 'request' as const, 'notification' as const, 'response' as const, 'error' as const),
          errorsOnly: fc.boolean(),
          minLatencyMs: fc.constantFrom(0, 1, 1000),
          text: fc.constantFrom('', 'a', 'json'),
        }),
        (f) => {
          const direct = rows.filter((r) => rowMatches(r, f, store)).map((r) => r.key);
          expect(store.visibleRows(f).map((r) => r.key)).toEqual(direct);
        },
      ),
    );
  });
});

describe('violations only (issue 19)', () => {
  /** The scenario with spec violations: on a call's response, on a notification, and one naming no message. */
  const withViolations = () => {
    const b = new EventBuilder();
    const { seq } = scenario(b);
    b.violation({ message: seq.addResult, rule: 'schema/tools-call-result', path: '/result/content/0' });
    b.violation({ message: seq.listChanged, rule: 'capabilities/list-changed' });
    const loose = b.violation({ rule: 'transport/protocol-version-header', exchangeId: 'x14' });
    const store = new TimelineStore();
    store.ingest(b.events);
    return { store, seq, loose };
  };

  it('keeps the rows whose messages broke a rule and violations naming no message, and nothing else (other problems neither)', () => {
    const { store, seq, loose } = withViolations();
    expect(keys(store, { violationsOnly: true })).toEqual([`c${seq.add}`, `n${seq.listChanged}`, `p${loose.seq}`]);
    expect(keys(store, { violationsOnly: true })).not.toContain(`p${seq.problem}`);
    // With the other filters: all must hold.
    expect(keys(store, { violationsOnly: true, kind: 'notification' })).toEqual([`n${seq.listChanged}`]);
    expect(keys(store, { violationsOnly: true, method: 'tools/call' })).toEqual([`c${seq.add}`]);
    expect(keys(store, { violationsOnly: true, session: 's2' })).toEqual([]);
    expect(keys(store, { violationsOnly: true, errorsOnly: true })).toEqual([`p${loose.seq}`]);
    // Nothing when nothing broke a rule.
    const { store: clean } = setup();
    expect(keys(clean, { violationsOnly: true })).toEqual([]);
  });

  it('judges again a row whose message gets a violation after the list was computed', () => {
    const { store, seq } = setup();
    expect(keys(store, { violationsOnly: true })).toEqual([]);
    const b = new EventBuilder(store.lastSeq + 1, store.lastTs);
    b.violation({ message: seq.slowTask, rule: 'tools/arguments-schema' });
    store.ingest(b.events);
    expect(keys(store, { violationsOnly: true })).toEqual([`c${seq.slowTask}`]);
    // A nested row gets it on its own: its parent shows only as its parent.
    const b2 = new EventBuilder(store.lastSeq + 1, store.lastTs);
    b2.violation({ message: seq.samplingAnswer, rule: 'schema/sampling-result' });
    store.ingest(b2.events);
    const rows = store.visibleRows({ ...EMPTY_FILTERS, violationsOnly: true });
    expect(rows.map((r) => r.key)).toEqual([`c${seq.slowTask}`, `c${seq.sampling}`]);
    expect(rowMatches(rows[1], { ...EMPTY_FILTERS, violationsOnly: true }, store)).toBe(true);
  });

  it('is spec=1 in the URL, read back as on; off leaves the filters as if it never was', () => {
    expect(filtersToSearch({ ...EMPTY_FILTERS, violationsOnly: true })).toBe('?spec=1');
    expect(filtersToSearch({ ...EMPTY_FILTERS, violationsOnly: false })).toBe('');
    expect(filtersToSearch({ ...EMPTY_FILTERS, violationsOnly: true, errorsOnly: true }, '?token=t')).toBe('?token=t&errors=1&spec=1');
    for (const on of ['?spec=1', 'spec=true', '?spec=YES', '?token=t&spec=1'])
      expect(filtersFromSearch(on), on).toEqual({ ...EMPTY_FILTERS, violationsOnly: true });
    for (const off of ['?spec=0', '?spec=', '?spec=no', '?specs=1', ''])
      expect(filtersFromSearch(off), off).toStrictEqual(filtersFromSearch(''));
    // Off and unset select the same rows: the same memo key.
    expect(filtersKey({ ...EMPTY_FILTERS, violationsOnly: false })).toBe(filtersKey(EMPTY_FILTERS));
    expect(filtersKey({ ...EMPTY_FILTERS, violationsOnly: true })).not.toBe(filtersKey({ ...EMPTY_FILTERS, errorsOnly: true }));
    expect(isEmptyFilters({ ...EMPTY_FILTERS, violationsOnly: true })).toBe(false);
    expect(isEmptyFilters({ ...EMPTY_FILTERS, violationsOnly: false })).toBe(true);
    // A stale spec=1 is replaced when the filter is turned off.
    expect(filtersToSearch(EMPTY_FILTERS, '?token=t&spec=1')).toBe('?token=t');
  });

  it('round-trips with every other filter', () => {
    fc.assert(
      fc.property(
        fc.record({
          session: fc.constantFrom('', 's1', 'a&b'),
          method: fc.constantFrom('', 'tools/'),
          dir: fc.constantFrom('' as const, 'c2s' as const, 's2c' as const),
          kind: fc.constantFrom('' as const, 'request' as const, 'error' as const),
          errorsOnly: fc.boolean(),
          minLatencyMs: fc.constantFrom(0, 250),
          text: fc.string(),
        }),
        (rest) => {
          const f: Filters = { ...rest, violationsOnly: true };
          const search = filtersToSearch(f, '?token=abc');
          expect(new URLSearchParams(search).get('spec')).toBe('1');
          expect(filtersFromSearch(search)).toEqual(f);
        },
      ),
    );
  });
});
