// An official SDK client for test/e2e/hostile-schemas.test.ts, run in a worker thread so that its
// own work (the SDK parses a 3,000-property tools/list with zod) never counts as mcpscope's stall.
// workerData: { url, proxy?, warm: string[], calls: string[] } — lists the tools, calls each tool
// of `warm`, and posts { tools }; waits for a 'go' message, calls each named tool in order with plain requests (callTool would check the
// outputSchema itself, with a backtracking RegExp), and posts { results }; { error } on failure.
import { parentPort, workerData } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ProxyAgent, fetch as undiciFetch } from 'undici';

const { url, proxy, warm = [], calls } = workerData;
const agent = proxy ? new ProxyAgent({ uri: proxy, proxyTunnel: false }) : undefined;
const client = new Client({ name: 'hostile-schemas-test', version: '1.0.0' });
try {
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      agent ? { fetch: (input, init) => undiciFetch(input, { ...init, dispatcher: agent }) } : {},
    ),
  );
  const list = await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
  const call = (name) => client.request({ method: 'tools/call', params: { name, arguments: {} } }, CallToolResultSchema);
  for (const name of warm) await call(name);
  const go = new Promise((resolve) => parentPort.once('message', resolve));
  parentPort.postMessage({ tools: list.tools.map((t) => t.name) });
  await go;
  const results = [];
  for (const name of calls) results.push(await call(name));
  await client.close();
  parentPort.postMessage({ results });
} catch (err) {
  parentPort.postMessage({ error: String(err?.stack ?? err) });
} finally {
  await agent?.close();
}
