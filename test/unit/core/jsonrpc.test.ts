import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  classifyPayload,
  classifyValue,
  findJsonErrorOffset,
  idKey,
  type ClassifiedMessage,
  type ClassifyResult,
} from '../../../proxy/core/parse/jsonrpc.js';
import { jsonValueDepth, MAX_JSON_DEPTH } from '../../../proxy/core/parse/json-depth.js';

function single(text: string): ClassifiedMessage {
  const r = classifyPayload(text);
  if (!r.ok) throw new Error(`expected ok, got ${r.code}: ${r.text}`);
  expect(r.batch).toBe(false);
  expect(r.messages).toHaveLength(1);
  return r.messages[0];
}

function codes(m: ClassifiedMessage): string[] {
  return m.issues.map((h) => h.code);
}

function failure(r: ClassifyResult): { code: string; text: string } {
  if (r.ok) throw new Error('expected a failure');
  return r;
}

describe('classifyPayload: kinds', () => {
  it('a request has method and id; ids keep their type', () => {
    const m = single('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    expect(m).toEqual({
      kind: 'request',
      value: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      id: 1,
      method: 'tools/list',
      issues: [],
    });
    const s = single('{"jsonrpc":"2.0","id":"1","method":"tools/list"}');
    expect(s.id).toBe('1');
    expect(typeof s.id).toBe('string');
    expect(s.id).not.toBe(m.id);
  });

  it('id 0 is a valid request id', () => {
    const m = single('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}');
    expect(m.kind).toBe('request');
    expect(m.id).toBe(0);
    expect(m.issues).toEqual([]);
  });

  it('a notification has a method and no id', () => {
    const m = single('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    expect(m.kind).toBe('notification');
    expect(m.method).toBe('notifications/initialized');
    expect('id' in m).toBe(false);
    expect(m.issues).toEqual([]);
  });

  it('a result makes a response', () => {
    const m = single('{"jsonrpc":"2.0","id":"abc","result":{}}');
    expect(m).toMatchObject({ kind: 'response', id: 'abc', issues: [] });
    expect('method' in m).toBe(false);
  });

  it('a null result is still a response', () => {
    expect(single('{"jsonrpc":"2.0","id":3,"result":null}').kind).toBe('response');
  });

  it('an error makes an error; id null is allowed on an error', () => {
    const m = single('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    expect(m.kind).toBe('error');
    expect(m.id).toBeNull();
    expect(m.issues).toEqual([]);
  });

  it('keeps the parsed value', () => {
    const m = single('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"a":[1,2]}}}');
    expect(m.value).toEqual({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { a: [1, 2] } } });
  });
});

