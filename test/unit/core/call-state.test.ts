/** The one rule for a call's state (proxy/core/model/call-state.ts), shared by the recorder's counts, the API and the UI. */
import { describe, expect, it } from 'vitest';
import { callState, httpRefusal, refusalText } from '../../../proxy/core/model/call-state.js';

describe('httpRefusal', () => {
  it('is the status of a 4xx or 5xx, and `failed` for an exchange that ended without any response', () => {
    expect(httpRefusal({ status: 400 })).toBe(400);
    expect(httpRefusal({ status: 401 })).toBe(401);
    expect(httpRefusal({ status: 503, error: 'x' })).toBe(503);
    expect(httpRefusal({ error: 'connection reset' })).toBe('failed');
    expect(httpRefusal({ aborted: 'client' })).toBe('failed');
  });

  it('is nothing for a 202 Accepted, a 200 (a stream still to carry the answer, or cut after its head), a 3xx, or no status yet', () => {
    expect(httpRefusal({ status: 202 })).toBeUndefined();
    expect(httpRefusal({ status: 200 })).toBeUndefined();
    expect(httpRefusal({ status: 200, aborted: 'upstream', error: 'reset' })).toBeUndefined();
    expect(httpRefusal({ status: 307 })).toBeUndefined();
    expect(httpRefusal({})).toBeUndefined();
    expect(httpRefusal(undefined)).toBeUndefined();
  });
});

describe('callState', () => {
  it('an answer beats a refusal (a 4xx with a paired JSON-RPC error is that error); a cancellation before the answer stays one', () => {
    expect(callState({ answer: { kind: 'error' }, refusal: 400 })).toBe('error');
    expect(callState({ answer: { kind: 'response' }, refusal: 400 })).toBe('answered');
    expect(callState({ answer: { kind: 'response', isError: true } })).toBe('tool-error');
    expect(callState({ answer: { kind: 'response' }, cancelled: true })).toBe('cancelled');
    expect(callState({ cancelled: true, refusal: 'failed' })).toBe('cancelled');
  });

  it('failed when refused without an answer, pending otherwise', () => {
    expect(callState({ refusal: 400 })).toBe('failed');
    expect(callState({ refusal: 'failed' })).toBe('failed');
    expect(callState({})).toBe('pending');
  });

  it('says a refusal in words', () => {
    expect(refusalText(400)).toBe('HTTP 400');
    expect(refusalText('failed')).toBe('failed');
  });
});
