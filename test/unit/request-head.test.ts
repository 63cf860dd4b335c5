/** proxy/forwarding/request-head.ts: which request heads mcpscope refuses to forward. */
import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_HEADERS, refusedHead } from '../../proxy/forwarding/request-head.js';

const fields = (n: number) => Array.from({ length: n }, (_, i) => [`x-${i}`, '1']).flat();

describe('refusedHead', () => {
  it('accepts up to the limit, refuses one more', () => {
    expect(refusedHead(['Host', 'a', ...fields(MAX_REQUEST_HEADERS - 1)])).toBeUndefined();
    expect(refusedHead(['Host', 'a', ...fields(MAX_REQUEST_HEADERS)])).toBe('too-many-headers');
  });
  it('refuses a second Host in any case, accepts one', () => {
    expect(refusedHead(['Host', 'a', 'hosts', 'b', 'x-host', 'c'])).toBeUndefined();
    expect(refusedHead(['Host', 'a', 'accept', '*/*', 'HoSt', 'a'])).toBe('duplicate-host');
    expect(refusedHead(['host', 'a', 'host', 'b'])).toBe('duplicate-host');
    expect(refusedHead([])).toBeUndefined();
  });
});