describe('classifyPayload: issues', () => {
  it('missing-jsonrpc when the field is absent', () => {
    const m = single('{"id":0,"method":"initialize"}');
    expect(m.kind).toBe('request');
    expect(codes(m)).toEqual(['missing-jsonrpc']);
    expect(m.issues[0].level).toBe('error');
    expect(m.issues[0].text).toMatch(/missing/);
  });

  it('missing-jsonrpc when the field is not exactly "2.0"', () => {
    expect(codes(single('{"jsonrpc":"1.0","id":1,"method":"ping"}'))).toEqual(['missing-jsonrpc']);
    expect(codes(single('{"jsonrpc":2.0,"id":1,"method":"ping"}'))).toEqual(['missing-jsonrpc']);
    expect(single('{"jsonrpc":2.0,"id":1,"method":"ping"}').issues[0].text).toContain('"2.0"');
  });

  it('notification-with-id: a notifications/ method sent with an id stays a request', () => {
    const m = single('{"jsonrpc":"2.0","id":5,"method":"notifications/initialized"}');
    expect(m.kind).toBe('request');
    expect(m.id).toBe(5);
    expect(codes(m)).toEqual(['notification-with-id']);
    expect(m.issues[0].level).toBe('error');
  });

  it('null-id-request', () => {
    const m = single('{"jsonrpc":"2.0","id":null,"method":"tools/list"}');
    expect(m.kind).toBe('request');
    expect(m.id).toBeNull();
    expect(codes(m)).toEqual(['null-id-request']);
  });

  it.each([
    ['{"a":1}', 'an object'],
    ['[1]', 'an array'],
    ['true', 'a boolean'],
  ])('bad-id-type for id %s (no id kept)', (id, what) => {
    const m = single(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    expect(m.kind).toBe('request');
    expect('id' in m).toBe(false);
    expect(codes(m)).toEqual(['bad-id-type']);
    expect(m.issues[0].text).toContain(what);
  });

  it('bad-id-type for a fractional id (the number is kept for correlation)', () => {
    const m = single('{"jsonrpc":"2.0","id":1.5,"result":{}}');
    expect(m.kind).toBe('response');
    expect(m.id).toBe(1.5);
    expect(codes(m)).toEqual(['bad-id-type']);
  });

  it('result-and-error: classified as error', () => {
    const m = single('{"jsonrpc":"2.0","id":2,"result":{},"error":{"code":-32603,"message":"x"}}');
    expect(m.kind).toBe('error');
    expect(codes(m)).toEqual(['result-and-error']);
  });

  it('neither-result-nor-error: an id alone is a broken response to that id', () => {
    const m = single('{"jsonrpc":"2.0","id":9}');
    expect(m.kind).toBe('response');
    expect(m.id).toBe(9);
    expect(codes(m)).toEqual(['neither-result-nor-error']);
    expect(m.issues[0].level).toBe('error');
  });

  it.each([
    ['{"message":"x"}', /"code" is missing/],
    ['{"code":"x","message":"y"}', /"code" is a string/],
    ['{"code":1.5,"message":"y"}', /"code" is a fractional number/],
    ['{"code":-32600}', /"message" is missing/],
    ['{"code":-32600,"message":7}', /"message" is an integer/],
    ['"boom"', /"error" is a string/],
    ['null', /"error" is null/],
  ])('malformed-error for error %s', (error, text) => {
    const m = single(`{"jsonrpc":"2.0","id":1,"error":${error}}`);
    expect(m.kind).toBe('error');
    expect(codes(m)).toEqual(['malformed-error']);
    expect(m.issues[0].text).toMatch(text);
  });

  it('missing-id on a response without id', () => {
    const m = single('{"jsonrpc":"2.0","result":{}}');
    expect(m.kind).toBe('response');
    expect(codes(m)).toEqual(['missing-id']);
  });

  it('null-id-response on a successful response with id null', () => {
    expect(codes(single('{"jsonrpc":"2.0","id":null,"result":{}}'))).toEqual(['null-id-response']);
  });

  it('bad-method when method is not a string', () => {
    const m = single('{"jsonrpc":"2.0","id":1,"method":42}');
    expect(m.kind).toBe('request');
    expect('method' in m).toBe(false);
    expect(codes(m)).toEqual(['bad-method']);
  });

  it('method-with-result when a message mixes both', () => {
    const m = single('{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}');
    expect(m.kind).toBe('request');
    expect(codes(m)).toEqual(['method-with-result']);
  });

  it('bad-params: error for a scalar, warn for an array', () => {
    const scalar = single('{"jsonrpc":"2.0","id":1,"method":"ping","params":3}');
    expect(scalar.issues).toEqual([expect.objectContaining({ code: 'bad-params', level: 'error' })]);
    const array = single('{"jsonrpc":"2.0","method":"x/y","params":[1]}');
    expect(array.issues).toEqual([expect.objectContaining({ code: 'bad-params', level: 'warn' })]);
  });

  it('reports several issues at once', () => {
    const m = single('{"id":null,"method":"notifications/cancelled"}');
    expect(codes(m).sort()).toEqual(['missing-jsonrpc', 'notification-with-id', 'null-id-request']);
  });
});

describe('classifyPayload: batches', () => {
  it('splits a batch, keeps order and indexes, warns batch-deprecated', () => {
    const r = classifyPayload(
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"1","result":{}}]',
    );
    if (!r.ok) throw new Error(r.text);
    expect(r.batch).toBe(true);
    expect(r.size).toBe(3);
    expect(r.messages.map((m) => [m.kind, m.id, m.index])).toEqual([
      ['request', 1, 0],
      ['notification', undefined, 1],
      ['response', '1', 2],
    ]);
    expect(r.issues).toEqual([expect.objectContaining({ code: 'batch-deprecated', level: 'warn' })]);
    expect(r.issues[0].text).toContain('2025-06-18');
  });

  it('an invalid member is left out and reported; the others keep their index', () => {
    const r = classifyPayload('[5,{"jsonrpc":"2.0","id":2,"method":"ping"}]');
    if (!r.ok) throw new Error(r.text);
    expect(r.size).toBe(2);
    expect(r.messages).toHaveLength(1);
    expect(r.messages[0].index).toBe(1);
    expect(r.issues.map((h) => h.code)).toEqual(['batch-deprecated', 'invalid-batch-member']);
    expect(r.issues[1].text).toContain('Batch member 0');
  });

  it('empty-batch', () => {
    const f = failure(classifyPayload(' [ ] '));
    expect(f.code).toBe('empty-batch');
    expect(f.text).toMatch(/empty/i);
  });

  it('a batch of non-messages is not JSON-RPC', () => {
    expect(failure(classifyPayload('[1,"a",null]')).code).toBe('not-jsonrpc');
  });

  it('a single message has no payload issues', () => {
    const r = classifyPayload('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    expect(r).toMatchObject({ ok: true, batch: false, size: 1, issues: [] });
  });
});

