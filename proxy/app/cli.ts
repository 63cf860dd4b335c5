/**
 * The `mcpscope` command.
 *
 *   mcpscope                      the embedded demo: a demo MCP server, mcpscope in front of it,
 *                                 and a scripted client producing traffic — open the printed UI URL
 *   mcpscope --target URL         the real job: proxy URL's origin and record everything
 *   mcpscope -- <command> [args]  wrap a stdio server (proxy/app/stdio/stdio-wrapper.ts); its records
 *                                 go to the UI on --ui-port
 *   mcpscope --forward            a forward proxy (HTTP_PROXY/HTTPS_PROXY, TLS decrypted with
 *                                 mcpscope's CA): clients keep the server's real URL
 *   mcpscope run -- <command>     run a client behind the forward proxy (proxy/app/commands/run.ts)
 *   mcpscope mcp                  a stdio MCP server that lets a coding agent read the recorded traffic (proxy/app/commands/mcp.ts)
 *
 * The servers (mcpscope.js) are loaded only when needed: a wrapper starts its server first.
 */
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import type { McpscopeCore } from './mcpscope.js';
import { packageVersion } from '../files/package-version.js';
import { DEFAULT_PROXY_PORT, DEFAULT_UI_PORT } from '../wire/ports.js';
import { openLogFile } from '../files/export/log-option.js';
import { installLastResort } from '../wire/last-resort.js';
import { findOnPath, splitCommandLine } from './command-line.js';
import { OPTIONS, SUBCOMMANDS, type Values } from './cli-options.js';
import type { Subcommand } from './cli-commands.js';
import { parseCommand } from './cli-parse.js';
import { helpText } from './cli-help.js';

let lastResortRedact: ((text: string) => string) | undefined;

export { DEFAULT_UI_PORT, DEFAULT_PROXY_PORT };

/**
 * The default ports of the main command, `<proxy>,<ui>`, from MCPSCOPE_TEST_DEFAULT_PORTS: for
 * tests only (they cannot count on 6480/6481 being free, nor taken), to exercise what happens when
 * a default port is busy.
 */
function defaultPorts(): { proxy: number; ui: number } {
  const m = /^(\d+),(\d+)$/.exec(process.env.MCPSCOPE_TEST_DEFAULT_PORTS ?? '');
  return m ? { proxy: Number(m[1]), ui: Number(m[2]) } : { proxy: DEFAULT_PROXY_PORT, ui: DEFAULT_UI_PORT };
}

/** The port an EADDRINUSE error names (`listen EADDRINUSE: address already in use 127.0.0.1:6481`). */
function busyPortOf(e: NodeJS.ErrnoException & { port?: unknown }): number | undefined {
  if (typeof e.port === 'number') return e.port;
  const m = /:(\d+)\s*$/.exec(e.message);
  return m ? Number(m[1]) : undefined;
}

function fail(message: string): never {
  process.stderr.write(`mcpscope: ${message}\n`);
  process.exit(2);
}

/** The parsed options of `command`; answers --help/--version, or says what is wrong and exits 2. */
function parseOptions<C extends 'main' | 'wrapper'>(command: C, args: string[]): Values<C> | undefined {
  const parsed = parseCommand(command, args);
  if (parsed === 2) process.exit(2);
  return typeof parsed === 'number' ? undefined : parsed.values;
}

/** `--log` with `--log-format`; `--log-format` alone means stdout. */
function logOption(v: { log?: string; 'log-format'?: 'text' | 'json' }): { to: string; format?: 'text' | 'json' } | undefined {
  if (v.log === undefined && v['log-format'] === undefined) return undefined;
  return { to: v.log ?? 'stdout', format: v['log-format'] };
}

/** OTLP export (--otlp, --otlp-bodies, OTEL_EXPORTER_OTLP_*): resolved here (pure); the SDK loads only when it is on. */
async function otlpOption(v: {
  otlp?: string;
  'otlp-bodies'?: boolean;
}): Promise<import('../addons/telemetry/otlp-options.js').OtlpConfig | undefined> {
  const { resolveOtlpForCli } = await import('../addons/telemetry/otlp-options.js');
  let resolved: ReturnType<typeof resolveOtlpForCli>;
  try {
    resolved = resolveOtlpForCli({ url: v.otlp, bodies: v['otlp-bodies'] }, process.env);
  } catch (err) {
    fail((err as Error).message);
  }
  for (const w of resolved.warnings) process.stderr.write(`mcpscope: ${w}\n`);
  return resolved.config;
}

