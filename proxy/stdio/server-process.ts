/**
 * The stdio wrapper's server process: started at once, in a process group of its own, and never
 * left running behind the wrapper (issue 26, finding 13).
 *
 * - **Signals.** SIGINT, SIGTERM and SIGHUP that reach the wrapper go on to the server's process
 *   group. A client gives a server little time: Claude Code sends SIGINT, SIGTERM ~100 ms later,
 *   and SIGKILLs the wrapper ~0.5 s after that — which no handler of ours outlives. So once the
 *   first of them came, a server still running `killAfterSignalMs` (300 ms) later is SIGKILLed,
 *   group and all: without the wrapper, the client would have killed it outright.
 * - **The client went away** (the wrapper's stdin ended without a signal): the server's stdin is
 *   ended with it (the relay does that), and the MCP spec's stdio shutdown follows
 *   (basic/lifecycle, "stdio": close its input, wait for it to exit, SIGTERM if it does not within
 *   a reasonable time, then SIGKILL): SIGTERM after `stdinGraceMs`, SIGKILL `termGraceMs` later —
 *   2 s each, as the SDK's own StdioClientTransport does.
 * - **The wrapper exits** for any reason with the server still running (an exception, a
 *   process.exit): the group is SIGKILLed first, from the 'exit' handler.
 *
 * Why a process group of its own (`detached`, POSIX): servers are mostly launchers (`npx`, `uvx`,
 * `docker run`, a shell script) whose real server is a child; a kill of the launcher's pid alone
 * orphans that child. In its own group, one `kill(-pgid)` reaches both. The price: the server is
 * no longer in the terminal's foreground group when a developer runs the wrapper by hand, so
 * Ctrl-C reaches it only through the wrapper — which forwards it once (before, the terminal's
 * SIGINT reached it directly and the wrapper's forwarded copy came second: two SIGINTs). Its stdin,
 * stdout and stderr are the wrapper's pipes either way; only /dev/tty is out of its reach. On
 * Windows there are no groups: the server is signalled (and killed) alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface ServerProcessOptions {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** After the first signal, how long the server may take before it is SIGKILLed (ms). */
  killAfterSignalMs?: number;
  /** After the wrapper's stdin ended, how long before SIGTERM (ms). */
  stdinGraceMs?: number;
  /** After that SIGTERM, how long before SIGKILL (ms). */
  termGraceMs?: number;
}

export const KILL_AFTER_SIGNAL_MS = 300;
export const STDIN_GRACE_MS = 2_000;
export const TERM_GRACE_MS = 2_000;

const GROUPS = process.platform !== 'win32';

export class ServerProcess {
  readonly child: ChildProcess;
  private exited = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private signalled = false;
  private readonly onExit = () => this.kill('SIGKILL');

  constructor(private readonly options: ServerProcessOptions) {
    this.child = spawn(options.command, options.args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      env: options.env,
      detached: GROUPS,
    });
    this.child.once('exit', () => {
      this.exited = true;
      for (const t of this.timers) clearTimeout(t);
      this.timers.clear();
      process.off('exit', this.onExit);
    });
    if (this.child.pid !== undefined) process.on('exit', this.onExit);
  }

  get running(): boolean {
    return this.child.pid !== undefined && !this.exited;
  }

  /** Sends `signal` to the server's group (its own pid where there are no groups). Never throws. */
  kill(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined || this.exited) return;
    try {
      if (GROUPS) process.kill(-pid, signal);
      else this.child.kill(signal);
    } catch {
      // The group is gone (ESRCH): try the process itself, which may have left it.
      try {
        this.child.kill(signal);
      } catch {
        /* gone */
      }
    }
  }

  /** A signal reached the wrapper: pass it on; the first one also starts the SIGKILL countdown. */
  signal(signal: NodeJS.Signals): void {
    this.kill(signal);
    if (this.signalled) return;
    this.signalled = true;
    this.after(this.options.killAfterSignalMs ?? KILL_AFTER_SIGNAL_MS, () => this.kill('SIGKILL'));
  }

  /** The wrapper's stdin ended (the client is gone): the spec's shutdown, unless the server exits by itself. */
  inputEnded(): void {
    this.after(this.options.stdinGraceMs ?? STDIN_GRACE_MS, () => {
      this.kill('SIGTERM');
      this.after(this.options.termGraceMs ?? TERM_GRACE_MS, () => this.kill('SIGKILL'));
    });
  }

  /** Stops every countdown and the exit handler (the wrapper is done with the process). */
  dispose(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    process.off('exit', this.onExit);
  }

  private after(ms: number, run: () => void): void {
    if (!this.running) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (this.running) run();
    }, ms);
    this.timers.add(t);
  }
}
