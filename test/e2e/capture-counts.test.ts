/**
 * The same session counts the same wherever it is opened: recorded live through the proxy (the
 * official SDK client against the demo server: calls, one of them cancelled with an AbortSignal →
 * notifications/cancelled, a tool error), then exported as a fixture, NDJSON and HAR and imported
 * again (`mcpscope open`, the UI's import). messages, requests, pending, errors and exchanges must
 * agree with the live session in all four.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { exportFixture } from '../../proxy/files/export/export-fixture.js';
import { exportHar } from '../../proxy/files/export/export-har.js';
import { exportNdjson } from '../../proxy/files/export/export-ndjson.js';
import { readCapture } from '../../proxy/files/import/import-capture.js';
import type { McpscopeEvent, SessionInfo } from '../../proxy/core/model/events.js';

let demo: DemoServer;
let scope: Mcpscope;
let live: SessionInfo;

const CLIENT = 'capture-counts';

/** The latest upsert of the one MCP session (not an `http` bucket) among imported events. */
function sessionIn(events: McpscopeEvent[]): SessionInfo {
  const latest = new Map<string, SessionInfo>();
  for (const e of events) if (e.type === 'session') latest.set(e.session.id, e.session);
  const mcp = [...latest.values()].filter((s) => s.transport !== 'http');
  expect(mcp).toHaveLength(1);
  return mcp[0];
}

beforeAll(async () => {
  demo = await startDemoServer({ port: 0 });
  scope = await startMcpscope({ target: demo.url, port: 0, uiPort: false });
  const client = new Client({ name: CLIENT, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
  await client.callTool({ name: 'echo', arguments: { message: 'count me' } });
  // A call cancelled by the client once the server has started on it (its first progress arrived).
  const controller = new AbortController();
  let started!: () => void;
  const progressed = new Promise<void>((resolve) => (started = resolve));
  const cancelled = client.callTool({ name: 'slow_task', arguments: { steps: 20, delayMs: 100 } }, undefined, {
    signal: controller.signal,
    onprogress: () => started(),
  });
  await progressed;
  controller.abort('changed my mind');
  await expect(cancelled).rejects.toThrow();
  await client.callTool({ name: 'echo', arguments: { message: 'after the cancel' } });
  await transport.terminateSession();
  await client.close();
  live = await scope.waitFor((store) => {
    const s = [...store.sessions.values()].find((x) => x.clientInfo?.name === CLIENT);
    return s && s.status === 'closed' && store.snapshot().some((e) => e.type === 'message' && e.method === 'notifications/cancelled')
      ? s
      : undefined;
  });
});

afterAll(async () => {
  await scope?.close();
  await demo?.close();
});

describe('session counts survive every export and import', () => {
  it('live: the cancelled call is not pending', () => {
    expect(live.counts.pending).toBe(0);
    expect(live.counts.requests).toBeGreaterThanOrEqual(4);
    const cancel = [...scope.store.messages(live.id)].find((m) => m.method === 'notifications/cancelled')!;
    expect(cancel.pair).toBeDefined();
  });

  it.each(['fixture', 'ndjson', 'har'] as const)('%s: the imported session counts what the live one did', (format) => {
    const text =
      format === 'fixture'
        ? JSON.stringify(exportFixture(scope.store, live.id))
        : format === 'ndjson'
          ? exportNdjson(scope.store, live.id)
          : JSON.stringify(exportHar(scope.store, live.id));
    const imported = readCapture(text);
    expect(imported.kind).toBe(format);
    expect(sessionIn(imported.events).counts).toEqual(live.counts);
  });
});
