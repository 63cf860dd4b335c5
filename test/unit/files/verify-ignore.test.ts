/**
 * Verify's ignore patterns (issue 15, item 2): `[<call> › ]<path>` as the report prints
 * differences, with `*` wildcards; a fixture's own `verify.ignore`, checked by the loader; and
 * the replay model's list of every recorded server→client request — on a call's stream, on the
 * standalone stream, or (stdio) guessed — with the recorded client's reply to each.
 */
import { describe, expect, it } from 'vitest';
import { FIXTURE_FORMAT, FIXTURE_VERSION, type Fixture, type FixtureMessage } from '../../../proxy/core/model/fixture-format.js';
import { isIgnored, parseIgnorePattern } from '../../../proxy/core/model/json-diff.js';
import { validateFixture } from '../../../proxy/files/import/load-fixture.js';
import { FixtureError } from '../../../proxy/core/model/errors.js';
import { buildReplayModel } from '../../../proxy/files/replay/replay-matching.js';
import { formatVerifyReport, type VerifyReport } from '../../../proxy/files/replay/verify.js';

const ignored = (patterns: string[], call: string, path: string) => isIgnored(patterns.map(parseIgnorePattern), call, path);

describe('ignore patterns', () => {
  it('match a call’s path and everything below it, as the report prints them', () => {
    const p = ['tools/call random_delay › content[0].text'];
    expect(ignored(p, 'tools/call random_delay', 'content[0].text')).toBe(true);
    expect(ignored(p, 'tools/call random_delay', 'content[0].text.more')).toBe(true);
    expect(ignored(p, 'tools/call random_delay', 'content[0].textual')).toBe(false);
    expect(ignored(p, 'tools/call random_delay', 'content[1].text')).toBe(false);
    expect(ignored(p, 'tools/call echo', 'content[0].text')).toBe(false);
    expect(ignored(p, 'tools/call random_delay_2', 'content[0].text')).toBe(false);
    // ASCII " > " for " › ".
    expect(ignored(['tools/call random_delay > content'], 'tools/call random_delay', 'content[0].text')).toBe(true);
  });

  it('without a call apply to every call; * stands for one key, an index or a name, or (call) any text', () => {
    expect(ignored(['structuredContent.generatedAt'], 'tools/call a', 'structuredContent.generatedAt')).toBe(true);
    expect(ignored(['structuredContent.generatedAt'], 'resources/read x', 'structuredContent.generatedAt')).toBe(true);
    expect(ignored(['content[*].text'], 'c', 'content[3].text')).toBe(true);
    expect(ignored(['tools[name=*].description'], 'tools/list', 'tools[name=echo].description')).toBe(true);
    expect(ignored(['tools[name=*].description'], 'tools/list', 'tools[name=echo].inputSchema')).toBe(false);
    expect(ignored(['items.*.at'], 'c', 'items.first.at')).toBe(true);
    expect(ignored(['items.*.at'], 'c', 'items.first.second.at')).toBe(false);
    expect(ignored(['tools/call * › content'], 'tools/call anything', 'content[0].text')).toBe(true);
    expect(ignored(['tools/call * › content'], 'prompts/get x', 'content[0].text')).toBe(false);
    expect(ignored(['resources/read demo://clock › *'], 'resources/read demo://clock', 'error')).toBe(true);
    expect(ignored(['resources/read demo://clock › *'], 'resources/read demo://clock', '')).toBe(true);
    expect(ignored(['progress'], 'tools/call slow', 'progress')).toBe(true);
    // Regex characters are literal.
    expect(ignored(['a.b'], 'c', 'aXb')).toBe(false);
    expect(ignored(['["odd key"]'], 'c', '["odd key"].x')).toBe(true);
  });

  it('answer at once for patterns a backtracking RegExp would retry every split for (a hostile fixture hung verify)', () => {
    // Issue 26, finding 8: as RegExps, six stars took 5.8 s against a 71-character label and eight did not end.
    const label = `tools/call ${'a'.repeat(60)}`;
    expect(ignored(['*a*a*a*a*a*a*a*a*b › content'], label, 'content')).toBe(false);
    expect(ignored(['*a*a*a*a*a*a*a*a*b › content'], `${label}b`, 'content')).toBe(true);
    // A path's * is one key ([^.[]+ as a RegExp, which backtracks the same way), inside brackets any name.
    const key = 'a'.repeat(5_000);
    expect(ignored(['*a*a*a*a*a*a*a*a*b'], 'c', key)).toBe(false);
    expect(ignored(['*a*a*a*a*a*a*a*a*b'], 'c', `${key}b.x`)).toBe(true);
    expect(ignored(['x[*a*a*a*a*a*a*a*a*b]'], 'c', `x[${key}]`)).toBe(false);
    expect(ignored(['x[*a*a*a*a*a*a*a*a*b]'], 'c', `x[${key}b].y`)).toBe(true);
  });

  it('say what is wrong with a malformed pattern', () => {
    expect(() => parseIgnorePattern('')).toThrow(/non-empty/);
    expect(() => parseIgnorePattern('tools/call x › ')).toThrow(/path after "›" is empty/);
    expect(() => parseIgnorePattern(' › content')).toThrow(/call before "›" is empty/);
    expect(() => parseIgnorePattern('content[0.text')).toThrow(/not closed/);
    expect(() => parseIgnorePattern('content]')).toThrow(/without "\["/);
  });
});

