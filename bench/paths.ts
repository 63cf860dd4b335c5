/**
 * The paths of bench/proxy.ts: every party started in its own process, and the client's route to
 * the upstream through each. See bench/proxy.ts's header for what each path is.
 *
 * Every path's client uses the same fetch (undici's, the package mcpscope depends on) with a
 * dispatcher of its own, so that only the route differs: a plain Agent (the reverse paths, and the
 * TLS paths with the throwaway CA trusted), a ProxyAgent sending absolute-form requests
 * (`proxyTunnel: false`: mcpscope forward (HTTP)), or a ProxyAgent tunnelling through CONNECT with
 * mcpscope's CA trusted (mcpscope forward (TLS)).
 *
 * Nothing here touches the user's ~/.mcpscope: the throwaway upstream CA and every mcpscope child's
 * MCPSCOPE_HOME (the forward child's own CA) live in a temporary directory, removed at exit.
 */
import { spawn, execSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, ProxyAgent, fetch as undiciFetch, type Dispatcher } from 'undici';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LeafIssuer, loadOrCreateCa } from '../proxy/wire/forward-proxy/ca.js';
import { killOnExit, startScopeChild, type ScopeChild } from './support.js';

export interface Path {
  name: string;
  /** The URL the client uses: the proxy's for a reverse path, the server's own for a forward one. */
  url: string;
  /** The client's fetch: undici's, with this path's dispatcher. */
  fetch: FetchLike;
  scope?: ScopeChild;
  /** How the child behind `scope` was started (workload 4 starts a fresh one the same way). */
  childEnv?: Record<string, string>;
  /** The process whose CPU is counted as the proxy's. */
  pid?: number;
  /** The UI-like feed consumer connected to this path's mcpscope (its CPU is reported beside). */
  feed?: ScopeChild;
  /** The path its ratios are taken against: direct, or direct (TLS) for the TLS paths; none for direct. */
  base?: Path;
  /** More paths it is compared with, in the latency and throughput rows. */
  vs?: Path[];
}

export interface Paths {
  /** Every path, in the order a round runs them (reversed every other round). */
  all: Path[];
  direct: Path;
  mcpscope: Path;
  mcpscopeBare: Path;
  plainNode: Path;
  /** The paths workloads 4 (large) and 5 (capture) use: the reverse ones, over plain HTTP. */
  reverse: Path[];
  /** The plain HTTP upstream's origin (workload 4's fresh mcpscope children point there). */
  upstreamOrigin: string;
  /** How workload 4 starts a fresh mcpscope child. */
  childScript: URL;
  nodeArgs: string[];
  mitmVersion: string;
  /** Feed messages each consumer received, by path. */
  feedCounts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

const withDispatcher = (dispatcher: Dispatcher): FetchLike =>
  ((url: string | URL, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher })) as unknown as FetchLike;