/**
 * `mcpscope [options] [--] <command> [args…]`: everything from the first argument that is not an
 * mcpscope option (or after `--`) is the server's command line, untouched (proxy/app/command-line.ts).
 */
async function wrap(ownArgs: string[], command: string[], dashes: boolean): Promise<void> {
  // Options the wrapper does not take are refused there (the table's `wrapper` column).
  const v = parseOptions('wrapper', ownArgs);
  if (!v) return;
  const log = logOption(v);
  if (log?.to === 'stdout')
    fail(
      "a stdio wrapper's stdout is the server's JSON-RPC channel to the client, so the log cannot go there: give a file, e.g. mcpscope --log mcpscope.log -- <command> (or watch the traffic in the UI).",
    );
  let logFd: number | undefined;
  if (log) {
    // Opened now: a path that cannot be written fails before the server starts.
    try {
      logFd = openLogFile(log.to);
    } catch (err) {
      fail((err as Error).message);
    }
  }
  const otlp = await otlpOption(v);
  if (command.length === 0 || command[0] === '')
    fail('nothing to run after "--": give the stdio server\'s command, e.g. mcpscope -- node server.js');
  if (!dashes && findOnPath(command[0], process.env.PATH) === undefined)
    fail(
      `${JSON.stringify(command[0])} is neither an mcpscope subcommand (${[...SUBCOMMANDS].join(', ')}) nor a command found on PATH.\n` +
        'To wrap a stdio server: mcpscope [options] [--] <command> [args…] (the first argument that is not an option starts it). Run mcpscope --help for the rest.',
    );
  const uiPort = v['ui-port'] ?? DEFAULT_UI_PORT;
  if (uiPort === 0) fail("--ui-port must name the shared UI's port (0 would find no UI to join).");
  const { runStdioWrapper } = await import('./stdio/stdio-wrapper.js');
  const code = await runStdioWrapper({
    command: command[0],
    args: command.slice(1),
    uiPort,
    token: v.token,
    showSecrets: v['show-secrets'] ?? false,
    maxBodyBytes: v['max-body'],
    holdMs: v['hold-timeout'],
    lint: v.lint,
    log: log && logFd !== undefined ? { file: log.to, fd: logFd, format: log.format } : undefined,
    otlp,
  });
  process.exit(code);
}

/** Subcommands that answer and exit: an unexpected error stops them (proxy/wire/last-resort.ts); the others keep serving. */
const ONE_SHOT = new Set(['verify', 'wrap', 'unwrap', 'env', 'ca']);

