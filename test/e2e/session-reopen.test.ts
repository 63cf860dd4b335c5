/**
 * A stateful server with no GET route (as a hand-written express app with only `app.post('/mcp')`
 * is) answers the SDK client's standalone GET stream with 404 — which on the wire says "this
 * session expired" — and goes on serving the session. mcpscope closes the session as expired at the
 * 404, then reopens it when the server answers it again (proxy/recorder/http-exchanges.ts,
 * RecorderContext.servedAgain): calls after it land in an open session, pair, and are linted.
 * Official SDK server (test/support/tls-peers.ts, `noGetRoute`) and client, real sockets.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { ExchangeInfo, LogEvent, MessageEvent, SessionInfo } from '../../proxy/core/model/events.js';
import { startSdkServer, type SdkServer } from '../support/tls-peers.js';

let upstream: SdkServer;
let scope: Mcpscope;

beforeAll(async () => {
  upstream = await startSdkServer({ noGetRoute: true });
  scope = await startMcpscope({ target: upstream.url, port: 0 });
});
afterAll(async () => {
  await scope?.close();
  await upstream?.close();
});

it('reopens the session the GET 404 closed as expired once the server answers it again', async () => {
  const client = new Client({ name: 'reopen-test', version: '1' }, { capabilities: {} });
  client.onerror = () => undefined; // the SDK reports the GET's 404 and goes on without a stream
  const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
  const sid = transport.sessionId; // (terminateSession forgets it)
  const sessionOf = (): SessionInfo | undefined => [...scope.store.sessions.values()].find((s) => s.mcpSessionId === sid);
  // The client opened its GET stream; the server said 404: the session was closed as expired.
  await scope.waitFor((store) =>
    store.snapshot().some((e) => e.type === 'exchange' && (e.exchange as ExchangeInfo).method === 'GET' && e.exchange.status === 404),
  );
  await scope.waitFor(() => sessionOf()?.closeReason === 'expired' || undefined);

  const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  expect(result.content).toEqual([{ type: 'text', text: '5' }]);
  const session = await scope.waitFor(() => {
    const s = sessionOf();
    return s?.status === 'open' && s.counts.pending === 0 ? s : undefined;
  });
  expect(session.closeReason).toBeUndefined();
  const events = scope.store.snapshot();
  const said = events.filter((e): e is LogEvent => e.type === 'log' && e.sessionId === session.id).map((e) => e.text);
  expect(said).toContainEqual(expect.stringContaining('mcpscope reopened it'));
  const messages = events.filter((e): e is MessageEvent => e.type === 'message' && e.sessionId === session.id);
  const call = messages.find((m) => m.kind === 'request' && m.method === 'tools/call')!;
  expect(messages.find((m) => m.kind === 'response' && m.pair === call.seq)).toBeDefined();

  await transport.terminateSession();
  await scope.waitFor(() => sessionOf()?.closeReason === 'deleted' || undefined);
  await client.close();
});
