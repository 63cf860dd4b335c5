/** proxy/core/model/headers.ts: the two header lookups everything uses. */
import { describe, expect, it } from 'vitest';
import { firstHeader, headerValue } from '../../../proxy/core/model/headers.js';

describe('firstHeader', () => {
  it('reads the exact lower-case name, the first of repeated values', () => {
    expect(firstHeader({ 'content-type': 'a/b' }, 'content-type')).toBe('a/b');
    expect(firstHeader({ 'set-cookie': ['a=1', 'b=2'] }, 'set-cookie')).toBe('a=1');
    expect(firstHeader({ 'Content-Type': 'a/b' }, 'content-type')).toBeUndefined();
    expect(firstHeader(undefined, 'x')).toBeUndefined();
  });
});

describe('headerValue', () => {
  it('finds any spelling of the name and joins repeated values', () => {
    expect(headerValue({ 'Mcp-Session-Id': 'S' }, 'mcp-session-id')).toBe('S');
    expect(headerValue({ accept: ['a', 'b'] }, 'Accept')).toBe('a, b');
    expect(headerValue({ 'x-a': undefined, 'X-A': 'v' }, 'x-a')).toBe('v');
    expect(headerValue({}, 'x')).toBeUndefined();
    expect(headerValue(undefined, 'x')).toBeUndefined();
  });
});