describe('classifyPayload: failures', () => {
  it.each(['', '   ', '\r\n\t'])('empty for %j', (text) => {
    expect(failure(classifyPayload(text)).code).toBe('empty');
  });

  it('invalid-json with an engine-independent position', () => {
    const f = failure(classifyPayload('{"jsonrpc":"2.0",}'));
    expect(f.code).toBe('invalid-json');
    expect(f.text).toMatch(/^Invalid JSON at position 17: /);
    expect(f.text).not.toContain('is not valid JSON');
  });

  it('invalid-json at the end of truncated input', () => {
    const f = failure(classifyPayload('{"jsonrpc":"2.0","id":1'));
    expect(f.code).toBe('invalid-json');
    expect(f.text).toMatch(/^Invalid JSON at position 23: /);
  });

  it.each(['1', '"x"', 'null', 'true', '{"foo":1}', '{"jsonrpc":"2.0"}'])('not-jsonrpc for %s', (text) => {
    const f = failure(classifyPayload(text));
    expect(f.code).toBe('not-jsonrpc');
    expect(f.text).toMatch(/^Not JSON-RPC: /);
  });
});

describe('findJsonErrorOffset', () => {
  it.each([
    ['{"a":}', 5],
    ['[1,2', 4],
    ['{"a":1} x', 8],
    ['tru', 3],
    ['"\\x"', 2],
    ['01', 1],
  ])('%j fails at %i', (text, at) => {
    expect(findJsonErrorOffset(text)).toBe(at);
  });

  it('returns undefined for valid JSON', () => {
    expect(findJsonErrorOffset(' {"a":[1,-2.5e3,true,false,null,"\\u00e9"]} ')).toBeUndefined();
  });

  it('agrees with JSON.parse on arbitrary JSON texts', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(findJsonErrorOffset(text)).toBeUndefined();
      }),
    );
  });
});

describe('classifyValue', () => {
  it('classifies an already-parsed value', () => {
    expect(classifyValue({ jsonrpc: '2.0', id: 'x', method: 'ping' })).toMatchObject({ kind: 'request', id: 'x', method: 'ping' });
  });

  it.each([[null], [3], ['s'], [[{ jsonrpc: '2.0', method: 'a' }]], [{}]])('returns { invalid } for %j', (value) => {
    const r = classifyValue(value);
    expect('invalid' in r).toBe(true);
  });

  it('treats an undefined property as absent', () => {
    expect(classifyValue({ jsonrpc: '2.0', method: 'notifications/initialized', id: undefined })).toMatchObject({
      kind: 'notification',
      issues: [],
    });
  });

  it('never throws on hostile objects', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('nope');
        },
        has() {
          throw new Error('nope');
        },
        getOwnPropertyDescriptor() {
          throw new Error('nope');
        },
      },
    );
    expect(classifyValue(hostile)).toEqual({ invalid: expect.stringContaining('nope') });
  });
});

describe('idKey', () => {
  it('keeps id types apart', () => {
    expect(idKey(1)).toBe('n:1');
    expect(idKey('1')).toBe('s:1');
    expect(idKey(null)).toBe('null');
    expect(idKey(undefined)).toBe('none');
    expect(idKey('null')).toBe('s:null');
    expect(idKey(1)).not.toBe(idKey('1'));
    expect(idKey(0)).toBe(idKey(-0));
  });
});

