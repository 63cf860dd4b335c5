import { describe, expect, it } from 'vitest';
import {
  boundedJsonText,
  capJsonDepth,
  exceedsDepth,
  jsonTextDepth,
  jsonValueDepth,
  MAX_JSON_DEPTH,
  MAX_KEPT_TEXT,
} from '../../../proxy/core/parse/json-depth.js';

const arrays = (d: number): string => '['.repeat(d) + ']'.repeat(d);
const objects = (d: number): string => '{"a":'.repeat(d - 1) + '{}' + '}'.repeat(d - 1);
/** Alternating objects and arrays: {"a":[{"a":[ … ]}]} */
function mixed(d: number): string {
  let open = '';
  let close = '';
  for (let i = 0; i < d; i++) {
    if (i % 2 === 0) {
      open += i === d - 1 ? '{' : '{"a":';
      close = '}' + close;
    } else {
      open += '[';
      close = ']' + close;
    }
  }
  return open + close;
}

describe('jsonTextDepth / jsonValueDepth', () => {
  it('count containers: a scalar is 0, [] is 1', () => {
    for (const [text, d] of [
      ['1', 0],
      ['"x"', 0],
      ['null', 0],
      ['[]', 1],
      ['{}', 1],
      ['{"a":[]}', 2],
      ['[1,[2,[3]],{"b":{}}]', 3],
    ] as const) {
      expect(jsonTextDepth(text), text).toBe(d);
      expect(jsonValueDepth(JSON.parse(text)), text).toBe(d);
    }
  });

  it('every depth from 0 to cap+1, for arrays, objects and mixed', () => {
    for (let d = 0; d <= MAX_JSON_DEPTH + 1; d++) {
      for (const text of d === 0 ? ['0'] : [arrays(d), objects(d), mixed(d)]) {
        expect(jsonTextDepth(text)).toBe(d);
        expect(jsonValueDepth(JSON.parse(text))).toBe(d);
        expect(exceedsDepth(text)).toBe(d > MAX_JSON_DEPTH);
      }
    }
  });

  it('100,000 levels of arrays, objects and mixed: measured without recursion', () => {
    for (const text of [arrays(100_000), objects(100_000), mixed(100_000)]) {
      expect(jsonTextDepth(text)).toBe(100_000);
      expect(jsonValueDepth(JSON.parse(text))).toBe(100_000);
      expect(exceedsDepth(text)).toBe(true);
    }
  });

  it('brackets inside strings do not count, escaped quotes do not end a string', () => {
    expect(jsonTextDepth('{"a":"[[[[{{{{"}')).toBe(1);
    expect(jsonTextDepth('{"a":"say \\"[[[[\\" now","b":["\\\\"]}')).toBe(2);
    expect(jsonTextDepth('["\\\\\\"[[[["]')).toBe(1); // \\ then \" inside: still one string
    expect(jsonTextDepth('["\\\\", [[]]]')).toBe(3); // the string ends after an escaped backslash
    const deepInString = JSON.stringify({ text: arrays(10_000) });
    expect(jsonTextDepth(deepInString)).toBe(1);
    expect(exceedsDepth(deepInString)).toBe(false);
  });

  it('never throws on invalid or cut-off text', () => {
    expect(jsonTextDepth('[[[')).toBe(3);
    expect(jsonTextDepth(']]]')).toBe(0);
    expect(jsonTextDepth('["unterminated [[[[')).toBe(1);
    expect(jsonTextDepth('')).toBe(0);
  });

  it('stops early past stopAbove', () => {
    expect(jsonTextDepth(arrays(1000), 10)).toBe(11);
    expect(jsonValueDepth(JSON.parse(arrays(1000)), 10)).toBe(11);
  });

  it('a text shorter than the cap is not scanned (depth d needs d bytes)', () => {
    const short = '['.repeat(MAX_JSON_DEPTH);
    expect(exceedsDepth(short)).toBe(false);
    expect(exceedsDepth(short + '[')).toBe(true);
  });
});

/** The strings of a value (the cut parts, in these tests). */
function keptStrings(v: unknown): string[] {
  const out: string[] = [];
  const stack = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x === 'string') out.push(x);
    else if (typeof x === 'object' && x !== null) stack.push(...Object.values(x).reverse());
  }
  return out;
}

