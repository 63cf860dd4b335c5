/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) as a JSON Schema, for tests: every
 * field the spec marks required, the -1 convention for unknown sizes and timings, plus the
 * `_eventSourceMessages` convention ({ time, type, id, data }) mcpscope writes for SSE.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';

const nameValue = { type: 'object', required: ['name', 'value'], properties: { name: { type: 'string' }, value: { type: 'string' } } };
const sizeOrUnknown = { type: 'number', minimum: -1 };

export const HAR_12_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['log'],
  properties: {
    log: {
      type: 'object',
      required: ['version', 'creator', 'entries'],
      properties: {
        version: { const: '1.2' },
        creator: { type: 'object', required: ['name', 'version'], properties: { name: { type: 'string' }, version: { type: 'string' } } },
        pages: { type: 'array' },
        entries: { type: 'array', items: { $ref: '#/$defs/entry' } },
      },
    },
  },
  $defs: {
    entry: {
      type: 'object',
      required: ['startedDateTime', 'time', 'request', 'response', 'cache', 'timings'],
      properties: {
        startedDateTime: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$' },
        time: { type: 'number', minimum: 0 },
        request: {
          type: 'object',
          required: ['method', 'url', 'httpVersion', 'cookies', 'headers', 'queryString', 'headersSize', 'bodySize'],
          properties: {
            method: { type: 'string', minLength: 1 },
            url: { type: 'string', pattern: '^https?://' },
            httpVersion: { type: 'string' },
            cookies: { type: 'array' },
            headers: { type: 'array', items: nameValue },
            queryString: { type: 'array', items: nameValue },
            postData: {
              type: 'object',
              required: ['mimeType'],
              properties: { mimeType: { type: 'string' }, text: { type: 'string' }, params: { type: 'array', items: nameValue } },
            },
            headersSize: sizeOrUnknown,
            bodySize: sizeOrUnknown,
          },
        },
        response: {
          type: 'object',
          required: ['status', 'statusText', 'httpVersion', 'cookies', 'headers', 'content', 'redirectURL', 'headersSize', 'bodySize'],
          properties: {
            status: { type: 'integer', minimum: 0 },
            statusText: { type: 'string' },
            httpVersion: { type: 'string' },
            cookies: { type: 'array' },
            headers: { type: 'array', items: nameValue },
            content: {
              type: 'object',
              required: ['size', 'mimeType'],
              properties: { size: { type: 'number', minimum: -1 }, mimeType: { type: 'string' }, text: { type: 'string' } },
            },
            redirectURL: { type: 'string' },
            headersSize: sizeOrUnknown,
            bodySize: sizeOrUnknown,
          },
        },
        cache: { type: 'object' },
        timings: {
          type: 'object',
          required: ['send', 'wait', 'receive'],
          properties: {
            blocked: sizeOrUnknown,
            dns: sizeOrUnknown,
            connect: sizeOrUnknown,
            ssl: sizeOrUnknown,
            send: { type: 'number', minimum: 0 },
            wait: { type: 'number', minimum: 0 },
            receive: { type: 'number', minimum: 0 },
          },
        },
        _eventSourceMessages: {
          type: 'array',
          items: {
            type: 'object',
            required: ['time', 'type', 'id', 'data'],
            properties: {
              time: { type: 'number', minimum: 0 },
              type: { type: 'string', minLength: 1 },
              id: { type: 'string' },
              data: { type: 'string' },
            },
          },
        },
      },
    },
  },
};

let compiled: ValidateFunction | undefined;
/** Validates a HAR; returns the errors in one readable string, or undefined when valid. */
export function harErrors(har: unknown): string | undefined {
  compiled ??= new Ajv2020.default({ allErrors: true }).compile(HAR_12_SCHEMA);
  if (compiled(har)) return undefined;
  return (compiled.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join('\n');
}
