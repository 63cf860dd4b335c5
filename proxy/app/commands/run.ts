/**
 * `mcpscope run [options] -- <command> [args…]`: runs any client with mcpscope's forward proxy
 * configured (proxy/wire/forward-proxy/client-env.ts), so the client keeps the server's real URL and needs
 * no setup. It joins the mcpscope already serving a forward proxy with its UI on --ui-port (found
 * through its discovery file), or starts one for the command's lifetime and prints its UI URL on
 * stderr. stdin/stdout/stderr are the command's own (inherited, untouched); signals are passed
 * on; the exit code is the command's (128 + n for a signal, 127 if it cannot be started).
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { McpscopeCore } from '../mcpscope.js';
import { loadOrCreateCa } from '../../wire/forward-proxy/ca.js';
import { clientEnv } from '../../wire/forward-proxy/client-env.js';
import { findForwardProxy } from './running-proxy.js';
import { DEFAULT_UI_PORT } from '../../wire/ports.js';
import { splitCommandLine } from '../command-line.js';
import { shapesOf } from '../cli-options.js';
import { parseCommand } from '../cli-parse.js';

function say(text: string): void {
  process.stderr.write(`mcpscope: ${text}\n`);
}

export async function main(argv: string[]): Promise<number> {
  // The first argument that is not one of run's options starts the client's command; `--` is optional (proxy/app/command-line.ts).
  const line = splitCommandLine(argv, shapesOf('run'));
  const command = line.command;
  const parsed = parseCommand('run', line.own);
  if (typeof parsed === 'number') return parsed;
  const v = parsed.values;
  const log = v.log !== undefined || v['log-format'] !== undefined ? { to: v.log ?? 'stdout', format: v['log-format'] } : undefined;
  let otlp: import('../../addons/telemetry/otlp-options.js').OtlpConfig | undefined;
  let upstreamCa: string[] | undefined;
  try {
    // Here only a file: stdout is the client's.
    if (log?.to === 'stdout')
      throw new Error(
        "--log needs a file here: mcpscope run's stdout belongs to the command it runs. Give one (--log mcpscope.log), or run `mcpscope --forward --log` in another terminal, which this command then joins.",
      );
    // As mcpscope itself resolves them (proxy/app/cli.ts): --otlp-bodies needs an endpoint, warnings printed.
    const resolved = (await import('../../addons/telemetry/otlp-options.js')).resolveOtlpForCli(
      { url: v.otlp, bodies: v['otlp-bodies'] },
      process.env,
    );
    otlp = resolved.config;
    for (const w of resolved.warnings) say(w);
    if (command.length === 0 || command[0] === '') {
      throw new Error(
        "which command? Give the client's command after the options, e.g. mcpscope run claude, or mcpscope run -- node client.js https://example.com/mcp",
      );
    }
    upstreamCa = v['upstream-ca']?.map((file) => {
      try {
        return readFileSync(file, 'utf8');
      } catch (err) {
        throw new Error(`--upstream-ca ${file}: ${(err as Error).message}`);
      }
    });
    if (v.intercept) (await import('../../wire/forward-proxy/intercept.js')).parseInterceptPatterns(v.intercept);
  } catch (err) {
    process.stderr.write(`mcpscope run: ${(err as Error).message}\n`);
    return 2;
  }
  const uiPort = v['ui-port'] ?? DEFAULT_UI_PORT;
  const proxyPort = v.port ?? 0;

  let ca;
  try {
    ca = await loadOrCreateCa({ warn: (text) => say(text) });
  } catch (err) {
    say((err as Error).message);
    return 1;
  }

  // Join a running forward proxy on that UI port, or start one for the command's lifetime.
  let scope: McpscopeCore | undefined;
  let proxyUrl: string;
  let refusedWhy: string | undefined;
  const running =
    uiPort === 0
      ? undefined
      : await findForwardProxy(uiPort, process.env, (why) => {
          refusedWhy = why;
          say(`not joining the mcpscope on UI port ${uiPort}: ${why}.`);
        });
  if (running) {
    proxyUrl = running.proxyUrl;
    if (v.intercept || upstreamCa || v.port !== undefined || v.lint || v['model-traffic'])
      say(
        `joining the mcpscope already running on UI port ${uiPort}: its own --intercept/--upstream-ca/--port/--lint/--model-traffic apply, not these.`,
      );
    // (Export asked for here, by --otlp or OTEL_EXPORTER_OTLP_ENDPOINT alike.)
    if (otlp)
      say(`joining the mcpscope already running on UI port ${uiPort}: it exports to OpenTelemetry only if it was started with --otlp.`);
    if (log)
      say(
        `joining the mcpscope already running on UI port ${uiPort}: the log is that one's to write, so ${log.to} is not written. Start it with --log ${log.to}, or copy the log from its UI.`,
      );
    // The URL that opens it: with its token, as when one is started here (the discovery file has it).
    say(`recording into the running mcpscope; open the UI: ${running.uiUrl}?token=${encodeURIComponent(running.token)}`);
  } else {
    const { startMcpscope } = await import('../mcpscope.js');
    const options = {
      forward: { port: proxyPort, intercept: v.intercept, upstreamCa },
      token: v.token,
      discoveryFile: true,
      lint: v.lint,
      modelTraffic: v['model-traffic'],
      log,
      otlp,
      // The export's notices (collector unreachable, back); only with export on, as before otherwise.
      ...(otlp ? { onNotice: (line: string) => process.stderr.write(`${line}\n`) } : {}),
    };
    try {
      scope = await startMcpscope({ ...options, uiPort });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      if (proxyPort !== 0) {
        say(`port ${proxyPort} is in use (${(err as Error).message}); choose another with --port, or leave it out for any free port.`);
        return 1;
      }
      say(
        refusedWhy
          ? `UI port ${uiPort} is in use (by the mcpscope not joined, above); this run's UI gets a free port instead.`
          : `UI port ${uiPort} is taken by something that is not an mcpscope forward proxy; this run's UI gets a free port instead.`,
      );
      scope = await startMcpscope({ ...options, uiPort: 0 });
    }
    proxyUrl = scope.forwardProxy!.origin;
    // The command's name only: its arguments may hold credentials (a header, a token), and the line stays short.
    say(`recording ${basename(command[0])}'s traffic — open the UI: ${scope.ui!.url}`);
    say('this UI closes when the command ends; start `mcpscope --forward` in another terminal first to keep one open.');
  }

  const env = clientEnv({ proxyUrl, uiPort: scope?.ui?.port ?? uiPort, ca });
  for (const note of env.notes) say(note);
  const code = await runChild(command, { ...process.env, ...env.set });
  if (scope) {
    await scope.settle().catch(() => undefined);
    await scope.close().catch(() => undefined);
  }
  return code;
}

/** Runs the command with inherited stdio; signals sent to mcpscope are passed on. Resolves with its exit code. */
function runChild(command: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env });
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
    const relay = (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    for (const s of signals) process.on(s, relay);
    const done = (code: number) => {
      for (const s of signals) process.off(s, relay);
      resolve(code);
    };
    child.once('error', (err: NodeJS.ErrnoException) => {
      say(err.code === 'ENOENT' ? `${command[0]}: command not found` : `could not start ${command[0]}: ${err.message}`);
      done(err.code === 'ENOENT' ? 127 : 126);
    });
    child.once('exit', (code, signal) => done(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
  });
}
