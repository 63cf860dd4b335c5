// A plain official-SDK client, as a user would write it: no proxy code at all. Connects to the
// Streamable HTTP URL in argv[2], lists tools, calls add(2, 3) and slow(50) with progress, and
// prints what it got as one JSON line on stdout. Exit 1 with the error on stderr on failure.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = new URL(process.argv[2]);
const client = new Client({ name: 'sdk-client', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(url);
try {
  await client.connect(transport);
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  let progress = 0;
  const slow = await client.callTool({ name: 'slow', arguments: { ms: 50 } }, undefined, { onprogress: () => (progress += 1) });
  process.stdout.write(`${JSON.stringify({ server: client.getServerVersion(), tools, add, slow, progress })}\n`);
  await transport.terminateSession();
  await client.close();
} catch (err) {
  process.stderr.write(`sdk-client: ${err?.stack ?? err}\n`);
  process.exit(1);
}
