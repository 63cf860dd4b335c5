import { describe, expect, it } from 'vitest';
import { mediaType } from '../../../proxy/core/model/media-type.js';

describe('mediaType', () => {
  it('drops parameters and lower-cases', () => {
    expect(mediaType('Text/Event-Stream; charset=utf-8')).toBe('text/event-stream');
    expect(mediaType('application/json')).toBe('application/json');
  });
  it('is undefined for nothing', () => {
    expect(mediaType(undefined)).toBeUndefined();
    expect(mediaType('')).toBeUndefined();
    expect(mediaType(' ; charset=utf-8')).toBeUndefined();
  });
});