describe('classifyPayload never throws', () => {
  const check = (text: string): void => {
    const r = classifyPayload(text);
    expect(typeof r.ok).toBe('boolean');
    if (r.ok) {
      expect(r.messages.length).toBeGreaterThan(0);
      for (const m of r.messages) {
        expect(['request', 'notification', 'response', 'error']).toContain(m.kind);
        expect(Array.isArray(m.issues)).toBe(true);
      }
    } else {
      expect(['empty', 'invalid-json', 'not-jsonrpc', 'empty-batch']).toContain(r.code);
      expect(r.text.length).toBeGreaterThan(0);
      expect(r.text.endsWith('.')).toBe(false);
    }
  };

  it('for any string', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), check), { numRuns: 500 });
  });

  it('for any JSON text', () => {
    fc.assert(fc.property(fc.json({ maxDepth: 4 }), check), { numRuns: 500 });
  });

  it('for JSON-RPC-shaped objects with arbitrary field values', () => {
    const field = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('2.0', 'ping', 'notifications/x', -32601));
    const message = fc.record(
      { jsonrpc: field, id: field, method: field, params: field, result: field, error: field },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(message, fc.array(message, { maxLength: 4 })), (value) => {
        check(JSON.stringify(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('for deeply nested input', () => {
    check('['.repeat(100_000));
    check(`${'['.repeat(5_000)}${']'.repeat(5_000)}`);
    check(`${'{"a":'.repeat(3_000)}1${'}'.repeat(3_000)}`);
  });
});

describe('classifyPayload: too deep', () => {
  const deep = (d: number) => `${'{"a":'.repeat(d - 1)}{}${'}'.repeat(d - 1)}`;

  it('a message at the cap is classified as usual, with no too-deep issue', () => {
    // envelope {…} is level 1, params level 2: params nesting MAX-1 puts the whole message at MAX.
    const r = classifyPayload(`{"jsonrpc":"2.0","id":1,"method":"x","params":${deep(MAX_JSON_DEPTH - 1)}}`);
    if (!r.ok) throw new Error(r.text);
    expect(r.tooDeep).toBeUndefined();
    expect(codes(r.messages[0])).toEqual([]);
  });

  it('one level past the cap: classified, id/method/kind intact, a too-deep issue, tooDeep on the result', () => {
    const r = classifyPayload(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${deep(MAX_JSON_DEPTH)}}`);
    if (!r.ok) throw new Error(r.text);
    expect(r.tooDeep).toEqual({ depth: MAX_JSON_DEPTH + 1, max: MAX_JSON_DEPTH });
    const m = r.messages[0];
    expect(m).toMatchObject({ kind: 'request', id: 1, method: 'tools/call' });
    expect(codes(m)).toEqual(['too-deep']);
    expect(jsonValueDepth(m.value)).toBe(MAX_JSON_DEPTH);
  });

  it('5,000 levels, from either side: the value is cut to the cap and serializable; the issue says how deep, the cap, and that it was forwarded unchanged', () => {
    const request = classifyPayload(
      `{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"t","password":"hunter2","arguments":{"x":${deep(5_000)}}}}`,
    );
    const response = classifyPayload(
      `{"jsonrpc":"2.0","id":"r1","result":{"access_token":"abc","nested":[${'['.repeat(5_000)}${']'.repeat(5_000)}]}}`,
    );
    for (const r of [request, response]) {
      if (!r.ok) throw new Error(r.text);
      const m = r.messages[0];
      expect(m.id).toBe('r1');
      expect(jsonValueDepth(m.value)).toBeLessThanOrEqual(MAX_JSON_DEPTH);
      expect(() => JSON.stringify(m.value)).not.toThrow();
      const hint = m.issues.find((h) => h.code === 'too-deep')!;
      expect(hint.level).toBe('warn');
      expect(hint.text).toContain(`${r.tooDeep!.depth.toLocaleString('en-US')} levels deep`);
      expect(hint.text).toContain(`${MAX_JSON_DEPTH} levels`);
      expect(hint.text).toContain('forwarded unchanged');
    }
    if (!request.ok || !response.ok) return;
    expect(request.messages[0].kind).toBe('request');
    expect(request.messages[0].method).toBe('tools/call');
    expect((request.messages[0].value as { params: { password: string } }).params.password).toBe('hunter2');
    expect(response.messages[0].kind).toBe('response');
    expect(request.tooDeep!.depth).toBe(5_003); // envelope, params, arguments, then 5,000
  });

  it('a batch: only the member that was too deep carries the issue, and the batch stays within the cap', () => {
    const r = classifyPayload(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b","params":${deep(3_000)}}]`);
    if (!r.ok) throw new Error(r.text);
    expect(r.batch).toBe(true);
    expect(r.tooDeep?.depth).toBe(3_002);
    expect(codes(r.messages[0])).toEqual([]);
    expect(codes(r.messages[1])).toEqual(['too-deep']);
    expect(r.messages[1]).toMatchObject({ id: 2, method: 'b', kind: 'request' });
    expect(jsonValueDepth(r.messages.map((m) => m.value))).toBeLessThanOrEqual(MAX_JSON_DEPTH);
  });

  it('brackets inside strings never make a message too deep', () => {
    const r = classifyPayload(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: '['.repeat(10_000) } }));
    if (!r.ok) throw new Error(r.text);
    expect(r.tooDeep).toBeUndefined();
  });
});
