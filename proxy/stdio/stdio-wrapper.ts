/**
 * `mcpscope [--ui-port U] [--token T] -- <command> [args…]`: wraps a stdio MCP server.
 *
 * A desktop client (Claude Desktop, Cursor, VS Code…) runs us in place of the server. We spawn the
 * server and relay, byte for byte and with backpressure (stream pipes):
 *
 *   our stdin  ──▶ server stdin        (tapped: c2s chunks)
 *   server stdout ──▶ our stdout       (tapped: s2c chunks)
 *   server stderr ──▶ our stderr       (tapped: stderr chunks)
 *
 * Taps are O(1) pushes onto an IngestClient, exactly like the HTTP proxy's capture hook: the
 * relay never waits for recording. Records go to the mcpscope UI already running on the UI port
 * (its `/ingest` WebSocket, token from --token, $MCPSCOPE_TOKEN or its discovery file), so one UI
 * shows every stdio server side by side with HTTP sessions. If nothing listens there, the wrapper
 * serves a UI itself on that port for as long as it lives; if something else holds the port, it
 * serves one on a free port.
 *
 * stdout carries nothing but the server's bytes: all our words go to stderr, and there are few of
 * them (one line naming the UI). Signals (SIGINT, SIGTERM, SIGHUP) are forwarded to the server,
 * and we exit with its exit code (128 + n when a signal n ended it; 127 when it cannot be started).
 */
import type { LintMode } from '../lint/linter.js';
import type { ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type WebSocket from 'ws';
import type { McpscopeCore } from '../mcpscope.js';
import type { OtlpConfig } from '../telemetry/otlp-options.js';
import { readDiscovery } from '../serve/discovery.js';
import { commandLine } from './command-line.js';
import { ServerProcess } from './server-process.js';
import { redactArgs } from '../record/redact.js';
import { IngestClient, connectIngest, type IngestTarget } from './ingest-client.js';
import type { IngestRecord } from '../capture/wire-codec.js';
import type { StdioLog } from './stdio-log.js';
import { StdioHolds } from './stdio-holds.js';
import { linkHoldsToCore, linkHoldsToSocket } from './holds-links.js';

export interface StdioWrapperOptions {
  command: string;
  args: string[];
  /** The port of the shared UI. */
  uiPort: number;
  /** --token; else $MCPSCOPE_TOKEN, else the UI's discovery file. */
  token?: string;
  /** For a UI this wrapper serves itself. */
  showSecrets?: boolean;
  maxBodyBytes?: number;
  /** How long a line held at a breakpoint waits (ms; a UI this wrapper reports to says its own). */
  holdMs?: number;
  /** Spec linting for a UI this wrapper serves itself (a UI it reports to lints with its own --lint). */
  lint?: LintMode;
  /**
   * `--log <file>`: the annotated log of this process, written by the wrapper itself from the
   * records it ships (proxy/stdio/stdio-log.ts). Never stdout: that is the server's.
   */
  log?: { file: string; fd?: number; format?: 'text' | 'json' };
  /**
   * `--otlp` / OTEL_EXPORTER_OTLP_*: a UI this wrapper serves itself exports (what this process and
   * the wrappers that join it record). A UI it reports to exports with its own `--otlp`; if that one
   * does not, the wrapper says so once.
   */
  otlp?: OtlpConfig;
  /** Defaults: the process's own streams. */
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
}

const UI_HOST = '127.0.0.1';
const XID = 'p';
/** How long the last records may take to reach the UI once the server has exited. */
const FINAL_DRAIN_MS = 2_000;

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  if (signal) return 128 + (osConstants.signals[signal] ?? 0);
  return 1;
}

