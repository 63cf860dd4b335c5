/**
 * Structure-aware fuzzing of everything that reads untrusted traffic after the proxy forwarded it:
 * the recorder (parse → correlate → annotate → redact → store), the feed's form of events, the
 * API's serialisation, and every export. Generated traffic is hostile on purpose: JSON-RPC shapes
 * with odd ids and methods, nesting far deeper than any real message, credentials under every
 * spelling of their key, SSE framing with every line ending split at random offsets, broken JSON,
 * encodings and header sets.
 *
 * Properties: nothing throws; every event serialises (JSON.stringify is recursive in V8 — the
 * crash of issue 16 finding 1); every export serialises and its NDJSON parses back; and no secret
 * planted where a credential belongs survives into anything kept.
 *
 * Each `npm test` runs a fresh random sample (150 + 100 cases); a failure prints fast-check's
 * `seed` and `path` — add them to that fc.assert's options to replay it, and pin what it found as a
 * unit test of the module at fault (as test/unit/redact-text.test.ts does for two finds). Before
 * committing a change to redaction or the recorder, a long run (numRuns in the thousands) is cheap.
 *
 * The permanent case of that finding (a 10,000-level message carrying `password`) is pinned below
 * the properties so that it runs on every `npm test` whatever the random seed.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { setup, TARGET } from '../../support/recorder-harness.js';
import { toFeed } from '../../../proxy/core/model/feed-form.js';
import { exportFixture } from '../../../proxy/files/export/export-fixture.js';
import { exportHar } from '../../../proxy/files/export/export-har.js';
import { exportNdjson } from '../../../proxy/files/export/export-ndjson.js';
import type { HeaderMap, WireRecord } from '../../../proxy/wire/capture/wire-records.js';
import type { EventStore } from '../../../proxy/recorder/store/event-store.js';

/** Every planted secret holds this marker; nothing kept may contain it. */
const MARK = 'FUZZSECRET';

/** Credential keys as peers really spell them. */
const secretKey = fc.constantFrom(
  'password',
  'access_token',
  'refresh_token',
  'client_secret',
  'accessToken',
  'clientSecret',
  'apiKey',
  'api_key',
  'Authorization',
  'PASSWORD',
  'Access-Token',
);
const secretValue = fc.string({ minLength: 0, maxLength: 6, unit: fc.constantFrom('a', 'Z', '0', '-', '_') }).map((s) => `${MARK}${s}`);

/** Ordinary JSON with, now and then, a credential planted at some depth. */
const payload: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.tuple(secretKey, secretValue).map(([k, v]) => ({ [k]: v })),
  ),
})).value;

/**
 * Nesting deeper than V8's recursive JSON.stringify survives (≈ 4,500 levels), with a credential at
 * the bottom — built as text (the test's own JSON.stringify would overflow first).
 */
function deepText(depth: number, shape: 'array' | 'object' | 'mixed', key: string, value: string): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    const array = shape === 'array' || (shape === 'mixed' && i % 2 === 0);
    open.push(array ? '[' : '{"a":');
    close.push(array ? ']' : '}');
  }
  return `${open.join('')}{"${key}":"${value}"}${close.reverse().join('')}`;
}
const deep = fc
  .record({
    depth: fc.integer({ min: 1, max: 12_000 }),
    shape: fc.constantFrom('array' as const, 'object' as const, 'mixed' as const),
    key: secretKey,
    value: secretValue,
    side: fc.constantFrom('params', 'result', 'error'),
  })
  .map((d) => {
    const inner = deepText(d.depth, d.shape, d.key, d.value);
    return d.side === 'params'
      ? `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"x":${inner}}}}`
      : d.side === 'result'
        ? `{"jsonrpc":"2.0","id":7,"result":${inner}}`
        : `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"m","data":${inner}}}`;
  });

const id = fc.oneof(
  fc.integer({ min: -3, max: 1e6 }),
  fc.string({ maxLength: 6 }),
  fc.constant(null),
  fc.double(),
  fc.constant(0),
  fc.constant('0'),
);
const method = fc.oneof(
  fc.constantFrom(
    'initialize',
    'notifications/initialized',
    'tools/call',
    'tools/list',
    'notifications/progress',
    'notifications/cancelled',
    'notifications/message',
    'sampling/createMessage',
    'elicitation/create',
    'ping',
  ),
  fc.string({ maxLength: 12 }),
);
const params = fc.oneof(payload, fc.constant(undefined));

