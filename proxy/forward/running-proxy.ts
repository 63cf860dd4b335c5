/**
 * Finding an mcpscope that already serves a forward proxy with its UI on a port: the one the
 * discovery file `$MCPSCOPE_HOME/ui-<port>.json` names (proxy/serve/discovery.ts), if its
 * process is alive and its proxy port accepts connections. `mcpscope run` joins it, so that
 * every command's traffic lands in the one UI; `mcpscope env` prints its variables.
 */
import { connect } from 'node:net';
import { readDiscovery } from '../serve/discovery.js';

export interface RunningForwardProxy {
  proxyUrl: string;
  uiUrl: string;
  token: string;
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function accepts(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function findForwardProxy(uiPort: number, env: NodeJS.ProcessEnv = process.env): Promise<RunningForwardProxy | undefined> {
  const d = readDiscovery(uiPort, env);
  if (!d?.forwardProxy || !alive(d.pid)) return undefined;
  if (!(await accepts(d.forwardProxy))) return undefined;
  return { proxyUrl: d.forwardProxy, uiUrl: d.url, token: d.token };
}
