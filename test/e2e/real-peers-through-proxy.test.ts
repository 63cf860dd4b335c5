/**
 * The proxy's acceptance against real peers: the official SDK client gets identical results
 * talking to @modelcontextprotocol/server-everything directly and through mcpscope, in
 * Streamable HTTP and legacy HTTP+SSE modes; the Inspector CLI works through it; and the
 * messages API shows every frame in wire order, correctly paired.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { MessageEvent, SessionInfo } from '../../proxy/core/model/events.js';
import { runInspectorCli, startEverythingServer, type RunningPeer } from '../support/peers.js';
import { LONG_STEPS, everythingScenario } from '../support/everything-scenario.js';

type Mode = 'streamableHttp' | 'sse';

const scenario = (url: string, mode: Mode) => everythingScenario(url, { clientName: 'mcpscope-acceptance', mode });

async function messagesOf(scope: Mcpscope, session: SessionInfo): Promise<MessageEvent[]> {
  const res = await fetch(`${scope.ui!.origin}/api/sessions/${session.id}/messages`, {
    headers: { authorization: `Bearer ${scope.token}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as MessageEvent[];
}

for (const mode of ['streamableHttp', 'sse'] as const) {
  describe(`server-everything (${mode}) through mcpscope`, () => {
    let peer: RunningPeer;
    let scope: Mcpscope;
    beforeAll(async () => {
      peer = await startEverythingServer(mode);
      scope = await startMcpscope({ target: peer.url, port: 0, uiPort: 0 });
    });
    afterAll(async () => {
      await scope?.close();
      await peer?.close();
    });

    it('gives the SDK client identical results direct and through the proxy', async () => {
      const direct = await scenario(peer.url, mode);
      const proxied = await scenario(scope.proxy.url, mode);
      expect(proxied).toEqual(direct);
      // Sanity: the scenario really exercised what it claims.
      expect(direct.tools).toContain('trigger-long-running-operation');
      expect(direct.completionOrder).toEqual(['fast', 'long']);
      expect(direct.progress.length).toBeGreaterThanOrEqual(LONG_STEPS - 1);
    });

    it('records every frame in wire order, paired, with all progress linked to its call', async () => {
      const sessions = await scope.waitFor((s) => {
        const done = [...s.sessions.values()].filter((x) => x.clientInfo?.name === 'mcpscope-acceptance' && x.status === 'closed');
        return done.length >= 1 ? done : undefined;
      }, 15_000);
      const session = sessions[0];
      expect(session.transport).toBe(mode === 'sse' ? 'legacy-sse' : 'streamable-http');
      expect(session.serverInfo?.name).toBeTruthy();
      expect(session.closeReason).toBe(mode === 'sse' ? 'client-closed-stream' : 'deleted');
      const messages = await messagesOf(scope, session);

      // Wire order: strictly increasing seq.
      for (let i = 1; i < messages.length; i++) expect(messages[i].seq).toBeGreaterThan(messages[i - 1].seq);
      expect(messages.every((m) => m.dir === 'c2s' || m.dir === 's2c')).toBe(true);

      const requests = messages.filter((m) => m.kind === 'request' && m.dir === 'c2s');
      expect(requests.map((r) => r.method)).toEqual([
        'initialize',
        'tools/list',
        'tools/call',
        'tools/call',
        'tools/call',
        'tools/call',
        'prompts/list',
        'resources/list',
        'ping',
      ]);
      // No response left unpaired; each pairs with the request of the same id, with a latency.
      const responses = messages.filter((m) => m.kind === 'response' || m.kind === 'error');
      expect(responses).toHaveLength(requests.length);
      for (const r of responses) {
        const req = messages.find((m) => m.seq === r.pair);
        expect(req, `response #${r.seq} is paired`).toBeDefined();
        expect(req!.id).toStrictEqual(r.id);
        expect(r.latencyMs).toBeGreaterThanOrEqual(0);
      }

      const longReq = requests.find((r) => r.name === 'trigger-long-running-operation')!;
      const longRes = responses.find((r) => r.pair === longReq.seq)!;
      expect(longRes.name).toBe('trigger-long-running-operation');
      expect(longRes.latencyMs).toBeGreaterThan(300);
      // Out of order: the fast echo issued after it completed first.
      const fastReq = requests.filter((r) => r.name === 'echo')[1];
      const fastRes = responses.find((r) => r.pair === fastReq.seq)!;
      expect(fastReq.seq).toBeGreaterThan(longReq.seq);
      expect(fastRes.seq).toBeLessThan(longRes.seq);

      // All progress notifications, in wire order, linked to the long call by its token.
      const progress = messages.filter((m) => m.method === 'notifications/progress');
      expect(progress).toHaveLength(LONG_STEPS);
      expect(progress.every((p) => p.pair === longReq.seq)).toBe(true);
      expect(progress.map((p) => p.progress?.progress)).toEqual([1, 2, 3, 4]);
      expect(progress.every((p) => p.seq < longRes.seq)).toBe(true);
      if (mode === 'streamableHttp') {
        // They rode on the long call's own POST stream.
        expect(progress.every((p) => p.carrier === 'post-sse' && p.parent === longReq.seq)).toBe(true);
      } else {
        expect(progress.every((p) => p.carrier === 'legacy-sse')).toBe(true);
      }
      // No protocol mistakes in a clean session.
      expect(messages.flatMap((m) => m.hints).filter((h) => h.level === 'error')).toEqual([]);
    });

    it('lets the MCP Inspector CLI work through the proxy', async () => {
      const transport = mode === 'sse' ? 'sse' : 'http';
      const list = await runInspectorCli({ url: scope.proxy.url, transport, method: 'tools/list' });
      expect(list.code, list.stderr).toBe(0);
      const names = (list.json as { tools: { name: string }[] }).tools.map((t) => t.name);
      expect(names).toContain('echo');
      const call = await runInspectorCli({
        url: scope.proxy.url,
        transport,
        method: 'tools/call',
        toolName: 'get-sum',
        toolArgs: { a: '40', b: '2' },
      });
      expect(call.code, call.stderr).toBe(0);
      expect(JSON.stringify(call.json)).toContain('The sum of 40 and 2 is 42.');
      const recorded = await scope.waitFor((s) => {
        const inspector = [...s.sessions.values()].filter((x) => x.clientInfo && x.clientInfo.name !== 'mcpscope-acceptance');
        const calls = inspector.flatMap((x) => s.messages(x.id)).filter((m) => m.kind === 'response' && m.name === 'get-sum');
        return calls.length > 0 ? calls : undefined;
      });
      expect(JSON.stringify(recorded[0].jsonrpc)).toContain('The sum of 40 and 2 is 42.');
    });
  });
}
