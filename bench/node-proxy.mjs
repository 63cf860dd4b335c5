// The floor for a proxy hop in Node: node:http in, node:http out (keep-alive), bodies piped, no
// framework, no capture. bench/proxy.ts runs it as the "plain Node proxy" path so that the
// mcpscope figures can be read against what any Node proxy costs on the same machine.
//   node bench/node-proxy.mjs <upstream origin>   → prints {"proxy":"http://127.0.0.1:<port>"}
import { createServer, request, Agent } from 'node:http';

const upstream = new URL(process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const server = createServer((req, res) => {
  const out = request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
    (up) => {
      res.writeHead(up.statusCode, up.headers);
      if (String(up.headers['content-type']).startsWith('text/event-stream')) res.flushHeaders();
      up.pipe(res);
    },
  );
  out.on('error', () => res.destroy());
  res.on('close', () => out.destroy());
  req.pipe(out);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ proxy: `http://127.0.0.1:${server.address().port}` })}\n`));
// Any line, or stdin closing (the bench is gone, even if it was killed outright), ends it.
process.stdin.on('data', () => process.exit(0));
process.stdin.on('end', () => process.exit(0));
