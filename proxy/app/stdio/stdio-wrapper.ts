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
 * This thread does the relay and nothing else: the pipes, the taps (an O(1) push, as the HTTP
 * proxy thread's capture), the signals, and — only while a breakpoint rule exists or mcpscope
 * sends into the process — the line holding that is on the byte path by nature (stdio-holds.ts).
 * Everything else runs on the wrapper's recorder thread (recorder-thread.ts, recorder-worker.ts):
 * redacting and shipping the records to the mcpscope UI on the UI port (its `/ingest` WebSocket,
 * once it proved it knows the token), the UI the wrapper serves itself when none runs, and the
 * `--log` file. A recorder that is slow, stuck or dead delays no byte of the server's.
 *
 * stdout carries nothing but the server's bytes: all our words go to stderr, and there are few of
 * them (one line naming the UI). Signals (SIGINT, SIGTERM, SIGHUP) are forwarded to the server
 * (server-process.ts: and it is never left running behind us), and we exit with its exit code
 * (128 + n when a signal n ended it; 127 when it cannot be started).
 */
import type { LintMode } from '../../core/lint/linter.js';
import type { ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type { OtlpConfig } from '../../addons/telemetry/otlp-options.js';
import type { IngestRecord } from '../../wire/capture/wire-codec.js';
import { ServerProcess } from './server-process.js';
import { StdioHolds } from './stdio-holds.js';
import { linkHolds } from './holds-links.js';
import { startRecorderThread } from './recorder-thread.js';

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
   * `--log <file>`: the annotated log of this process, written by the wrapper itself in the
   * numbers of the UI that records it (proxy/app/stdio/stdio-log.ts). Never stdout: that is the server's.
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

const XID = 'p';
/** How long the last records may take to reach the UI once the server has exited. */
const FINAL_DRAIN_MS = 2_000;
/** How long the recorder thread gets, all in all, to finish once the server has exited; then it is stopped. */
const FINISH_BOUND_MS = 4_000;

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  if (signal) return 128 + (osConstants.signals[signal] ?? 0);
  return 1;
}

/** Runs the wrapper until the server has exited and its output has been relayed. Resolves with the exit code to use. */
export async function runStdioWrapper(options: StdioWrapperOptions): Promise<number> {
  const { stdin = process.stdin, stdout = process.stdout, stderr = process.stderr, ...recording } = options;
  const say = (line: string) => stderr.write(`mcpscope: ${line}\n`);

  // ---------------------------------------------------------------- the server process

  // Started first, before anything is loaded (server-process.ts: its own process group, never left behind).
  const server = new ServerProcess({ command: options.command, args: options.args, env: process.env });
  const child: ChildProcess = server.child;

  // The recorder thread: everything but the relay (it loads what it needs there, off this thread).
  let holdsLink: ReturnType<typeof linkHolds> | undefined;
  const recorder = startRecorderThread(
    { ...recording, pid: child.pid, cwd: process.cwd(), startedAt: Date.now(), xid: XID },
    {
      write: (text) => void stderr.write(text),
      control: (m) => holdsLink?.control(m),
      linked: () => holdsLink?.linked(),
      unlinked: () => holdsLink?.unlinked(),
    },
  );
  const record = (r: IngestRecord) => recorder.push(r);

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
  holdsLink = linkHolds(holds, (m) => recorder.control(m));
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
    // To the server's group, also once the server exited: a child of its may still hold its stdout.
    server.signal(signal);
    // A signal after the server exited: stop waiting for that stdout.
    if (exited) finish(exitCodeOf(child.exitCode, child.signalCode));
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

  // ---------------------------------------------------------------- the end

  const code = await finished;
  // Let the last records out (the exit, the last stderr lines) and the recorder thread close, within bounds.
  const notRecorded = await recorder.finish(FINAL_DRAIN_MS, FINISH_BOUND_MS);
  server.dispose();
  for (const [s, h] of signals) process.off(s, h);
  stdin.unpipe(child.stdin!);
  if ('destroy' in stdin) stdin.destroy();
  if (notRecorded > 0) say(`${notRecorded} bytes were relayed but not recorded (the recorder could not keep up, or no UI was reachable).`);
  await flushed(stdout);
  return code;
}

/** Resolves once everything written to `stream` so far has been handed to the OS. */
function flushed(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || stream.writableLength === 0) return resolve();
    stream.write('', () => resolve());
  });
}
