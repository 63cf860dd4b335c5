/** The feed form of events (proxy/core/model/feed-form.ts): what the server sends, what a consumer restores. */
import { describe, expect, it } from 'vitest';
import { FEED_ELIDE_BYTES, fromFeed, toFeed, unserializableStub } from '../../../proxy/core/model/feed-form.js';
import type { McpscopeEvent, MessageEvent } from '../../../proxy/core/model/events.js';

const message = (extra: Partial<MessageEvent> = {}): MessageEvent => {
  const jsonrpc = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'héllo \u2028 "q"' } } };
  return {
    type: 'message',
    seq: 3,
    ts: 1,
    sessionId: 's1',
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-json',
    jsonrpc,
    raw: JSON.stringify(jsonrpc, null, 1),
    size: 120,
    id: 7,
    method: 'tools/call',
    hints: [],
    ...extra,
  } as MessageEvent;
};
/** Through the wire: serialized and parsed, as a WebSocket message is. */
const wire = (e: McpscopeEvent) => JSON.parse(JSON.stringify(toFeed(e))) as McpscopeEvent;

describe('the feed form of a message', () => {
  it('travels without jsonrpc when its raw text is kept, and comes back equal, parsed on first read', () => {
    const e = message();
    const sent = wire(e);
    expect('jsonrpc' in sent).toBe(false);
    expect((sent as MessageEvent).raw).toBe(e.raw);
    const back = fromFeed(sent) as MessageEvent;
    expect(back).toBe(sent);
    expect(Object.getOwnPropertyDescriptor(back, 'jsonrpc')?.get).toBeTypeOf('function');
    expect(back.jsonrpc).toEqual(e.jsonrpc);
    // Parsed once: from then on a plain value, and the same object each time.
    expect(Object.getOwnPropertyDescriptor(back, 'jsonrpc')?.value).toBe(back.jsonrpc);
    expect(back).toEqual(e);
    expect(JSON.parse(JSON.stringify(back))).toEqual(JSON.parse(JSON.stringify(e)));
  });

  it('keeps jsonrpc when there is no raw text (a batch member, a redacted or very long frame)', () => {
    const e = message({ raw: undefined });
    const sent = wire(e);
    expect((sent as MessageEvent).jsonrpc).toEqual(e.jsonrpc);
    expect(fromFeed(sent)).toEqual(JSON.parse(JSON.stringify(e)));
  });

  it('a message over the elision size travels as a stub naming its id and method, with no raw text', () => {
    const e = message({ size: FEED_ELIDE_BYTES + 1 });
    const sent = fromFeed(wire(e)) as MessageEvent;
    expect(sent.elided).toBe(true);
    expect(sent.raw).toBeUndefined();
    expect(sent.jsonrpc).toEqual({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      '…': `${FEED_ELIDE_BYTES + 1} bytes: open this message to load it in full`,
    });
  });

  it('leaves other events and the stored event itself alone, and can be set like a plain field', () => {
    const log: McpscopeEvent = { type: 'log', seq: 1, ts: 1, source: 'mcpscope', text: 'x' };
    expect(toFeed(log)).toBe(log);
    expect(fromFeed(log)).toBe(log);
    const e = message();
    toFeed(e);
    expect(e.jsonrpc).toBeDefined();
    const back = fromFeed(wire(e)) as MessageEvent;
    back.jsonrpc = { replaced: true };
    expect(back.jsonrpc).toEqual({ replaced: true });
  });

  it('a raw text that is not JSON (it cannot be, but) reads as null rather than throwing', () => {
    const back = fromFeed({ ...(wire(message()) as MessageEvent), raw: '{not json' }) as MessageEvent;
    expect(back.jsonrpc).toBeNull();
  });
});

describe('the stand-in for an event that cannot be serialized', () => {
  it('keeps a message its row (elided, a hint saying why) and makes any other event a log note with its seq; always serializable', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const stub = unserializableStub(message({ jsonrpc: cyclic, raw: undefined }), 'Converting circular structure to JSON');
    const sent = JSON.parse(JSON.stringify(stub)) as MessageEvent;
    expect(sent).toMatchObject({
      type: 'message',
      seq: 3,
      sessionId: 's1',
      dir: 'c2s',
      kind: 'request',
      id: 7,
      method: 'tools/call',
      elided: true,
    });
    expect(sent.jsonrpc).toMatchObject({ jsonrpc: '2.0', id: 7, method: 'tools/call' });
    expect(sent.hints).toEqual([
      { level: 'warn', code: 'feed-unserializable', text: expect.stringMatching(/could not serialize this message event .*circular/) },
    ]);
    const log = unserializableStub({ type: 'log', seq: 9, ts: 2, source: 'stderr', sessionId: 's1', text: 'x' }, 'BigInt');
    expect(JSON.parse(JSON.stringify(log))).toEqual({
      type: 'log',
      seq: 9,
      ts: 2,
      source: 'mcpscope',
      sessionId: 's1',
      text: expect.stringMatching(/^Event 9: mcpscope could not serialize this log event/),
    });
  });
});
