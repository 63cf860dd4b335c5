/**
 * The stdio wrapper's server process: started at once, in a process group of its own, and never
 * left running behind the wrapper (issue 26, finding 13).
 *
 * - **Signals.** SIGINT, SIGTERM and SIGHUP that reach the wrapper go on to the server's process
 *   group. A client gives a server little time: Claude Code sends SIGINT, SIGTERM ~100 ms later,
 *   and SIGKILLs the wrapper ~0.5 s after that — which no handler of ours outlives. So once the
 *   first of them came, a server still running `killAfterSignalMs` (300 ms) later is SIGKILLed,
 *   group and all (at once if the wrapper is done before that): without the wrapper, the client
 *   would have killed it outright.
 * - **The client went away** (the wrapper's stdin ended without a signal): the server's stdin is
 *   ended with it (the relay does that), and the MCP spec's stdio shutdown follows
 *   (basic/lifecycle, "stdio": close its input, wait for it to exit, SIGTERM if it does not within
 *   a reasonable time, then SIGKILL): SIGTERM after `stdinGraceMs`, SIGKILL `termGraceMs` later —
 *   2 s each, as the SDK's own StdioClientTransport does.
 * - **The group outlives its leader.** A launcher that exits at once may leave its child running,
 *   holding the launcher's stdout (the wrapper waits for that stdout's end). Both countdowns
 *   address the group while it has a member, not only while the server itself runs, and a signal
 *   after the server exited still goes to the group.
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
  /** The server's process group has no member left (ESRCH): nothing is sent to that number again. */
  private groupGone = !GROUPS;
  private readonly timers = new Set<NodeJS.Timeout>();
  private signalled = false;
  /** The SIGKILL the first signal set going, until it has run. */
  private killAfterSignal?: () => void;
  private readonly onExit = () => {
    if (this.running || this.killAfterSignal) this.kill('SIGKILL');
  };

  constructor(private readonly options: ServerProcessOptions) {
    this.child = spawn(options.command, options.args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      env: options.env,
      detached: GROUPS,
    });
    this.child.once('exit', () => {
      this.exited = true;
      // Its group may outlive it (a launcher's child): the countdowns go on while it has members.
      if (this.alive) return;
      for (const t of this.timers) clearTimeout(t);
      this.timers.clear();
      this.killAfterSignal = undefined;
    });
    if (this.child.pid !== undefined) process.on('exit', this.onExit);
    else this.groupGone = true;
  }

  get running(): boolean {
    return this.child.pid !== undefined && !this.exited;
  }

  /**
   * The server runs, or its process group still has a member (a child it started, holding its
   * stdout, say). A group's number is not reused while a member is left, so it still names them.
   */
  private get alive(): boolean {
    if (this.running) return true;
    if (this.groupGone) return false;
    try {
      process.kill(-this.child.pid!, 0);
      return true;
    } catch {
      this.groupGone = true;
      return false;
    }
  }

  /** Sends `signal` to the server's group (its own pid where there are no groups). Never throws. */
  kill(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    if (!this.groupGone) {
      try {
        process.kill(-pid, signal);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ESRCH') this.groupGone = true;
      }
    }
    // No group (Windows), or it is gone: the process itself, which may have left it.
    if (this.exited) return;
    try {
      this.child.kill(signal);
    } catch {
      /* gone */
    }
  }

  /** A signal reached the wrapper: pass it on; the first one also starts the SIGKILL countdown. */
  signal(signal: NodeJS.Signals): void {
    this.kill(signal);
    if (this.signalled) return;
    this.signalled = true;
    const killNow = () => {
      this.killAfterSignal = undefined;
      this.kill('SIGKILL');
    };
    if (this.after(this.options.killAfterSignalMs ?? KILL_AFTER_SIGNAL_MS, killNow)) this.killAfterSignal = killNow;
  }

  /** The wrapper's stdin ended (the client is gone): the spec's shutdown, unless the server exits by itself. */
  inputEnded(): void {
    this.after(this.options.stdinGraceMs ?? STDIN_GRACE_MS, () => {
      this.kill('SIGTERM');
      this.after(this.options.termGraceMs ?? TERM_GRACE_MS, () => this.kill('SIGKILL'));
    });
  }

  /**
   * The wrapper is done with the process: stops every countdown and the exit handler. A SIGKILL
   * that a signal set going and that has not run yet runs now — nobody would run it later.
   */
  dispose(): void {
    const killNow = this.killAfterSignal;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    process.off('exit', this.onExit);
    if (killNow && this.alive) killNow();
    this.killAfterSignal = undefined;
  }

  /** Runs `run` in `ms` if the server or its group is still there then; false if neither is now. */
  private after(ms: number, run: () => void): boolean {
    if (!this.alive) return false;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (this.alive) run();
    }, ms);
    this.timers.add(t);
    return true;
  }
}
