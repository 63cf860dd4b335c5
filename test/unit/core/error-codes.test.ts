/** proxy/core/annotate/error-codes.ts: what each JSON-RPC and MCP error code means, in plain words. */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { describeErrorCode, ERROR_CODES, errorHintCode, errorInfo } from '../../../proxy/core/annotate/error-codes.js';

describe('error codes', () => {
  it('uses the same numbers as the installed SDK', () => {
    expect(ERROR_CODES.ParseError).toBe(ErrorCode.ParseError);
    expect(ERROR_CODES.InvalidRequest).toBe(ErrorCode.InvalidRequest);
    expect(ERROR_CODES.MethodNotFound).toBe(ErrorCode.MethodNotFound);
    expect(ERROR_CODES.InvalidParams).toBe(ErrorCode.InvalidParams);
    expect(ERROR_CODES.InternalError).toBe(ErrorCode.InternalError);
    expect(ERROR_CODES.ConnectionClosed).toBe(ErrorCode.ConnectionClosed);
    expect(ERROR_CODES.RequestTimeout).toBe(ErrorCode.RequestTimeout);
    expect(ERROR_CODES.UrlElicitationRequired).toBe(ErrorCode.UrlElicitationRequired);
  });

  it.each([
    [-32700, /^Parse error: /],
    [-32600, /^Invalid request: /],
    [-32601, /^Method not found: the receiver does not implement this method \(check its capabilities\)\.$/],
    [-32602, /^Invalid params: /],
    [-32603, /^Internal error: /],
    [-32000, /^Server error -32000 \(implementation-defined\): TypeScript SDK servers .*closed connection/],
    [-32001, /^Server error -32001 \(implementation-defined\): .*Session not found.*timeout/],
    [-32002, /^Resource not found: .*2025-11-25/],
    [-32020, /^Header mismatch: /],
    [-32021, /^Missing client capability: /],
    [-32022, /^Unsupported protocol version: /],
    [-32042, /^URL elicitation required: /],
    [-32010, /^Server error -32010: implementation-defined/],
    [-32099, /^Server error -32099: .*reserves/],
    [-32500, /^Reserved code -32500: /],
  ])('describeErrorCode(%i)', (code, text) => {
    expect(describeErrorCode(code)).toMatch(text);
  });

  it.each([0, 1, 400, -1, -31999, -32769, 1.5, Number.NaN])('no meaning for application code %d', (code) => {
    expect(describeErrorCode(code)).toBeUndefined();
  });

  it('errorInfo reads code, message and meaning', () => {
    expect(errorInfo({ code: -32601, message: 'Method not found' })).toEqual({
      code: -32601,
      message: 'Method not found',
      meaning: describeErrorCode(-32601),
    });
    expect(errorInfo({ code: 7, message: 'custom' })).toEqual({ code: 7, message: 'custom' });
    expect(errorInfo({ code: 7 })).toEqual({ code: 7, message: '' });
    expect(errorInfo({ message: 'no code' })).toBeUndefined();
    expect(errorInfo({ code: '7', message: 'x' })).toBeUndefined();
    expect(errorInfo(null)).toBeUndefined();
    expect(errorInfo('boom')).toBeUndefined();
    expect(errorInfo([1])).toBeUndefined();
  });

  it('errorHintCode', () => {
    expect(errorHintCode(-32601)).toBe('method-not-found');
    expect(errorHintCode(-32042)).toBe('url-elicitation-required');
    expect(errorHintCode(-32015)).toBe('server-error');
    expect(errorHintCode(-32000)).toBe('server-error');
    expect(errorHintCode(-32001)).toBe('server-error');
    expect(errorHintCode(-32002)).toBe('resource-not-found');
    expect(errorHintCode(-32602)).toBe('invalid-params');
    expect(errorHintCode(-32500)).toBe('reserved-error');
    expect(errorHintCode(42)).toBe('application-error');
  });
});

// ---------------------------------------------------------------------------------------------