export async function startPaths(options: { mitm: boolean }): Promise<Paths> {
  const tmp = mkdtempSync(join(tmpdir(), 'mcpscope-bench-'));
  process.once('exit', () => rmSync(tmp, { recursive: true, force: true }));
  const home = { MCPSCOPE_HOME: join(tmp, 'scope-home') };

  // ---------------------------------------------------------------- the upstream (official SDK)

  // A throwaway CA for the upstream's HTTPS listener (mcpscope's CA code, in a home of its own):
  // trusted by the client (direct (TLS), TCP relay (TLS)) and by the forward mcpscope (`upstreamCa`).
  const upstreamCa = await loadOrCreateCa({ env: { MCPSCOPE_HOME: join(tmp, 'upstream-ca') } });
  const leaf = await new LeafIssuer(upstreamCa).leafFor('localhost');
  // Alone in its process (bench/upstream.ts), as a real MCP server is: the client, the proxy and the
  // server then each have their own event loop, as they would on a developer's machine.
  const upstreamChild = await startScopeChild('', {
    script: new URL('./upstream.ts', import.meta.url),
    nodeArgs: ['--import', 'tsx'],
    env: { BENCH_TLS_KEY: leaf.keyPem, BENCH_TLS_CERT: leaf.certPem },
  });
  const upstreamOrigin = upstreamChild.proxy;
  const upstreamTls = upstreamChild.ready.tls as string;

  const plain = withDispatcher(new Agent());
  const trustingUpstreamCa = withDispatcher(new Agent({ connect: { ca: upstreamCa.certPem } }));

  // ---------------------------------------------------------------- mcpscope, reverse

  // BENCH_CPU_PROF=<dir>: the mcpscope children write V8 CPU profiles there when they exit.
  const prof = process.env.BENCH_CPU_PROF;
  const nodeArgs = [
    '--expose-gc',
    ...(process.env.BENCH_SCOPE_NODE_ARGS ? process.env.BENCH_SCOPE_NODE_ARGS.split(' ') : []),
    ...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : []),
  ];
  const childScript = new URL('./scope-child.mjs', import.meta.url);
  const uiEnv = { ...home, SCOPE_CHILD_UI: '1' };
  const bareEnv = { ...home, SCOPE_CHILD_UI: '0', SCOPE_CHILD_RECORD: '0' };
  const scopeUi = await startScopeChild(`${upstreamOrigin}/mcp`, { script: childScript, nodeArgs, env: uiEnv });
  const scopeBare = await startScopeChild(`${upstreamOrigin}/mcp`, { script: childScript, nodeArgs, env: bareEnv });
  // A UI-like consumer of the feed, parsing every message as the UI does — in its own process, as a
  // browser tab is (bench/feed-consumer.mjs).
  const feedFor = (scope: ScopeChild) =>
    startScopeChild(`${(scope.ready.ui as string).replace('http', 'ws')}/ws`, {
      script: new URL('./feed-consumer.mjs', import.meta.url),
      nodeArgs: [],
      args: ['bench'],
    });
  const feedUi = await feedFor(scopeUi);

  const direct: Path = { name: 'direct', url: `${upstreamOrigin}/mcp`, fetch: plain };
  const mcpscope: Path = {
    name: 'mcpscope',
    url: `${scopeUi.proxy}/mcp`,
    fetch: plain,
    scope: scopeUi,
    childEnv: uiEnv,
    pid: scopeUi.pid,
    feed: feedUi,
    base: direct,
  };
  /** A variant of the mcpscope path (its own child, UI and feed consumer), read against mcpscope. */
  const variant = async (name: string, extraEnv: Record<string, string>) => {
    const env = { ...uiEnv, ...extraEnv };
    const scope = await startScopeChild(`${upstreamOrigin}/mcp`, { script: childScript, nodeArgs, env });
    const feed = await feedFor(scope);
    const path: Path = {
      name,
      url: `${scope.proxy}/mcp`,
      fetch: plain,
      scope,
      childEnv: env,
      pid: scope.pid,
      feed,
      base: direct,
      vs: [mcpscope],
    };
    return { path, scope, feed };
  };
  // The mcpscope path with one breakpoint rule that never matches (SCOPE_CHILD_BREAKPOINT=1): what
  // having breakpoints on costs — POST bodies read whole before they go on, JSON answers before
  // their head, SSE streams event by event — next to the same path without rules.
  const bp = await variant('mcpscope + breakpoint rule', { SCOPE_CHILD_BREAKPOINT: '1' });
  // The mcpscope path without the spec linter (SCOPE_CHILD_LINT=off): what linting every message costs.
  const lintOff = await variant('mcpscope --lint off', { SCOPE_CHILD_LINT: 'off' });
  const mcpscopeBp = bp.path;
  const mcpscopeLintOff = lintOff.path;
  // Forwarding only (capture off): the cost of the proxy hop itself, without the recorder.
  const mcpscopeBare: Path = {
    name: 'mcpscope forward-only',
    url: `${scopeBare.proxy}/mcp`,
    fetch: plain,
    scope: scopeBare,
    childEnv: bareEnv,
    pid: scopeBare.pid,
    base: direct,
  };

  // ---------------------------------------------------------------- the floors

  // The same hop with nothing but node:http (bench/node-proxy.mjs): what any Node proxy costs here.
  const nodeProxy = await startScopeChild(upstreamOrigin, { script: new URL('./node-proxy.mjs', import.meta.url), nodeArgs: [] });
  const plainNode: Path = { name: 'plain Node proxy', url: `${nodeProxy.proxy}/mcp`, fetch: plain, pid: nodeProxy.pid, base: direct };
  // Bytes copied between two sockets, no HTTP at all (bench/tcp-relay.mjs): what a process hop costs here.
  const relay = await startScopeChild(upstreamOrigin, { script: new URL('./tcp-relay.mjs', import.meta.url), nodeArgs: [] });
  const tcpRelay: Path = { name: 'TCP relay', url: `${relay.proxy}/mcp`, fetch: plain, pid: relay.pid, base: direct };

  // ---------------------------------------------------------------- TLS, direct and relayed

  const directTls: Path = { name: 'direct (TLS)', url: `${upstreamTls}/mcp`, fetch: trustingUpstreamCa, base: direct };
  // The relay in front of the HTTPS listener: the client speaks TLS end to end through it (its
  // certificate is for localhost, whatever the port), so this is the floor of a hop for HTTPS.
  const relayTlsChild = await startScopeChild(upstreamTls, { script: new URL('./tcp-relay.mjs', import.meta.url), nodeArgs: [] });
  const tcpRelayTls: Path = {
    name: 'TCP relay (TLS)',
    url: `https://localhost:${new URL(relayTlsChild.proxy).port}/mcp`,
    fetch: trustingUpstreamCa,
    pid: relayTlsChild.pid,
    base: directTls,
  };

  // ---------------------------------------------------------------- mcpscope, forward

  // What `mcpscope --forward` runs, set up as the mcpscope path is (capture, recorder, store, UI
  // server, a feed consumer connected), with its CA in the temporary home and the upstream's
  // throwaway CA trusted. One child for both forward paths, as a user's HTTP(S)_PROXY would be.
  const fwdEnv = { ...uiEnv, SCOPE_CHILD_FORWARD: '1', SCOPE_CHILD_UPSTREAM_CA: upstreamCa.certPem };
  const scopeFwd = await startScopeChild('', { script: childScript, nodeArgs, env: fwdEnv });
  const feedFwd = await feedFor(scopeFwd);
  const fwdOrigin = scopeFwd.proxy;
  // Absolute-form requests (`POST http://127.0.0.1:<port>/mcp`), no CONNECT.
  const mcpscopeFwd: Path = {
    name: 'mcpscope forward (HTTP)',
    url: direct.url,
    fetch: withDispatcher(new ProxyAgent({ uri: fwdOrigin, proxyTunnel: false })),
    scope: scopeFwd,
    pid: scopeFwd.pid,
    feed: feedFwd,
    base: direct,
    vs: [tcpRelay, mcpscope],
  };
  // CONNECT localhost:<port>, decrypted with mcpscope's CA (trusted by the client), re-encrypted to the upstream.
  const mcpscopeFwdTls: Path = {
    name: 'mcpscope forward (TLS)',
    url: directTls.url,
    fetch: withDispatcher(new ProxyAgent({ uri: fwdOrigin, requestTls: { ca: scopeFwd.ready.caPem as string } })),
    scope: scopeFwd,
    pid: scopeFwd.pid,
    feed: feedFwd,
    base: directTls,
    vs: [tcpRelayTls],
  };

  // ---------------------------------------------------------------- mitmproxy, when installed

  let mitmVersion = 'not installed';
  let mitmPath: Path | undefined;
  let stopMitm = () => {};
  const hasMitm =
    options.mitm &&
    (() => {
      try {
        execSync('command -v mitmdump', { stdio: 'ignore', shell: '/bin/sh' });
        return true;
      } catch {
        return false;
      }
    })();
  if (hasMitm) {
    const port = 20000 + Math.floor(Math.random() * 20000);
    mitmVersion = execSync('mitmdump --version')
      .toString()
      .split('\n')[0]!
      .replace(/^mitmproxy:\s*/i, '')
      .trim();
    const mitm = spawn('mitmdump', ['--mode', `reverse:${upstreamOrigin}`, '-p', String(port), '-q'], { stdio: 'ignore' });
    killOnExit(mitm);
    stopMitm = () => mitm.kill();
    const url = `http://127.0.0.1:${port}/mcp`;
    for (let i = 0; i < 100; i++) {
      try {
        await fetch(url, { method: 'GET' });
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    mitmPath = { name: 'mitmproxy', url, fetch: plain, pid: mitm.pid, base: direct };
  } else if (options.mitm) {
    console.log('mitmproxy: not installed (apt-get install mitmproxy)');
  }

  const reverse = [direct, mcpscope, mcpscopeBare, plainNode, tcpRelay, ...(mitmPath ? [mitmPath] : [])];
  return {
    // Each path beside the one it is read against: forward (HTTP) next to mcpscope, the TLS paths together.
    all: [
      direct,
      mcpscope,
      mcpscopeBp,
      mcpscopeLintOff,
      mcpscopeFwd,
      mcpscopeBare,
      plainNode,
      tcpRelay,
      directTls,
      mcpscopeFwdTls,
      tcpRelayTls,
      ...(mitmPath ? [mitmPath] : []),
    ],
    direct,
    mcpscope,
    mcpscopeBare,
    plainNode,
    reverse,
    upstreamOrigin,
    childScript,
    nodeArgs,
    mitmVersion,
    async feedCounts() {
      return {
        [mcpscope.name]: Number((await feedUi.ask('count')).messages),
        'mcpscope forward': Number((await feedFwd.ask('count')).messages),
        [mcpscopeBp.name]: Number((await bp.feed.ask('count')).messages),
        [mcpscopeLintOff.name]: Number((await lintOff.feed.ask('count')).messages),
      };
    },
    async close() {
      await Promise.all([feedUi.close(), feedFwd.close(), bp.feed.close(), lintOff.feed.close()]);
      await upstreamChild.close();
      for (const c of [nodeProxy, relay, relayTlsChild]) c.process.kill();
      await Promise.all([scopeUi.close(), scopeBare.close(), scopeFwd.close(), bp.scope.close(), lintOff.scope.close()]);
      stopMitm();
    },
  };
}
