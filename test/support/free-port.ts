/** Ports for tests that must name one (a wrapper's UI port, a closed upstream). */
import { createServer } from 'node:net';

/** A port that was free a moment ago: bound by the OS on 127.0.0.1, then closed (nothing listens on it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