describe('capJsonDepth', () => {
  it('leaves a value at the cap alone, cuts one past it to the cap', () => {
    const at = JSON.parse(objects(MAX_JSON_DEPTH));
    expect(capJsonDepth(at)).toEqual({ value: JSON.parse(objects(MAX_JSON_DEPTH)), cut: 0 });
    const past = capJsonDepth(JSON.parse(objects(MAX_JSON_DEPTH + 1)));
    expect(past.cut).toBe(1);
    expect(jsonValueDepth(past.value)).toBe(MAX_JSON_DEPTH);
    // The innermost {} became the string "{}".
    let v = past.value as Record<string, unknown>;
    for (let i = 1; i < MAX_JSON_DEPTH; i++) v = v.a as Record<string, unknown>;
    expect(v.a).toBe('{}');
  });

  it('100,000 levels: cut to the cap, serializable, the cut part kept as bounded JSON text', () => {
    for (const text of [arrays(100_000), objects(100_000), mixed(100_000)]) {
      const { value, cut } = capJsonDepth(JSON.parse(text));
      expect(cut).toBe(1);
      expect(jsonValueDepth(value)).toBe(MAX_JSON_DEPTH);
      expect(() => JSON.stringify(value)).not.toThrow(); // overflows the stack without the cap
      const kept = keptStrings(value);
      expect(kept).toHaveLength(1);
      expect(kept[0].length).toBeLessThan(MAX_KEPT_TEXT + 200);
      const body = kept[0].replace(/… \[mcpscope kept .*$/, '');
      expect(body).toHaveLength(MAX_KEPT_TEXT);
      expect(text.includes(body)).toBe(true); // the cut part's own JSON text, as far as it was kept
      expect(kept[0]).toMatch(/… \[mcpscope kept 65,536 of the [\d,]+ characters of this part; [\d,]+ were cut\]$/);
    }
  });

  it('the kept text is the JSON text of the cut part, exactly, when it fits', () => {
    const inner = { b: [1, 'two', { c: null, d: true, e: 'q"uote [' }] };
    let doc: Record<string, unknown> = { x: inner };
    for (let i = 0; i < MAX_JSON_DEPTH - 1; i++) doc = { a: doc };
    const { value, cut } = capJsonDepth(doc);
    expect(cut).toBe(1);
    let v = value as Record<string, unknown>;
    for (let i = 0; i < MAX_JSON_DEPTH - 1; i++) v = v.a as Record<string, unknown>;
    expect(v.x).toBe(JSON.stringify(inner));
  });

  it('keeps the shallow envelope: id, method, and siblings of the deep part', () => {
    const text = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"deep":${arrays(5000)},"ok":"yes"}}}`;
    const { value } = capJsonDepth(JSON.parse(text));
    const m = value as { id: number; method: string; params: { name: string; arguments: { deep: unknown; ok: string } } };
    expect(m.id).toBe(7);
    expect(m.method).toBe('tools/call');
    expect(m.params.name).toBe('x');
    expect(m.params.arguments.ok).toBe('yes');
    expect(typeof m.params.arguments.deep).toBe('object');
  });

  it('many cut parts share one text budget', () => {
    const many = Array.from({ length: 50 }, () => JSON.parse(objects(200 + 2000)));
    const { value, cut } = capJsonDepth(many);
    expect(cut).toBe(50);
    const kept = keptStrings(value);
    expect(kept).toHaveLength(50);
    expect(kept.reduce((n, s) => n + s.length, 0)).toBeLessThan(MAX_KEPT_TEXT + 50 * 200);
  });

  it('a "__proto__" key stays a plain key', () => {
    const v = JSON.parse(`{"__proto__":${arrays(MAX_JSON_DEPTH + 5)}}`);
    const { value } = capJsonDepth(v, 1);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value as object)).toEqual(['__proto__']);
    expect(typeof (value as Record<string, unknown>)['__proto__']).toBe('string');
  });
});

describe('boundedJsonText', () => {
  it('matches JSON.stringify', () => {
    for (const v of [null, 1, 'a"b', [1, [2, {}], []], { a: undefined, b: [undefined, 1], c: { d: 'e' } }, { '': 0 }]) {
      expect(boundedJsonText(v).text).toBe(JSON.stringify(v));
      expect(boundedJsonText(v).total).toBe(JSON.stringify(v).length);
    }
  });

  it('stops keeping text at the limit but counts the whole length', () => {
    const v = JSON.parse(arrays(100_000));
    const r = boundedJsonText(v, 1000);
    expect(r.text).toBe('['.repeat(1000));
    expect(r.total).toBe(200_000);
  });
});
