/**
 * `mcpscope run -- <client>` as a user runs it (the built CLI): an unmodified official-SDK client
 * script reaches an HTTPS MCP server at its real URL through the forward proxy, with the same
 * results as direct, every frame recorded and correlated, and nothing rewritten. `run` joins a
 * running forward mcpscope (found by its discovery file) or starts its own; the command's exit
 * code, signals and environment are as documented. Requires `npm run build` (npm test runs it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';
import type { McpscopeEvent, MessageEvent, SessionInfo } from '../../proxy/core/model/events.js';
import { makeTestCa, startSdkServer, type SdkServer, type TestCa } from '../support/tls-peers.js';
import { inspectorCliBin } from '../support/peers.js';
import { freePort } from '../support/free-port.js';

const hasPython = spawnSync('python3', ['--version']).status === 0;
const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const CLIENT = fileURLToPath(new URL('../support/sdk-client.mjs', import.meta.url));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd?: string,
): { child: ChildProcess; done: Promise<Ran>; stdout: () => string } {
  const child = spawn(process.execPath, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MCPSCOPE_TOKEN: '', ...env },
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const done = new Promise<Ran>((resolve) => child.once('close', (code) => resolve({ code, stdout: out, stderr: err })));
  return { child, done, stdout: () => out };
}

const run = (args: string[], env?: NodeJS.ProcessEnv, cwd?: string) => start(args, env, cwd).done;

let testCa: TestCa;
let server: SdkServer;
let caFile: string;
beforeAll(async () => {
  testCa = await makeTestCa();
  caFile = join(testCa.ca.dir, 'test-ca.pem');
  writeFileSync(caFile, testCa.ca.certPem);
  server = await startSdkServer({ tls: testCa.leaf });
});
afterAll(async () => {
  await server?.close();
  testCa?.remove();
});

describe('mcpscope run, joining a running forward mcpscope', () => {
  let scope: McpscopeCore;
  beforeAll(async () => {
    scope = await startMcpscope({ forward: { port: 0, upstreamCa: [testCa.ca.certPem] }, uiPort: 0, discoveryFile: true });
  });
  afterAll(async () => {
    await scope?.close();
  });

  it('gives an unmodified SDK client the same results as direct, records every frame correlated, and rewrites nothing', async () => {
    const direct = await run([CLIENT, server.url], { NODE_EXTRA_CA_CERTS: caFile });
    expect(direct.code, direct.stderr).toBe(0);
    const through = await run([BIN, 'run', '--ui-port', String(scope.ui!.port), '--', process.execPath, CLIENT, server.url]);
    expect(through.code, through.stderr).toBe(0);
    expect(JSON.parse(through.stdout)).toEqual(JSON.parse(direct.stdout));
    expect(JSON.parse(through.stdout).progress).toBe(1);
    // Joining: the URL printed opens the UI (its token included), as when run starts one itself.
    const printed = /open the UI: (http:\/\/\S+)/.exec(through.stderr)?.[1];
    expect(printed).toBe(`${scope.ui!.origin}/?token=${encodeURIComponent(scope.token)}`);
    expect((await fetch(printed!)).status).toBe(200);

    await scope.settle();
    const events = scope.store.snapshot() as McpscopeEvent[];
    const origin = `https://localhost:${server.port}`;
    const sessions = events
      .filter((e): e is Extract<McpscopeEvent, { type: 'session' }> => e.type === 'session')
      .map((e) => (e as { session: SessionInfo }).session);
    const session = sessions.find((s) => s.target === origin);
    expect(session, JSON.stringify(sessions)).toBeDefined();
    const messages = events.filter((e): e is MessageEvent => e.type === 'message' && e.sessionId === session!.id);
    const methods = messages.filter((m) => m.kind === 'request').map((m) => m.method);
    expect(methods).toEqual(['initialize', 'tools/list', 'tools/call', 'tools/call']);
    // Every request answered, each response paired with its request.
    for (const req of messages.filter((m) => m.kind === 'request'))
      expect(messages.some((m) => m.kind === 'response' && m.pair === req.seq)).toBe(true);
    // The progress notification is linked to the call that owns its token.
    const slow = messages.find((m) => m.kind === 'request' && m.method === 'tools/call' && m.name === 'slow')!;
    expect(messages.some((m) => m.method === 'notifications/progress' && m.pair === slow.seq)).toBe(true);
    expect(events.filter((e) => e.type === 'modification')).toEqual([]);
    expect(events.filter((e) => e.type === 'problem' && (e as { level: string }).level === 'error')).toEqual([]);
  });

  it('lets the MCP Inspector CLI reach the HTTPS server at its real URL', async () => {
    // (inspector-cli 1.0.3 runs only from its build/ directory: see runInspectorCli in test/support/peers.ts.)
    const r = await run(
      [
        BIN,
        'run',
        '--ui-port',
        String(scope.ui!.port),
        '--',
        process.execPath,
        inspectorCliBin,
        '--cli',
        server.url,
        '--transport',
        'http',
        '--method',
        'tools/list',
      ],
      {},
      join(inspectorCliBin, '..'),
    );
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort()).toEqual([
      'add',
      'echo',
      'hang',
      'progress-then-wait',
      'slow',
    ]);
    await scope.settle();
    const sessions = (scope.store.snapshot() as McpscopeEvent[])
      .filter((e) => e.type === 'session')
      .map((e) => (e as { session: SessionInfo }).session);
    expect(
      sessions.some((s) => s.target === `https://localhost:${server.port}` && /inspector/i.test(JSON.stringify(s.clientInfo ?? ''))),
    ).toBe(true);
  });

  it.runIf(hasPython)(
    'lets a Python client (stdlib urllib: HTTPS_PROXY + SSL_CERT_FILE, as httpx reads them) reach the HTTPS server through the proxy',
    async () => {
      const script = [
        'import json, sys, urllib.request, urllib.error',
        'req = urllib.request.Request(sys.argv[1], data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode(), headers={"content-type": "application/json", "accept": "application/json, text/event-stream"})',
        'try:',
        '    r = urllib.request.urlopen(req); print(r.status)',
        'except urllib.error.HTTPError as e:',
        '    print(e.code)',
      ].join('\n');
      const r = await run([BIN, 'run', '--ui-port', String(scope.ui!.port), '--', 'python3', '-c', script, server.url]);
      // The server answers a ping without a session 400; what matters is that Python trusted mcpscope's certificate and went through the proxy.
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toMatch(/^\d{3}$/);
      await scope.settle();
      const pings = (scope.store.snapshot() as McpscopeEvent[]).filter(
        (e) => e.type === 'message' && (e as MessageEvent).method === 'ping' && (e as MessageEvent).kind === 'request',
      );
      expect(pings.length).toBeGreaterThan(0);
    },
  );

  it('mcpscope env prints the same variables as shell exports for that proxy', async () => {
    const r = await run([BIN, 'env', '--ui-port', String(scope.ui!.port)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`export HTTPS_PROXY='${scope.forwardProxy!.origin}'`);
    expect(r.stdout).toContain(`export NO_PROXY='127.0.0.1:${scope.ui!.port},localhost:${scope.ui!.port},[::1]:${scope.ui!.port}'`);
    expect(r.stdout).toMatch(/export NODE_OPTIONS='--import "file:\/\/.*env-proxy-preload\.mjs"'/);
  });
});

describe('mcpscope run on its own', () => {
  it('starts a forward mcpscope for the command, prints its UI URL, and relays stdout and the exit code', async () => {
    const uiPort = await freePort();
    // The user's own extra CA (here: the upstream's) keeps working for mcpscope and the client.
    const r = await run([BIN, 'run', '--ui-port', String(uiPort), '--', process.execPath, CLIENT, server.url], {
      NODE_EXTRA_CA_CERTS: caFile,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).add).toEqual({ content: [{ type: 'text', text: '5' }] });
    expect(r.stderr).toContain(`open the UI: http://127.0.0.1:${uiPort}/?token=`);
  });

  it('sets the proxy environment for the command (given without "--", as `mcpscope run claude mcp list` is)', async () => {
    const uiPort = await freePort();
    const r = await run(
      [BIN, 'run', '--ui-port', String(uiPort), process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.env))'],
      { NO_PROXY: 'localhost' },
    );
    expect(r.code, r.stderr).toBe(0);
    const env = JSON.parse(r.stdout) as Record<string, string>;
    expect(env.HTTPS_PROXY).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(env.HTTP_PROXY).toBe(env.HTTPS_PROXY);
    expect(env.https_proxy).toBe(env.HTTPS_PROXY);
    expect(env.NO_PROXY).toBe(`127.0.0.1:${uiPort},localhost:${uiPort},[::1]:${uiPort}`);
    expect(r.stderr).toContain('NO_PROXY was "localhost"');
    expect(env.NODE_USE_ENV_PROXY).toBe('1');
    expect(env.NODE_EXTRA_CA_CERTS).toMatch(/ca\.pem$/);
    expect(env.SSL_CERT_FILE).toMatch(/trust-bundle\.pem$/);
    expect(env.REQUESTS_CA_BUNDLE).toBe(env.SSL_CERT_FILE);
    expect(env.NODE_OPTIONS).toContain('env-proxy-preload.mjs');
  });

  it("exits with the command's code, 127 for a missing command, and passes signals on", async () => {
    const uiPort = await freePort();
    expect((await run([BIN, 'run', '--ui-port', String(uiPort), '--', process.execPath, '-e', 'process.exit(7)'])).code).toBe(7);
    const missing = await run([BIN, 'run', '--ui-port', String(uiPort), '--', 'mcpscope-no-such-command']);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toContain('mcpscope-no-such-command: command not found');
    const long = start([
      BIN,
      'run',
      '--ui-port',
      String(uiPort),
      '--',
      process.execPath,
      '-e',
      'process.stdout.write("ready\\n"); setInterval(() => {}, 1000)',
    ]);
    await new Promise<void>((resolve) => {
      const check = () => (long.stdout().includes('ready') ? resolve() : undefined);
      long.child.stdout!.on('data', check);
      check();
    });
    long.child.kill('SIGTERM');
    expect((await long.done).code).toBe(128 + 15);
  });

  it('refuses a missing command and unknown options in plain words', async () => {
    const none = await run([BIN, 'run']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("which command? Give the client's command after the options");
    const bad = await run([BIN, 'run', '--intercept', 'a b', '--', 'true']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a host pattern');
  });
});
