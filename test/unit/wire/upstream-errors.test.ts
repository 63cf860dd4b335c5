/** proxy/wire/forwarder/upstream-errors.ts: how an upstream failed, in plain words, and the id to answer. */
import { describe, expect, it } from 'vitest';
import { causeOfCode, describeUpstreamError, isTlsTrustCode, jsonRpcIdFrom } from '../../../proxy/wire/forwarder/upstream-errors.js';

const err = (code: string, message = 'x', cause?: unknown) => Object.assign(new Error(message), { code, cause });

describe('describeUpstreamError', () => {
  it('names known socket and undici codes in words', () => {
    expect(describeUpstreamError(err('ECONNREFUSED'))).toEqual({
      code: 'ECONNREFUSED',
      cause: 'connection refused — is the server running on that port?',
    });
    expect(describeUpstreamError(err('UND_ERR_SOCKET')).cause).toBe('the upstream closed the connection');
  });
  it('finds the useful code on a wrapped cause (fetch failed → the socket error)', () => {
    const wrapped = Object.assign(new TypeError('fetch failed'), { cause: err('ENOTFOUND', 'getaddrinfo ENOTFOUND nowhere.test') });
    expect(describeUpstreamError(wrapped)).toEqual({ code: 'ENOTFOUND', cause: 'host name not found' });
  });
  it('an abort is UND_ERR_ABORTED; anything unknown keeps its message', () => {
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    expect(describeUpstreamError(abort).code).toBe('UND_ERR_ABORTED');
    expect(describeUpstreamError(new Error('something odd'))).toEqual({ code: 'UNKNOWN', cause: 'something odd' });
    expect(describeUpstreamError('a string').cause).toBe('a string');
  });
  it('an untrusted TLS certificate says how to trust a private CA, and that the check is never skipped', () => {
    const { code, cause } = describeUpstreamError(err('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'));
    expect(code).toBe('SELF_SIGNED_CERT_IN_CHAIN');
    expect(isTlsTrustCode(code)).toBe(true);
    expect(cause).toContain('not trusted (SELF_SIGNED_CERT_IN_CHAIN');
    expect(cause).toContain('--upstream-ca');
  });
});

describe('causeOfCode', () => {
  it('words for known codes, a TLS sentence for trust codes, the code itself otherwise', () => {
    expect(causeOfCode('ETIMEDOUT')).toBe('the connection timed out');
    expect(causeOfCode('CERT_UNTRUSTED')).toBe("the upstream's TLS certificate is not trusted (CERT_UNTRUSTED)");
    expect(causeOfCode('UNKNOWN')).toBe('no response');
    expect(causeOfCode('EWHATEVER')).toBe('EWHATEVER');
  });
});

describe('jsonRpcIdFrom', () => {
  it('the id of the message, or of a batch’s first, from the first bytes of a body', () => {
    expect(jsonRpcIdFrom([Buffer.from('{"jsonrpc":"2.0","id":'), Buffer.from('7,"method":"ping"}')])).toBe(7);
    expect(jsonRpcIdFrom([Buffer.from('[{"jsonrpc":"2.0","id":"a","method":"x"},{"id":2}]')])).toBe('a');
  });
  it('null for a notification, an object id, broken or cut JSON', () => {
    expect(jsonRpcIdFrom([Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}')])).toBeNull();
    expect(jsonRpcIdFrom([Buffer.from('{"id":{"x":1}}')])).toBeNull();
    expect(jsonRpcIdFrom([Buffer.from('{"jsonrpc":"2.0","id":3,"par')])).toBeNull();
    expect(jsonRpcIdFrom([])).toBeNull();
  });
});
