/**
 * Shared by the benches: an mcpscope from dist/ alone in a child process, driven over a line
 * protocol on stdin/stdout (the child prints one JSON line when ready, then answers one JSON line
 * per command), and the benches' numeric options. Used by bench/soak.ts (test/support/scope-child.mjs) and bench/proxy.ts
 * (bench/scope-child.mjs, which can also run the UI and its WebSocket feed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface ScopeChild {
  /** The first line the child printed (at least `{proxy}`). */
  ready: Record<string, unknown>;
  /** The proxy origin, e.g. `http://127.0.0.1:54321`. */
  proxy: string;
  pid: number;
  process: ChildProcess;
  /** Sends one command line and resolves with the child's JSON answer. */
  ask(cmd: string): Promise<Record<string, unknown>>;
  /** Sends `close` and waits for the child to exit. */
  close(): Promise<void>;
}

export interface ScopeChildOptions {
  /** The child script; default test/support/scope-child.mjs. */
  script?: string | URL;
  /** Arguments after the target. */
  args?: string[];
  env?: Record<string, string>;
  /** Node flags; default `--expose-gc`. */
  nodeArgs?: string[];
}

/** A numeric command-line option, `--name N`, or `fallback` when it is not given. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

export const DEFAULT_SCOPE_CHILD = new URL('../test/support/scope-child.mjs', import.meta.url);

/** Children still running: killed when the bench exits, however it exits (Ctrl-C, `timeout`, a throw). */
const running = new Set<ChildProcess>();
let cleanupInstalled = false;
/** Kills `child` when this process exits (the benches' upstreams, proxies and consumers must not outlive them). */
export function killOnExit(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.once('exit', () => {
    for (const c of running) c.kill();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(signal === 'SIGINT' ? 130 : 143));
}

export async function startScopeChild(target: string, options: ScopeChildOptions = {}): Promise<ScopeChild> {
  const script = fileURLToPath(options.script ?? DEFAULT_SCOPE_CHILD);
  const child = spawn(process.execPath, [...(options.nodeArgs ?? ['--expose-gc']), script, target, ...(options.args ?? [])], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...options.env },
  });
  killOnExit(child);
  const answers = createInterface({ input: child.stdout! });
  const waiting: ((v: Record<string, unknown>) => void)[] = [];
  answers.on('line', (l) => waiting.shift()?.(JSON.parse(l) as Record<string, unknown>));
  const next = () => new Promise<Record<string, unknown>>((r) => waiting.push(r));
  const ready = await next();
  const ask = (cmd: string) => {
    const p = next();
    child.stdin!.write(`${cmd}\n`);
    return p;
  };
  return {
    ready,
    proxy: ready.proxy as string,
    pid: child.pid!,
    process: child,
    ask,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin!.write('close\n');
      await exited;
    },
  };
}