/** Runs the wrapper until the server has exited and its output has been relayed. Resolves with the exit code to use. */
export async function runStdioWrapper(options: StdioWrapperOptions): Promise<number> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const env = process.env;
  const say = (line: string) => stderr.write(`mcpscope: ${line}\n`);
  // What stderr says of the command: its secret flags and arguments redacted (redact.ts redactArgs).
  const shown = commandLine(options.command, redactArgs(options.args));

  // ---------------------------------------------------------------- the server process

  // Started first, before anything is loaded (server-process.ts: its own process group, never left behind).
  const server = new ServerProcess({ command: options.command, args: options.args, env });
  const child: ChildProcess = server.child;
  const cwd = process.cwd();
  const startedAt = Date.now();
  const client = new IngestClient({
    hello: (joined) => [
      {
        t: 'stdio-start',
        xid: XID,
        ts: joined ? Date.now() : startedAt,
        command: options.command,
        args: options.args,
        pid: child.pid,
        cwd,
        ...(joined ? { joined } : {}),
      },
    ],
  });

  // --log <file>: a local recorder fed the same records (loaded now, after the server was started).
  let stdioLog: StdioLog | undefined;
  if (options.log) {
    const { startStdioLog } = await import('./stdio-log.js');
    stdioLog = startStdioLog({
      ...options.log,
      maxBodyBytes: options.maxBodyBytes,
      lint: options.lint,
      token: options.token || env.MCPSCOPE_TOKEN || undefined,
      warn: say,
    });
    stdioLog.push({ t: 'stdio-start', xid: XID, ts: startedAt, command: options.command, args: options.args, pid: child.pid, cwd });
  }
  /** Every record goes to the UI link, and to the log when there is one (chosen once: without --log the taps do what they did). */
  const log = stdioLog;
  const record: (r: IngestRecord) => void = log
    ? (r) => {
        client.push(r);
        log.push(r);
      }
    : (r) => client.push(r);

  // The relay: pipes keep backpressure end to end; the taps only push references. stdin ends the
  // server's stdin when it ends. With a breakpoint rule or a send of mcpscope's under way, each
  // direction goes line by line instead (stdio-holds.ts).
  child.stdin!.on('error', () => undefined); // EPIPE once the server is gone: nothing to deliver to
  const holds = new StdioHolds({
    xid: XID,
    stdin,
    stdout,
    childStdin: child.stdin!,
    childStdout: child.stdout!,
    push: record,
    holdMs: options.holdMs,
  });
  child.stderr!.on('data', (chunk: Buffer) => record({ t: 'stdio-stderr', xid: XID, ts: Date.now(), chunk }));
  child.stderr!.pipe(stderr, { end: false });
  // Our reader went away: let the server find out the way it would directly (EPIPE on its next write).
  stdout.on('error', () => child.stdout!.destroy());
  // The client went away without a signal: the server's stdin ends with ours (the relay), then the spec's SIGTERM, SIGKILL.
  stdin.once('end', () => server.inputEnded());

  let exited = false;
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));

  const forward = (signal: NodeJS.Signals) => () => {
    // A signal after the server exited (its stdout held open by a grandchild): stop waiting.
    if (exited) finish(exitCodeOf(child.exitCode, child.signalCode));
    else server.signal(signal);
  };
  const signals: [NodeJS.Signals, () => void][] = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((s) => [s, forward(s)]);
  for (const [s, h] of signals) process.on(s, h);

  child.once('error', (err: NodeJS.ErrnoException) => {
    if (child.pid !== undefined) return; // an error of a running child (kill failed…): its exit still comes
    exited = true;
    const code = err.code === 'ENOENT' ? 127 : err.code === 'EACCES' ? 126 : 1;
    say(
      err.code === 'ENOENT'
        ? `cannot start ${JSON.stringify(options.command)}: no such command (not found on PATH, or the path does not exist).`
        : err.code === 'EACCES'
          ? `cannot start ${JSON.stringify(options.command)}: permission denied (is it executable?).`
          : `cannot start ${JSON.stringify(options.command)}: ${err.message}`,
    );
    record({
      t: 'stdio-stderr',
      xid: XID,
      ts: Date.now(),
      chunk: Buffer.from(`mcpscope could not start the server: ${err.message}\n`),
    });
    record({ t: 'stdio-exit', xid: XID, ts: Date.now(), code, signal: null });
    finish(code);
  });
  child.once('exit', () => {
    exited = true;
  });
  // 'close': the process exited and its stdout and stderr were read to the end.
  child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
    if (child.pid === undefined) return;
    holds.processGone();
    record({ t: 'stdio-exit', xid: XID, ts: Date.now(), code, signal });
    finish(exitCodeOf(code, signal));
  });

  // ---------------------------------------------------------------- the link to a UI

  let stopping = false;
  let own: McpscopeCore | undefined;
  let linkedOnce = false;
  let current: { target: IngestTarget; ws?: WebSocket } | undefined;

  const serveOwn = async (port: number, token: string | undefined): Promise<McpscopeCore> => {
    const { startMcpscope } = await import('../mcpscope.js');
    return startMcpscope({
      uiPort: port,
      host: UI_HOST,
      token,
      showSecrets: options.showSecrets,
      maxBodyBytes: options.maxBodyBytes,
      holdMs: options.holdMs,
      lint: options.lint,
      discoveryFile: true,
      // The export's notices (collector unreachable, back again) go where the wrapper's words go.
      ...(options.otlp ? { otlp: options.otlp, onNotice: (line: string) => void stderr.write(`${line}\n`) } : {}),
    });
  };

  /** With --otlp, linked to a UI that was started without it: say that nothing is exported. */
  const checkSharedExport = async (token: string | undefined): Promise<void> => {
    const res = await fetch(`http://${UI_HOST}:${options.uiPort}/api/stats`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(3_000),
    });
    if (!res.ok) return;
    const stats = (await res.json()) as { telemetry?: { endpoint?: unknown } };
    if (stats.telemetry) return;
    say(
      `the mcpscope UI on port ${options.uiPort} records ${shown} but exports no OpenTelemetry data: start that one with --otlp (a wrapper exports only when it serves the UI itself).`,
    );
  };

  const link = async (): Promise<void> => {
    const explicit = options.token || env.MCPSCOPE_TOKEN || undefined;
    for (let attempt = 0; !stopping; attempt++) {
      const token = explicit ?? readDiscovery(options.uiPort, env)?.token;
      const r = await connectIngest(UI_HOST, options.uiPort, token, 3_000);
      if (stopping) {
        if (r.ok) r.ws.terminate();
        return;
      }
      if (r.ok) {
        const target: IngestTarget = { kind: 'ws', ws: r.ws };
        current = { target, ws: r.ws };
        r.ws.on('error', () => undefined);
        const unlinkHolds = linkHoldsToSocket(holds, r.ws);
        r.ws.once('close', () => {
          unlinkHolds();
          client.detach(target);
          if (current?.target === target) current = undefined;
          if (!stopping) void relink();
        });
        client.attach(target);
        if (!linkedOnce) {
          say(`recording ${shown} in the mcpscope UI at http://${UI_HOST}:${options.uiPort}/`);
          if (options.otlp) void checkSharedExport(token).catch(() => undefined);
        }
        linkedOnce = true;
        return;
      }
      if (r.refused) {
        // Nothing listens there: serve the UI ourselves (another wrapper may win the race for the port).
        try {
          own = await serveOwn(options.uiPort, token);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < 20) continue;
          throw err;
        }
        attachOwn(own);
        say(`no mcpscope UI was running on port ${options.uiPort}, so this one serves it while ${shown} runs: ${own.ui!.url}`);
        return;
      }
      // Worth another try, for a few seconds: a connection reset or timeout (a UI shutting down as
      // we knock), or a UI that does not know our token yet (just started, its discovery file on
      // the way). Anything else on the port is not a UI we can use.
      const transient = r.status === undefined || r.status === 503 || (r.status === 401 && !explicit);
      if (transient && attempt < 10) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt)));
        continue;
      }
      own = await serveOwn(0, undefined);
      attachOwn(own);
      const why =
        r.status === 401
          ? 'refused the token (pass the UI’s token with --token or MCPSCOPE_TOKEN)'
          : r.status !== undefined
            ? `is not an mcpscope UI (${r.message})`
            : `could not be used (${r.message})`;
      say(`port ${options.uiPort} ${why}; recording ${shown} in a UI of its own: ${own.ui!.url}`);
      return;
    }
  };

  const attachOwn = (scope: McpscopeCore) => {
    const target: IngestTarget = { kind: 'local', capture: scope.capture };
    current = { target };
    client.attach(target);
    linkHoldsToCore(holds, scope, XID);
    linkedOnce = true;
  };

  let relinkDelay = 0;
  const relink = async (): Promise<void> => {
    // Back off a little between attempts, but reconnect at once the first time (a UI restart).
    if (relinkDelay > 0) await new Promise((resolve) => setTimeout(resolve, relinkDelay).unref());
    relinkDelay = Math.min(2_000, Math.max(100, relinkDelay * 2));
    if (stopping) return;
    await link().catch((err: unknown) =>
      say(`cannot reach or serve a UI: ${(err as Error).message}; the server keeps running, unrecorded.`),
    );
    if (client.linked) relinkDelay = 0;
  };

  const linking = link().catch((err: unknown) => {
    say(`cannot reach or serve a UI on port ${options.uiPort}: ${(err as Error).message}; the server runs unrecorded.`);
  });

  // ---------------------------------------------------------------- the end

  const code = await finished;
  // Let the last records out (the exit, the last stderr lines), within bounds.
  await Promise.race([linking, new Promise((resolve) => setTimeout(resolve, FINAL_DRAIN_MS).unref())]);
  await client.drain(FINAL_DRAIN_MS);
  await stdioLog?.close();
  stopping = true;
  server.dispose();
  for (const [s, h] of signals) process.off(s, h);
  stdin.unpipe(child.stdin!);
  if ('destroy' in stdin) stdin.destroy();
  if (current?.ws) await closeSocket(current.ws);
  await own?.close();
  if (client.droppedBytes > 0)
    say(`${client.droppedBytes} bytes were relayed but not recorded (the UI could not keep up or was unreachable).`);
  await flushed(stdout);
  return code;
}

/** Closes a socket after its queued data, giving up after a moment. */
function closeSocket(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    if (ws.readyState === ws.CLOSED) return resolve();
    const timer = setTimeout(() => {
      ws.terminate();
      resolve();
    }, 1_000);
    ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    ws.close(1000, 'the server process exited');
  });
}

/** Resolves once everything written to `stream` so far has been handed to the OS. */
function flushed(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || stream.writableLength === 0) return resolve();
    stream.write('', () => resolve());
  });
}
