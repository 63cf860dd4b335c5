import { describe, expect, it } from 'vitest';
import { compact } from '../../../proxy/core/model/compact.js';

describe('compact', () => {
  it('deletes undefined keys in place and keeps null, 0 and empty strings', () => {
    const o = { a: 1, b: undefined, c: null, d: 0, e: '' };
    expect(compact(o)).toBe(o);
    expect(Object.keys(o)).toEqual(['a', 'c', 'd', 'e']);
  });
});