function fixture(messages: Omit<FixtureMessage, 'seq'>[], extra: Record<string, unknown> = {}): Fixture {
  return {
    format: FIXTURE_FORMAT,
    version: FIXTURE_VERSION,
    generator: 'test',
    exportedAt: '2026-01-01T00:00:00.000Z',
    session: { transport: 'streamable-http', target: 'http://upstream/mcp', startedAt: 0 },
    exchanges: [],
    messages: messages.map((m, i) => ({ ...m, seq: (i + 1) * 10 })),
    ...extra,
  } as Fixture;
}

describe('a fixture’s verify.ignore', () => {
  it('is optional, and when present must be a list of valid patterns', () => {
    expect(validateFixture(fixture([])).verify).toBeUndefined();
    expect(validateFixture(fixture([], { verify: { ignore: ['tools/call x › content'] } })).verify?.ignore).toEqual([
      'tools/call x › content',
    ]);
    expect(validateFixture(fixture([], { verify: {} })).verify).toEqual({});
    const bad = (verify: unknown) => {
      try {
        validateFixture(fixture([], { verify }), 'f.json');
      } catch (err) {
        expect(err).toBeInstanceOf(FixtureError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad(['x'])).toBe('f.json: "verify" must be an object ({ "ignore": [ … ] })');
    expect(bad({ ignore: 'content' })).toContain('"verify.ignore" must be an array');
    expect(bad({ ignore: ['ok', 3] })).toBe('f.json: verify.ignore[1] must be a string, not 3');
    expect(bad({ ignore: ['content[0'] })).toBe('f.json: verify.ignore[0]: "content[0": "[" is not closed');
  });
});

describe('the replay model’s server→client requests', () => {
  it('lists every one — on a call’s stream, on the standalone stream, guessed (stdio) — with the recorded client’s reply', () => {
    const model = buildReplayModel(
      fixture([
        {
          t: 0,
          dir: 'c2s',
          kind: 'request',
          carrier: 'post-body',
          message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask' } },
        }, // 10
        {
          t: 1,
          dir: 's2c',
          kind: 'request',
          carrier: 'post-sse',
          parent: 10,
          message: { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: {} },
        }, // 20
        { t: 2, dir: 's2c', kind: 'request', carrier: 'get-sse', message: { jsonrpc: '2.0', id: 1, method: 'roots/list' } }, // 30
        { t: 3, dir: 'c2s', kind: 'response', carrier: 'post-body', pair: 30, message: { jsonrpc: '2.0', id: 1, result: { roots: [] } } }, // 40
        {
          t: 4,
          dir: 'c2s',
          kind: 'response',
          carrier: 'post-body',
          pair: 20,
          parent: 10,
          message: { jsonrpc: '2.0', id: 0, result: { model: 'm' } },
        }, // 50
        { t: 5, dir: 's2c', kind: 'response', carrier: 'post-sse', pair: 10, message: { jsonrpc: '2.0', id: 1, result: {} } }, // 60
      ]),
    );
    expect(model.serverRequests.map((r) => [r.request.seq, r.attribution, r.owner?.request.seq, r.reply?.seq])).toEqual([
      [20, 'stream', 10, 50],
      [30, 'none', undefined, 40],
    ]);
    expect(model.clientReplies.get(30)?.seq).toBe(40);
    expect(model.calls[0].background.map((m) => m.seq)).toEqual([30]);

    const stdio = buildReplayModel(
      fixture([
        {
          t: 0,
          dir: 'c2s',
          kind: 'request',
          carrier: 'stdio',
          message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask' } },
        }, // 10
        { t: 1, dir: 's2c', kind: 'request', carrier: 'stdio', message: { jsonrpc: '2.0', id: 0, method: 'roots/list' } }, // 20
        { t: 2, dir: 'c2s', kind: 'response', carrier: 'stdio', pair: 20, message: { jsonrpc: '2.0', id: 0, result: { roots: [] } } }, // 30
        { t: 3, dir: 's2c', kind: 'response', carrier: 'stdio', pair: 10, message: { jsonrpc: '2.0', id: 1, result: {} } }, // 40
      ]),
    );
    expect(stdio.serverRequests.map((r) => [r.attribution, r.owner?.request.seq, r.reply?.seq])).toEqual([['guess', 10, 30]]);
  });
});

describe('the report', () => {
  it('counts ignored differences per call and names the patterns', () => {
    const d = {
      call: 'tools/call random_delay',
      kind: 'changed' as const,
      path: 'content[0].text',
      text: 'tools/call random_delay › content[0].text: "a" → "b"',
    };
    const report: VerifyReport = {
      ok: true,
      target: 'http://x/mcp',
      transport: 'http',
      calls: [
        { seq: 10, call: 'tools/call random_delay', method: 'tools/call', status: 'same', durationMs: 1, differences: [], ignored: [d] },
      ],
      differences: [],
      ignored: [d],
      ignore: ['tools/call random_delay › content[0].text'],
      violations: [],
      strict: false,
    };
    expect(formatVerifyReport(report, 'f.json')).toBe(
      'mcpscope verify: f.json (1 calls) against http://x/mcp\n' +
        '  ✓ tools/call random_delay  (1 ignored)\n' +
        '  1 difference ignored ("tools/call random_delay › content[0].text")\n' +
        'OK: every response matches the recording.\n',
    );
  });
});
