/**
 * The linter (proxy/core/lint/linter.ts): schema and session findings together, schema ones first,
 * each with the specRef of the session's version, elicitation's own finding over the generic one,
 * a bounded number of sessions, and sessions whose linting failed.
 */
import { describe, expect, it } from 'vitest';
import { Linter, MAX_LINT_SESSIONS, type LintMessage, type LintSession } from '../../../proxy/core/lint/linter.js';
import { LATEST_VERSION } from '../../../proxy/core/lint/rules.js';

let seq = 0;
const request = (dir: LintMessage['dir'], method: string, params?: unknown): LintMessage => {
  seq += 1;
  return { seq, ts: seq, dir, kind: 'request', method, id: seq, value: { jsonrpc: '2.0', id: seq, method, params } };
};
const initialize = () =>
  request('c2s', 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
const rules = (found: { rule: string }[]) => found.map((f) => f.rule);

describe('Linter.observe', () => {
  it('a compliant message has no findings', () => {
    const l = new Linter();
    expect(l.observe({ id: 's', protocolVersion: '2025-06-18' }, initialize())).toEqual([]);
  });

  it('schema findings come first, then the session’s, each in the order found', () => {
    const l = new Linter();
    const s: LintSession = { id: 's', protocolVersion: '2025-06-18', clientCapabilities: {} };
    l.observe(s, initialize());
    // Before notifications/initialized, to a client without elicitation, with a bad message and a nested property.
    const found = l.observe(
      s,
      request('s2c', 'elicitation/create', { message: 5, requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } }),
    );
    expect(rules(found)).toEqual([
      'schema/request',
      'lifecycle/server-request-before-initialized',
      'capability/elicitation-not-declared',
      'elicitation/requested-schema',
    ]);
    // version/ findings count as schema findings.
    const old: LintSession = { id: 'old', protocolVersion: '2025-03-26', clientCapabilities: {} };
    l.observe(old, initialize());
    expect(
      rules(l.observe(old, request('s2c', 'elicitation/create', { message: 'm', requestedSchema: { type: 'object', properties: {} } }))),
    ).toEqual(['version/method-not-in-version', 'lifecycle/server-request-before-initialized', 'capability/elicitation-not-declared']);
  });

  it('specRef: the session’s version and the rule’s section (a schema rule’s: its method’s)', () => {
    const l = new Linter();
    const s: LintSession = { id: 's', protocolVersion: '2025-03-26' };
    l.observe(s, initialize());
    const found = l.observe(s, request('c2s', 'tools/call', { name: 7 }));
    expect(found.map((f) => [f.rule, f.specRef])).toEqual([
      ['schema/request', '2025-03-26 server/tools#calling-tools'],
      ['lifecycle/request-before-initialized', '2025-03-26 basic/lifecycle#initialization'],
    ]);
  });

  it('specRef: the latest version while the session’s is not known', () => {
    const l = new Linter();
    const s: LintSession = { id: 's' };
    l.observe(s, initialize());
    expect(l.observe(s, request('c2s', 'tools/call', { name: 7 })).map((f) => f.specRef)).toEqual([
      `${LATEST_VERSION} server/tools#calling-tools`,
      `${LATEST_VERSION} basic/lifecycle#initialization`,
    ]);
    // It follows the session as its version becomes known.
    s.protocolVersion = '2025-06-18';
    expect(l.observe(s, request('c2s', 'tools/call', { name: 7 }))[0].specRef).toBe('2025-06-18 server/tools#calling-tools');
  });

  it('elicitation/requested-schema supersedes the generic schema issue under requestedSchema, not elsewhere', () => {
    const l = new Linter();
    const s: LintSession = { id: 's', protocolVersion: '2025-06-18', clientCapabilities: { elicitation: {} } };
    l.observe(s, initialize());
    l.observe(s, {
      seq: ++seq,
      dir: 'c2s',
      kind: 'notification',
      method: 'notifications/initialized',
      value: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
    const nested = { type: 'object', properties: { a: { type: 'object' } } };
    // Alone, the nested property is both a zod issue at /params/requestedSchema/… and the specific rule: only the latter is said.
    const found = l.observe(s, request('s2c', 'elicitation/create', { message: 'm', requestedSchema: nested }));
    expect(found.map((f) => [f.rule, f.path])).toEqual([['elicitation/requested-schema', '/params/requestedSchema/properties/a']]);
    expect(found[0].specRef).toBe('2025-06-18 client/elicitation#requested-schema');
    // A schema issue outside requestedSchema is kept beside it.
    expect(rules(l.observe(s, request('s2c', 'elicitation/create', { message: 5, requestedSchema: nested })))).toEqual([
      'schema/request',
      'elicitation/requested-schema',
    ]);
    // Without the specific finding, the generic one under requestedSchema stays.
    expect(
      l.observe(s, request('s2c', 'elicitation/create', { message: 'm', requestedSchema: { type: 'object', properties: 5 } })),
    ).toMatchObject([{ rule: 'schema/request', path: '/params/requestedSchema/properties' }]);
  });

  it('keeps sessions apart', () => {
    const l = new Linter();
    const a: LintSession = { id: 'a', protocolVersion: '2025-06-18' };
    const b: LintSession = { id: 'b', protocolVersion: '2025-06-18' };
    l.observe(a, initialize());
    // b's first message is not an initialize: joined mid-way, no lifecycle held against it.
    expect(l.observe(b, request('c2s', 'tools/list'))).toEqual([]);
    expect(rules(l.observe(a, request('c2s', 'tools/list')))).toEqual(['lifecycle/request-before-initialized']);
  });
});

describe('Linter: bounds and failures', () => {
  it(`keeps at most MAX_LINT_SESSIONS (${MAX_LINT_SESSIONS}) sessions, dropping the oldest`, () => {
    const l = new Linter();
    const inside = l as unknown as { sessions: Map<string, unknown> };
    const first: LintSession = { id: 'first', protocolVersion: '2025-06-18' };
    l.observe(first, initialize());
    expect(rules(l.observe(first, request('c2s', 'tools/list')))).toEqual(['lifecycle/request-before-initialized']);
    for (let i = 0; i < MAX_LINT_SESSIONS; i++) l.observe({ id: `s${i}` }, request('c2s', 'ping'));
    expect(inside.sessions.size).toBe(MAX_LINT_SESSIONS);
    expect(inside.sessions.has('first')).toBe(false);
    // Its state went: seen again, it starts as a session joined mid-way.
    expect(l.observe(first, request('c2s', 'tools/list'))).toEqual([]);
    expect(inside.sessions.size).toBe(MAX_LINT_SESSIONS);
  });

  it('failed(): false the first time (say it once), true after; the session is linted no more', () => {
    const l = new Linter();
    const s: LintSession = { id: 's', protocolVersion: '2025-06-18' };
    l.observe(s, initialize());
    expect(l.failed('s')).toBe(false);
    expect(l.failed('s')).toBe(true);
    expect(l.observe(s, request('c2s', 'tools/call', { name: 7 }))).toEqual([]);
    // Others are linted as before.
    const t: LintSession = { id: 't', protocolVersion: '2025-06-18' };
    expect(rules(l.observe(t, request('c2s', 'tools/call', { name: 7 })))).toEqual(['schema/request']);
  });

  it('forget(): the session’s state and its failure go; seen again, it starts afresh', () => {
    const l = new Linter();
    const s: LintSession = { id: 's', protocolVersion: '2025-06-18' };
    l.observe(s, initialize());
    l.forget('s');
    // A fresh state whose first message is not an initialize: joined mid-way.
    expect(l.observe(s, request('c2s', 'tools/list'))).toEqual([]);
    l.failed('s');
    l.forget('s');
    expect(l.failed('s')).toBe(false);
    l.forget('s');
    expect(rules(l.observe(s, request('c2s', 'tools/call', { name: 7 })))).toEqual(['schema/request']);
  });

  it('remembers at most MAX_LINT_SESSIONS failed sessions', () => {
    const l = new Linter();
    const inside = l as unknown as { broken: Set<string> };
    for (let i = 0; i <= MAX_LINT_SESSIONS + 5; i++) l.failed(`s${i}`);
    expect(inside.broken.size).toBe(MAX_LINT_SESSIONS);
    expect(l.failed(`s${MAX_LINT_SESSIONS + 5}`)).toBe(true);
  });
});
