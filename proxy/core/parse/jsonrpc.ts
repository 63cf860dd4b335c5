/**
 * Classify JSON-RPC payloads: one message or a batch, with the protocol mistakes each one makes.
 *
 * Pure and I/O-free (also bundled into the browser UI). Nothing here throws, whatever the input:
 * a frame that cannot be understood becomes `{ ok: false, … }` with a plain-language explanation.
 *
 * Classification of one object (first match wins):
 * 1. `method` present → `request` when an `id` is present (even `null` or an invalid id),
 *    `notification` otherwise. A non-string `method` is flagged (`bad-method`) and `method` is left unset.
 * 2. `result` and `error` both present → `error` (flagged `result-and-error`).
 * 3. `error` present → `error`; `result` present → `response`.
 * 4. Only an `id` (no method, result or error) → `response`, flagged `neither-result-nor-error`.
 *    Rationale: without a method it cannot be a request or notification, and the id says which
 *    request it answers, so correlating it as a (broken) response closes that request and shows
 *    the mistake right where the reader expects the answer. Calling it an `error` would invent a
 *    JSON-RPC error object that does not exist on the wire.
 * 5. Anything else (no method, result, error or id) is not JSON-RPC.
 *
 * A payload nested deeper than MAX_JSON_DEPTH (core/parse/json-depth.ts) is still classified: its
 * parts below that depth are replaced by strings of their JSON text (id, method and kind sit at
 * the top and stay intact), the message carries a `too-deep` issue, and the result says
 * `tooDeep` so the recorder can add a problem event. Nothing downstream sees a deeper value.
 */

import type { Hint, MessageKind } from '../model/events.js';
import { capJsonDepth, exceedsDepth, jsonTextDepth, jsonValueDepth, MAX_JSON_DEPTH, tooDeepText } from './json-depth.js';

export interface ClassifiedMessage {
  kind: MessageKind;
  /** The parsed object, as it was on the wire. */
  value: unknown;
  /** Typed: `1` and `"1"` stay different. Unset when absent or of an invalid type (object, array, boolean). */
  id?: string | number | null;
  /** Unset when absent or not a string. */
  method?: string;
  /** Position in the batch array (batches only; invalid members keep their slot, so indexes may skip). */
  index?: number;
  /** Protocol mistakes found in this message (level `error` or `warn`), empty if none. */
  issues: Hint[];
}

export type ClassifyResult =
  | {
      ok: true;
      batch: boolean;
      /** The JSON-RPC messages, in wire order. A batch member that is not a JSON-RPC message is left out (see `issues`). */
      messages: ClassifiedMessage[];
      /** Number of members of the batch array (1 for a single message), invalid ones included. */
      size: number;
      /** Problems of the payload as a whole: `batch-deprecated`, `invalid-batch-member`. Empty for a well-formed single message. */
      issues: Hint[];
      /**
       * Set when the payload nested deeper than `max` (MAX_JSON_DEPTH) levels: `messages` hold a
       * cut copy (see json-depth.ts) and each message that was cut has a `too-deep` issue.
       */
      tooDeep?: { depth: number; max: number };
    }
  | {
      ok: false;
      /** `empty-batch`: the payload was `[]` (there is no message to attach the problem to). */
      code: 'empty' | 'invalid-json' | 'not-jsonrpc' | 'empty-batch';
      /** Plain words without a final period, e.g. "Invalid JSON at position 17: Unexpected token '}'". */
      text: string;
    };

/** Typed correlation key of an id: `n:1` for the number 1, `s:1` for the string "1", `null`, and `none` when absent. */
export function idKey(id: string | number | null | undefined): string {
  if (id === undefined) return 'none';
  if (id === null) return 'null';
  if (typeof id === 'number') return `n:${String(id)}`;
  return `s:${id}`;
}

/** Parse a JSON text (one message or a batch array) and classify every message in it. Never throws. */
export function classifyPayload(text: string): ClassifyResult {
  try {
    return classifyPayloadUnsafe(text);
  } catch (err) {
    // Defensive only: nothing below is expected to throw.
    return { ok: false, code: 'not-jsonrpc', text: `Could not classify the payload: ${errorMessage(err).replace(/[.\s]+$/, '')}` };
  }
}

