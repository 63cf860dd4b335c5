/**
 * Several upstreams at once (`--target name=url` repeated): each gets its own proxy port and
 * all are recorded into one store and UI, each session naming its upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startEverythingServer, type RunningPeer } from '../support/peers.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { SessionInfo } from '../../proxy/core/model/events.js';

let demo: DemoServer;
let everything: RunningPeer;
let scope: Mcpscope;

beforeAll(async () => {
  demo = await startDemoServer({ port: 0 });
  everything = await startEverythingServer('streamableHttp');
  scope = await startMcpscope({
    target: demo.url,
    targetName: 'demo',
    moreTargets: [{ name: 'everything', target: everything.url }],
    port: 0,
    uiPort: 0,
  });
});
afterAll(async () => {
  await scope?.close();
  await demo?.close();
  await everything?.close();
});

async function callThrough(url: string, tool: string, args: Record<string, unknown>): Promise<unknown> {
  const client = new Client({ name: `multi-${tool}`, version: '1' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  try {
    return await client.callTool({ name: tool, arguments: args });
  } finally {
    await transport.terminateSession();
    await client.close();
  }
}

describe('several upstreams in one mcpscope', () => {
  it('gives each upstream its own proxy port and names it on its sessions', async () => {
    expect(scope.proxies).toHaveLength(2);
    const [p1, p2] = scope.proxies;
    expect(p1.port).not.toBe(p2.port);
    expect(JSON.stringify(await callThrough(p1.url, 'add', { a: 2, b: 3 }))).toContain('5');
    expect(JSON.stringify(await callThrough(p2.url, 'get-sum', { a: 2, b: 3 }))).toContain('The sum of 2 and 3 is 5.');
    const sessions = await scope.waitFor((s) => {
      const done = [...s.sessions.values()].filter((x) => x.status === 'closed');
      return done.length >= 2 ? done : undefined;
    });
    const byName = new Map<string | undefined, SessionInfo>(sessions.map((x) => [x.targetName, x]));
    expect(byName.get('demo')?.serverInfo?.name).toBe('mcpscope-demo');
    expect(byName.get('demo')?.target).toBe(demo.url);
    expect(byName.get('everything')?.target).toBe(everything.url);
    expect(byName.get('everything')?.serverInfo?.name).not.toBe('mcpscope-demo');
    // Both show up in the one API.
    const res = await fetch(`${scope.ui!.origin}/api/sessions`, { headers: { authorization: `Bearer ${scope.token}` } });
    const listed = (await res.json()) as SessionInfo[];
    expect(new Set(listed.map((x) => x.targetName))).toEqual(new Set(['demo', 'everything']));
  });
});
