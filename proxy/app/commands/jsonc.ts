/**
 * A JSON-with-comments parser that keeps source positions: `mcpscope wrap` / `unwrap`
 * (client-config.ts) edit a client's config as text, value by value, so they need to know where
 * each value, key and comment sits. Pure.
 */
import { ClientConfigError } from './client-config-error.js';

export type JsonNode =
  | { type: 'object'; start: number; end: number; members: JsonMember[] }
  | { type: 'array'; start: number; end: number; items: JsonNode[] }
  | { type: 'string'; start: number; end: number; value: string }
  | { type: 'number'; start: number; end: number; value: number }
  | { type: 'boolean'; start: number; end: number; value: boolean }
  | { type: 'null'; start: number; end: number; value: null };

export interface JsonMember {
  key: string;
  keyStart: number;
  value: JsonNode;
}

export interface ParsedJson {
  root: JsonNode;
  /** [start, end) of every `//` and `/* *\/` comment. */
  comments: Array<[number, number]>;
}

/** 1-based line and column of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Parses JSON, also accepting comments and trailing commas (JSONC, as VS Code does). */
export function parseJsonc(text: string): ParsedJson {
  let i = 0;
  const comments: Array<[number, number]> = [];
  const fail = (message: string, at = i): never => {
    const { line, column } = lineColumn(text, at);
    throw new ClientConfigError(`invalid JSON at line ${line}, column ${column}: ${message}`);
  };
  const describe = (at: number) => (at >= text.length ? 'the end of the file' : JSON.stringify(text[at]));
  const skip = () => {
    for (;;) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || (c === '\uFEFF' && i === 0)) i++;
      else if (c === '/' && text[i + 1] === '/') {
        const start = i;
        while (i < text.length && text[i] !== '\n') i++;
        comments.push([start, i]);
      } else if (c === '/' && text[i + 1] === '*') {
        const start = i;
        const close = text.indexOf('*/', i + 2);
        if (close < 0) fail('a /* comment is never closed', start);
        i = close + 2;
        comments.push([start, i]);
      } else return;
    }
  };
  const parseString = (): string => {
    const start = i;
    i++; // opening quote
    let out = '';
    for (;;) {
      if (i >= text.length) fail('a string is never closed', start);
      const c = text[i];
      if (c === '"') {
        i++;
        return out;
      }
      if (c === '\n') fail('a string is never closed before the end of the line', start);
      if (c === '\\') {
        const e = text[i + 1];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && e in simple) {
          out += simple[e];
          i += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else fail('invalid escape in a string');
      } else {
        if (c < ' ') fail('control character in a string');
        out += c;
        i++;
      }
    }
  };
  const parseValue = (depth: number): JsonNode => {
    if (depth > 200) fail('nested too deeply');
    skip();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      const members: JsonMember[] = [];
      for (;;) {
        skip();
        if (text[i] === '}') {
          i++;
          return { type: 'object', start, end: i, members };
        }
        if (text[i] !== '"') fail(`expected a "quoted" key or "}", found ${describe(i)}`);
        const keyStart = i;
        const key = parseString();
        skip();
        if (text[i] !== ':') fail(`expected ":" after the key ${JSON.stringify(key)}, found ${describe(i)}`);
        i++;
        const value = parseValue(depth + 1);
        members.push({ key, keyStart, value });
        skip();
        if (text[i] === ',') i++;
        else if (text[i] !== '}') fail(`expected "," or "}" after the value of ${JSON.stringify(key)}, found ${describe(i)}`);
      }
    }
    if (c === '[') {
      i++;
      const items: JsonNode[] = [];
      for (;;) {
        skip();
        if (text[i] === ']') {
          i++;
          return { type: 'array', start, end: i, items };
        }
        items.push(parseValue(depth + 1));
        skip();
        if (text[i] === ',') i++;
        else if (text[i] !== ']') fail(`expected "," or "]" in a list, found ${describe(i)}`);
      }
    }
    if (c === '"') {
      const value = parseString();
      return { type: 'string', start, end: i, value };
    }
    const num = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (num && num[0] !== '-') {
      i += num[0].length;
      return { type: 'number', start, end: i, value: Number(num[0]) };
    }
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return value === null ? { type: 'null', start, end: i, value } : { type: 'boolean', start, end: i, value };
      }
    }
    return fail(`unexpected ${describe(i)}`);
  };
  const root = parseValue(0);
  skip();
  if (i < text.length) fail(`unexpected ${describe(i)} after the end of the JSON value`);
  return { root, comments };
}

/** The plain JavaScript value of a node. */
export function toValue(node: JsonNode): unknown {
  switch (node.type) {
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const m of node.members) o[m.key] = toValue(m.value);
      return o;
    }
    case 'array':
      return node.items.map(toValue);
    default:
      return node.value;
  }
}
