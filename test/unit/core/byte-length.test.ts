import { describe, expect, it } from 'vitest';
import { byteLength } from '../../../proxy/core/model/byte-length.js';

describe('byteLength', () => {
  it('counts UTF-8 bytes', () => {
    expect(byteLength('abc')).toBe(3);
    expect(byteLength('é€😀')).toBe(Buffer.byteLength('é€😀'));
  });
});
