/**
 * `mcpscope env [--ui-port U]`: prints, as shell exports, the variables that put a client behind
 * the mcpscope forward proxy running with its UI on U (the ones `mcpscope run` sets):
 * `eval "$(mcpscope env)"`, then start clients from that shell.
 */
import { loadOrCreateCa } from '../../wire/forward-proxy/ca.js';
import { clientEnv, shellExports } from '../../wire/forward-proxy/client-env.js';
import { findForwardProxy } from './running-proxy.js';
import { parseUiPortArgs } from './ui-port-args.js';

export async function main(argv: string[]): Promise<number> {
  const args = parseUiPortArgs(argv, 'env');
  if (typeof args === 'number') return args;
  const { uiPort } = args;
  // A discovery file that exists but is not used (others could have written it, its process is gone…): say why.
  let ignored: string | undefined;
  const running = await findForwardProxy(uiPort, process.env, (why) => (ignored = why));
  if (!running) {
    const why = ignored
      ? `not using the mcpscope on UI port ${uiPort}: ${ignored}`
      : `no mcpscope forward proxy is running with its UI on port ${uiPort}`;
    process.stderr.write(
      `mcpscope env: ${why}. Start one with \`mcpscope --forward\` (or use \`mcpscope run -- <command>\`, which needs none).\n`,
    );
    return 1;
  }
  const ca = await loadOrCreateCa();
  const env = clientEnv({ proxyUrl: running.proxyUrl, uiPort, ca });
  process.stdout.write(`# mcpscope forward proxy ${running.proxyUrl}, UI ${running.uiUrl}\n${shellExports(env.set)}\n`);
  for (const note of env.notes) process.stderr.write(`mcpscope: ${note}\n`);
  return 0;
}