async function main(): Promise<void> {
  const sub = process.argv[2];
  installLastResort({
    name: sub === 'mcp' ? 'mcpscope mcp' : 'mcpscope',
    keepRunning: !(sub !== undefined && ONE_SHOT.has(sub)),
    redact: (text) => lastResortRedact?.(text) ?? text,
  });
  // The redactor for those lines: loaded at once, but for the stdio wrapper, which starts its server first (2 s later).
  const loadRedactor = () =>
    void import('../recorder/redact/redact.js').then(({ createRedactor }) => (lastResortRedact = createRedactor().text));
  const isSub = sub !== undefined && SUBCOMMANDS.has(sub);
  const isHelp = sub === 'help';
  // `mcpscope [options] [--] <command…>`: the first argument that is not an option starts the server's command.
  const line = isSub || isHelp ? undefined : splitCommandLine(process.argv.slice(2), OPTIONS);
  const wrapping = line !== undefined && (line.dashes || line.command.length > 0);
  if (wrapping) setTimeout(loadRedactor, 2000).unref();
  else loadRedactor();
  if (sub === 'help') {
    // `mcpscope help` is --help; `mcpscope help <subcommand>` is that subcommand's --help.
    const of = process.argv[3];
    if (of === undefined) return void process.stdout.write(helpText('main'));
    if (!SUBCOMMANDS.has(of))
      fail(
        `there is no subcommand ${JSON.stringify(of)}: the subcommands are ${[...SUBCOMMANDS].join(', ')}. Run mcpscope help for everything.`,
      );
    // The same page as `mcpscope <subcommand> --help`: both are made from the option table (cli-help.ts).
    return void process.stdout.write(helpText(of as Subcommand));
  }
  if (isSub) {
    const mod = (await import(`./commands/${sub}.js`)) as { main(argv: string[]): Promise<number | void> };
    const code = await mod.main(process.argv.slice(3));
    if (typeof code === 'number') process.exitCode = code;
    return;
  }
  if (wrapping) return wrap(line.own, line.command, line.dashes);
  const v = parseOptions('main', process.argv.slice(2));
  if (!v) return;
  const log = logOption(v);
  const otlp = await otlpOption(v);

  const host = v.host ?? '127.0.0.1';
  const { isLoopbackHostname } = await import('../wire/guards.js');
  if (!isLoopbackHostname(host)) {
    process.stderr.write(
      `mcpscope: warning: listening on ${host} exposes the proxy and the UI beyond this machine. The UI still needs its token.\n`,
    );
  }
  // --target [name=]url, repeatable: each upstream gets its own proxy port, all in one UI.
  // (Printed URLs lose their userinfo password and credential query values, as everything mcpscope keeps does.)
  const { redactUrl } = await import('../recorder/redact/redact.js');
  const upstreams = (v.target ?? []).map((spec, i) => {
    const eq = spec.indexOf('=');
    const named =
      eq > 0 && !/^https?:/i.test(spec.slice(0, eq))
        ? { name: spec.slice(0, eq), url: spec.slice(eq + 1) }
        : { name: undefined, url: spec };
    try {
      const u = new URL(named.url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      fail(`--target must be an http:// or https:// URL (optionally name=url), not ${JSON.stringify(redactUrl(spec))}`);
    }
    return { ...named, name: named.name ?? (v.target!.length > 1 ? `upstream${i + 1}` : undefined) };
  });
  const forward = v.forward ?? false;
  if (forward && upstreams.length > 0)
    fail(
      '--forward and --target are two different ways in: a forward proxy serves every server at its real URL, so it takes no --target. Run a second mcpscope for a reverse proxy.',
    );
  if (!forward && v.intercept) fail('--intercept applies to the forward proxy: add --forward (or use `mcpscope run`).');
  const upstreamCa = v['upstream-ca']?.map((file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      fail(`--upstream-ca ${file}: ${(err as Error).message}`);
    }
  });
  if (!forward && upstreamCa && !upstreams.some((u) => /^https:/i.test(u.url)))
    fail('--upstream-ca is for upstream servers reached over HTTPS: give --target https://…, or use it with --forward.');
  let forwardOptions: { intercept?: string[]; upstreamCa?: string[] } | undefined;
  if (forward) {
    try {
      const { parseInterceptPatterns } = await import('../wire/forward-proxy/intercept.js');
      parseInterceptPatterns(v.intercept);
      forwardOptions = { intercept: v.intercept, upstreamCa };
    } catch (err) {
      fail((err as Error).message);
    }
  }
  const demo = upstreams.length === 0 && !forward;
  let target = upstreams[0]?.url;
  let stopDemo: (() => Promise<void>) | undefined;
  let demoServer: { url: string; close(): Promise<void> } | undefined;
  if (demo) {
    const { startDemoServer } = await import('./demo/demo-server.js');
    demoServer = await startDemoServer({ port: 0 });
    target = demoServer.url;
  }

  const options = {
    target,
    targetName: upstreams[0]?.name,
    moreTargets: upstreams.slice(1).map((u) => ({ name: u.name, target: u.url })),
    host,
    token: v.token,
    showSecrets: v['show-secrets'] ?? false,
    rewrite: !v['no-rewrite'],
    allowOrigins: v['allow-origin'],
    allowHosts: v['allow-host'],
    hashSessionIds: v['hash-session-ids'] ?? false,
    maxBodyBytes: v['max-body'],
    maxEvents: v['max-events'],
    maxMemoryBytes: v['max-memory'] !== undefined ? v['max-memory'] * 1024 * 1024 : undefined,
    recordFile: v.record,
    log,
    otlp,
    holdMs: v['hold-timeout'],
    lint: v.lint,
    upstreamCa: forward ? undefined : upstreamCa,
    modelTraffic: v['model-traffic'],
    // Lets stdio wrappers (`mcpscope -- <command>`) launched by a desktop client find this UI's token.
    discoveryFile: true,
    // Once per upstream, in plain words: a target that is not reachable (and when it answers again).
    onNotice: (line: string) => process.stderr.write(`${line}\n`),
  };
  const defaults = defaultPorts();
  let port = v.port ?? defaults.proxy;
  let uiPort = v['ui-port'] ?? defaults.ui;

  const { startMcpscope, DEFAULT_GRACE_MS } = await import('./mcpscope.js');
  const graceMs = v.grace ?? DEFAULT_GRACE_MS;
  let scope: McpscopeCore;
  const launch = (p: number, u: number) =>
    startMcpscope({ ...options, port: p, uiPort: u, ...(forwardOptions ? { forward: { ...forwardOptions, port: p } } : {}) });
  // A busy default port (another mcpscope?) moves to a free one, and says so; a port asked for
  // with --port / --ui-port does not move.
  const movedProxy: number[] = [];
  const movedUi: number[] = [];
  /** A port was busy but the error did not say which: both moved. */
  let movedUnnamed: string | undefined;
  const explicit = v.port !== undefined || v['ui-port'] !== undefined;
  for (;;) {
    try {
      scope = await launch(port, uiPort);
      break;
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code !== 'EADDRINUSE') fail(e.message);
      const busy = busyPortOf(e);
      // Several targets take --port, --port+1, …: any of them is "the proxy port".
      const proxyBusy = busy !== undefined && busy >= port && busy < port + Math.max(1, upstreams.length);
      if (busy !== undefined && busy === uiPort && v['ui-port'] === undefined && uiPort !== 0) {
        movedUi.push(uiPort);
        uiPort = 0;
      } else if (proxyBusy && v.port === undefined && port !== 0) {
        movedProxy.push(busy);
        port = 0;
      } else if (busy === undefined && !explicit && (port !== 0 || uiPort !== 0)) {
        movedUnnamed = e.message;
        port = 0;
        uiPort = 0;
      } else {
        const which = busy === undefined ? 'a port' : `port ${busy}${busy === uiPort ? ' (--ui-port)' : proxyBusy ? ' (--port)' : ''}`;
        fail(`${which} is already in use (${e.message}). Choose another with --port / --ui-port, or 0 for any free port.`);
      }
    }
  }
  // Everything but the proxy thread (recorder, store, UI, V8's helpers) yields the CPU to it (Linux).
  const { yieldCpuToProxyThread } = await import('../wire/thread/proxy-thread.js');
  yieldCpuToProxyThread(scope.proxyThread);

  const out = process.stderr;
  const proxiesNow = forward ? scope.forwardProxy?.origin : scope.proxies.map((p) => p.url).join(', ');
  if (movedUnnamed !== undefined) {
    out.write(
      `mcpscope: a default port is in use (${movedUnnamed}), so mcpscope listens on free ports instead: proxy ${proxiesNow}, UI port ${scope.ui!.port}. Choose them with --port / --ui-port.\n`,
    );
  }
  for (const busy of movedProxy) {
    out.write(
      `mcpscope: port ${busy} (the default proxy port) is in use, so the proxy listens on a free port instead: ${proxiesNow}. Choose one with --port.\n`,
    );
  }
  for (const busy of movedUi) {
    out.write(
      `mcpscope: port ${busy} (the default UI port) is in use, so the UI is on port ${scope.ui!.port} instead. Choose one with --ui-port` +
        ` (stdio wrappers look for the UI on ${busy}: give them --ui-port ${scope.ui!.port}).\n`,
    );
  }
  let banner = `\nmcpscope ${packageVersion()}\n`;
  banner += demo
    ? 'Demo mode: a demo MCP server and a scripted client talk through the proxy. Open the UI URL to watch;\nrun `mcpscope --target <url>` to inspect your own server.\n'
    : forward
      ? `Forward proxy: clients keep the server's real URL. Start them with \`mcpscope run -- <command>\`, or\nin a shell after \`eval "$(mcpscope env${scope.ui!.port === DEFAULT_UI_PORT ? '' : ` --ui-port ${scope.ui!.port}`})"\`. Ctrl-C to stop.\n  proxy  ${scope.forwardProxy!.origin}  (HTTP_PROXY / HTTPS_PROXY)\n  CA     ${scope.ca!.certPath}${scope.ca!.created ? '  (created now: see `mcpscope ca`)' : ''}\n`
      : 'Point your MCP client at the proxy URL instead of the server. Ctrl-C to stop.\n';
  for (const [i, p] of scope.proxies.entries()) {
    const name = upstreams[i]?.name;
    banner += `  proxy  ${p.url}  →  ${redactUrl(i === 0 ? target : upstreams[i].url)}${name ? `  (${name})` : ''}\n`;
  }
  banner += `  UI     ${scope.ui!.url}\n`;
  if (v.record !== undefined) banner += `  record ${resolve(v.record)}  (every event, as NDJSON; reopen it with \`mcpscope open\`)\n`;
  if (otlp) {
    const { endpoint, protocol } = (await import('../addons/telemetry/otlp-options.js')).otlpDisplay(otlp);
    banner += `  otlp   ${endpoint}  (${protocol}${otlp.bodies ? ', with bodies' : ''})\n`;
  }
  if (log)
    banner += `  log    ${log.to === 'stdout' ? 'stdout' : resolve(log.to)}  (the annotated log${log.format === 'json' ? ', JSON lines' : ''})\n`;
  banner += '\n';
  // Handlers first: a signal right after the URLs are printed must still shut down cleanly.
  // The first signal drains (proxy/wire/forwarder/drain.ts): no new connections, calls in flight get
  // --grace to finish, then the capture is flushed into the record. A second one quits at once.
  let closing = false;
  const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`);
  const shutdown = async (signal: string) => {
    if (closing) {
      out.write(
        `mcpscope: ${signal} again: quitting now; calls still in flight are cut off${v.record !== undefined ? ' and their last moments are not in the record' : ''}.\n`,
      );
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    closing = true;
    const started = Date.now();
    await stopDemo?.().catch(() => undefined);
    const again = signal === 'SIGINT' ? 'press Ctrl+C again' : 'send SIGTERM again (or press Ctrl+C)';
    const result = await scope
      .shutdown({
        graceMs,
        reason: signal,
        waiting: ({ calls }) => {
          if (calls === 0) out.write(`\nmcpscope: ${signal}, shutting down (no calls in flight)\n`);
          else
            out.write(
              `\nmcpscope: ${signal}: no new connections; waiting up to ${seconds(graceMs)} for ${calls} call${calls === 1 ? '' : 's'} in flight; ${again} to quit now\n`,
            );
        },
      })
      .catch((err: Error) => {
        out.write(`mcpscope: shutting down failed: ${err.message}\n`);
        return undefined;
      });
    if (result && result.cut > 0)
      out.write(
        `mcpscope: ${result.cut} call${result.cut === 1 ? '' : 's'} still in flight after ${seconds(graceMs)} ${result.cut === 1 ? 'was' : 'were'} cut off.\n`,
      );
    else if (result && result.calls > 0) out.write(`mcpscope: every call in flight finished (${Date.now() - started} ms).\n`);
    if (v.record !== undefined) out.write(`mcpscope: the record is complete: ${resolve(v.record)}\n`);
    await demoServer?.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  out.write(banner);
  if (demo) {
    const { startDemoClient } = await import('./demo/demo-client.js');
    const client = startDemoClient(scope.proxy!.url, {
      // Only the demo client's headline lines (detail lines start with spaces).
      log: (line) => {
        if (!line.startsWith(' ')) out.write(`  demo client: ${line}\n`);
      },
    });
    stopDemo = () => client.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`mcpscope: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
