import { describe, expect, it } from 'vitest';
import { messageName, progressNotificationTokenOf, progressOf, progressTokenOf } from '../../../proxy/core/parse/mcp-fields.js';

describe('messageName / progress', () => {
  it.each([
    ['tools/call', { name: 'get_weather', arguments: {} }, 'get_weather'],
    ['prompts/get', { name: 'review' }, 'review'],
    ['resources/read', { uri: 'file:///a.txt' }, 'file:///a.txt'],
    ['resources/subscribe', { uri: 'file:///b' }, 'file:///b'],
    ['resources/unsubscribe', { uri: 'file:///c' }, 'file:///c'],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } }, 'p'],
    ['completion/complete', { ref: { type: 'ref/resource', uri: 'db://{t}' }, argument: { name: 't', value: '' } }, 'db://{t}'],
    ['tasks/get', { taskId: 't-1' }, 't-1'],
    ['tasks/result', { taskId: 't-2' }, 't-2'],
    ['tasks/cancel', { taskId: 't-3' }, 't-3'],
    ['notifications/tasks/status', { taskId: 't-4', status: 'working' }, 't-4'],
    ['notifications/resources/updated', { uri: 'file:///d' }, 'file:///d'],
  ])('%s → name', (method, params, name) => {
    expect(messageName(method, params)).toBe(name);
  });

  it.each([
    ['tools/list', {}],
    ['tools/call', { name: 5 }],
    ['tools/call', undefined],
    [undefined, { name: 'x' }],
    ['tasks/list', {}],
  ])('%s has no name', (method, params) => {
    expect(messageName(method, params)).toBeUndefined();
  });

  it('progressTokenOf reads params._meta.progressToken', () => {
    expect(progressTokenOf({ _meta: { progressToken: 'abc' } })).toBe('abc');
    expect(progressTokenOf({ _meta: { progressToken: 0 } })).toBe(0);
    expect(progressTokenOf({ _meta: { progressToken: { x: 1 } } })).toBeUndefined();
    expect(progressTokenOf({ progressToken: 'abc' })).toBeUndefined();
    expect(progressTokenOf(null)).toBeUndefined();
  });

  it('progressNotificationTokenOf reads params.progressToken', () => {
    expect(progressNotificationTokenOf({ progressToken: 7, progress: 1 })).toBe(7);
    expect(progressNotificationTokenOf({ progress: 1 })).toBeUndefined();
  });

  it('progressOf', () => {
    expect(progressOf('notifications/progress', { progressToken: 1, progress: 3, total: 10, message: 'go' })).toEqual({
      progress: 3,
      total: 10,
      message: 'go',
    });
    expect(progressOf('notifications/progress', { progressToken: 1, progress: 0.5 })).toEqual({ progress: 0.5 });
    expect(progressOf('notifications/progress', { progressToken: 1, progress: '3' })).toBeUndefined();
    expect(progressOf('notifications/message', { progress: 3 })).toBeUndefined();
    expect(progressOf(undefined, { progress: 3 })).toBeUndefined();
  });
});
