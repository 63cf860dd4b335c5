#!/usr/bin/env node
// Reverse-proxy mode of `npm run conformance` (conformance/run.mjs):
//
//   node conformance/reverse-client.mjs <server-url>
//
// Starts an mcpscope reverse proxy (the built package, dist/) whose target is <server-url>, runs the
// client under test (conformance/client.mjs) against http://localhost:<proxy port><same path and
// query> — `localhost`, as a user would type it, not 127.0.0.1 — relays its stdio and exit code,
// and closes the proxy. The MCP_CONFORMANCE_* variables pass through untouched.
//
// MCPSCOPE_CONFORMANCE_RECORD=<file>: also write what mcpscope recorded (NDJSON, redacted) there.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { constants } from 'node:os';

const here = new URL('.', import.meta.url);
const clientPath = fileURLToPath(new URL('client.mjs', here));

const target = process.argv[2];
if (!target) {
  console.error('usage: node conformance/reverse-client.mjs <server-url>');
  process.exit(2);
}

let startMcpscope;
try {
  ({ startMcpscope } = await import(new URL('../dist/proxy/app/mcpscope.js', here).href));
} catch (error) {
  console.error(`[reverse] cannot load mcpscope from dist/ (run \`npm run build\`): ${error.message}`);
  process.exit(2);
}

const scope = await startMcpscope({
  target,
  port: 0,
  uiPort: false,
  ...(process.env.MCPSCOPE_CONFORMANCE_RECORD ? { recordFile: process.env.MCPSCOPE_CONFORMANCE_RECORD } : {}),
});

const upstream = new URL(target);
const proxied = `http://localhost:${scope.proxy.port}${upstream.pathname === '/' && !target.endsWith('/') ? '' : upstream.pathname}${upstream.search}`;
console.error(`[reverse] mcpscope ${proxied} → ${target}`);

let closing;
async function closeProxy() {
  closing ??= (async () => {
    await scope.settle?.().catch(() => undefined);
    await scope.close().catch((error) => console.error('[reverse] closing mcpscope:', error.message));
  })();
  return closing;
}

const child = spawn(process.execPath, [clientPath, proxied], { stdio: 'inherit', env: process.env });

// The suite ends a client that runs past its timeout with SIGTERM: pass it on.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    else closeProxy().then(() => process.exit(1));
  });
}

child.on('error', async (error) => {
  console.error('[reverse] could not start the client:', error.message);
  await closeProxy();
  process.exit(1);
});

child.on('exit', async (code, signal) => {
  await closeProxy();
  process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
});