/** Classify one already-parsed value. Returns `{ invalid }` with a plain-language reason (no final period) when it is not a JSON-RPC message. Never throws. */
export function classifyValue(value: unknown): ClassifiedMessage | { invalid: string } {
  try {
    return classifyObject(value);
  } catch (err) {
    return { invalid: `could not read the message: ${errorMessage(err).replace(/[.\s]+$/, '')}` };
  }
}

// ---------------------------------------------------------------------------------------------

function classifyPayloadUnsafe(text: string): ClassifyResult {
  if (typeof text !== 'string' || /^[ \t\r\n]*$/.test(text)) {
    return { ok: false, code: 'empty', text: 'Empty payload: there is no JSON-RPC message in it' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, code: 'invalid-json', text: describeJsonError(text, err) };
  }
  if (exceedsDepth(text)) return classifyTooDeep(value, jsonTextDepth(text));
  return classifyPayloadValue(value);
}

function classifyPayloadValue(value: unknown): ClassifyResult {
  if (Array.isArray(value)) {
    if (value.length === 0) {
      return {
        ok: false,
        code: 'empty-batch',
        text: 'Empty batch: the payload is an empty JSON array, which JSON-RPC answers with a single Invalid Request error',
      };
    }
    const messages: ClassifiedMessage[] = [];
    const issues: Hint[] = [BATCH_DEPRECATED];
    const bad: string[] = [];
    value.forEach((member, index) => {
      const c = classifyValue(member);
      if ('invalid' in c) {
        bad.push(`${index}`);
        issues.push({
          level: 'error',
          code: 'invalid-batch-member',
          text: `Batch member ${index} is not a JSON-RPC message: ${c.invalid}.`,
        });
      } else {
        c.index = index;
        messages.push(c);
      }
    });
    if (messages.length === 0) {
      return {
        ok: false,
        code: 'not-jsonrpc',
        text: `Not JSON-RPC: none of the ${value.length} batch members is a JSON-RPC message (${firstInvalid(value)})`,
      };
    }
    return { ok: true, batch: true, messages, size: value.length, issues };
  }

  const c = classifyValue(value);
  if ('invalid' in c) return { ok: false, code: 'not-jsonrpc', text: `Not JSON-RPC: ${c.invalid}` };
  return { ok: true, batch: false, messages: [c], size: 1, issues: [] };
}

/** A payload nested deeper than MAX_JSON_DEPTH: each message cut to that depth (in place: the value was just parsed), then classified. */
function classifyTooDeep(value: unknown, depth: number): ClassifyResult {
  const tooDeep = { depth, max: MAX_JSON_DEPTH };
  const hint = (d: number): Hint => ({ level: 'warn', code: 'too-deep', text: tooDeepText(d) });
  if (Array.isArray(value) && value.length > 0) {
    // A batch: the array is level 1, so its members may nest one level less; each member that was cut says so.
    const deep = new Set<number>();
    value.forEach((member, i) => {
      const d = jsonValueDepth(member, MAX_JSON_DEPTH - 1);
      if (d <= MAX_JSON_DEPTH - 1) return;
      deep.add(i);
      value[i] = capJsonDepth(member, MAX_JSON_DEPTH - 1).value;
    });
    const r = classifyPayloadValue(value);
    if (!r.ok) return r;
    for (const m of r.messages) if (m.index !== undefined && deep.has(m.index)) m.issues.push(hint(depth));
    return { ...r, tooDeep };
  }
  const r = classifyPayloadValue(capJsonDepth(value, MAX_JSON_DEPTH).value);
  if (!r.ok) return r;
  for (const m of r.messages) m.issues.push(hint(depth));
  return { ...r, tooDeep };
}

const BATCH_DEPRECATED: Hint = {
  level: 'warn',
  code: 'batch-deprecated',
  text: 'This is a JSON-RPC batch: batches were allowed in protocol 2025-03-26 and removed in 2025-06-18, so newer peers may reject it.',
};

function firstInvalid(values: unknown[]): string {
  const c = classifyValue(values[0]);
  return 'invalid' in c ? `member 0: ${c.invalid}` : 'no valid member';
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own property that is present with a value (JSON has no `undefined`; a JS caller's `undefined` counts as absent). */
function has(o: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key) && o[key] !== undefined;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'string':
      return 'a string';
    case 'number':
      return Number.isInteger(v) ? 'an integer' : 'a fractional number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    default:
      return typeof v;
  }
}

