/**
 * Finding an mcpscope that already serves a forward proxy with its UI on a port: the one the
 * discovery file `$MCPSCOPE_HOME/ui-<port>.json` names (proxy/app/serve/discovery.ts), if that file
 * passes the discovery checks (this user's, writable by nobody else, its process running and
 * this user's) and its proxy port accepts connections. `mcpscope run` joins it, so that every
 * command's traffic lands in the one UI; `mcpscope env` prints its variables.
 */
import { connect } from 'node:net';
import { inspectDiscovery } from '../serve/discovery.js';

export interface RunningForwardProxy {
  proxyUrl: string;
  uiUrl: string;
  token: string;
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

/**
 * The forward proxy to join, if any. `ignored` hears, in plain words, why a discovery file that
 * exists was not used (a file that is simply absent is not worth a word).
 */
export async function findForwardProxy(
  uiPort: number,
  env: NodeJS.ProcessEnv = process.env,
  ignored?: (reason: string) => void,
): Promise<RunningForwardProxy | undefined> {
  const found = inspectDiscovery(uiPort, env);
  if (!found.ok) {
    if (!found.missing) ignored?.(found.reason);
    return undefined;
  }
  const d = found.file;
  if (!d.forwardProxy) return undefined;
  if (!(await accepts(d.forwardProxy))) return undefined;
  return { proxyUrl: d.forwardProxy, uiUrl: d.url, token: d.token };
}