/** One JSON-RPC-ish message: well-formed or subtly not. */
const message: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id, method, params }, { requiredKeys: ['jsonrpc', 'id', 'method'] }),
  fc.record({ jsonrpc: fc.constant('2.0'), method, params }, { requiredKeys: ['jsonrpc', 'method'] }),
  fc.record({ jsonrpc: fc.constant('2.0'), id, result: params }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id,
    error: fc.record({ code: fc.integer(), message: fc.string({ maxLength: 10 }), data: params }),
  }),
  fc.record(
    { jsonrpc: fc.constantFrom('2.0', '1.0', undefined), id, method: fc.anything(), result: fc.anything(), error: fc.anything() },
    { requiredKeys: [] },
  ),
  payload,
);

/** A body: a message, a batch, or broken text (cut JSON that holds a credential). */
const body = fc.oneof(
  { weight: 4, arbitrary: message.map((m) => JSON.stringify(m) ?? 'null') },
  { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }).map((b) => JSON.stringify(b)) },
  {
    weight: 1,
    arbitrary: fc.tuple(message, fc.nat()).map(([m, cut]) => {
      const t = JSON.stringify(m) ?? '';
      return t.slice(0, cut % (t.length + 1));
    }),
  },
  { weight: 1, arbitrary: fc.tuple(secretKey, secretValue).map(([k, v]) => `{"jsonrpc":"2.0","id":1,"result":{"${k}":"${v}","x":[1,2`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: deep },
);

