// The upstream for bench/streams.ts, in its own process: every GET /mcp is an SSE stream that
// sends one event at once and then stays open; POST /mcp answers an initialize with JSON.
//   node bench/stream-upstream.mjs      prints {origin}; stdin: `count` → {open}; stdin closed → exits
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';

let open = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET') {
    const n = ++open;
    res.on('close', () => open--);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(`id: ${n}\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"stream ${n}"}}\n\n`);
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const { id } = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'bench-streams' });
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'bench-streams', version: '1' } },
      }),
    );
  });
});
server.keepAliveTimeout = 0;
server.headersTimeout = 0;
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ proxy: `http://127.0.0.1:${server.address().port}` })}\n`));
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === 'count') process.stdout.write(`${JSON.stringify({ open })}\n`);
  if (line.trim() === 'close') process.exit(0);
}
process.exit(0);
