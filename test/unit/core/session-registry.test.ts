import { describe, expect, it } from 'vitest';
import { SessionRegistry, clientGroupOf, groupingKeyOf } from '../../../proxy/core/correlate/session-registry.js';

describe('SessionRegistry: create and look up', () => {
  it('creates open sessions with sequential ids s1, s2, … and zero counts', () => {
    const r = new SessionRegistry();
    const a = r.create('streamable-http', 'http://up/mcp', 100);
    const b = r.create('legacy-sse', 'http://up/sse', 200, { grouping: 'g' });
    expect(a).toEqual({
      id: 's1',
      transport: 'streamable-http',
      target: 'http://up/mcp',
      startedAt: 100,
      status: 'open',
      counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 0 },
    });
    expect(b.id).toBe('s2');
    expect(b.grouping).toBe('g');
    expect(r.get('s1')).toBe(a);
    expect(r.get('s2')).toBe(b);
    expect(r.get(undefined)).toBeUndefined();
    expect(r.get('s3')).toBeUndefined();
    expect([...r.sessions.keys()]).toEqual(['s1', 's2']);
  });

  it('an mcpSessionId given at creation is indexed', () => {
    const r = new SessionRegistry();
    const s = r.create('streamable-http', 't', 0, { mcpSessionId: 'abc' });
    expect(r.byMcpId('abc')).toBe(s);
    expect(r.byMcpId('ABC')).toBeUndefined();
  });

  it('assignMcpId indexes the id and removes the session from the headerless groups', () => {
    const r = new SessionRegistry();
    const s = r.create('streamable-http', 't', 0);
    r.markHeaderless(s, 'anonymous');
    expect(r.headerlessFor('anonymous')).toBe(s);
    r.assignMcpId(s, 'sid-1');
    expect(s.mcpSessionId).toBe('sid-1');
    expect(r.byMcpId('sid-1')).toBe(s);
    expect(r.headerlessFor('anonymous')).toBeUndefined();
  });
});

describe('SessionRegistry: legacy endpoints', () => {
  it('maps an endpoint path+query to its session (exact match, query included)', () => {
    const r = new SessionRegistry();
    const s = r.create('legacy-sse', 't', 0);
    r.mapEndpoint(s, '/message?sessionId=1');
    expect(s.endpoint).toBe('/message?sessionId=1');
    expect(r.byEndpointPath('/message?sessionId=1')).toBe(s);
    expect(r.byEndpointPath('/message?sessionId=2')).toBeUndefined();
    expect(r.byEndpointPath('/message')).toBeUndefined();
  });

  it('closing a session unmaps its endpoint', () => {
    const r = new SessionRegistry();
    const s = r.create('legacy-sse', 't', 0);
    r.mapEndpoint(s, '/messages/?session_id=ab');
    expect(r.close(s, 10, 'stream-closed')).toBe(true);
    expect(r.byEndpointPath('/messages/?session_id=ab')).toBeUndefined();
  });

  it('closing an old session does not unmap the same endpoint now owned by a newer session', () => {
    // Servers with a fixed endpoint (`/messages`) hand the same path to every connection: when the
    // client reconnects before the old stream's end is recorded, the new session must keep the path.
    const r = new SessionRegistry();
    const old = r.create('legacy-sse', 't', 0);
    r.mapEndpoint(old, '/messages');
    const next = r.create('legacy-sse', 't', 5);
    r.mapEndpoint(next, '/messages');
    expect(r.byEndpointPath('/messages')).toBe(next);
    r.close(old, 6, 'stream-broken');
    expect(r.byEndpointPath('/messages')).toBe(next);
  });
});

describe('SessionRegistry: headerless (stateless) groups', () => {
  it('the newest marked session of a group is its home; closed sessions are not', () => {
    const r = new SessionRegistry();
    const a = r.create('streamable-http', 't', 0);
    const b = r.create('streamable-http', 't', 0);
    r.markHeaderless(a, 'client:x@1');
    expect(r.headerlessFor('client:x@1')).toBe(a);
    expect(r.headerlessFor('anonymous')).toBeUndefined();
    r.markHeaderless(b, 'client:x@1');
    expect(r.headerlessFor('client:x@1')).toBe(b);
    b.status = 'closed'; // closed outside the registry: still not a home
    expect(r.headerlessFor('client:x@1')).toBeUndefined();
  });

  it('close() removes the session from its groups', () => {
    const r = new SessionRegistry();
    const a = r.create('streamable-http', 't', 0);
    r.markHeaderless(a, 'anonymous');
    r.markHeaderless(a, 'client:y@');
    r.close(a, 1, 'deleted');
    expect(r.headerlessFor('anonymous')).toBeUndefined();
    expect(r.headerlessFor('client:y@')).toBeUndefined();
  });
});

