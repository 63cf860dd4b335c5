// Preload for child processes started by the tests (`node --import <this file> <script> ...`).
//
// Servers such as @modelcontextprotocol/server-everything listen on `process.env.PORT` and, with
// PORT=0, never say which port the OS gave them. This preload hooks `net.Server.prototype.listen`
// so that every TCP server, once listening, writes one line to stderr:
//
//   MCPSCOPE_LISTENING <port>
//
// The test helper waits for that line instead of guessing a port or sleeping. Pipe/handle servers
// (no numeric port) are not reported.
//
// It also pins servers that listen without a host (`app.listen(PORT)`, which would bind every
// interface) to 127.0.0.1, or to MCPSCOPE_LISTEN_HOST when set: tests use loopback sockets only.
import net from 'node:net';
import { writeSync } from 'node:fs';

const host = process.env.MCPSCOPE_LISTEN_HOST || '127.0.0.1';
const originalListen = net.Server.prototype.listen;

function isPort(value) {
  return typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && /^\d+$/.test(value));
}

function withHost(args) {
  const [first, second] = args;
  // listen(port[, cb]) / listen(port, backlog[, cb]): insert the host after the port.
  if (isPort(first) && typeof second !== 'string') return [first, host, ...args.slice(1)];
  // listen(undefined | null[, cb]): random port on all interfaces.
  if ((first === undefined || first === null || typeof first === 'function') && args.length <= 1) {
    return typeof first === 'function' ? [0, host, first] : [0, host];
  }
  // listen({ port }[, cb]) without host.
  if (first && typeof first === 'object' && !(first instanceof net.Server) && 'port' in first && !first.host && !first.path) {
    return [{ ...first, host }, ...args.slice(1)];
  }
  return args;
}

net.Server.prototype.listen = function patchedListen(...args) {
  this.once('listening', () => {
    const address = this.address();
    if (address && typeof address === 'object' && typeof address.port === 'number') {
      // Synchronous write: the line must not wait in a stream buffer behind other output.
      writeSync(2, `MCPSCOPE_LISTENING ${address.port}\n`);
    }
  });
  return originalListen.apply(this, withHost(args));
};
