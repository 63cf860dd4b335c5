/**
 * The tool form and the argument check (ui/src/state/tool-schema.ts): fields generated from an
 * inputSchema as the MCP Inspector does, the arguments a filled form stands for, the light
 * JSON-Schema check (type, required, enum, properties), click-to-insert and the resend draft.
 */
import { describe, expect, it } from 'vitest';
import { argsFromForm, checkArgs, fieldsOf, resendDraft, toolsFrom, withArgument, type JsonSchema } from '../../ui/src/state/tool-schema';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    text: { type: 'string', description: 'Text to send back' },
    count: { type: 'integer', default: 4 },
    ratio: { type: 'number' },
    loud: { type: 'boolean' },
    mode: { type: 'string', enum: ['fast', 'slow'] },
    options: { type: 'object', properties: { depth: { type: 'number' } }, required: ['depth'] },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['text', 'mode'],
};

describe('fieldsOf', () => {
  it('maps each property to an input kind, in schema order, with required marks', () => {
    const fields = fieldsOf(schema);
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['text', 'string', true],
      ['count', 'integer', false],
      ['ratio', 'number', false],
      ['loud', 'boolean', false],
      ['mode', 'enum', true],
      ['options', 'json', false],
      ['tags', 'json', false],
    ]);
    expect(fields[0].description).toBe('Text to send back');
    expect(fields[1].initial).toBe('4');
    expect(fields[3].initial).toBe(false);
    expect(fields[4].options).toEqual(['fast', 'slow']);
    expect(fields[4].initial).toBe('"fast"');
    expect(fields[5].initial).toBe('{}');
    expect(fields[6].initial).toBe('[]');
  });

  it('no schema, no fields', () => {
    expect(fieldsOf(undefined)).toEqual([]);
    expect(fieldsOf({ type: 'object' })).toEqual([]);
  });
});

describe('argsFromForm', () => {
  const fields = fieldsOf(schema);
  it('reads numbers, booleans, enums and JSON; leaves empty optional inputs out', () => {
    const r = argsFromForm(fields, { text: 'hi', loud: true, options: '{"depth": 2}', tags: '["a"]' });
    expect(r).toEqual({ args: { text: 'hi', count: 4, loud: true, mode: 'fast', options: { depth: 2 }, tags: ['a'] } });
  });

  it('says which input cannot be read', () => {
    expect(argsFromForm(fields, { text: 'x', ratio: 'abc' })).toEqual({ error: 'ratio: "abc" is not a number' });
    expect(argsFromForm(fields, { text: 'x', options: '{oops' })).toEqual({ error: 'options: not valid JSON' });
  });
});

describe('checkArgs', () => {
  it('finds missing required arguments, wrong types, values outside an enum, nested problems', () => {
    expect(checkArgs(schema, { text: 'a', mode: 'fast' })).toEqual([]);
    expect(checkArgs(schema, { mode: 'fast' })).toEqual(['arguments.text is required']);
    expect(checkArgs(schema, { text: 1, mode: 'medium' })).toEqual([
      'arguments.text should be string, not integer',
      'arguments.mode should be one of "fast", "slow"',
    ]);
    expect(checkArgs(schema, { text: 'a', mode: 'slow', count: 1.5, options: {}, tags: ['x', 2] })).toEqual([
      'arguments.count should be integer, not number',
      'arguments.options.depth is required',
      'arguments.tags[1] should be string, not integer',
    ]);
    expect(checkArgs(schema, 'nope')).toEqual(['arguments should be object, not string']);
  });

  it('an integer is a number; a union type accepts either', () => {
    expect(checkArgs({ type: 'number' }, 3)).toEqual([]);
    expect(checkArgs({ type: ['string', 'null'] }, null)).toEqual([]);
  });
});

describe('click-to-insert and the resend draft', () => {
  it('adds an argument with a placeholder of its type, keeping one already there', () => {
    const m = { jsonrpc: '2.0', method: 'tools/call', params: { name: 'add', arguments: { a: 1 } } };
    expect(withArgument(m, 'b', { type: 'number' })).toEqual({
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 1, b: 0 } },
    });
    expect(withArgument(m, 'a', { type: 'number' })).toBe(m);
    expect((withArgument(m, 'mode', schema.properties!.mode) as { params: { arguments: { mode: string } } }).params.arguments.mode).toBe(
      'fast',
    );
  });

  it('the draft of a resend has no id', () => {
    expect(resendDraft({ jsonrpc: '2.0', id: 5, method: 'ping' })).toEqual({ jsonrpc: '2.0', method: 'ping' });
  });

  it('reads tools out of a tools/list result, skipping malformed entries', () => {
    expect(toolsFrom({ tools: [{ name: 'echo' }, { nope: 1 }, null] }).map((t) => t.name)).toEqual(['echo']);
    expect(toolsFrom(undefined)).toEqual([]);
  });
});
