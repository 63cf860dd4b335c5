/**
 * The store cap through a running mcpscope: old traffic is evicted past --max-events, the proxy
 * keeps forwarding, and /api/stats (token-guarded) reports the counts for the UI.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';

const TOKEN = 'store-cap-test-token-0123456789abcdef';
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

async function echoUpstream(): Promise<ScriptedUpstream> {
  const u = await startScriptedUpstream({
    'POST /mcp': (_req, res, body) => {
      const msg = JSON.parse(body.toString()) as { id: number; params: unknown };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { echoed: msg.params } }));
    },
  });
  open.push(u);
  return u;
}

describe('store cap through the proxy', () => {
  it('evicts past --max-events, keeps forwarding, and reports it on /api/stats', async () => {
    const u = await echoUpstream();
    const scope: Mcpscope = await startMcpscope({ target: `${u.origin}/mcp`, port: 0, uiPort: 0, token: TOKEN, maxEvents: 100 });
    open.push(scope);
    for (let i = 0; i < 120; i++) {
      const r = await fetch(`${scope.proxy.origin}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { i } } }),
      });
      expect(await r.json()).toEqual({ jsonrpc: '2.0', id: i, result: { echoed: { name: 'echo', arguments: { i } } } });
    }
    await scope.waitFor((s) => s.stats().evictedEvents > 0);
    await scope.settle(); // everything the proxy thread captured is recorded
    const res = await fetch(`${scope.ui!.origin}/api/stats`, { headers: { 'x-mcpscope-token': TOKEN } });
    expect(res.status).toBe(200);
    const stats = (await res.json()) as Record<string, number>;
    expect(Object.keys(stats).sort()).toEqual(['bytes', 'events', 'evictedEvents', 'evictedSessions', 'maxBytes', 'maxEvents']);
    expect(stats.maxEvents).toBe(100);
    expect(stats.maxBytes).toBe(512 * 1024 * 1024);
    expect(stats.events).toBeLessThanOrEqual(110);
    expect(stats.evictedEvents).toBeGreaterThan(0);
    expect(scope.store.snapshot().some((e) => e.type === 'log' && e.source === 'mcpscope' && /evicted \d+ events/.test(e.text))).toBe(true);
    // The newest request is still there.
    expect(scope.store.snapshot().some((e) => e.type === 'message' && e.kind === 'response' && e.id === 119)).toBe(true);

    const anon = await fetch(`${scope.ui!.origin}/api/stats`);
    expect(anon.status).toBe(401);
  });
});
