/**
 * Hostile input through the reverse proxy (issue 16, finding 1): one message nested 5,000 levels
 * deep — about 10 KB — that also carries a redacted key used to kill mcpscope with a stack
 * overflow (JSON.stringify in the feed), dropping every proxied connection; the recording, the
 * API and every export were broken from then on.
 *
 * With a feed WebSocket open, a client sends a 5,000-level request carrying "password" and the
 * server answers with a 5,000-level result carrying "access_token". Then: the client got the
 * server's bytes unchanged, mcpscope is alive, a normal call afterwards works and is recorded,
 * /api/events and every export answer 200, the feed kept going, and the cut copy is flagged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { McpscopeEvent, MessageEvent } from '../../proxy/core/model/events.js';
import { jsonValueDepth, MAX_JSON_DEPTH } from '../../proxy/core/parse/json-depth.js';
import { collectFeed, type CollectedFeed } from '../support/feed.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';

const DEPTH = 5_000;
const arrays = (d: number) => `${'['.repeat(d)}${']'.repeat(d)}`;
const objects = (d: number) => `${'{"a":'.repeat(d - 1)}{"leaf":1}${'}'.repeat(d - 1)}`;
const deepRequest = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deep","password":"hunter2-secret","arguments":{"x":${arrays(DEPTH)}}}}`;
const deepResponse = `{"jsonrpc":"2.0","id":1,"result":{"access_token":"tok-secret-123","content":[{"type":"text","text":"deep"}],"structuredContent":${objects(DEPTH)}}}`;
const normalRequest = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"after"}}}';
const normalResponse = '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"after"}]}}';

let upstream: ScriptedUpstream;
let scope: Mcpscope;
let feed: CollectedFeed;

const messages = (events: readonly McpscopeEvent[]) => events.filter((e): e is MessageEvent => e.type === 'message');

async function post(body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(scope.proxy.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body,
  });
  return { status: res.status, text: await res.text() };
}

beforeAll(async () => {
  upstream = await startScriptedUpstream({
    'POST /mcp': (_req, res, body) => {
      const { id } = JSON.parse(body.toString('utf8')) as { id: number };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(id === 1 ? deepResponse : id === 2 ? normalResponse : `{"jsonrpc":"2.0","id":${id},"result":{}}`);
    },
  });
  scope = await startMcpscope({ target: `${upstream.origin}/mcp`, port: 0, uiPort: 0 });
  feed = collectFeed(scope.ui!.url);
  // The feed is live: it has delivered a first, ordinary exchange.
  await post('{"jsonrpc":"2.0","id":0,"method":"ping"}');
  await feed.until((events) => messages(events).some((m) => m.dir === 's2c' && m.id === 0));
});

afterAll(async () => {
  feed?.close();
  await scope?.close();
  await upstream?.close();
});

describe('a message nested 5,000 levels deep, with secrets, both ways, while the feed is open', () => {
  it('passes through unchanged, and mcpscope keeps proxying, recording, serving and feeding', async () => {
    expect(deepRequest.length).toBeLessThan(11_000); // about 10 KB is all it takes
    const deep = await post(deepRequest);
    expect(deep.status).toBe(200);
    expect(deep.text).toBe(deepResponse); // the server's bytes, unchanged
    expect(upstream.seen[1].body.toString('utf8')).toBe(deepRequest); // and the client's

    // The feed has delivered the deep exchange (a crash would have ended the process here).
    await feed.until((events) => messages(events).some((m) => m.dir === 's2c' && m.id === 1));

    // A normal call afterwards: forwarded, recorded, and fed.
    const normal = await post(normalRequest);
    expect(normal).toEqual({ status: 200, text: normalResponse });
    await scope.waitFor((store) =>
      [...store.sessions.values()].some((s) => store.messages(s.id).some((m) => m.dir === 's2c' && m.id === 2)),
    );
    await feed.until((events) => messages(events).some((m) => m.dir === 's2c' && m.id === 2));

    // The cut copies: id/method intact, within the cap, flagged.
    const recorded = messages(scope.store.snapshot()).filter((m) => m.id === 1);
    expect(recorded.map((m) => m.dir).sort()).toEqual(['c2s', 's2c']);
    for (const m of recorded) {
      expect(jsonValueDepth(m.jsonrpc)).toBeLessThanOrEqual(MAX_JSON_DEPTH);
      expect(m.hints.map((h) => h.code)).toContain('too-deep');
      expect(m.raw).toBeUndefined(); // the UI would parse raw back into the deep value
    }
    expect(recorded.find((m) => m.dir === 'c2s')!.method).toBe('tools/call');
    // …and a problem event for each, as for every other frame mcpscope could not keep whole.
    const problems = scope.store.snapshot().filter((e) => e.type === 'problem' && e.code === 'too-deep');
    expect(problems).toHaveLength(2);

    // The API and every export answer 200, and hold no secret.
    const session = recorded[0].sessionId;
    const auth = { authorization: `Bearer ${new URL(scope.ui!.url).searchParams.get('token')}` };
    for (const path of [
      '/api/events',
      `/api/sessions/${session}/messages`,
      `/api/sessions/${session}/export?format=fixture`,
      `/api/sessions/${session}/export?format=har`,
      `/api/sessions/${session}/export?format=ndjson`,
      '/api/export?format=har',
      '/api/export?format=ndjson',
    ]) {
      const res = await fetch(scope.ui!.origin + path, { headers: auth });
      const body = await res.text();
      expect(res.status, `${path}: ${body.slice(0, 300)}`).toBe(200);
      expect(body, path).not.toContain('hunter2-secret');
      expect(body, path).not.toContain('tok-secret-123');
    }

    // The feed kept going and never carried a secret either.
    const fed = JSON.stringify(feed.events);
    expect(fed).not.toContain('hunter2-secret');
    expect(fed).not.toContain('tok-secret-123');
  });
});
