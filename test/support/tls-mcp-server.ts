/**
 * An official-SDK Streamable HTTP MCP server over HTTPS, with a certificate from a test CA made
 * for the test (mcpscope's own CA code, in a throwaway home: a CA nobody trusts by default).
 * Tools: `add` (a + b), and `slow` (sends a progress notification, then answers after `ms`).
 */
import { createServer, type Server } from 'node:https';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { LeafIssuer, loadOrCreateCa, type LocalCa } from '../../proxy/forward/ca.js';

export async function makeTestCa(): Promise<LocalCa> {
  return loadOrCreateCa({ env: { MCPSCOPE_HOME: mkdtempSync(join(tmpdir(), 'mcpscope-test-ca-')) } });
}

export interface HttpsMcpServer {
  /** https://localhost:<port>/mcp */
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

export async function startHttpsMcpServer(ca: LocalCa, host = 'localhost'): Promise<HttpsMcpServer> {
  const leaf = await new LeafIssuer(ca).leafFor(host);
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const server = createServer({ key: leaf.keyPem, cert: leaf.certPem }, (req, res) => {
    void (async () => {
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (!transport) {
        const t = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => void transports.set(id, t) });
        t.onclose = () => {
          if (t.sessionId) transports.delete(t.sessionId);
        };
        const mcp = new McpServer({ name: 'https-test-server', version: '1.0.0' });
        mcp.registerTool('add', { description: 'a + b', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
        mcp.registerTool('slow', { description: 'progress, then an answer after ms', inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
          const token = extra._meta?.progressToken;
          if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } });
          await new Promise((r) => setTimeout(r, ms));
          return { content: [{ type: 'text', text: `slept ${ms}` }] };
        });
        await mcp.connect(t);
        transport = t;
      }
      await transport.handleRequest(req, res);
    })().catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500).end(err.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://${host}:${port}/mcp`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