function classifyObject(value: unknown): ClassifiedMessage | { invalid: string } {
  if (!isPlainObject(value)) {
    return { invalid: `the value is ${typeName(value)}, not a JSON object` };
  }
  const o = value;
  const hasMethod = has(o, 'method');
  const hasId = has(o, 'id');
  const hasResult = has(o, 'result');
  const hasError = has(o, 'error');
  if (!hasMethod && !hasResult && !hasError && !hasId) {
    return { invalid: 'the object has no "method", "result", "error" or "id" field' };
  }

  const issues: Hint[] = [];

  // jsonrpc version
  if (!has(o, 'jsonrpc')) {
    issues.push({
      level: 'error',
      code: 'missing-jsonrpc',
      text: 'The "jsonrpc" field is missing: every JSON-RPC 2.0 message must carry "jsonrpc": "2.0".',
    });
  } else if (o.jsonrpc !== '2.0') {
    issues.push({
      level: 'error',
      code: 'missing-jsonrpc',
      text: `The "jsonrpc" field is ${short(JSON.stringify(o.jsonrpc) ?? String(o.jsonrpc))}, but it must be exactly the string "2.0".`,
    });
  }

  // id
  let id: string | number | null | undefined;
  if (hasId) {
    const raw = o.id;
    if (raw === null || typeof raw === 'string' || (typeof raw === 'number' && Number.isInteger(raw))) {
      id = raw;
    } else if (typeof raw === 'number') {
      id = raw; // usable for correlation, but not allowed
      issues.push({ level: 'error', code: 'bad-id-type', text: `The id ${raw} is a fractional number: ids must be strings or integers.` });
    } else {
      issues.push({ level: 'error', code: 'bad-id-type', text: `The id is ${typeName(raw)}: ids must be strings or integers.` });
    }
  }

  // request / notification
  if (hasMethod) {
    let method: string | undefined;
    if (typeof o.method === 'string') {
      method = o.method;
    } else {
      issues.push({ level: 'error', code: 'bad-method', text: `The "method" field is ${typeName(o.method)}: it must be a string.` });
    }
    if (hasResult || hasError) {
      issues.push({
        level: 'error',
        code: 'method-with-result',
        text: 'The message has a "method" and also a "result" or "error": a message is either a request/notification or a response, never both.',
      });
    }
    checkParams(o, issues);
    if (hasId) {
      if (o.id === null) {
        issues.push({
          level: 'error',
          code: 'null-id-request',
          text: 'The request id is null: MCP requires a string or integer id on every request.',
        });
      }
      if (method !== undefined && method.startsWith('notifications/')) {
        issues.push({
          level: 'error',
          code: 'notification-with-id',
          text: `"${short(method)}" is a notification but was sent with an id, so the receiver treats it as a request and may answer it.`,
        });
      }
      return withOptional({ kind: 'request', value, id, method, issues });
    }
    return withOptional({ kind: 'notification', value, method, issues });
  }

  // responses
  if (!hasId) {
    issues.push({
      level: 'error',
      code: 'missing-id',
      text: 'The response has no "id": nothing tells which request it answers (use null only when the request id could not be read).',
    });
  }
  if (hasResult && hasError) {
    issues.push({
      level: 'error',
      code: 'result-and-error',
      text: 'The response carries both "result" and "error": exactly one of them is allowed.',
    });
  }
  if (hasError) {
    checkError(o.error, issues);
    return withOptional({ kind: 'error', value, id, issues });
  }
  if (hasResult) {
    if (o.id === null) {
      issues.push({
        level: 'error',
        code: 'null-id-response',
        text: 'A successful response has id null, so it cannot be matched to any request.',
      });
    }
    return withOptional({ kind: 'response', value, id, issues });
  }
  issues.push({
    level: 'error',
    code: 'neither-result-nor-error',
    text: 'The message has an id but no "method", "result" or "error": it is treated as a broken response to that id.',
  });
  return withOptional({ kind: 'response', value, id, issues });
}

function checkParams(o: Record<string, unknown>, issues: Hint[]): void {
  if (!has(o, 'params')) return;
  const p = o.params;
  if (Array.isArray(p)) {
    issues.push({ level: 'warn', code: 'bad-params', text: '"params" is an array: JSON-RPC allows that, but MCP always uses an object.' });
  } else if (!isPlainObject(p)) {
    issues.push({ level: 'error', code: 'bad-params', text: `"params" is ${typeName(p)}: it must be an object.` });
  }
}

