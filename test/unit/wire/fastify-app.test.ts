/**
 * proxy/wire/forwarder/fastify-app.ts's server settings: the one time limit a proxy port has is on a
 * request's head (REQUEST_HEAD_TIMEOUT_MS; a client that opens connections and sends nothing, or
 * half a head, holds each for 60–90 s at most — measured on the built proxy: 408 after 60.0 s for
 * an empty connection and for a half head), and nothing times out a request, a body or a response,
 * so no call or stream is cut (docs/transparency.md, "Timing").
 */
import { describe, expect, it } from 'vitest';
import { createProxyApp, REQUEST_HEAD_TIMEOUT_MS, upstreamAgent } from '../../../proxy/wire/forwarder/fastify-app.js';

describe('the proxy apps’ time limits', () => {
  it('bound the request head only', async () => {
    const agent = upstreamAgent();
    const app = await createProxyApp({ agent, forward: () => undefined });
    try {
      expect(REQUEST_HEAD_TIMEOUT_MS).toBe(60_000);
      expect(app.server.headersTimeout).toBe(REQUEST_HEAD_TIMEOUT_MS);
      // A call, a body or a stream may take as long as it takes.
      expect(app.server.requestTimeout).toBe(0);
      expect(app.server.timeout).toBe(0);
    } finally {
      await app.close();
      await agent.close();
    }
  });
});