describe('SessionRegistry: id-less sessions by upstream', () => {
  it('headerlessTo: the newest open id-less session of any client with requests to that upstream', () => {
    const r = new SessionRegistry();
    const a = r.create('streamable-http', 'http://up/mcp', 10);
    const b = r.create('streamable-http', 'http://up/mcp', 20);
    const other = r.create('streamable-http', 'http://other/mcp', 30);
    r.markHeaderless(a, groupingKeyOf(undefined, 'http://up/mcp'));
    r.markHeaderless(b, groupingKeyOf({ _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' } } }, 'http://up/mcp'));
    r.markHeaderless(other, groupingKeyOf(undefined, 'http://other/mcp'));
    expect(r.headerlessTo('http://up/mcp')).toBe(b);
    expect(r.headerlessTo('http://other/mcp')).toBe(other);
    expect(r.headerlessTo('http://up')).toBeUndefined();
    r.close(b, 40, 'deleted');
    expect(r.headerlessTo('http://up/mcp')).toBe(a);
  });

  it('unmarkHeaderless: the session is no longer a home for id-less requests', () => {
    const r = new SessionRegistry();
    const a = r.create('streamable-http', 't', 0);
    r.markHeaderless(a, 'anonymous to t');
    r.unmarkHeaderless(a);
    expect(r.headerlessFor('anonymous to t')).toBeUndefined();
    expect(r.headerlessTo('t')).toBeUndefined();
    expect(a.status).toBe('open');
  });
});

describe('SessionRegistry: SSE event ids for resumption', () => {
  it('remembers the first exchange that carried an event id, per session', () => {
    const r = new SessionRegistry();
    const a = r.create('streamable-http', 't', 0);
    const b = r.create('streamable-http', 't', 0);
    r.noteEventId(a, 'e1', 'x1');
    r.noteEventId(a, 'e1', 'x2'); // the replay on the resumed stream does not move it
    r.noteEventId(a, 'e2', 'x2');
    expect(r.exchangeOfEvent(a, 'e1')).toBe('x1');
    expect(r.exchangeOfEvent(a, 'e2')).toBe('x2');
    expect(r.exchangeOfEvent(a, 'e3')).toBeUndefined();
    expect(r.exchangeOfEvent(b, 'e1')).toBeUndefined();
  });

  it('close() forgets the event ids of the session', () => {
    const r = new SessionRegistry();
    const a = r.create('streamable-http', 't', 0);
    r.noteEventId(a, 'e1', 'x1');
    r.close(a, 1, 'deleted');
    expect(r.exchangeOfEvent(a, 'e1')).toBeUndefined();
  });
});

describe('SessionRegistry: close', () => {
  it('sets status, endedAt and closeReason once; a second close is refused and changes nothing', () => {
    const r = new SessionRegistry();
    const s = r.create('streamable-http', 't', 0, { mcpSessionId: 'm' });
    expect(r.close(s, 50, 'deleted')).toBe(true);
    expect(s).toMatchObject({ status: 'closed', endedAt: 50, closeReason: 'deleted' });
    expect(r.close(s, 60, 'expired')).toBe(false);
    expect(s).toMatchObject({ status: 'closed', endedAt: 50, closeReason: 'deleted' });
    // The session stays known (its messages still belong to it).
    expect(r.get('s1')).toBe(s);
    expect(r.byMcpId('m')).toBe(s);
  });
});

describe('groupingKeyOf', () => {
  it('uses the 2026-07-28 _meta clientInfo name and version', () => {
    expect(groupingKeyOf({ _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'cli', version: '1.2' } } })).toBe('client:cli@1.2');
    expect(groupingKeyOf({ _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'cli' } } })).toBe('client:cli@');
    expect(groupingKeyOf({ _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'cli', version: 3 } } })).toBe('client:cli@');
  });

  it('falls back to one shared anonymous group', () => {
    expect(groupingKeyOf(undefined)).toBe('anonymous');
    expect(groupingKeyOf(null)).toBe('anonymous');
    expect(groupingKeyOf('x')).toBe('anonymous');
    expect(groupingKeyOf({})).toBe('anonymous');
    expect(groupingKeyOf({ _meta: {} })).toBe('anonymous');
    expect(groupingKeyOf({ _meta: { 'io.modelcontextprotocol/clientInfo': { version: '1' } } })).toBe('anonymous');
    expect(groupingKeyOf({ _meta: { 'io.modelcontextprotocol/clientInfo': { name: 7 } } })).toBe('anonymous');
    // the initialize-style clientInfo (not in _meta) is not a grouping key
    expect(groupingKeyOf({ clientInfo: { name: 'x', version: '1' } })).toBe('anonymous');
  });

  it('includes the target, so id-less requests to two upstreams never share a key (forward mode sees several servers)', () => {
    const meta = { _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'cli', version: '1.2' } } };
    expect(groupingKeyOf(meta, 'http://a.test/mcp')).toBe('client:cli@1.2 to http://a.test/mcp');
    expect(groupingKeyOf(undefined, 'https://b.test')).toBe('anonymous to https://b.test');
    expect(groupingKeyOf(undefined, 'http://a.test/mcp')).not.toBe(groupingKeyOf(undefined, 'https://b.test'));
    expect(groupingKeyOf(meta, 'http://a.test/mcp')).not.toBe(groupingKeyOf(meta, 'https://b.test'));
    // the client part alone (the session's grouping label)
    expect(clientGroupOf(meta)).toBe('client:cli@1.2');
    expect(clientGroupOf({})).toBe('anonymous');
    const r = new SessionRegistry();
    const a = r.create('streamable-http', 'http://a.test/mcp', 1);
    r.markHeaderless(a, groupingKeyOf(undefined, 'http://a.test/mcp'));
    expect(r.headerlessFor(groupingKeyOf(undefined, 'http://a.test/mcp'))).toBe(a);
    expect(r.headerlessFor(groupingKeyOf(undefined, 'https://b.test'))).toBeUndefined();
  });
});

describe('SessionRegistry: reopen', () => {
  it('opens a closed session again, without its end, and says false for an open one', () => {
    const r = new SessionRegistry();
    const s = r.create('streamable-http', 't', 0, { mcpSessionId: 'abc' });
    expect(r.reopen(s)).toBe(false);
    r.close(s, 5, 'expired');
    expect(r.reopen(s)).toBe(true);
    expect(s).toMatchObject({ status: 'open' });
    expect('endedAt' in s || 'closeReason' in s).toBe(false);
    expect(r.byMcpId('abc')).toBe(s);
    // it can close again
    expect(r.close(s, 9, 'deleted')).toBe(true);
  });
});