function checkError(e: unknown, issues: Hint[]): void {
  if (!isPlainObject(e)) {
    issues.push({
      level: 'error',
      code: 'malformed-error',
      text: `"error" is ${typeName(e)}: it must be an object with an integer "code" and a string "message".`,
    });
    return;
  }
  const problems: string[] = [];
  if (typeof e.code !== 'number' || !Number.isInteger(e.code))
    problems.push(`"code" is ${has(e, 'code') ? typeName(e.code) : 'missing'} (must be an integer)`);
  if (typeof e.message !== 'string')
    problems.push(`"message" is ${has(e, 'message') ? typeName(e.message) : 'missing'} (must be a string)`);
  if (problems.length > 0) {
    issues.push({ level: 'error', code: 'malformed-error', text: `Malformed error object: ${problems.join(' and ')}.` });
  }
}

/** Drop `id`/`method` keys whose value is undefined, so results compare cleanly. */
function withOptional(m: {
  kind: MessageKind;
  value: unknown;
  id?: string | number | null | undefined;
  method?: string | undefined;
  issues: Hint[];
}): ClassifiedMessage {
  const out: ClassifiedMessage = { kind: m.kind, value: m.value, issues: m.issues };
  if (m.id !== undefined) out.id = m.id;
  if (m.method !== undefined) out.method = m.method;
  return out;
}

function short(s: string, max = 60): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  try {
    return String(err);
  } catch {
    return 'unknown error';
  }
}

// ---------------------------------------------------------------------------------------------
// Invalid JSON: a message with a position that does not depend on the JavaScript engine.

function describeJsonError(text: string, err: unknown): string {
  let msg = errorMessage(err);
  // V8: `Unexpected token '}', "{"a":}" is not valid JSON` — drop the echoed input.
  msg = msg.replace(/, ".*" is not valid JSON$/s, '').replace(/, ".*"\.\.\. is not valid JSON$/s, '');
  msg = msg.replace(/\s*in JSON at position \d+(\s*\(line \d+ column \d+\))?/, '').trim();
  if (msg.length > 160) msg = `${msg.slice(0, 159)}…`;
  msg = msg.replace(/[.\s]+$/, '');
  let pos: number | undefined;
  try {
    pos = findJsonErrorOffset(text);
  } catch {
    pos = undefined; // e.g. too deeply nested for the scanner
  }
  return pos === undefined ? `Invalid JSON: ${msg}` : `Invalid JSON at position ${pos}: ${msg}`;
}

/**
 * Offset (UTF-16 index) of the first character where `text` stops being valid JSON, or `undefined`
 * if it is valid. A small recursive-descent checker used only after `JSON.parse` failed.
 */
export function findJsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  class Fail {
    constructor(readonly at: number) {}
  }
  const fail = (): never => {
    throw new Fail(i);
  };
  const literal = (word: string): void => {
    for (let k = 0; k < word.length; k++) {
      if (text[i] !== word[k]) fail();
      i++;
    }
  };
  const str = (): void => {
    i++; // opening quote
    while (true) {
      if (i >= n) fail();
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) fail();
      if (c === 0x5c) {
        i++;
        const e = text[i];
        if (e === 'u') {
          i++;
          for (let k = 0; k < 4; k++) {
            if (!/[0-9a-fA-F]/.test(text[i] ?? '')) fail();
            i++;
          }
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) {
          i++;
        } else {
          fail();
        }
      } else {
        i++;
      }
    }
  };
  const digits = (): void => {
    if (!/[0-9]/.test(text[i] ?? '')) fail();
    while (/[0-9]/.test(text[i] ?? '')) i++;
  };
  const num = (): void => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      digits();
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits();
    }
  };
  const val = (depth: number): void => {
    if (depth > 2000) throw new Error('too deep');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      while (true) {
        ws();
        if (text[i] !== '"') fail();
        str();
        ws();
        if (text[i] !== ':') fail();
        i++;
        val(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail();
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      while (true) {
        val(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail();
      }
    } else if (c === '"') {
      str();
    } else if (c === 't') {
      literal('true');
    } else if (c === 'f') {
      literal('false');
    } else if (c === 'n') {
      literal('null');
    } else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      num();
    } else {
      fail();
    }
  };
  try {
    val(0);
    ws();
    if (i < n) fail();
    return undefined;
  } catch (e) {
    if (e instanceof Fail) return e.at;
    throw e;
  }
}