/** SSE framing of several bodies with a chosen line ending, comments, ids and event types. */
const sseStream = fc
  .record({
    events: fc.array(
      fc.record({
        data: body,
        id: fc.option(fc.string({ maxLength: 4, unit: fc.constantFrom('a', '1', ':') })),
        event: fc.option(fc.constantFrom('message', 'endpoint', 'weird')),
        comment: fc.boolean(),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    eol: fc.constantFrom('\n', '\r\n', '\r'),
  })
  .map(({ events, eol }) =>
    events
      .map(
        (e) =>
          `${e.comment ? `: keep-alive${eol}` : ''}${e.event ? `event: ${e.event}${eol}` : ''}${e.id !== null ? `id: ${e.id}${eol}` : ''}${e.data
            .split(/\r\n|\r|\n/)
            .map((l) => `data: ${l}`)
            .join(eol)}${eol}${eol}`,
      )
      .join(''),
  );

/** Header sets: ordinary ones, credentials under many names, odd content types. */
const headers = fc.record({
  contentType: fc.constantFrom(
    'application/json',
    'text/event-stream',
    'text/plain',
    'application/json; charset=utf-8',
    'application/x-www-form-urlencoded',
    '',
  ),
  secretHeader: fc.constantFrom(
    'authorization',
    'x-api-key',
    'cookie',
    'proxy-authorization',
    'apikey',
    'X-Goog-Api-Key',
    'private-token',
    'x-access-token',
    'x-amz-security-token',
    'openai-api-key',
    'x-github-token',
    'authentication',
  ),
  secretQuery: fc.option(
    fc.constantFrom('apikey', 'API_KEY', 'key', 'secret', 'sig', 'X-Amz-Signature', 'session_token', 'access_token', 'code'),
  ),
  extra: fc.dictionary(
    fc.string({ minLength: 1, maxLength: 10, unit: fc.constantFrom('a', 'x', '-', 'Z') }),
    fc.string({ maxLength: 20 }),
    { maxKeys: 4 },
  ),
  session: fc.option(fc.string({ minLength: 1, maxLength: 8, unit: fc.constantFrom('a', 'b', '1', '-') })),
});

/** Where a body is split into chunks (ascending: the harness cuts at each offset in turn). */
const cuts = fc.array(fc.nat({ max: 400 }), { maxLength: 4 }).map((c) => [...c].sort((a, b) => a - b));

const exchange = fc.record({
  request: body,
  response: fc.oneof(body, sseStream),
  h: headers,
  reqCuts: cuts,
  resCuts: cuts,
  sse: fc.boolean(),
  status: fc.constantFrom(200, 202, 400, 401, 500),
});

function wire(w: ReturnType<typeof setup>['w'], ex: typeof exchange extends fc.Arbitrary<infer T> ? T : never): WireRecord[] {
  const xid = w.xid();
  const reqHeaders: HeaderMap = { ...ex.h.extra, 'content-type': 'application/json', [ex.h.secretHeader]: `Bearer ${MARK}h` };
  if (ex.h.session) reqHeaders['mcp-session-id'] = ex.h.session;
  const resHeaders: HeaderMap = { 'content-type': ex.sse ? 'text/event-stream' : ex.h.contentType || 'application/json' };
  if (ex.h.session) resHeaders['mcp-session-id'] = ex.h.session;
  const url = ex.h.secretQuery ? `${TARGET}?${ex.h.secretQuery}=${MARK}q&page=2` : TARGET;
  return [...w.send(xid, 'POST', url, reqHeaders, ex.request, ex.reqCuts), ...w.reply(xid, ex.status, resHeaders, ex.response, ex.resCuts)];
}

/** Every sink that serialises what the store holds. */
function serialiseEverything(store: EventStore): string[] {
  const out: string[] = [];
  for (const e of store.snapshot()) {
    out.push(JSON.stringify(e));
    out.push(JSON.stringify(toFeed(e)));
  }
  const ndjson = exportNdjson(store);
  for (const line of ndjson.split('\n')) if (line) JSON.parse(line);
  out.push(ndjson);
  out.push(JSON.stringify(exportHar(store)));
  for (const id of store.sessions.keys()) out.push(JSON.stringify(exportFixture(store, id)));
  return out;
}

describe('recorder, feed form and exports under generated hostile traffic', () => {
  it('never throw, always serialise, and keep no planted credential', () => {
    fc.assert(
      fc.property(fc.array(exchange, { minLength: 1, maxLength: 4 }), (exchanges) => {
        const t = setup();
        for (const ex of exchanges) t.feed(wire(t.w, ex));
        t.store.commit();
        for (const text of serialiseEverything(t.store))
          expect(text.includes(MARK), text.slice(Math.max(0, text.indexOf(MARK) - 200), text.indexOf(MARK) + 50)).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('stdio lines: the same, one message per line in both directions', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), body), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat({ max: 300 }), { maxLength: 3 }),
        (lines, cuts) => {
          const t = setup();
          const enc = new TextEncoder();
          const recs: WireRecord[] = [{ t: 'stdio-start', xid: 'p1', ts: 1, command: 'server', args: [] }];
          let ts = 2;
          for (const [c2s, text] of lines) {
            const bytes = enc.encode(`${text.replace(/\r?\n|\r/g, ' ')}\n`);
            let at = 0;
            for (const c of [...cuts.filter((x) => x > 0 && x < bytes.length).sort((a, b) => a - b), bytes.length]) {
              if (c > at) recs.push({ t: 'stdio-chunk', xid: 'p1', ts: ts++, dir: c2s ? 'c2s' : 's2c', chunk: bytes.subarray(at, c) });
              at = c;
            }
          }
          recs.push({ t: 'stdio-exit', xid: 'p1', ts: ts++, code: 0, signal: null });
          t.feed(recs);
          t.store.commit();
          for (const text of serialiseEverything(t.store)) expect(text.includes(MARK)).toBe(false);
        },
      ),
      { numRuns: 100 },
    );
  });

  // Issue 16, finding 1: a message nested ≈ 4,500 levels that also carries a redacted key, from
  // either side, made JSON.stringify overflow in the feed and killed the process.
  for (const dir of ['request', 'response'] as const) {
    it(`permanent case: a ${dir} nested 10,000 levels deep carrying a password serialises everywhere, redacted`, () => {
      const t = setup();
      const deep = (key: string) => deepText(10_000, 'mixed', key, `${MARK}-deep`);
      const xid = t.w.xid();
      const req = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":${dir === 'request' ? deep('password') : '{}'}}}`;
      const res = `{"jsonrpc":"2.0","id":1,"result":${dir === 'response' ? deep('access_token') : '{"content":[]}'}}`;
      t.feed([
        ...t.w.send(xid, 'POST', TARGET, { 'content-type': 'application/json', 'mcp-session-id': 's1' }, req),
        ...t.w.reply(xid, 200, { 'content-type': 'application/json', 'mcp-session-id': 's1' }, res),
      ]);
      t.store.commit();
      const texts = serialiseEverything(t.store);
      for (const text of texts) expect(text.includes(MARK)).toBe(false);
      // The message is still there, as the request/response it was, with its id and method.
      const kinds = t.store
        .snapshot()
        .filter((e) => e.type === 'message')
        .map((e) => (e as { kind: string }).kind);
      expect(kinds).toEqual(['request', 'response']);
    });
  }
});
