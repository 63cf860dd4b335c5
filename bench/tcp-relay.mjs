// The floor for any proxy process: bytes copied between two sockets, no HTTP parsing at all (one
// upstream connection per client connection, so keep-alive pairs 1:1). bench/proxy.ts runs it as
// the "TCP relay" path. A proxy that has to see HTTP (check Host and Origin, rewrite the legacy
// `endpoint` event and OAuth URLs, record each exchange) parses and re-serializes every message,
// which costs more; "plain Node proxy" (bench/node-proxy.mjs) is that floor for Node.
//   node bench/tcp-relay.mjs <upstream origin>   → prints {"proxy":"http://127.0.0.1:<port>"}
import { createServer, connect } from 'node:net';

const upstream = new URL(process.argv[2]);
const server = createServer((client) => {
  const up = connect({ host: upstream.hostname, port: Number(upstream.port) });
  client.setNoDelay(true);
  up.setNoDelay(true);
  client.pipe(up);
  up.pipe(client);
  const close = () => {
    client.destroy();
    up.destroy();
  };
  for (const s of [client, up]) {
    s.on('error', close);
    s.on('close', close);
  }
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ proxy: `http://127.0.0.1:${server.address().port}` })}\n`));
// Any line, or stdin closing (the bench is gone, even if it was killed outright), ends it.
process.stdin.on('data', () => process.exit(0));
process.stdin.on('end', () => process.exit(0));
