/**
 * One plain upstream with mcpscope in front of it both ways: a reverse proxy targeting it and a
 * forward proxy, neither with a UI. For tests of what each mode does to a request head.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { startMcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';

export interface BothModes {
  upstream: Server;
  upstreamPort: number;
  reverse: McpscopeCore;
  forward: McpscopeCore;
  close(): Promise<void>;
}

/** `handle` answers every request the upstream gets (its path is the key tests use). */
export async function startBothModes(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  setup?: (upstream: Server) => void,
): Promise<BothModes> {
  const upstream = createServer(handle);
  setup?.(upstream);
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const upstreamPort = (upstream.address() as AddressInfo).port;
  const reverse = await startMcpscope({ target: `http://127.0.0.1:${upstreamPort}/mcp`, port: 0, uiPort: false });
  const forward = await startMcpscope({ forward: { port: 0 }, uiPort: false });
  return {
    upstream,
    upstreamPort,
    reverse,
    forward,
    async close() {
      await reverse.close();
      await forward.close();
      upstream.close();
    },
  };
}
