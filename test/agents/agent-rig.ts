/**
 * What every real-client test sets up (claude-code.test.ts, gemini-cli.test.ts): a throwaway CA,
 * an HTTPS stand-in of the model API signed by it, server-everything, and a forward mcpscope
 * trusting that CA, with a --log file and a feed reader, its discovery file in a throwaway
 * MCPSCOPE_HOME (so that `mcpscope run` joins it); and a way to run the client.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';
import type { CaMaterial } from '../../proxy/wire/forward-proxy/ca.js';
import { makeTestCa, type TestCa } from '../support/tls-peers.js';
import { startEverythingServer, type RunningPeer } from '../support/peers.js';
import { collectFeed, type CollectedFeed } from '../support/feed.js';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function runProcess(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<Ran> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

export interface AgentRig<A> {
  ca: TestCa;
  /** The CA as a PEM file (NODE_EXTRA_CA_CERTS for a direct run). */
  caFile: string;
  api: A;
  se: RunningPeer;
  scope: McpscopeCore;
  feed: CollectedFeed;
  logFile: string;
  scopeHome: string;
  /** A throwaway folder, removed by close(). */
  tmp(prefix: string): string;
  close(): Promise<void>;
}

export async function startAgentRig<A extends { close(): Promise<void> }>(startApi: (tls: CaMaterial) => Promise<A>): Promise<AgentRig<A>> {
  const dirs: string[] = [];
  const tmp = (prefix: string) => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
  const ca = await makeTestCa();
  const caFile = join(ca.ca.dir, 'test-ca.pem');
  writeFileSync(caFile, ca.ca.certPem);
  const api = await startApi(ca.leaf);
  const se = await startEverythingServer('streamableHttp');
  const scopeHome = tmp('mcpscope-agents-home-');
  const logFile = join(tmp('mcpscope-agents-log-'), 'log.txt');
  process.env.MCPSCOPE_HOME = scopeHome;
  const scope = await startMcpscope({
    forward: { port: 0, upstreamCa: [ca.ca.certPem] },
    uiPort: 0,
    discoveryFile: true,
    log: { to: logFile, format: 'text', colour: false },
  });
  const feed = collectFeed(scope.ui!.url);
  return {
    ca,
    caFile,
    api,
    se,
    scope,
    feed,
    logFile,
    scopeHome,
    tmp,
    async close() {
      feed.close();
      await scope.close();
      await se.close();
      await api.close();
      ca.remove();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
}
