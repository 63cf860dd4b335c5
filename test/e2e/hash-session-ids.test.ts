/**
 * `--hash-session-ids` (issue 6, item 4): MCP session ids are kept as `sha256:<first 12 hex>` in
 * SessionInfo.mcpSessionId, in exchange headers, the API, the feed's store and every export — while
 * the wire keeps the real id (the client and server still talk) and sessions still correlate.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { hashSessionId, startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';

const TOKEN = 'hash-session-test-token-0123456789';
let demo: DemoServer | undefined;
let scope: Mcpscope | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close().catch(() => undefined);
  await scope?.close();
  await demo?.close();
  client = scope = demo = undefined;
});

async function run(hashSessionIds: boolean): Promise<{ s: Mcpscope; sessionId: string; everything: string }> {
  demo = await startDemoServer({ port: 0 });
  const s = (scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0, token: TOKEN, hashSessionIds }));
  client = new Client({ name: 'hash-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(s.proxy.url));
  await client.connect(transport);
  const r = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  expect((r.content as { text: string }[])[0].text).toBe('hello');
  const sessionId = transport.sessionId!;
  expect(sessionId).toBeTruthy();
  await s.settle();
  const get = async (path: string) => (await fetch(`${s.ui!.origin}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  const sessions = await get('/api/sessions');
  const id = (JSON.parse(sessions) as { id: string }[])[0].id;
  const everything = [
    sessions,
    await get('/api/events'),
    await get(`/api/sessions/${id}/events`),
    await get('/api/export?format=fixture'),
    await get('/api/export?format=har'),
    await get('/api/export?format=ndjson'),
  ].join('\n');
  return { s, sessionId, everything };
}

describe('--hash-session-ids', () => {
  it('hashSessionId is sha256: and the first 12 hex digits', () => {
    expect(hashSessionId('abc')).toBe(`sha256:${createHash('sha256').update('abc').digest('hex').slice(0, 12)}`);
    expect(hashSessionId('abc')).toMatch(/^sha256:[0-9a-f]{12}$/);
  });

  it('keeps only the hash: session info, headers, API and exports; one session still', async () => {
    const { s, sessionId, everything } = await run(true);
    const sessions = [...s.store.sessions.values()].filter((x) => x.transport === 'streamable-http');
    expect(sessions).toHaveLength(1);
    expect(sessions[0].mcpSessionId).toBe(hashSessionId(sessionId));
    const withHeader = [...s.store.exchanges.values()].filter((x) => x.requestHeaders['mcp-session-id'] !== undefined);
    expect(withHeader.length).toBeGreaterThan(0);
    for (const x of withHeader) expect(x.requestHeaders['mcp-session-id']).toBe(hashSessionId(sessionId));
    expect(everything).toContain(hashSessionId(sessionId));
    expect(everything).not.toContain(sessionId);
  });

  it('without the flag the real id is shown (so the check above can fail)', async () => {
    const { s, sessionId, everything } = await run(false);
    expect([...s.store.sessions.values()].find((x) => x.transport === 'streamable-http')?.mcpSessionId).toBe(sessionId);
    expect(everything).toContain(sessionId);
  });
});
